/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * srcline.h - the source line of an instruction, with the functions
 * inlined there: what addr2line -i -f prints, from the line table and the
 * inlined-subroutine entries of the DWARF (debuginfo.h).  perf names an
 * inlined frame "func (inlined)"; ldlat-top does too.
 */
#ifndef LDLAT_SRCLINE_H
#define LDLAT_SRCLINE_H

#include <linux/types.h>

#include "user/symbols/debuginfo.h"

struct srcline_frame {
	char *func; /* demangled; NULL when the DWARF names none */
	char *file; /* as the DWARF names it (absolute, or as the compiler was given it) */
	unsigned int line;
};

/*
 * frames[0] is the innermost: the function the instruction's code belongs
 * to and the line the line table gives.  When that function was inlined,
 * frames[1] is the one it was inlined into, at the line of the call, and
 * so on out to the function the symbol table names.  n is 0 when the
 * address has no line.
 */
struct srcline {
	struct srcline_frame *frames;
	unsigned int n;
};

/* The source line of file address addr in di into out. Returns 0 (n 0: none), or -ENOMEM. */
int srcline__find(struct debuginfo *di, __u64 addr, struct srcline *out);
void srcline__clear(struct srcline *s);

/* The last component of a source file's name ("a/b/c.c": "c.c"). */
const char *srcline__base(const char *file);

#endif
