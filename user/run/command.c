// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "user/run/command.h"
#include "user/run/signals.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/*
 * The child: tied to the tool, traced (its exec stops it), it waits until the
 * tool writes to go (or closes it) and execs; its errno goes back on errfd.
 */
static void command__child(int gofd, int errfd, pid_t tool, char *const argv[])
{
	int child_errno;
	ssize_t n;
	char c;

	signals__child();
	/*
	 * the command dies with the tool, even of SIGKILL: nothing samples
	 * it then, and a breakpoint the tool set would be left in it
	 */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != tool)
		_exit(127); /* the tool died before it could be tied to it */
	while ((n = read(gofd, &c, 1)) < 0 && errno == EINTR)
		;
	if (n != 1)
		_exit(127); /* the tool gave up before the exec */
	/* the parent sees the exec as a SIGTRAP stop, before the first instruction */
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0)
		execvp(argv[0], argv);
	child_errno = errno;
	if (write(errfd, &child_errno, sizeof(child_errno)) < 0)
		_exit(127);
	_exit(127);
}

int command__fork(struct command *cmd, char *const argv[], struct err *err)
{
	int errpipe[2], gopipe[2];
	pid_t tool = getpid();

	memset(cmd, 0, sizeof(*cmd));
	cmd->pidfd = cmd->go_fd = cmd->err_fd = -1;
	if (pipe2(errpipe, O_CLOEXEC)) {
		err__msg(err, "pipe: %s", strerror(errno));
		return -errno;
	}
	if (pipe2(gopipe, O_CLOEXEC)) {
		err__msg(err, "pipe: %s", strerror(errno));
		close(errpipe[0]);
		close(errpipe[1]);
		return -errno;
	}
	cmd->pid = fork();
	if (cmd->pid < 0) {
		int e = errno;

		err__msg(err, "cannot fork to run '%s': %s", argv[0], strerror(e));
		close(errpipe[0]);
		close(errpipe[1]);
		close(gopipe[0]);
		close(gopipe[1]);
		return -e;
	}
	if (cmd->pid == 0) {
		close(errpipe[0]);
		close(gopipe[1]);
		command__child(gopipe[0], errpipe[1], tool, argv);
	}
	close(errpipe[1]);
	close(gopipe[0]);
	cmd->go_fd = gopipe[1];
	cmd->err_fd = errpipe[0];
	cmd->held = true;
	return 0;
}

int command__exec(struct command *cmd, const char *name, struct err *err)
{
	int child_errno = 0, st;
	ssize_t n;
	char c = 1;

	if (!cmd->held)
		return err__set(err, -EINVAL, "'%s' is not waiting for its exec", name);
	cmd->held = false;
	while ((n = write(cmd->go_fd, &c, 1)) < 0 && errno == EINTR)
		;
	close(cmd->go_fd);
	cmd->go_fd = -1;
	while ((n = read(cmd->err_fd, &child_errno, sizeof(child_errno))) < 0 && errno == EINTR)
		;
	close(cmd->err_fd);
	cmd->err_fd = -1;
	if (n == sizeof(child_errno)) {
		waitpid(cmd->pid, &st, 0);
		cmd->reaped = true;
		err__msg(err, "cannot run '%s': %s", name, strerror(child_errno));
		return -child_errno;
	}
	/* exec succeeded (the pipe closed on exec): wait for the stop it caused */
	while (waitpid(cmd->pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFSTOPPED(st)) {
		cmd->reaped = true;
		cmd->status = st;
		return err__set(err, -ECHILD, "'%s' ended before it could be watched", name);
	}
	cmd->traced = true;
	/* while traced (run to its entry, int3 in its text), the tracer's death kills it */
	ptrace(PTRACE_SETOPTIONS, cmd->pid, NULL, (void *)(long)PTRACE_O_EXITKILL);
	cmd->pidfd = (int)syscall(SYS_pidfd_open, cmd->pid, 0);
	if (cmd->pidfd < 0) {
		int e = errno;

		err__msg(err, "pidfd_open: %s (Linux 5.3 or later is needed)", strerror(e));
		command__stop(cmd);
		return -e;
	}
	return 0;
}

int command__start(struct command *cmd, char *const argv[], struct err *err)
{
	int e = command__fork(cmd, argv, err);

	return e ? e : command__exec(cmd, argv[0], err);
}

int command__resume(struct command *cmd)
{
	if (!cmd->traced)
		return 0;
	if (ptrace(PTRACE_DETACH, cmd->pid, NULL, NULL))
		return -errno;
	cmd->traced = false;
	return 0;
}

bool command__reap(struct command *cmd, bool block)
{
	pid_t r;
	int st;

	if (cmd->reaped || cmd->pid <= 0)
		return true;
	/* wait4: its rusage, the CPU time perf stat prints as user and sys */
	do
		r = wait4(cmd->pid, &st, block ? 0 : WNOHANG, &cmd->ru);
	while (r < 0 && errno == EINTR);
	if (r == cmd->pid && (WIFEXITED(st) || WIFSIGNALED(st))) {
		cmd->reaped = true;
		cmd->status = st;
		cmd->has_rusage = true;
	} else if (r < 0) {
		cmd->reaped = true; /* not our child any more: nothing to wait for */
	}
	if (cmd->reaped && cmd->pidfd >= 0) {
		close(cmd->pidfd);
		cmd->pidfd = -1;
	}
	return cmd->reaped;
}

void command__stop(struct command *cmd)
{
	int i;

	if (cmd->go_fd >= 0)
		close(cmd->go_fd); /* a child still waiting for its exec exits */
	if (cmd->err_fd >= 0)
		close(cmd->err_fd);
	cmd->go_fd = cmd->err_fd = -1;
	cmd->held = false;
	if (cmd->pid <= 0 || cmd->reaped)
		goto out;
	/* a traced, stopped child would not act on SIGTERM until let go */
	kill(cmd->pid, cmd->traced ? SIGKILL : SIGTERM);
	for (i = 0; i < 200 && !command__reap(cmd, false); i++)
		usleep(10000);
	if (!cmd->reaped) {
		kill(cmd->pid, SIGKILL);
		while (!command__reap(cmd, true))
			;
	}
out:
	if (cmd->pidfd >= 0) {
		close(cmd->pidfd);
		cmd->pidfd = -1;
	}
}

int command__exit_code(const struct command *cmd)
{
	if (!cmd->reaped)
		return 0;
	if (WIFEXITED(cmd->status))
		return WEXITSTATUS(cmd->status);
	if (WIFSIGNALED(cmd->status))
		return 128 + WTERMSIG(cmd->status);
	return 1;
}
