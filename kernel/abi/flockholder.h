/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * flockholder.h - who holds a flock(2): the PID /proc/locks gives for a
 * file, so that a refusal can name the process to wait for, and whether that
 * process is one of ours (an ancestor that took the lock around this run);
 * and who that process is (its program and user), so that the refusal
 * names it truthfully: any user who may open a file may flock it.
 */
#ifndef LDLAT_FLOCKHOLDER_H
#define LDLAT_FLOCKHOLDER_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

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

/* Who a process is, as /proc shows it. */
struct proc_who {
	char comm[16];	    /* /proc/PID/comm, as the process set it ("" when unknown) */
	char exe[PATH_MAX]; /* the target of /proc/PID/exe ("" when it cannot be read) */
	long uid;	    /* the real UID (-1 when unknown) */
};

/* Fills who for pid: 0, or -ENOENT when there is no such process any more. */
int proc__who(int pid, struct proc_who *who);

/* Whether the program a process runs (exe, else comm) is named name (its file name). */
bool proc_who__is(const struct proc_who *who, const char *name);

/* The name of uid in the user database ("nobody"), or "UID N" when it has none. */
void user__name(long uid, char *buf, size_t len);

#endif
