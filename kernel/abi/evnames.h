/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * evnames.h - perf's names for the events the kernel defines itself: the
 * generic hardware events (PERF_TYPE_HARDWARE: cycles, instructions, ...),
 * the hardware-cache events (PERF_TYPE_HW_CACHE: cache x op x result, as
 * "L1-dcache-load-misses", "LLC-loads", "dTLB-store-misses") and the software
 * events (PERF_TYPE_SOFTWARE: page-faults, task-clock, ...).  Names, aliases
 * and the valid cache x op combinations follow tools/perf (evsel.c,
 * parse-events.c), so a name perf accepts means the same event here.
 */
#ifndef LDLAT_EVNAMES_H
#define LDLAT_EVNAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/perf_event.h>

#include "kernel/lib/err.h"

/*
 * Looks name up (case-insensitive, perf's aliases accepted) and sets
 * attr->type and attr->config; the canonical name goes to canon.
 * Returns 0, -ENOENT when it is not such a name (try another kind), or
 * -EINVAL for a cache name with an op the kernel does not define for that
 * cache ("L1-icache-stores"), with a sentence in err.
 */
int evname__lookup(const char *name, struct perf_event_attr *attr, char *canon, size_t len,
		   struct err *err);

/* Whether the kernel defines op (PERF_COUNT_HW_CACHE_OP_*) for cache. */
bool evname__cache_op_valid(unsigned int cache, unsigned int op);

/*
 * Every hardware-cache event the kernel defines, in perf's order (cache,
 * op, then access before miss), as config values.  Returns how many (32),
 * writing at most max.
 */
int evname__cache_all(__u64 *configs, int max);

/* The cache, op and result of a PERF_TYPE_HW_CACHE config; false when out of range. */
bool evname__cache_decode(__u64 config, unsigned int *cache, unsigned int *op,
			  unsigned int *result);

/* The config of cache/op/result. */
static inline __u64 evname__cache_config(unsigned int cache, unsigned int op, unsigned int result)
{
	return cache | (op << 8) | ((__u64)result << 16);
}

/*
 * perf's name for a HARDWARE, HW_CACHE or SOFTWARE type/config ("LLC-load-misses");
 * false (and "type:config" in buf) for anything else.
 */
bool evname__name(__u32 type, __u64 config, char *buf, size_t len);

#endif
