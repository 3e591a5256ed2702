/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * unwind_oracle.h - an ELF file's unwind rules as binutils' readelf
 * decodes them: the oracle of the table compiler (user/symbols/unwind.c),
 * in check_callpath.
 *
 * readelf --debug-dump=frames-interp prints, for each FDE of .eh_frame and
 * .debug_frame, the rules of every row ("0000000000001130 rsp+16 c-16
 * c-8"); where it says "exp", its --debug-dump=frames listing of the same
 * FDE gives the expression.  Each row is turned into the row the walker
 * would need (struct ldlat_unwind_row without its pc) by the rules of
 * bpf/unwind.h, written again here from readelf's text.  (llvm-dwarfdump
 * 14 is no oracle: after DW_CFA_restore_state its rows keep the CFA the
 * state was restored over.)
 */
#ifndef LDLAT_UNWIND_ORACLE_H
#define LDLAT_UNWIND_ORACLE_H

#include <stddef.h>
#include <linux/types.h>

#include "bpf/unwind.h"

struct oracle_row {
	__u64 addr;
	struct ldlat_unwind_row r; /* r.pc unused */
};

struct oracle_fde {
	__u64 lo, hi;
	size_t first, n; /* its rows in oracle.rows */
	int debug;	 /* from .debug_frame */
};

struct unwind_oracle {
	struct oracle_fde *fdes; /* sorted by lo, .eh_frame's first where two start together */
	size_t nfdes;
	__u64 *maxhi; /* the greatest hi of fdes[0..i] */
	struct oracle_row *rows;
	size_t nrows;
};

/* Runs readelf on path. Returns 0, or -1 with a sentence in msg. */
int unwind_oracle__read(struct unwind_oracle *o, const char *path, char *msg, size_t len);

void unwind_oracle__free(struct unwind_oracle *o);

/*
 * The rules at addr: the row of the first FDE (in the order above) that
 * covers it; kind LDLAT_CFA_NONE when none does.
 */
struct ldlat_unwind_row unwind_oracle__at(const struct unwind_oracle *o, __u64 addr);

#endif
