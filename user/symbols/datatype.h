/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * datatype.h - which data type, and which member of it, an instruction
 * touches: perf's data-type profiling (perf annotate --data-type, perf mem
 * report -T), from the instruction and the DWARF of its file alone.
 *
 * The instruction is decoded (insn.h) and its memory operand taken apart:
 * [base + index * scale + disp].  A PC-relative or absolute address is a
 * global or static variable's (typed by that variable); a base register
 * that the frame's CFA or frame base is computed from reaches a variable of
 * the stack (typed by it); any other base register holds a pointer, whose
 * type is that of the variable the DWARF location lists place in that
 * register at that address, else is found by following the register back
 * through the function's instructions to where it was loaded (a mov from a
 * typed stack slot, global or member, a lea of one, a register copy, an
 * add of a constant, a call's return value).  The type is then followed
 * through typedefs, qualifiers, arrays, nested structs and unions, and C++
 * base classes to the member at the offset.  Samples then need nothing but
 * their instruction address: ldlat-top's kernel table is keyed by it.
 */
#ifndef LDLAT_DATATYPE_H
#define LDLAT_DATATYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "user/symbols/debuginfo.h"
#include "user/symbols/insn.h"

/* Why an instruction's data has no type: a row of its own in each report. */
enum datatype_why {
	DATATYPE_TYPED,
	DATATYPE_KERNEL,      /* kernel code: its debug info is not read */
	DATATYPE_NO_FILE,     /* code in no ELF file ([anon], JIT code, a process gone) */
	DATATYPE_NO_DEBUG,    /* no debug info for the file, or for the code's unit */
	DATATYPE_NO_INSN,     /* no instruction could be read at the address */
	DATATYPE_NO_MEMOP,    /* the instruction has no memory operand (a push, a call) */
	DATATYPE_THREAD,      /* a %fs or %gs access: thread-local storage */
	DATATYPE_UNDESCRIBED, /* the base register holds no value the debug info describes */
	DATATYPE_NO_VARIABLE, /* a stack or global address that no variable covers */
	DATATYPE_VOID,	      /* a pointer to void */
	DATATYPE_NWHY,
};

/* How the typed data was reached. */
enum datatype_via {
	DATATYPE_VIA_POINTER, /* through a pointer in a register */
	DATATYPE_VIA_STACK,   /* a variable on the stack */
	DATATYPE_VIA_GLOBAL,  /* a global or static variable */
};

struct datatype {
	enum datatype_why why;
	enum datatype_via via;
	char *type;   /* "struct conn", "union msg", "class Session", "long int"; NULL: untyped */
	char *member; /* "rx_bytes", "in.x", "slots[].len"; NULL: none at the offset, or unknown */
	__s64 offset; /* of the access into type (of one element, for arrays) */
	bool offset_known; /* false when the pointer was moved by an amount not known */
	bool aggregate;	   /* type is a struct, union or class: an offset into it means something */
	char *var;	   /* the variable it was reached through, when one is named */
	unsigned int size; /* bytes the instruction accesses */
};

/* The words for why: "no debug info", "register not described", ... */
const char *datatype__why_str(enum datatype_why why);

/*
 * The row label of d: "struct conn.rx_bytes"; "struct conn +0x2000" when no
 * member is at the offset; "struct conn" when the offset is not known (and
 * for a type that has no members); "[untyped: WHY]" when untyped.
 */
void datatype__label(const struct datatype *d, char *buf, size_t len);

/*
 * Finds what the instruction at file address addr of di touches, into out
 * (strings allocated: datatype__clear frees them).  dec decodes; scratch is
 * the caller's state kept between calls (the last function decoded), NULL
 * before the first, freed by datatype__scratch_free.  Returns 0, or -ENOMEM.
 */
struct datatype_scratch;
int datatype__find(struct debuginfo *di, struct insn_decoder *dec,
		   struct datatype_scratch **scratch, __u64 addr, struct datatype *out);
void datatype__clear(struct datatype *d);
void datatype__scratch_free(struct datatype_scratch *s);

/*
 * A member of a type's layout, as perf annotate --data-type lists it: the
 * type itself first (depth 0), then each member in declaration order, the
 * members of a struct, union or class member (and of a C++ base class)
 * after it one deeper; an array is one member.
 */
struct datatype_member {
	char *type;   /* "long int", "struct inner", "char[4096]" */
	char *name;   /* the field; NULL: the type itself, a base class, an anonymous member */
	__u64 offset; /* from the start of the outermost type */
	__u64 size;   /* bytes (0: a flexible array) */
	int depth;    /* 0: the type itself */
	bool base;    /* a C++ base class (pahole's <ancestor>) */
};

/*
 * The layout of the type named type (as datatype__label names it: "struct
 * conn", "class ns::Session") from the DWARF unit of the code at file
 * address addr of di, malloc'd into *out (free with datatype__layout_free).
 * Returns how many members, -ENOENT when the unit has no type of that
 * name with members, or -ENOMEM.
 */
ssize_t datatype__layout(struct debuginfo *di, __u64 addr, const char *type,
			 struct datatype_member **out);
void datatype__layout_free(struct datatype_member *m, size_t n);

#endif
