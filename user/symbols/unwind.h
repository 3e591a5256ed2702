/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * unwind.h - an ELF file's call frame information compiled into the rows
 * the BPF walker searches (bpf/unwind.h): where each address's caller
 * frame, return address and frame pointer are.
 *
 * libdw interprets the CFI (dwarf_cfi_addrframe: the rules at an address,
 * and the range they hold for); this module walks every FDE of .eh_frame,
 * then of .debug_frame where .eh_frame has none, asks libdw for each
 * range's rules, and keeps those the walker can evaluate: the CFA as the
 * stack or frame pointer plus an offset, the two PLT expressions, glibc's
 * signal frame; the return address at CFA - 8; the frame pointer the same,
 * saved at an offset from the CFA, or lost.  Anything else becomes a row
 * that says so (LDLAT_CFA_UNSUPPORTED), counted.  Neighbouring ranges with
 * the same rules are one row; addresses no FDE covers a row of
 * LDLAT_CFA_NONE.
 */
#ifndef LDLAT_UNWIND_TABLE_H
#define LDLAT_UNWIND_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "bpf/unwind.h"
#include "kernel/lib/err.h"

#define UNWIND_TABLE_SEGS 4

struct unwind_table {
	__u64 base; /* the file address of rows[].pc 0 */
	struct ldlat_unwind_row *rows;
	__u32 nrows;
	unsigned char build_id[20]; /* NT_GNU_BUILD_ID, build_id_len bytes (0: none) */
	int build_id_len;
	/* the file's executable PT_LOAD segments: where a mapping's addresses go */
	struct {
		__u64 offset, vaddr, filesz;
	} seg[UNWIND_TABLE_SEGS];
	int nseg;
	/* what was compiled */
	__u32 fdes;	   /* FDEs read, both sections */
	__u32 fdes_debug;  /* of them from .debug_frame (covering what .eh_frame does not) */
	__u32 ranges;	   /* address ranges libdw gave rules for */
	__u32 unsupported; /* rows whose rules the walker does not evaluate */
	__u32 fp_lost;	   /* rows where the frame pointer's rule was not evaluated */
	__u32 rbx_lost;	   /* rows where RBX's save slot did not fit the row (unwind.h) */
};

/*
 * Compiles the CFI of the ELF file at path into t.  Returns 0; -ENODATA
 * when the file has no CFI (no .eh_frame nor .debug_frame: its frames are
 * found by frame pointers), -EFBIG when its code spans 4 GiB or more or
 * its rows exceed LDLAT_UNWIND_MAX_ROWS, -ENOEXEC when it is not an ELF
 * file libdw reads, another -errno when it cannot be read; a sentence in
 * err on failure.
 */
int unwind_table__compile(struct unwind_table *t, const char *path, struct err *err);

/* The same from an open file descriptor (read from its start; not closed). */
int unwind_table__compile_fd(struct unwind_table *t, int fd, const char *name, struct err *err);

/*
 * Only what names the file's table: its build ID and executable segments
 * (no rows), to find the table compiled already (unwindcache.h).  Returns
 * 0 or -errno (-ENOEXEC: not ELF) with a sentence in err.
 */
int unwind_table__identify_fd(struct unwind_table *t, int fd, const char *name, struct err *err);

void unwind_table__free(struct unwind_table *t);

/* The row whose rules hold at file address addr, or NULL (before the first, or past 4 GiB). */
const struct ldlat_unwind_row *unwind_table__find(const struct unwind_table *t, __u64 addr);

/*
 * The walker's base for a mapping of the file at start whose file offset
 * is pgoff (struct ldlat_unwind_map.base: a table address is pc - base);
 * false when no executable segment holds pgoff.
 */
bool unwind_table__map_base(const struct unwind_table *t, __u64 start, __u64 pgoff, __u64 *base);

/* Bytes the table takes in BPF: its index block and its blocks of rows. */
__u64 unwind_table__bpf_bytes(const struct unwind_table *t);

#endif
