// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * check_fleet - ldlat-hist in front of a real Prometheus: Debian's
 * prometheus-node-exporter (textfile collector only) and prometheus, each
 * started here on a free 127.0.0.1 port with a temporary configuration and
 * data directory, scrape what an exporter loop writes with ldlat-hist
 * --show --format prometheus --allow-missing --output (the command of
 * ldlat-textfile@.service), while a pinned set samples a cgroup with a
 * workload (page faults) and another holds latency histograms filled
 * through the BPF test entry.  Prometheus' HTTP API must answer what
 * --show says for the same span: the samples counters exactly, the count
 * per class exactly, and histogram_quantile (over the change between two
 * scrapes, and over rate()) in the same bucket as --show --delta's
 * percentiles.  The same exposition in OpenMetrics, served with its
 * content type, is scraped as such.  The set removed: the exporter goes on,
 * ldlat_set_present says 0, its series go stale.  Also: the systemd units
 * pass systemd-analyze verify and start, restart and stop cleanly (their
 * commands run by tests/lib/unit_exec.sh: systemd is not PID 1 on every
 * test machine), and a textfile that cannot be written stays whole.
 * Needs root; pins under /sys/fs/bpf/ldlat-test-PID-* and
 * /sys/fs/bpf/ldlat/ldlat-test-PID-*, removed by each test.
 */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/perf_event.h>

#include "bpf/ldlat.h"
#include "user/hist/pinset.h"
#include "user/run/session.h"
#include "tests/lib/testutil.h"
#include "kernel/lib/util.h"

#define BASE  "0x200000000000"
#define BASE2 "0x200040000000"
#define RANGE BASE "+16M"

static pid_t suite_pid;

static void pin_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "/sys/fs/bpf/ldlat-test-%d-%s", (int)suite_pid, name);
}

/* /sys/fs/cgroup/.../ldlat-fleet-NAME-SUITEPID-PID */
static void cg_make(char *path, size_t len, const char *name)
{
	char tag[64];

	snprintf(tag, sizeof(tag), "fleet-%s-%d", name, (int)suite_pid);
	ck_assert_int_eq(cgroup_make(path, len, tag), 0);
}

/* The folder of the tools (build/), for the units' UNIT_BINDIR. */
static const char *bindir(void)
{
	static char path[4096];

	snprintf(path, sizeof(path), "%s", hist());
	*strrchr(path, '/') = '\0';
	return path;
}

/* A port nothing listens on now (the kernel's pick); the servers bind it right after. */
static int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), port;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	port = ntohs(a.sin_port);
	close(fd);
	return port;
}

/* Faults n pages at base inside the cgroup. */
static void fault_pages(const char *cg, const char *n, const char *base)
{
	char *argv[] = { (char *)build_path("ldlat-workload"),
			 "--wait",
			 "--fault-pages",
			 (char *)n,
			 "--base",
			 (char *)base,
			 NULL };
	struct child w;

	child_spawn(&w, argv);
	ck_assert_int_eq(cgroup_enter(cg, w.pid), 0);
	ck_assert_int_eq(write(w.in, "g", 1), 1);
	ck_assert_int_eq(child_finish(&w, 30), 0);
	child_free(&w);
}

/* --unpin, again while an exporter's --show holds the set for a moment (it refuses then). */
static void unpin(const char *dir)
{
	ck_assert_int_eq(sh(NULL, NULL,
			    "n=0; until %s --unpin %s 2>/dev/null; do n=$((n + 1)); "
			    "[ $n -lt 100 ] || exit 1; sleep 0.1; done",
			    hist(), dir),
			 0);
	rmdir(dir);
}

/* ---- the stack: node_exporter, Prometheus, an OpenMetrics file server, the exporter ---- */

struct stack {
	char tmp[256];
	int node_port, prom_port, om_port;
	struct child node, prom, om, exporter;
};

/* Starts cmd through sh, its output in tmp/log.NAME (a pipe nobody reads would fill). */
static void spawn_logged(struct stack *st, struct child *c, const char *name, const char *cmd)
{
	char line[8192], *argv[] = { "sh", "-c", line, NULL };

	snprintf(line, sizeof(line), "exec %s >%s/log.%s 2>&1", cmd, st->tmp, name);
	child_spawn(c, argv);
}

/* Polls a shell condition every 0.2 s for up to seconds; true once it holds. */
static bool wait_sh(double seconds, const char *fmt, const char *a, int port)
{
	char cmd[4096], *out = NULL, *err = NULL;
	double end = clock__monotonic() + seconds;
	bool ok = false;

	snprintf(cmd, sizeof(cmd), fmt, a, port);
	while (!ok && clock__monotonic() < end) {
		ok = sh(&out, &err, "%s", cmd) == 0;
		free(out);
		free(err);
		if (!ok)
			usleep(200000);
	}
	return ok;
}

/*
 * exporter: the shell loop that refreshes the textfiles (and the OpenMetrics
 * file) until tmp/stop exists, as ldlat-textfile@.timer would; each failure
 * of ldlat-hist is written to tmp/exporter.failed.
 */
static void stack_prepare(struct stack *st)
{
	snprintf(st->tmp, sizeof(st->tmp), "/tmp/ldlat-fleet-%d-XXXXXX", (int)getpid());
	ck_assert_ptr_nonnull(mkdtemp(st->tmp));
	ck_assert_int_eq(
		sh(NULL, NULL, "mkdir %s/textfile %s/om %s/data", st->tmp, st->tmp, st->tmp), 0);
}

static void stack_start(struct stack *st, const char *exporter)
{
	char cmd[8192];
	FILE *f;

	st->node_port = free_port();
	st->prom_port = free_port();
	st->om_port = free_port();
	snprintf(cmd, sizeof(cmd), "%s/prometheus.yml", st->tmp);
	f = fopen(cmd, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f,
		"global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
		"scrape_configs:\n"
		"  - job_name: node\n    static_configs:\n      - targets: ['127.0.0.1:%d']\n"
		"  - job_name: ldlat-openmetrics\n    static_configs:\n"
		"      - targets: ['127.0.0.1:%d']\n",
		st->node_port, st->om_port);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(sh(NULL, NULL, "promtool check config %s/prometheus.yml", st->tmp), 0);

	snprintf(cmd, sizeof(cmd),
		 "prometheus-node-exporter --web.listen-address=127.0.0.1:%d "
		 "--collector.disable-defaults --collector.textfile "
		 "--collector.textfile.directory=%s/textfile",
		 st->node_port, st->tmp);
	spawn_logged(st, &st->node, "node", cmd);
	snprintf(cmd, sizeof(cmd),
		 "prometheus --config.file=%s/prometheus.yml --storage.tsdb.path=%s/data "
		 "--web.listen-address=127.0.0.1:%d",
		 st->tmp, st->tmp, st->prom_port);
	spawn_logged(st, &st->prom, "prometheus", cmd);
	/* serves om/metrics as OpenMetrics: Prometheus then parses it as such */
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import functools, http.server, sys\n"
		 "class H(http.server.SimpleHTTPRequestHandler):\n"
		 "    def guess_type(self, path):\n"
		 "        return \"application/openmetrics-text; version=1.0.0; charset=utf-8\"\n"
		 "http.server.ThreadingHTTPServer((\"127.0.0.1\", int(sys.argv[1])), "
		 "functools.partial(H, directory=sys.argv[2])).serve_forever()' %d %s/om",
		 st->om_port, st->tmp);
	spawn_logged(st, &st->om, "om", cmd);
	snprintf(cmd, sizeof(cmd), "sh -c 'while [ ! -e %s/stop ]; do %s sleep 0.3; done'", st->tmp,
		 exporter);
	spawn_logged(st, &st->exporter, "exporter", cmd);

	ck_assert_msg(
		wait_sh(60, "curl -sf http://%s:%d/-/ready >/dev/null", "127.0.0.1", st->prom_port),
		"prometheus is not ready (see %s/log.prometheus)", st->tmp);
	ck_assert_msg(
		wait_sh(60, "curl -sf http://%s:%d/metrics >/dev/null", "127.0.0.1", st->node_port),
		"node_exporter is not ready (see %s/log.node)", st->tmp);
}

static void stack_stop(struct stack *st)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/stop", st->tmp);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	ck_assert_int_eq(child_finish(&st->exporter, 30), 0);
	kill(st->prom.pid, SIGTERM);
	kill(st->node.pid, SIGTERM);
	kill(st->om.pid, SIGTERM);
	child_finish(&st->prom, 30);
	child_finish(&st->node, 30);
	child_finish(&st->om, 30);
	child_free(&st->exporter);
	child_free(&st->prom);
	child_free(&st->node);
	child_free(&st->om);
}

static void stack_remove(struct stack *st)
{
	sh(NULL, NULL, "rm -rf %s", st->tmp);
}

/*
 * An instant query (at time 'at', or now when NULL), its result through
 * the jq filter; stdout in *out.  Returns the exit status (jq -e: false or
 * null fails).
 */
static int prom_query(const struct stack *st, const char *query, const char *at, const char *filter,
		      char **out)
{
	char tm[64] = "", *err = NULL;
	int rc;

	if (at)
		snprintf(tm, sizeof(tm), "--data-urlencode time=%s", at);
	/* quiet: a poll fails until the scrape has happened */
	rc = sh(out, &err,
		"curl -sfG http://127.0.0.1:%d/api/v1/query --data-urlencode 'query=%s' %s | "
		"jq -e -r '%s'",
		st->prom_port, query, tm, filter);
	free(err);
	return rc;
}

/*
 * Polls the query until the jq condition holds (up to 60 s: a scrape a
 * second); the evaluation time of the answer that held, in at.
 */
static void prom_wait(const struct stack *st, const char *query, const char *cond, char *at,
		      size_t len)
{
	double end = clock__monotonic() + 60;
	char filter[1024], *out = NULL;
	int rc = 1;

	/* 0 when there is no series (jq -e takes it as true) */
	snprintf(filter, sizeof(filter), "select(%s) | (.data.result[0].value[0] // 0)", cond);
	while (rc && clock__monotonic() < end) {
		free(out);
		out = NULL;
		rc = prom_query(st, query, NULL, filter, &out);
		if (rc)
			usleep(200000);
	}
	ck_assert_msg(rc == 0, "Prometheus never answered %s with %s (last: %s)", query, cond, out);
	if (at) {
		out[strcspn(out, "\n")] = '\0';
		snprintf(at, len, "%s", out);
	}
	free(out);
}

/* The one number a query answers, or -1 (no series). */
static double prom_value(const struct stack *st, const char *query)
{
	char *out = NULL;
	double v = -1;

	if (!prom_query(st, query, NULL, ".data.result[0].value[1]", &out))
		v = strtod(out, NULL);
	free(out);
	return v;
}

/* A JSON number --show printed, by jq path (on its one document). */
static double json_number(const char *doc, const char *path)
{
	char *out = NULL;
	double v;

	ck_assert_int_eq(sh(&out, NULL, "printf '%%s\\n' '%s' | jq -e '%s'", doc, path), 0);
	v = strtod(out, NULL);
	free(out);
	return v;
}

/* ---- the real set: page faults in a cgroup -------------------------------------- */

/* What --show --format json says of the set, as one line (no ' in it). */
static char *show_json(const char *dir, const char *extra)
{
	char *out = NULL;

	ck_assert_int_eq(sh(&out, NULL, "%s --show %s --format json %s", hist(), dir, extra), 0);
	out[strcspn(out, "\n")] = '\0';
	ck_assert_ptr_null(strchr(out, '\''));
	return out;
}

/* ---- the latency set: histograms filled through the BPF test entry --------------- */

static const __u64 l1_src = PERF_MEM_OP_LOAD | ((__u64)PERF_MEM_LVL_HIT | PERF_MEM_LVL_L1)
						       << PERF_MEM_LVL_SHIFT;
static const __u64 ram_src = PERF_MEM_OP_LOAD | ((__u64)PERF_MEM_LVL_HIT | PERF_MEM_LVL_LOC_RAM)
							<< PERF_MEM_LVL_SHIFT;

static void feed(struct session *sess, __u64 data_src, __u64 lat, int n)
{
	struct ldlat_sample s = {
		.addr = 0x1800,
		.lat = lat,
		.data_src = data_src,
		.flags = LDLAT_HAS_ADDR | LDLAT_HAS_LAT | LDLAT_HAS_DSRC,
	};
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &s, .ctx_size_in = sizeof(s));
	int i;

	for (i = 0; i < n; i++)
		ck_assert_int_eq(bpf_prog_test_run_opts(session__test_fd(sess), &opts), 0);
}

static void latency_set_pin(struct session *sess, const char *dir)
{
	struct ldlat_config cfg = {
		.span_lo = { 0x1000 },
		.span_hi = { 0x2000 },
		.nspans = 1,
		.nranges = 1,
		.max_lat = ~0ull,
		.class_mask = LDLAT_ALL_CLASSES,
		.need = LDLAT_HAS_ADDR | LDLAT_HAS_LAT | LDLAT_HAS_DSRC,
	};
	struct ldlat_pin_meta meta = { .magic = LDLAT_PIN_MAGIC, .layout = LDLAT_PIN_LAYOUT };
	struct evlist evlist = {};
	struct pinset ps;
	struct err err = {};

	ck_assert_msg(session__open(sess, &cfg, SESSION_TEST_ENTRY | SESSION_PIN, &err) == 0, "%s",
		      err.msg);
	ck_assert_int_eq(pinset__prepare(&ps, dir, &err), 0);
	snprintf(meta.event, sizeof(meta.event), "test entry");
	snprintf(meta.target_desc, sizeof(meta.target_desc), "synthetic samples");
	meta.fields = cfg.need;
	meta.pid = (__u32)getpid();
	meta.nranges = 1;
	snprintf(meta.range_text[0], sizeof(meta.range_text[0]), "0x1000-0x2000");
	meta.cfg = cfg;
	ck_assert_msg(pinset__pin(&ps, sess, NULL, &evlist, &meta, &err) == 0, "%s", err.msg);
	pinset__close(&ps);
}

/*
 * The bucket bounds (le) of a textfile, in order; how many (without +Inf).
 * The label itself: percentile="50" ends in le= too.
 */
static int bucket_bounds(const char *prom, double *le, int max)
{
	char *out = NULL, *p;
	int n = 0;

	ck_assert_int_eq(
		sh(&out, NULL,
		   "grep -o '[{,]le=\"[0-9.e+]*\"' %s | sed 's/.*le=\"//; s/\"//' | sort -gu",
		   prom),
		0);
	for (p = strtok(out, "\n"); p && n < max; p = strtok(NULL, "\n"))
		le[n++] = strtod(p, NULL);
	free(out);
	ck_assert_int_gt(n, 2);
	return n;
}

/* The bucket v falls in: the first le >= v (n: above them all). */
static int bucket_of(const double *le, int n, double v)
{
	int i;

	for (i = 0; i < n && le[i] < v; i++)
		;
	return i;
}

/*
 * Prometheus' answer for each class (class value lines) against --show's:
 * in the same bucket as JSON path 'pct' of the class's histogram.
 */
static void same_buckets(const char *answer, const char *show, const char *pct, const double *le,
			 int n)
{
	char *copy = strdup(answer), *line, *save = NULL, path[256], cls[64];
	int classes = 0;
	double v, want;

	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		ck_assert_int_eq(sscanf(line, "%63s %lf", cls, &v), 2);
		snprintf(path, sizeof(path), ".histograms[] | select(.class == \"%s\") | %s", cls,
			 pct);
		want = json_number(show, path);
		ck_assert_msg(bucket_of(le, n, v) == bucket_of(le, n, want),
			      "class %s: Prometheus says %g, --show %g: not in the same bucket",
			      cls, v, want);
		classes++;
	}
	ck_assert_int_eq(classes, 2);
	free(copy);
}

START_TEST(test_prometheus_end_to_end)
{
	char real[256], lat[256], cg[256], rel[256], exporter[4096], q[2048], *out = NULL;
	char at_a[64], at_b[64], filter[256], prom[512];
	static const char *const quantiles[][2] = {
		{ "0.5", ".percentiles.p50" },
		{ "0.9", ".percentiles.p90" },
		{ "0.99", ".percentiles.p99" },
	};
	const char *by_class = ".data.result | map(\"\\(.metric.class) \\(.value[1])\") | .[]";
	struct session sess;
	struct stack st;
	double le[128], offset_ms;
	char *show, *delta;
	int nle;
	unsigned int i;

	pin_path(real, sizeof(real), "real");
	pin_path(lat, sizeof(lat), "lat");
	cg_make(cg, sizeof(cg), "e2e");
	snprintf(rel, sizeof(rel), "%s", strrchr(cg, '/') + 1);
	ck_assert_int_eq(sh(NULL, NULL,
			    "%s --source page-faults -G %s -a %s --pin %s --detach 2>/dev/null",
			    hist(), rel, RANGE, real),
			 0);
	latency_set_pin(&sess, lat);
	/* phase A: one sample per class, before the first scrape */
	feed(&sess, l1_src, 5, 1);
	feed(&sess, ram_src, 5, 1);

	/* the command of ldlat-textfile@.service, for each set; and the same in OpenMetrics */
	stack_prepare(&st);
	snprintf(exporter, sizeof(exporter),
		 "for s in %s:real %s:lat; do %s --show ${s%%%%:*} --format prometheus "
		 "--allow-missing --output %s/textfile/ldlat-${s##*:}.prom 2>>%s/exporter.err || "
		 "echo $s >>%s/exporter.failed; done; %s --show %s --format openmetrics "
		 "--allow-missing --output %s/om/metrics 2>>%s/exporter.err || echo om "
		 ">>%s/exporter.failed;",
		 real, lat, hist(), st.tmp, st.tmp, st.tmp, hist(), lat, st.tmp, st.tmp, st.tmp);
	stack_start(&st, exporter);

	/* the workload: 300 pages in the range, 20 outside it, all in the cgroup */
	fault_pages(cg, "300", BASE);
	fault_pages(cg, "20", BASE2);
	show = show_json(real, "--by range");
	ck_assert_int_eq((int)json_number(show, ".histograms[0].count"), 300);
	/* Prometheus has every counter --show has, exactly */
	snprintf(q, sizeof(q), "ldlat_samples_kept_total{job=\"node\",pin=\"%s\"}", real);
	snprintf(filter, sizeof(filter), ".data.result[0].value[1] == \"%.0f\"",
		 json_number(show, ".counters.kept"));
	prom_wait(&st, q, filter, NULL, 0);
	snprintf(q, sizeof(q), "ldlat_samples_seen_total{job=\"node\",pin=\"%s\"}", real);
	ck_assert_double_eq(prom_value(&st, q), json_number(show, ".counters.seen"));
	snprintf(q, sizeof(q),
		 "ldlat_samples_dropped_total{job=\"node\",pin=\"%s\",reason=\"outside_ranges\"}",
		 real);
	ck_assert_double_eq(prom_value(&st, q),
			    json_number(show, ".counters.dropped.outside_ranges"));
	ck_assert_double_ge(prom_value(&st, q), 20);
	snprintf(q, sizeof(q), "ldlat_range_samples_total{job=\"node\",pin=\"%s\"}", real);
	ck_assert_double_eq(prom_value(&st, q), 300);
	snprintf(q, sizeof(q), "ldlat_set_present{job=\"node\",pin=\"%s\"}", real);
	ck_assert_double_eq(prom_value(&st, q), 1);
	/*
	 * nothing lost: the set keeps its events' counts, and every sample
	 * they produced reached the program; every link it pinned is there
	 */
	snprintf(q, sizeof(q), "ldlat_samples_unseen_total{job=\"node\",pin=\"%s\"}", real);
	ck_assert_double_eq(prom_value(&st, q), json_number(show, ".counters.unseen.samples"));
	ck_assert_double_eq(prom_value(&st, q), 0);
	ck_assert_double_eq(json_number(show, ".counters.unseen.samples_counted"),
			    json_number(show, ".counters.seen"));
	snprintf(q, sizeof(q), "ldlat_links_missing{job=\"node\",pin=\"%s\"}", real);
	ck_assert_double_eq(prom_value(&st, q), 0);
	free(show);

	/* the latency set: phase A scraped; --delta's baseline is what Prometheus has */
	snprintf(q, sizeof(q), "ldlat_samples_seen_total{job=\"node\",pin=\"%s\"}", lat);
	prom_wait(&st, q, ".data.result[0].value[1] == \"2\"", at_a, sizeof(at_a));
	free(show_json(lat, "--delta"));
	/* phase B: L1 hits mostly fast, RAM slower; each quantile inside a bucket */
	feed(&sess, l1_src, 10, 600);
	feed(&sess, l1_src, 40, 350);
	feed(&sess, l1_src, 300, 50);
	feed(&sess, ram_src, 150, 600);
	feed(&sess, ram_src, 700, 350);
	feed(&sess, ram_src, 3000, 50);
	prom_wait(&st, q, ".data.result[0].value[1] == \"2002\"", at_b, sizeof(at_b));
	delta = show_json(lat, "--delta --by class");
	snprintf(prom, sizeof(prom), "%s/textfile/ldlat-lat.prom", st.tmp);
	nle = bucket_bounds(prom, le, 128);
	offset_ms = (strtod(at_b, NULL) - strtod(at_a, NULL)) * 1000;

	/* the count per class over the span, exactly: the change between the two scrapes */
	snprintf(q, sizeof(q),
		 "sum by (class) (ldlat_latency_cycles_count{job=\"node\",pin=\"%s\"} - "
		 "ldlat_latency_cycles_count{job=\"node\",pin=\"%s\"} offset %.0fms)",
		 lat, lat, offset_ms);
	ck_assert_int_eq(prom_query(&st, q, at_b, by_class, &out), 0);
	ck_assert_msg(strstr(out, "l1 1000\n") && strstr(out, "local-ram 1000\n"), "%s", out);
	ck_assert_double_eq(json_number(delta, ".histograms[] | select(.class == \"l1\") | .count"),
			    1000);
	free(out);
	for (i = 0; i < ARRAY_SIZE(quantiles); i++) {
		/* over the change between the two scrapes */
		snprintf(q, sizeof(q),
			 "histogram_quantile(%s, sum by (le, class) "
			 "(ldlat_latency_cycles_bucket{job=\"node\",pin=\"%s\"} - "
			 "ldlat_latency_cycles_bucket{job=\"node\",pin=\"%s\"} offset %.0fms))",
			 quantiles[i][0], lat, lat, offset_ms);
		ck_assert_int_eq(prom_query(&st, q, at_b, by_class, &out), 0);
		same_buckets(out, delta, quantiles[i][1], le, nle);
		free(out);
		/* as a dashboard asks: over rate() */
		snprintf(q, sizeof(q),
			 "histogram_quantile(%s, sum by (le, class) "
			 "(rate(ldlat_latency_cycles_bucket{job=\"node\",pin=\"%s\"}[1m])))",
			 quantiles[i][0], lat);
		ck_assert_int_eq(prom_query(&st, q, at_b, by_class, &out), 0);
		same_buckets(out, delta, quantiles[i][1], le, nle);
		free(out);
	}
	free(delta);

	/* the OpenMetrics form, scraped as OpenMetrics: the same counts, counters typed */
	snprintf(q, sizeof(q), "ldlat_samples_seen_total{job=\"ldlat-openmetrics\",pin=\"%s\"}",
		 lat);
	prom_wait(&st, q, ".data.result[0].value[1] == \"2002\"", NULL, 0);
	ck_assert_double_eq(prom_value(&st, "up{job=\"ldlat-openmetrics\"}"), 1);
	ck_assert_int_eq(sh(NULL, NULL,
			    "curl -sfG http://127.0.0.1:%d/api/v1/targets/metadata "
			    "--data-urlencode 'match_target={job=\"ldlat-openmetrics\"}' "
			    "--data-urlencode metric=ldlat_samples_seen | jq -e '.data[0].type == "
			    "\"counter\"'",
			    st.prom_port),
			 0);
	ck_assert_int_eq(sh(NULL, NULL,
			    "curl -sfG http://127.0.0.1:%d/api/v1/targets/metadata "
			    "--data-urlencode 'match_target={job=\"node\"}' "
			    "--data-urlencode metric=ldlat_samples_seen_total | jq -e "
			    "'.data[0].type == \"counter\"'",
			    st.prom_port),
			 0);

	/* the set goes: the exporter goes on, says so, and its series go stale */
	unpin(real);
	snprintf(q, sizeof(q), "ldlat_set_present{job=\"node\",pin=\"%s\"}", real);
	prom_wait(&st, q, ".data.result[0].value[1] == \"0\"", NULL, 0);
	snprintf(q, sizeof(q), "ldlat_samples_seen_total{job=\"node\",pin=\"%s\"}", real);
	prom_wait(&st, q, ".data.result == []", NULL, 0);
	snprintf(q, sizeof(q), "ldlat_set_present{job=\"node\",pin=\"%s\"}", lat);
	ck_assert_double_eq(prom_value(&st, q), 1);
	/* the textfile collector never read a file it could not parse */
	ck_assert_double_eq(prom_value(&st, "max_over_time(node_textfile_scrape_error[5m])"), 0);

	stack_stop(&st);
	/* every refresh succeeded, and nothing is left beside the textfiles */
	ck_assert_int_eq(sh(NULL, NULL, "! cat %s/exporter.failed 2>/dev/null", st.tmp), 0);
	ck_assert_int_eq(sh(NULL, NULL,
			    "[ \"$(ls %s/textfile | tr '\\n' ' ')\" = "
			    "'ldlat-lat.prom ldlat-real.prom ' ]",
			    st.tmp),
			 0);
	ck_assert_int_eq(
		sh(NULL, NULL, "promtool check metrics < %s/textfile/ldlat-lat.prom", st.tmp), 0);
	unpin(lat);
	session__close(&sess);
	ck_assert_int_eq(cgroup_remove(cg), 0);
	stack_remove(&st);
}
END_TEST

/* ---- a textfile that cannot be written --------------------------------------- */

/* The file system fills: the report fails (exit 1), the last textfile stays whole, no temp. */
START_TEST(test_textfile_full)
{
	char dir[128], lat[256], *out = NULL, *err = NULL;
	struct session sess;

	snprintf(dir, sizeof(dir), "/tmp/ldlat-fleet-full-%d-XXXXXX", (int)getpid());
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(mount("tmpfs", dir, "tmpfs", 0, "size=8k"), 0);
	pin_path(lat, sizeof(lat), "full");
	/* no set yet: the small exposition fits */
	ck_assert_int_eq(sh(NULL, NULL,
			    "%s --show %s --format prometheus --allow-missing --output %s/t.prom",
			    hist(), lat, dir),
			 0);
	latency_set_pin(&sess, lat);
	feed(&sess, l1_src, 10, 1);
	feed(&sess, ram_src, 300, 1);
	/* the set's: 2 classes x 66 buckets and more, past 8 KiB */
	ck_assert_int_eq(sh(&out, &err,
			    "%s --show %s --format prometheus --allow-missing --output %s/t.prom",
			    hist(), lat, dir),
			 1);
	ck_assert_msg(strstr(err, "cannot write --output"), "%s", err);
	free(out);
	free(err);
	ck_assert_int_eq(sh(NULL, NULL,
			    "[ \"$(ls %s)\" = t.prom ] && grep -qx "
			    "'ldlat_set_present{pin=\"%s\"} 0' %s/t.prom && promtool check metrics "
			    "< %s/t.prom",
			    dir, lat, dir, dir),
			 0);
	unpin(lat);
	session__close(&sess);
	ck_assert_int_eq(umount(dir), 0);
	rmdir(dir);
}
END_TEST

/* ---- the systemd units ---------------------------------------------------------- */

/* make install-units into tmp, the units pointing at build/. */
static void units_install(const char *tmp, const char *bindir)
{
	ck_assert_int_eq(sh(NULL, NULL,
			    "make -s -C %s install-units DESTDIR=%s PREFIX=/usr/local "
			    "UNIT_BINDIR=%s",
			    srcdir(), tmp, bindir),
			 0);
}

/* systemd-analyze verify on an instance of each: exit 0 and not a word on output. */
static int units_verify(const char *tmp, char **out)
{
	char *err = NULL;
	int rc = sh(out, &err,
		    "cd %s/usr/local/lib/systemd/system && mkdir -p ../inst && "
		    "cp ldlat-hist@.service ../inst/ldlat-hist@db.service && "
		    "cp ldlat-textfile@.service ../inst/ldlat-textfile@db.service && "
		    "cp ldlat-textfile@.timer ../inst/ldlat-textfile@db.timer && cd ../inst && "
		    "o=$(systemd-analyze verify ldlat-hist@db.service ldlat-textfile@db.service "
		    "ldlat-textfile@db.timer 2>&1); rc=$?; printf '%%s' \"$o\"; [ $rc = 0 ] && "
		    "[ -z \"$o\" ]",
		    tmp);

	free(err);
	return rc;
}

START_TEST(test_units_verify)
{
	char tmp[128], bad[160], *out = NULL;

	snprintf(tmp, sizeof(tmp), "/tmp/ldlat-fleet-units-%d-XXXXXX", (int)getpid());
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	units_install(tmp, bindir());
	ck_assert_msg(units_verify(tmp, &out) == 0, "systemd-analyze verify: %s", out);
	free(out);
	ck_assert_int_eq(sh(NULL, NULL,
			    "grep -q '^ExecStart=%s/ldlat-hist ' "
			    "%s/usr/local/lib/systemd/system/ldlat-hist@.service",
			    bindir(), tmp),
			 0);
	/* the check can fail: units naming a tool that is not there */
	snprintf(bad, sizeof(bad), "%s/bad", tmp);
	ck_assert_int_eq(mkdir(bad, 0755), 0);
	units_install(bad, "/nonexistent/bin");
	ck_assert_int_ne(units_verify(bad, &out), 0);
	ck_assert_msg(strstr(out, "/nonexistent/bin/ldlat-hist"), "%s", out);
	free(out);
	sh(NULL, NULL, "rm -rf %s", tmp);
}
END_TEST

/* start, refresh, restart, a start after a crash, a stop while a --show holds the set, stop */
START_TEST(test_units_restart)
{
	char tmp[128], cg[256], rel[256], name[64], dir[256], units[512], *out = NULL;
	char run[2048];
	struct child holder;
	char hold_cmd[512], *hold_argv[] = { "sh", "-c", hold_cmd, NULL };

	snprintf(tmp, sizeof(tmp), "/tmp/ldlat-fleet-restart-%d-XXXXXX", (int)getpid());
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	units_install(tmp, bindir());
	snprintf(units, sizeof(units), "%s/usr/local/lib/systemd/system", tmp);
	snprintf(name, sizeof(name), "ldlat-test-%d-unit", (int)suite_pid);
	snprintf(dir, sizeof(dir), "/sys/fs/bpf/ldlat/%s", name);
	cg_make(cg, sizeof(cg), "unit");
	snprintf(rel, sizeof(rel), "%s", strrchr(cg, '/') + 1);
	ck_assert_int_eq(sh(NULL, NULL,
			    "mkdir -p %s/etc %s/textfile && printf '%%s\\n' "
			    "'LDLAT_HIST_OPTS=\"--source page-faults -G %s -a %s\"' "
			    "'LDLAT_TEXTFILE_DIR=%s/textfile' > %s/etc/%s.conf",
			    tmp, tmp, rel, RANGE, tmp, tmp, name),
			 0);
	/* sh unit_exec.sh UNIT NAME ETC VERB */
	snprintf(run, sizeof(run), "sh %s/tests/lib/unit_exec.sh %s/%%s %s %s/etc %%s", srcdir(),
		 units, name, tmp);
#define UNIT(unit, verb) sh(&out, NULL, run, unit, verb)
#define PROM(cond)                                                                                 \
	sh(NULL, NULL,                                                                             \
	   "f=%s/textfile/ldlat-%s.prom; promtool check metrics < $f && grep -q %s $f", tmp, name, \
	   cond)

	ck_assert_int_eq(UNIT("ldlat-hist@.service", "start"), 0);
	free(out);
	fault_pages(cg, "40", BASE);
	ck_assert_int_eq(UNIT("ldlat-textfile@.service", "start"), 0);
	free(out);
	ck_assert_int_eq(PROM("'^ldlat_set_present{.*} 1$'"), 0);
	ck_assert_int_eq(PROM("'^ldlat_range_samples_total{.*} 40$'"), 0);

	/* restart: stop unpins, start pins a fresh set (nothing counted yet) */
	ck_assert_int_eq(UNIT("ldlat-hist@.service", "stop"), 0);
	free(out);
	ck_assert_int_eq(UNIT("ldlat-hist@.service", "start"), 0);
	free(out);
	ck_assert_int_eq(UNIT("ldlat-textfile@.service", "start"), 0);
	free(out);
	ck_assert_int_eq(PROM("'^ldlat_range_samples_total{.*} 0$'"), 0);

	/* killed without its stop: the set stays, and the next start replaces it */
	fault_pages(cg, "7", BASE);
	ck_assert_int_eq(UNIT("ldlat-hist@.service", "start"), 0);
	free(out);
	ck_assert_int_eq(UNIT("ldlat-textfile@.service", "start"), 0);
	free(out);
	ck_assert_int_eq(PROM("'^ldlat_range_samples_total{.*} 0$'"), 0);

	/* stop while a reader holds the set (as a --show does, shared): it waits its turn */
	snprintf(hold_cmd, sizeof(hold_cmd), "exec flock -s %s sh -c 'echo held; sleep 2'", dir);
	child_spawn(&holder, hold_argv);
	ck_assert(child_wait_stdout(&holder, "held", 1, 30));
	ck_assert_int_eq(UNIT("ldlat-hist@.service", "stop"), 0);
	free(out);
	ck_assert_int_eq(child_finish(&holder, 30), 0);
	child_free(&holder);

	/* the set is gone: the refresh says so and succeeds; a second stop has nothing to do */
	ck_assert_int_eq(UNIT("ldlat-textfile@.service", "start"), 0);
	free(out);
	ck_assert_int_eq(PROM("'^ldlat_set_present{.*} 0$'"), 0);
	ck_assert_int_eq(sh(NULL, NULL, "f=%s/textfile/ldlat-%s.prom; ! grep -q ldlat_samples $f",
			    tmp, name),
			 0);
	ck_assert_int_eq(UNIT("ldlat-hist@.service", "stop"), 0);
	free(out);
	/* no temporary file beside the textfile */
	ck_assert_int_eq(sh(NULL, NULL, "[ \"$(ls %s/textfile)\" = ldlat-%s.prom ]", tmp, name), 0);
#undef UNIT
#undef PROM
	rmdir(dir);
	ck_assert_int_eq(cgroup_remove(cg), 0);
	sh(NULL, NULL, "rm -rf %s", tmp);
}
END_TEST

/* After each test case: what a failed test left pinned, mounted or created goes. */
static void fleet_leftovers_remove(void)
{
	char pins[128], cgroups[128], *out = NULL, *err = NULL;

	snprintf(pins, sizeof(pins),
		 "/sys/fs/bpf/ldlat-test-%d-* /sys/fs/bpf/ldlat/ldlat-test-%d-*", (int)suite_pid,
		 (int)suite_pid);
	snprintf(cgroups, sizeof(cgroups), "/sys/fs/cgroup/unified/ldlat-fleet-*-%d-*",
		 (int)suite_pid);
	leftovers_remove(pins, cgroups);
	sh(&out, &err,
	   "for m in /tmp/ldlat-fleet-full-*; do mountpoint -q \"$m\" && umount \"$m\" && rmdir "
	   "\"$m\"; done 2>/dev/null; true");
	free(out);
	free(err);
}

int main(void)
{
	Suite *s = suite_create("fleet");
	TCase *tc;

	if (!need_root("check_fleet (bpffs, perf events, BPF, cgroups, mounts)"))
		return 0;
	suite_pid = getpid();
	tc = tcase_create("prometheus");
	tcase_set_timeout(tc, 300);
	tcase_add_unchecked_fixture(tc, NULL, fleet_leftovers_remove);
	tcase_add_test(tc, test_prometheus_end_to_end);
	tcase_add_test(tc, test_textfile_full);
	suite_add_tcase(s, tc);

	tc = tcase_create("units");
	tcase_set_timeout(tc, 180);
	tcase_add_unchecked_fixture(tc, NULL, fleet_leftovers_remove);
	tcase_add_test(tc, test_units_verify);
	tcase_add_test(tc, test_units_restart);
	suite_add_tcase(s, tc);

	return run_suite(s);
}
