// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "user/symbols/procwatch.h"

static void procwatch__fresh(struct procwatch *w, pid_t pid)
{
	pid_t *tmp;

	if (w->nfresh == w->capfresh) {
		int cap = w->capfresh ? w->capfresh * 2 : 16;

		tmp = realloc(w->fresh, cap * sizeof(*tmp));
		if (!tmp)
			return; /* its stack and vDSO stay unknown: no worse than without */
		w->fresh = tmp;
		w->capfresh = cap;
	}
	w->fresh[w->nfresh++] = pid;
}

void procwatch__apply(const struct sideband_rec *r, void *ctx)
{
	struct procwatch *w = ctx;

	switch (r->type) {
	case PERF_RECORD_MMAP2:
		procmaps__add(w->pm, (pid_t)r->pid, r->addr, r->addr + r->len, r->pgoff, r->str,
			      r->time);
		break;
	case PERF_RECORD_COMM:
		if (r->exec) {
			procmaps__exec(w->pm, (pid_t)r->pid, r->str, r->time);
			procwatch__fresh(w, (pid_t)r->pid);
		} else {
			procmaps__comm(w->pm, (pid_t)r->pid, (pid_t)r->tid, r->str);
		}
		break;
	case PERF_RECORD_FORK:
		/* a new process, not a new thread of one */
		if (r->pid != r->ppid && r->pid == r->tid)
			procmaps__fork(w->pm, (pid_t)r->pid, (pid_t)r->ppid, r->time);
		break;
	case PERF_RECORD_EXIT:
		if (r->pid == r->tid)
			procmaps__exit(w->pm, (pid_t)r->pid);
		break;
	}
}

int procwatch__start(struct procwatch *w, struct procmaps *pm, const struct target *target,
		     const pid_t *pids, int nprocs, struct err *err)
{
	int i, e;

	memset(w, 0, sizeof(*w));
	w->pm = pm;
	/* side band first: nothing mapped after the /proc read is missed */
	e = sideband__open(&w->sb, target, err);
	if (e)
		return e;
	if (!nprocs) {
		procmaps__read_all(pm);
		return 0;
	}
	for (i = 0; i < nprocs; i++)
		procmaps__read(pm, pids[i]);
	return 0;
}

int procwatch__drain(struct procwatch *w)
{
	int e = sideband__drain(&w->sb, procwatch__apply, w), i;

	for (i = 0; i < w->nfresh; i++)
		procmaps__read(w->pm, w->fresh[i]);
	w->nfresh = 0;
	return e < 0 ? e : 0;
}

__u64 procwatch__lost(const struct procwatch *w)
{
	return w->sb.lost;
}

void procwatch__stop(struct procwatch *w)
{
	sideband__close(&w->sb);
	free(w->fresh);
	w->fresh = NULL;
	w->nfresh = w->capfresh = 0;
}
