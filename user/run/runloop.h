/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * runloop.h - waiting while the kernel samples: until the duration is over,
 * Ctrl-C (SIGINT), SIGTERM or another signal that would end the process
 * (SIGHUP, SIGQUIT, SIGUSR1, SIGALRM, ...: see signals.h), the command
 * exits, every -p process exits, the -G cgroup is removed, or the interval
 * count is reached; calling back at every interval.  However slow a report,
 * every round polls the signalfd and the processes and checks the duration:
 * at most one interval report and one reading per round, and ticks that fell
 * behind are skipped, not caught up.
 */
#ifndef LDLAT_RUNLOOP_H
#define LDLAT_RUNLOOP_H

#include <stdbool.h>
#include <sys/types.h>

#include "user/run/command.h"

enum run_end {
	RUN_SIGNAL,   /* SIGINT, SIGTERM, or another that would end the process */
	RUN_DURATION, /* -d elapsed */
	RUN_COMMAND,  /* the command exited (and was reaped) */
	RUN_TARGETS,  /* every -p process exited, or the -G cgroup was removed */
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
	double tick;		   /* seconds between calls of on_tick, 0: none */
	int (*on_tick)(void *ctx); /* like on_interval, but prints nothing: a reading */
	bool has_cgroup;	   /* cgroup_fd: the -G directory, whose removal ends the run */
	int cgroup_fd;
};

/*
 * The shortest -i and -d: a report takes milliseconds, a tick is a report,
 * and the loop wakes on a timer of that grain; a shorter duration would end
 * the run before its first reading.
 */
#define RUNLOOP_MIN_SECONDS 0.01
#define RUNLOOP_TOO_SHORT                                                                          \
	"shorter than 0.01 seconds, the shortest duration or interval a run honours (a report "    \
	"takes milliseconds)"

/* How often a -G run looks whether its cgroup is still there, in seconds. */
#define RUNLOOP_CGROUP_CHECK 0.25

/*
 * Runs until one of the ends above; on_interval (may be NULL) is called at
 * each interval, and may return non-zero to stop with RUN_ERROR.
 */
enum run_end runloop__run(const struct runloop *rl, int sigfd, int (*on_interval)(void *ctx),
			  void *ctx);

#endif
