/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * snapshot.h - the maps at one moment, summed over CPUs: what every renderer
 * prints, and what interval output subtracts.
 */
#ifndef LDLAT_SNAPSHOT_H
#define LDLAT_SNAPSHOT_H

#include <stdbool.h>
#include <time.h>
#include <linux/types.h>

#include "bpf/ldlat.h"

struct cell {
	__u64 slot[LDLAT_NBUCKETS];
	__u64 sum;   /* of latencies */
	__u64 count; /* of samples: the sum of slot[] */
};

struct snapshot {
	__u32 nranges;
	struct cell *cells; /* nranges * LDLAT_NCLASS, at ldlat_hist_index(range, class) */
	struct ldlat_counters counters;
	__u64 recursion_misses; /* samples the kernel skipped: another BPF program was running */
	struct timespec taken;	/* CLOCK_REALTIME */
	struct timespec since;	/* what it holds began then: the start, or the previous read */
};

int snapshot__init(struct snapshot *s, __u32 nranges);
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

/* Adds the counts of one cell into acc. */
void cell__add(struct cell *acc, const struct cell *c);

/*
 * The field name in struct ldlat_counters of the counter for verdict v
 * ("kept", "outside_ranges"): the key machine-readable output uses, the same
 * name bpftool prints for the map.
 */
const char *counters__key(enum ldlat_verdict v);

/*
 * The p-th percentile (0 < p <= 100) estimated from the buckets: the bucket
 * that holds the sample of that rank, interpolated linearly inside it.  0 for
 * an empty cell.
 */
double cell__percentile(const struct cell *c, double p, __u32 linear_step);

/*
 * The same, with *at_least (may be NULL) true when that sample is in the open
 * last bucket: the value is then the bucket's lower bound, and the
 * percentile at least that.
 */
double cell__percentile_floor(const struct cell *c, double p, __u32 linear_step, bool *at_least);

#endif
