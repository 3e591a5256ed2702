/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * procwatch.h - keeps a process model (machine.h) current while a run
 * samples: the target's processes read from /proc at the start (a command
 * at its exec, -p processes, or every process for the whole machine, a
 * cgroup or CPUs), then the side band's records, each handed to
 * machine__process; a process that exec'd is read from /proc again at the
 * next drain for what the side band does not report (its stack, the vDSO).
 */
#ifndef LDLAT_PROCWATCH_H
#define LDLAT_PROCWATCH_H

#include <stddef.h>
#include <sys/types.h>

#include "kernel/abi/sideband.h"
#include "kernel/lib/err.h"
#include "user/symbols/machine.h"

struct procwatch {
	struct sideband sb;
	struct machine *m;
};

/*
 * Opens the side band on target, then reads the processes already there
 * into m (a MACHINE_LIVE one): pids (nprocs of them; a command is one), or
 * all of /proc when nprocs is 0.  Returns 0 or -errno with a sentence in
 * err.
 */
int procwatch__start(struct procwatch *w, struct machine *m, const struct target *target,
		     const pid_t *pids, int nprocs, struct err *err);

/* Applies what the side band recorded since the last drain. Returns 0 or -errno. */
int procwatch__drain(struct procwatch *w);

/* Records the kernel dropped because a ring was full. */
__u64 procwatch__lost(const struct procwatch *w);

void procwatch__stop(struct procwatch *w);

#endif
