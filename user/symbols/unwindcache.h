/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * unwindcache.h - unwind tables compiled before, kept in a directory by
 * build ID, so that a program exec'd during a run (gcc's driver running
 * cc1, make running compilers) has its table in milliseconds rather than
 * the compile's time (cc1: 478,579 rows, a quarter of a second), before
 * most of its samples.
 *
 * The directory (UNWIND_CACHE_DIR, or LDLAT_UNWIND_CACHE; empty: no
 * cache) is created 0700 and used only when it is a directory owned by the
 * user running the tool and closed to everyone else, not reached through a
 * link as its last component.  Entries are named by the build ID the
 * mapped file itself carries (no path read from a file), opened without
 * following links, and taken only when they are regular files of that
 * owner, closed to others, whose header names the same build ID, file size
 * and executable segments as the file and whose rows are in order and of
 * kinds the walker knows; anything else is compiled again and replaced.
 * Only tables of UNWIND_CACHE_MIN_ROWS rows or more are kept (a smaller
 * one compiles in milliseconds), only of files root or the running user
 * owns and no one else may write (a build ID is any file's word), and the directory is kept under
 * UNWIND_CACHE_MAX_BYTES, the least recently used entries removed first.
 */
#ifndef LDLAT_UNWINDCACHE_H
#define LDLAT_UNWINDCACHE_H

#include <linux/types.h>

#include "kernel/lib/err.h"
#include "user/symbols/unwind.h"

#define UNWIND_CACHE_DIR       "/var/cache/ldlat/unwind"
#define UNWIND_CACHE_MIN_ROWS  16384
#define UNWIND_CACHE_MAX_BYTES (256ull << 20)

struct unwind_cache {
	int dirfd;		     /* -1: no cache (every table compiled) */
	__u64 hits, stored, refused; /* refused: entries present but not valid */
};

/*
 * Opens the cache directory (dir; NULL: LDLAT_UNWIND_CACHE's, else
 * UNWIND_CACHE_DIR), creating it.  Returns 0 (an empty dir: no cache,
 * c->dirfd -1) or -errno with a sentence in err, c then without a cache
 * all the same.
 */
int unwind_cache__open(struct unwind_cache *c, const char *dir, struct err *err);

/*
 * The table of the ELF file open at fd: the cache's entry for its build ID
 * if one is valid, else compiled (unwind_table__compile_fd) and kept.
 * Returns what unwind_table__compile_fd does.
 */
int unwind_cache__table_fd(struct unwind_cache *c, struct unwind_table *t, int fd, const char *name,
			   struct err *err);

void unwind_cache__close(struct unwind_cache *c);

#endif
