/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * muxlock.h - one run at a time changes the PMUs' multiplexing intervals:
 * they are machine-wide, and two overlapping runs would put back each
 * other's values.  The lock is a flock on MUXLOCK_PATH, held from before the
 * first change until after the last value is put back.  A process that took
 * it around the run (flock(1) on that file, a test) lets its descendants in.
 */
#ifndef LDLAT_MUXLOCK_H
#define LDLAT_MUXLOCK_H

#include <stddef.h>

#include "kernel/lib/err.h"

#define MUXLOCK_PATH "/run/ldlat-muxint.lock"

/*
 * Takes the lock without waiting.  Returns an fd to pass to muxlock__release,
 * -EBUSY when another run holds it, or another -errno, with a sentence in err.
 */
int muxlock__take(struct err *err);

/* Lets it go (fd < 0: nothing held). */
void muxlock__release(int fd);

#endif
