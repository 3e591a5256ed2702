/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* cpumap.h - sets of CPU numbers, as the kernel writes them ("0-3,8"). */
#ifndef LDLAT_CPUMAP_H
#define LDLAT_CPUMAP_H

#include <stdbool.h>

#include "kernel/lib/err.h"

#define CPUMAP_MAX 8192 /* CPU numbers at or above are refused */

struct cpumap {
	int nr;
	int *cpu; /* sorted, unique */
};

/*
 * Parses a CPU list ("0-3,8,10-11").  Returns 0, or -EINVAL for a malformed or
 * empty list (err names the part that is wrong), -ENOMEM.
 */
int cpumap__parse(struct cpumap *map, const char *list, struct err *err);

/*
 * The online CPUs (sysfs devices/system/cpu/online).  Returns 0 or -errno
 * with err's sentence naming the file; any failure is the system's.
 */
int cpumap__online(struct cpumap *map, struct err *err);

bool cpumap__has(const struct cpumap *map, int cpu);

/* out = the CPUs in both a and b (out may be empty). Returns 0 or -ENOMEM. */
int cpumap__intersect(struct cpumap *out, const struct cpumap *a, const struct cpumap *b);

/* out = a copy of a. Returns 0 or -ENOMEM. */
int cpumap__copy(struct cpumap *out, const struct cpumap *a);

/* "0-3,8" into buf. */
void cpumap__snprint(const struct cpumap *map, char *buf, size_t len);

void cpumap__free(struct cpumap *map);

#endif
