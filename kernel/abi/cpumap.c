// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/abi/cpumap.h"
#include "kernel/abi/sysfs.h"

static int parse_cpu(const char **p, int *cpu)
{
	char *end;
	unsigned long v;

	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	errno = 0;
	v = strtoul(*p, &end, 10);
	if (errno || v >= CPUMAP_MAX)
		return -EINVAL;
	*cpu = (int)v;
	*p = end;
	return 0;
}

int cpumap__parse(struct cpumap *map, const char *list, struct err *err)
{
	char *seen;
	const char *p = list, *item;
	int lo, hi, c, n = 0;

	map->nr = 0;
	map->cpu = NULL;
	seen = calloc(CPUMAP_MAX, 1);
	if (!seen)
		return -ENOMEM;
	while (*p) {
		item = p;
		if (parse_cpu(&p, &lo))
			goto bad;
		hi = lo;
		if (*p == '-') {
			p++;
			if (parse_cpu(&p, &hi) || hi < lo)
				goto bad;
		}
		if (*p == ',' && p[1])
			p++;
		else if (*p)
			goto bad;
		for (c = lo; c <= hi; c++)
			seen[c] = 1;
		continue;
	bad:
		err__msg(err, "'%.*s' in CPU list '%s' is not a CPU number or range (e.g. 0-3,8)",
			 (int)strcspn(item, ","), item, list);
		free(seen);
		return -EINVAL;
	}
	for (c = 0; c < CPUMAP_MAX; c++)
		n += seen[c];
	if (!n) {
		err__msg(err, "empty CPU list");
		free(seen);
		return -EINVAL;
	}
	map->cpu = malloc(n * sizeof(*map->cpu));
	if (!map->cpu) {
		free(seen);
		return -ENOMEM;
	}
	for (c = 0; c < CPUMAP_MAX; c++)
		if (seen[c])
			map->cpu[map->nr++] = c;
	free(seen);
	return 0;
}

int cpumap__online(struct cpumap *map, struct err *err)
{
	static const char rel[] = "devices/system/cpu/online";
	char buf[4096], path[4096];
	int e = sysfs__read(rel, buf, sizeof(buf));

	if (e >= 0)
		e = cpumap__parse(map, buf, err);
	if (e < 0) {
		sysfs__path(path, sizeof(path), rel);
		/* the kernel's file, not the user's input, whatever the errno */
		err__msg(err, "cannot read the online CPUs from %s: %s", path,
			 e == -EINVAL ? err->msg : strerror(-e));
		return err__system(err, e);
	}
	return 0;
}

bool cpumap__has(const struct cpumap *map, int cpu)
{
	int lo = 0, hi = map->nr - 1, mid;

	while (lo <= hi) {
		mid = (lo + hi) / 2;
		if (map->cpu[mid] == cpu)
			return true;
		if (map->cpu[mid] < cpu)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return false;
}

int cpumap__intersect(struct cpumap *out, const struct cpumap *a, const struct cpumap *b)
{
	int i;

	out->nr = 0;
	out->cpu = malloc((a->nr ? a->nr : 1) * sizeof(*out->cpu));
	if (!out->cpu)
		return -ENOMEM;
	for (i = 0; i < a->nr; i++)
		if (cpumap__has(b, a->cpu[i]))
			out->cpu[out->nr++] = a->cpu[i];
	return 0;
}

int cpumap__copy(struct cpumap *out, const struct cpumap *a)
{
	out->nr = 0;
	out->cpu = malloc((a->nr ? a->nr : 1) * sizeof(*out->cpu));
	if (!out->cpu)
		return -ENOMEM;
	if (a->nr) /* an empty map's cpu may be NULL: memcpy's source must not be */
		memcpy(out->cpu, a->cpu, a->nr * sizeof(*out->cpu));
	out->nr = a->nr;
	return 0;
}

void cpumap__snprint(const struct cpumap *map, char *buf, size_t len)
{
	size_t off = 0;
	int i, j;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < map->nr && off < len; i = j + 1) {
		for (j = i; j + 1 < map->nr && map->cpu[j + 1] == map->cpu[j] + 1; j++)
			;
		if (j == i)
			off += snprintf(buf + off, len - off, "%s%d", i ? "," : "", map->cpu[i]);
		else
			off += snprintf(buf + off, len - off, "%s%d-%d", i ? "," : "", map->cpu[i],
					map->cpu[j]);
	}
}

void cpumap__free(struct cpumap *map)
{
	free(map->cpu);
	map->cpu = NULL;
	map->nr = 0;
}
