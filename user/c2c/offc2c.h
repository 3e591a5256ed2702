/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * offc2c.h - ldlat-c2c --input: the load and store samples of a perf.data
 * file (perf c2c record, perf mem record -t load,store) into the cache-line
 * table (c2ctable.h), each judged by the native build of the BPF program's
 * filters (-p, -a: offline.h) and counted by bpf/c2c.h's logic; the file's
 * side-band records into the process model (machine.h), in time order (a
 * file's records are in time order per CPU only), to name the code
 * addresses and the data types their instructions touch, to tell shared lines from private ones by the
 * MAP_SHARED file mappings it met (MMAP2's flags), and, where the samples
 * carry a cgroup ID (perf record --all-cgroups), to name each process's
 * cgroup by the CGROUP records' paths; the NUMA topology perf records
 * (HEADER_NUMA_TOPOLOGY) gives each sample's CPU its node.
 */
#ifndef LDLAT_OFFC2C_H
#define LDLAT_OFFC2C_H

#include <stdbool.h>

#include "kernel/lib/err.h"
#include "user/offline/offline.h"
#include "user/symbols/machine.h"
#include "user/symbols/symbolize.h"
#include "user/c2c/c2ctable.h"

struct offc2c {
	struct offline o; /* the file, its events, the configuration */
	struct c2c_table t;
	struct machine m; /* the processes as the records leave them */
	struct symbolizer z;
	bool z_init;
	__u64 filtered;	       /* samples the filters (-p, -a, -s, --min-lat...) dropped */
	__u64 kept;	       /* samples counted */
	const char *line_from; /* where the line size came from (c2c_line_shift) */
};

/*
 * Opens the file (offline__open with loads and stores kept), checks that its
 * samples carry a data address (those without a data source count as
 * loads of unknown source, as a live run's page faults).  0 or -errno with a
 * sentence in err (-EINVAL: a bad file or option).
 */
int offc2c__open(struct offc2c *c, const char *path, struct cli *cli, const char *debuginfo,
		 struct err *err);

/* Every record of the file into the table and the process model. 0 or -EINVAL and err. */
int offc2c__read(struct offc2c *c, struct err *err);

void offc2c__close(struct offc2c *c);

#endif
