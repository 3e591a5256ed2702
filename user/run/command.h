/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * command.h - the command after '--': started stopped at its exec, so that
 * events open and address ranges resolve against the new program before it
 * runs its first instruction; then let go.  It lives no longer than the
 * tool: however the tool ends (SIGKILL too), the kernel kills the command
 * (PR_SET_PDEATHSIG, and PTRACE_O_EXITKILL while it is traced).  A program
 * that must outlive the tool is started apart from it and named with -p.
 */
#ifndef LDLAT_COMMAND_H
#define LDLAT_COMMAND_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "kernel/lib/err.h"

struct command {
	pid_t pid;
	int pidfd;   /* readable once it exits */
	bool traced; /* stopped at exec, not yet let go */
	bool held;   /* forked, waiting for command__exec */
	int go_fd;   /* held: written to let it exec */
	int err_fd;  /* held: its exec's errno, or EOF once the exec succeeded */
	bool reaped;
	int status;	  /* wait status, once reaped */
	bool has_rusage;  /* reaped by command__reap: rusage is its wait4's */
	struct rusage ru; /* its CPU time and its waited-for children's */
};

/*
 * Forks and execs argv with an empty signal mask and SIGPIPE's default action,
 * stopping it right after exec.  Returns 0, or -errno with a sentence in err (e.g. the
 * command does not exist), nothing left running.
 */
int command__start(struct command *cmd, char *const argv[], struct err *err);

/*
 * command__start in two steps: command__fork leaves the child waiting before
 * its exec (its PID known, so that events can be opened on it with
 * enable_on_exec and count the faults of the exec itself, as perf does);
 * command__exec lets it exec and waits for the stop.  A held command that is
 * stopped instead exits without running anything.
 */
int command__fork(struct command *cmd, char *const argv[], struct err *err);
int command__exec(struct command *cmd, const char *name, struct err *err);

/* Lets the stopped command run.  Returns 0 or -errno. */
int command__resume(struct command *cmd);

/* Waits for it if it has exited (or always, with block).  True once reaped. */
bool command__reap(struct command *cmd, bool block);

/* Kills it if still running (SIGKILL when it was never let go), reaps it. */
void command__stop(struct command *cmd);

/* Exit status to pass on: its exit code, or 128 + the signal that ended it. */
int command__exit_code(const struct command *cmd);

#endif
