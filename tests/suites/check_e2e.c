// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * check_e2e - ldlat-hist end to end on this machine: real perf events (page
 * faults, whose address travels the same perf -> BPF -> map path as a
 * load-latency sample), real targets (a command, -p, -G, -C, the whole
 * machine), and every bad input.  A workload that first-touches N pages at
 * a fixed address must be counted exactly N times in that range.  Needs root.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tests/lib/clicase.h"
#include "tests/lib/testutil.h"
#include "kernel/lib/util.h"

#define BASE	   "0x200000000000"
#define BASE_RANGE BASE "+16M"

/* ---- a command ------------------------------------------------------------ */

/*
 * Each case a command under ldlat-hist --source page-faults, whose pages
 * first touched at BASE the range must count exactly; the loader's and
 * libc's faults fall outside it.
 */
#define EXACT(n)                                                                                   \
	{                                                                                          \
		.what = "a command, exactly",                                                      \
		.cmd = "$HIST --source page-faults -a " BASE_RANGE                                 \
		       " -- $WORKLOAD --fault-pages " #n " --base " BASE,                          \
		.counts = { { BASE_RANGE, n } }, .out = { "counts per range only" },               \
		.err = { "sampling page-faults (period 1) on command" }, .nothing_left = true      \
	}

static const struct cli_case command_cases[] = {
	EXACT(1),
	EXACT(100),
	EXACT(2500),
	{ .what = "two ranges split the pages; the faults of the loader and libc fall outside both",
	  .cmd = "$HIST --source page-faults -a " BASE "+120K -a 0x20000001e000-0x200000064000 -- "
		 "$WORKLOAD --fault-pages 100 --base " BASE,
	  .counts = { { BASE "+120K", 30 },
		      { "0x20000001e000-0x200000064000", 70 },
		      { "total", 100 } },
	  .out_re = { "kept; dropped: [1-9]" },
	  .out = { "outside every range" } },
	{ .what = "the address-only program (for kernels before 6.3) on the same real path",
	  .cmd = "env LDLAT_FORCE_ADDR_ONLY=1 $HIST --source page-faults -a " BASE_RANGE
		 " -- $WORKLOAD --fault-pages 77 --base " BASE,
	  .counts = { { BASE_RANGE, 77 } },
	  .nothing_left = true },
	{ .what = "the command's children count (inherit), and its exit status becomes ours",
	  .argv = { "$HIST", "--source", "page-faults", "-a", BASE_RANGE, "--", "sh", "-c",
		    "$WORKLOAD --fault-pages 30 --base " BASE "; exit 7" },
	  .rc = 7,
	  .counts = { { BASE_RANGE, 30 } } },
	{ .what = "mapping names resolve against the command once it has exec'd",
	  .cmd = "$HIST --source page-faults -a [stack] -a ldlat-workload -a " BASE_RANGE
		 " -v -- $WORKLOAD --fault-pages 20 --base " BASE,
	  .counts = { { "[stack] (0x", 1, .at_least = true },
		      { "ldlat-workload (0x", 1, .at_least = true },
		      { BASE_RANGE, 20 } },
	  .err = { "range 0: [stack] = 0x" } },
};

START_TEST(test_command)
{
	cli_case__check(&command_cases[_i]);
}
END_TEST

/*
 * What the program did not see, from the events' own counts: with a fixed
 * period every sample the events produced reached it (nothing else runs BPF
 * on these faults), so the figure is 0 in every format, and each event's
 * count over the period equals 'seen'.  In frequency mode the figure is an
 * estimate and the shares are period-weighted, and the reports say so.
 */
START_TEST(test_unseen_zero)
{
	static const char *const periods[] = { "1", "7" };

	ck_assert_int_eq(sh(NULL, NULL,
			    "%s --source page-faults -c %s --format json -a %s -- %s --fault-pages "
			    "700 --base %s | jq -e '.counters | .unseen.samples == 0 and "
			    ".unseen.estimated == false and .unseen.seen == .seen and "
			    ".unseen.samples_counted == .seen and .seen > 0' && %s --source "
			    "page-faults -c %s -a %s -- %s --fault-pages 70 --base %s | grep -q "
			    "'^unseen: 0 samples the events produced and the program did not see'",
			    hist(), periods[_i], BASE_RANGE, workload(), BASE, hist(), periods[_i],
			    BASE_RANGE, workload(), BASE),
			 0);
	ck_assert_int_eq(sh(NULL, NULL,
			    "%s --source page-faults -c %s --format openmetrics -a %s -- %s "
			    "--fault-pages 70 --base %s | grep -q "
			    "'^ldlat_samples_unseen_total{.*estimated=\"0\"} 0$'",
			    hist(), periods[_i], BASE_RANGE, workload(), BASE),
			 0);
	ck_assert_int_eq(sh(NULL, NULL,
			    "%s --source page-faults -F 1000 --format json -a %s -- %s "
			    "--fault-pages 700 --base %s | jq -e '.weighting == \"period\" and "
			    ".counters.unseen.estimated == true and .counters.seen_period > 0 and "
			    "(.histograms[0].events | type) == \"number\"'",
			    hist(), BASE_RANGE, workload(), BASE),
			 0);
	assert_nothing_left();
}
END_TEST

/*
 * An event whose samples carry a latency field: LDLAT_FORCE_ADDR_ONLY=1 says
 * it drops it and counts by address; =0 never falls back to address-only
 * (a vendor kernel whose features mislead the probe).
 */
START_TEST(test_address_only_override)
{
	static const struct cli_case addr_only = {
		.cmd = "env LDLAT_FORCE_ADDR_ONLY=1 $HIST --event page-faults:u -c 1 --by range "
		       "-a " BASE_RANGE " -- $WORKLOAD --fault-pages 30 --base " BASE,
		.err = { "LDLAT_FORCE_ADDR_ONLY=1; running address-only" },
		.counts = { { BASE_RANGE, 30 } },
	};
	/* --op any: a software event's data_src names no op (address-only refuses --op) */
	static const struct cli_case full = {
		.cmd = "env LDLAT_FORCE_ADDR_ONLY=0 $HIST --event page-faults:u -c 1 --by range "
		       "-a " BASE_RANGE " --op any -- $WORKLOAD --fault-pages 30 --base " BASE,
		.no_err = { "address-only" },
	};
	struct cli_result r;

	cli_case__check(&addr_only);
	cli_case__run(&full, &r);
	/* a software event fills no latency: zero-filled (not a measured one), or absent (6.1, 6.2) */
	if (kernel_zero_fills_fields())
		ck_assert_msg(strstr(r.out, "  30 samples (100.0% of kept)\n  30 samples without a "
					    "measured latency"),
			      "%s", r.out);
	else
		ck_assert_msg(strstr(r.out, "no samples kept") && strstr(r.out, " fields missing"),
			      "%s", r.out);
	cli_result__free(&r);
}
END_TEST

/* The spans -v printed for range NAME ("range 0: NAME = 0xA-0xB,0xC-0xD"); how many. */
static int spans_of(const char *err, const char *name, unsigned long long lo[],
		    unsigned long long hi[], int max)
{
	char needle[256];
	const char *p;
	int n = 0, used;

	snprintf(needle, sizeof(needle), ": %s = ", name);
	p = strstr(err, needle);
	if (!p)
		return 0;
	p += strlen(needle);
	while (n < max && sscanf(p, "0x%llx-0x%llx%n", &lo[n], &hi[n], &used) == 2) {
		n++;
		p += used;
		if (*p != ',')
			break;
		p++;
	}
	return n;
}

/* The number before "what" in the filter line ("dropped: 155 outside every range"), or -1. */
static long dropped(const char *out, const char *what)
{
	const char *p = strstr(out, what);

	while (p && p > out && p[-1] == ' ')
		p--;
	while (p && p > out && p[-1] >= '0' && p[-1] <= '9')
		p--;
	return p ? strtol(p, NULL, 10) : -1;
}

/*
 * [heap] is the brk heap and room to grow: pages the command adds with sbrk
 * after the ranges were resolved count, the pages it maps with mmap (below
 * the libraries, in the gap above the heap) do not.  With RLIMIT_DATA the
 * room is that limit; without, the machine's memory.  _i: 0 unlimited, 1 with
 * a 1 GiB RLIMIT_DATA.
 */
START_TEST(test_command_heap)
{
	static const struct cli_case heap_case = {
		.cmd = "$HIST --source page-faults -a [heap] -v -- $WORKLOAD --heap-pages 50 "
		       "--fault-pages 100 --print-ranges",
	};
	struct rlimit data = { 1ull << 30, 1ull << 30 };
	unsigned long long lo[4], hi[4], flo, fhi;
	struct cli_result r;
	char *out, *err;
	const char *f;
	long heap;

	/*
	 * AddressSanitizer's shadow memory counts against RLIMIT_DATA, so a
	 * sanitizer build (make test-asan sets LDLAT_SANITIZED) cannot start
	 * under 1 GiB: that case is the optimised build's (make test).
	 */
	if (_i && getenv("LDLAT_SANITIZED")) {
		printf("test_command_heap: the RLIMIT_DATA case is left to make test "
		       "(a sanitizer build cannot start under 1 GiB)\n");
		return;
	}
	if (_i)
		ck_assert_int_eq(setrlimit(RLIMIT_DATA, &data), 0);
	cli_case__run(&heap_case, &r);
	out = r.out;
	err = r.err;
	ck_assert_int_eq(spans_of(err, "[heap]", lo, hi, 4), 1);
	f = strstr(out, "faults 0x");
	ck_assert_msg(f && sscanf(f, "faults 0x%llx-0x%llx", &flo, &fhi) == 2, "%s", out);
	ck_assert_msg(fhi <= lo[0] || flo >= hi[0],
		      "mapped pages 0x%llx-0x%llx inside [heap] 0x%llx-0x%llx", flo, fhi, lo[0],
		      hi[0]);
	if (_i) /* stopped at exec the heap is empty: start_brk plus RLIMIT_DATA */
		ck_assert_uint_eq(hi[0] - lo[0], 1ull << 30);
	else
		ck_assert_uint_gt(hi[0] - lo[0], 1ull << 20);
	heap = count_for(out, "[heap] (0x");
	ck_assert_msg(heap >= 50 && heap < 100, "%s", out);
	ck_assert_msg(dropped(out, "outside every range") >= 100, "%s", out);
	cli_result__free(&r);
}
END_TEST

/* The PID of the first child of pid (the tool's command), or 0. */
static pid_t child_of(pid_t pid)
{
	char path[64], buf[256];
	FILE *f;
	int c = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f) || sscanf(buf, "%d", &c) != 1)
		c = 0;
	fclose(f);
	return c;
}

/*
 * A library of a command (stopped at its exec, before the loader mapped it):
 * the command runs to its entry point first, the range covers every mapping
 * of libc in the command's /proc/PID/maps, and the faults the program takes
 * in libc after its entry point count.
 */
START_TEST(test_command_library)
{
	unsigned long long lo[16], hi[16], mlo, mhi;
	char path[64], line[1024];
	struct cli_words argv;
	int n, i, nmaps = 0;
	struct child h;
	pid_t w;
	FILE *f;

	cli_words(&argv, "$HIST --source page-faults -a libc.so.6 -v -- $WORKLOAD --wait "
			 "--fault-pages 10");
	ck_assert_msg(child_spawn_started(&h, argv.argv, 30), "%s", h.errbuf);
	n = spans_of(h.errbuf, "libc.so.6", lo, hi, 16);
	ck_assert_msg(n > 0, "%s", h.errbuf);
	w = child_of(h.pid);
	ck_assert_int_gt(w, 0);
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)w);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "/libc.so.6\n"))
			continue;
		ck_assert_int_eq(sscanf(line, "%llx-%llx", &mlo, &mhi), 2);
		for (i = 0; i < n && !(lo[i] <= mlo && mhi <= hi[i]); i++)
			;
		ck_assert_msg(i < n, "libc mapping %s is outside the range's spans", line);
		if (!nmaps++)
			ck_assert_uint_eq(mlo, lo[0]); /* the lowest mapping starts the range */
	}
	fclose(f);
	ck_assert_int_gt(nmaps, 0);
	ck_assert(child_go(&h)); /* its stdin is the workload's */
	ck_assert_int_eq(child_finish(&h, 30), 0);
	ck_assert_msg(count_for(h.outbuf, "libc.so.6 (0x") > 0, "%s", h.outbuf);
	child_free(&h);
	assert_nothing_left();
}
END_TEST

/*
 * Where -a LIB's counts start, beside perf: ldlat-hist -a libc.so.6 on a
 * command counts from the program's entry point (it says so), perf record
 * from the exec.  With a uprobe at the entry point, perf's own samples in
 * libc's span after it are ldlat's count (medians of 5 runs each, within a
 * page fault), and those of the whole run more: the loader's faults
 * (tests/libentry_vs_perf.py).
 */
START_TEST(test_command_library_vs_perf)
{
	char *out = NULL, *err = NULL;

	ck_assert_msg(sh(&out, &err, "tests/libentry_vs_perf.py %s /bin/true 5",
			 build_path("ldlat-hist")) == 0,
		      "%s%s", out ? out : "", err ? err : "");
	free(out);
	free(err);
	/* the note that says so */
	ck_assert_int_eq(sh(&out, &err, "%s --source page-faults -a libc.so.6 -- /bin/true",
			    build_path("ldlat-hist")),
			 0);
	ck_assert_msg(strstr(err, "note: -a 'libc.so.6' is resolved at the entry point of "
				  "'/bin/true'") &&
			      strstr(err, "perf record counts them, from the exec"),
		      "%s", err);
	free(out);
	free(err);
	assert_nothing_left();
}
END_TEST

/* ---- -p, -G, -C, system-wide ----------------------------------------------- */

static void start_hist(struct child *h, char *const argv[])
{
	ck_assert_msg(child_spawn_started(h, argv, 30), "ldlat-hist did not start: %s", h->errbuf);
}

static void go(struct child *w)
{
	ck_assert(child_go(w));
}

START_TEST(test_pid)
{
	struct child w, h;
	char pid[32];
	char *wargv[] = {
		(char *)workload(), "--wait", "--fault-pages", "50", "--base", BASE, NULL
	};
	char *hargv[] = { (char *)hist(), "--source", "page-faults", "-p", pid,
			  "-a",		  BASE_RANGE, NULL };

	child_spawn(&w, wargv);
	snprintf(pid, sizeof(pid), "%d", w.pid);
	start_hist(&h, hargv);
	go(&w);
	ck_assert_int_eq(child_finish(&w, 30), 0);
	/* the target's exit ends the run */
	ck_assert_int_eq(child_finish(&h, 30), 0);
	ck_assert_msg(count_for(h.outbuf, BASE_RANGE) == 50, "%s", h.outbuf);
	child_free(&w);
	child_free(&h);
	assert_nothing_left();
}
END_TEST

/*
 * -a PROGRAM takes the anonymous mapping after the program's file as its
 * .bss only up to the end of its last PT_LOAD segment: 64 pages mapped right
 * after ldlat-topprog's .bss (merged into its mapping by the kernel) are not
 * the program's; the 30 + 20 pages of its arrays are.
 */
START_TEST(test_pid_bss_bound)
{
	struct cli_words wargv, hargv;
	struct child w, h;
	char pid[32];
	long n;

	cli_words(&wargv, "$BUILD/tests/ldlat-topprog --after 64 --wait 30 20");
	child_spawn(&w, wargv.argv);
	snprintf(pid, sizeof(pid), "%d", w.pid);
	cli_var_set("PID", pid);
	cli_words(&hargv, "$HIST --source page-faults -p $PID -a ldlat-topprog");
	/* -a names the program's mapping: it must be there when ldlat-hist resolves it */
	ck_assert(child_wait_reading(&w, 30));
	start_hist(&h, hargv.argv);
	go(&w);
	ck_assert_int_eq(child_finish(&w, 30), 0);
	ck_assert_int_eq(child_finish(&h, 30), 0);
	n = count_for(h.outbuf, "ldlat-topprog (0x");
	/* its arrays, and at most a few pages of its code and data touched the first time */
	ck_assert_msg(n >= 50 && n < 64, "%s", h.outbuf);
	child_free(&w);
	child_free(&h);
	assert_nothing_left();
}
END_TEST

/* --inherit follows what the process starts after the attach. */
START_TEST(test_pid_inherit)
{
	struct child w, h;
	char pid[32], script[512];
	char *wargv[] = { "sh", "-c", script, NULL };
	char *hargv[] = { (char *)hist(), "--source", "page-faults", "-p", pid,
			  "-a",		  BASE_RANGE, NULL,	     NULL };

	snprintf(script, sizeof(script), "read x; %s --fault-pages 40 --base %s", workload(), BASE);
	if (_i)
		hargv[7] = "--inherit";
	child_spawn(&w, wargv);
	snprintf(pid, sizeof(pid), "%d", w.pid);
	start_hist(&h, hargv);
	ck_assert_int_eq(write(w.in, "g\n", 2), 2);
	ck_assert_int_eq(child_finish(&w, 30), 0);
	ck_assert_int_eq(child_finish(&h, 30), 0);
	ck_assert_msg(count_for(h.outbuf, BASE_RANGE) == (_i ? 40 : 0), "inherit %d: %s", _i,
		      h.outbuf);
	child_free(&w);
	child_free(&h);
}
END_TEST

static char cgroup_path[256];

static void cgroup_make_e2e(void)
{
	int e = cgroup_make(cgroup_path, sizeof(cgroup_path), "test");

	ck_assert_msg(e == 0, "mkdir %s: %s", cgroup_path, strerror(-e));
}

/* A workload inside the cgroup counts; the same workload outside does not. */
START_TEST(test_cgroup)
{
	struct child in, out, h;
	char *inargv[] = {
		(char *)workload(), "--wait", "--fault-pages", "64", "--base", BASE, NULL
	};
	char *outargv[] = {
		(char *)workload(), "--wait", "--fault-pages", "32", "--base", BASE, NULL
	};
	char rel[300];
	char *hargv[] = { (char *)hist(), "--source", "page-faults", "-G", rel,
			  "-a",		  BASE_RANGE, NULL };

	cgroup_make_e2e();
	/* relative to the cgroup v2 mount */
	snprintf(rel, sizeof(rel), "%s", cgroup_path + strlen("/sys/fs/cgroup/unified/"));
	child_spawn(&in, inargv);
	child_spawn(&out, outargv);
	ck_assert_int_eq(cgroup_enter(cgroup_path, in.pid), 0);
	start_hist(&h, hargv);
	go(&in);
	go(&out);
	ck_assert_int_eq(child_finish(&in, 30), 0);
	ck_assert_int_eq(child_finish(&out, 30), 0);
	kill(h.pid, SIGINT);
	ck_assert_int_eq(child_finish(&h, 30), 0);
	ck_assert_msg(count_for(h.outbuf, BASE_RANGE) == 64, "%s\n%s", h.outbuf, h.errbuf);
	ck_assert_ptr_nonnull(strstr(h.errbuf, "on cgroup ldlat-test-"));
	child_free(&in);
	child_free(&out);
	child_free(&h);
	cgroup_remove(cgroup_path);
	assert_nothing_left();
}
END_TEST

/*
 * -G with -C: the cgroup's workload, held on one CPU, counts on that CPU
 * (loop 0) and not on another (loop 1; with a single CPU online there is
 * no other, and only loop 0 can be checked).
 */
START_TEST(test_cgroup_cpus)
{
	struct child w, h;
	int cpu[2], ncpu = cpus_allowed(cpu, 2);
	char on[16], at[16], rel[300], want_desc[340];
	char *wargv[] = { "taskset", "-c", at,	(char *)workload(), "--wait", "--fault-pages", "40",
			  "--base",  BASE, NULL };
	char *hargv[] = { (char *)hist(), "--source", "page-faults", "-G",	 rel,
			  "-C",		  on,	      "-a",	     BASE_RANGE, NULL };

	ck_assert_int_ge(ncpu, 1);
	if (_i >= ncpu) {
		fprintf(stderr, "check_e2e: one CPU online: -G -C of another CPU not checked\n");
		return;
	}
	snprintf(at, sizeof(at), "%d", cpu[0]);
	snprintf(on, sizeof(on), "%d", cpu[_i]);
	cgroup_make_e2e();
	snprintf(rel, sizeof(rel), "%s", cgroup_path + strlen("/sys/fs/cgroup/unified/"));
	child_spawn(&w, wargv);
	ck_assert(child_wait_stderr(&w, "waiting", 30));
	ck_assert_int_eq(cgroup_enter(cgroup_path, w.pid), 0);
	start_hist(&h, hargv);
	go(&w);
	ck_assert_int_eq(child_finish(&w, 30), 0);
	kill(h.pid, SIGINT);
	ck_assert_int_eq(child_finish(&h, 30), 0);
	ck_assert_msg(count_for(h.outbuf, BASE_RANGE) == (_i ? 0 : 40), "-C %s: %s\n%s", on,
		      h.outbuf, h.errbuf);
	snprintf(want_desc, sizeof(want_desc), "on cgroup %s on CPUs %s.", rel, on);
	ck_assert_msg(strstr(h.errbuf, want_desc), "want '%s' in: %s", want_desc, h.errbuf);
	child_free(&w);
	child_free(&h);
	cgroup_remove(cgroup_path);
	assert_nothing_left();
}
END_TEST

/*
 * --by pid, cpu, cgroup (loops 0, 1, 2), split in the kernel: two
 * workloads fault 64 and 32 pages in the same range, system-wide; the
 * first's row holds exactly its 64: its PID's, its CPU's (each held on a
 * CPU of its own), its cgroup's (the other stays outside it); no sample
 * goes to the others.  In JSON and OpenMetrics the row is a member and a
 * label.
 */
START_TEST(test_split)
{
	static const char *const keys[] = { "pid", "cpu", "cgroup" };
	struct child a, b, h;
	int cpu[2], ncpu = cpus_allowed(cpu, 2);
	char at_a[16], at_b[16], label[64], json_path[] = "/tmp/ldlat-split-XXXXXX";
	char *aargv[] = {
		"taskset", "-c", at_a, (char *)workload(), "--wait", "--fault-pages", "64",
		"--base",  BASE, NULL
	};
	char *bargv[] = {
		"taskset", "-c", at_b, (char *)workload(), "--wait", "--fault-pages", "32",
		"--base",  BASE, NULL
	};
	char *hargv[] = { (char *)hist(), "--source", "page-faults",	"-a",
			  BASE_RANGE,	  "--by",     (char *)keys[_i], NULL };
	struct stat st;
	__u64 key;

	if (_i == 1 && ncpu < 2) {
		fprintf(stderr, "check_e2e: one CPU online: --by cpu not checked\n");
		return;
	}
	snprintf(at_a, sizeof(at_a), "%d", cpu[0]);
	snprintf(at_b, sizeof(at_b), "%d", ncpu > 1 ? cpu[1] : cpu[0]);
	if (_i == 2)
		cgroup_make_e2e();
	child_spawn(&a, aargv);
	child_spawn(&b, bargv);
	ck_assert(child_wait_stderr(&a, "waiting", 30));
	ck_assert(child_wait_stderr(&b, "waiting", 30));
	if (_i == 2)
		ck_assert_int_eq(cgroup_enter(cgroup_path, a.pid), 0);
	start_hist(&h, hargv);
	go(&a);
	go(&b);
	ck_assert_int_eq(child_finish(&a, 30), 0);
	ck_assert_int_eq(child_finish(&b, 30), 0);
	kill(h.pid, SIGINT);
	ck_assert_int_eq(child_finish(&h, 30), 0);
	if (_i == 0)
		key = (__u64)a.pid;
	else if (_i == 1)
		key = (__u64)cpu[0];
	else {
		ck_assert_int_eq(stat(cgroup_path, &st), 0);
		key = (__u64)st.st_ino;
	}
	snprintf(label, sizeof(label), "%s %llu, ", keys[_i], (unsigned long long)key);
	ck_assert_msg(count_for(h.outbuf, label) == 64, "want 64 for '%s' in:\n%s\n%s", label,
		      h.outbuf, h.errbuf);
	if (_i < 2) {
		snprintf(label, sizeof(label), "%s %llu, ", keys[_i],
			 (unsigned long long)(_i == 0 ? (__u64)b.pid : (__u64)cpu[1]));
		ck_assert_msg(count_for(h.outbuf, label) == 32, "want 32 for '%s' in:\n%s", label,
			      h.outbuf);
	}
	ck_assert_msg(strstr(h.outbuf, "others (no row left for their "), "%s", h.outbuf);
	ck_assert_msg(strstr(h.outbuf, "): 0 samples\n"), "%s", h.outbuf);
	child_free(&a);
	child_free(&b);
	child_free(&h);
	if (_i == 2)
		cgroup_remove(cgroup_path);
	/* the same split as JSON and OpenMetrics: a member and a label */
	ck_assert_int_ge(mkstemp(json_path), 0);
	ck_assert_int_eq(
		sh(NULL, NULL,
		   "taskset -c %d %s --source page-faults -a %s --by %s --format json -- %s "
		   "--fault-pages 50 --base %s > %s && jq -e '.split.key == \"%s\" and "
		   ".split.others == 0 and ([.histograms[] | select(.%s != null) | .count] | add) "
		   "== 50' %s && python3 %s < %s && taskset -c %d %s --source page-faults -a %s "
		   "--by %s --format openmetrics -- %s --fault-pages 50 --base %s | grep -q "
		   "'^ldlat_range_samples_total{.*%s=\"[0-9]*\".*} 50$'",
		   cpu[0], hist(), BASE_RANGE, keys[_i], workload(), BASE, json_path, keys[_i],
		   keys[_i], json_path, json_schema(), json_path, cpu[0], hist(), BASE_RANGE,
		   keys[_i], workload(), BASE, keys[_i]),
		0);
	unlink(json_path);
	assert_nothing_left();
}
END_TEST

/* -C counts only what runs on those CPUs; no -C counts everything. */
START_TEST(test_cpus_and_system_wide)
{
	static const char *const cpus[] = { "0", "1", NULL };
	static const long want[] = { 25, 0, 25 };
	struct child h;
	char *wargv[] = { "taskset", "-c", "0", (char *)workload(), "--fault-pages", "25",
			  "--base",  BASE, NULL };
	char *hargv[] = { (char *)hist(), "--source", "page-faults", "-a",
			  BASE_RANGE,	  NULL,	      NULL,	     NULL };
	char *out, *err;

	if (cpus[_i]) {
		hargv[5] = "-C";
		hargv[6] = (char *)cpus[_i];
	}
	start_hist(&h, hargv);
	ck_assert_int_eq(run(wargv, 30, &out, &err), 0);
	kill(h.pid, SIGINT);
	ck_assert_int_eq(child_finish(&h, 30), 0);
	ck_assert_msg(count_for(h.outbuf, BASE_RANGE) == want[_i], "-C %s: %s", cpus[_i], h.outbuf);
	if (cpus[_i])
		ck_assert_ptr_nonnull(strstr(h.errbuf, "on CPUs "));
	else
		ck_assert_ptr_nonnull(strstr(h.errbuf, "system-wide"));
	free(out);
	free(err);
	child_free(&h);
}
END_TEST

/* ---- time: intervals, duration, Ctrl-C ------------------------------------ */

static int timestamp_lines(const char *out)
{
	const char *p = out;
	int n = 0, h, m, sec, len;

	while (p && *p) {
		len = 0;
		if (sscanf(p, "%2d:%2d:%2d%n", &h, &m, &sec, &len) == 3 && len == 8 && p[8] == '\n')
			n++;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return n;
}

START_TEST(test_intervals)
{
	char *argv[] = { (char *)hist(), "--source", "page-faults", "-i", "0.2,3",
			 "--",		 "sleep",    "30",	    NULL };
	char *out, *err, *p;
	double t0 = clock__monotonic();
	int blocks = 0;

	run_expect(argv, 0, &out, &err);
	ck_assert(clock__monotonic() - t0 < 10);
	for (p = out; (p = strstr(p, "filters: ")); p++)
		blocks++;
	ck_assert_int_eq(blocks, 3);
	ck_assert_int_eq(timestamp_lines(out), 3); /* HH:MM:SS leads each block */
	free(out);
	free(err);
	assert_nothing_left();
}
END_TEST

START_TEST(test_duration)
{
	char *argv[] = { (char *)hist(), "--source", "page-faults", "-d", "0.5",
			 "--",		 "sleep",    "30",	    NULL };
	char *out, *err;
	double t0 = clock__monotonic();

	run_expect(argv, 0, &out, &err);
	ck_assert(clock__monotonic() - t0 < 10);
	ck_assert_ptr_nonnull(strstr(out, "filters: "));
	free(out);
	free(err);
	assert_nothing_left();
}
END_TEST

START_TEST(test_ctrl_c)
{
	struct child h;
	char *argv[] = { (char *)hist(), "--source", "page-faults", NULL };

	start_hist(&h, argv);
	kill(h.pid, SIGINT);
	ck_assert_int_eq(child_finish(&h, 30), 0);
	ck_assert_ptr_nonnull(strstr(h.outbuf, "all addresses"));
	ck_assert_ptr_nonnull(strstr(h.outbuf, "filters: "));
	child_free(&h);
	assert_nothing_left();
}
END_TEST

/* ---- bad input: exit 2, a message naming the input, nothing left ---------- */

#define BAD(args, message)                                                                         \
	{                                                                                          \
		.cmd = "$HIST --source page-faults " args, .rc = 2, .err = { message },            \
		.err_starts = "ldlat-hist: ", .nothing_left = true                                 \
	}

static const struct cli_case bad_inputs[] = {
	BAD("-p 999999999", "-p 999999999: no such process"),
	BAD("-G /tmp", "-G '/tmp' is not a cgroup v2 directory"),
	BAD("-G no/such/group", "-G 'no/such/group' is not a cgroup v2 directory"),
	BAD("-a [heap]", "'[heap]' names a mapping: it needs a process"),
	BAD("-C 4000", "-C 4000: CPU 4000 is not online"),
	BAD("-G . -C 4000", "-C 4000: CPU 4000 is not online"),
	BAD("--min-lat 10", "--min-lat needs latency and data source"),
	BAD("-s l3", "-s/--class needs latency"),
	BAD("--ldlat 50", "--ldlat applies to --source ldlat"),
	BAD("--event cpu/event=0xcd/", "--event applies to --source ldlat or auto"),
	BAD("--linear 10", "--linear needs latency"),
	BAD("-a libnosuch.so -- true", "no mapping 'libnosuch.so'"),
	BAD("-- /nonexistent/cmd", "cannot run '/nonexistent/cmd': No such file or directory"),
	BAD("-a 0x1000-0x3000 -a 0x2000+4K", "overlap"),
	BAD("--by pid,tid", "--by 'pid,tid': expected class, range, both or none"),
	BAD("--by-keys 0 --by pid", "--by-keys '0' is not a number of keys (1 to 256)"),
};

START_TEST(test_bad_input)
{
	cli_case__check(&bad_inputs[_i]);
}
END_TEST

START_TEST(test_no_privilege)
{
	static const struct cli_case nobody = {
		.cmd = "setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all $COPY "
		       "--source page-faults -- true",
		.rc = 2,
		.err = { "needs privilege: run as root, or grant CAP_PERFMON and CAP_BPF (this "
			 "process lacks both)",
			 "kernel.perf_event_paranoid is" },
	};

	cli_var_set("COPY", reachable_copy(hist()));
	cli_case__check(&nobody);
}
END_TEST

/*
 * A machine with a load-latency event: --source ldlat samples the chase's
 * DRAM buffer with latencies (loads from DRAM take hundreds of cycles on
 * every CPU that has the event; Intel samples none under the 30-cycle
 * threshold), and --source auto picks the event, not page faults.
 */
static void ldlat_pmu_here(void)
{
	char *auto_argv[] = { (char *)hist(), "--source", "auto", "--", "true", NULL };
	char *out, *err;

	ck_assert_msg(sh(NULL, NULL,
			 "f=$(mktemp /tmp/ldlat-e2e-hw-XXXXXX) && %s --source ldlat --by range "
			 "-a 0x2000c0000000+1G --format json --output $f -- %s --chase --base %s "
			 "--seconds 1 >/dev/null && jq -e '.latency == true and .counters.kept > 0 "
			 "and .histograms[0].count > 0 and .histograms[0].sum / "
			 ".histograms[0].count > 30' $f; rc=$?; cat $f; rm -f $f; exit $rc",
			 hist(), workload(), BASE) == 0,
		      "--source ldlat on the chase's DRAM buffer (see the output above)");
	run_expect(auto_argv, 0, &out, &err);
	ck_assert_msg(!strstr(err, "page faults instead"), "%s", err);
	free(out);
	free(err);
}

/*
 * --source ldlat: on a machine with no load-latency event, a sentence that
 * says so, and --source auto falls back to page faults; on one with the
 * event, the run above.
 */
START_TEST(test_ldlat_source)
{
	char *argv[] = { (char *)hist(), "--source", "ldlat", "--", "true", NULL };
	char *auto_argv[] = {
		(char *)hist(),	    "--source",	     "auto", "-a",     BASE_RANGE, "--",
		(char *)workload(), "--fault-pages", "12",   "--base", BASE,	   NULL
	};
	char *out, *err;
	int rc;

	rc = run(argv, 60, &out, &err);
	if (!strstr(err, "no load-latency event on this machine")) {
		ck_assert_msg(rc == 0, "--source ldlat here (exit %d): %s", rc, err);
		free(out);
		free(err);
		ldlat_pmu_here();
		return;
	}
	ck_assert_int_eq(rc, 1);
	ck_assert_ptr_nonnull(strstr(err, "PMUs here: "));
	ck_assert_ptr_nonnull(strstr(err, "software"));
	ck_assert_ptr_nonnull(strstr(err, "--source page-faults"));
	free(out);
	free(err);
	run_expect(auto_argv, 0, &out, &err);
	ck_assert_ptr_nonnull(strstr(err, "sampling page faults instead"));
	ck_assert_int_eq(count_for(out, BASE_RANGE), 12);
	free(out);
	free(err);
}
END_TEST

/* ---- --event: a spec in perf's syntax, opened for real ---------------------- */

/*
 * A software event through the load-latency path: the kernel fills data_src
 * (N/A) and weight (0) for it, so every fault lands in 'unknown source',
 * counted as a sample without a measured latency, exactly once per page.
 */
START_TEST(test_event_spec_real)
{
	static const struct cli_case spec = {
		.cmd = "$HIST --event page-faults:u -c 1 --op any --by range -a " BASE_RANGE
		       " -- $WORKLOAD --fault-pages 40 --base " BASE,
		.err = { "sampling page-faults:u on command" },
		/* no latency measured: no bucket, no mean, the samples counted apart */
		.no_out = { "0 -> 0 " },
		.out = { "  40 samples (100.0% of kept)\n  40 samples without a measured latency" },
		.nothing_left = true,
	};

	cli_case__check(&spec);
}
END_TEST

/*
 * An event the kernel does not know: the failed open in a sentence, bad
 * input (the user wrote it); nothing left.
 */
START_TEST(test_event_open_error)
{
	static const struct cli_case unknown = {
		.cmd = "$HIST --event r1cd:pp -- true",
		.rc = 2,
		.err = { "ldlat-hist: cannot open r1cd:pp on task ",
			 ": this kernel knows no PMU of type 4 with config 0x1cd",
			 "check it with --list-events" },
		.nothing_left = true,
	};

	if (access("/sys/bus/event_source/devices/cpu/type", F_OK) == 0)
		return; /* a machine with a core PMU knows raw events */
	cli_case__check(&unknown);
}
END_TEST

/* --list-events on this machine: what the tools chose and why, or why nothing. */
START_TEST(test_list_events_here)
{
	char *argv[] = { (char *)hist(), "--list-events", NULL };
	char *out, *err;
	int rc = run(argv, 30, &out, &err);

	ck_assert_ptr_nonnull(strstr(out, "tools.conf     "));
	ck_assert_ptr_nonnull(strstr(out, "cpu            "));
	if (rc == 0) {
		ck_assert_ptr_nonnull(strstr(out, "event 1        "));
		ck_assert_ptr_nonnull(strstr(out, "  sample_type  "));
	} else {
		ck_assert_int_eq(rc, 1);
		ck_assert_ptr_nonnull(
			strstr(err, "ldlat-hist: no load-latency event on this machine"));
	}
	free(out);
	free(err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e");
	TCase *tc;

	if (!need_root("check_e2e (perf events and BPF)"))
		return 0;
	tc = tcase_create("command");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_command, 0, ARRAY_SIZE(command_cases));
	tcase_add_loop_test(tc, test_unseen_zero, 0, 2);
	tcase_add_test(tc, test_address_only_override);
	tcase_add_loop_test(tc, test_command_heap, 0, 2);
	tcase_add_test(tc, test_command_library);
	tcase_add_test(tc, test_command_library_vs_perf);
	suite_add_tcase(s, tc);

	tc = tcase_create("targets");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_pid);
	tcase_add_test(tc, test_pid_bss_bound);
	tcase_add_loop_test(tc, test_pid_inherit, 0, 2);
	tcase_add_test(tc, test_cgroup);
	tcase_add_loop_test(tc, test_cgroup_cpus, 0, 2);
	tcase_add_loop_test(tc, test_split, 0, 3);
	tcase_add_loop_test(tc, test_cpus_and_system_wide, 0, 3);
	suite_add_tcase(s, tc);

	tc = tcase_create("time");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_intervals);
	tcase_add_test(tc, test_duration);
	tcase_add_test(tc, test_ctrl_c);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_bad_input, 0, ARRAY_SIZE(bad_inputs));
	tcase_add_test(tc, test_no_privilege);
	tcase_add_test(tc, test_ldlat_source);
	suite_add_tcase(s, tc);

	tc = tcase_create("events");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_event_spec_real);
	tcase_add_test(tc, test_event_open_error);
	tcase_add_test(tc, test_list_events_here);
	suite_add_tcase(s, tc);

	return run_suite(s);
}
