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

#endif
