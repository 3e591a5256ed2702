/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * toolsconf.h - where the tools find tools.conf, the event table and
 * defaults (kernel/policy/evtable.h reads it).  The first of these that exists:
 *
 *   1. --config FILE
 *   2. $LDLAT_CONFIG
 *   3. /etc/ldlat/tools.conf              (an administrator's own table)
 *   4. BINDIR/../share/ldlat/tools.conf   (an installed tree, wherever it is)
 *   5. BINDIR/../tools.conf               (the build tree: build/ldlat-hist)
 *   6. the copy of tools.conf built into the binary, so that a binary copied
 *      on its own works
 *
 * A file named by --config or $LDLAT_CONFIG must be readable: it is never
 * passed over for the next one.
 */
#ifndef LDLAT_TOOLSCONF_H
#define LDLAT_TOOLSCONF_H

#include <stddef.h>

#include "kernel/lib/err.h"
#include "kernel/policy/evtable.h"

#define TOOLSCONF_ETC "/etc/ldlat/tools.conf"

/* How the built-in table is named in messages and t->path. */
#define TOOLSCONF_BUILTIN "built-in tools.conf"

/* The text of tools.conf at build time (the Makefile generates it). */
extern const char toolsconf_builtin[];

/*
 * Finds tools.conf (explicit: --config, or NULL; exe: the running binary's
 * path, or NULL for /proc/self/exe) and loads it, or the built-in copy when
 * no file is found.  Returns 0; -EINVAL with a sentence naming the file (and
 * line) when it is unreadable or malformed.
 */
int toolsconf__load(struct evtable *t, const char *explicit, const char *exe, struct err *err);

/* The candidate files in order, for exe (NULL: /proc/self/exe). Returns the count. */
int toolsconf__candidates(const char *exe, char paths[][4096], int max);

#endif
