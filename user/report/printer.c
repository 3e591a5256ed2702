// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "user/report/printer.h"

int printer__init(struct printer *p, __u32 nranges, const struct timespec *started)
{
	return printer__init_by(p, nranges, LDLAT_BY_NONE, 1, started);
}

int printer__init_by(struct printer *p, __u32 nranges, __u32 by, __u32 nrows,
		     const struct timespec *started)
{
	if (snapshot__init_by(&p->cur, nranges, by, nrows) ||
	    snapshot__init_by(&p->prev, nranges, by, nrows) ||
	    snapshot__init_by(&p->delta, nranges, by, nrows)) {
		printer__free(p);
		return -ENOMEM;
	}
	p->prev.taken = *started;
	p->cur.since = *started;
	return 0;
}

int printer__mark(struct printer *p, struct err *err)
{
	int e = p->ops->read(p->ctx, &p->cur, err);

	if (!e)
		snapshot__copy(&p->prev, &p->cur);
	return e;
}

int printer__write(struct printer *p, struct err *err)
{
	const struct hist_report r = {
		.view = &p->view,
		.interval = &p->delta,
		.total = &p->cur,
		.with_run = output__replaces(p->out) || !p->printed,
	};

	return output__write(p->out, &r, p->printed != 0, err);
}

int printer__print(void *ctx)
{
	struct printer *p = ctx;
	struct timespec started = p->cur.since;
	struct err err = {};
	int e = p->ops->read(p->ctx, &p->cur, &err);

	p->cur.since = started;
	if (e) {
		err__report(&err, e, p->tool, stderr);
		return e;
	}
	snapshot__delta(&p->delta, &p->cur, &p->prev);
	/* the tail of a run that ended right after a tick has nothing to say (but its loads) */
	if (p->printed && p->final && !p->delta.counters.seen && !p->view.loads)
		return 0;
	e = p->ops->write ? p->ops->write(p, p->ctx, &err) : printer__write(p, &err);
	if (e) {
		err__report(&err, e, p->tool, stderr);
		return e;
	}
	snapshot__copy(&p->prev, &p->cur);
	p->printed++;
	return p->ops->printed ? p->ops->printed(p->ctx, &p->cur) : 0;
}

void printer__free(struct printer *p)
{
	snapshot__free(&p->cur);
	snapshot__free(&p->prev);
	snapshot__free(&p->delta);
}
