// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ldlat-logic - the per-sample logic alone (ldlat_account: filter, classify,
 * bucket, count), timed in the kernel by BPF_PROG_TEST_RUN with repeat on
 * the program's benchmark entry, for configurations from no filter to all
 * of them.  Prints one line per case: its name, the mean time of one run
 * (median over the calls), the fastest and slowest call, and the median less
 * the cost of test_run itself (a packet too short to hold a sample: the
 * program returns at once).
 *
 *   ldlat-logic [REPEAT [CALLS]]  (default: 200000 runs of the program per
 *                                  call, median of 21 calls per case, the
 *                                  cases taking turns)
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

/* A load that hit local DRAM, 150 cycles. */
#define DS_LOCAL_RAM                                                                               \
	(((__u64)PERF_MEM_OP_LOAD << PERF_MEM_OP_SHIFT) |                                          \
	 ((__u64)(PERF_MEM_LVL_HIT | PERF_MEM_LVL_LOC_RAM) << PERF_MEM_LVL_SHIFT) |                \
	 ((__u64)PERF_MEM_SNOOP_HIT << PERF_MEM_SNOOP_SHIFT) |                                     \
	 ((__u64)PERF_MEM_LVLNUM_RAM << PERF_MEM_LVLNUM_SHIFT))
#define SAMPLE_LAT 150

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

static const struct bench_case cases[] = {
	{ "test_run alone (packet shorter than a sample)", 0, false, false, EXPECT_NONE },
	{ "no filter", 0, false, false, EXPECT_KEPT },
	{ "no filter, frequency mode (periods summed)", 0, false, false, EXPECT_KEPT, true },
	{ "no filter, split by CPU (--by cpu)", 0, false, false, EXPECT_KEPT, false, LDLAT_BY_CPU },
	{ "1 range", 1, false, false, EXPECT_KEPT },
	{ "16 ranges", 16, false, false, EXPECT_KEPT },
	{ "16 ranges, latency window, class set, loads only: kept", 16, true, false, EXPECT_KEPT },
	{ "16 ranges, latency window, class set, loads only: outside every range", 16, true, false,
	  EXPECT_OUTSIDE },
	{ "16 ranges, latency window, class set, loads only: class not asked for", 16, true, false,
	  EXPECT_CLASS },
	{ "16 ranges, address only (page faults): kept", 16, false, true, EXPECT_KEPT },
};

static void case_config(const struct bench_case *bc, struct ldlat_config *c, struct ldlat_sample *s)
{
	int i;

	memset(c, 0, sizeof(*c));
	memset(s, 0, sizeof(*s));
	for (i = 0; i < bc->nranges; i++) {
		c->span_lo[i] = SPAN_BASE + i * SPAN_STEP;
		c->span_hi[i] = c->span_lo[i] + SPAN_SIZE;
		c->span_range[i] = i;
	}
	c->nspans = bc->nranges;
	c->nranges = bc->nranges ? bc->nranges : 1;
	c->max_lat = ~0ull;
	c->class_mask = LDLAT_ALL_CLASSES;
	c->need = bc->addr_only ? LDLAT_HAS_ADDR : LDLAT_HAS_ADDR | LDLAT_HAS_LAT | LDLAT_HAS_DSRC;
	if (bc->all_filters) {
		c->min_lat = 20;
		c->max_lat = 5000;
		c->op_mask = PERF_MEM_OP_LOAD;
		c->class_mask = (1u << LDLAT_CLASS_L1) | (1u << LDLAT_CLASS_L3) |
				(1u << LDLAT_CLASS_LOCAL_HITM) |
				(1u << LDLAT_CLASS_REMOTE_RAM_1HOP);
		if (bc->expect != EXPECT_CLASS)
			c->class_mask |= 1u << LDLAT_CLASS_LOCAL_RAM;
	}
	/* in a range two thirds of the way up, or between two ranges */
	s->addr = SPAN_BASE + (bc->nranges * 2 / 3) * SPAN_STEP + 0x40;
	if (bc->expect == EXPECT_OUTSIDE)
		s->addr += SPAN_SIZE;
	s->flags = c->need;
	if (!bc->addr_only) {
		s->lat = SAMPLE_LAT;
		s->data_src = DS_LOCAL_RAM;
	}
	s->tgid = 1;
	s->period = 1000; /* a fixed period, as a sample of mem-loads -c 1000 carries */
	c->fixed_period = bc->freq ? 0 : s->period;
	c->by = bc->by;
	c->by_keys = bc->by ? (__u32)libbpf_num_possible_cpus() : 0;
}

/* The counter that must have counted every run. */
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

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

/* One case: its program, loaded with the case's configuration, and its timings. */
struct bench_run {
	const struct bench_case *bc;
	struct session sess;
	bool open;
	struct ldlat_sample sample;
	__u64 runs; /* of the program, in all */
	__u32 *dur; /* ns per run, one per call */
};

static int bench_run__open(struct bench_run *r, const struct bench_case *bc, int calls)
{
	struct ldlat_config cfg;
	struct err err = {};
	int e;

	r->bc = bc;
	case_config(bc, &cfg, &r->sample);
	r->dur = calloc(calls, sizeof(*r->dur));
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

/* repeat runs of the program in one BPF_PROG_TEST_RUN; the mean goes to dur[call]. */
static int bench_run__call(struct bench_run *r, __u32 repeat, int call)
{
	/* XDP test_run wants at least an Ethernet header's worth of packet */
	unsigned char tiny[14] = {};
	LIBBPF_OPTS(bpf_test_run_opts, opts, .repeat = repeat);
	int e;

	if (r->bc->expect == EXPECT_NONE) {
		opts.data_in = tiny;
		opts.data_size_in = sizeof(tiny);
	} else {
		opts.data_in = &r->sample;
		opts.data_size_in = sizeof(r->sample);
	}
	if (bpf_prog_test_run_opts(bpf_program__fd(r->sess.skel->progs.ldlat_bench), &opts)) {
		e = -errno;
		fprintf(stderr, "ldlat-logic: BPF_PROG_TEST_RUN failed: %s\n", strerror(-e));
		return e;
	}
	r->runs += repeat;
	if (call >= 0)
		r->dur[call] = opts.duration;
	return 0;
}

/* Every run reached the logic and ended as the case expects (the baseline: none did). */
static int bench_run__check(struct bench_run *r)
{
	struct snapshot snap = {};
	__u64 got, want = r->runs;
	int e;

	e = snapshot__init(&snap, r->sess.nranges);
	if (!e)
		e = session__read(&r->sess, &snap);
	if (e) {
		fprintf(stderr, "ldlat-logic: cannot read the maps: %s\n", strerror(-e));
		goto out;
	}
	got = case_count(r->bc, &snap.counters);
	if (r->bc->expect == EXPECT_NONE ? snap.counters.seen != 0
					 : got != want || snap.counters.seen != want) {
		fprintf(stderr, "ldlat-logic: '%s': %llu runs, %llu seen, %llu as expected\n",
			r->bc->name, (unsigned long long)want,
			(unsigned long long)snap.counters.seen, (unsigned long long)got);
		e = -EPROTO;
	}
out:
	snapshot__free(&snap);
	return e;
}

static double median_u32(__u32 *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_u32);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

#define NCASES (ARRAY_SIZE(cases))

int main(int argc, char **argv)
{
	unsigned long repeat = argc > 1 ? strtoul(argv[1], NULL, 0) : 200000;
	int calls = argc > 2 ? atoi(argv[2]) : 21;
	struct bench_run runs[NCASES] = {};
	double ns[NCASES];
	int e = 0, call;
	size_t i;

	if (argc > 3 || !repeat || repeat > 0xffffffffu || calls <= 0) {
		fprintf(stderr, "usage: ldlat-logic [REPEAT [CALLS]]\n");
		return 2;
	}
	for (i = 0; i < NCASES && !e; i++)
		e = bench_run__open(&runs[i], &cases[i], calls);
	/* a warm-up call each, then the cases in turn, so that drift touches them all */
	for (i = 0; i < NCASES && !e; i++)
		e = bench_run__call(&runs[i], (__u32)repeat, -1);
	for (call = 0; call < calls && !e; call++)
		for (i = 0; i < NCASES && !e; i++)
			e = bench_run__call(&runs[i], (__u32)repeat, call);
	for (i = 0; i < NCASES && !e; i++)
		e = bench_run__check(&runs[i]);
	if (!e) {
		printf("case\tns_per_run\tmin\tmax\tns_logic\n");
		for (i = 0; i < NCASES; i++)
			ns[i] = median_u32(runs[i].dur, calls); /* sorts dur */
		for (i = 0; i < NCASES; i++)
			printf("%s\t%.1f\t%u\t%u\t%.1f\n", cases[i].name, ns[i], runs[i].dur[0],
			       runs[i].dur[calls - 1], ns[i] - ns[0]);
	}
	for (i = 0; i < NCASES; i++)
		bench_run__close(&runs[i]);
	return e ? 1 : 0;
}
