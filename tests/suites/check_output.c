// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * check_output - the machine-readable renderers on snapshots with known
 * content: JSON against the documented schema (tests/lib/json_schema.py) and its
 * values (jq), OpenMetrics through promtool with cumulative buckets, label
 * escaping, log2 and linear buckets; the exposition writer's lines and the
 * JSON writer's exact doubles byte for byte; and --output's atomic replacement,
 * watched by a reader that must never see a partial file, and what --output
 * does with each kind of file and under signals (output_file.c).  No root
 * needed.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpf/ldlat.h"
#include "user/report/json.h"
#include "user/report/openmetrics.h"
#include "user/report/output.h"
#include "user/report/render.h"
#include "user/report/table.h"
#include "tests/lib/testutil.h"
#include "tests/suites/output_file.h"
#include "kernel/lib/util.h"

static char tmpdir[256];

/* A run with two ranges; a snapshot with L1 hits in range 0 and RAM loads in range 1. */
struct fixture {
	struct source src;
	struct range_set ranges;
	struct ldlat_config cfg;
	struct run_info run;
	struct hist_view view;
	struct snapshot snap;
};

static const __u64 lats[] = { 0, 1, 3, 30, 31, 100, 1000, 1000, 70000 };
#define NLATS (ARRAY_SIZE(lats))

static void fixture_init(struct fixture *f, const char *range0, __u32 linear_step, bool latency)
{
	struct ldlat_sample smp;
	struct ldlat_hist h;
	struct err err = {};
	unsigned int i;
	struct cell *c;

	memset(f, 0, sizeof(*f));
	f->src.kind = latency ? SOURCE_LDLAT : SOURCE_PAGE_FAULTS;
	f->src.fields = latency ? LDLAT_HAS_ADDR | LDLAT_HAS_LAT | LDLAT_HAS_DSRC : LDLAT_HAS_ADDR;
	ck_assert_int_eq(range_set__add(&f->ranges, range0, &err), 0);
	ck_assert_int_eq(range_set__add(&f->ranges, "0x10000+64K", &err), 0);
	ck_assert_int_eq(range_set__resolve(&f->ranges, 0, &err), 0);
	f->cfg.nranges = 2;
	f->cfg.max_lat = ~0ull;
	f->cfg.class_mask = LDLAT_ALL_CLASSES;
	f->cfg.op_mask = PERF_MEM_OP_LOAD;
	f->cfg.linear_step = linear_step;
	f->run = (struct run_info){ .tool = "check_output",
				    .event = "cpu/mem-loads,ldlat=30/P",
				    .target = "cgroup \"quoted\\name\"",
				    .cfg = &f->cfg,
				    .started = { .tv_sec = 1700000000 } };
	f->view = (struct hist_view){ .run = &f->run,
				      .src = &f->src,
				      .ranges = &f->ranges,
				      .by = BY_BOTH,
				      .linear_step = linear_step,
				      .has_latency = latency };
	ck_assert_int_eq(snapshot__init(&f->snap, 2), 0);
	for (i = 0; i < NLATS * 3; i++) {
		bool ram = i >= NLATS;
		__u64 lat = lats[i % NLATS];

		c = &f->snap.cells[ldlat_hist_index(
			ram, latency ? (ram ? LDLAT_CLASS_LOCAL_RAM : LDLAT_CLASS_L1)
				     : LDLAT_CLASS_UNKNOWN)];
		/* as the program counts it: the 0 is a latency not measured */
		smp = (struct ldlat_sample){ .lat = lat,
					     .flags = latency ? LDLAT_HAS_LAT : 0,
					     .period = 1000 };
		memset(&h, 0, sizeof(h));
		ldlat_hist_account(&h, &smp, linear_step, 0, true);
		cell__add_hist(c, &h);
		f->snap.counters.seen++;
		f->snap.counters.kept++;
	}
	f->snap.counters.seen += 5;
	f->snap.counters.outside_ranges = 5;
	f->snap.since = f->run.started;
	f->snap.taken = (struct timespec){ .tv_sec = 1700000060, .tv_nsec = 500000000 };
}

static void render_to(const char *name,
		      void (*fn)(FILE *, const struct hist_view *, const struct snapshot *),
		      const struct fixture *f)
{
	char path[512];
	FILE *out;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	out = fopen(path, "w");
	ck_assert_ptr_nonnull(out);
	fn(out, &f->view, &f->snap);
	ck_assert_int_eq(fclose(out), 0);
}

START_TEST(test_json_schema_and_values)
{
	struct fixture f;

	fixture_init(&f, "0x1000-0x2000", 0, true);
	render_to("a.json", render_json, &f);
	ck_assert_int_eq(sh(NULL, NULL, "python3 %s < %s/a.json", json_schema(), tmpdir), 0);
	ck_assert_int_eq(
		sh(NULL, NULL,
		   "jq -e '.source == \"ldlat\" and .event == \"cpu/mem-loads,ldlat=30/P\" "
		   "and .target == \"cgroup \\\"quoted\\\\name\\\"\" and .interval.seconds "
		   "== 60.5 and .counters.seen == 32 and .counters.dropped.outside_ranges == 5 "
		   "and .filters.ops == [\"load\"] and .filters.max_latency == null and "
		   "(.filters.classes | length) == %d' %s/a.json",
		   LDLAT_NCLASS, tmpdir),
		0);
	/* 9 samples, 8 measured, in 7 buckets: 1, 3, 30, 31, [100,101], [992,1007] x2, 70000's */
	ck_assert_int_eq(sh(NULL, NULL,
			    "jq -e '[.histograms[] | [.range, .class, .class_name, .count, "
			    "(.buckets | length)]] == [[0, \"l1\", \"L1 hit\", 9, 7], [1, "
			    "\"local-ram\", \"local RAM\", 18, 7]]' %s/a.json",
			    tmpdir),
			 0);
	ck_assert_int_eq(
		sh(NULL, NULL,
		   "jq -e '.histograms[0] | .sum == 72165 and .buckets[2] == {low: 30, "
		   "high: 30, count: 1} and .buckets[5] == {low: 992, high: 1007, count: 2} "
		   "and .measured == 8 and .unmeasured == 1 and .min == 1 and .max == 70000 "
		   "and .percentiles.p50 == 31 and .share == 0.333333 and .events == 9000 "
		   "and .event_share == null' %s/a.json && jq -e '.buckets == \"log-linear\" "
		   "and .percentile_error == {kind: \"relative\", bound: 0.015625} and "
		   ".weighting == \"samples\" and .counters.unseen == null' %s/a.json",
		   tmpdir, tmpdir),
		0);
	f.view.by = BY_RANGE;
	render_to("b.json", render_json, &f);
	ck_assert_int_eq(sh(NULL, NULL,
			    "python3 %s < %s/b.json && jq -e '[.histograms[] | .class] == [null, "
			    "null] and .by == \"range\"' %s/b.json",
			    json_schema(), tmpdir, tmpdir),
			 0);
	snapshot__free(&f.snap);
}
END_TEST

/* The schema checker itself rejects what breaks the schema (it must be able to fail). */
START_TEST(test_json_schema_rejects)
{
	struct fixture f;

	fixture_init(&f, "0x1000-0x2000", 0, true);
	render_to("c.json", render_json, &f);
	ck_assert_int_ne(sh(NULL, NULL, "jq -c '.histograms[0].count += 1' %s/c.json | python3 %s",
			    tmpdir, json_schema()),
			 0);
	ck_assert_int_ne(sh(NULL, NULL,
			    "jq -c 'del(.counters.dropped.below_min)' %s/c.json | python3 %s",
			    tmpdir, json_schema()),
			 0);
	ck_assert_int_ne(sh(NULL, NULL,
			    "jq -c '.histograms[0].buckets |= reverse' %s/c.json | python3 %s",
			    tmpdir, json_schema()),
			 0);
	/* a percentile marked a floor that is no open bucket's low */
	ck_assert_int_ne(sh(NULL, NULL,
			    "jq -c '.histograms[0].percentiles.at_least = [\"p50\"]' %s/c.json | "
			    "python3 %s",
			    tmpdir, json_schema()),
			 0);
	snapshot__free(&f.snap);
}
END_TEST

START_TEST(test_json_no_latency)
{
	struct fixture f;

	fixture_init(&f, "0x1000-0x2000", 0, false);
	f.view.by = BY_RANGE;
	render_to("d.json", render_json, &f);
	ck_assert_int_eq(
		sh(NULL, NULL,
		   "python3 %s < %s/d.json && jq -e '.latency == false and "
		   "[.histograms[] | [.count, .buckets]] == [[9, null], [18, null]]' %s/d.json",
		   json_schema(), tmpdir, tmpdir),
		0);
	snapshot__free(&f.snap);
}
END_TEST

/*
 * A percentile whose sample is in the open last bucket is only known to be at
 * least its lower bound: text prints ">=", JSON lists it in at_least.  With
 * linear buckets of 100, range 1's 16 measured RAM loads have their 15th
 * (p90) in the open bucket from 6400; p99, the greatest, is the exact max;
 * with log-linear buckets no bucket is open below 2^20.
 */
START_TEST(test_percentile_open_bucket)
{
	struct fixture f;

	fixture_init(&f, "0x1000-0x2000", 100, true);
	render_to("open.txt", render_text, &f);
	ck_assert_int_eq(sh(NULL, NULL,
			    "grep -q '^  latency: mean .* cycles, min 1, p50 50, p90 >=6400, "
			    "p99 70000, max 70000 (percentiles within 50 cycles)$' %s/open.txt && "
			    "grep -q '^  18 samples (66.7%% of kept)$' %s/open.txt && grep -q "
			    "'^  2 samples without a measured latency' %s/open.txt",
			    tmpdir, tmpdir, tmpdir),
			 0);
	render_to("open.json", render_json, &f);
	ck_assert_int_eq(sh(NULL, NULL,
			    "python3 %s < %s/open.json && jq -e '.histograms[1].percentiles "
			    "== {p50: 50, p90: 6400, p99: 70000, at_least: [\"p90\"]}' "
			    "%s/open.json",
			    json_schema(), tmpdir, tmpdir),
			 0);
	snapshot__free(&f.snap);
	fixture_init(&f, "0x1000-0x2000", 0, true);
	render_to("closed.json", render_json, &f);
	ck_assert_int_eq(sh(NULL, NULL,
			    "jq -e '[.histograms[].percentiles.at_least] == [[], []]' "
			    "%s/closed.json",
			    tmpdir),
			 0);
	snapshot__free(&f.snap);
}
END_TEST

/* Frequency mode: every format says the shares are period-weighted, and gives the events. */
START_TEST(test_period_weighted)
{
	struct fixture f;

	fixture_init(&f, "0x1000-0x2000", 0, true);
	f.view.period_weighted = true;
	f.snap.cells[ldlat_hist_index(0, LDLAT_CLASS_L1)].period = 1000;
	render_to("w.txt", render_text, &f);
	ck_assert_int_eq(sh(NULL, NULL,
			    "grep -q '^  9 samples (33.3%% of kept), standing for 1000 events "
			    "(5.3%% of the kept samples. events)$' %s/w.txt",
			    tmpdir),
			 0);
	render_to("w.json", render_json, &f);
	ck_assert_int_eq(sh(NULL, NULL,
			    "python3 %s < %s/w.json && jq -e '.weighting == \"period\" and "
			    ".histograms[0].events == 1000 and .histograms[0].event_share == "
			    "0.052632' %s/w.json",
			    json_schema(), tmpdir, tmpdir),
			 0);
	render_to("w.prom", render_prometheus, &f);
	ck_assert_int_eq(
		sh(NULL, NULL,
		   "promtool check metrics < %s/w.prom && grep -q "
		   "'^ldlat_events_total{.*class=\"l1\".*weighting=\"period\"} 1000$' %s/w.prom",
		   tmpdir, tmpdir),
		0);
	snapshot__free(&f.snap);
}
END_TEST

/* What the program did not see: a line in text, an object in JSON, a counter in OpenMetrics. */
START_TEST(test_unseen_every_format)
{
	struct fixture f;

	fixture_init(&f, "0x1000-0x2000", 0, true);
	f.snap.unseen = (struct unseen){
		.known = true, .nevents = 2, .counted = 40, .seen = 32, .seen_period = 32
	};
	render_to("u.txt", render_text, &f);
	ck_assert_int_eq(sh(NULL, NULL,
			    "grep -q '^unseen: 8 samples the events produced and the program did "
			    "not see (40 by the events. counts, 32 seen)$' %s/u.txt",
			    tmpdir),
			 0);
	render_to("u.json", render_json, &f);
	ck_assert_int_eq(sh(NULL, NULL,
			    "python3 %s < %s/u.json && jq -e '.counters.unseen | .samples == 8 and "
			    ".estimated == false' %s/u.json",
			    json_schema(), tmpdir, tmpdir),
			 0);
	render_to("u.prom", render_prometheus, &f);
	ck_assert_int_eq(
		sh(NULL, NULL,
		   "promtool check metrics < %s/u.prom && grep -q "
		   "'^ldlat_samples_unseen_total{.*estimated=\"0\"} 8$' %s/u.prom && grep -q "
		   "'^ldlat_latency_percentile_error{.*kind=\"relative\"} 0.015625$' %s/u.prom "
		   "&& grep -q '^ldlat_latency_max_cycles{.*class=\"l1\".*} 70000$' %s/u.prom "
		   "&& grep -q '^ldlat_samples_unmeasured_total{.*class=\"l1\".*} 1$' %s/u.prom",
		   tmpdir, tmpdir, tmpdir, tmpdir, tmpdir),
		0);
	snapshot__free(&f.snap);
}
END_TEST

/*
 * A pinned set's figure is a lower bound (each event's count at the
 * program's last sample of it), said in every format; a set that cannot
 * know says why in text and JSON, and exposes no series.
 */
START_TEST(test_unseen_lower_bound)
{
	struct fixture f;

	fixture_init(&f, "0x1000-0x2000", 0, true);
	f.snap.unseen = (struct unseen){ .known = true,
					 .lower_bound = true,
					 .nevents = 2,
					 .counted = 40,
					 .seen = 32,
					 .seen_period = 32 };
	render_to("l.txt", render_text, &f);
	ck_assert_int_eq(sh(NULL, NULL,
			    "grep -q '^unseen: at least 8 samples the events produced and the "
			    "program did not see (40 by the events. counts at the program.s last "
			    "sample of each, 32 seen)$' %s/l.txt",
			    tmpdir),
			 0);
	render_to("l.json", render_json, &f);
	ck_assert_int_eq(sh(NULL, NULL,
			    "python3 %s < %s/l.json && jq -e '.counters | .unseen.samples == 8 and "
			    ".unseen.lower_bound == true and .unseen.samples_counted == 40 and "
			    "has(\"unseen_unknown\") == false' %s/l.json",
			    json_schema(), tmpdir, tmpdir),
			 0);
	/* the schema checker wants it (it must be able to fail) */
	ck_assert_int_ne(sh(NULL, NULL,
			    "jq -c 'del(.counters.unseen.lower_bound)' %s/l.json | python3 %s",
			    tmpdir, json_schema()),
			 0);
	render_to("l.prom", render_prometheus, &f);
	render_to("l.om", render_openmetrics, &f);
	ck_assert_int_eq(sh(NULL, NULL,
			    "promtool check metrics < %s/l.prom && grep -q "
			    "'^ldlat_samples_unseen_total{.*estimated=\"0\"} 8$' %s/l.prom && grep "
			    "-q '^# HELP ldlat_samples_unseen_total .*at least' %s/l.prom && "
			    "/usr/bin/python3 %s/../lib/openmetrics_parse.py < %s/l.om && grep -q "
			    "'^ldlat_samples_unseen_total{.*estimated=\"0\"} 8$' %s/l.om",
			    tmpdir, tmpdir, tmpdir, fixture_path(""), tmpdir, tmpdir),
			 0);
	/* frequency mode: about, and no trailing period spared */
	f.snap.unseen = (struct unseen){ .known = true,
					 .freq = true,
					 .lower_bound = true,
					 .nevents = 2,
					 .counted = 200000,
					 .seen = 190,
					 .seen_period = 190000 };
	render_to("lf.txt", render_text, &f);
	ck_assert_int_eq(sh(NULL, NULL,
			    "grep -q '^unseen: at least about 10 samples the events produced and "
			    "the program did not see (frequency mode: their 200000 events at the "
			    "program.s last sample of each against the 190000 the samples seen "
			    "stand for)$' %s/lf.txt",
			    tmpdir),
			 0);
	/* not known, and why */
	f.snap.unseen = (struct unseen){ .why = "no way to count" };
	render_to("w.txt", render_text, &f);
	render_to("w.json", render_json, &f);
	render_to("w.prom", render_prometheus, &f);
	ck_assert_int_eq(sh(NULL, NULL,
			    "grep -qx 'unseen: not measured: no way to count' %s/w.txt && python3 "
			    "%s < %s/w.json && jq -e '.counters | .unseen == null and "
			    ".unseen_unknown == \"no way to count\"' %s/w.json && ! grep -q "
			    "ldlat_samples_unseen %s/w.prom",
			    tmpdir, json_schema(), tmpdir, tmpdir, tmpdir),
			 0);
	snapshot__free(&f.snap);
}
END_TEST

/* The exposition at tmpdir/name: OpenMetrics through its parser, the text format through promtool. */
static void check_exposition(const char *name, bool openmetrics)
{
	if (openmetrics) {
		ck_assert_int_eq(sh(NULL, NULL,
				    "/usr/bin/python3 %s/../lib/openmetrics_parse.py < %s/%s",
				    fixture_path(""), tmpdir, name),
				 0);
		ck_assert_int_eq(sh(NULL, NULL, "tail -n 1 %s/%s | grep -qx '# EOF'", tmpdir, name),
				 0);
	} else {
		ck_assert_int_eq(sh(NULL, NULL, "promtool check metrics < %s/%s", tmpdir, name), 0);
		ck_assert_int_eq(sh(NULL, NULL, "! grep -q '^# EOF' %s/%s", tmpdir, name), 0);
	}
}

/*
 * le, cumulative counts, +Inf = _count, for log2 (_i 0, 2) and linear (_i 1,
 * 3) buckets, in the Prometheus text format (_i 0, 1) and OpenMetrics (_i 2,
 * 3): the same samples, counters typed in each one's way.
 */
START_TEST(test_openmetrics_promtool)
{
	struct fixture f;
	char name[32];
	bool linear = _i % 2, om = _i / 2;

	/* a range whose text needs escaping in a label: a path with a quote */
	fixture_init(&f, linear ? "0x1000+4K" : "0x1000-0x2000", linear ? 100 : 0, true);
	snprintf(name, sizeof(name), "m%d.prom", _i);
	render_to(name, om ? render_openmetrics : render_prometheus, &f);
	check_exposition(name, om);
	ck_assert_int_eq(sh(NULL, NULL, "grep -qx '# TYPE %s counter' %s/%s",
			    om ? "ldlat_samples_seen" : "ldlat_samples_seen_total", tmpdir, name),
			 0);
	ck_assert_int_eq(sh(NULL, NULL, "grep -q '^ldlat_samples_dropped_total{.*reason=' %s/%s",
			    tmpdir, name),
			 0);
	ck_assert_int_eq(
		sh(NULL, NULL,
		   "grep '^ldlat_latency_cycles_bucket{.*class=\"l1\"' %s/%s | sed "
		   "'s/.*le=\"\\([^\"]*\\)\"} \\(.*\\)/\\1 \\2/' | awk '{ if ($2 < prev) exit "
		   "1; prev = $2; n++; last = $1 } END { if (n != %d || prev != 8 || last != "
		   "\"+Inf\") exit 1 }'",
		   tmpdir, name, linear ? 65 : LDLAT_LAT_BITS + 2),
		0);
	ck_assert_int_eq(
		sh(NULL, NULL,
		   "grep -q '^ldlat_latency_cycles_count{.*class=\"local-ram\".*} 16$' %s/%s "
		   "&& grep -q '^ldlat_latency_cycles_sum{.*class=\"l1\".*} 72165$' %s/%s",
		   tmpdir, name, tmpdir, name),
		0);
	if (linear) /* linear, 100 wide: 0-99 holds 1, 3, 30, 31 (the 0 is not measured) */
		ck_assert_int_eq(sh(NULL, NULL, "grep -q 'class=\"l1\",.*le=\"99\"} 4$' %s/%s",
				    tmpdir, name),
				 0);
	else /* log-linear, at each power of two: up to 31 holds 1, 3, 30, 31 */
		ck_assert_int_eq(sh(NULL, NULL, "grep -q 'class=\"l1\",.*le=\"31\"} 4$' %s/%s",
				    tmpdir, name),
				 0);
	ck_assert_int_eq(sh(NULL, NULL,
			    "grep -q 'target=\"cgroup \\\\\"quoted\\\\\\\\name\\\\\"\"' %s/%s",
			    tmpdir, name),
			 0);
	snapshot__free(&f.snap);
}
END_TEST

/* Both dialects write the same samples; only comments (HELP, TYPE, UNIT, EOF) differ. */
START_TEST(test_exposition_same_samples)
{
	struct fixture f;

	fixture_init(&f, "0x1000-0x2000", 0, true);
	render_to("same.prom", render_prometheus, &f);
	render_to("same.om", render_openmetrics, &f);
	ck_assert_int_eq(sh(NULL, NULL,
			    "cd %s && grep -v '^#' same.prom > same.prom.s && grep -v '^#' same.om "
			    "> same.om.s && cmp same.prom.s same.om.s && [ -s same.om.s ]",
			    tmpdir),
			 0);
	snapshot__free(&f.snap);
}
END_TEST

START_TEST(test_openmetrics_no_latency)
{
	struct fixture f;

	fixture_init(&f, "0x1000-0x2000", 0, false);
	f.view.by = BY_RANGE;
	render_to("n.prom", render_prometheus, &f);
	render_to("n.om", render_openmetrics, &f);
	check_exposition("n.prom", false);
	check_exposition("n.om", true);
	ck_assert_int_eq(
		sh(NULL, NULL,
		   "! grep -q ldlat_latency_cycles %s/n.prom && grep -q "
		   "'^ldlat_range_samples_total{.*range=\"0x10000+64K (0x10000-0x20000)\"} 18$' "
		   "%s/n.prom && grep -qx '# TYPE ldlat_range_samples counter' %s/n.om",
		   tmpdir, tmpdir, tmpdir),
		0);
	snapshot__free(&f.snap);
}
END_TEST

/* What --allow-missing writes for a set that is gone: the one gauge, in each dialect. */
START_TEST(test_set_absent)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	render_set_absent(f, "/sys/fs/bpf/ldlat/\"db", true);
	fclose(f);
	ck_assert_str_eq(buf, "# HELP ldlat_set_present 1 when the pinned set was found in pin, 0 "
			      "when pin is missing or empty (the set was removed: nothing else is "
			      "reported).\n# TYPE ldlat_set_present gauge\n"
			      "ldlat_set_present{pin=\"/sys/fs/bpf/ldlat/\\\"db\"} 0\n");
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	render_set_absent(f, "/sys/fs/bpf/ldlat/db", false);
	fclose(f);
	ck_assert_ptr_nonnull(
		strstr(buf, "ldlat_set_present{pin=\"/sys/fs/bpf/ldlat/db\"} 0\n# EOF\n"));
	free(buf);
}
END_TEST

/* A counter in each dialect, and the end: # EOF in OpenMetrics only. */
START_TEST(test_om_counter)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	om__counter(f, OM_OPENMETRICS, "m_seen", "Seen.");
	om__sample_u64(f, "m_seen_total", NULL, 3);
	om__end(f, OM_OPENMETRICS);
	om__counter(f, OM_PROMETHEUS, "m_seen", "Seen.");
	om__sample_u64(f, "m_seen_total", NULL, 3);
	om__end(f, OM_PROMETHEUS);
	fclose(f);
	ck_assert_str_eq(buf, "# HELP m_seen Seen.\n# TYPE m_seen counter\nm_seen_total 3\n# EOF\n"
			      "# HELP m_seen_total Seen.\n# TYPE m_seen_total counter\n"
			      "m_seen_total 3\n");
	free(buf);
}
END_TEST

/* The exposition writer: lines as OpenMetrics and Prometheus both read them, values escaped. */
START_TEST(test_openmetrics_writer)
{
	char *buf = NULL, long_value[1000], long_line[1200], want[2048];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct om_labels base, l;

	memset(long_value, 'x', sizeof(long_value) - 1);
	long_value[sizeof(long_value) - 1] = '\0';
	om_labels__init(&base);
	om_labels__add(&base, "target", "a\"b\\c\nd", OM_VALUE_MAX);
	om__family(f, "m_info", "gauge", "What it is.");
	l = base;
	om_labels__add_int(&l, "group", -3);
	om_labels__add_u64(&l, "le", 18446744073709551615ull);
	om__sample_u64(f, "m_info", &l, 1);
	om__family(f, "m_total", NULL, "No type: unknown, or untyped.");
	om__unit(f, "m_total", "cycles");
	om__sample_fixed(f, "m_total", &base, 2.0 / 3.0, 3);
	om__sample_exact(f, "m_total", NULL, 0.1);
	l = base;
	om_labels__add(&l, "long", long_value, OM_VALUE_MAX); /* cut, as it always was */
	om__sample_u64(f, "m_long", &l, 0);
	om__eof(f);
	fclose(f);
	/* cut at 597 bytes: what a 600-byte value buffer held */
	snprintf(long_line, sizeof(long_line),
		 "m_long{target=\"a\\\"b\\\\c\\nd\",long=\"%.597s\"} 0\n", long_value);
	snprintf(want, sizeof(want),
		 "# HELP m_info What it is.\n"
		 "# TYPE m_info gauge\n"
		 "m_info{target=\"a\\\"b\\\\c\\nd\",group=\"-3\",le=\"18446744073709551615\"} 1\n"
		 "# HELP m_total No type: unknown, or untyped.\n"
		 "# UNIT m_total cycles\n"
		 "m_total{target=\"a\\\"b\\\\c\\nd\"} 0.667\n"
		 "m_total 0.10000000000000001\n"
		 "%s"
		 "# EOF\n",
		 long_line);
	ck_assert_str_eq(buf, want);
	free(buf);
}
END_TEST

/* json__double_exact: every bit of a double, and null where JSON has no number. */
START_TEST(test_json_double_exact)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json j;

	json__init(&j, f);
	json__array_begin(&j, NULL);
	json__double_exact(&j, NULL, 0.1);
	json__double_exact(&j, NULL, 4);
	json__double_exact(&j, NULL, 1.3835058055282164e+19);
	json__double_exact(&j, NULL, 1.0 / 0.0);
	json__double_exact(&j, NULL, 0.0 / 0.0);
	json__array_end(&j);
	json__end_line(&j);
	fclose(f);
	ck_assert_str_eq(buf, "[0.10000000000000001,4,1.3835058055282164e+19,null,null]\n");
	free(buf);
}
END_TEST

/*
 * The text-table writer: right and left alignment, a cell wider than its
 * column pushing the row on, a row that stops early without trailing
 * spaces, a stop column, and an unbounded last column printed whole.
 */
START_TEST(test_table_writer)
{
	static const struct table_column cols[] = {
		{ .header = "count", .width = 6, .align = TABLE_RIGHT },
		{ .header = "name", .width = 8, .align = TABLE_LEFT, .sep = "  " },
		{ .header = "what", .align = TABLE_LEFT, .sep = " " },
		{ .header = "note", .align = TABLE_LEFT, .sep = " ", .stop = 30 },
	};
	const struct table t = { cols, ARRAY_SIZE(cols) };
	char *buf = NULL, long_cell[1000], want[2048];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct table_row r;

	memset(long_cell, 'w', sizeof(long_cell) - 1);
	long_cell[sizeof(long_cell) - 1] = '\0';
	table__header(f, &t);
	table__row_begin(&r, f, &t);
	table__cell(&r, "%d", 42);
	table__cell(&r, "%s", "ab");
	table__cell(&r, "%s", "x");
	table__row_end(&r);
	/* wider than their columns: printed whole, the note still at its stop */
	table__row_begin(&r, f, &t);
	table__cell(&r, "%d", 1234567);
	table__cell(&r, "%s", "a-name-too-long");
	table__cell(&r, "%s", "y");
	table__cell(&r, "%s", "z");
	table__row_end(&r);
	/* past the stop: the note after its separator */
	table__row_begin(&r, f, &t);
	table__cell(&r, "%d", 1);
	table__cell(&r, "%s", "n");
	table__cell(&r, "%s", "a long text that passes the stop");
	table__cell(&r, "(%s)", "note");
	table__row_end(&r);
	/* empty cells in the middle keep their widths; a row that stops early has no padding */
	table__row_begin(&r, f, &t);
	table__cell(&r, "%d", 5);
	table__cell(&r, "%s", "");
	table__cell(&r, "%s", "");
	table__cell(&r, "%s", "t");
	table__row_end(&r);
	table__row_begin(&r, f, &t);
	table__cell(&r, "%d", 7);
	table__cell(&r, "%s", "short");
	table__row_end(&r);
	/* the unbounded column: longer than the buffers callers format their cells in */
	table__row_begin(&r, f, &t);
	table__cell(&r, "%d", 0);
	table__cell(&r, "%s", "n");
	table__cell(&r, "%s", long_cell);
	table__row_end(&r);
	/* a cell past the last column is not printed */
	table__row_begin(&r, f, &t);
	table__cell(&r, "%s", "a");
	table__cell(&r, "%s", "b");
	table__cell(&r, "%s", "c");
	table__cell(&r, "%s", "d");
	table__cell(&r, "%s", "e");
	table__row_end(&r);
	fclose(f);
	snprintf(want, sizeof(want),
		 " count  name     what         note\n"
		 "    42  ab       x\n"
		 "1234567  a-name-too-long y    z\n"
		 "     1  n        a long text that passes the stop (note)\n"
		 "     5                        t\n"
		 "     7  short\n"
		 "     0  n        %s\n"
		 "     a  b        c            d\n",
		 long_cell);
	ck_assert_str_eq(buf, want);
	free(buf);
}
END_TEST

/* A reader never sees a partial file while --output is replaced 300 times. */
START_TEST(test_output_atomic)
{
	struct output_opts o = { .formats = &hist_formats, .format = OUTPUT_OPENMETRICS };
	struct hist_report r;
	struct err err = {};
	char path[512];
	struct fixture f;
	struct stat st;
	pid_t reader;
	int i, status;

	fixture_init(&f, "0x1000-0x2000", 0, true);
	snprintf(path, sizeof(path), "%s/ldlat.prom", tmpdir);
	o.path = path;
	umask(022); /* a new file: 0666 less the umask, as a shell makes it */
	ck_assert_int_eq(output__check(&o, &err), 0);
	r = (struct hist_report){ .view = &f.view, .interval = &f.snap, .total = &f.snap };
	ck_assert_int_eq(output__write(&o, &r, false, &err), 0);
	reader = fork();
	ck_assert_int_ge(reader, 0);
	if (reader == 0) {
		char buf[1 << 16];
		size_t n;
		FILE *in;

		for (;;) {
			in = fopen(path, "r");
			if (!in)
				_exit(2);
			n = fread(buf, 1, sizeof(buf) - 1, in);
			fclose(in);
			buf[n] = '\0';
			if (n < 6 || strcmp(buf + n - 6, "# EOF\n") || strncmp(buf, "# HELP", 6))
				_exit(1);
		}
	}
	for (i = 0; i < 300; i++) {
		f.snap.counters.seen++;
		ck_assert_int_eq(output__write(&o, &r, i != 0, &err), 0);
	}
	kill(reader, SIGKILL);
	ck_assert_int_eq(waitpid(reader, &status, 0), reader);
	ck_assert_msg(WIFSIGNALED(status), "the reader saw a partial file (exit %d)",
		      WEXITSTATUS(status));
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777,
			 0644); /* a collector running as another user reads it */
	output__close(&o);
	/* nothing left beside it */
	ck_assert_int_eq(sh(NULL, NULL, "[ $(ls %s | grep -c '^ldlat.prom') = 1 ]", tmpdir), 0);
	ck_assert_int_eq(sh(NULL, NULL, "grep -q '^ldlat_samples_seen_total{.*} 332$' %s", path),
			 0);
	snapshot__free(&f.snap);
}
END_TEST

static void render_lines(FILE *f, const void *report)
{
	int i;

	(void)report;
	for (i = 0; i < 10; i++)
		fprintf(f, "line %d of a report\n", i);
}

/* a tool whose one format is text, ten lines a report */
static const struct output_formats lines_formats = { "test", .text = render_lines };

START_TEST(test_output_check)
{
	struct output_opts o = { .formats = &lines_formats,
				 .path = "/nonexistent-ldlat-dir/x.prom" };
	struct err err = {};

	ck_assert_int_eq(output__check(&o, &err), -EINVAL);
	ck_assert_msg(strstr(err.msg,
			     "--output '/nonexistent-ldlat-dir/x.prom': cannot create a file "
			     "in /nonexistent-ldlat-dir"),
		      "%s", err.msg);
	o.path = tmpdir;
	ck_assert_int_eq(output__check(&o, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "is a directory"));
	/* a device is written in place: opened here, never replaced by a file */
	o.path = "/dev/null";
	ck_assert_int_eq(output__check(&o, &err), 0);
	ck_assert_ptr_nonnull(o.stream);
	ck_assert_int_eq(output__write(&o, NULL, true, &err), 0);
	output__close(&o);
	ck_assert_ptr_null(o.stream);
	/* and a write it refuses is an error with a sentence, as on stdout */
	o.path = "/dev/full";
	ck_assert_int_eq(output__check(&o, &err), 0);
	ck_assert_int_eq(output__write(&o, NULL, false, &err), -ENOSPC);
	ck_assert_msg(strstr(err.msg, "cannot write the report to --output '/dev/full': No space"),
		      "%s", err.msg);
	output__close(&o);
}
END_TEST

/*
 * A FIFO with no reader: output__check waits for one, as a shell's
 * redirection would, but a live run holds its signals for its teardown, so
 * one held meanwhile ends the wait (-EINTR), or Ctrl-C would do nothing.
 */
START_TEST(test_output_fifo_signal)
{
	struct output_opts o = { .formats = &lines_formats, .format = OUTPUT_TEXT };
	struct err err = {};
	char path[512];
	sigset_t set, old;
	int sig;

	snprintf(path, sizeof(path), "%s/no-reader.fifo", tmpdir);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	o.path = path;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	ck_assert_int_eq(sigprocmask(SIG_BLOCK, &set, &old), 0);
	ck_assert_int_eq(raise(SIGINT), 0);
	ck_assert_int_eq(output__check(&o, &err), -EINTR);
	ck_assert_msg(strstr(err.msg, "a signal came before a reader of the FIFO"), "%s", err.msg);
	ck_assert_ptr_null(o.stream);
	/* still there for the run's signalfd */
	ck_assert_int_eq(sigwait(&set, &sig), 0);
	ck_assert_int_eq(sig, SIGINT);
	sigprocmask(SIG_SETMASK, &old, NULL);
	unlink(path);
}
END_TEST

/*
 * A report on stdout is written out before output__write returns (a reader
 * of a pipe sees it at once), and a write that fails is an error with a
 * sentence, not lost: stdout on /dev/full.
 */
START_TEST(test_output_stdout_flushed)
{
	struct output_opts o = { .formats = &lines_formats, .format = OUTPUT_TEXT };
	int saved = dup(1), fds[2], full;
	struct err err = {};
	char buf[4096];
	ssize_t n;

	ck_assert_int_ge(saved, 0);
	ck_assert_int_eq(pipe(fds), 0);
	fflush(stdout);
	ck_assert_int_ge(dup2(fds[1], 1), 0);
	ck_assert_int_eq(output__write(&o, NULL, false, &err), 0);
	n = read(fds[0], buf, sizeof(buf) - 1); /* blocks if the report were still buffered */
	ck_assert_int_gt(n, 0);
	buf[n] = '\0';
	ck_assert_msg(strstr(buf, "line 0 of") && strstr(buf, "line 9 of"), "%s", buf);

	full = open("/dev/full", O_WRONLY | O_CLOEXEC);
	ck_assert_int_ge(full, 0);
	ck_assert_int_ge(dup2(full, 1), 0);
	ck_assert_int_eq(output__write(&o, NULL, true, &err), -ENOSPC);
	ck_assert_msg(strstr(err.msg, "cannot write the report to standard output: No space left"),
		      "%s", err.msg);
	ck_assert_int_ge(dup2(saved, 1), 0);
	close(full);
	close(saved);
	close(fds[0]);
	close(fds[1]);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("output");
	TCase *tc;
	int failed;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/ldlat-check-output-%d", (int)getpid());
	if (mkdir(tmpdir, 0700)) {
		perror(tmpdir);
		return 1;
	}
	tc = tcase_create("formats");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_json_schema_and_values);
	tcase_add_test(tc, test_json_schema_rejects);
	tcase_add_test(tc, test_json_no_latency);
	tcase_add_test(tc, test_percentile_open_bucket);
	tcase_add_test(tc, test_period_weighted);
	tcase_add_test(tc, test_unseen_every_format);
	tcase_add_test(tc, test_unseen_lower_bound);
	tcase_add_loop_test(tc, test_openmetrics_promtool, 0, 4);
	tcase_add_test(tc, test_exposition_same_samples);
	tcase_add_test(tc, test_openmetrics_no_latency);
	tcase_add_test(tc, test_set_absent);
	tcase_add_test(tc, test_om_counter);
	tcase_add_test(tc, test_openmetrics_writer);
	tcase_add_test(tc, test_json_double_exact);
	tcase_add_test(tc, test_table_writer);
	tcase_add_test(tc, test_output_atomic);
	tcase_add_test(tc, test_output_check);
	tcase_add_test(tc, test_output_stdout_flushed);
	tcase_add_test(tc, test_output_fifo_signal);
	suite_add_tcase(s, tc);
	output_file_tcases(s, tmpdir);

	failed = run_suite(s);
	sh(NULL, NULL, "rm -rf %s", tmpdir);
	return failed ? 1 : 0;
}
