// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * check_bpf - the verifier-checked BPF program against the native build of
 * the same logic: synthetic samples go through the program's test entry
 * (BPF_PROG_TEST_RUN on the raw_tp entry, the same code as the perf_event
 * entry after it has read the sample), and the maps must equal what the
 * native ldlat_judge()/ldlat_bucket() compute for the same samples.
 * Needs root.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bpf/ldlat.h"
#include "user/run/session.h"
#include "user/run/kbtf.h"
#include "user/top/topprog.h"
#include "user/report/snapshot.h"
#include "user/report/render.h"
#include "tests/lib/datasrc_cases.h"
#include "bpf/ldlat.skel.h"
#include "tests/lib/testutil.h"
#include "kernel/lib/util.h"

#define NSAMPLES 12000

static __u64 rng_state = 0x9e3779b97f4a7c15ull;

static __u64 rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* A sample that exercises every branch: in and out of ranges, every bucket,
 * every class, every op, fields missing, other processes. */
static void gen_sample(const struct ldlat_config *c, struct ldlat_sample *s)
{
	static const __u32 ops[] = { PERF_MEM_OP_LOAD,	PERF_MEM_OP_LOAD,   PERF_MEM_OP_LOAD,
				     PERF_MEM_OP_STORE, PERF_MEM_OP_PFETCH, PERF_MEM_OP_EXEC,
				     PERF_MEM_OP_NA };
	const struct ds_case *dc;
	__u64 r = rnd(), ds;
	int i;

	memset(s, 0, sizeof(*s));
	/* address: inside a span, at its edges, just outside, zero, or anywhere */
	switch (r % 6) {
	case 0:
	case 1:
		if (c->nspans) {
			i = rnd() % c->nspans;
			s->addr = c->span_lo[i] + rnd() % (c->span_hi[i] - c->span_lo[i]);
			break;
		}
		/* fall through */
	case 2:
		s->addr = rnd();
		break;
	case 3:
		if (c->nspans) {
			i = rnd() % c->nspans;
			s->addr = (rnd() & 1) ? c->span_hi[i] : c->span_lo[i] - (rnd() & 1);
		}
		break;
	case 4:
		s->addr = 0;
		break;
	default:
		s->addr = rnd() & 0xffffffffffull;
		break;
	}
	/* latency across all 65 log2 buckets, and small values often */
	i = rnd() % 66;
	s->lat = i == 65 ? rnd() % 300 : (i == 0 ? 0 : rnd() >> (64 - i));
	/* a data source the kernel emits, or random bits */
	if (rnd() % 5)
		ds = ds_value(rnd() % ds_nvalues(), &dc) & ~(__u64)0x1f;
	else
		ds = rnd() & ~(__u64)0x1f;
	s->data_src = ds | ops[rnd() % (ARRAY_SIZE(ops))];
	s->ip = rnd();
	s->tgid = 40 + rnd() % 4;
	s->flags = LDLAT_HAS_ADDR | LDLAT_HAS_LAT | LDLAT_HAS_DSRC;
	if (rnd() % 20 == 0)
		s->flags &= ~(1u << (rnd() % 3));
	s->period = rnd() % 3 ? 1000 : rnd() % 100000; /* fixed, or a frequency mode's */
}

/* The maps as BPF filled them equal the native model's counts (snapshot__account). */
static void snapshots_equal(const struct snapshot *got, const struct snapshot *want, __u32 nranges)
{
	__u32 idx;
	int k;

	ck_assert_mem_eq(&got->counters, &want->counters, sizeof(got->counters));
	for (idx = 0; idx < nranges * LDLAT_NCLASS; idx++) {
		for (k = 0; k < LDLAT_NBUCKETS; k++)
			ck_assert_msg(got->cells[idx].slot[k] == want->cells[idx].slot[k],
				      "range %u class %u bucket %d: BPF %llu, native %llu",
				      idx / LDLAT_NCLASS, idx % LDLAT_NCLASS, k,
				      (unsigned long long)got->cells[idx].slot[k],
				      (unsigned long long)want->cells[idx].slot[k]);
		ck_assert_uint_eq(got->cells[idx].count, want->cells[idx].count);
		ck_assert_uint_eq(got->cells[idx].sum, want->cells[idx].sum);
		ck_assert_uint_eq(got->cells[idx].unmeasured, want->cells[idx].unmeasured);
		ck_assert_uint_eq(got->cells[idx].period, want->cells[idx].period);
		ck_assert_uint_eq(got->cells[idx].min, want->cells[idx].min);
		ck_assert_uint_eq(got->cells[idx].max, want->cells[idx].max);
	}
}

static void run_samples(const struct ldlat_config *cfg)
{
	struct session sess;
	struct snapshot got, want;
	struct ldlat_sample s;
	struct err err = {};
	int i, fd;
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &s, .ctx_size_in = sizeof(s));

	ck_assert_msg(session__open(&sess, cfg, SESSION_TEST_ENTRY, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(snapshot__init(&got, cfg->nranges), 0);
	ck_assert_int_eq(snapshot__init(&want, cfg->nranges), 0);
	fd = session__test_fd(&sess);
	for (i = 0; i < NSAMPLES; i++) {
		gen_sample(cfg, &s);
		opts.retval = 1;
		ck_assert_int_eq(bpf_prog_test_run_opts(fd, &opts), 0);
		ck_assert_int_eq(opts.retval, 0); /* nothing for the ring buffer */
		snapshot__account(&want, cfg, &s);
	}
	ck_assert_int_eq(session__read(&sess, &got), 0);
	ck_assert_uint_eq(got.counters.seen, NSAMPLES);
	snapshots_equal(&got, &want, cfg->nranges);
	/* the samples reached every check the configuration turns on */
	ck_assert_uint_gt(want.counters.kept, 0);
	ck_assert_uint_gt(want.counters.fields_missing, 0);
	ck_assert(!cfg->ntgids || want.counters.tgid_filtered);
	ck_assert(!cfg->op_mask || want.counters.op_filtered);
	ck_assert(!cfg->nspans || (want.counters.no_address && want.counters.outside_ranges));
	ck_assert(!cfg->min_lat || want.counters.below_min);
	ck_assert(cfg->max_lat == ~0ull || want.counters.above_max);
	ck_assert(cfg->class_mask == LDLAT_ALL_CLASSES || want.counters.class_filtered);
	snapshot__free(&got);
	snapshot__free(&want);
	session__close(&sess);
}

START_TEST(test_no_filters)
{
	struct ldlat_config c = { .nranges = 1,
				  .max_lat = ~0ull,
				  .class_mask = LDLAT_ALL_CLASSES,
				  .need = LDLAT_HAS_ADDR | LDLAT_HAS_LAT | LDLAT_HAS_DSRC };

	run_samples(&c);
}
END_TEST

/* 16 ranges (20 spans), a latency window, a class set, loads only, two processes. */
static void all_filters_config(struct ldlat_config *cfg)
{
	struct ldlat_config c = { .min_lat = 20,
				  .max_lat = 5000,
				  .class_mask = (1u << LDLAT_CLASS_L1) | (1u << LDLAT_CLASS_L3) |
						(1u << LDLAT_CLASS_LOCAL_HITM) |
						(1u << LDLAT_CLASS_REMOTE_HITM) |
						(1u << LDLAT_CLASS_LOCAL_RAM) |
						(1u << LDLAT_CLASS_REMOTE_RAM_1HOP) |
						(1u << LDLAT_CLASS_UNKNOWN),
				  .op_mask = PERF_MEM_OP_LOAD,
				  .need = LDLAT_HAS_ADDR | LDLAT_HAS_LAT | LDLAT_HAS_DSRC,
				  .ntgids = 2,
				  .tgid = { 41, 43 } };
	int i;

	for (i = 0; i < 20; i++) {
		c.span_lo[i] = 0x7f0000000000ull + (__u64)i * 0x100000;
		c.span_hi[i] = c.span_lo[i] + 0x10000 + i * 0x1000;
		c.span_range[i] = i % 16;
	}
	c.nspans = 20;
	c.nranges = 16;
	*cfg = c;
}

START_TEST(test_all_filters)
{
	struct ldlat_config c;

	all_filters_config(&c);
	run_samples(&c);
}
END_TEST

/*
 * A fixed period (ldlat_config.fixed_period): the program sums no period,
 * neither in the counters nor in a histogram (the maps hold 0), and what
 * session__read gives equals the native model's sums all the same.
 */
START_TEST(test_fixed_period_not_summed)
{
	struct ldlat_config c;
	struct session sess;
	struct snapshot got, want;
	struct ldlat_sample s;
	struct ldlat_counters *cnt;
	struct ldlat_hist *vals;
	struct err err = {};
	__u32 zero = 0, idx;
	int i, cpu, fd;
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &s, .ctx_size_in = sizeof(s));

	all_filters_config(&c);
	c.fixed_period = 1000;
	ck_assert_msg(session__open(&sess, &c, SESSION_TEST_ENTRY, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(snapshot__init(&got, c.nranges), 0);
	ck_assert_int_eq(snapshot__init(&want, c.nranges), 0);
	fd = session__test_fd(&sess);
	for (i = 0; i < NSAMPLES; i++) {
		gen_sample(&c, &s);
		s.period = c.fixed_period;
		ck_assert_int_eq(bpf_prog_test_run_opts(fd, &opts), 0);
		snapshot__account(&want, &c, &s);
	}
	ck_assert_int_eq(session__read(&sess, &got), 0);
	snapshots_equal(&got, &want, c.nranges);
	ck_assert_uint_eq(got.counters.seen_period, (__u64)NSAMPLES * 1000);
	ck_assert_uint_gt(want.counters.kept, 0);
	/* the maps themselves: no period summed */
	cnt = calloc(sess.ncpus, sizeof(*cnt));
	vals = calloc(sess.ncpus, sizeof(*vals));
	ck_assert(cnt && vals);
	ck_assert_int_eq(bpf_map_lookup_elem(bpf_map__fd(sess.skel->maps.counters), &zero, cnt), 0);
	for (cpu = 0; cpu < sess.ncpus; cpu++)
		ck_assert_uint_eq(cnt[cpu].seen_period, 0);
	for (idx = 0; idx < c.nranges * LDLAT_NCLASS; idx++) {
		ck_assert_int_eq(
			bpf_map_lookup_elem(bpf_map__fd(sess.skel->maps.hists), &idx, vals), 0);
		for (cpu = 0; cpu < sess.ncpus; cpu++)
			ck_assert_uint_eq(vals[cpu].period, 0);
	}
	free(cnt);
	free(vals);
	snapshot__free(&got);
	snapshot__free(&want);
	session__close(&sess);
}
END_TEST

/* n test runs of sample s on cpu (BPF_F_TEST_RUN_ON_CPU), or where this task runs (cpu < 0). */
static void split_runs(int fd, struct ldlat_sample *s, int cpu, int n)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = s, .ctx_size_in = sizeof(*s));
	int i;

	if (cpu >= 0) {
		opts.flags = BPF_F_TEST_RUN_ON_CPU;
		opts.cpu = (__u32)cpu;
	}
	for (i = 0; i < n; i++)
		ck_assert_int_eq(bpf_prog_test_run_opts(fd, &opts), 0);
}

/* The kept samples of one split row (all ranges and classes). */
static __u64 split_row_count(const struct snapshot *s, __u32 row)
{
	__u32 i, base = ldlat_by_base(row, s->nranges);
	__u64 n = 0;

	for (i = 0; i < s->nranges * LDLAT_NCLASS; i++)
		n += s->cells[base + i].count;
	return n;
}

/*
 * --by in the program: by CPU, each CPU's samples in its own row; by
 * process, this process in a row of its own and, once the rows are used
 * up, another process in the others; combined with two ranges and the
 * classes, cell by cell.
 */
START_TEST(test_split_in_bpf)
{
	struct ldlat_config c = { .nranges = 2,
				  .nspans = 2,
				  .span_lo = { 0x1000, 0x9000 },
				  .span_hi = { 0x2000, 0xa000 },
				  .span_range = { 0, 1 },
				  .max_lat = ~0ull,
				  .class_mask = LDLAT_ALL_CLASSES,
				  .need = LDLAT_HAS_ADDR | LDLAT_HAS_LAT | LDLAT_HAS_DSRC };
	struct ldlat_sample s = { .addr = 0x1100,
				  .lat = 77,
				  .data_src = 0,
				  .flags = LDLAT_HAS_ADDR | LDLAT_HAS_LAT | LDLAT_HAS_DSRC,
				  .period = 1 };
	const struct ds_case *dc;
	__u32 cls;
	int ncpu = libbpf_num_possible_cpus(), fd, status;
	struct session sess;
	struct snapshot got;
	struct err err = {};
	pid_t child;

	s.data_src = ds_value(0, &dc);
	cls = ldlat_classify(s.data_src);
	/* by CPU: 3 samples in range 0 on CPU 0, 5 in range 1 on the last CPU */
	c.by = LDLAT_BY_CPU;
	c.by_keys = (__u32)ncpu;
	ck_assert_msg(session__open(&sess, &c, SESSION_TEST_ENTRY, &err) == 0, "%s", err.msg);
	fd = session__test_fd(&sess);
	split_runs(fd, &s, 0, 3);
	s.addr = 0x9100;
	split_runs(fd, &s, ncpu - 1, 5);
	ck_assert_int_eq(snapshot__init_by(&got, c.nranges, c.by, c.by_keys + 1), 0);
	ck_assert_int_eq(session__read(&sess, &got), 0);
	ck_assert_uint_eq(got.counters.kept, 8);
	if (ncpu > 1) {
		ck_assert_uint_eq(split_row_count(&got, 0), 3);
		ck_assert_uint_eq(got.cells[ldlat_by_base(0, 2) + ldlat_hist_index(0, cls)].count,
				  3);
		ck_assert_uint_eq(
			got.cells[ldlat_by_base(ncpu - 1, 2) + ldlat_hist_index(1, cls)].count, 5);
		ck_assert_uint_eq(split_row_count(&got, ncpu - 1), 5);
	}
	ck_assert(got.row_set[0] && got.row_key[0] == 0);
	ck_assert_uint_eq(split_row_count(&got, c.by_keys), 0); /* no others */
	snapshot__free(&got);
	session__close(&sess);

	/* by process, one row: this process has it, a child's samples are the others */
	c.by = LDLAT_BY_PID;
	c.by_keys = 1;
	s.addr = 0x1100;
	ck_assert_msg(session__open(&sess, &c, SESSION_TEST_ENTRY, &err) == 0, "%s", err.msg);
	fd = session__test_fd(&sess);
	split_runs(fd, &s, -1, 4);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (!child) {
		LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = &s, .ctx_size_in = sizeof(s));
		int i, bad = 0;

		for (i = 0; i < 6; i++)
			bad |= bpf_prog_test_run_opts(fd, &o);
		_exit(bad ? 1 : 0);
	}
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	split_runs(fd, &s, -1, 1);
	ck_assert_int_eq(snapshot__init_by(&got, c.nranges, c.by, c.by_keys + 1), 0);
	ck_assert_int_eq(session__read(&sess, &got), 0);
	ck_assert_uint_eq(got.counters.kept, 11);
	ck_assert(got.row_set[0]);
	ck_assert_uint_eq(got.row_key[0], (__u64)getpid());
	ck_assert_uint_eq(split_row_count(&got, 0), 5);
	ck_assert_uint_eq(split_row_count(&got, 1), 6); /* the others: the child's */
	ck_assert_uint_eq(got.cells[ldlat_by_base(1, 2) + ldlat_hist_index(0, cls)].count, 6);
	snapshot__free(&got);
	session__close(&sess);

	/* by memory region: MEM3 in row 3, a data source with none in the others */
	c.by = LDLAT_BY_REGION;
	c.by_keys = LDLAT_BY_REGIONS;
	ck_assert_msg(session__open(&sess, &c, SESSION_TEST_ENTRY, &err) == 0, "%s", err.msg);
	fd = session__test_fd(&sess);
	split_runs(fd, &s, -1, 2);
	s.data_src |= (__u64)(PERF_MEM_REGION_MEM0 + 3) << PERF_MEM_REGION_SHIFT;
	cls = ldlat_classify(s.data_src);
	split_runs(fd, &s, -1, 7);
	ck_assert_int_eq(snapshot__init_by(&got, c.nranges, c.by, c.by_keys + 1), 0);
	ck_assert_int_eq(session__read(&sess, &got), 0);
	ck_assert_uint_eq(split_row_count(&got, 3), 7);
	ck_assert_uint_eq(got.cells[ldlat_by_base(3, 2) + ldlat_hist_index(0, cls)].count, 7);
	ck_assert_uint_eq(split_row_count(&got, LDLAT_BY_REGIONS), 2);
	ck_assert(got.row_set[3] && got.row_key[3] == 3);
	snapshot__free(&got);
	session__close(&sess);
}
END_TEST

/* Linear buckets, and a source that carries only addresses (page faults). */
START_TEST(test_linear_and_address_only)
{
	struct ldlat_config c = { .nranges = 2,
				  .nspans = 2,
				  .span_lo = { 0x1000, 0x100000 },
				  .span_hi = { 0x80000, 0x7fffffffffffull },
				  .span_range = { 1, 0 },
				  .max_lat = ~0ull,
				  .class_mask = LDLAT_ALL_CLASSES,
				  .linear_step = 13,
				  .need = LDLAT_HAS_ADDR };

	run_samples(&c);
	c.need = LDLAT_HAS_ADDR | LDLAT_HAS_LAT | LDLAT_HAS_DSRC;
	c.op_mask = PERF_MEM_OP_LOAD | PERF_MEM_OP_STORE;
	c.linear_step = 0xffffffffu;
	run_samples(&c);
	/* powers of two: the program shifts (linear_shift, as config__fill sets it) */
	c.linear_step = 16;
	c.linear_shift = ldlat_linear_shift(16);
	ck_assert_uint_eq(c.linear_shift, 5);
	run_samples(&c);
	c.linear_step = 1;
	c.linear_shift = ldlat_linear_shift(1);
	run_samples(&c);
	c.linear_step = 0x80000000u;
	c.linear_shift = ldlat_linear_shift(0x80000000u);
	run_samples(&c);
}
END_TEST

/*
 * With linear_shift the program's buckets come from the shift, not the
 * division: a shift that disagrees with the step (8 for a step of 16) moves
 * a latency of 100 to bucket 12, where 100 / 16 would give 6.
 */
START_TEST(test_linear_shift_used)
{
	struct ldlat_config c = { .nranges = 1,
				  .max_lat = ~0ull,
				  .class_mask = LDLAT_ALL_CLASSES,
				  .linear_step = 16,
				  .linear_shift = ldlat_linear_shift(8),
				  .need = LDLAT_HAS_LAT };
	struct ldlat_sample s = { .lat = 100, .flags = LDLAT_HAS_LAT };
	struct session sess;
	struct snapshot got;
	struct err err = {};
	__u64 at12 = 0, total = 0;
	__u32 idx;
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &s, .ctx_size_in = sizeof(s));

	ck_assert_msg(session__open(&sess, &c, SESSION_TEST_ENTRY, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(snapshot__init(&got, 1), 0);
	ck_assert_int_eq(bpf_prog_test_run_opts(session__test_fd(&sess), &opts), 0);
	ck_assert_int_eq(session__read(&sess, &got), 0);
	for (idx = 0; idx < LDLAT_NCLASS; idx++) {
		at12 += got.cells[idx].slot[12];
		total += got.cells[idx].count;
	}
	ck_assert_uint_eq(total, 1);
	ck_assert_uint_eq(at12, 1);
	snapshot__free(&got);
	session__close(&sess);
}
END_TEST

/*
 * Every data_src value a platform's kernel emits lands in its expected class
 * in BPF (the test entry) and in the native build of the same header, and
 * the maps equal the native model's counts.
 */
START_TEST(test_platform_classes_in_bpf)
{
	const struct ds_platform *p = &ds_platforms[_i];
	struct ldlat_config c = { .nranges = 1,
				  .max_lat = ~0ull,
				  .class_mask = LDLAT_ALL_CLASSES,
				  .need = LDLAT_HAS_LAT | LDLAT_HAS_DSRC };
	struct ldlat_sample s = { .flags = LDLAT_HAS_LAT | LDLAT_HAS_DSRC };
	__u64 want[LDLAT_NCLASS] = {}, sum[LDLAT_NCLASS] = {};
	const struct ds_case *dc;
	struct session sess;
	struct snapshot got, model;
	struct err err = {};
	unsigned int i, cls;
	__u32 range, ncls;
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &s, .ctx_size_in = sizeof(s));

	ck_assert_msg(session__open(&sess, &c, SESSION_TEST_ENTRY, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(snapshot__init(&got, 1), 0);
	ck_assert_int_eq(snapshot__init(&model, 1), 0);
	for (i = 0; i < ds_platform__nvalues(p); i++) {
		s.data_src = ds_platform__value(p, i, &dc);
		s.lat = i; /* the latency names the value: one sample per bucket sum */
		ck_assert_int_eq(bpf_prog_test_run_opts(session__test_fd(&sess), &opts), 0);
		want[dc->cls]++;
		sum[dc->cls] += i;
		ck_assert_msg(ldlat_judge(&c, &s, &range, &ncls) == LDLAT_KEPT && ncls == dc->cls,
			      "%s %s natively: class %u", p->name, dc->what, ncls);
		snapshot__account(&model, &c, &s);
	}
	ck_assert_int_eq(session__read(&sess, &got), 0);
	ck_assert_uint_eq(got.counters.seen, ds_platform__nvalues(p));
	for (cls = 0; cls < LDLAT_NCLASS; cls++) {
		ck_assert_msg(got.cells[cls].count == want[cls],
			      "%s class %u: BPF %llu, expected %llu", p->name, cls,
			      (unsigned long long)got.cells[cls].count,
			      (unsigned long long)want[cls]);
		ck_assert_uint_eq(got.cells[cls].sum, sum[cls]);
	}
	snapshots_equal(&got, &model, 1);
	snapshot__free(&got);
	snapshot__free(&model);
	session__close(&sess);
}
END_TEST

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* n latencies of one of several shapes: narrow, wide, two modes, one value, heavy tail. */
static void gen_latencies(int shape, __u64 *lat, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		switch (shape) {
		case 0: /* L1-like: 4..12 */
			lat[i] = 4 + rnd() % 9;
			break;
		case 1: /* anywhere below the open bucket */
			lat[i] = 1 + rnd() % ((1u << LDLAT_LAT_BITS) - 1);
			break;
		case 2: /* L3 hits and DRAM */
			lat[i] = rnd() % 4 ? 40 + rnd() % 30 : 250 + rnd() % 400;
			break;
		case 3:
			lat[i] = 77;
			break;
		default: /* every power of two equally, some above the buckets */
			lat[i] = 1 + (rnd() >> (64 - 1 - rnd() % 24));
			break;
		}
	}
}

/*
 * Percentiles read from what the program counted (test entry, per-CPU
 * maps, summed) against the exact nearest-rank percentiles of the sorted
 * latencies: within LDLAT_REL_ERROR and never outside the exact min and max;
 * the maps' min and max are exact.
 */
static void check_percentiles(const struct cell *c, __u64 *lat, int n)
{
	static const double ps[] = { 0.1, 1, 10, 25, 50, 75, 90, 99, 99.9, 100 };
	unsigned int i;
	double got, want;
	bool at_least;
	size_t rank;

	qsort(lat, n, sizeof(*lat), cmp_u64);
	ck_assert_uint_eq(cell__measured(c), (unsigned)n);
	ck_assert_uint_eq(c->min, lat[0]);
	ck_assert_uint_eq(c->max, lat[n - 1]);
	for (i = 0; i < ARRAY_SIZE(ps); i++) {
		rank = (size_t)ceil(ps[i] / 100.0 * n);
		want = (double)lat[(rank ? rank : 1) - 1];
		got = cell__percentile_floor(c, ps[i], 0, &at_least);
		ck_assert_msg(got >= (double)lat[0] && got <= (double)lat[n - 1],
			      "p%g %.1f outside [%llu, %llu]", ps[i], got,
			      (unsigned long long)lat[0], (unsigned long long)lat[n - 1]);
		if (at_least) { /* above the buckets: a floor, no closer than that */
			ck_assert(want >= got && got >= (double)(1u << LDLAT_LAT_BITS));
			continue;
		}
		ck_assert_msg(fabs(got - want) <= LDLAT_REL_ERROR * want,
			      "p%g: %.1f, exact %.0f: off by %.3f%%", ps[i], got, want,
			      fabs(got - want) / want * 100);
	}
}

START_TEST(test_percentiles_in_bpf)
{
	struct ldlat_config c = { .nranges = 1,
				  .max_lat = ~0ull,
				  .class_mask = LDLAT_ALL_CLASSES,
				  .need = LDLAT_HAS_LAT | LDLAT_HAS_DSRC };
	struct ldlat_sample s = { .flags = LDLAT_HAS_LAT | LDLAT_HAS_DSRC, .period = 1 };
	int shape, i, n;
	__u64 lat[3000];
	struct session sess;
	struct snapshot got, model;
	struct err err = {};
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &s, .ctx_size_in = sizeof(s));

	for (shape = 0; shape < 5; shape++) {
		n = shape == 3 ? 1 : 1 + (int)(rnd() % ARRAY_SIZE(lat));
		gen_latencies(shape, lat, n);
		ck_assert_msg(session__open(&sess, &c, SESSION_TEST_ENTRY, &err) == 0, "%s",
			      err.msg);
		ck_assert_int_eq(snapshot__init(&got, 1), 0);
		ck_assert_int_eq(snapshot__init(&model, 1), 0);
		for (i = 0; i < n; i++) {
			s.lat = lat[i];
			ck_assert_int_eq(bpf_prog_test_run_opts(session__test_fd(&sess), &opts), 0);
			snapshot__account(&model, &c, &s);
		}
		ck_assert_int_eq(session__read(&sess, &got), 0);
		snapshots_equal(&got, &model, 1);
		/* data_src 0: every sample is of the unknown class */
		check_percentiles(&got.cells[LDLAT_CLASS_UNKNOWN], lat, n);
		if (shape == 3) {
			ck_assert_double_eq(cell__percentile(&got.cells[0], 50, 0), 77);
			ck_assert_double_eq(cell__percentile(&got.cells[0], 90, 0), 77);
		}
		snapshot__free(&got);
		snapshot__free(&model);
		session__close(&sess);
	}
}
END_TEST

/*
 * A sample without a measured latency (weight 0: what perf_prepare_sample()
 * fills for a field the driver left out, an IBS L1 hit) is counted in its
 * class, and in no bucket, sum, min or percentile; with a latency window it
 * is dropped as missing that field.
 */
START_TEST(test_unmeasured_in_bpf)
{
	struct ldlat_config c = { .nranges = 1,
				  .max_lat = ~0ull,
				  .class_mask = LDLAT_ALL_CLASSES,
				  .need = LDLAT_HAS_LAT | LDLAT_HAS_DSRC };
	struct ldlat_sample s = { .flags = LDLAT_HAS_LAT | LDLAT_HAS_DSRC, .period = 3 };
	struct session sess;
	struct snapshot got;
	struct err err = {};
	int pass, k;
	__u64 slots;
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &s, .ctx_size_in = sizeof(s));

	for (pass = 0; pass < 2; pass++) {
		c.min_lat = pass; /* the second pass: a window */
		ck_assert_msg(session__open(&sess, &c, SESSION_TEST_ENTRY, &err) == 0, "%s",
			      err.msg);
		ck_assert_int_eq(snapshot__init(&got, 1), 0);
		s.lat = 0; /* flagged, zero: not measured */
		ck_assert_int_eq(bpf_prog_test_run_opts(session__test_fd(&sess), &opts), 0);
		s.flags = LDLAT_HAS_DSRC; /* not flagged */
		ck_assert_int_eq(bpf_prog_test_run_opts(session__test_fd(&sess), &opts), 0);
		s.flags = LDLAT_HAS_LAT | LDLAT_HAS_DSRC;
		s.lat = 200;
		ck_assert_int_eq(bpf_prog_test_run_opts(session__test_fd(&sess), &opts), 0);
		ck_assert_int_eq(session__read(&sess, &got), 0);
		for (slots = 0, k = 0; k < LDLAT_NBUCKETS; k++)
			slots += got.cells[0].slot[k];
		ck_assert_uint_eq(slots, 1);
		ck_assert_uint_eq(got.cells[0].sum, 200);
		ck_assert_uint_eq(got.cells[0].min, 200);
		ck_assert_double_eq(cell__percentile(&got.cells[0], 50, 0), 200);
		if (!pass) {
			ck_assert_uint_eq(got.counters.kept, 3);
			ck_assert_uint_eq(got.cells[0].count, 3);
			ck_assert_uint_eq(got.cells[0].unmeasured, 2);
			ck_assert_uint_eq(got.cells[0].period, 9);
		} else {
			ck_assert_uint_eq(got.counters.kept, 1);
			ck_assert_uint_eq(got.counters.fields_missing, 2);
			ck_assert_uint_eq(got.cells[0].unmeasured, 0);
		}
		ck_assert_uint_eq(got.counters.seen_period, 9);
		snapshot__free(&got);
		session__close(&sess);
	}
}
END_TEST

/* The map cells carry their labels, for bpftool and anyone reading them raw. */
START_TEST(test_cell_labels)
{
	struct ldlat_config c = { .nranges = 3, .max_lat = ~0ull, .class_mask = LDLAT_ALL_CLASSES };
	struct session sess;
	struct ldlat_hist *vals;
	struct err err = {};
	__u32 idx;
	int cpu;

	ck_assert_msg(session__open(&sess, &c, 0, &err) == 0, "%s", err.msg);
	vals = calloc(sess.ncpus, sizeof(*vals));
	for (idx = 0; idx < 3 * LDLAT_NCLASS; idx++) {
		ck_assert_int_eq(
			bpf_map_lookup_elem(bpf_map__fd(sess.skel->maps.hists), &idx, vals), 0);
		for (cpu = 0; cpu < sess.ncpus; cpu++) {
			ck_assert_uint_eq(vals[cpu].range, idx / LDLAT_NCLASS);
			ck_assert_uint_eq(vals[cpu].class, idx % LDLAT_NCLASS);
		}
	}
	ck_assert_uint_eq(bpf_map__max_entries(sess.skel->maps.hists), 3 * LDLAT_NCLASS);
	free(vals);
	session__close(&sess);
}
END_TEST

/*
 * The benchmark entry (XDP, for test_run with repeat) runs the same logic:
 * 'repeat' runs on a sample count it that many times, as natively; a packet
 * too short for a sample counts nothing.  The tools never load it.
 */
START_TEST(test_bench_entry)
{
	unsigned char tiny[14] = {};
	struct ldlat_config c;
	struct ldlat_sample s;
	struct session sess;
	struct snapshot got, want;
	struct err err = {};
	int i, r, fd;
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = &s, .data_size_in = sizeof(s), .repeat = 3);

	all_filters_config(&c);
	ck_assert_msg(session__open(&sess, &c, SESSION_BENCH_ENTRY, &err) == 0, "%s", err.msg);
	ck_assert_int_lt(session__test_fd(&sess), 0);
	fd = bpf_program__fd(sess.skel->progs.ldlat_bench);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(snapshot__init(&got, c.nranges), 0);
	ck_assert_int_eq(snapshot__init(&want, c.nranges), 0);
	for (i = 0; i < NSAMPLES / 4; i++) {
		gen_sample(&c, &s);
		ck_assert_int_eq(bpf_prog_test_run_opts(fd, &opts), 0);
		ck_assert_int_eq(opts.retval, XDP_PASS);
		for (r = 0; r < 3; r++)
			snapshot__account(&want, &c, &s);
	}
	opts.data_in = tiny;
	opts.data_size_in = sizeof(tiny);
	ck_assert_int_eq(bpf_prog_test_run_opts(fd, &opts), 0);
	ck_assert_int_eq(session__read(&sess, &got), 0);
	ck_assert_uint_eq(got.counters.seen, 3 * (NSAMPLES / 4));
	snapshots_equal(&got, &want, c.nranges);
	snapshot__free(&got);
	snapshot__free(&want);
	session__close(&sess);

	ck_assert_msg(session__open(&sess, &c, 0, &err) == 0, "%s", err.msg);
	ck_assert_int_lt(bpf_program__fd(sess.skel->progs.ldlat_bench), 0);
	session__close(&sess);
}
END_TEST

/* The program for kernels before 6.3 passes the verifier too. */
START_TEST(test_address_only_program_loads)
{
	struct ldlat_config c = { .nranges = 1,
				  .max_lat = ~0ull,
				  .class_mask = LDLAT_ALL_CLASSES,
				  .need = LDLAT_HAS_ADDR,
				  .nspans = 1,
				  .span_lo = { 1 },
				  .span_hi = { 2 } };
	struct session sess;
	struct err err = {};

	ck_assert_msg(session__open(&sess, &c, SESSION_ADDR_ONLY, &err) == 0, "%s", err.msg);
	ck_assert_int_ge(bpf_program__fd(sess.skel->progs.ldlat_sample_addr), 0);
	ck_assert_int_lt(bpf_program__fd(sess.skel->progs.ldlat_sample), 0);
	session__close(&sess);
}
END_TEST

/* ---- ldlat-top's tables ---------------------------------------------------- */

/* Samples with few distinct keys: 4 processes, 24 IPs, addresses over 16 KiB. */
static void gen_top_sample(struct ldlat_sample *s)
{
	gen_sample(&(struct ldlat_config){ 0 }, s);
	s->ip = 0x401000 + (rnd() % 24) * 0x10;
	if (rnd() % 8 == 0)
		s->ip |= 0xffffffff81000000ull; /* kernel IPs count too */
	s->addr = 0x7f0000000000ull + rnd() % 16384;
}

/* The native build's tables for the same samples, with a kernel table of 'entries' keys. */
static void model_top(const struct ldlat_config *c, const struct ldlat_sample *s,
		      struct top_table *ip, struct top_table *data)
{
	__u32 range = 0, cls = 0;

	if (ldlat_judge(c, s, &range, &cls) != LDLAT_KEPT)
		return;
	/* a new key that finds no room is not attributed, but counted */
	ck_assert_int_eq(top_tables__add(ip, data, c, s, cls), 0);
}

/* Slots of the model's front a key took. */
static size_t front_taken(const struct top_table *t)
{
	size_t i, n = 0;

	for (i = 0; t->front && i < (size_t)1 << t->front_bits; i++)
		n += t->front[i].taken;
	return n;
}

static void tables_equal(const struct top_table *got, const struct top_table *want)
{
	struct ldlat_top_val gv, wv;
	const struct top_entry *g;
	size_t i;

	ck_assert_uint_eq(got->n, want->n);
	ck_assert_msg(got->full == want->full && !got->failed,
		      "full: got %llu (and %llu failed), want %llu", (unsigned long long)got->full,
		      (unsigned long long)got->failed, (unsigned long long)want->full);
	for (i = 0; i < want->n; i++) {
		g = top_table__find(got, want->e[i].tgid, want->e[i].addr);
		ck_assert_msg(g, "key (%u, 0x%llx) missing from the BPF table", want->e[i].tgid,
			      (unsigned long long)want->e[i].addr);
		top_table__val(got, g, &gv);
		top_table__val(want, &want->e[i], &wv);
		ck_assert_mem_eq(&gv, &wv, sizeof(gv));
	}
}

/* Runs n samples through the test entry and the model (counters and histograms into want). */
static void top_batch(struct session *sess, const struct ldlat_config *c, int n,
		      struct top_table *ip, struct top_table *data, struct snapshot *want)
{
	struct ldlat_sample s;
	int i;
	/* the fronts and batches are each CPU's, the model's of one: every run on one CPU */
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &s, .ctx_size_in = sizeof(s),
		    .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = 0);

	for (i = 0; i < n; i++) {
		gen_top_sample(&s);
		if (!(c->need & LDLAT_HAS_LAT))
			s.lat = 0; /* a source without latency (page faults) gives none */
		ck_assert_int_eq(bpf_prog_test_run_opts(session__test_fd(sess), &opts), 0);
		model_top(c, &s, ip, data);
		if (want)
			snapshot__account(want, c, &s);
	}
}

/*
 * Both tables against the native model, over two drain generations (each
 * drain moves exactly its generation's samples), with filters on, lines of
 * 64 bytes; then with pages and an IP table too small (_i = 1: 128 entries,
 * a front of 2 slots): the samples of keys that found it full come through
 * the spill ring, or take a free front slot, and every kept sample is
 * accounted.  The drained counters and histograms (ldlat-top's
 * program keeps them per generation, not in 'counters') equal the model's
 * after each drain, and the generation's half of 'hists' is zeroed for the
 * one after next.  _i = 2: the same for a source of addresses alone (page
 * faults: no latency, no data source, an address range the filter), whose
 * tables keep a count alone per key (8 bytes a CPU, ldlat_top_slim), and
 * whose data keys all go through the ring (LDLAT_TOP_DATA_RING); the drain
 * gives the same values the model's full ones hold.  The model keeps the
 * data table's door and the IP table's front as the program does (on one
 * CPU): which samples spill is the same, sample for sample, and the drain
 * adds the front's slots to the table.
 */
START_TEST(test_top_tables)
{
	bool slim = _i == 2;
	struct ldlat_config c = {
		.nranges = 1,
		.max_lat = 1ull << 40,
		.min_lat = slim ? 0 : 3,
		.class_mask = LDLAT_ALL_CLASSES & ~(1u << LDLAT_CLASS_L2),
		.op_mask = slim ? 0 : PERF_MEM_OP_LOAD,
		.need = slim ? LDLAT_HAS_ADDR : LDLAT_HAS_ADDR | LDLAT_HAS_LAT | LDLAT_HAS_DSRC,
		/* page faults' data keys go through the ring, as ldlat-top sets */
		.top = LDLAT_TOP_IP | LDLAT_TOP_DATA | (slim ? LDLAT_TOP_DATA_RING : 0),
		.top_shift = _i ? 12 : 6,
		.top_entries = _i ? 128 : 4096
	};
	struct top_table got_ip, got_data, want_ip, want_data;
	struct top_sink sink;
	struct snapshot want, run;
	struct session sess;
	struct err err = {};
	__u64 kept;
	int gen;

	if (slim) { /* half the addresses gen_top_sample makes */
		c.nspans = 1;
		c.span_lo[0] = 0x7f0000000000ull;
		c.span_hi[0] = 0x7f0000000000ull + 8192;
	}
	ck_assert_msg(top_session__open(&sess, &c, SESSION_TEST_ENTRY, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(bpf_map__max_entries(sess.skel->maps.top_ip), c.top_entries);
	ck_assert_uint_eq(bpf_map__max_entries(sess.skel->maps.top_data), slim ? 1 : c.top_entries);
	ck_assert_uint_eq(bpf_map__value_size(sess.skel->maps.top_ip),
			  slim ? sizeof(__u64) : sizeof(struct ldlat_top_val));
	ck_assert_uint_eq(bpf_map__value_size(sess.skel->maps.top_data),
			  bpf_map__value_size(sess.skel->maps.top_ip));
	ck_assert_uint_eq(bpf_map__max_entries(sess.skel->maps.top_spill), _i ? 1 << 20 : 4 << 20);
	ck_assert_uint_eq(bpf_map__max_entries(sess.skel->maps.hists), 2 * LDLAT_NCLASS);
	/* a front slot per 64 entries, at most 64 */
	ck_assert_uint_eq(sess.skel->rodata->top_front_bits, _i ? 1 : LDLAT_TOP_FRONT_BITS);
	ck_assert_uint_eq(bpf_map__max_entries(sess.skel->maps.top_front),
			  LDLAT_TOP_FRONTS * 2 << sess.skel->rodata->top_front_bits);
	ck_assert_int_eq(snapshot__init(&want, 1), 0);
	ck_assert_int_eq(snapshot__init(&run, 1), 0);
	for (gen = 0; gen < 2; gen++) {
		top_table__init(&got_ip);
		top_table__init(&got_data);
		top_table__init(&want_ip);
		top_table__init(&want_data);
		/* the model keeps the IP table's front as the program does */
		want_ip.front_bits = sess.skel->rodata->top_front_bits;
		snapshot__clear(&want);
		ck_assert_int_eq(top_sink__open(&sink, &sess, &got_ip, &got_data), 0);
		top_batch(&sess, &c, NSAMPLES / 2, &want_ip, &want_data, &want);
		/* some keys went to the front, not the table */
		ck_assert_uint_gt(front_taken(&want_ip), 0);
		ck_assert_int_eq(top_sink__drain(&sink, &sess, false), 0);
		tables_equal(&got_ip, &want_ip);
		tables_equal(&got_data, &want_data);
		ck_assert_uint_eq(got_ip.spilled, want_ip.spilled);
		ck_assert_uint_eq(got_data.spilled, want_data.spilled);
		ck_assert_uint_eq(sess.skel->bss->top_gen, gen + 1);
		/* the IP table (192 keys) overflows 128 entries, the ring takes the rest */
		ck_assert(!_i || (want_ip.spilled > 0 && !want_ip.full));
		ck_assert(_i || !want_ip.spilled);
		/* the first sample of a data key goes through the ring (ldlat_top_door); all, slim */
		ck_assert_uint_gt(want_data.spilled, 0);
		ck_assert(!slim || want_data.spilled == top_table__samples(&want_data));
		/* the generation's counters and histograms, as the model counts them */
		snapshots_equal(&sink.drained, &want, 1);
		ck_assert_uint_eq(sink.drained.counters.seen, NSAMPLES / 2);
		ck_assert_uint_gt(want.counters.below_min + want.counters.class_filtered +
					  want.counters.outside_ranges,
				  0);
		/* every kept sample is in a table or counted as not attributed */
		kept = sink.drained.counters.kept;
		ck_assert_uint_eq(kept, top_table__samples(&want_ip) + want_ip.full);
		ck_assert_uint_eq(top_table__samples(&got_ip) + got_ip.full, kept);
		ck_assert_uint_eq(top_table__samples(&got_data) + got_data.full, kept);
		ck_assert_uint_gt(kept, 0);
		ck_assert_uint_lt(kept, NSAMPLES / 2);
		/* ldlat-hist's counters are not ldlat-top's */
		ck_assert_int_eq(session__read(&sess, &run), 0);
		ck_assert_uint_eq(run.counters.seen, 0);
		top_sink__close(&sink);
		top_table__free(&got_ip);
		top_table__free(&got_data);
		top_table__free(&want_ip);
		top_table__free(&want_data);
	}
	snapshot__free(&want);
	snapshot__free(&run);
	session__close(&sess);
}
END_TEST

/* The keys of the stack map. */
static size_t stack_keys(struct session *sess, __u64 *keys, size_t max)
{
	int fd = bpf_map__fd(sess->skel->maps.top_stacks);
	__u64 *prev = NULL;
	size_t n = 0;

	while (n < max && !bpf_map_get_next_key(fd, prev, &keys[n])) {
		prev = &keys[n];
		n++;
	}
	return n;
}

/* The stack map holds exactly the paths of the table's entries, each of parity 'parity'. */
static void stack_keys_are(struct session *sess, const struct top_table *t, __u32 parity)
{
	__u64 keys[64];
	size_t n = stack_keys(sess, keys, 64), i, j;
	bool found;

	ck_assert_uint_gt(n, 0);
	for (i = 0; i < n; i++) {
		ck_assert_uint_eq(keys[i] & 1, parity);
		for (j = 0, found = false; j < t->n && !found; j++)
			found = t->e[j].addr == keys[i];
		ck_assert_msg(found, "path 0x%llx in no entry", (unsigned long long)keys[i]);
	}
	for (j = 0; j < t->n; j++) {
		for (i = 0, found = false; i < n && !found; i++)
			found = t->e[j].addr == keys[i];
		ck_assert_msg(found, "entry's path 0x%llx not in the map",
			      (unsigned long long)t->e[j].addr);
	}
}

/*
 * The call-path table (--call-graph) through the test entry: each kept
 * sample is counted under (process, path key), with the stacks
 * bpf_get_stack took of the BPF_PROG_TEST_RUN call (a raw_tp program may
 * take them too) stored once per generation under that key; the table sums
 * to the generation's kept samples, every key it holds reads back from the
 * stack map, a kernel stack, and is the native ldlat_top_stack_key of what
 * it reads (the parity of generation 0).  Forgetting parity 0 empties the
 * map; the next generation stores its path again, under parity 1.
 */
START_TEST(test_top_stacks)
{
	struct ldlat_config c = { .nranges = 1,
				  .max_lat = ~0ull,
				  .class_mask = LDLAT_ALL_CLASSES,
				  .need = LDLAT_HAS_ADDR,
				  .top = LDLAT_TOP_IP | LDLAT_TOP_STACK,
				  .top_shift = 6,
				  .top_entries = 4096 };
	struct top_table got_ip, got_stack, want_ip, want_data;
	struct ldlat_top_stack st, raw;
	struct top_sink sink;
	struct session sess;
	struct err err = {};
	__u64 keys[64];
	size_t i, n;
	int stacks_fd, k;

	ck_assert_msg(top_session__open(&sess, &c, SESSION_TEST_ENTRY, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(bpf_map__max_entries(sess.skel->maps.top_stack), 4096);
	ck_assert_uint_eq(bpf_map__max_entries(sess.skel->maps.top_stacks),
			  ldlat_top_stacks_for(4096));
	ck_assert_uint_eq(ldlat_top_stacks_for(4096), 8192);
	top_table__init(&got_ip);
	top_table__init(&got_stack);
	top_table__init(&want_ip);
	top_table__init(&want_data);
	ck_assert_int_eq(top_sink__open(&sink, &sess, &got_ip, NULL), 0);
	sink.stack = &got_stack;
	top_batch(&sess, &c, 500, &want_ip, &want_data, NULL);
	ck_assert_int_eq(top_sink__drain(&sink, &sess, false), 0);
	ck_assert_uint_gt(sink.drained.counters.kept, 0);
	ck_assert_uint_eq(top_table__samples(&got_ip), sink.drained.counters.kept);
	ck_assert_uint_eq(top_table__samples(&got_stack) + got_stack.full + got_stack.failed,
			  sink.drained.counters.kept);
	ck_assert_uint_gt(got_stack.n, 0);
	stacks_fd = bpf_map__fd(sess.skel->maps.top_stacks);
	for (i = 0; i < got_stack.n; i++) {
		__u64 key = got_stack.e[i].addr;

		ck_assert_msg(key != LDLAT_TOP_STACK_FULL && key != LDLAT_TOP_STACK_FAILED,
			      "path not stored: 0x%llx", (unsigned long long)key);
		ck_assert_int_eq(top_session__stack(&sess, key, &st), 0);
		ck_assert_int_eq(st.err[1], 0);
		ck_assert_uint_gt(st.nr[1], 0);
		ck_assert_uint_ge(st.ips[1][0], 0xffff800000000000ull);
		/*
		 * the key hashes the path as the program stored it; the path read
		 * back ends each stack at its first IP of 0 (a frame-pointer walk
		 * into a zeroed frame goes on with zeros: an ASan build's does)
		 */
		ck_assert_int_eq(bpf_map_lookup_elem(stacks_fd, &key, &raw), 0);
		ck_assert_uint_eq(ldlat_top_stack_key(&raw, 0), key);
		for (k = 0; k < 2; k++) {
			ck_assert_uint_le(st.nr[k], raw.nr[k]);
			ck_assert(!memcmp(st.ips[k], raw.ips[k], st.nr[k] * sizeof(st.ips[k][0])));
			if (st.nr[k] < raw.nr[k] && st.nr[k] < LDLAT_STACK_DEPTH)
				ck_assert_uint_eq(raw.ips[k][st.nr[k]], 0);
		}
	}
	/* the entries' paths, under generation 0's parity; forgetting the other keeps them */
	stack_keys_are(&sess, &got_stack, 0);
	n = stack_keys(&sess, keys, 64);
	ck_assert_int_eq(top_session__forget_stacks(&sess, 1), 0);
	ck_assert_uint_eq(stack_keys(&sess, keys, 64), n);
	ck_assert_int_eq(top_session__forget_stacks(&sess, 0), 0);
	ck_assert_uint_eq(stack_keys(&sess, keys, 64), 0);
	/* the next generation stores its paths again, under its own parity */
	top_table__reset(&got_ip);
	top_table__reset(&got_stack);
	top_batch(&sess, &c, 50, &want_ip, &want_data, NULL);
	ck_assert_int_eq(top_sink__drain(&sink, &sess, false), 0);
	stack_keys_are(&sess, &got_stack, 1);
	top_sink__close(&sink);
	top_table__free(&got_ip);
	top_table__free(&got_stack);
	top_table__free(&want_ip);
	top_table__free(&want_data);
	session__close(&sess);
}
END_TEST

/* The value of key (42, ip) in table t, which must hold it. */
static struct ldlat_top_val ip_val(const struct top_table *t, __u64 ip)
{
	const struct top_entry *e = top_table__find(t, 42, ip);
	struct ldlat_top_val v;

	ck_assert_msg(e, "IP 0x%llx not in the table", (unsigned long long)ip);
	top_table__val(t, e, &v);
	return v;
}

/*
 * A table of one entry (and no front) and the smallest ring (1 MiB: 1351
 * batches of 32 records, 776 bytes each with the ring's header, as the
 * kernel keeps its producer under a ring's size ahead): of 50000 samples of
 * 50000 IPs, 1 takes the entry, 49999 go to the CPU's batch: 1562 batches
 * fill, of which the ring takes 1351 (43232 spilled) and 211 are counted as
 * not attributed (6752); the drain takes the 15 records of the batch that
 * did not fill (spilled too), and empties the ring and the batch for the
 * next, whose first batch wraps the ring's end.
 */
START_TEST(test_top_spill_full)
{
	struct ldlat_config c = { .nranges = 1,
				  .max_lat = ~0ull,
				  .class_mask = LDLAT_ALL_CLASSES,
				  .need = LDLAT_HAS_LAT,
				  .top = LDLAT_TOP_IP,
				  .top_entries = 1 };
	struct ldlat_sample s = { .tgid = 42, .lat = 1ull << 40, .flags = LDLAT_HAS_LAT };
	struct top_table ip;
	struct top_sink sink;
	struct session sess;
	struct err err = {};
	struct ldlat_top_val v;
	int i, round;
	/* the batches and the full marks are each CPU's: every run on one CPU, wherever this task moves */
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &s, .ctx_size_in = sizeof(s),
		    .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = 0);

	ck_assert_msg(
		top_session__open(&sess, &c, SESSION_TEST_ENTRY | SESSION_TOP_NO_FRONT, &err) == 0,
		"%s", err.msg);
	ck_assert_uint_eq(bpf_map__max_entries(sess.skel->maps.top_spill), 1 << 20);
	for (round = 0; round < 2; round++) {
		top_table__init(&ip);
		ck_assert_int_eq(top_sink__open(&sink, &sess, &ip, NULL), 0);
		for (i = 0; i < 50000; i++) {
			s.ip = 0x401000 + i;
			ck_assert_int_eq(bpf_prog_test_run_opts(session__test_fd(&sess), &opts), 0);
		}
		ck_assert_int_eq(top_sink__drain(&sink, &sess, false), 0);
		ck_assert_uint_eq(ip.spilled, 43232 + 15);
		ck_assert_uint_eq(ip.full, 6752);
		ck_assert_uint_eq(ip.failed, 0);
		ck_assert_uint_eq(ip.n, 1 + 43232 + 15);
		ck_assert_uint_eq(top_table__samples(&ip), 1 + 43232 + 15);
		ck_assert_uint_eq(sink.drained.counters.kept, 50000);
		/*
		 * each one the ring took reads back whole, its latency too (40
		 * bits); in the second round the first batch wraps the ring's end
		 */
		for (i = 1; i <= 43232; i++) {
			v = ip_val(&ip, 0x401000 + i);
			ck_assert_uint_eq(v.count, 1);
			ck_assert_uint_eq(v.lat_sum, 1ull << 40);
		}
		ck_assert_ptr_null(top_table__find(&ip, 42, 0x401000 + 43233));
		ck_assert_ptr_null(top_table__find(&ip, 42, 0x401000 + 49984));
		/* the batch the drain took */
		ck_assert_ptr_nonnull(top_table__find(&ip, 42, 0x401000 + 49985));
		ck_assert_ptr_nonnull(top_table__find(&ip, 42, 0x401000 + 49999));
		top_sink__close(&sink);
		top_table__free(&ip);
	}
	session__close(&sess);
}
END_TEST

/* Whether the kernel's IP table holds (42, ip) of generation gen. */
static bool top_ip_holds(struct session *sess, __u32 gen, __u64 ip)
{
	struct ldlat_top_key k = { .tgid = 42, .gen = gen, .addr = ip };
	struct ldlat_top_val v[libbpf_num_possible_cpus()];

	return !bpf_map_lookup_elem(bpf_map__fd(sess->skel->maps.top_ip), &k, v);
}

/*
 * A table (without its front) found full is not tried again in that
 * generation: with 4 entries taken, a fifth key spills; with an entry
 * deleted (room again), a sixth key spills too, without the insert; once
 * the marks are cleared (as a drain does after emptying the generation
 * before), a seventh takes the room.  Each sample is counted: 3 in the
 * table's entries left, 2 spilled, none lost; and the next generation
 * inserts again.
 */
START_TEST(test_top_full_hint)
{
	struct ldlat_config c = { .nranges = 1,
				  .max_lat = ~0ull,
				  .class_mask = LDLAT_ALL_CLASSES,
				  .top = LDLAT_TOP_IP,
				  .top_entries = 4 };
	struct ldlat_sample s = { .tgid = 42, .lat = 100 };
	struct ldlat_top_key del = { .tgid = 42, .gen = 0, .addr = 0x401000 };
	struct top_table ip;
	struct top_sink sink;
	struct session sess;
	struct err err = {};
	int i;
	/* the batches and the full marks are each CPU's: every run on one CPU, wherever this task moves */
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &s, .ctx_size_in = sizeof(s),
		    .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = 0);

	ck_assert_msg(
		top_session__open(&sess, &c, SESSION_TEST_ENTRY | SESSION_TOP_NO_FRONT, &err) == 0,
		"%s", err.msg);
	ck_assert_uint_eq(sess.skel->bss->top_gen, 0);
	top_table__init(&ip);
	ck_assert_int_eq(top_sink__open(&sink, &sess, &ip, NULL), 0);
	for (i = 0; i < 5; i++) {
		s.ip = 0x401000 + i;
		ck_assert_int_eq(bpf_prog_test_run_opts(session__test_fd(&sess), &opts), 0);
	}
	ck_assert(top_ip_holds(&sess, 0, 0x401003));
	ck_assert(!top_ip_holds(&sess, 0, 0x401004));
	ck_assert_int_eq(bpf_map_delete_elem(bpf_map__fd(sess.skel->maps.top_ip), &del), 0);
	s.ip = 0x401005;
	ck_assert_int_eq(bpf_prog_test_run_opts(session__test_fd(&sess), &opts), 0);
	ck_assert_msg(!top_ip_holds(&sess, 0, 0x401005),
		      "a table found full in this generation was tried again");
	ck_assert_int_eq(top_session__clear_full(&sess), 0);
	s.ip = 0x401006;
	ck_assert_int_eq(bpf_prog_test_run_opts(session__test_fd(&sess), &opts), 0);
	ck_assert_msg(top_ip_holds(&sess, 0, 0x401006),
		      "the cleared mark still held the table full");
	ck_assert_int_eq(top_sink__drain(&sink, &sess, false), 0);
	ck_assert_uint_eq(sink.drained.counters.kept, 7);
	ck_assert_uint_eq(ip.spilled, 2);
	ck_assert_uint_eq(ip.full + ip.failed, 0);
	ck_assert_uint_eq(top_table__samples(&ip), 6); /* the deleted entry's sample went with it */
	ck_assert_ptr_nonnull(top_table__find(&ip, 42, 0x401004));
	ck_assert_ptr_nonnull(top_table__find(&ip, 42, 0x401005));
	/* the next generation finds room: its first new key goes to the table */
	s.ip = 0x401007;
	ck_assert_int_eq(bpf_prog_test_run_opts(session__test_fd(&sess), &opts), 0);
	ck_assert(top_ip_holds(&sess, 1, 0x401007));
	top_sink__close(&sink);
	top_table__free(&ip);
	session__close(&sess);
}
END_TEST

/*
 * A table (without its front) found full is looked up only for a key its
 * hint of the generation's keys may hold: the keys the program put in
 * it.  With 4 entries taken and a fifth key spilled, each of the 4 is still
 * counted in the table (none spilled); a key put in the table from outside
 * the program (in the room of one deleted) is not in the hint, so its
 * sample spills without the lookup that would have found it.  Every sample
 * is counted.
 */
START_TEST(test_top_seen_hint)
{
	struct ldlat_config c = { .nranges = 1,
				  .max_lat = ~0ull,
				  .class_mask = LDLAT_ALL_CLASSES,
				  .top = LDLAT_TOP_IP,
				  .top_entries = 4 };
	struct ldlat_sample s = { .tgid = 42, .lat = 100 };
	struct ldlat_top_key del = { .tgid = 42, .gen = 0, .addr = 0x401000 };
	struct ldlat_top_key put = { .tgid = 42, .gen = 0, .addr = 0x402000 };
	struct ldlat_top_val zero[libbpf_num_possible_cpus()];
	struct top_table ip;
	struct top_sink sink;
	struct session sess;
	struct err err = {};
	int i, round;
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &s, .ctx_size_in = sizeof(s),
		    .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = 0);

	memset(zero, 0, sizeof(zero));
	ck_assert_msg(
		top_session__open(&sess, &c, SESSION_TEST_ENTRY | SESSION_TOP_NO_FRONT, &err) == 0,
		"%s", err.msg);
	top_table__init(&ip);
	ck_assert_int_eq(top_sink__open(&sink, &sess, &ip, NULL), 0);
	for (i = 0; i < 5; i++) {
		s.ip = 0x401000 + i;
		ck_assert_int_eq(bpf_prog_test_run_opts(session__test_fd(&sess), &opts), 0);
	}
	ck_assert(!top_ip_holds(&sess, 0, 0x401004));
	/* found full: the keys it holds, three times each */
	for (round = 0; round < 3; round++)
		for (i = 0; i < 4; i++) {
			s.ip = 0x401000 + i;
			ck_assert_int_eq(bpf_prog_test_run_opts(session__test_fd(&sess), &opts), 0);
		}
	ck_assert_int_eq(bpf_map_delete_elem(bpf_map__fd(sess.skel->maps.top_ip), &del), 0);
	ck_assert_int_eq(
		bpf_map_update_elem(bpf_map__fd(sess.skel->maps.top_ip), &put, zero, BPF_NOEXIST),
		0);
	s.ip = 0x402000;
	ck_assert_int_eq(bpf_prog_test_run_opts(session__test_fd(&sess), &opts), 0);
	ck_assert_int_eq(top_sink__drain(&sink, &sess, false), 0);
	ck_assert_uint_eq(sink.drained.counters.kept, 5 + 12 + 1);
	/* the fifth key and the one put from outside; none of the 4 the program put */
	ck_assert_uint_eq(ip.spilled, 2);
	ck_assert_uint_eq(ip.full + ip.failed, 0);
	for (i = 1; i < 4; i++) {
		ck_assert_uint_eq(ip_val(&ip, 0x401000 + i).count, 4);
	}
	ck_assert_uint_eq(ip_val(&ip, 0x402000).count, 1);
	top_sink__close(&sink);
	top_table__free(&ip);
	session__close(&sess);
}
END_TEST

/* A code key (42, ip) of front slot 'slot' of 2, the n-th such from 0x401000 on. */
static __u64 front_ip(__u32 slot, int n)
{
	__u64 ip;

	for (ip = 0x401000;; ip++)
		if (ldlat_top_front_slot(42, ip, 1) == slot && n-- == 0)
			return ip;
}

/*
 * The IP table's front, by hand: 128 entries, so a front of 2 slots a CPU.
 * Key A takes its free slot and is counted there, not in the table; 128
 * keys of A's slot fill the table; one more spills (the table found full);
 * then a key of the other slot takes that slot, the table full or not, and
 * is counted there again.  The drain adds the slots to the table: every
 * sample under its key, one spilled.  The next generation's A takes its
 * slot of the other parity, and the generation after that takes the first
 * one's slot again, which holds its old key and count.  Each CPU has its
 * own: on another CPU, A takes that CPU's slot, and the drain sums the two.
 */
START_TEST(test_top_front)
{
	struct ldlat_config c = { .nranges = 1,
				  .max_lat = ~0ull,
				  .class_mask = LDLAT_ALL_CLASSES,
				  .need = LDLAT_HAS_LAT,
				  .top = LDLAT_TOP_IP,
				  .top_entries = 128 };
	struct ldlat_sample s = { .tgid = 42, .lat = 100, .flags = LDLAT_HAS_LAT };
	__u64 a = front_ip(0, 0), d = front_ip(0, 129), cc = front_ip(1, 0);
	struct ldlat_top_val v;
	struct top_table ip;
	struct top_sink sink;
	struct session sess;
	struct err err = {};
	int i, other = libbpf_num_possible_cpus() > 1 && sysconf(_SC_NPROCESSORS_ONLN) > 1;
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &s, .ctx_size_in = sizeof(s),
		    .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = 0);

	ck_assert_msg(top_session__open(&sess, &c, SESSION_TEST_ENTRY, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(sess.skel->rodata->top_front_bits, 1);
	top_table__init(&ip);
	ck_assert_int_eq(top_sink__open(&sink, &sess, &ip, NULL), 0);
	s.ip = a;
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(bpf_prog_test_run_opts(session__test_fd(&sess), &opts), 0);
	ck_assert_msg(!top_ip_holds(&sess, 0, a), "a key with a free slot went to the table");
	for (i = 1; i <= 128; i++) {
		s.ip = front_ip(0, i);
		ck_assert_int_eq(bpf_prog_test_run_opts(session__test_fd(&sess), &opts), 0);
		ck_assert(top_ip_holds(&sess, 0, s.ip));
	}
	s.ip = d; /* its slot is A's, the table is full: spilled */
	ck_assert_int_eq(bpf_prog_test_run_opts(session__test_fd(&sess), &opts), 0);
	s.ip = cc; /* the table found full, its slot free: taken */
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(bpf_prog_test_run_opts(session__test_fd(&sess), &opts), 0);
	ck_assert(!top_ip_holds(&sess, 0, cc));
	if (other) { /* the other CPU's own slot */
		opts.cpu = 1;
		s.ip = a;
		ck_assert_int_eq(bpf_prog_test_run_opts(session__test_fd(&sess), &opts), 0);
		ck_assert(!top_ip_holds(&sess, 0, a));
		opts.cpu = 0;
	}
	ck_assert_int_eq(top_sink__drain(&sink, &sess, false), 0);
	ck_assert_uint_eq(sink.drained.counters.kept, 3 + 128 + 1 + 2 + other);
	ck_assert_uint_eq(top_table__samples(&ip), 3 + 128 + 1 + 2 + other);
	ck_assert_uint_eq(ip.spilled, 1);
	ck_assert_uint_eq(ip.full + ip.failed, 0);
	ck_assert_uint_eq(ip.n, 1 + 128 + 1 + 1);
	v = ip_val(&ip, a);
	ck_assert_uint_eq(v.count, 3 + other);
	ck_assert_uint_eq(v.lat_sum, 100 * (3 + other));
	ck_assert_uint_eq(v.cls[LDLAT_CLASS_UNKNOWN], 3 + other);
	ck_assert_uint_eq(ip_val(&ip, cc).count, 2);
	ck_assert_uint_eq(ip_val(&ip, d).count, 1);
	/* the next generation: A takes the slot of the other parity, its own again */
	top_table__reset(&ip);
	s.ip = a;
	ck_assert_int_eq(bpf_prog_test_run_opts(session__test_fd(&sess), &opts), 0);
	ck_assert(!top_ip_holds(&sess, 1, a));
	ck_assert_int_eq(top_sink__drain(&sink, &sess, false), 0);
	ck_assert_uint_eq(ip.n, 1);
	ck_assert_uint_eq(top_table__samples(&ip), 1);
	ck_assert_uint_eq(ip.spilled, 0);
	/* and the one after: generation 0's slots, not freed by a write, are free */
	top_table__reset(&ip);
	ck_assert_int_eq(bpf_prog_test_run_opts(session__test_fd(&sess), &opts), 0);
	ck_assert_int_eq(top_sink__drain(&sink, &sess, false), 0);
	ck_assert_uint_eq(ip.n, 1);
	ck_assert_uint_eq(ip_val(&ip, a).count, 1);
	top_sink__close(&sink);
	top_table__free(&ip);
	session__close(&sess);
}
END_TEST

/* The maps a loaded program uses. */
static int prog_maps(int prog_fd, __u32 *ids, __u32 max)
{
	struct bpf_prog_info info = { .nr_map_ids = max, .map_ids = (__u64)(unsigned long)ids };
	__u32 len = sizeof(info);

	ck_assert_int_eq(bpf_obj_get_info_by_fd(prog_fd, &info, &len), 0);
	ck_assert_uint_le(info.nr_map_ids, max); /* else the ids past max are not read */
	return (int)info.nr_map_ids;
}

static bool uses_map(const __u32 *ids, int n, const struct bpf_map *map)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	int i;

	ck_assert_int_eq(bpf_obj_get_info_by_fd(bpf_map__fd(map), &info, &len), 0);
	for (i = 0; i < n; i++)
		if (ids[i] == info.id)
			return true;
	return false;
}

/*
 * ldlat-hist's programs have no instruction of the tables: they use none of
 * their maps, and the tables hold one entry.  ldlat-top's use them.
 */
/* xlated instructions of a loaded program */
static __u32 prog_insns(int fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	ck_assert_int_eq(bpf_obj_get_info_by_fd(fd, &info, &len), 0);
	return info.xlated_prog_len / 8;
}

/*
 * Without --by the live program holds no instruction of the split (cfg.by
 * is read-only data: the verifier drops it): fewer instructions than with a
 * split by CPU, fewer again than by process (which looks its key up in
 * by_rows, sized for the keys only then).
 */
START_TEST(test_split_off_costs_nothing)
{
	struct ldlat_config c = { .nranges = 1,
				  .max_lat = ~0ull,
				  .class_mask = LDLAT_ALL_CLASSES,
				  .need = LDLAT_HAS_ADDR };
	static const __u32 bys[] = { LDLAT_BY_NONE, LDLAT_BY_CPU, LDLAT_BY_PID };
	struct session sess;
	struct err err = {};
	__u32 ids[16], insns[3];
	int n, fd, k;

	for (k = 0; k < 3; k++) {
		c.by = bys[k];
		c.by_keys = k ? 4 : 0;
		ck_assert_msg(session__open(&sess, &c, _i ? SESSION_ADDR_ONLY : 0, &err) == 0, "%s",
			      err.msg);
		fd = session__prog_fd(&sess);
		n = prog_maps(fd, ids, 16);
		ck_assert(uses_map(ids, n, sess.skel->maps.hists));
		ck_assert(!uses_map(ids, n, sess.skel->maps.bss));
		ck_assert_uint_eq(bpf_map__max_entries(sess.skel->maps.by_rows),
				  bys[k] == LDLAT_BY_PID ? 4 : 1);
		ck_assert_uint_eq(bpf_map__max_entries(sess.skel->maps.hists),
				  (k ? 5 : 1) * LDLAT_NCLASS);
		insns[k] = prog_insns(fd);
		session__close(&sess);
	}
	ck_assert_uint_lt(insns[0], insns[1]);
	ck_assert_uint_lt(insns[1], insns[2]);
}
END_TEST

START_TEST(test_top_off_costs_nothing)
{
	struct ldlat_config c = { .nranges = 1,
				  .max_lat = ~0ull,
				  .class_mask = LDLAT_ALL_CLASSES,
				  .need = LDLAT_HAS_ADDR,
				  .top_entries = 4096 };
	struct session sess;
	struct err err = {};
	__u32 ids[32];
	int n, fd;

	ck_assert_msg(session__open(&sess, &c, _i ? SESSION_ADDR_ONLY : 0, &err) == 0, "%s",
		      err.msg);
	fd = session__prog_fd(&sess);
	n = prog_maps(fd, ids, 32);
	ck_assert(uses_map(ids, n, sess.skel->maps.counters));
	ck_assert(!uses_map(ids, n, sess.skel->maps.top_ip));
	ck_assert(!uses_map(ids, n, sess.skel->maps.top_data));
	ck_assert(!uses_map(ids, n, sess.skel->maps.top_counters));
	ck_assert(!uses_map(ids, n, sess.skel->maps.top_full));
	ck_assert(!uses_map(ids, n, sess.skel->maps.top_batch));
	ck_assert(!uses_map(ids, n, sess.skel->maps.bss)); /* the generation */
	ck_assert_uint_eq(bpf_map__max_entries(sess.skel->maps.top_ip), 1);
	ck_assert_uint_eq(bpf_map__max_entries(sess.skel->maps.top_data), 1);
	ck_assert_int_lt(bpf_program__fd(sess.skel->progs.ldlat_top), 0);
	session__close(&sess);
	c.top = LDLAT_TOP_IP | LDLAT_TOP_DATA;
	ck_assert_msg(top_session__open(&sess, &c, _i ? SESSION_ADDR_ONLY : 0, &err) == 0, "%s",
		      err.msg);
	fd = session__prog_fd(&sess);
	n = prog_maps(fd, ids, 32);
	ck_assert(uses_map(ids, n, sess.skel->maps.top_ip));
	ck_assert(uses_map(ids, n, sess.skel->maps.top_data));
	ck_assert(uses_map(ids, n, sess.skel->maps.top_full));
	ck_assert(uses_map(ids, n, sess.skel->maps.top_batch));
	ck_assert_int_lt(bpf_program__fd(sess.skel->progs.ldlat_sample), 0);
	session__close(&sess);
}
END_TEST

/* ---- read paths ------------------------------------------------------------ */

/*
 * The kernel's BTF walked in place (what session__probe reads) finds what
 * libbpf's parse of it finds: the same first type of a name and kind,
 * byte for byte, for types across the whole file, and so the same facts.
 */
static void kernel_btf_same(const struct btf *btf, const struct kbtf *k, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id), *want, *got;
	const char *name = btf__name_by_offset(btf, t->name_off);
	__s32 exp = btf__find_by_name_kind(btf, name, btf_kind(t)), at = -1;

	want = btf__type_by_id(btf, exp);
	got = kbtf__find(k, name, btf_kind(t), &at);
	ck_assert_msg(got && at == exp, "type %u: libbpf finds %d, the walk %d", id, exp, at);
	ck_assert_str_eq(kbtf__name(k, got->name_off), name);
	ck_assert_uint_eq(got->info, want->info);
	ck_assert_uint_eq(got->size, want->size);
}

START_TEST(test_kernel_btf_as_libbpf)
{
	static const struct {
		const char *name;
		int kind;
	} asked[] = {
		{ "bpf_cast_to_kern_ctx", BTF_KIND_FUNC },
		{ "bpf_perf_event_data_kern", BTF_KIND_STRUCT },
		{ "perf_sample_weight", BTF_KIND_UNION },
		{ "bpf_func_id", BTF_KIND_ENUM },
		{ "perf_sample_data", BTF_KIND_STRUCT },
		{ "no_such_type_in_any_kernel", BTF_KIND_STRUCT },
	};
	struct btf *btf = btf__load_vmlinux_btf();
	const struct btf_type *t;
	struct session_facts f, lib = {};
	struct kbtf k;
	__u32 n, id, step, i;
	__s32 got, exp;

	ck_assert_ptr_nonnull(btf);
	ck_assert_int_eq(kbtf__open(&k, NULL), 0);
	n = btf__type_cnt(btf);
	step = n / 400 + 1;
	for (id = 1; id < n; id += step)
		kernel_btf_same(btf, &k, id);
	kernel_btf_same(btf, &k, n - 1);
	for (i = 0; i < ARRAY_SIZE(asked); i++) {
		exp = btf__find_by_name_kind(btf, asked[i].name, asked[i].kind);
		got = -1;
		t = kbtf__find(&k, asked[i].name, asked[i].kind, &got);
		ck_assert_msg(exp > 0 ? t && got == exp : !t, "%s: libbpf finds %d, the walk %d",
			      asked[i].name, exp, t ? got : 0);
	}
	/* the facts, as libbpf's types give them */
	session__probe(&f);
	lib.confidentiality = f.confidentiality;
	lib.btf = true;
	lib.cast_kfunc = btf__find_by_name_kind(btf, asked[0].name, asked[0].kind) > 0;
	lib.kern_ctx = btf__find_by_name_kind(btf, asked[1].name, asked[1].kind) > 0;
	lib.weight_union = btf__find_by_name_kind(btf, asked[2].name, asked[2].kind) > 0;
	exp = btf__find_by_name_kind(btf, asked[3].name, asked[3].kind);
	t = exp > 0 ? btf__type_by_id(btf, exp) : NULL;
	for (i = 0; t && i < btf_vlen(t); i++) {
		const char *e = btf__name_by_offset(btf, btf_enum(t)[i].name_off);

		lib.probe_read |= !strcmp(e, "BPF_FUNC_probe_read_kernel");
		lib.attach_cookie |= !strcmp(e, "BPF_FUNC_get_attach_cookie");
	}
	exp = btf__find_by_name_kind(btf, asked[4].name, asked[4].kind);
	t = exp > 0 ? btf__type_by_id(btf, exp) : NULL;
	for (i = 0; t && i < btf_vlen(t); i++)
		lib.sample_flags |= !strcmp(btf__name_by_offset(btf, btf_members(t)[i].name_off),
					    "sample_flags");
	ck_assert_mem_eq(&f, &lib, sizeof(f));
	kbtf__close(&k);
	btf__free(btf);
}
END_TEST

/* Whether this kernel may load path p (the probe-read path needs no lockdown). */
static bool path_loads_here(enum session_path p)
{
	struct session_facts f;

	session__probe(&f);
	if (p == SESSION_PATH_KERN_CTX)
		return f.cast_kfunc;
	if (p == SESSION_PATH_PROBE_READ)
		return f.kern_ctx && f.probe_read && !f.confidentiality;
	return true;
}

/*
 * Every path this kernel can serve passes the verifier with every field and
 * ldlat-top's tables, and the path the tools pick is one of them.
 */
START_TEST(test_read_paths_load)
{
	struct ldlat_config c = { .nranges = 1,
				  .max_lat = ~0ull,
				  .class_mask = LDLAT_ALL_CLASSES,
				  .need = LDLAT_HAS_ADDR | LDLAT_HAS_LAT | LDLAT_HAS_DSRC,
				  .weight_struct = 1,
				  .top = _i & 1 ? LDLAT_TOP_IP | LDLAT_TOP_DATA : 0,
				  .top_entries = 64 };
	enum session_path p = _i >> 1;
	struct session sess;
	struct err err = {};
	char why[512];
	int e;

	if (!path_loads_here(p)) {
		ck_assert_int_ne(session__read_path(why, sizeof(why)), p);
		return;
	}
	/* ldlat-top's program with its tables, or ldlat-hist's */
	e = c.top ? top_session__open(&sess, &c, session__path_flag(p), &err)
		  : session__open(&sess, &c, session__path_flag(p), &err);
	ck_assert_msg(e == 0, "%s: %s", session__path_name(p), err.msg);
	ck_assert_int_eq(sess.path, p);
	ck_assert_int_ge(session__prog_fd(&sess), 0);
	session__close(&sess);
}
END_TEST

/* The number of calls of a helper in a loaded program's xlated code (bpftool's dump). */
static int prog_calls(int prog_fd, const char *helper)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	char *out = NULL;
	int n;

	ck_assert_int_eq(bpf_obj_get_info_by_fd(prog_fd, &info, &len), 0);
	ck_assert_int_eq(sh(&out, NULL,
			    "bpftool prog dump xlated id %u | grep -c 'call %s' || true", info.id,
			    helper),
			 0);
	n = atoi(out);
	free(out);
	return n;
}

/*
 * A pinned set's program keeps each event's count (pin_counts, read-only
 * data): it calls bpf_get_attach_cookie, reads the event's count (the
 * kern-ctx path straight from the event, the others may call
 * bpf_perf_prog_read_value), and event_counts has an entry per event.
 * Every other program holds no instruction of it.  A kernel without
 * bpf_get_attach_cookie (5.10) loads the pinned set's program without it.
 * _i: the read path.
 */
START_TEST(test_counts_off_costs_nothing)
{
	struct ldlat_config c = { .nranges = 1,
				  .max_lat = ~0ull,
				  .class_mask = LDLAT_ALL_CLASSES,
				  .need = LDLAT_HAS_ADDR };
	enum session_path p = _i;
	struct session_facts facts;
	struct session sess;
	struct err err = {};
	__u32 insns[2];
	int k, fd;

	if (!path_loads_here(p))
		return;
	session__probe(&facts);
	for (k = 0; k < 2; k++) {
		ck_assert_msg(session__open_counted(&sess, &c,
						    session__path_flag(p) | (k ? SESSION_PIN : 0),
						    k ? 6 : 0, &err) == 0,
			      "%s", err.msg);
		fd = session__prog_fd(&sess);
		insns[k] = prog_insns(fd);
		ck_assert_int_eq(sess.counts, k && facts.attach_cookie);
		ck_assert_uint_eq(bpf_map__max_entries(sess.skel->maps.event_counts),
				  sess.counts ? 6 : 1);
		ck_assert_int_eq(prog_calls(fd, "bpf_get_attach_cookie") > 0, sess.counts);
		/* the helper reads the clock too: only where the event cannot be reached */
		ck_assert_int_eq(prog_calls(fd, "bpf_perf_prog_read_value") > 0,
				 sess.counts && p != SESSION_PATH_KERN_CTX);
		session__close(&sess);
	}
	if (facts.attach_cookie)
		ck_assert_uint_lt(insns[0], insns[1]);
	else
		ck_assert_uint_eq(insns[0], insns[1]);
}
END_TEST

static int open_faults(__u64 sample_type)
{
	struct perf_event_attr a = { .size = sizeof(a),
				     .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_PAGE_FAULTS,
				     .sample_period = 1,
				     .sample_type = sample_type,
				     .disabled = 1,
				     .exclude_kernel = 1 };

	return syscall(__NR_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/*
 * A page-fault event that asks for weight and data source, through the
 * path's program, on NPAGES pages of our own: the software event fills
 * neither, so what the program sees is the kernel's rule.  Since 6.3
 * perf_prepare_sample() runs first and zero-fills them (flagged); 6.1 and
 * 6.2 run the program first and sample_flags lacks them; before 6.1
 * perf_sample_data_init set weight 0 and data source N/A.  Each sample's
 * address must be one of the pages (a range filter over them).
 */
#define NPAGES 64
START_TEST(test_read_path_fields)
{
	struct ldlat_config c = { .nranges = 1,
				  .max_lat = ~0ull,
				  .class_mask = LDLAT_ALL_CLASSES,
				  .need = LDLAT_HAS_ADDR | LDLAT_HAS_LAT | LDLAT_HAS_DSRC,
				  .nspans = 1 };
	enum session_path p = _i ? SESSION_PATH_PROBE_READ : SESSION_PATH_KERN_CTX;
	long page = sysconf(_SC_PAGESIZE);
	struct session sess;
	struct snapshot snap;
	struct err err = {};
	bool filled = kernel_zero_fills_fields();
	int fd, i;
	char *buf;

	if (!path_loads_here(p))
		return;
	buf = mmap(NULL, NPAGES * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(buf, MAP_FAILED);
	/* one fault per page: no transparent huge page */
	ck_assert_int_eq(madvise(buf, NPAGES * page, MADV_NOHUGEPAGE), 0);
	c.span_lo[0] = (__u64)(unsigned long)buf;
	c.span_hi[0] = c.span_lo[0] + NPAGES * page;
	ck_assert_msg(session__open(&sess, &c, session__path_flag(p), &err) == 0, "%s", err.msg);
	fd = open_faults(PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC);
	ck_assert_int_ge(fd, 0);
	/* the ioctl, not a bpf_link: perf links came in 5.15 */
	ck_assert_int_eq(ioctl(fd, PERF_EVENT_IOC_SET_BPF, session__prog_fd(&sess)), 0);
	ck_assert_int_eq(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	for (i = 0; i < NPAGES; i++)
		((volatile char *)buf)[i * page] = 1;
	ck_assert_int_eq(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	ck_assert_int_eq(snapshot__init(&snap, 1), 0);
	ck_assert_int_eq(session__read(&sess, &snap), 0);
	if (filled) {
		ck_assert_uint_eq(snap.counters.kept, NPAGES);
		ck_assert_uint_eq(snap.counters.fields_missing, 0);
		ck_assert_uint_eq(snap.cells[LDLAT_CLASS_UNKNOWN].count, NPAGES);
		/* latency 0: not a measured one, in no bucket */
		ck_assert_uint_eq(snap.cells[LDLAT_CLASS_UNKNOWN].unmeasured, NPAGES);
		ck_assert_uint_eq(snap.cells[LDLAT_CLASS_UNKNOWN].slot[0], 0);
	} else {
		ck_assert_uint_eq(snap.counters.kept, 0);
		ck_assert_uint_ge(snap.counters.fields_missing, NPAGES);
	}
	ck_assert_uint_ge(snap.counters.seen, NPAGES);
	snapshot__free(&snap);
	close(fd);
	session__close(&sess);
	munmap(buf, NPAGES * page);
}
END_TEST

/*
 * Counts written by hand, not computed by the native model (which shares the
 * header with the program, so a bug there would pass a comparison): 16
 * processes (the last one's samples kept), --min-lat 64 and --max-lat 1424
 * with samples at and around both bounds, one range, the rows of the log2
 * histogram, and the counters line as printed.
 */
START_TEST(test_hand_counts)
{
	struct ldlat_config c = { .nranges = 1,
				  .nspans = 1,
				  .span_lo = { 0x10000 },
				  .span_hi = { 0x20000 },
				  .min_lat = 64,
				  .max_lat = 1424,
				  .class_mask = LDLAT_ALL_CLASSES,
				  .need = LDLAT_HAS_ADDR | LDLAT_HAS_LAT | LDLAT_HAS_DSRC,
				  .ntgids = 16 };
	/* an L1 hit of a load */
	const __u64 l1 = PERF_MEM_S(OP, LOAD) | PERF_MEM_S(LVL, HIT) | PERF_MEM_S(LVL, L1) |
			 PERF_MEM_S(LVLNUM, L1);
	const __u32 all = LDLAT_HAS_ADDR | LDLAT_HAS_LAT | LDLAT_HAS_DSRC;
	static const struct {
		__u64 addr, lat;
		__u32 tgid, flags_off, times;
	} in[] = {
		{ 0x18000, 100, 1015, 0, 2 },		  /* the 16th process: kept, bucket 7 */
		{ 0x18000, 100, 1000, 0, 1 },		  /* the first: kept, bucket 7 */
		{ 0x18000, 64, 1007, 0, 1 },		  /* at --min-lat: kept, bucket 7 */
		{ 0x18000, 1424, 1007, 0, 1 },		  /* at --max-lat: kept, bucket 11 */
		{ 0x18000, 63, 1007, 0, 3 },		  /* below */
		{ 0x18000, 1425, 1007, 0, 5 },		  /* above */
		{ 0x18000, 100, 1016, 0, 4 },		  /* a 17th process */
		{ 0x30000, 100, 1007, 0, 6 },		  /* outside the range */
		{ 0, 100, 1007, 0, 7 },			  /* no address */
		{ 0x18000, 100, 1007, LDLAT_HAS_LAT, 8 }, /* no latency */
	};
	struct session sess;
	struct snapshot got;
	struct ldlat_sample smp;
	struct err err = {};
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	unsigned int i, k;
	int fd;
	__u32 idx = ldlat_hist_index(0, LDLAT_CLASS_L1);
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &smp, .ctx_size_in = sizeof(smp));

	for (i = 0; i < 16; i++)
		c.tgid[i] = 1000 + i;
	ck_assert_msg(session__open(&sess, &c, SESSION_TEST_ENTRY, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(snapshot__init(&got, 1), 0);
	fd = session__test_fd(&sess);
	for (i = 0; i < ARRAY_SIZE(in); i++)
		for (k = 0; k < in[i].times; k++) {
			smp = (struct ldlat_sample){ .addr = in[i].addr,
						     .lat = in[i].lat,
						     .data_src = l1,
						     .tgid = in[i].tgid,
						     .flags = all & ~in[i].flags_off };
			ck_assert_int_eq(bpf_prog_test_run_opts(fd, &opts), 0);
		}
	ck_assert_int_eq(session__read(&sess, &got), 0);
	ck_assert_uint_eq(got.counters.seen, 38);
	ck_assert_uint_eq(got.counters.kept, 5);
	ck_assert_uint_eq(got.counters.below_min, 3);
	ck_assert_uint_eq(got.counters.above_max, 5);
	ck_assert_uint_eq(got.counters.tgid_filtered, 4);
	ck_assert_uint_eq(got.counters.outside_ranges, 6);
	ck_assert_uint_eq(got.counters.no_address, 7);
	ck_assert_uint_eq(got.counters.fields_missing, 8);
	ck_assert_uint_eq(got.counters.class_filtered, 0);
	ck_assert_uint_eq(got.counters.op_filtered, 0);
	/*
	 * log-linear buckets (one per value below 64, then 32 per power of two):
	 * [64, 127] is split in buckets 2 wide from 64, so 64 is bucket 64 and
	 * 100 is 64 + 18 = 82; [1024, 2047] in buckets 32 wide from 192, so 1424
	 * is 192 + 12 = 204
	 */
	for (k = 0; k < LDLAT_NBUCKETS; k++)
		ck_assert_msg(got.cells[idx].slot[k] == (k == 82    ? 3u
							 : k == 64  ? 1u
							 : k == 204 ? 1u
								    : 0u),
			      "bucket %u: %llu", k, (unsigned long long)got.cells[idx].slot[k]);
	ck_assert_uint_eq(got.cells[idx].min, 64);
	ck_assert_uint_eq(got.cells[idx].max, 1424);
	ck_assert_uint_eq(got.cells[idx].sum, 100 + 100 + 100 + 64 + 1424);
	f = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(f);
	render_counters(f, &got, &c);
	fclose(f);
	ck_assert_str_eq(text, "filters: 38 seen, 5 kept; dropped: 6 outside every range, "
			       "3 below --min-lat, 5 above --max-lat, 7 no data address, "
			       "8 fields missing, 4 other process\n");
	free(text);
	snapshot__free(&got);
	session__close(&sess);
}
END_TEST

/*
 * The live programs' reading of perf_sample_data (LDLAT_READ_DATA, through
 * ldlat_test_data): with WEIGHT_STRUCT the latency is weight.var1_dw (the
 * low 32 bits, not the whole union); without, weight.full; an unflagged
 * field is not read.  Expected buckets written by hand.
 */
START_TEST(test_read_sample_data)
{
	struct ldlat_config c = { .nranges = 1,
				  .max_lat = ~0ull,
				  .class_mask = LDLAT_ALL_CLASSES,
				  .need = LDLAT_HAS_ADDR | LDLAT_HAS_LAT | LDLAT_HAS_DSRC };
	const __u64 l1 = PERF_MEM_S(OP, LOAD) | PERF_MEM_S(LVL, HIT) | PERF_MEM_S(LVL, L1) |
			 PERF_MEM_S(LVLNUM, L1);
	const __u64 all = PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC;
	/* var3_w 5, var2_w 7 (instruction latency), var1_dw 300 (load latency) */
	const __u64 weight = (5ull << 48) | (7ull << 32) | 300;
	__u64 args[6] = { all, 0x1000, weight, l1, 0x401000, 1 };
	__u32 idx = ldlat_hist_index(0, LDLAT_CLASS_L1), k;
	struct session sess;
	struct snapshot got;
	struct err err = {};
	int fd, pass;
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args, .ctx_size_in = sizeof(args));

	for (pass = 0; pass < 2; pass++) {
		c.weight_struct = pass == 0;
		ck_assert_msg(session__open(&sess, &c, SESSION_TEST_ENTRY, &err) == 0, "%s",
			      err.msg);
		ck_assert_int_eq(snapshot__init(&got, 1), 0);
		fd = bpf_program__fd(sess.skel->progs.ldlat_test_data);
		if (fd <
		    0) { /* a kernel before 5.12, whose weight is a u64: the entry is not loaded */
			struct session_facts f;

			session__probe(&f);
			ck_assert(!f.weight_union);
			snapshot__free(&got);
			session__close(&sess);
			return;
		}
		args[0] = all;
		ck_assert_int_eq(bpf_prog_test_run_opts(fd, &opts), 0);
		/* the weight not flagged: not read, the sample lacks its latency */
		args[0] = PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
		ck_assert_int_eq(bpf_prog_test_run_opts(fd, &opts), 0);
		/* no data source flagged */
		args[0] = PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT;
		ck_assert_int_eq(bpf_prog_test_run_opts(fd, &opts), 0);
		ck_assert_int_eq(session__read(&sess, &got), 0);
		ck_assert_uint_eq(got.counters.seen, 3);
		/* the sample without a latency is kept, as one without a measured latency */
		ck_assert_uint_eq(got.counters.kept, 2);
		ck_assert_uint_eq(got.counters.fields_missing, 1);
		ck_assert_uint_eq(got.cells[idx].unmeasured, 1);
		/*
		 * 300 is in [256, 511], split in buckets 8 wide from 96: bucket 96 +
		 * 37 = 133; the whole union is above 2^20, in the open last bucket
		 */
		for (k = 0; k < LDLAT_NBUCKETS; k++)
			ck_assert_msg(got.cells[idx].slot[k] ==
					      (k == (pass == 0 ? 133u : LDLAT_NLOG)),
				      "weight_struct %u: bucket %u holds %llu", c.weight_struct, k,
				      (unsigned long long)got.cells[idx].slot[k]);
		ck_assert_uint_eq(got.cells[idx].sum, pass == 0 ? 300 : weight);
		snapshot__free(&got);
		session__close(&sess);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("bpf");
	TCase *tc = tcase_create("test_run");

	if (!need_root("check_bpf (BPF_PROG_TEST_RUN)"))
		return 0;
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_no_filters);
	tcase_add_test(tc, test_all_filters);
	tcase_add_test(tc, test_fixed_period_not_summed);
	tcase_add_test(tc, test_split_in_bpf);
	tcase_add_test(tc, test_linear_and_address_only);
	tcase_add_test(tc, test_linear_shift_used);
	tcase_add_test(tc, test_percentiles_in_bpf);
	tcase_add_test(tc, test_unmeasured_in_bpf);
	tcase_add_loop_test(tc, test_platform_classes_in_bpf, 0, NDS_PLATFORMS);
	tcase_add_test(tc, test_cell_labels);
	tcase_add_test(tc, test_address_only_program_loads);
	tcase_add_loop_test(tc, test_top_tables, 0, 3);
	tcase_add_test(tc, test_top_spill_full);
	tcase_add_test(tc, test_top_full_hint);
	tcase_add_test(tc, test_top_seen_hint);
	tcase_add_test(tc, test_top_front);
	tcase_add_test(tc, test_top_stacks);
	tcase_add_loop_test(tc, test_top_off_costs_nothing, 0, 2);
	tcase_add_loop_test(tc, test_split_off_costs_nothing, 0, 2);
	tcase_add_test(tc, test_kernel_btf_as_libbpf);
	tcase_add_loop_test(tc, test_read_paths_load, 0, 6);
	tcase_add_loop_test(tc, test_counts_off_costs_nothing, 0, 3);
	tcase_add_loop_test(tc, test_read_path_fields, 0, 2);
	tcase_add_test(tc, test_hand_counts);
	tcase_add_test(tc, test_read_sample_data);
	suite_add_tcase(s, tc);
	/* a case of its own: make test-kernels leaves it out (TCG runs XDP's repeats slowly) */
	tc = tcase_create("bench");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_bench_entry);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
