/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * counts.h - reading counting events and scaling what multiplexing hid.
 *
 * Counting events are opened with read_format TOTAL_TIME_ENABLED |
 * TOTAL_TIME_RUNNING: read() gives the count, the time the event was
 * enabled and the time it was on a counter.  When the kernel rotated groups
 * (more groups than counters), the count covers only the running time;
 * perf's estimate of the whole is count * enabled / running, which assumes
 * the event's rate was the same while the group was off the counters.
 *
 * How far off that can be is estimated from how much the rate varied:
 * the counts are read at regular ticks during the run, each tick in which
 * the group ran gives one rate (count / running time), and the estimate's
 * standard error is (enabled - running) * s / sqrt(k), with s the standard
 * deviation of the k rates: the unseen time, times the uncertainty of the
 * mean rate.  A group that always ran has no error; one seen in fewer than
 * two ticks has an unknown one.
 */
#ifndef LDLAT_COUNTS_H
#define LDLAT_COUNTS_H

#include <stdbool.h>
#include <linux/types.h>

#include "kernel/abi/evlist.h"

/* read_format of every counting event */
#define COUNTS_READ_FORMAT (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)

struct count {
	__u64 val; /* the raw count */
	__u64 ena; /* ns enabled */
	__u64 run; /* ns on a counter */
};

/* Per-tick rates, accumulated (Welford's running mean and variance). */
struct count_series {
	struct count last; /* the count at the previous tick */
	long k;		   /* ticks in which the event ran */
	double mean, m2;   /* of the rates, events per ns */
};

/* Reads one fd (COUNTS_READ_FORMAT). Returns 0 or -errno. */
int count__read_fd(int fd, struct count *c);

/* Reads every fd of the evlist and sums them per evsel into counts[nevsel]. */
int counts__read_evlist(const struct evlist *evlist, struct count *counts);

/* a - b, field by field (b taken at an earlier time). */
struct count count__sub(const struct count *a, const struct count *b);

/* running / enabled: 1 for a count that was never multiplexed; 0 when it never ran. */
double count__running(const struct count *c);

/* val * ena / run; the raw count when it always ran; 0 when it never ran. */
double count__scaled(const struct count *c);

/* Adds the tick that ends at cur (the total so far). */
void count_series__tick(struct count_series *s, const struct count *cur);

/*
 * The standard error of count__scaled(total), in events: 0 when the
 * event always ran, a negative number when it cannot be estimated (fewer
 * than two ticks with running time).
 */
double count_series__error(const struct count_series *s, const struct count *total);

#endif
