/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * runloop.h - waiting while the kernel samples: until the duration is over,
 * Ctrl-C (SIGINT) or SIGTERM, the command exits, every -p process exits, or
 * the interval count is reached; calling back at every interval.
 */
#ifndef LDLAT_RUNLOOP_H
#define LDLAT_RUNLOOP_H

#include <sys/types.h>

#include "command.h"

enum run_end {
	RUN_SIGNAL,   /* SIGINT, SIGTERM or SIGHUP */
	RUN_DURATION, /* -d elapsed */
	RUN_COMMAND,  /* the command exited (and was reaped) */
	RUN_TARGETS,  /* every -p process exited */
	RUN_COUNT,    /* -i N intervals printed */
	RUN_ERROR,
};

struct runloop {
	double duration; /* seconds, 0: none */
	double interval; /* seconds, 0: none */
	long count;	 /* intervals, 0: no limit */
	struct command *cmd;
	int nprocs;
	pid_t *procs;
	double tick; /* seconds between calls of on_tick, 0: none */
	int (*on_tick)(void *ctx); /* like on_interval, but prints nothing: a reading */
};

/*
 * Blocks SIGINT, SIGTERM and SIGHUP so that they are read from a signalfd
 * (call before starting a command: it restores the mask for the child).
 * Returns the signalfd, or -errno.
 */
int runloop__signals(void);

/*
 * Runs until one of the ends above; on_interval (may be NULL) is called at
 * each interval, and may return non-zero to stop with RUN_ERROR.
 */
enum run_end runloop__run(const struct runloop *rl, int sigfd, int (*on_interval)(void *ctx),
			  void *ctx);

#endif
