/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * unctrl.h - text that came from elsewhere (a process's name, a path, a
 * symbol, a perf.data file, the user's input) made fit for a terminal, as
 * curses' unctrl(3) makes a character printable: the tools run as root
 * and print names other users choose, and a name holding ESC ] 0; or
 * ESC [ could set root's window title, colours or cursor, and one holding a
 * newline could forge a line of the report.
 *
 * A control character is written as an escape: a newline as \n, a tab as
 * \t, any other as \xNN.  The control characters are the bytes below 0x20
 * and 0x7f, and the C1 controls U+0080 to U+009F written in UTF-8 (bytes
 * C2 80 to C2 9F), which some terminals obey as ESC [ and ESC ]; a byte that
 * does not start a well-formed UTF-8 character is written \xNN too (a lone
 * 0x9b is CSI on a terminal that reads Latin-1).  Everything else, UTF-8
 * included, is written as it is, the backslash too: the escaped text is
 * for reading, and JSON carries a name exactly.  Escaping escaped text
 * changes nothing.
 *
 * The one rule for every text the tools print: errors (err__report),
 * notices (notice.h), the text tables (user/report/table.h) and folded
 * stacks.  The machine-readable formats escape as they must
 * (user/report/escape.h).
 */
#ifndef LDLAT_UNCTRL_H
#define LDLAT_UNCTRL_H

#include <stddef.h>
#include <stdio.h>

/* s into out, escaped. */
void unctrl__fputs(FILE *out, const char *s);

/* How many bytes s takes escaped (its width in a table). */
size_t unctrl__len(const char *s);

/* s escaped into buf of len bytes, cut before an escape that does not fit; returns buf. */
char *unctrl__str(char *buf, size_t len, const char *s);

#endif
