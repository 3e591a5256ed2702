/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * sysfs.h - reading sysfs under a root that tests can move: LDLAT_SYSFS=DIR
 * makes every read below look in DIR instead of /sys, so fixture trees of
 * other machines stand in for this one.
 */
#ifndef LDLAT_SYSFS_H
#define LDLAT_SYSFS_H

#include <stddef.h>

/* "/sys", or $LDLAT_SYSFS. */
const char *sysfs__root(void);

/* root + "/" + rel into buf; -ENAMETOOLONG when it does not fit. */
int sysfs__path(char *buf, size_t len, const char *rel);

/*
 * Reads the file at root/rel into buf (NUL-terminated, trailing newline
 * removed).  Returns the length, or -errno.
 */
int sysfs__read(const char *rel, char *buf, size_t len);

/*
 * Reads /proc/rel the same way; LDLAT_PROCFS=DIR moves /proc like
 * LDLAT_SYSFS moves /sys (sys/kernel/nmi_watchdog in fixtures).
 */
int procfs__read(const char *rel, char *buf, size_t len);

/* Reads a file at an absolute path the same way. */
int file__read(const char *path, char *buf, size_t len);

#endif
