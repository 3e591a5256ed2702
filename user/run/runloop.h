/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * runloop.h - how a run's wait ends (run__wait, run.h, is the one way a
 * tool waits), and the shortest interval it honours.
 */
#ifndef LDLAT_RUNLOOP_H
#define LDLAT_RUNLOOP_H

enum run_end {
	RUN_SIGNAL,   /* SIGINT, SIGTERM, or another that would end the process */
	RUN_DURATION, /* -d elapsed */
	RUN_COMMAND,  /* the command exited (and was reaped) */
	RUN_TARGETS,  /* every -p process exited, or the -G cgroup was removed */
	RUN_COUNT,    /* -i N intervals printed */
	RUN_ERROR,
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

#endif
