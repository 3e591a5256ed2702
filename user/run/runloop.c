// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "user/run/runloop.h"
#include "kernel/lib/util.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

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

enum run_end runloop__run(const struct runloop *rl, int sigfd, int (*on_interval)(void *ctx),
			  void *ctx)
{
	struct pollfd *pfd;
	struct signalfd_siginfo si;
	double start = clock__monotonic(), next_tick = start + rl->interval,
	       end = start + rl->duration, t, wait, next_read = start + rl->tick;
	enum run_end res = RUN_ERROR;
	int i, n, alive = rl->nprocs, ticks = 0, cmd_slot = -1, cg_fd = -1, timeout;

	/* 0: the signalfd; then the command's pidfd; then one pidfd per -p process */
	pfd = calloc(2 + rl->nprocs, sizeof(*pfd));
	if (!pfd)
		return RUN_ERROR;
	pfd[0].fd = sigfd;
	pfd[0].events = POLLIN;
	n = 1;
	if (rl->cmd && rl->cmd->pidfd >= 0) {
		cmd_slot = n;
		pfd[n].fd = rl->cmd->pidfd;
		pfd[n++].events = POLLIN;
	}
	/*
	 * Without cgroup.events the run ends as the other ends say: the root
	 * has none, and cannot be removed.  A cgroup removed already has no
	 * files at all, not even cgroup.procs, which the root has.
	 */
	if (rl->has_cgroup) {
		cg_fd = openat(rl->cgroup_fd, "cgroup.events", O_RDONLY | O_CLOEXEC);
		if ((cg_fd < 0 && errno == ENOENT &&
		     faccessat(rl->cgroup_fd, "cgroup.procs", F_OK, 0) && errno == ENOENT) ||
		    (cg_fd >= 0 && cgroup__removed(cg_fd))) {
			res = RUN_TARGETS;
			goto out;
		}
	}
	for (i = 0; i < rl->nprocs; i++) {
		pfd[n].fd = (int)syscall(SYS_pidfd_open, rl->procs[i], 0);
		pfd[n].events = POLLIN;
		if (pfd[n].fd < 0) /* already gone */
			alive--;
		n++;
	}
	if (rl->nprocs && alive <= 0) {
		res = RUN_TARGETS;
		goto out;
	}
	for (;;) {
		/* how long until something is due: nothing at all when a tick is */
		t = clock__monotonic();
		wait = 3600;
		if (rl->duration && end - t < wait)
			wait = end - t;
		if (rl->interval && next_tick - t < wait)
			wait = next_tick - t;
		if (rl->tick && next_read - t < wait)
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
			if (read(sigfd, &si, sizeof(si)) == sizeof(si)) {
				res = RUN_SIGNAL;
				break;
			}
		}
		if (cmd_slot > 0 && (pfd[cmd_slot].revents & (POLLIN | POLLHUP))) {
			command__reap(rl->cmd, true);
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
		if (rl->nprocs && alive <= 0) {
			res = RUN_TARGETS;
			break;
		}
		/* a tick due at the end is printed as a whole interval, before the end */
		t = clock__monotonic();
		if (rl->interval && t >= next_tick) {
			if (on_interval && on_interval(ctx))
				break;
			tick__advance(&next_tick, rl->interval);
			if (rl->count && ++ticks >= rl->count) {
				res = RUN_COUNT;
				break;
			}
		}
		if (rl->tick && t >= next_read) {
			if (rl->on_tick(ctx))
				break;
			tick__advance(&next_read, rl->tick);
		}
		if (rl->duration && t >= end) {
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
