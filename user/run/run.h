/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * run.h - what every tool's run shares, sampling or counting: the signals
 * that end it read from a signalfd (signals.h: every exit path cleans up),
 * the command after '--'
 * started stopped at its exec, the target built from -C, -p, -G or the
 * command, waiting as -d and -i say (run__wait, the one way a tool waits),
 * and the exit status.
 */
#ifndef LDLAT_RUN_H
#define LDLAT_RUN_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "kernel/lib/err.h"
#include "user/run/cli.h"
#include "user/run/command.h"
#include "user/run/runloop.h"

struct run {
	const char *name; /* the tool, for messages */
	const struct cli *cli;
	int sigfd;
	struct command cmd;
	bool has_cmd;
	bool hold_exec; /* run__prepare leaves the command before its exec: run__exec */
	struct target target;
	bool target_built;
	pid_t *procs; /* the -p processes */
	int nprocs;
	char target_desc[PATH_MAX + 512]; /* -G's path whole, and its CPUs */
};

/* Sets r up empty; run__teardown is safe after it. */
void run__init(struct run *r, const struct cli *cli, const char *name);

/* Blocks the signals into a signalfd (before any command starts). */
int run__signals(struct run *r, struct err *err);

/*
 * Starts the command, stopped at its exec, and builds the target.  Returns
 * 0 or -errno with a sentence in err (-EINVAL for a command that cannot be
 * run, a PID or cgroup that is not there).
 */
int run__prepare(struct run *r, struct err *err);

/*
 * With hold_exec, run__prepare forks the command but leaves it waiting
 * before its exec, so that the events opened on it with enable_on_exec count
 * from inside the exec, as perf's do; run__exec lets it exec and waits for
 * the stop (nothing to do otherwise).  Returns 0 or -errno with a sentence
 * in err (-EINVAL for a command that cannot be run).
 */
int run__exec(struct run *r, struct err *err);

/* Whether the command waits before its exec (run__exec not yet called). */
bool run__before_exec(const struct run *r);

/* Lets the command run (nothing to do without one). */
int run__go(struct run *r, struct err *err);

/* What a run calls while it waits; every member may be 0 or NULL. */
struct run_wait {
	/* at each -i interval: a report; non-zero stops the run with RUN_ERROR */
	int (*on_interval)(void *ctx);
	/* every tick seconds: a reading between reports, printing nothing; likewise */
	int (*on_tick)(void *ctx);
	double tick;
	void *ctx;
};

/*
 * Waits while the kernel samples, as the options say: until -d is over,
 * Ctrl-C (SIGINT), SIGTERM or another signal that would end the process
 * (SIGHUP, SIGQUIT, SIGUSR1, SIGALRM, ...: see signals.h), the command
 * exits, every -p process exits, the -G cgroup is removed (with a
 * warning), or -i's count is reached (runloop.h's enum run_end); calling
 * w's callbacks (w may be NULL: none).  However slow a report, every round
 * polls the signalfd and the processes and checks the duration: at most one
 * interval report and one reading per round, and ticks that fell behind
 * are skipped, not caught up.  A run with no command and no target (a
 * pinned set's -i) waits for the signals and the options alone.
 */
enum run_end run__wait(struct run *r, const struct run_wait *w);

/* The exit status after a run that ended with end. */
int run__exit_status(const struct run *r, enum run_end end);

/* Kills the command if it still runs and frees the target; run__prepare may follow. */
void run__release(struct run *r);

/* run__release, and closes the signalfd. Safe to call twice. */
void run__teardown(struct run *r);

#endif
