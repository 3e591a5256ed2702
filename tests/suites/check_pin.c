// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * check_pin - pinned sets end to end: ldlat-hist --pin DIR --detach leaves
 * the program, its maps and its perf-event links sampling after it exits;
 * --show reads them (text, JSON, OpenMetrics, --delta); bpftool prints them
 * by name; --unpin removes them, links first, and the links and the program
 * are gone from the kernel.  Two sets at once, a cgroup removed under a set,
 * and every bad DIR.  The workload faults N pages at a fixed address inside
 * a cgroup of this test, so a set on that cgroup counts exactly N whatever
 * else runs on the machine.  Also: a set whose maps hold latency histograms
 * (filled through the BPF test entry), read back by --show and bpftool; a
 * foreground set whose ldlat-hist is SIGKILLed stops sampling with it; and
 * what another user plants on a world-writable bpffs (a link, a directory,
 * a flock) is refused.  Needs root (and setpriv to act as nobody); pins
 * under /sys/fs/bpf/ldlat-test-PID-*, removed by each test.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/ldlat.h"
#include "kernel/abi/flockholder.h"
#include "user/hist/pinset.h"
#include "user/run/session.h"
#include "bpf/ldlat.skel.h"
#include "tests/lib/clicase.h"
#include "tests/lib/testutil.h"
#include "kernel/lib/util.h"

#define BASE   "0x200000000000"
#define BASE2  "0x200040000000"
#define RANGE  BASE "+16M"
#define RANGE2 BASE2 "+16M"

/* This suite's PID (the parent of each forked test): what its pins and cgroups are named by. */
static pid_t suite_pid;

static void pin_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "/sys/fs/bpf/ldlat-test-%d-%s", (int)suite_pid, name);
}

static int cg_make(char *path, size_t len, const char *name)
{
	char tag[64];

	snprintf(tag, sizeof(tag), "%s-%d", name, (int)suite_pid);
	return cgroup_make(path, len, tag);
}

/* Runs ldlat-hist with args; want its exit status; stdout and stderr in *out, *err. */
static void hist_run(int want, char **out, char **err, char *const args[])
{
	char *argv[32] = { (char *)hist() };
	int i, rc;

	for (i = 0; args[i] && i < 30; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;
	rc = run(argv, 60, out, err);
	ck_assert_msg(rc == want, "ldlat-hist %s ...: exit %d (want %d)\nstdout:\n%s\nstderr:\n%s",
		      args[0], rc, want, *out, *err);
}

#define HIST(want, out, err, ...) hist_run(want, out, err, (char *[]){ __VA_ARGS__, NULL })

/* --unpin DIR, which must succeed. */
static void unpin_ok(char *dir)
{
	char *out, *err;

	HIST(0, &out, &err, "--unpin", dir);
	free(out);
	free(err);
}

/* The count --show reports for range 0 (JSON, by range), or -1. */
static long shown_count(const char *dir, const char *extra)
{
	char *out = NULL;
	long n = -1;

	/* one --show: with --delta, each one moves the baseline */
	if (!sh(&out, NULL,
		"j=$(%s --show %s --format json --by range %s) && printf '%%s\\n' \"$j\" | "
		"python3 %s >&2 && printf '%%s\\n' \"$j\" | jq -e '.histograms[] | "
		"select(.range == 0) | .count'",
		hist(), dir, extra, json_schema()))
		n = strtol(out, NULL, 10);
	free(out);
	return n;
}

/* Faults n pages at base inside the cgroup (or outside it: cg NULL); the PID it ran as. */
static pid_t fault_pages(const char *cg, const char *n, const char *base)
{
	char *argv[] = { (char *)workload(), "--wait", "--fault-pages", (char *)n, "--base",
			 (char *)base,	     NULL };
	struct child w;

	child_spawn(&w, argv);
	if (cg)
		ck_assert_int_eq(cgroup_enter(cg, w.pid), 0);
	ck_assert_int_eq(write(w.in, "g", 1), 1);
	ck_assert_int_eq(child_finish(&w, 30), 0);
	child_free(&w);
	return w.pid;
}

static int dir_entries(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/* The IDs of the set's links and program, as bpftool sees them: "12 13 ... prog 99". */
static char *set_ids(const char *dir)
{
	char *out = NULL;

	ck_assert_int_eq(sh(&out, NULL,
			    "for l in %s/link_*; do bpftool -j link show pinned $l | jq -r .id; "
			    "done | tr '\\n' ' '; bpftool -j prog show pinned %s/prog | jq -r "
			    "'\"prog \\(.id)\"'",
			    dir, dir),
			 0);
	for (char *p = out; *p; p++)
		if (*p == '\n')
			*p = ' ';
	return out;
}

/*
 * None of those objects is left in the kernel (freeing is asynchronous):
 * ids are link IDs, then after the word "prog" program IDs, after "map" map
 * IDs (set_ids, set_map_ids).
 */
static void assert_ids_gone(const char *ids)
{
	char *out = NULL;
	int i, rc = 1;

	for (i = 0; i < 50 && rc; i++) {
		free(out);
		out = NULL;
		/* bpftool lists every link, program and map; ours must not be among them */
		rc = sh(&out, NULL,
			"links=$(bpftool -j link show | jq -r '.[].id'); "
			"progs=$(bpftool -j prog show | jq -r '.[].id'); "
			"maps=$(bpftool -j map show | jq -r '.[].id'); left=; k=link; "
			"for w in %s; do "
			"case $w in prog|map) k=$w; continue;; esac; "
			"case $k in link) l=$links;; prog) l=$progs;; map) l=$maps;; esac; "
			"echo \"$l\" | grep -qx \"$w\" && left=\"$left $k $w\"; "
			"done; echo \"$left\"; [ -z \"$left\" ]",
			ids);
		if (rc)
			usleep(100000);
	}
	ck_assert_msg(rc == 0, "left in the kernel: %s (ids %s)", out, ids);
	free(out);
}

/* What a set holds: six maps, the program, a link per online CPU (page faults, -G). */
static int set_objects(void)
{
	return 7 + (int)sysconf(_SC_NPROCESSORS_ONLN);
}

/* What a set pinned in the foreground holds: its links are not pinned. */
static int fg_objects(void)
{
	return 7;
}

/* The mode bits of path (-1 if it cannot be read). */
static int mode_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (int)(st.st_mode & 07777);
}

static void pin_cleanup(const char *dir)
{
	char *out = NULL, *err = NULL;
	char *argv[] = { (char *)hist(), "--unpin", (char *)dir, NULL };

	run(argv, 60, &out, &err);
	free(out);
	free(err);
	rmdir(dir);
}

/* ---- a detached set on a cgroup --------------------------------------- */

/* The sampling program this kernel's read path loads (user/run/session.c). */
static const char *pin_prog_name(void)
{
	char why[512];

	switch (session__read_path(why, sizeof(why))) {
	case SESSION_PATH_KERN_CTX:
		return "ldlat_sample";
	case SESSION_PATH_PROBE_READ:
		return "ldlat_sample_kern";
	default:
		return "ldlat_sample_addr";
	}
}

START_TEST(test_detach_show_unpin)
{
	char dir[256], cg[256], rel[256], *out, *err, *ids;

	pin_path(dir, sizeof(dir), "detach");
	ck_assert_int_eq(cg_make(cg, sizeof(cg), "pin"), 0);
	snprintf(rel, sizeof(rel), "%s", strrchr(cg, '/') + 1);
	HIST(0, &out, &err, "--source", "page-faults", "-G", rel, "-a", RANGE, "--pin", dir,
	     "--detach");
	ck_assert_ptr_nonnull(strstr(err, "goes on"));
	free(out);
	free(err);
	/* ldlat-hist has exited: the set samples on its own */
	fault_pages(cg, "64", BASE);
	fault_pages(NULL, "32", BASE); /* outside the cgroup: not counted */
	ck_assert_int_eq(shown_count(dir, ""), 64);

	/* text: what the set was started with, and the count */
	HIST(0, &out, &err, "--show", dir);
	ck_assert_msg(strstr(out, "pinned set ") &&
			      strstr(out, "page-faults (period 1) on cgroup ") &&
			      strstr(out, ", detached") && strstr(out, "ranges: " RANGE),
		      "%s", out);
	ck_assert_msg(strstr(out, "          64  " RANGE), "%s", out);
	free(out);
	free(err);

	/* a --show without --delta leaves the baseline alone: shown is as --pin made it */
	ck_assert_int_eq(sh(NULL, NULL,
			    "bpftool -j map dump pinned %s/shown | jq -e '.[0].formatted.value | "
			    ".taken_ns == 0 and .counters.kept == 0 and .counters.seen == 0'",
			    dir),
			 0);
	ck_assert_int_eq(
		sh(NULL, NULL,
		   "bpftool -j map dump pinned %s/shown_hists | jq -e '[.[].formatted.value "
		   "| .slot[], .sum] | all(. == 0)'",
		   dir),
		0);
	/* --delta: the change since the last --delta (the first: since the start) */
	ck_assert_int_eq(shown_count(dir, "--delta"), 64);
	fault_pages(cg, "10", BASE);
	ck_assert_int_eq(shown_count(dir, ""), 74);
	ck_assert_int_eq(shown_count(dir, "--delta"), 10);
	ck_assert_int_eq(shown_count(dir, "--delta"), 0);
	/* it records under an exclusive flock on DIR/shown: it waits while another holds it */
	ck_assert_int_eq(sh(NULL, NULL,
			    "flock %s/shown timeout 3 %s --show %s --delta >/dev/null; "
			    "[ $? = 124 ]",
			    dir, hist(), dir),
			 0);
	ck_assert_int_eq(sh(NULL, NULL, "flock %s/shown timeout 60 %s --show %s >/dev/null", dir,
			    hist(), dir),
			 0);
	ck_assert_int_eq(shown_count(dir, ""), 74);

	/* the Prometheus text format: promtool accepts it, and it counts the same */
	ck_assert_int_eq(sh(NULL, NULL, "%s --show %s --format prometheus | promtool check metrics",
			    hist(), dir),
			 0);
	ck_assert_int_eq(sh(NULL, NULL,
			    "%s --show %s --format prometheus | grep -q "
			    "'^ldlat_range_samples_total{.*range=\"%s (.*\"} 74$'",
			    hist(), dir, RANGE),
			 0);
	/* OpenMetrics: its parser accepts it; the set is there */
	ck_assert_int_eq(sh(NULL, NULL,
			    "%s --show %s --format openmetrics --allow-missing | tee /dev/stderr | "
			    "/usr/bin/python3 %s/../lib/openmetrics_parse.py && %s --show %s "
			    "--format openmetrics | grep -qx 'ldlat_set_present{pin=\"%s\"} 1'",
			    hist(), dir, fixture_path(""), hist(), dir, dir),
			 0);

	/* bpftool reads every map by name: structs, enums as names, strings as strings */
	ck_assert_int_eq(
		sh(NULL, NULL,
		   "bpftool -j map dump pinned %s/hists | jq -e '[.[] | .formatted.values[] | "
		   ".value | select(.class == \"LDLAT_CLASS_UNKNOWN\" and .range == 0) | "
		   ".unmeasured] | add == 74'",
		   dir),
		0);
	ck_assert_int_eq(sh(NULL, NULL,
			    "bpftool -j map dump pinned %s/counters | jq -e "
			    "'[.[0].formatted.values[].value | "
			    ".kept] | add == 74'",
			    dir),
			 0);
	ck_assert_int_eq(
		sh(NULL, NULL,
		   "bpftool -j map dump pinned %s/meta | jq -e '.[0].formatted.value | .magic == "
		   "\"ldlat\" and .target == \"LDLAT_PIN_TARGET_CGROUP\" and .source == "
		   "\"LDLAT_PIN_SOURCE_PAGE_FAULTS\" and .event == \"page-faults (period 1)\" "
		   "and .range_text[0] == \"%s\" and .cfg.nspans == 1 and .detached == 1'",
		   dir, RANGE),
		0);
	ck_assert_int_eq(sh(NULL, NULL,
			    "bpftool -j map dump pinned %s/shown | jq -e "
			    "'.[0].formatted.value.counters.kept "
			    "== 74'",
			    dir),
			 0);
	/* the program of this kernel's read path (the kernel keeps 15 characters of a name) */
	ck_assert_int_eq(sh(NULL, NULL,
			    "bpftool -j prog show pinned %s/prog | jq -e '(.name == \"%s\" or "
			    ".name == \"%.15s\") and .type == \"perf_event\"'",
			    dir, pin_prog_name(), pin_prog_name()),
			 0);

	/* --unpin: DIR empty, our links and program gone; a second --unpin is nothing to do */
	ids = set_ids(dir);
	HIST(0, &out, &err, "--unpin", dir);
	ck_assert_ptr_nonnull(strstr(err, "unpinned "));
	free(out);
	free(err);
	ck_assert_int_eq(dir_entries(dir), 0);
	assert_ids_gone(ids);
	HIST(0, &out, &err, "--unpin", dir);
	ck_assert_ptr_nonnull(strstr(err, "nothing is pinned"));
	free(out);
	free(err);
	free(ids);
	ck_assert_int_eq(rmdir(dir), 0);
	cgroup_remove(cg);
}
END_TEST

/* Two sets at once: two cgroups, two address ranges; each counts only its own. */
START_TEST(test_two_sets)
{
	char dir1[256], dir2[256], cg1[256], cg2[256], *out, *err, *ids1, *ids2;

	pin_path(dir1, sizeof(dir1), "two-a");
	pin_path(dir2, sizeof(dir2), "two-b");
	ck_assert_int_eq(cg_make(cg1, sizeof(cg1), "pin-a"), 0);
	ck_assert_int_eq(cg_make(cg2, sizeof(cg2), "pin-b"), 0);
	HIST(0, &out, &err, "--source", "page-faults", "-G", cg1, "-a", RANGE, "--pin", dir1,
	     "--detach");
	free(out);
	free(err);
	HIST(0, &out, &err, "--source", "page-faults", "-G", cg2, "-a", RANGE2, "--pin", dir2,
	     "--detach");
	free(out);
	free(err);
	fault_pages(cg1, "30", BASE);
	fault_pages(cg1, "5", BASE2); /* cgroup 1, but outside set 1's range */
	fault_pages(cg2, "40", BASE2);
	fault_pages(cg2, "7", BASE); /* cgroup 2, but outside set 2's range */
	ck_assert_int_eq(shown_count(dir1, ""), 30);
	ck_assert_int_eq(shown_count(dir2, ""), 40);
	ids1 = set_ids(dir1);
	ids2 = set_ids(dir2);
	unpin_ok(dir1);
	assert_ids_gone(ids1);
	/* the other set is untouched and still samples */
	fault_pages(cg2, "3", BASE2);
	ck_assert_int_eq(shown_count(dir2, ""), 43);
	unpin_ok(dir2);
	assert_ids_gone(ids2);
	ck_assert_int_eq(dir_entries(dir1), 0);
	ck_assert_int_eq(dir_entries(dir2), 0);
	free(ids1);
	free(ids2);
	rmdir(dir1);
	rmdir(dir2);
	cgroup_remove(cg1);
	cgroup_remove(cg2);
}
END_TEST

/* The cgroup goes away while pinned: --show says so, --unpin still cleans up. */
START_TEST(test_cgroup_removed)
{
	char dir[256], cg[256], *out, *err, *ids;

	pin_path(dir, sizeof(dir), "rmcg");
	ck_assert_int_eq(cg_make(cg, sizeof(cg), "pin-rm"), 0);
	HIST(0, &out, &err, "--source", "page-faults", "-G", cg, "-a", RANGE, "--pin", dir,
	     "--detach");
	free(out);
	free(err);
	fault_pages(cg, "12", BASE);
	ck_assert_int_eq(cgroup_remove(cg), 0);
	HIST(0, &out, &err, "--show", dir);
	ck_assert_msg(strstr(out, "warning: the cgroup ") && strstr(out, "has been removed"), "%s",
		      out);
	ck_assert_msg(strstr(out, "          12  " RANGE), "%s", out);
	free(out);
	free(err);
	HIST(0, &out, &err, "--show", dir, "--format", "json");
	ck_assert_msg(strstr(out, "\"cgroup_removed\":\"/sys/fs/cgroup/"), "%s", out);
	ck_assert_ptr_nonnull(strstr(err, "has been removed"));
	free(out);
	free(err);
	ck_assert_int_eq(sh(NULL, NULL,
			    "%s --show %s --format prometheus | grep -q "
			    "'^ldlat_cgroup_removed{.*} 1$'",
			    hist(), dir),
			 0);
	ids = set_ids(dir);
	unpin_ok(dir);
	ck_assert_int_eq(dir_entries(dir), 0);
	assert_ids_gone(ids);
	free(ids);
	rmdir(dir);
}
END_TEST

/* ---- what the events produced and the program did not see ---------------- */

/*
 * A detached set keeps each event's count (the program reads it at every
 * sample): over a cgroup where a workload faults its pages, --show says the
 * program saw every sample the events produced, at least, in every format.
 * The oracle is perf stat's own count of the cgroup's page faults on each
 * CPU, over the workload's whole life (nothing else runs in the cgroup):
 * with a fixed period P each CPU's event produced floor(count / P)
 * samples.  In frequency mode the events counted at the last sample of each
 * are at most perf's count.  _i: period 1, period 7, 1000 samples a
 * second, and period 1 again through the address-only program (which reads
 * the count through bpf_perf_prog_read_value, the others from the event).
 */
START_TEST(test_unseen_counted)
{
	static const char *const modes[][2] = {
		{ "-c", "1" }, { "-c", "7" }, { "-F", "1000" }, { "-c", "1" }
	};
	char dir[256], cg[256], rel[256], csv[300], *out, *err;
	long produced, perf_total;

	pin_path(dir, sizeof(dir), "unseen");
	ck_assert_int_eq(cg_make(cg, sizeof(cg), "pin-unseen"), 0);
	snprintf(rel, sizeof(rel), "%s", strrchr(cg, '/') + 1);
	snprintf(csv, sizeof(csv), "/tmp/%s.perf.csv", rel);
	if (_i == 3)
		setenv("LDLAT_FORCE_ADDR_ONLY", "1", 1);
	HIST(0, &out, &err, "--source", "page-faults", (char *)modes[_i][0], (char *)modes[_i][1],
	     "-G", rel, "-a", RANGE, "--pin", dir, "--detach");
	free(out);
	free(err);
	unsetenv("LDLAT_FORCE_ADDR_ONLY");
	if (_i == 3) /* the address-only program (the kernel keeps 15 characters of a name) */
		ck_assert_int_eq(sh(NULL, NULL,
				    "bpftool -j prog show pinned %s/prog | jq -e '.name | "
				    "startswith(\"ldlat_sample_ad\")'",
				    dir),
				 0);
	ck_assert_int_eq(sh(NULL, NULL,
			    "perf stat -a -A -e page-faults -G %s -x, -o %s -- sh -c 'echo $$ "
			    "> %s/cgroup.procs && exec %s --fault-pages 500 --base %s'",
			    rel, csv, cg, workload(), BASE),
			 0);
	/* per CPU: the samples its event produced, and perf's count */
	ck_assert_int_eq(sh(&out, NULL,
			    "awk -F, '/^CPU/ { n += int($2 / %s); t += $2 } END { print n, t }' %s",
			    _i == 2 ? "1" : modes[_i][1], csv),
			 0);
	ck_assert_int_eq(sscanf(out, "%ld %ld", &produced, &perf_total), 2);
	free(out);
	unlink(csv);
	ck_assert_int_ge(perf_total, 500);
	if (_i != 2)
		ck_assert_int_eq(
			sh(NULL, NULL,
			   "j=$(%s --show %s --format json) && printf '%%s\\n' \"$j\" | "
			   "python3 %s && printf '%%s\\n' \"$j\" | jq -e '.counters | "
			   ".unseen.samples == 0 and .unseen.lower_bound == true and "
			   ".unseen.estimated == false and .unseen.samples_counted == %ld and "
			   ".unseen.seen == %ld and .seen == %ld'",
			   hist(), dir, json_schema(), produced, produced, produced),
			0);
	else
		ck_assert_int_eq(sh(NULL, NULL,
				    "j=$(%s --show %s --format json) && printf '%%s\\n' \"$j\" | "
				    "python3 %s && printf '%%s\\n' \"$j\" | jq -e '.counters | "
				    ".unseen.samples == 0 and .unseen.lower_bound == true and "
				    ".unseen.estimated == true and .unseen.events_counted > 0 and "
				    ".unseen.events_counted <= %ld and .seen > 0'",
				    hist(), dir, json_schema(), perf_total),
				 0);
	HIST(0, &out, &err, "--show", dir);
	ck_assert_msg(
		strstr(out, _i != 2 ? "\nunseen: at least 0 samples the events produced and "
				      "the program did not see ("
				    : "\nunseen: at least about 0 samples the events produced "
				      "and the program did not see (frequency mode: "),
		"%s", out);
	free(out);
	free(err);
	ck_assert_int_eq(
		sh(NULL, NULL,
		   "%s --show %s --format prometheus | tee /dev/stderr | promtool check "
		   "metrics && %s --show %s --format prometheus | grep -q "
		   "'^ldlat_samples_unseen_total{.*estimated=\"%d\"} 0$' && %s --show %s "
		   "--format openmetrics | /usr/bin/python3 %s/../lib/openmetrics_parse.py",
		   hist(), dir, hist(), dir, _i == 2, hist(), dir, fixture_path("")),
		0);
	unpin_ok(dir);
	rmdir(dir);
	cgroup_remove(cg);
}
END_TEST

/*
 * The arithmetic of --show on counts written by hand into a set's
 * event_counts (no real sample can be made to miss the program: nothing
 * else runs BPF in a page fault): two events of period 1 that counted 10
 * and 7 while the program saw 12 samples lost at least 5, in every format;
 * --delta takes the change; a count the program could not read makes the
 * figure unknown, and says why.
 */
START_TEST(test_unseen_by_hand)
{
	struct ldlat_config cfg = { .nranges = 1,
				    .max_lat = ~0ull,
				    .class_mask = LDLAT_ALL_CLASSES,
				    .need = LDLAT_HAS_ADDR,
				    .fixed_period = 1 };
	struct ldlat_pin_meta meta = { .magic = LDLAT_PIN_MAGIC, .layout = LDLAT_PIN_LAYOUT };
	struct ldlat_event_count c;
	struct ldlat_sample smp = { .addr = 0x1000, .flags = LDLAT_HAS_ADDR, .period = 1 };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &smp, .ctx_size_in = sizeof(smp));
	struct evlist evlist = {};
	struct session sess;
	struct pinset ps;
	struct err err = {};
	char dir[256], path[300], *out, *errs;
	__u32 k;
	int i, fd;

	pin_path(dir, sizeof(dir), "hand");
	ck_assert_msg(
		session__open_counted(&sess, &cfg, SESSION_TEST_ENTRY | SESSION_PIN, 2, &err) == 0,
		"%s", err.msg);
	ck_assert(sess.counts);
	ck_assert_int_eq(pinset__prepare(&ps, dir, &err), 0);
	snprintf(meta.event, sizeof(meta.event), "test entry");
	snprintf(meta.target_desc, sizeof(meta.target_desc), "synthetic samples");
	meta.fields = cfg.need;
	meta.pid = (__u32)getpid();
	meta.cfg = cfg;
	meta.nevents = 2;
	meta.unseen = LDLAT_PIN_UNSEEN_COUNTED;
	ck_assert_msg(pinset__pin(&ps, &sess, NULL, &evlist, &meta, &err) == 0, "%s", err.msg);
	snprintf(path, sizeof(path), "%s/event_counts", dir);
	fd = bpf_obj_get(path);
	ck_assert_int_ge(fd, 0);
	for (k = 0; k < 2; k++) {
		c = (struct ldlat_event_count){ .count = k ? 7 : 10, .period = 1 };
		ck_assert_int_eq(bpf_map_update_elem(fd, &k, &c, BPF_ANY), 0);
	}
	for (i = 0; i < 12; i++)
		ck_assert_int_eq(bpf_prog_test_run_opts(session__test_fd(&sess), &opts), 0);
	HIST(0, &out, &errs, "--show", dir);
	ck_assert_msg(strstr(out, "\nunseen: at least 5 samples the events produced and the "
				  "program did not see (17 by the events' counts at the program's "
				  "last sample of each, 12 seen)\n"),
		      "%s", out);
	free(out);
	free(errs);
	ck_assert_int_eq(sh(NULL, NULL,
			    "%s --show %s --format json | jq -e '.counters.unseen | .samples == 5 "
			    "and .samples_counted == 17 and .seen == 12 and .lower_bound' && %s "
			    "--show %s --format openmetrics | grep -q "
			    "'^ldlat_samples_unseen_total{.*estimated=\"0\"} 5$'",
			    hist(), dir, hist(), dir),
			 0);
	/* --delta: the first since the start; then 10 more counted, 8 more seen: 2 */
	ck_assert_int_eq(sh(NULL, NULL,
			    "%s --show %s --delta --format json | jq -e '.counters.unseen.samples "
			    "== 5'",
			    hist(), dir),
			 0);
	k = 0;
	c = (struct ldlat_event_count){ .count = 20, .period = 1 };
	ck_assert_int_eq(bpf_map_update_elem(fd, &k, &c, BPF_ANY), 0);
	for (i = 0; i < 8; i++)
		ck_assert_int_eq(bpf_prog_test_run_opts(session__test_fd(&sess), &opts), 0);
	ck_assert_int_eq(sh(NULL, NULL,
			    "%s --show %s --delta --format json | jq -e '.counters.unseen | "
			    ".samples == 2 and .samples_counted == 10 and .seen == 8' && %s --show "
			    "%s --format json | jq -e '.counters.unseen.samples == 7'",
			    hist(), dir, hist(), dir),
			 0);
	/* a count the program could not read: not known, and why */
	k = 1;
	c = (struct ldlat_event_count){ .count = 7, .period = 1, .error = -EOPNOTSUPP };
	ck_assert_int_eq(bpf_map_update_elem(fd, &k, &c, BPF_ANY), 0);
	HIST(0, &out, &errs, "--show", dir);
	ck_assert_msg(strstr(out, "\nunseen: not measured: the program could not read an event's "
				  "count (bpf_perf_prog_read_value failed)\n"),
		      "%s", out);
	free(out);
	free(errs);
	ck_assert_int_eq(sh(NULL, NULL,
			    "j=$(%s --show %s --format json) && printf '%%s\\n' \"$j\" | python3 "
			    "%s && printf '%%s\\n' \"$j\" | jq -e '.counters | .unseen == null and "
			    "(.unseen_unknown | startswith(\"the program could not read\"))' && ! "
			    "%s --show %s --format prometheus | grep -q ldlat_samples_unseen",
			    hist(), dir, json_schema(), hist(), dir),
			 0);
	close(fd);
	pinset__close(&ps);
	session__close(&sess);
	unpin_ok(dir);
	rmdir(dir);
}
END_TEST

/*
 * Inherited events (-p with --inherit): the program cannot read their
 * counts, so the set does not keep them, and --show says why.
 */
START_TEST(test_unseen_inherit)
{
	char dir[256], pid[32], *out, *err;
	char *argv[] = {
		(char *)workload(), "--wait", "--fault-pages", "16", "--base", BASE, NULL
	};
	struct child w;

	pin_path(dir, sizeof(dir), "inherit");
	child_spawn(&w, argv);
	snprintf(pid, sizeof(pid), "%d", (int)w.pid);
	HIST(0, &out, &err, "--source", "page-faults", "-p", pid, "--inherit", "-a", RANGE, "--pin",
	     dir, "--detach");
	free(out);
	free(err);
	ck_assert_int_eq(write(w.in, "g", 1), 1);
	ck_assert_int_eq(child_finish(&w, 30), 0);
	child_free(&w);
	HIST(0, &out, &err, "--show", dir);
	ck_assert_msg(strstr(out, "          16  " RANGE) &&
			      strstr(out, "\nunseen: not measured: the events are inherited (a "
					  "command, --inherit), and the program cannot read an "
					  "inherited event's count\n"),
		      "%s", out);
	free(out);
	free(err);
	ck_assert_int_eq(sh(NULL, NULL,
			    "j=$(%s --show %s --format json) && printf '%%s\\n' \"$j\" | python3 "
			    "%s && printf '%%s\\n' \"$j\" | jq -e '.counters | .unseen == null and "
			    "(.unseen_unknown | startswith(\"the events are inherited\"))'",
			    hist(), dir, json_schema()),
			 0);
	ck_assert_int_eq(
		sh(NULL, NULL,
		   "bpftool -j map dump pinned %s/meta | jq -e '.[0].formatted.value.unseen "
		   "== \"LDLAT_PIN_UNSEEN_INHERIT\"'",
		   dir),
		0);
	unpin_ok(dir);
	rmdir(dir);
}
END_TEST

/* ---- a link removed by hand ---------------------------------------------- */

/*
 * A link of a detached set unpinned by hand (rm DIR/link_cpuN): the kernel
 * releases it, and that CPU's event samples no more.  --show counts the
 * links against the number the set records it pinned, and says so in every
 * format.
 */
START_TEST(test_link_missing)
{
	char dir[256], cg[256], *out, *err, *link = NULL, *ids;
	int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);

	pin_path(dir, sizeof(dir), "nolink");
	ck_assert_int_eq(cg_make(cg, sizeof(cg), "pin-nolink"), 0);
	HIST(0, &out, &err, "--source", "page-faults", "-G", cg, "-a", RANGE, "--pin", dir,
	     "--detach");
	free(out);
	free(err);
	/* whole: nothing to say, and 0 in each format */
	HIST(0, &out, &err, "--show", dir);
	ck_assert_msg(!strstr(out, "warning"), "%s", out);
	free(out);
	free(err);
	ck_assert_int_eq(sh(NULL, NULL,
			    "%s --show %s --format json | jq -e '.pinned | .links == %d and "
			    ".links_missing == 0' && %s --show %s --format prometheus | grep -q "
			    "'^ldlat_links_missing{.*} 0$'",
			    hist(), dir, ncpu, hist(), dir),
			 0);
	/* one link goes: the kernel drops it (bpftool no longer lists its ID) */
	ck_assert_int_eq(sh(&link, NULL, "ls %s | grep -m1 '^link_'", dir), 0);
	link[strcspn(link, "\n")] = '\0';
	ck_assert_int_eq(sh(&ids, NULL, "bpftool -j link show pinned %s/%s | jq -r .id", dir, link),
			 0);
	ids[strcspn(ids, "\n")] = '\0';
	ck_assert_int_eq(sh(NULL, NULL, "rm %s/%s", dir, link), 0);
	assert_ids_gone(ids);
	HIST(0, &out, &err, "--show", dir);
	ck_assert_msg(strstr(out, ncpu == 1 ? "  warning: 1 of the 1 links the set pinned is gone "
					      "from "
					    : "  warning: 1 of the "),
		      "%s", out);
	ck_assert_msg(strstr(out, " links the set pinned is gone from /sys/fs/bpf/") &&
			      strstr(out, "(removed by hand?)"),
		      "%s", out);
	free(out);
	free(err);
	ck_assert_int_eq(
		sh(NULL, NULL,
		   "j=$(%s --show %s --format json 2>/dev/null) && printf '%%s\\n' \"$j\" "
		   "| python3 %s && printf '%%s\\n' \"$j\" | jq -e '.pinned | .links == %d "
		   "and .links_missing == 1'",
		   hist(), dir, json_schema(), ncpu),
		0);
	HIST(0, &out, &err, "--show", dir, "--format", "prometheus");
	ck_assert_msg(strstr(err, "warning: 1 of the "), "%s", err);
	ck_assert_msg(strstr(out, "\nldlat_links_missing{"), "%s", out);
	free(out);
	free(err);
	ck_assert_int_eq(sh(NULL, NULL,
			    "%s --show %s --format prometheus 2>/dev/null | tee /dev/stderr | "
			    "promtool check metrics && %s --show %s --format openmetrics "
			    "2>/dev/null | grep -q '^ldlat_links_missing{.*} 1$' && %s --show %s "
			    "--format openmetrics 2>/dev/null | /usr/bin/python3 "
			    "%s/../lib/openmetrics_parse.py",
			    hist(), dir, hist(), dir, hist(), dir, fixture_path("")),
			 0);
	free(link);
	free(ids);
	unpin_ok(dir);
	rmdir(dir);
	cgroup_remove(cg);
}
END_TEST

/* ---- a cgroup with a long path -------------------------------------------- */

/*
 * A cgroup nested three deep under names of 120 characters (a path of
 * over 400 bytes): the set keeps its whole path, --show finds it there
 * (by its id) and counts its faults; once it is removed, --show says so.
 */
START_TEST(test_long_cgroup)
{
	char dir[256], top[256], cg[1024], name[121], *out, *err;
	int i;

	pin_path(dir, sizeof(dir), "longcg");
	ck_assert_int_eq(cg_make(top, sizeof(top), "pin-long"), 0);
	snprintf(cg, sizeof(cg), "%s", top);
	for (i = 0; i < 3; i++) {
		memset(name, 'a' + i, sizeof(name) - 1);
		name[sizeof(name) - 1] = '\0';
		snprintf(cg + strlen(cg), sizeof(cg) - strlen(cg), "/%s", name);
		ck_assert_int_eq(mkdir(cg, 0755), 0);
	}
	ck_assert_int_gt(strlen(cg), 400);
	HIST(0, &out, &err, "--source", "page-faults", "-G", cg, "-a", RANGE, "--pin", dir,
	     "--detach");
	free(out);
	free(err);
	fault_pages(cg, "40", BASE);
	HIST(0, &out, &err, "--show", dir);
	ck_assert_msg(!strstr(out, "has been removed") && strstr(out, "          40  " RANGE) &&
			      strstr(out, name),
		      "%s", out);
	free(out);
	free(err);
	ck_assert_int_eq(
		sh(NULL, NULL,
		   "%s --show %s --format json | jq -e '.pinned.cgroup_removed == null' && "
		   "%s --show %s --format prometheus | grep -q '^ldlat_cgroup_removed{.*} "
		   "0$' && bpftool -j map dump pinned %s/meta | jq -e "
		   "'.[0].formatted.value.cgroup_path == \"%s\"'",
		   hist(), dir, hist(), dir, dir, cg),
		0);
	/* removed: the deepest cgroup goes */
	ck_assert_int_eq(cgroup_remove(cg), 0);
	HIST(0, &out, &err, "--show", dir);
	ck_assert_msg(strstr(out, "warning: the cgroup ") && strstr(out, "has been removed"), "%s",
		      out);
	ck_assert_msg(strstr(out, name), "%s", out);
	free(out);
	free(err);
	ck_assert_int_eq(sh(NULL, NULL,
			    "%s --show %s --format prometheus | grep -q '^ldlat_cgroup_removed{.*} "
			    "1$' && %s --show %s --format json 2>/dev/null | jq -e "
			    "'.pinned.cgroup_removed == \"%s\"'",
			    hist(), dir, hist(), dir, cg),
			 0);
	unpin_ok(dir);
	rmdir(dir);
	for (i = 0; i < 2; i++) {
		*strrchr(cg, '/') = '\0';
		ck_assert_int_eq(rmdir(cg), 0);
	}
	ck_assert_int_eq(cgroup_remove(top), 0);
}
END_TEST

/* ---- in the foreground: the set lives as long as the run ------------------ */

START_TEST(test_foreground_pin)
{
	char dir[256], parent[256], cg[256], *out, *err;
	char *argv[] = { (char *)hist(), "--source", "page-faults", "-G", cg,
			 "-a",		 RANGE,	     "--pin",	    dir,  NULL };
	struct child h;

	pin_path(parent, sizeof(parent), "fg");
	snprintf(dir, sizeof(dir), "%s/sub", parent);
	ck_assert_int_eq(cg_make(cg, sizeof(cg), "pin-fg"), 0);
	child_spawn(&h, argv);
	ck_assert_msg(child_wait_stderr(&h, "Ctrl-C to end", 30), "%s", h.errbuf);
	ck_assert_ptr_nonnull(strstr(h.errbuf, "pinned in "));
	fault_pages(cg, "21", BASE);
	/* another ldlat-hist reads it while it runs... */
	ck_assert_int_eq(shown_count(dir, ""), 21);
	/* ...but cannot unpin it */
	HIST(2, &out, &err, "--unpin", dir);
	ck_assert_msg(strstr(err, "in use by a running ldlat-hist (PID ") &&
			      strstr(err, ", user root)"),
		      "%s", err);
	free(out);
	free(err);
	/* the program and the maps, for readers; the links stay the run's own */
	ck_assert_int_eq(dir_entries(dir), fg_objects());
	/* it created DIR and its parent, 0700 */
	ck_assert_int_eq(mode_of(parent), 0700);
	ck_assert_int_eq(mode_of(dir), 0700);
	kill(h.pid, SIGINT);
	ck_assert_int_eq(child_finish(&h, 30), 0);
	ck_assert_msg(strstr(h.outbuf, "          21  " RANGE), "%s", h.outbuf);
	/* it created DIR and its parent: it removes both */
	ck_assert_int_eq(access(parent, F_OK), -1);
	child_free(&h);
	cgroup_remove(cg);
}
END_TEST

/* The IDs of the links the kernel holds for the program pinned as DIR/prog ("12 13 "), and how many. */
static char *prog_link_ids(const char *dir, int *n)
{
	char *out = NULL, *p;

	ck_assert_int_eq(sh(&out, NULL,
			    "p=$(bpftool -j prog show pinned %s/prog | jq -r .id) && bpftool -j "
			    "link show | jq -r --argjson p \"$p\" '.[] | select(.prog_id == $p) | "
			    ".id' | tr '\\n' ' '",
			    dir),
			 0);
	*n = 0;
	for (p = out; (p = strpbrk(p, "0123456789")); p += strspn(p, "0123456789"))
		(*n)++;
	return out;
}

/* The IDs of a set's program and maps (no split), for assert_ids_gone: "prog P map ...". */
static char *prog_map_ids(const char *dir)
{
	char *out = NULL;

	ck_assert_int_eq(sh(&out, NULL,
			    "echo prog; bpftool -j prog show pinned %s/prog | jq -r .id && echo "
			    "map && for m in meta counters hists shown shown_hists; do bpftool -j "
			    "map show pinned %s/$m | jq -r .id || exit 1; done",
			    dir, dir),
			 0);
	for (char *p = out; *p; p++)
		if (*p == '\n')
			*p = ' ';
	return out;
}

/*
 * A foreground set whose ldlat-hist is SIGKILLed ends its sampling with
 * it: its links were never pinned, so the kernel releases them with the
 * process (bpftool lists none), and a workload after that counts nothing
 * (bpftool reads the counters); --show says the sampling ended with the
 * owner; --unpin removes the program and the maps (bpftool lists none).
 */
START_TEST(test_foreground_killed)
{
	char dir[256], cg[256], want[64], *out, *err, *links, *objs;
	char *argv[] = { (char *)hist(), "--source", "page-faults", "-G", cg,
			 "-a",		 RANGE,	     "--pin",	    dir,  NULL };
	int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN), nlinks;
	struct child h;

	pin_path(dir, sizeof(dir), "fgkill");
	ck_assert_int_eq(cg_make(cg, sizeof(cg), "pin-kill"), 0);
	child_spawn(&h, argv);
	ck_assert_msg(child_wait_stderr(&h, "Ctrl-C to end", 30), "%s", h.errbuf);
	/* the kernel holds a link per CPU for the set's program; none of them is pinned */
	links = prog_link_ids(dir, &nlinks);
	ck_assert_msg(nlinks == ncpu, "links of the set's program: %s (want %d)", links, ncpu);
	ck_assert_int_eq(dir_entries(dir), fg_objects());
	objs = prog_map_ids(dir);
	fault_pages(cg, "21", BASE);
	ck_assert_int_eq(shown_count(dir, ""), 21);

	kill(h.pid, SIGKILL);
	ck_assert_int_eq(child_finish(&h, 30), 128 + SIGKILL);
	child_free(&h);
	/* its links go with it, and the perf events they held */
	assert_ids_gone(links);
	fault_pages(cg, "40", BASE);
	/* the 21 pages before the kill, none of the 40 after: bpftool's reading, and --show's */
	ck_assert_int_eq(sh(NULL, NULL,
			    "bpftool -j map dump pinned %s/counters | jq -e "
			    "'[.[0].formatted.values[].value.kept] | add == 21'",
			    dir),
			 0);
	ck_assert_int_eq(shown_count(dir, ""), 21);
	HIST(0, &out, &err, "--show", dir);
	ck_assert_msg(strstr(out, "died without removing the set") &&
			      strstr(out, "its sampling ended with it; the counts are those until "
					  "then") &&
			      strstr(out, "          21  " RANGE),
		      "%s", out);
	free(out);
	free(err);
	HIST(0, &out, &err, "--show", dir, "--format", "json");
	ck_assert_msg(jq_true(out, ".pinned.owner_dead == true and .pinned.detached == false"),
		      "%s", out);
	ck_assert_msg(strstr(err, "the set's sampling ended with it"), "%s", err);
	free(out);
	free(err);
	/* --unpin removes what is left: the program and the maps */
	HIST(0, &out, &err, "--unpin", dir);
	snprintf(want, sizeof(want), "unpinned %d objects from ", fg_objects());
	ck_assert_msg(strstr(err, want) && strstr(err, "none was a link"), "%s", err);
	free(out);
	free(err);
	ck_assert_int_eq(dir_entries(dir), 0);
	assert_ids_gone(objs);
	free(links);
	free(objs);
	ck_assert_int_eq(rmdir(dir), 0);
	cgroup_remove(cg);
}
END_TEST

/* ---- bad DIRs: exit 2, a message, nothing touched ------------------------- */

/*
 * No bpffs on /sys/fs/bpf (a mount namespace of the test's own, with it
 * unmounted): bad input leaves it unmounted, an --unpin of a missing DIR is
 * nothing to do (exit 0) and mounts nothing; a foreground run mounts it and
 * unmounts it at its end; a detached set keeps it mounted.
 */
START_TEST(test_bpffs_mount)
{
	char dir[256], *out = NULL, *err = NULL;
	int rc;

	pin_path(dir, sizeof(dir), "mount");
	rc = sh(&out, &err,
		"unshare -m --propagation private sh -c '"
		"H=%s; D=%s; "
		"while mountpoint -q /sys/fs/bpf; do umount /sys/fs/bpf || exit 3; done; "
		"$H --source page-faults --pin $D -G ldlat-test-nosuch-%d; [ $? = 2 ] || exit 4; "
		"mountpoint -q /sys/fs/bpf && exit 5; "
		"$H --unpin $D 2>&1 | grep -q \"nothing is pinned in $D: nothing to do\" || "
		"exit 11; "
		"$H --unpin $D || exit 12; mountpoint -q /sys/fs/bpf && exit 13; "
		"$H --source page-faults --pin $D -C 0 -d 0.1 >/dev/null || exit 6; "
		"mountpoint -q /sys/fs/bpf && exit 7; "
		"$H --source page-faults --pin $D -C 0 --detach || exit 8; "
		"mountpoint -q /sys/fs/bpf || exit 9; "
		"$H --unpin $D || exit 10; rmdir $D'",
		hist(), dir, (int)suite_pid);
	ck_assert_msg(rc == 0, "step %d failed\n%s\n%s", rc, out, err);
	ck_assert_msg(strstr(err, "ldlat-test-nosuch-"), "%s", err);
	free(out);
	free(err);
}
END_TEST

/* A BPF map of someone else's, pinned at path. */
static void pin_foreign_map(const char *path)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "foreign", 4, 8, 1, NULL);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(bpf_obj_pin(fd, path), 0);
	close(fd);
}

START_TEST(test_bad_dirs)
{
	char dir[256], foreign[300], tmp[256], *out, *err;

	/* not on bpffs: refused, not created */
	snprintf(tmp, sizeof(tmp), "/tmp/ldlat-test-%d-pin", (int)getpid());
	HIST(2, &out, &err, "--source", "page-faults", "--pin", tmp, "--detach");
	ck_assert_msg(strstr(err, "is not on a BPF file system"), "%s", err);
	ck_assert_int_eq(access(tmp, F_OK), -1);
	free(out);
	free(err);
	HIST(2, &out, &err, "--show", "/tmp");
	ck_assert_msg(strstr(err, "--show '/tmp'") && strstr(err, "not on a BPF file system"), "%s",
		      err);
	free(out);
	free(err);
	HIST(2, &out, &err, "--unpin", "/tmp");
	ck_assert_msg(strstr(err, "not on a BPF file system"), "%s", err);
	free(out);
	free(err);

	/* an empty DIR: nothing to show, nothing to unpin */
	pin_path(dir, sizeof(dir), "bad");
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	HIST(2, &out, &err, "--show", dir);
	ck_assert_msg(strstr(err, "holds no pinned set"), "%s", err);
	free(out);
	free(err);
	unpin_ok(dir);

	/* a DIR that holds something else: --pin, --show and --unpin leave it be */
	snprintf(foreign, sizeof(foreign), "%s/foreign", dir);
	pin_foreign_map(foreign);
	HIST(2, &out, &err, "--source", "page-faults", "--pin", dir, "--detach");
	ck_assert_msg(strstr(err, "holds something else, 'foreign'"), "%s", err);
	free(out);
	free(err);
	HIST(2, &out, &err, "--show", dir);
	ck_assert_msg(strstr(err, "is not an ldlat pinned set"), "%s", err);
	free(out);
	free(err);
	HIST(2, &out, &err, "--unpin", dir);
	ck_assert_msg(strstr(err, "is not an ldlat pinned set") &&
			      strstr(err, "nothing was removed"),
		      "%s", err);
	free(out);
	free(err);
	ck_assert_int_eq(dir_entries(dir), 1);
	ck_assert_int_eq(access(foreign, F_OK), 0);
	/* a map named like ours but not ours ("meta") is foreign too */
	ck_assert_int_eq(unlink(foreign), 0);
	snprintf(foreign, sizeof(foreign), "%s/meta", dir);
	pin_foreign_map(foreign);
	HIST(2, &out, &err, "--unpin", dir);
	ck_assert_msg(strstr(err, "'meta' (not an ldlat set's meta map)"), "%s", err);
	free(out);
	free(err);
	ck_assert_int_eq(access(foreign, F_OK), 0);
	ck_assert_int_eq(unlink(foreign), 0);

	/* a set already there: a second --pin into it is refused */
	HIST(0, &out, &err, "--source", "page-faults", "-a", RANGE, "--pin", dir, "--detach");
	free(out);
	free(err);
	HIST(2, &out, &err, "--source", "page-faults", "--pin", dir, "--detach");
	ck_assert_msg(strstr(err, "already holds a pinned set"), "%s", err);
	free(out);
	free(err);
	ck_assert_int_eq(dir_entries(dir), set_objects());
	pin_cleanup(dir);
	ck_assert_int_eq(access(dir, F_OK), -1);
}
END_TEST

/* Runs a command as nobody (no groups, no capabilities). */
#define NOBODY "setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "

/* --pin DIR --detach on CPU 0: a set of 5 maps, the program and one link. */
#define CPU0_OBJECTS (fg_objects() + 1) /* and link_cpu0 */

/* ldlat-hist's arguments, want its exit status, and a sentence on stderr containing each of the
 * words (NULL-terminated). */
static void hist_refused(const char *const args[], const char *const words[])
{
	char *out, *err;
	int i;

	hist_run(2, &out, &err, (char *const *)args);
	for (i = 0; words[i]; i++)
		ck_assert_msg(strstr(err, words[i]), "ldlat-hist %s %s: want '%s' in: %s", args[0],
			      args[1], words[i], err);
	ck_assert_msg(!strchr(err, '\n') || strchr(err, '\n') == err + strlen(err) - 1,
		      "one line: %s", err);
	free(out);
	free(err);
}

#define REFUSED(words, ...) hist_refused((const char *[]){ __VA_ARGS__, NULL }, words)

/*
 * On a bpffs directory every user may write (mode 1777, as many machines
 * mount /sys/fs/bpf), another user (nobody) plants a symbolic link to a
 * directory of root's, owns a directory (mode 777), and holds a flock on a
 * set of root's: --pin, --show and --unpin refuse each with exit 2 and a
 * sentence; nothing is pinned in the link's target nor removed through it,
 * nothing is pinned or created in the other user's directory, and the
 * flock's holder is named for what it is.
 */
START_TEST(test_foreign_paths)
{
	char top[256], victim[300], lnk[300], sub[320], owned[300], wide[300], want[128];
	const char *const link_refused[] = { "is a symbolic link (to '",
					     "on bpffs, which ldlat-hist does not follow there",
					     NULL };
	const char *const owner_refused[] = { "is owned by nobody, not by you or root", NULL };
	const char *const mode_refused[] = { "(mode 0777) is writable by other users", NULL };
	const char *const lock_refused[] = { want, "user nobody), which is not an ldlat-hist",
					     NULL };
	char *hold[] = { "setpriv",
			 "--reuid=65534",
			 "--regid=65534",
			 "--clear-groups",
			 "flock",
			 "-F",
			 "-x",
			 victim,
			 "cat",
			 NULL };
	char *out, *err;
	struct child f;
	int fd, i;

	pin_path(top, sizeof(top), "trust");
	snprintf(victim, sizeof(victim), "%s/victim", top);
	snprintf(lnk, sizeof(lnk), "%s/x", top);
	ck_assert_int_eq(mkdir(top, 0700), 0);
	ck_assert_int_eq(chmod(top, 01777), 0);
	ck_assert_int_eq(mkdir(victim, 0700), 0);
	ck_assert_int_eq(sh(NULL, NULL, NOBODY "ln -s %s %s", victim, lnk), 0);

	/* a link, as DIR or on the way to it: refused; nothing lands in its target */
	REFUSED(link_refused, "--source", "page-faults", "-C", "0", "--pin", lnk, "--detach");
	snprintf(sub, sizeof(sub), "%s/sub", lnk);
	REFUSED(link_refused, "--source", "page-faults", "-C", "0", "--pin", sub, "--detach");
	ck_assert_int_eq(dir_entries(victim), 0);
	/* a set of root's in its target: --show and --unpin through the link refuse */
	HIST(0, &out, &err, "--source", "page-faults", "-C", "0", "--pin", victim, "--detach");
	free(out);
	free(err);
	REFUSED(link_refused, "--show", lnk);
	REFUSED(link_refused, "--unpin", lnk);
	REFUSED(link_refused, "--unpin", sub);
	ck_assert_int_eq(dir_entries(victim), CPU0_OBJECTS);

	/* a directory nobody owns, mode 777: nothing is pinned in it or created under it */
	snprintf(owned, sizeof(owned), "%s/u", top);
	ck_assert_int_eq(sh(NULL, NULL, NOBODY "mkdir -m 777 %s", owned), 0);
	REFUSED(owner_refused, "--source", "page-faults", "-C", "0", "--pin", owned, "--detach");
	snprintf(sub, sizeof(sub), "%s/sub", owned);
	REFUSED(owner_refused, "--source", "page-faults", "-C", "0", "--pin", sub, "-d", "1");
	REFUSED(owner_refused, "--show", owned);
	REFUSED(owner_refused, "--unpin", owned);
	ck_assert_int_eq(dir_entries(owned), 0);
	/* root's, but everyone may write it: the same */
	snprintf(wide, sizeof(wide), "%s/w", top);
	ck_assert_int_eq(mkdir(wide, 0700), 0);
	ck_assert_int_eq(chmod(wide, 0777), 0);
	REFUSED(mode_refused, "--source", "page-faults", "-C", "0", "--pin", wide, "--detach");
	REFUSED(mode_refused, "--unpin", wide);
	ck_assert_int_eq(dir_entries(wide), 0);
	/* and on the way to DIR, not sticky: anyone could rename DIR away and put another there */
	snprintf(sub, sizeof(sub), "%s/set", wide);
	REFUSED(mode_refused, "--source", "page-faults", "-C", "0", "--pin", sub, "--detach");
	REFUSED(mode_refused, "--show", sub);
	ck_assert_int_eq(dir_entries(wide), 0);

	/* nobody's flock on root's set (mode 755: anyone may open it) */
	ck_assert_int_eq(chmod(victim, 0755), 0);
	child_spawn(&f, hold);
	fd = open(victim, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	for (i = 0; i < 3000 && flock__holder(fd) != f.pid; i++)
		usleep(10000);
	ck_assert_msg(flock__holder(fd) == f.pid, "nobody's flock on %s is not there", victim);
	close(fd);
	snprintf(want, sizeof(want), "the directory is locked (flock) by PID %d ('cat', ",
		 (int)f.pid);
	REFUSED(lock_refused, "--unpin", victim);
	/* --show does not wait for a holder that may never let go */
	REFUSED(lock_refused, "--show", victim);
	REFUSED(lock_refused, "--source", "page-faults", "-C", "0", "--pin", victim, "--detach");
	ck_assert_int_eq(dir_entries(victim), CPU0_OBJECTS);
	ck_assert_int_eq(child_finish(&f, 30), 0);
	child_free(&f);
	/* once it lets go, --unpin removes the set */
	unpin_ok(victim);
	ck_assert_int_eq(dir_entries(victim), 0);

	ck_assert_int_eq(unlink(lnk), 0);
	ck_assert_int_eq(rmdir(owned), 0);
	ck_assert_int_eq(rmdir(wide), 0);
	ck_assert_int_eq(rmdir(victim), 0);
	ck_assert_int_eq(rmdir(top), 0);
}
END_TEST

#define BAD_OPTION(args, message)                                                                  \
	{                                                                                          \
		.cmd = "$HIST " args, .rc = 2, .err = { message }, .seconds = 30                   \
	}

static const struct cli_case bad_options[] = {
	BAD_OPTION("--detach", "--detach needs --pin DIR"),
	BAD_OPTION("--show /sys/fs/bpf/x --by pid --by-keys 3",
		   "--by-keys sets the rows of a split as it is made: a set shows the rows it was "
		   "pinned with"),
	BAD_OPTION("--delta", "--delta is not an option of 'ldlat-hist sample'"),
	BAD_OPTION("--pin /sys/fs/bpf/x --show /sys/fs/bpf/x",
		   "--pin is not an option of 'ldlat-hist show'"),
	BAD_OPTION("--pin /sys/fs/bpf/x --detach -- true", "--detach cannot watch a command"),
	BAD_OPTION("--pin /sys/fs/bpf/x --detach -i 1", "--detach exits at once"),
	BAD_OPTION("--show /sys/fs/bpf/x -G /", "-G is not an option of 'ldlat-hist show'"),
	BAD_OPTION("--show /sys/fs/bpf/x --linear 10",
		   "--linear is not an option of 'ldlat-hist show'"),
	BAD_OPTION("--show /sys/fs/bpf/x --delta --format openmetrics",
		   "--delta does not apply to --format openmetrics"),
	BAD_OPTION("--show /sys/fs/bpf/x --delta --format prometheus",
		   "--delta does not apply to --format prometheus"),
	BAD_OPTION("--show /sys/fs/bpf/x --allow-missing",
		   "--allow-missing reports a missing set as the gauge ldlat_set_present 0: it "
		   "needs --format prometheus or openmetrics"),
	BAD_OPTION("--show /sys/fs/bpf/x --allow-missing --format prometheus -i 1",
		   "--allow-missing is for one --show per refresh (a timer): leave out -i"),
	BAD_OPTION("--allow-missing", "--allow-missing is not an option of 'ldlat-hist sample'"),
	BAD_OPTION("--show /tmp --allow-missing --format prometheus",
		   "--show '/tmp': it is not on a BPF file system"),
	BAD_OPTION("--unpin /sys/fs/bpf/x -i 1", "-i is not an option of 'ldlat-hist unpin'"),
	BAD_OPTION("unpin /sys/fs/bpf/x --format json",
		   "--format is not an option of 'ldlat-hist unpin'"),
	BAD_OPTION("show /sys/fs/bpf/x --detach", "--detach is not an option of 'ldlat-hist show'"),
	BAD_OPTION("show --delta", "'ldlat-hist show' needs DIR"),
	BAD_OPTION("--format yaml",
		   "--format 'yaml': expected text, json, prometheus or openmetrics"),
	BAD_OPTION("--output /nonexistent-dir/x.prom", "cannot create a file in /nonexistent-dir"),
};

START_TEST(test_bad_options)
{
	cli_case__check(&bad_options[_i]);
	/* nothing pinned or created */
	ck_assert_int_eq(access("/sys/fs/bpf/x", F_OK), -1);
}
END_TEST

/* ---- a set split --by pid ---------------------------------------------- */

/* The IDs of the maps a split set pinned, for assert_ids_gone: "map 12 13 ...". */
static char *set_map_ids(const char *dir)
{
	char *out = NULL;

	ck_assert_int_eq(
		sh(&out, NULL,
		   "echo map; for m in meta counters hists shown shown_hists by_rows by_owner "
		   "by_next; do bpftool -j map show pinned %s/$m | jq -r .id || exit 1; done",
		   dir),
		0);
	for (char *p = out; *p; p++)
		if (*p == '\n')
			*p = ' ';
	return out;
}

/* --show's JSON histograms as "KEY COUNT" lines, sorted: the split's rows. */
static char *split_rows(const char *dir, const char *extra)
{
	char *out = NULL;

	ck_assert_int_eq(
		sh(&out, NULL,
		   "j=$(%s --show %s --format json %s) && printf '%%s\\n' \"$j\" | python3 "
		   "%s >&2 && printf '%%s\\n' \"$j\" | jq -r '.histograms[] | \"\\(.pid) "
		   "\\(.count)\"' | LC_ALL=C sort",
		   hist(), dir, extra, json_schema()),
		0);
	return out;
}

/*
 * A set split --by pid on a cgroup: two processes in it, each its own row
 * holding exactly the pages it faulted (a third process outside the
 * cgroup counts nowhere), in text, JSON, Prometheus and OpenMetrics, with
 * --delta and -i as a live run prints them.  A second set with one row
 * (--by-keys 1): the first process's row, the others the rest, counted in
 * every format.  The split's maps are pinned with the set; --unpin leaves
 * none of them in the kernel.
 */
START_TEST(test_split_set)
{
	char dir[256], one[256], cg[256], want[512], la[32], lb[32];
	char *out, *err, *ids, *ids1, *maps, *maps1;
	pid_t a, b, c;

	pin_path(dir, sizeof(dir), "split");
	pin_path(one, sizeof(one), "split-one");
	ck_assert_int_eq(cg_make(cg, sizeof(cg), "pin-split"), 0);
	HIST(0, &out, &err, "--source", "page-faults", "-G", cg, "-a", RANGE, "--by", "pid",
	     "--pin", dir, "--detach");
	free(out);
	free(err);
	HIST(0, &out, &err, "--source", "page-faults", "-G", cg, "-a", RANGE, "--by", "pid",
	     "--by-keys", "1", "--pin", one, "--detach");
	free(out);
	free(err);
	/* the set's objects, and the split's three maps */
	ck_assert_int_eq(dir_entries(dir), set_objects() + 3);
	a = fault_pages(cg, "64", BASE);
	b = fault_pages(cg, "32", BASE);
	fault_pages(NULL, "16", BASE); /* outside the cgroup: in no row */

	/* text: a row per process, nothing in the others */
	HIST(0, &out, &err, "--show", dir);
	snprintf(want, sizeof(want), "          64  pid %d, " RANGE " (", (int)a);
	ck_assert_msg(strstr(out, want), "want '%s' in:\n%s", want, out);
	snprintf(want, sizeof(want), "          32  pid %d, " RANGE " (", (int)b);
	ck_assert_msg(strstr(out, want), "want '%s' in:\n%s", want, out);
	ck_assert_msg(strstr(out, "by pid: 2 of 16 rows hold samples; others (no row left for "
				  "their pid): 0 samples\n"),
		      "%s", out);
	free(out);
	free(err);
	/* JSON (the schema), the rows and the split's use */
	out = split_rows(dir, "");
	snprintf(la, sizeof(la), "%d 64\n", (int)a);
	snprintf(lb, sizeof(lb), "%d 32\n", (int)b);
	snprintf(want, sizeof(want), "%s%s", strcmp(la, lb) < 0 ? la : lb,
		 strcmp(la, lb) < 0 ? lb : la);
	ck_assert_msg(!strcmp(out, want), "want:\n%s\ngot:\n%s", want, out);
	free(out);
	ck_assert_int_eq(
		sh(NULL, NULL,
		   "%s --show %s --format json | jq -e '.split == {key: \"pid\", rows: 16, "
		   "rows_used: 2, others: 0}'",
		   hist(), dir),
		0);
	/* Prometheus (promtool) and OpenMetrics (its parser): the PID as a label */
	ck_assert_int_eq(
		sh(NULL, NULL,
		   "%s --show %s --format prometheus | promtool check metrics && %s --show "
		   "%s --format prometheus | grep -q '^ldlat_range_samples_total{.*pid=\"%d\""
		   ".*} 64$' && %s --show %s --format prometheus | grep -q "
		   "'^ldlat_split_others_samples_total{.*by=\"pid\"} 0$'",
		   hist(), dir, hist(), dir, (int)a, hist(), dir),
		0);
	ck_assert_int_eq(sh(NULL, NULL,
			    "%s --show %s --format openmetrics | /usr/bin/python3 "
			    "%s/../lib/openmetrics_parse.py && %s --show %s --format openmetrics | "
			    "grep -q '^ldlat_range_samples_total{.*pid=\"%d\".*} 32$'",
			    hist(), dir, fixture_path(""), hist(), dir, (int)b),
			 0);
	/* bpftool: each key's row, in the order the processes faulted */
	snprintf(want, sizeof(want), "[%d, %d]", (int)a, (int)b);
	ck_assert_int_eq(sh(NULL, NULL,
			    "bpftool -j map dump pinned %s/by_rows | jq -e 'map(.formatted) | "
			    "sort_by(.value) | map(.key) == %s'",
			    dir, want),
			 0);

	/* --delta: the first since the start; then only the third process's row */
	out = split_rows(dir, "--delta");
	ck_assert_msg(strstr(out, " 64\n") && strstr(out, " 32\n"), "%s", out);
	free(out);
	c = fault_pages(cg, "10", BASE);
	out = split_rows(dir, "--delta");
	snprintf(want, sizeof(want), "%d 10\n", (int)c);
	ck_assert_msg(!strcmp(out, want), "want:\n%s\ngot:\n%s", want, out);
	free(out);
	/* -i: each interval's report carries the split */
	HIST(0, &out, &err, "--show", dir, "-i", "1", "-d", "1");
	ck_assert_msg(strstr(out, "by pid: ") && strstr(out, " of 16 rows hold samples; others"),
		      "%s", out);
	free(out);
	free(err);

	/* one row: the first process's; the others hold the rest, in every format */
	HIST(0, &out, &err, "--show", one);
	snprintf(want, sizeof(want), "          64  pid %d, " RANGE " (", (int)a);
	ck_assert_msg(strstr(out, want), "want '%s' in:\n%s", want, out);
	ck_assert_msg(strstr(out, "          42  pid others, " RANGE " (") &&
			      strstr(out, "by pid: 1 of 1 rows hold samples; others (no row left "
					  "for their pid): 42 samples\n"),
		      "%s", out);
	free(out);
	free(err);
	out = split_rows(one, "");
	snprintf(want, sizeof(want), "%d 64\nothers 42\n", (int)a);
	ck_assert_msg(!strcmp(out, want), "want:\n%s\ngot:\n%s", want, out);
	free(out);
	ck_assert_int_eq(
		sh(NULL, NULL,
		   "%s --show %s --format json | jq -e '.split.others == 42' && %s --show %s "
		   "--format prometheus | promtool check metrics && %s --show %s --format "
		   "prometheus | grep -q '^ldlat_split_others_samples_total{.*by=\"pid\"} 42$' "
		   "&& %s --show %s --format openmetrics | grep -q "
		   "'^ldlat_range_samples_total{.*pid=\"others\".*} 42$'",
		   hist(), one, hist(), one, hist(), one, hist(), one),
		0);

	/* the split is the set's: another is refused */
	HIST(2, &out, &err, "--show", dir, "--by", "cpu");
	ck_assert_msg(strstr(err, "--by cpu: the set was pinned split by pid, and shows that split "
				  "only"),
		      "%s", err);
	free(out);
	free(err);

	/* --unpin: nothing of either set is left, the split's maps included */
	ids = set_ids(dir);
	ids1 = set_ids(one);
	maps = set_map_ids(dir);
	maps1 = set_map_ids(one);
	unpin_ok(dir);
	unpin_ok(one);
	ck_assert_int_eq(dir_entries(dir), 0);
	ck_assert_int_eq(dir_entries(one), 0);
	assert_ids_gone(ids);
	assert_ids_gone(ids1);
	assert_ids_gone(maps);
	assert_ids_gone(maps1);
	free(ids);
	free(ids1);
	free(maps);
	free(maps1);
	ck_assert_int_eq(rmdir(dir), 0);
	ck_assert_int_eq(rmdir(one), 0);
	cgroup_remove(cg);
}
END_TEST

/* ---- a set with latency histograms, read by --show and bpftool ----------- */

static const __u64 lats[] = { 0, 1, 3, 7, 30, 31, 32, 100, 250, 1000, 1000, 5000, 123456 };

START_TEST(test_latency_set)
{
	struct ldlat_config cfg = {
		.span_lo = { 0x1000, 0x10000 },
		.span_hi = { 0x2000, 0x20000 },
		.span_range = { 0, 1 },
		.nspans = 2,
		.nranges = 2,
		.max_lat = ~0ull,
		.class_mask = LDLAT_ALL_CLASSES,
		.need = LDLAT_HAS_ADDR | LDLAT_HAS_LAT | LDLAT_HAS_DSRC,
	};
	/* L1 hit and local RAM (the kernel's Intel encodings), both loads */
	const __u64 l1 = PERF_MEM_OP_LOAD | ((__u64)PERF_MEM_LVL_HIT | PERF_MEM_LVL_L1)
						    << PERF_MEM_LVL_SHIFT;
	const __u64 ram = PERF_MEM_OP_LOAD | ((__u64)PERF_MEM_LVL_HIT | PERF_MEM_LVL_LOC_RAM)
						     << PERF_MEM_LVL_SHIFT;
	struct ldlat_pin_meta meta = { .magic = LDLAT_PIN_MAGIC, .layout = LDLAT_PIN_LAYOUT };
	struct ldlat_sample s;
	struct evlist evlist = {};
	struct session sess;
	struct pinset ps;
	struct err err = {};
	char dir[256], want[128], *out, *errs;
	unsigned int i;
	__u64 sum_l1 = 0, sum_ram = 0;
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &s, .ctx_size_in = sizeof(s));

	pin_path(dir, sizeof(dir), "lat");
	ck_assert_msg(session__open(&sess, &cfg, SESSION_TEST_ENTRY | SESSION_PIN, &err) == 0, "%s",
		      err.msg);
	/* range 0 gets every latency from an L1 hit, range 1 the same from RAM, twice */
	for (i = 0; i < ARRAY_SIZE(lats) * 3; i++) {
		bool in_ram = i >= ARRAY_SIZE(lats);

		memset(&s, 0, sizeof(s));
		s.addr = in_ram ? 0x10000 + i : 0x1000 + i;
		s.lat = lats[i % (ARRAY_SIZE(lats))];
		s.data_src = in_ram ? ram : l1;
		s.flags = LDLAT_HAS_ADDR | LDLAT_HAS_LAT | LDLAT_HAS_DSRC;
		*(in_ram ? &sum_ram : &sum_l1) += s.lat;
		ck_assert_int_eq(bpf_prog_test_run_opts(session__test_fd(&sess), &opts), 0);
	}
	ck_assert_int_eq(pinset__prepare(&ps, dir, &err), 0);
	snprintf(meta.event, sizeof(meta.event), "test entry");
	snprintf(meta.target_desc, sizeof(meta.target_desc), "synthetic samples");
	meta.fields = cfg.need;
	meta.pid = (__u32)getpid();
	meta.nranges = 2;
	snprintf(meta.range_text[0], sizeof(meta.range_text[0]), "0x1000-0x2000");
	snprintf(meta.range_text[1], sizeof(meta.range_text[1]), "0x10000-0x20000");
	meta.cfg = cfg;
	ck_assert_msg(pinset__pin(&ps, &sess, NULL, &evlist, &meta, &err) == 0, "%s", err.msg);

	/* JSON: the schema, and each (range, class) with its count, sum and buckets */
	ck_assert_int_eq(sh(NULL, NULL, "%s --show %s --format json --by both | python3 %s", hist(),
			    dir, json_schema()),
			 0);
	ck_assert_int_eq(
		sh(NULL, NULL,
		   "%s --show %s --format json --by both | jq -e '[.histograms[] | "
		   "\"\\(.range) \\(.class) \\(.count) \\(.sum) \\(.buckets | length)\"] == "
		   "[\"0 l1 13 %llu 11\", \"1 local-ram 26 %llu 11\"]'",
		   hist(), dir, (unsigned long long)sum_l1, (unsigned long long)sum_ram),
		0);
	/* the bucket of the two 1000s: [992, 1007]; min and max exact, the 0 not measured */
	ck_assert_int_eq(
		sh(NULL, NULL,
		   "%s --show %s --format json | jq -e '.histograms[] | select(.class == "
		   "\"l1\") | (.buckets[] | select(.low == 992) | .high == 1007 and .count == "
		   "2) and .min == 1 and .max == 123456 and .unmeasured == 1'",
		   hist(), dir),
		0);
	/* promtool accepts the text format, the OpenMetrics parser OpenMetrics; buckets
	 * cumulative, +Inf = _count */
	ck_assert_int_eq(
		sh(NULL, NULL,
		   "%s --show %s --format prometheus --by both | promtool check metrics && "
		   "%s --show %s --format openmetrics --by both | /usr/bin/python3 "
		   "%s/../lib/openmetrics_parse.py",
		   hist(), dir, hist(), dir, fixture_path("")),
		0);
	ck_assert_int_eq(
		sh(NULL, NULL,
		   "%s --show %s --format openmetrics --by both | grep "
		   "'^ldlat_latency_cycles_bucket{.*class=\"local-ram\"' | awk '{ if ($NF < "
		   "prev) exit 1; prev = $NF } END { if (NR != 22 || prev != 24) exit 1 }'",
		   hist(), dir),
		0);
	ck_assert_int_eq(sh(NULL, NULL,
			    "%s --show %s --format openmetrics --by both | grep -qx "
			    "'ldlat_latency_cycles_bucket{target=\"synthetic samples\",pin=\"%s\","
			    "class=\"l1\",range=\"0x1000-0x2000\",le=\"31\"} 5'",
			    hist(), dir, dir),
			 0);
	/* text: the class names and the summary */
	HIST(0, &out, &errs, "--show", dir);
	ck_assert_msg(strstr(out, "source L1 hit") && strstr(out, "source local RAM") &&
			      strstr(out, "13 samples (33.3% of kept)"),
		      "%s", out);
	free(out);
	free(errs);
	/* the word form: ldlat-hist show DIR prints what --show DIR does (but for the clock) */
	ck_assert_int_eq(sh(NULL, NULL,
			    "a=$(%s --show %s --format json --by both | jq -S 'del(.time, "
			    ".interval)') && b=$(%s show %s --format json --by both | jq -S "
			    "'del(.time, .interval)') && [ -n \"$a\" ] && [ \"$a\" = \"$b\" ]",
			    hist(), dir, hist(), dir),
			 0);
	HIST(2, &out, &errs, "show", dir, "--pin", dir);
	ck_assert_msg(strstr(errs, "ldlat-hist: --pin is not an option of 'ldlat-hist show'"), "%s",
		      errs);
	free(out);
	free(errs);
	/* bpftool: the class by name in every cell */
	ck_assert_int_eq(
		sh(NULL, NULL,
		   "bpftool -j map dump pinned %s/hists | jq -e '[.[] | .formatted.values | "
		   "map(.value) "
		   "| {range: .[0].range, class: .[0].class, n: (map(.slot | add) | add)} | "
		   "select(.n > 0)] == [{range: 0, class: \"LDLAT_CLASS_L1\", n: 12}, "
		   "{range: 1, class: \"LDLAT_CLASS_LOCAL_RAM\", n: 24}]'",
		   dir),
		0);
	ck_assert_int_eq(sh(NULL, NULL,
			    "bpftool map dump pinned %s/hists | grep -q "
			    "'\"class\": \"LDLAT_CLASS_REMOTE_HITM\"'",
			    dir),
			 0);

	/*
	 * this process holds the set: --unpin refuses, naming it for what it is
	 * (this suite, not an ldlat-hist); once it lets go, --unpin removes it
	 */
	snprintf(want, sizeof(want), "the directory is locked (flock) by PID %d ('check_pin', ",
		 (int)getpid());
	HIST(2, &out, &errs, "--unpin", dir);
	ck_assert_msg(strstr(errs, want) && strstr(errs, "user root), which is not an ldlat-hist"),
		      "want '%s' in: %s", want, errs);
	free(out);
	free(errs);
	HIST(2, &out, &errs, "unpin", dir);
	ck_assert_msg(strstr(errs, want), "want '%s' in: %s", want, errs);
	free(out);
	free(errs);
	pinset__close(&ps);
	session__close(&sess);
	HIST(0, &out, &errs, "--unpin", dir);
	free(out);
	free(errs);
	ck_assert_int_eq(dir_entries(dir), 0);
	/* ldlat-hist unpin DIR: the same words as --unpin DIR */
	HIST(0, &out, &errs, "unpin", dir);
	ck_assert_msg(strstr(errs, "ldlat-hist: nothing is pinned in ") &&
			      strstr(errs, ": nothing to do"),
		      "%s", errs);
	free(out);
	free(errs);
	rmdir(dir);
}
END_TEST

/*
 * A set pinned by an older ldlat-hist (its meta says layout 1: log2 buckets,
 * no min or max) is refused by --show with a sentence that says what to do,
 * and --unpin still removes it.
 */
START_TEST(test_older_layout_refused)
{
	struct ldlat_config cfg = { .nranges = 1,
				    .max_lat = ~0ull,
				    .class_mask = LDLAT_ALL_CLASSES,
				    .need = LDLAT_HAS_ADDR };
	struct ldlat_pin_meta meta = { .magic = LDLAT_PIN_MAGIC, .layout = 1 };
	struct evlist evlist = {};
	struct session sess;
	struct pinset ps;
	struct err err = {};
	char dir[256], *out, *errs;

	ck_assert_int_eq(LDLAT_PIN_LAYOUT, 6);
	pin_path(dir, sizeof(dir), "old");
	ck_assert_msg(session__open(&sess, &cfg, SESSION_PIN, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(pinset__prepare(&ps, dir, &err), 0);
	meta.fields = cfg.need;
	meta.pid = (__u32)getpid();
	meta.cfg = cfg;
	ck_assert_msg(pinset__pin(&ps, &sess, NULL, &evlist, &meta, &err) == 0, "%s", err.msg);
	pinset__close(&ps);
	session__close(&sess);
	HIST(2, &out, &errs, "--show", dir);
	ck_assert_msg(strstr(errs, "the set was pinned by another version of ldlat-hist (layout 1; "
				   "this one reads layout 6): show it with the ldlat-hist that "
				   "pinned it, or remove it with ldlat-hist --unpin"),
		      "%s", errs);
	free(out);
	free(errs);
	HIST(0, &out, &errs, "--unpin", dir);
	free(out);
	free(errs);
	ck_assert_int_eq(dir_entries(dir), 0);
	rmdir(dir);
}
END_TEST

/*
 * After each test case, in the suite's process: whatever a failed test left
 * pinned or created is removed (a passing test removes its own).
 */
static void pin_leftovers_remove(void)
{
	char pins[128], cgroups[128];

	snprintf(pins, sizeof(pins), "/sys/fs/bpf/ldlat-test-%d-*", (int)suite_pid);
	snprintf(cgroups, sizeof(cgroups), "/sys/fs/cgroup/unified/ldlat-pin*-%d-*",
		 (int)suite_pid);
	leftovers_remove(pins, cgroups);
}

int main(void)
{
	Suite *s = suite_create("pin");
	TCase *tc;

	if (!need_root("check_pin (bpffs, perf events and BPF)"))
		return 0;
	suite_pid = getpid();
	tc = tcase_create("sets");
	tcase_set_timeout(tc, 180);
	tcase_add_unchecked_fixture(tc, NULL, pin_leftovers_remove);
	tcase_add_test(tc, test_detach_show_unpin);
	tcase_add_test(tc, test_two_sets);
	tcase_add_test(tc, test_cgroup_removed);
	tcase_add_test(tc, test_foreground_pin);
	tcase_add_test(tc, test_foreground_killed);
	tcase_add_test(tc, test_latency_set);
	tcase_add_test(tc, test_older_layout_refused);
	tcase_add_test(tc, test_split_set);
	tcase_add_loop_test(tc, test_unseen_counted, 0, 4);
	tcase_add_test(tc, test_unseen_by_hand);
	tcase_add_test(tc, test_unseen_inherit);
	tcase_add_test(tc, test_link_missing);
	tcase_add_test(tc, test_long_cgroup);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_set_timeout(tc, 120);
	tcase_add_unchecked_fixture(tc, NULL, pin_leftovers_remove);
	tcase_add_test(tc, test_bad_dirs);
	tcase_add_test(tc, test_foreign_paths);
	tcase_add_test(tc, test_bpffs_mount);
	tcase_add_loop_test(tc, test_bad_options, 0, ARRAY_SIZE(bad_options));
	suite_add_tcase(s, tc);

	return run_suite(s);
}
