/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * muxlock.h - one run at a time changes the PMUs' multiplexing intervals,
 * and a run that dies before it can put them back does not leave them
 * changed for good.
 *
 * The intervals are machine-wide, and two overlapping runs would put back
 * each other's values.  The lock is a flock on MUXLOCK_PATH, held from
 * before the first change until after the last value is put back.  A
 * process that took it around the run (flock(1) on that file, a test) lets
 * its descendants in.
 *
 * The same file records what the run changed, before it changes it:
 *
 *   owner PID START            the run (START: its /proc/PID/stat starttime)
 *   interval BEFORE SET PATH   the interval in the file PATH was BEFORE; the
 *                              run set it to SET
 *
 * and is emptied once every value is back.  A run killed by SIGKILL leaves
 * the record behind; the next run that takes the lock (ldlat-stat
 * --mux-interval, or any ldlat-stat run as root, or ldlat-stat recover)
 * finds its owner dead and puts BEFORE back where the interval still reads
 * SET, before it records anything of its own: a dead owner's value is never
 * taken for the original.  /run is a tmpfs, so the record goes with a
 * reboot, as do the intervals.
 */
#ifndef LDLAT_MUXLOCK_H
#define LDLAT_MUXLOCK_H

#include <stddef.h>

#include "kernel/abi/muxint.h"
#include "kernel/lib/err.h"

#define MUXLOCK_PATH "/run/ldlat-muxint.lock"

/* The lock file's path: MUXLOCK_PATH, or LDLAT_MUXLOCK (tests). */
const char *muxlock__path(void);

struct muxlock {
	int fd;			   /* the lock file, flock held; -1: not held */
	struct muxint_saved saved; /* what this run changed, as the file records it */
	int ms;			   /* what it set them to */
};

/*
 * Takes the lock without waiting, puts back what a dead owner left changed
 * (a line per interval in recovered, which may be NULL), and records this
 * process as the owner.  Returns 0, -EBUSY when a live run holds it,
 * -EPERM (the user's: not root) or another -errno, with a sentence in err.
 */
int muxlock__take(struct muxlock *l, char *recovered, size_t len, struct err *err);

/*
 * Records that pmu's interval is being changed, then sets it to ms (the
 * value before is remembered once per PMU).  Returns 0 or -errno with a
 * sentence in err.
 */
int muxlock__set(struct muxlock *l, const char *pmu, int ms, struct err *err);

/*
 * Puts every changed interval back, then empties the record and lets the
 * lock go; safe to call twice, and on a lock never taken.  Returns 0 or the
 * first -errno (the record then stays, for the next run to finish).
 */
int muxlock__release(struct muxlock *l);

/*
 * ldlat-stat recover, and the start of every run: when the record names an
 * owner that is dead, puts its intervals back (a line each in recovered).
 * Returns the number of intervals put back, 0 when there was nothing to do
 * (no record, or an empty one), -EBUSY when a live run holds the lock,
 * -EPERM (not root) or another -errno, with a sentence in err.
 */
int muxlock__recover(char *recovered, size_t len, struct err *err);

#endif
