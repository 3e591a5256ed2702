/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * notice.h - notices: what a tool changed of what the user asked and says so
 * (a threshold raised to the hardware's minimum, a precise level lowered, a
 * fallback), gathered one per line in a caller's buffer while an event is
 * resolved, and printed by the tool; and the lines a tool says on stderr
 * as it runs ("sampling ... on command 'app' (PID 42)", a note on a file).
 *
 * A notice quotes what others chose (a command's or a file's name, a pin
 * directory, a name from a perf.data file): its control characters are
 * escaped (unctrl.h), so that each notice is one line and nothing in it
 * reaches the terminal raw.
 */
#ifndef LDLAT_NOTICE_H
#define LDLAT_NOTICE_H

#include <stddef.h>
#include <stdio.h>

/* Appends a line to a notice buffer of len bytes (cut to fit), its control characters escaped. */
__attribute__((format(printf, 3, 4))) void notice__add(char *buf, size_t len, const char *fmt, ...);

/* Prints "tool: notice\n" to out, the notice's control characters escaped. */
__attribute__((format(printf, 3, 4))) void notice__print(FILE *out, const char *tool,
							 const char *fmt, ...);

#endif
