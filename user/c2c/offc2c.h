/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * offc2c.h - ldlat-c2c --input: the load and store samples of a perf.data
 * file (perf c2c record, perf mem record -t load,store) into the cache-line
 * table (c2ctable.h), each judged by the native build of the BPF program's
 * filters (-p, -a: offline.h) and counted by bpf/c2c.h's logic; the file's
 * MMAP, MMAP2, COMM, FORK and EXIT records into a process model, in file
 * order, to name the code addresses; MAP_SHARED data mappings (MMAP2's
 * flags) to tell shared lines from private ones; the NUMA topology perf
 * records (HEADER_NUMA_TOPOLOGY) to give each sample's CPU its node; and,
 * where the samples carry a cgroup ID (perf record --all-cgroups), the
 * CGROUP records' paths to name each process's cgroup.
 */
#ifndef LDLAT_OFFC2C_H
#define LDLAT_OFFC2C_H

#include <stdbool.h>

#include "kernel/lib/err.h"
#include "user/offline/offline.h"
#include "user/symbols/procmaps.h"
#include "user/symbols/symbolize.h"
#include "user/c2c/c2ctable.h"

/* A MAP_SHARED data mapping of a process, as an MMAP2 record gave it. */
struct offc2c_shared {
	__u32 pid;
	__u64 start, end, pgoff;
	__u64 space; /* c2c_table__space's */
	const char *name;
};

struct offc2c {
	struct offline o; /* the file, its events, the configuration */
	struct c2c_table t;
	struct procmaps pm; /* the processes as the records leave them */
	struct symbolizer z;
	bool z_init;
	struct offc2c_shared *shared;
	int nshared;
	struct offc2c_cgroup {
		__u64 id;
		const char *path; /* into the file */
	} * cgroups;		  /* PERF_RECORD_CGROUP: a cgroup's ID and path */
	int ncgroups;
	__u64 filtered; /* samples the filters (-p, -a, -s, --min-lat...) dropped */
	__u64 kept;	/* samples counted */
};

/*
 * Opens the file (offline__open with loads and stores kept), checks that its
 * samples carry a data address and a data source.  0 or -errno with a
 * sentence in err (-EINVAL: a bad file or option).
 */
int offc2c__open(struct offc2c *c, const char *path, struct cli *cli, const char *debuginfo,
		 struct err *err);

/* Every record of the file into the table and the process model. 0 or -EINVAL and err. */
int offc2c__read(struct offc2c *c, struct err *err);

void offc2c__close(struct offc2c *c);

#endif
