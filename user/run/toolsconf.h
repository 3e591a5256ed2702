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
 *   6. $(PREFIX)/share/ldlat/tools.conf   (where make install put it)
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

/*
 * Finds tools.conf (explicit: --config, or NULL; exe: the running binary's
 * path, or NULL for /proc/self/exe) and loads it.  Returns 0; -EINVAL with a
 * sentence naming the file (and line) when it is unreadable or malformed;
 * -ENOENT when none of the places has one.
 */
int toolsconf__load(struct evtable *t, const char *explicit, const char *exe, struct err *err);

/* The candidate paths in order, for exe (NULL: /proc/self/exe). Returns the count. */
int toolsconf__candidates(const char *exe, char paths[][4096], int max);

#endif
