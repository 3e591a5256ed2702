// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * check_pfm - the encodings cross-checked against independent oracles:
 * libpfm4, and perf's own event tables where libpfm4 lacks the model.
 *
 * libpfm4: for each fixture machine and threshold, the load-latency event
 * tools.conf and sysfs give must have the config and config1 libpfm4
 * computes from its own event tables for that model (LIBPFM_FORCE_PMU makes
 * it encode for a model other than this machine's).  libpfm4 is linked into
 * this test only.  A model libpfm4 does not know fails the test.
 *
 * perf's JSON tables (tests/fixtures/pmu-events, from the Linux tree): for
 * Alder Lake, whose Gracemont E-core Debian 12's libpfm4 4.13 does not
 * know, each LOAD_LATENCY_GT_N event of a hybrid PMU gives the event code,
 * umask and threshold (MSRValue of MSR 0x3F6, perf's ldlat= term) ldlat's
 * event for that PMU must have at threshold N.  No root.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/abi/evspec.h"
#include "kernel/policy/evtable.h"
#include "kernel/policy/source.h"
#include "tests/lib/pfm_oracle.h"
#include "tests/lib/testutil.h"
#include "kernel/lib/util.h"

/* libpfm4's encoding of ev for the first model it knows; NULL when it knows none. */
static const char *pfm_encode(const char *models, const char *ev, struct pfm_encoding *o)
{
	struct err err = {};
	const char *model = pfm_oracle__encode(models, ev, o, &err);

	ck_assert_msg(!err.msg[0], "libpfm4: %s", err.msg);
	return model;
}

struct pfm_case {
	const char *sysfs, *cpu;
	int event;		/* which of the machine's load-latency events */
	const char *models;	/* libpfm4 models, the first it knows is used */
	const char *pfm_event;	/* libpfm4's name for the same event, %llu: the threshold */
	const char *pfm_leader; /* the group leader, or NULL */
};

static const struct pfm_case cases[] = {
	{ "nehalem", "GenuineIntel-6-1A", 0, "nhm",
	  "MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD:ldlat=%llu", NULL },
	{ "skylake-sp", "GenuineIntel-6-55-4", 0, "skx",
	  "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=%llu", NULL },
	{ "sapphire-rapids", "GenuineIntel-6-8F", 0, "spr",
	  "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=%llu", "LD_BLOCKS:STORE_FORWARD" },
	/* Alder Lake's P-core is Golden Cove, Sapphire Rapids' core: spr where adl_glc is unknown */
	{ "alderlake", "GenuineIntel-6-97", 0, "adl_glc,spr",
	  "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=%llu", "LD_BLOCKS:STORE_FORWARD" },
	/* its E-core (libpfm4's adl_grt, absent from 4.13): test_ldlat_events_against_perf_json */
};

static const unsigned long long thresholds[] = { 3, 30, 128, 1000, 65535 };

START_TEST(test_ldlat_events_against_libpfm)
{
	const struct pfm_case *c = &cases[_i];
	struct source_opts o = { .kind = SOURCE_LDLAT };
	const struct evsel *ev;
	struct evtable t;
	struct evlist evl = {};
	struct source src;
	struct pfm_encoding want;
	struct err err = {};
	char notice[2048], name[256], sysfs[128];
	const char *model = NULL, *conf = getenv("LDLAT_CONFIG");
	unsigned int i;

	ck_assert_int_eq(evtable__load(&t, conf && *conf ? conf : "tools.conf", &err), 0);
	o.table = &t;
	snprintf(sysfs, sizeof(sysfs), "sysfs/%s", c->sysfs);
	setenv("LDLAT_SYSFS", fixture_path(sysfs), 1);
	setenv("LDLAT_CPU", c->cpu, 1);
	for (i = 0; i < ARRAY_SIZE(thresholds); i++) {
		o.ldlat = thresholds[i];
		ck_assert_msg(source__resolve(&o, &src, &evl, notice, sizeof(notice), &err) == 0,
			      "%s: %s", c->sysfs, err.msg);
		ck_assert_int_gt(evl.nevsel, c->event);
		ev = &evl.evsel[c->event];
		snprintf(name, sizeof(name), c->pfm_event, thresholds[i]);
		model = pfm_encode(c->models, name, &want);
		ck_assert_msg(model, "%s event %d: libpfm4 knows none of %s", c->sysfs, c->event,
			      c->models);
		ck_assert_msg(ev->attr.config == want.config && ev->attr.config1 == want.config1,
			      "%s (%s) -L %llu: ours config 0x%llx config1 0x%llx, libpfm4 %s::%s "
			      "config 0x%llx config1 0x%llx",
			      c->sysfs, ev->name, thresholds[i],
			      (unsigned long long)ev->attr.config,
			      (unsigned long long)ev->attr.config1, model, name,
			      (unsigned long long)want.config, (unsigned long long)want.config1);
		/* libpfm4 encodes core events as PERF_TYPE_RAW, the type of the core PMU */
		if (ev->attr.type != 10)
			ck_assert_uint_eq(ev->attr.type, want.type);
		if (c->pfm_leader) {
			ck_assert(pfm_encode(c->models, c->pfm_leader, &want));
			ck_assert(ev->has_leader);
			ck_assert_uint_eq(ev->leader.config, want.config);
			ck_assert_uint_eq(ev->leader.config1, want.config1);
		} else {
			ck_assert(!ev->has_leader);
		}
		evlist__free(&evl);
		source__free(&src);
	}
	unsetenv("LDLAT_SYSFS");
	unsetenv("LDLAT_CPU");
	evtable__free(&t);
}
END_TEST

/* The first line of a fixture file, trimmed, or "" when it cannot be read. */
static void read_fixture_line(const char *rel, char *buf, size_t sz)
{
	FILE *f = fopen(fixture_path(rel), "r");

	buf[0] = 0;
	if (f && fgets(buf, (int)sz, f))
		buf[strcspn(buf, "\n")] = 0;
	if (f)
		fclose(f);
}

struct json_case {
	const char *file; /* under tests/fixtures/pmu-events/x86/alderlake */
	const char *unit; /* perf's Unit: the hybrid PMU */
	int event;	  /* which of the machine's load-latency events */
};

static const struct json_case json_cases[] = {
	{ "cache.json", "cpu_atom", 1 },
	{ "memory.json", "cpu_core", 0 },
};

/* the fields perf's jevents writes EventCode, UMask and MSR 0x3F6 as */
static const char *const formats[][2] = {
	{ "event", "config:0-7" },
	{ "umask", "config:8-15" },
	{ "ldlat", "config1:0-15" },
};

/*
 * perf's JSON tables read by jq, not by ldlat: for each LOAD_LATENCY_GT_N
 * event of the unit, the event ldlat opens on that PMU at threshold N has
 * EventCode in config:0-7, UMask in config:8-15 and MSRValue in
 * config1:0-15, the fields the fixture's sysfs formats name (checked here
 * first), on that PMU's type.
 */
START_TEST(test_ldlat_events_against_perf_json)
{
	const struct json_case *c = &json_cases[_i];
	struct source_opts o = { .kind = SOURCE_LDLAT };
	const char *conf = getenv("LDLAT_CONFIG");
	char *out = NULL, *line, *save = NULL, notice[2048], rel[256], fmt[64];
	struct evlist evl = {};
	struct source src;
	struct evtable t;
	struct err err = {};
	unsigned long long type;
	int n = 0;

	snprintf(rel, sizeof(rel), "sysfs/alderlake/bus/event_source/devices/%s/type", c->unit);
	read_fixture_line(rel, fmt, sizeof(fmt));
	type = strtoull(fmt, NULL, 10);
	ck_assert_uint_ge(type, PERF_TYPE_RAW);
	for (unsigned int f = 0; f < ARRAY_SIZE(formats); f++) {
		snprintf(rel, sizeof(rel), "sysfs/alderlake/bus/event_source/devices/%s/format/%s",
			 c->unit, formats[f][0]);
		read_fixture_line(rel, fmt, sizeof(fmt));
		ck_assert_str_eq(fmt, formats[f][1]);
	}

	snprintf(rel, sizeof(rel), "pmu-events/x86/alderlake/%s", c->file);
	ck_assert_int_eq(sh(&out, NULL,
			    "jq -r '.[] | select(.Unit == \"%s\" and "
			    "(.EventName | test(\"LOAD_LATENCY_GT_\"))) | "
			    "[.EventName, .EventCode, .UMask, .MSRIndex, .MSRValue] | @tsv' %s",
			    c->unit, fixture_path(rel)),
			 0);

	ck_assert_int_eq(evtable__load(&t, conf && *conf ? conf : "tools.conf", &err), 0);
	o.table = &t;
	setenv("LDLAT_SYSFS", fixture_path("sysfs/alderlake"), 1);
	setenv("LDLAT_CPU", "GenuineIntel-6-97", 1);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[128], msr[32];
		unsigned long long code, umask, value, gt;
		const struct evsel *ev;

		ck_assert_int_eq(
			sscanf(line, "%127s %llx %llx %31s %llx", name, &code, &umask, msr, &value),
			5);
		/* MSR_PEBS_LD_LAT_THRESHOLD, which perf's jevents writes as ldlat= */
		ck_assert_str_eq(msr, "0x3F6");
		gt = strtoull(strstr(name, "_GT_") + 4, NULL, 10);
		ck_assert_uint_eq(value, gt);
		o.ldlat = value;
		ck_assert_msg(source__resolve(&o, &src, &evl, notice, sizeof(notice), &err) == 0,
			      "alderlake: %s", err.msg);
		ck_assert_int_gt(evl.nevsel, c->event);
		ev = &evl.evsel[c->event];
		ck_assert_msg(ev->attr.type == type && ev->attr.config == (code | umask << 8) &&
				      ev->attr.config1 == value,
			      "alderlake %s -L %llu: ours type %u config 0x%llx config1 0x%llx, "
			      "perf's %s: type %llu config 0x%llx config1 0x%llx",
			      ev->name, value, ev->attr.type, (unsigned long long)ev->attr.config,
			      (unsigned long long)ev->attr.config1, name, type, code | umask << 8,
			      value);
		evlist__free(&evl);
		source__free(&src);
		n++;
	}
	/* perf's tables name thresholds 4 to 512, a power of two each */
	ck_assert_int_eq(n, 8);
	unsetenv("LDLAT_SYSFS");
	unsetenv("LDLAT_CPU");
	evtable__free(&t);
	free(out);
}
END_TEST

/*
 * AMD: libpfm4 has no IBS tables, so the core PMU's encodings are checked,
 * through the zen4 fixture's format (the event field split over config bits
 * 0-7 and 32-35), by the same encoder that encodes ibs_op.
 */
START_TEST(test_amd_core_events_against_libpfm)
{
	static const char *const pairs[][2] = {
		{ "cpu/event=0x29,umask=0x1/", "LS_DISPATCH:LD_DISPATCH" },
		{ "cpu/event=0x29,umask=0x7/",
		  "LS_DISPATCH:LD_DISPATCH:STORE_DISPATCH:LD_ST_DISPATCH" },
		{ "cpu/event=0x1a0,umask=0x1/", "DISPATCH_STALLS_1:FE_NO_OPS" },
		{ "cpu/event=0x1a0,umask=0x1e/", "DISPATCH_STALLS_1:BE_STALLS" },
		{ "cpu/event=0x120,umask=0x1/",
		  "P0_FREQ_CYCLES_NOT_IN_HALT" }, /* the kernel's ref-cycles */
		{ "cpu/event=0x76/", "CYCLES_NOT_IN_HALT" },
	};
	struct evspec spec;
	struct evspec_attr a;
	struct pfm_encoding want;
	struct err err = {};
	char notice[512];
	unsigned int i;

	setenv("LDLAT_SYSFS", fixture_path("sysfs/zen4"), 1);
	for (i = 0; i < ARRAY_SIZE(pairs); i++) {
		ck_assert_int_eq(evspec__parse(&spec, pairs[i][0], &err), 0);
		ck_assert_msg(evspec__encode(&spec.ev[0], &a, notice, sizeof(notice), &err) == 0,
			      "%s", err.msg);
		ck_assert(pfm_encode("amd64_fam19h_zen4", pairs[i][1], &want));
		ck_assert_msg(a.attr.config == want.config && a.attr.type == want.type,
			      "%s: ours 0x%llx, libpfm4 %s 0x%llx", pairs[i][0],
			      (unsigned long long)a.attr.config, pairs[i][1],
			      (unsigned long long)want.config);
		evspec_attr__free(&a);
		evspec__free(&spec);
	}
	unsetenv("LDLAT_SYSFS");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pfm");
	TCase *tc = tcase_create("libpfm4");

	tcase_add_loop_test(tc, test_ldlat_events_against_libpfm, 0, ARRAY_SIZE(cases));
	tcase_add_test(tc, test_amd_core_events_against_libpfm);
	tcase_add_loop_test(tc, test_ldlat_events_against_perf_json, 0, ARRAY_SIZE(json_cases));
	suite_add_tcase(s, tc);
	return run_suite(s);
}
