/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * codeinfo.h - what the debug info says about an instruction, for the
 * tools: the data type and member it touches (datatype.h), its source line
 * (srcline.h), and a function's instructions as objdump shows them.  Each
 * answer is worked out once per (file, address) and kept for the run: a
 * report's cost is per distinct instruction address, not per sample.
 *
 *	struct codeinfo *ci = codeinfo__new(NULL);
 *	const struct datatype *t = codeinfo__type(ci, "/usr/bin/prog", 0x1234);
 *	char label[256];
 *
 *	datatype__label(t, label, sizeof(label));	// "struct conn.rx_bytes"
 *	codeinfo__free(ci);
 *
 * Files are ELF executables and shared objects, by path (what the
 * symbolizer resolved: the mapped file, or the copy that has the recorded
 * build ID); addresses are the file's own (p_vaddr: a process address less
 * its mapping's load bias).  Answers live until codeinfo__free.
 */
#ifndef LDLAT_CODEINFO_H
#define LDLAT_CODEINFO_H

#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

#include "user/symbols/datatype.h"
#include "user/symbols/srcline.h"

struct codeinfo;

/* debuginfo: where separate debug info lives (NULL: ":.debug:/usr/lib/debug"); NULL when out of memory. */
struct codeinfo *codeinfo__new(const char *debuginfo);
void codeinfo__free(struct codeinfo *ci);

/* The type and member the instruction at addr of file touches; never NULL (an untyped answer says why). */
const struct datatype *codeinfo__type(struct codeinfo *ci, const char *file, __u64 addr);

/* The source line of the instruction at addr of file; n 0 when none. Never NULL. */
const struct srcline *codeinfo__srcline(struct codeinfo *ci, const char *file, __u64 addr);

/*
 * The layout of the type named type as the DWARF unit of the code at addr
 * of file describes it (datatype__layout): how many members, -ENOENT when
 * none there, -ENOMEM.
 */
ssize_t codeinfo__layout(struct codeinfo *ci, const char *file, __u64 addr, const char *type,
			 struct datatype_member **out);

struct codeinfo_insn {
	__u64 addr;
	unsigned int len;
	char text[112]; /* AT&T syntax, as objdump writes it */
};

/*
 * The instructions of [lo, hi) of file (a function's), malloc'd into *out.
 * Returns how many, or -errno (-ENOENT: no code there).
 */
ssize_t codeinfo__disasm(struct codeinfo *ci, const char *file, __u64 lo, __u64 hi,
			 struct codeinfo_insn **out);

/* What the cache did: distinct addresses analysed, files opened, and the time it took. */
struct codeinfo_stats {
	__u64 types, srclines, files;
	__u64 type_ns, srcline_ns, open_ns;
};
void codeinfo__stats(const struct codeinfo *ci, struct codeinfo_stats *out);

#endif
