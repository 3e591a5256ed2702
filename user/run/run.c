// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "user/run/run.h"
#include "user/run/signals.h"
#include "kernel/lib/notice.h"
#include "kernel/lib/util.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

void run__init(struct run *r, const struct cli *cli, const char *name)
{
	memset(r, 0, sizeof(*r));
	r->name = name;
	r->cli = cli;
	r->sigfd = -1;
	r->target.cgroup_fd = -1;
}

int run__signals(struct run *r, struct err *err)
{
	r->sigfd = signals__fd();
	if (r->sigfd < 0) {
		err__msg(err, "cannot set up signal handling: %s", strerror(-r->sigfd));
		return r->sigfd;
	}
	return 0;
}

int run__prepare(struct run *r, struct err *err)
{
	const struct cli *cli = r->cli;
	int e;

	if (cli->target.argv) {
		if (r->hold_exec)
			e = command__fork(&r->cmd, cli->target.argv, err);
		else
			e = command__start(&r->cmd, cli->target.argv, err);
		if (e)
			return e == -ENOENT || e == -EACCES || e == -ENOEXEC ? -EINVAL : e;
		r->has_cmd = true;
	}
	e = target__build(&r->target, &cli->target, r->has_cmd ? r->cmd.pid : 0, &r->procs,
			  &r->nprocs, err);
	if (e)
		return e;
	r->target_built = true;
	target__describe(&r->target, &cli->target, r->target_desc, sizeof(r->target_desc));
	return 0;
}

int run__exec(struct run *r, struct err *err)
{
	int e;

	if (!run__before_exec(r))
		return 0;
	e = command__exec(&r->cmd, r->cli->target.argv[0], err);
	return e == -ENOENT || e == -EACCES || e == -ENOEXEC ? -EINVAL : e;
}

bool run__before_exec(const struct run *r)
{
	return r->has_cmd && r->cmd.held;
}

int run__go(struct run *r, struct err *err)
{
	int e;

	if (!r->has_cmd)
		return 0;
	e = run__exec(r, err);
	if (e)
		return e;
	e = command__resume(&r->cmd);
	if (e)
		err__msg(err, "cannot let '%s' run: %s", r->cli->target.argv[0], strerror(-e));
	return e;
}

/*
 * The next time a tick of period seconds is due after one due at *next:
 * one period later, or, when the report ran past that, one period after
 * now (the ticks in between are skipped, never printed in a burst).
 */
static void tick__advance(double *next, double period)
{
	double t = clock__monotonic();

	*next += period;
	if (*next <= t)
		*next = t + period;
}

/*
 * Whether the -G cgroup has gone: once it is removed, reading its
 * cgroup.events fails (ENODEV).  Nothing wakes a poll() at the removal
 * (POLLPRI comes with a change of 'populated', and a cgroup is empty before
 * it can be removed), so the loop asks every RUNLOOP_CGROUP_CHECK seconds.
 */
static bool cgroup__removed(int events_fd)
{
	char buf[256];

	return pread(events_fd, buf, sizeof(buf), 0) < 0;
}

/* run__wait's loop, with w's callbacks; has_cgroup: the -G directory's removal ends it. */
static enum run_end run__loop(struct run *r, const struct run_wait *w, bool has_cgroup)
{
	const struct cli *cli = r->cli;
	struct command *cmd = r->has_cmd ? &r->cmd : NULL;
	struct pollfd *pfd;
	struct signalfd_siginfo si;
	double start = clock__monotonic(), next_tick = start + cli->interval,
	       end = start + cli->duration, t, wait, next_read = start + w->tick;
	enum run_end res = RUN_ERROR;
	int i, n, alive = r->nprocs, ticks = 0, cmd_slot = -1, cg_fd = -1, timeout;

	/* 0: the signalfd; then the command's pidfd; then one pidfd per -p process */
	pfd = calloc(2 + r->nprocs, sizeof(*pfd));
	if (!pfd)
		return RUN_ERROR;
	pfd[0].fd = r->sigfd;
	pfd[0].events = POLLIN;
	n = 1;
	if (cmd && cmd->pidfd >= 0) {
		cmd_slot = n;
		pfd[n].fd = cmd->pidfd;
		pfd[n++].events = POLLIN;
	}
	/*
	 * Without cgroup.events the run ends as the other ends say: the root
	 * has none, and cannot be removed.  A cgroup removed already has no
	 * files at all, not even cgroup.procs, which the root has.
	 */
	if (has_cgroup) {
		cg_fd = openat(r->target.cgroup_fd, "cgroup.events", O_RDONLY | O_CLOEXEC);
		if ((cg_fd < 0 && errno == ENOENT &&
		     faccessat(r->target.cgroup_fd, "cgroup.procs", F_OK, 0) && errno == ENOENT) ||
		    (cg_fd >= 0 && cgroup__removed(cg_fd))) {
			res = RUN_TARGETS;
			goto out;
		}
	}
	for (i = 0; i < r->nprocs; i++) {
		pfd[n].fd = (int)syscall(SYS_pidfd_open, r->procs[i], 0);
		pfd[n].events = POLLIN;
		if (pfd[n].fd < 0) /* already gone */
			alive--;
		n++;
	}
	if (r->nprocs && alive <= 0) {
		res = RUN_TARGETS;
		goto out;
	}
	for (;;) {
		/* how long until something is due: nothing at all when a tick is */
		t = clock__monotonic();
		wait = 3600;
		if (cli->duration && end - t < wait)
			wait = end - t;
		if (cli->interval && next_tick - t < wait)
			wait = next_tick - t;
		if (w->tick && next_read - t < wait)
			wait = next_read - t;
		if (cg_fd >= 0 && RUNLOOP_CGROUP_CHECK < wait)
			wait = RUNLOOP_CGROUP_CHECK;
		timeout = wait > 0 ? (int)(wait * 1000) + 1 : 0;
		if (poll(pfd, n, timeout) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[0].revents & POLLIN) {
			if (read(r->sigfd, &si, sizeof(si)) == sizeof(si)) {
				res = RUN_SIGNAL;
				break;
			}
		}
		if (cmd_slot > 0 && (pfd[cmd_slot].revents & (POLLIN | POLLHUP))) {
			command__reap(cmd, true);
			res = RUN_COMMAND;
			break;
		}
		if (cg_fd >= 0 && cgroup__removed(cg_fd)) {
			res = RUN_TARGETS;
			break;
		}
		for (i = (cmd_slot > 0 ? 2 : 1); i < n; i++) {
			if (pfd[i].fd < 0 || !(pfd[i].revents & (POLLIN | POLLHUP)))
				continue;
			close(pfd[i].fd);
			pfd[i].fd = -1; /* poll ignores negative fds */
			alive--;
		}
		if (r->nprocs && alive <= 0) {
			res = RUN_TARGETS;
			break;
		}
		/* a tick due at the end is printed as a whole interval, before the end */
		t = clock__monotonic();
		if (cli->interval && t >= next_tick) {
			if (w->on_interval && w->on_interval(w->ctx))
				break;
			tick__advance(&next_tick, cli->interval);
			if (cli->count && ++ticks >= cli->count) {
				res = RUN_COUNT;
				break;
			}
		}
		if (w->tick && t >= next_read) {
			if (w->on_tick(w->ctx))
				break;
			tick__advance(&next_read, w->tick);
		}
		if (cli->duration && t >= end) {
			res = RUN_DURATION;
			break;
		}
	}
out:
	for (i = (cmd_slot > 0 ? 2 : 1); i < n; i++)
		if (pfd[i].fd >= 0)
			close(pfd[i].fd);
	if (cg_fd >= 0)
		close(cg_fd);
	free(pfd);
	return res;
}

enum run_end run__wait(struct run *r, const struct run_wait *w)
{
	static const struct run_wait none;
	bool has_cgroup = r->target.kind == TARGET_CGROUP && r->target.cgroup_fd >= 0;
	struct run_wait calls = w ? *w : none;
	enum run_end end;

	if (!calls.on_tick)
		calls.tick = 0;
	end = run__loop(r, &calls, has_cgroup);
	if (end == RUN_TARGETS && has_cgroup)
		notice__print(stderr, r->name,
			      "warning: the cgroup %s has been removed: the run ends",
			      r->cli->target.cgroup);
	return end;
}

int run__exit_status(const struct run *r, enum run_end end)
{
	if (end == RUN_ERROR)
		return EXIT_FAIL;
	if (end == RUN_COMMAND && r->has_cmd)
		return command__exit_code(&r->cmd);
	return EXIT_OK;
}

void run__release(struct run *r)
{
	if (r->has_cmd)
		command__stop(&r->cmd);
	r->has_cmd = false;
	if (r->target_built)
		target__free(&r->target);
	r->target_built = false;
	r->target.cgroup_fd = -1;
	free(r->procs);
	r->procs = NULL;
	r->nprocs = 0;
}

void run__teardown(struct run *r)
{
	run__release(r);
	if (r->sigfd >= 0)
		close(r->sigfd);
	r->sigfd = -1;
}
