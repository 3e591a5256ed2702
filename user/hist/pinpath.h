/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * pinpath.h - the directory of a pinned set, reached so that root can trust
 * it.  bpffs is often mounted world-writable (mode 1777): another user may
 * plant a symbolic link on the path --pin, --show or --unpin is given, or
 * own a directory on it and remove what root pins there.  The path is
 * walked one component at a time with openat(O_PATH | O_NOFOLLOW) from "/",
 * so that what is checked is what is then used (no check-then-use race):
 *
 *   - on bpffs, a symbolic link is refused: ldlat-hist creates none there;
 *   - every directory on bpffs on the way, the mount's root included, must
 *     be owned by the caller or root, and writable by no one else unless
 *     it is sticky (as a 1777 mount is); DIR itself by no one else at all;
 *   - outside bpffs, a symbolic link the caller or root owns is followed,
 *     by the walk itself and under the same rules (/var/run -> /run); one
 *     another user owns is refused.
 *
 * --pin creates the directories that are missing, mode 0700, on bpffs only.
 * Objects in DIR are then reached through the fd (/proc/self/fd/N/NAME).
 */
#ifndef LDLAT_PINPATH_H
#define LDLAT_PINPATH_H

#include <limits.h>
#include <stdbool.h>

#include "kernel/lib/err.h"

struct pinpath {
	int fd;		      /* DIR (O_PATH); -1 until reached */
	int made_fd;	      /* --pin: the directory its topmost new one is in (O_PATH); -1 */
	char made[PATH_MAX];  /* the directories --pin created, relative to made_fd ("" if none) */
	bool on_bpffs;	      /* the deepest directory reached is on bpffs */
	char where[PATH_MAX]; /* that directory, as the walk resolved it */
};

/*
 * Walks dir (an absolute path), creating its missing directories on bpffs
 * when make.  Returns 0 with pp->fd (DIR: on bpffs or not, as on_bpffs
 * says); -ENOENT when a directory is missing (not on bpffs, or without
 * make; pp->where is the deepest that exists); -EACCES or -EPERM when the
 * caller may not search a directory on the way; all three without a
 * sentence.  Otherwise -EINVAL for a link, an owner, a mode or a file the
 * rules above refuse, or another -errno, with a sentence in err that starts
 * "opt 'arg': ".  Nothing stays created on failure.
 */
int pinpath__walk(struct pinpath *pp, const char *opt, const char *arg, const char *dir, bool make,
		  struct err *err);

/* DIR opened for reading (its entries, its flock): a new fd, or -errno. */
int pinpath__open_dir(const struct pinpath *pp);

/*
 * Removes the directories --pin created (made, below made_fd), deepest
 * first, while they are empty; closes made_fd.
 */
void pinpath__unmake(int *made_fd, char *made);

/* Whether the file fd refers to is on bpffs. */
bool pinpath__on_bpffs(int fd);

/* Closes pp->fd (made_fd is the caller's once the walk succeeded). */
void pinpath__close(struct pinpath *pp);

#endif
