/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * sideband.h - the perf side band: a dummy software event on the target
 * that records, in a ring buffer, every mmap (MMAP2, code and data), exec
 * (COMM with COMM_EXEC), fork and exit, timestamped with CLOCK_MONOTONIC.
 * What perf record keeps beside the samples so that a process that has
 * exited can still be symbolized; here it is read while sampling runs.
 */
#ifndef LDLAT_SIDEBAND_H
#define LDLAT_SIDEBAND_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "kernel/abi/evlist.h"
#include "kernel/lib/err.h"

/*
 * One side-band record, from the live ring (sideband__drain) or from a
 * perf.data file (perf_file__parse_sideband): what the process model
 * (user/symbols/machine.h) applies.
 */
struct sideband_rec {
	__u32 type; /* PERF_RECORD_MMAP, _MMAP2, _COMM, _FORK, _EXIT, _CGROUP */
	__u32 pid, tid, ppid;
	__u64 time;		/* live: CLOCK_MONOTONIC ns; a file's: its sample_id time, or 0 */
	__u64 addr, len, pgoff; /* MMAP, MMAP2: the mapping, pgoff in bytes */
	bool exec;		/* COMM: the name changed by an exec */
	bool kernel;		/* MMAP, MMAP2: the kernel's text or a module's (cpumode kernel) */
	__u32 flags;		/* MMAP2: mmap's flags (MAP_SHARED, ...); else 0 */
	__u32 maj, min;		/* MMAP2 without a build ID: the file's device */
	__u64 ino, ino_generation; /* and inode */
	const __u8 *build_id; /* MMAP2 with a build ID (perf record --buildid-mmap); else NULL */
	__u8 build_id_size;
	__u64 id;	 /* CGROUP: the cgroup's ID */
	const char *str; /* MMAP, MMAP2: the file ("//anon" becomes NULL); COMM: the name;
			     CGROUP: the path */
};

struct sideband_ring {
	void *base; /* the mmap'd control page, then the data */
	size_t len;
};

struct sideband_bytes {
	char *p;
	size_t len, cap;
};

struct sideband {
	struct evlist evlist;
	int nrings;
	struct sideband_ring *rings;
	size_t data_size;	   /* bytes of data in each ring */
	struct sideband_bytes buf; /* the records of one drain, in the order read */
	__u64 lost;		   /* records the kernel could not write: rings full */
	/*
	 * The reader: a thread that empties the rings into raw whenever one is
	 * a quarter full, so that the rings keep up while the tool's own loop
	 * is busy (reading the tables, naming what they hold).
	 */
	bool reading;
	pthread_t reader;
	pthread_mutex_t mu; /* the rings' tails and raw */
	struct sideband_bytes raw;
	int stop_fd; /* an eventfd: the reader ends when it is written */
};

/*
 * Opens the dummy event on the target (a CPU list watches every CPU:
 * mappings belong to processes, not CPUs), maps its rings and enables it.
 * Returns 0 or -errno with a sentence in err.
 */
int sideband__open(struct sideband *sb, const struct target *target, struct err *err);

/*
 * Reads every ring (and what the reader took from them), and calls fn for each record in time order.  Returns
 * how many records there were, or -errno.
 */
int sideband__drain(struct sideband *sb, void (*fn)(const struct sideband_rec *r, void *ctx),
		    void *ctx);

/* Unmaps and closes. Safe on a zeroed or half-opened struct. */
void sideband__close(struct sideband *sb);

#endif
