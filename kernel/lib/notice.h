/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * notice.h - notices: what a tool changed of what the user asked and says so
 * (a threshold raised to the hardware's minimum, a precise level lowered, a
 * fallback), gathered one per line in a caller's buffer while an event is
 * resolved, and printed by the tool.
 */
#ifndef LDLAT_NOTICE_H
#define LDLAT_NOTICE_H

#include <stddef.h>

/* Appends a line to a notice buffer of len bytes (cut to fit). */
__attribute__((format(printf, 3, 4))) void notice__add(char *buf, size_t len, const char *fmt, ...);

#endif
