// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <string.h>

#include "user/symbols/procwatch.h"

/* One record of a drain into the machine; out of memory, it is lost as a full ring's are. */
static void procwatch__apply(const struct sideband_rec *r, void *ctx)
{
	machine__process(ctx, r);
}

int procwatch__start(struct procwatch *w, struct machine *m, const struct target *target,
		     const pid_t *pids, int nprocs, struct err *err)
{
	int i, e;

	memset(w, 0, sizeof(*w));
	w->m = m;
	/* side band first: nothing mapped after the /proc read is missed */
	e = sideband__open(&w->sb, target, err);
	if (e)
		return e;
	if (!nprocs) {
		procmaps__read_all(&m->pm);
		return 0;
	}
	for (i = 0; i < nprocs; i++)
		procmaps__read(&m->pm, pids[i]);
	return 0;
}

int procwatch__drain(struct procwatch *w)
{
	int e;

	procmaps__next_epoch(&w->m->pm);
	e = sideband__drain(&w->sb, procwatch__apply, w->m);

	machine__refresh(w->m);
	return e < 0 ? e : 0;
}

__u64 procwatch__lost(const struct procwatch *w)
{
	return w->sb.lost;
}

void procwatch__stop(struct procwatch *w)
{
	sideband__close(&w->sb);
}
