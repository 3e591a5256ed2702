/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * flockholder.h - who holds a flock(2): the PID /proc/locks gives for a
 * file, so that a refusal can name the process to wait for, and whether that
 * process is one of ours (an ancestor that took the lock around this run).
 */
#ifndef LDLAT_FLOCKHOLDER_H
#define LDLAT_FLOCKHOLDER_H

#include <stdbool.h>

/* The PID of another process holding a flock on fd's file; 0 if none is found. */
int flock__holder(int fd);

/* Whether pid is this process's parent, or its parent's parent, and so on. */
bool proc__is_ancestor(int pid);

/* Whether pid holds a flock on fd's file (shared or exclusive; waiters do not count). */
bool flock__held_by(int fd, int pid);

/*
 * When process pid started (/proc/PID/stat's starttime, clock ticks since
 * boot); 0 when there is no such process.  A PID and its start time name a
 * process for good: a PID alone may be another's once its owner died.
 */
unsigned long long proc__start_time(int pid);

#endif
