// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include "user/hist/histprog.h"
#include "user/run/tool.h"

static int hist_prog__open(struct prog *p, struct tool *t, struct err *err)
{
	struct session_prog *sp = (struct session_prog *)p;
	int e;

	e = session__open_counted(
		&sp->s, &t->cfg, sp->flags | session__path_flag(t->path),
		t->run.target.inherit ? 0 : (__u32)evlist__max_fds(&t->evlist, &t->run.target),
		err);
	p->program = e ? NULL : session__program(&sp->s);
	return e;
}

const struct prog_ops hist_prog_ops = {
	.open = hist_prog__open,
	.cookie = session_prog__cookie,
	.read = session_prog__read,
	.close = session_prog__close,
};
