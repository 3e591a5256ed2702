// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "user/run/run.h"
#include "user/run/signals.h"
#include "kernel/lib/notice.h"

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

enum run_end run__wait(struct run *r, double tick, int (*on_tick)(void *ctx),
		       int (*on_interval)(void *ctx), void *ctx)
{
	struct runloop rl = {
		.duration = r->cli->duration,
		.interval = r->cli->interval,
		.count = r->cli->count,
		.cmd = r->has_cmd ? &r->cmd : NULL,
		.nprocs = r->nprocs,
		.procs = r->procs,
		.tick = on_tick ? tick : 0,
		.on_tick = on_tick,
		.has_cgroup = r->target.kind == TARGET_CGROUP && r->target.cgroup_fd >= 0,
		.cgroup_fd = r->target.cgroup_fd,
	};
	enum run_end end = runloop__run(&rl, r->sigfd, on_interval, ctx);

	if (end == RUN_TARGETS && rl.has_cgroup)
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
