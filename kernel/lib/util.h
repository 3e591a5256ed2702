/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* util.h - the few helpers every layer writes otherwise: array sizes and growth, time. */
#ifndef LDLAT_UTIL_H
#define LDLAT_UTIL_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/types.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Room for one more element of size bytes at the end of the array *v
 * points to, which holds n of *cap (first: the capacity of a first
 * allocation; then it doubles).  0 or -ENOMEM, *v as it was.
 */
static inline int array__room(void *v, int n, int *cap, size_t size, int first)
{
	void *p;
	int c;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : first;
	memcpy(&p, v, sizeof(p)); /* v points to a pointer of another type: no aliasing */
	p = realloc(p, (size_t)c * size);
	if (!p)
		return -ENOMEM;
	memcpy(v, &p, sizeof(p));
	*cap = c;
	return 0;
}

#define NSEC_PER_SEC 1000000000ull

/* A timespec in seconds. */
static inline double ts__seconds(const struct timespec *ts)
{
	return (double)ts->tv_sec + (double)ts->tv_nsec / 1e9;
}

/* A timespec in nanoseconds. */
static inline __u64 ts__ns(const struct timespec *ts)
{
	return (__u64)ts->tv_sec * NSEC_PER_SEC + (__u64)ts->tv_nsec;
}

/*
 * The seconds from one timespec to another, each field subtracted before the
 * sum in double: no precision lost to their distance from the epoch.
 */
static inline double ts__seconds_between(const struct timespec *from, const struct timespec *to)
{
	return (double)(to->tv_sec - from->tv_sec) + (double)(to->tv_nsec - from->tv_nsec) / 1e9;
}

/* Nanoseconds as a timespec. */
static inline struct timespec ts__from_ns(__u64 ns)
{
	return (struct timespec){ .tv_sec = (time_t)(ns / NSEC_PER_SEC),
				  .tv_nsec = (long)(ns % NSEC_PER_SEC) };
}

/* Seconds on a clock (CLOCK_MONOTONIC, CLOCK_REALTIME), now. */
static inline double clock__seconds(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts__seconds(&ts);
}

/* Seconds on CLOCK_MONOTONIC, now: for spans of time and deadlines. */
static inline double clock__monotonic(void)
{
	return clock__seconds(CLOCK_MONOTONIC);
}

#endif
