// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ldlat-logic - the per-sample logic alone (ldlat_account: filter, classify,
 * bucket, count), timed in the kernel by BPF_PROG_TEST_RUN with repeat on
 * the program's benchmark entry, for configurations from no filter to all
 * of them.  Each run of the entry takes a batch of BATCH distinct samples
 * (other addresses, latencies and, where the case allows, classes: the
 * branches see a mix, not one sample again and again), so that the kernel's
 * whole-nanosecond mean per run is 1/BATCH ns per sample.
 *
 *   ldlat-logic [REPEAT [CALLS]]  (default: 20000 runs per call, CALLS 41:
 *                                  the cases take turns call by call)
 *
 * prints one line per case: its name, the median, least and greatest ns of
 * one run (a batch) over the calls, and the ns per sample of the logic: the
 * median over the calls of (run - test_run alone) / BATCH, where test_run
 * alone (a packet too short to hold a sample: the program returns at once)
 * is the same call's turn of the first case; and the same from the least.
 *
 *   ldlat-logic --serve           (bench.py --compare)
 *
 * loads every case and prints "case<TAB>NAME" for each, then "ready"; then
 * reads commands from stdin: "run I REPEAT" runs case I once and prints the
 * kernel's ns per run; "check" checks every case's counts and prints "ok".
 * Two builds served side by side take turns call by call.
 *
 * Builds against an older tree's headers too (bench.py --compare copies it
 * there): without periods and --by (LDLAT_BY_MAX_KEYS) those cases are left
 * out.  The packet is six u64 words per sample whatever the tree's struct.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/ldlat.h"
#include "user/run/session.h"
#include "user/report/snapshot.h"
#include "bpf/ldlat.skel.h"
#include "kernel/lib/util.h"

#define SPAN_BASE 0x7f0000000000ull
#define SPAN_STEP 0x100000ull
#define SPAN_SIZE 0x10000ull

#define BATCH 16 /* samples per run of the entry: its LDLAT_BENCH_BATCH */
#define WORDS 6	 /* u64 words per sample in the packet: its LDLAT_BENCH_WORDS */

/* Data sources: loads that hit the L1, L2, L3 and local DRAM. */
#define DS(lvl, lnum)                                                                              \
	(((__u64)PERF_MEM_OP_LOAD << PERF_MEM_OP_SHIFT) |                                          \
	 ((__u64)(PERF_MEM_LVL_HIT | (lvl)) << PERF_MEM_LVL_SHIFT) |                               \
	 ((__u64)PERF_MEM_SNOOP_HIT << PERF_MEM_SNOOP_SHIFT) |                                     \
	 ((__u64)(lnum) << PERF_MEM_LVLNUM_SHIFT))
#define DS_L1	     DS(PERF_MEM_LVL_L1, PERF_MEM_LVLNUM_L1)
#define DS_L2	     DS(PERF_MEM_LVL_L2, PERF_MEM_LVLNUM_L2)
#define DS_L3	     DS(PERF_MEM_LVL_L3, PERF_MEM_LVLNUM_L3)
#define DS_LOCAL_RAM DS(PERF_MEM_LVL_LOC_RAM, PERF_MEM_LVLNUM_RAM)

/* The batch's latencies: 24 to 3900 cycles, inside the cases' window (20-5000). */
static const __u64 batch_lat[BATCH] = { 150, 24,  310, 77,  1200, 45,	180, 3900,
					96,  260, 33,  600, 140,  2200, 58,  420 };

enum expect { EXPECT_NONE, EXPECT_KEPT, EXPECT_OUTSIDE, EXPECT_CLASS };

struct bench_case {
	const char *name;
	int nranges;	  /* -a ranges, one span each */
	bool all_filters; /* latency window, class set, loads only */
	bool addr_only;	  /* a page-fault source: samples carry the address alone */
	enum expect expect;
	bool freq; /* frequency mode: the program sums the periods (else a fixed period) */
	__u32 by;  /* --by's split (enum ldlat_by) */
};

/*
 * Periods and --by came with the log-linear buckets: a tree without them
 * (LDLAT_BY_MAX_KEYS) has neither case.
 */
#ifdef LDLAT_BY_MAX_KEYS
#define HAS_PERIOD_BY 1
#else
#define HAS_PERIOD_BY 0
#endif

static const struct bench_case cases[] = {
	{ "test_run alone (packet shorter than a sample)", 0, false, false, EXPECT_NONE },
	{ "no filter", 0, false, false, EXPECT_KEPT },
#if HAS_PERIOD_BY
	{ "no filter, frequency mode (periods summed)", 0, false, false, EXPECT_KEPT, true },
	{ "no filter, split by CPU (--by cpu)", 0, false, false, EXPECT_KEPT, false, LDLAT_BY_CPU },
#endif
	{ "1 range", 1, false, false, EXPECT_KEPT },
	{ "16 ranges", 16, false, false, EXPECT_KEPT },
	{ "16 ranges, latency window, class set, loads only: kept", 16, true, false, EXPECT_KEPT },
	{ "16 ranges, latency window, class set, loads only: outside every range", 16, true, false,
	  EXPECT_OUTSIDE },
	{ "16 ranges, latency window, class set, loads only: class not asked for", 16, true, false,
	  EXPECT_CLASS },
	{ "16 ranges, address only (page faults): kept", 16, false, true, EXPECT_KEPT },
};

/*
 * The case's configuration and its batch, as the packet's words.  Sample i
 * is in range (i * 5 + 2 * nranges / 3) mod nranges (or just past it when
 * outside every range), at latency batch_lat[i], from a source its filters
 * keep (or, for the class case, one they do not): every sample of a batch
 * ends as the case expects.
 */
static void case_config(const struct bench_case *bc, struct ldlat_config *c,
			__u64 batch[BATCH][WORDS])
{
	static const __u64 every[] = { DS_L1, DS_L2, DS_L3, DS_LOCAL_RAM };
	static const __u64 asked[] = { DS_L1, DS_L3, DS_LOCAL_RAM };
	static const __u64 not_asked[] = { DS_L2, DS_LOCAL_RAM };
	const __u64 *ds = every;
	__u32 nds = ARRAY_SIZE(every), need;
	int i, r;

	memset(c, 0, sizeof(*c));
	memset(batch, 0, sizeof(__u64) * BATCH * WORDS);
	for (i = 0; i < bc->nranges; i++) {
		c->span_lo[i] = SPAN_BASE + i * SPAN_STEP;
		c->span_hi[i] = c->span_lo[i] + SPAN_SIZE;
		c->span_range[i] = i;
	}
	c->nspans = bc->nranges;
	c->nranges = bc->nranges ? bc->nranges : 1;
	c->max_lat = ~0ull;
	c->class_mask = LDLAT_ALL_CLASSES;
	need = bc->addr_only ? LDLAT_HAS_ADDR : LDLAT_HAS_ADDR | LDLAT_HAS_LAT | LDLAT_HAS_DSRC;
	c->need = need;
	if (bc->all_filters) {
		c->min_lat = 20;
		c->max_lat = 5000;
		c->op_mask = PERF_MEM_OP_LOAD;
		c->class_mask = (1u << LDLAT_CLASS_L1) | (1u << LDLAT_CLASS_L3) |
				(1u << LDLAT_CLASS_LOCAL_HITM) |
				(1u << LDLAT_CLASS_REMOTE_RAM_1HOP);
		if (bc->expect != EXPECT_CLASS)
			c->class_mask |= 1u << LDLAT_CLASS_LOCAL_RAM;
		ds = bc->expect == EXPECT_CLASS ? not_asked : asked;
		nds = bc->expect == EXPECT_CLASS ? ARRAY_SIZE(not_asked) : ARRAY_SIZE(asked);
	}
	for (i = 0; i < BATCH; i++) {
		r = bc->nranges ? (i * 5 + bc->nranges * 2 / 3) % bc->nranges : 0;
		batch[i][0] = SPAN_BASE + r * SPAN_STEP + 0x40 + i * 0x400;
		if (bc->expect == EXPECT_OUTSIDE)
			batch[i][0] += SPAN_SIZE;
		if (!bc->addr_only) {
			batch[i][1] = batch_lat[i];
			batch[i][2] = ds[i % nds];
		}
		batch[i][3] = 0x401000 + i * 0x40;   /* ip */
		batch[i][4] = 1 | (__u64)need << 32; /* tgid, flags */
		batch[i][5] = 1000; /* a fixed period, as a sample of mem-loads -c 1000 carries */
	}
#if HAS_PERIOD_BY
	c->fixed_period = bc->freq ? 0 : 1000;
	c->by = bc->by;
	c->by_keys = bc->by ? (__u32)libbpf_num_possible_cpus() : 0;
#endif
}

/* The counter that must have counted every sample. */
static __u64 case_count(const struct bench_case *bc, const struct ldlat_counters *c)
{
	switch (bc->expect) {
	case EXPECT_KEPT:
		return c->kept;
	case EXPECT_OUTSIDE:
		return c->outside_ranges;
	case EXPECT_CLASS:
		return c->class_filtered;
	default:
		return c->seen;
	}
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* One case: its program, loaded with the case's configuration, and its timings. */
struct bench_run {
	const struct bench_case *bc;
	struct session sess;
	bool open;
	__u64 batch[BATCH][WORDS];
	__u64 runs;  /* of the program, in all */
	double *dur; /* ns per run, one per call */
};

static int bench_run__open(struct bench_run *r, const struct bench_case *bc, int calls)
{
	struct ldlat_config cfg;
	struct err err = {};
	int e;

	r->bc = bc;
	case_config(bc, &cfg, r->batch);
	r->dur = calloc(calls ? calls : 1, sizeof(*r->dur));
	if (!r->dur)
		return -ENOMEM;
	e = session__open(&r->sess, &cfg, SESSION_BENCH_ENTRY, &err);
	if (e) {
		fprintf(stderr, "ldlat-logic: %s\n", err.msg);
		return e;
	}
	r->open = true;
	return 0;
}

static void bench_run__close(struct bench_run *r)
{
	if (r->open)
		session__close(&r->sess);
	free(r->dur);
}

/* repeat runs of the program in one BPF_PROG_TEST_RUN; *ns: the kernel's mean per run. */
static int bench_run__call(struct bench_run *r, __u32 repeat, __u32 *ns)
{
	/* XDP test_run wants at least an Ethernet header's worth of packet */
	unsigned char tiny[14] = {};
	LIBBPF_OPTS(bpf_test_run_opts, opts, .repeat = repeat);
	int e;

	if (r->bc->expect == EXPECT_NONE) {
		opts.data_in = tiny;
		opts.data_size_in = sizeof(tiny);
	} else {
		opts.data_in = r->batch;
		opts.data_size_in = sizeof(r->batch);
	}
	if (bpf_prog_test_run_opts(bpf_program__fd(r->sess.skel->progs.ldlat_bench), &opts)) {
		e = -errno;
		fprintf(stderr, "ldlat-logic: BPF_PROG_TEST_RUN failed: %s\n", strerror(-e));
		return e;
	}
	r->runs += repeat;
	*ns = opts.duration;
	return 0;
}

/* Every sample reached the logic and ended as the case expects (the baseline: none did). */
static int bench_run__check(struct bench_run *r)
{
	struct snapshot snap = {};
	__u64 got, want = r->bc->expect == EXPECT_NONE ? 0 : r->runs * BATCH;
	int e;

	e = snapshot__init(&snap, r->sess.nranges);
	if (!e)
		e = session__read(&r->sess, &snap);
	if (e) {
		fprintf(stderr, "ldlat-logic: cannot read the maps: %s\n", strerror(-e));
		goto out;
	}
	got = case_count(r->bc, &snap.counters);
	if (got != want || snap.counters.seen != want) {
		fprintf(stderr, "ldlat-logic: '%s': %llu samples, %llu seen, %llu as expected\n",
			r->bc->name, (unsigned long long)want,
			(unsigned long long)snap.counters.seen, (unsigned long long)got);
		e = -EPROTO;
	}
out:
	snapshot__free(&snap);
	return e;
}

static double median_dbl(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_dbl);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

#define NCASES (ARRAY_SIZE(cases))

/* --serve: commands from stdin, one line each (see the top of the file). */
static int serve(struct bench_run *runs)
{
	char line[128];
	unsigned long i, repeat;
	__u32 ns;
	size_t c;
	int e = 0;

	for (c = 0; c < NCASES; c++)
		printf("case\t%s\n", cases[c].name);
	printf("ready\n");
	fflush(stdout);
	while (!e && fgets(line, sizeof(line), stdin)) {
		if (sscanf(line, "run %lu %lu", &i, &repeat) == 2 && i < NCASES && repeat &&
		    repeat <= 0xffffffffu) {
			e = bench_run__call(&runs[i], (__u32)repeat, &ns);
			if (!e)
				printf("%u\n", ns);
		} else if (!strcmp(line, "check\n")) {
			for (c = 0; c < NCASES && !e; c++)
				e = bench_run__check(&runs[c]);
			if (!e)
				printf("ok\n");
		} else {
			fprintf(stderr, "ldlat-logic: '%.*s' is not a command\n",
				(int)strcspn(line, "\n"), line);
			return 2;
		}
		fflush(stdout);
	}
	return e ? 1 : 0;
}

int main(int argc, char **argv)
{
	bool serving = argc == 2 && !strcmp(argv[1], "--serve");
	unsigned long repeat = argc > 1 && !serving ? strtoul(argv[1], NULL, 0) : 20000;
	int calls = argc > 2 ? atoi(argv[2]) : 41;
	struct bench_run runs[NCASES] = {};
	double *logic[NCASES] = {}, run_med[NCASES], med[NCASES];
	__u32 ns;
	int e = 0, call;
	size_t i;

	if (!serving && (argc > 3 || !repeat || repeat > 0xffffffffu || calls <= 0)) {
		fprintf(stderr, "usage: ldlat-logic [REPEAT [CALLS]] | --serve\n");
		return 2;
	}
	if (serving)
		calls = 0;
	for (i = 0; i < NCASES && !e; i++) {
		e = bench_run__open(&runs[i], &cases[i], calls);
		logic[i] = calloc(calls ? calls : 1, sizeof(double));
		if (!e && !logic[i])
			e = -ENOMEM;
	}
	if (!e && serving) {
		e = serve(runs);
		goto out;
	}
	/* a warm-up call each, then the cases in turn, so that drift touches them all */
	for (i = 0; i < NCASES && !e; i++)
		e = bench_run__call(&runs[i], (__u32)repeat, &ns);
	for (call = 0; call < calls && !e; call++)
		for (i = 0; i < NCASES && !e; i++) {
			e = bench_run__call(&runs[i], (__u32)repeat, &ns);
			runs[i].dur[call] = ns;
			logic[i][call] = (ns - runs[0].dur[call]) / (double)BATCH;
		}
	for (i = 0; i < NCASES && !e; i++)
		e = bench_run__check(&runs[i]);
	if (!e) {
		printf("case\tns_per_run\tmin\tmax\tns_logic\tns_logic_min\n");
		for (i = 0; i < NCASES; i++) {
			med[i] = median_dbl(logic[i], calls);
			run_med[i] = median_dbl(runs[i].dur, calls); /* sorts dur */
		}
		for (i = 0; i < NCASES; i++)
			printf("%s\t%.1f\t%.0f\t%.0f\t%.2f\t%.2f\n", cases[i].name, run_med[i],
			       runs[i].dur[0], runs[i].dur[calls - 1], med[i],
			       (runs[i].dur[0] - runs[0].dur[0]) / BATCH);
	}
	e = e ? 1 : 0;
out:
	for (i = 0; i < NCASES; i++) {
		bench_run__close(&runs[i]);
		free(logic[i]);
	}
	return e;
}
