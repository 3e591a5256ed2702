/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * snapshot.h - the maps at one moment, summed over CPUs: what every renderer
 * prints, and what interval output subtracts.
 */
#ifndef LDLAT_SNAPSHOT_H
#define LDLAT_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>
#include <linux/types.h>

#include "bpf/ldlat.h"

struct cell {
	__u64 slot[LDLAT_NBUCKETS];
	__u64 sum;	  /* of measured latencies */
	__u64 count;	  /* of samples: the sum of slot[] and unmeasured */
	__u64 unmeasured; /* samples without a measured latency (in no bucket) */
	__u64 period;	  /* the events the samples stand for: the sum of their periods */
	__u64 min, max;	  /* least and greatest measured latency; 0, 0 when none */
};

/* Samples with a measured latency: those in the buckets, the mean and the percentiles. */
static inline __u64 cell__measured(const struct cell *c)
{
	return c->count - c->unmeasured;
}

/* Adds one CPU's histogram (the map's value) into c. */
void cell__add_hist(struct cell *c, const struct ldlat_hist *h);

/* c as a histogram (range and class left as they are): what cell__add_hist reads back. */
void cell__to_hist(const struct cell *c, struct ldlat_hist *h);

/*
 * What the program did not see, measured from the events' own counts (read
 * from their fds before the maps): a sample can be lost before the program
 * runs (another BPF program holds bpf_prog_active on that CPU, which no
 * counter records; a sample the kernel throttled; PEBS records batched
 * behind one interrupt).
 *
 * With a fixed period P an event with count N produced floor(N / P)
 * samples: their sum against 'seen' is exact.  In frequency mode the period
 * varies: the count against the summed periods of the samples seen leaves
 * the events since each event's last sample, up to one period each, so
 * the figure is an estimate (unseen__samples).
 */
struct unseen {
	bool known; /* false: no counts (a perf.data file; a pinned set that has none) */
	bool freq;  /* frequency mode: an estimate */
	/*
	 * A pinned set's: each event's count as the program read it at its last
	 * sample of that event (after --detach no process holds the events'
	 * fds).  Samples missed after it are not in it: the figure is a lower
	 * bound, and in frequency mode it has no tail since that sample to allow for.
	 */
	bool lower_bound;
	const char *why;   /* not known: why, when it is worth saying (a pinned set's reason) */
	__u64 nevents;	   /* event fds counted */
	__u64 counted;	   /* fixed period: samples the events produced; freq: events counted */
	__u64 seen;	   /* 'seen' read after the counts */
	__u64 seen_period; /* the same samples' periods */
};

/*
 * Samples the program did not see: exact with a fixed period; in frequency
 * mode the events not accounted for, less one mean period per event (none
 * for a lower bound: its counts end at a sample), over the mean period,
 * rounded down (never below 0).
 */
__u64 unseen__samples(const struct unseen *u);

/* One sampling event's count into u (a counting event, sample_period 0, adds nothing). */
void unseen__add_count(struct unseen *u, const struct perf_event_attr *a, __u64 count);

struct snapshot {
	__u32 nranges;
	/*
	 * --by's split (enum ldlat_by; LDLAT_BY_NONE: none, nrows 1): nrows
	 * rows of nranges * LDLAT_NCLASS cells, each row a key's, the last the
	 * others (keys that found no row left).  row_key[r] is row r's key
	 * (PID, TID, CPU, node, cgroup id) where row_set[r].
	 */
	__u32 by;
	__u32 nrows;
	__u64 *row_key;
	bool *row_set;
	__u32 linear_step;  /* the buckets' kind: 0 log-linear, else linear of this width */
	struct cell *cells; /* nranges * LDLAT_NCLASS, at ldlat_hist_index(range, class) */
	struct ldlat_counters counters;
	struct unseen unseen;  /* what the events counted that the program did not see */
	struct timespec taken; /* CLOCK_REALTIME */
	struct timespec since; /* what it holds began then: the start, or the previous read */
};

int snapshot__init(struct snapshot *s, __u32 nranges);

/* The same with --by's rows: nrows, the others included. */
int snapshot__init_by(struct snapshot *s, __u32 nranges, __u32 by, __u32 nrows);

static inline __u32 snapshot__nrows(const struct snapshot *s)
{
	return s->nrows ? s->nrows : 1;
}

/* Cells: rows x ranges x classes. */
static inline size_t snapshot__ncells(const struct snapshot *s)
{
	return (size_t)snapshot__nrows(s) * s->nranges * LDLAT_NCLASS;
}
void snapshot__free(struct snapshot *s);
void snapshot__copy(struct snapshot *dst, const struct snapshot *src);

/* Zeroes every count and time, keeping its cells (and nranges). */
void snapshot__clear(struct snapshot *s);

/* out = cur - prev, field by field (out may be cur). */
void snapshot__delta(struct snapshot *out, const struct snapshot *cur, const struct snapshot *prev);

/*
 * One sample through the native build of the per-sample logic, counted the
 * way the BPF program counts it (ldlat_account in bpf/ldlat.bpf.c): offline
 * analysis, and the model the BPF tests compare against.
 */
void snapshot__account(struct snapshot *s, const struct ldlat_config *cfg,
		       const struct ldlat_sample *smp);

/* The same, returning the verdict, and the class of a kept sample in *cls. */
enum ldlat_verdict snapshot__account_class(struct snapshot *s, const struct ldlat_config *cfg,
					   const struct ldlat_sample *smp, __u32 *cls);

/*
 * The same into --by's split: a kept sample goes to the row row_of(ctx)
 * gives (called for kept samples only; a row past the last is the
 * others').  row_of NULL: the first row.
 */
enum ldlat_verdict snapshot__account_row(struct snapshot *s, const struct ldlat_config *cfg,
					 const struct ldlat_sample *smp, __u32 *cls,
					 __u32 (*row_of)(void *ctx), void *ctx);

/* Adds the counts of one cell into acc. */
void cell__add(struct cell *acc, const struct cell *c);

/* out = cur - prev (out may be cur), with the span's min and max bounded (snapshot.c). */
void cell__delta(struct cell *out, const struct cell *cur, const struct cell *prev,
		 __u32 linear_step);

/*
 * The field name in struct ldlat_counters of the counter for verdict v
 * ("kept", "outside_ranges"): the key machine-readable output uses, the same
 * name bpftool prints for the map.
 */
const char *counters__key(enum ldlat_verdict v);

/*
 * The p-th percentile (0 < p <= 100) of the measured latencies, nearest rank
 * (the ceil(p/100 * n)-th smallest): found in the bucket that holds that
 * rank, whose bounds are narrowed to [min, max], as the point of least
 * relative error in it (log-linear buckets: within LDLAT_REL_ERROR of the
 * exact value) or its middle (linear: within half the width), rounded to a
 * cycle.  Never outside [min, max].  0 for a cell with no measured latency.
 */
double cell__percentile(const struct cell *c, double p, __u32 linear_step);

/*
 * The same, with *at_least (may be NULL) true when that sample is in the open
 * last bucket above a bound other than max: the value is then that bound,
 * and the percentile at least that (and at most max).
 */
double cell__percentile_floor(const struct cell *c, double p, __u32 linear_step, bool *at_least);

/* "within 1.6%" or "within 5 cycles": the bound of cell__percentile's error, for the reports. */
void percentile__bound(__u32 linear_step, char *buf, size_t len);

#endif
