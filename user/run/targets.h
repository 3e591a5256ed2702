/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * targets.h - what the user asked to watch (-C, -p, -G, or a command) turned
 * into a struct target the evlist can open on.
 */
#ifndef LDLAT_TARGETS_H
#define LDLAT_TARGETS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "kernel/abi/evlist.h"
#include "kernel/lib/err.h"

struct target_opts {
	const char *cpus;   /* -C LIST */
	const char *pids;   /* -p PID[,PID...] */
	const char *cgroup; /* -G PATH */
	char **argv;	    /* the command after --, NULL-terminated; NULL: none */
	bool inherit;	    /* --inherit */
};

/*
 * Checks the options for conflicts and malformed values without touching the
 * system beyond reading it.  Returns 0 or -EINVAL with a sentence in err.
 */
int target_opts__check(const struct target_opts *o, struct err *err);

/* Parses -p's list (PID[,PID...]) into a malloc'd array; -EINVAL with a sentence in err. */
int target__parse_pids(const char *list, pid_t **out, int *n, struct err *err);

/*
 * Builds the target.  cmd_pid is the started command's PID (0: none).  The
 * processes whose exit ends the run (the -p PIDs) are returned in *procs.
 * Returns 0, -EINVAL (no such PID, not a cgroup v2 directory, CPU not
 * online) with a sentence in err, the system's -ESRCH (kernel/lib/err.h) for a
 * process that exited while this ran, or another -errno.
 */
int target__build(struct target *t, const struct target_opts *o, pid_t cmd_pid, pid_t **procs,
		  int *nprocs, struct err *err);

/*
 * "system-wide", "CPUs 0-3", "PID 42 (3 threads)", "cgroup /sys/fs/...",
 * "cgroup /sys/fs/... on CPUs 1": for headers.
 */
void target__describe(const struct target *t, const struct target_opts *o, char *buf, size_t len);

/* Where cgroup v2 is mounted ("/sys/fs/cgroup/unified"), or NULL. */
const char *cgroup2__mount(void);

#endif
