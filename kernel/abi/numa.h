/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* numa.h - the NUMA node of each CPU, from sysfs (devices/system/node/nodeN/cpulist). */
#ifndef LDLAT_NUMA_H
#define LDLAT_NUMA_H

/*
 * node[cpu] for cpu below ncpus: its node, or -1 when no node lists it (a
 * kernel without NUMA: every CPU is then node 0's).  sysfs: "/sys" (tests
 * point it at a fixture).  Returns the number of nodes seen.
 */
int numa__cpu_nodes(const char *sysfs, int *node, int ncpus);

#endif
