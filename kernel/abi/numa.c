// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/abi/numa.h"

/* Marks node n on the CPUs of list ("0-3,8"); stops at what does not parse. */
static void mark(const char *list, int n, int *node, int ncpus)
{
	const char *p = list;

	while (*p >= '0' && *p <= '9') {
		char *e;
		long lo = strtol(p, &e, 10), hi = lo, c;

		if (*e == '-')
			hi = strtol(e + 1, &e, 10);
		for (c = lo; c <= hi && c < ncpus; c++)
			node[c] = n;
		if (*e != ',')
			break;
		p = e + 1;
	}
}

int numa__cpu_nodes(const char *sysfs, int *node, int ncpus)
{
	char path[512], list[4096];
	struct dirent *d;
	int i, nodes = 0;
	DIR *dir;

	for (i = 0; i < ncpus; i++)
		node[i] = -1;
	snprintf(path, sizeof(path), "%s/devices/system/node", sysfs);
	dir = opendir(path);
	if (!dir) {
		for (i = 0; i < ncpus; i++)
			node[i] = 0;
		return 1;
	}
	while ((d = readdir(dir))) {
		char *e;
		long n;
		FILE *f;

		if (strncmp(d->d_name, "node", 4))
			continue;
		n = strtol(d->d_name + 4, &e, 10);
		if (e == d->d_name + 4 || *e || n < 0 || n > 4095)
			continue;
		snprintf(path, sizeof(path), "%s/devices/system/node/%s/cpulist", sysfs, d->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(list, sizeof(list), f))
			mark(list, (int)n, node, ncpus);
		fclose(f);
		nodes++;
	}
	closedir(dir);
	return nodes;
}
