/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * debuginfo.h - the DWARF of one ELF file, found where users keep it: in
 * the file itself, through its .gnu_debuglink, by build ID under the
 * debuginfo path (".build-id/xx/rest.debug"; default
 * ":.debug:/usr/lib/debug", as dso.h), and from the debuginfod servers of
 * DEBUGINFOD_URLS when the machine names some (libdwfl's client; its cache
 * is DEBUGINFOD_CACHE_PATH, else ~/.cache/debuginfod_client).  Also what
 * the analysis of one instruction needs besides: the file's code bytes, its
 * call-frame information (the CFA rule at an address), and its global and
 * static variables by address.  Addresses are the file's own (p_vaddr), as
 * dso.h's are.
 */
#ifndef LDLAT_DEBUGINFO_H
#define LDLAT_DEBUGINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

/* A variable at a fixed address (DW_OP_addr): a global, a static. */
struct debuginfo_var {
	__u64 addr, size;
	Dwarf_Off die; /* its DIE, for dwarf_offdie */
};

struct debuginfo {
	char *name;	   /* the cache's key: the file as mapped */
	char *path;	   /* libdwfl's debuginfo path (NULL: its default) */
	Dwfl_Callbacks cb; /* libdwfl keeps a pointer to them: they live here */
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf *dw;	 /* NULL: no debug info found */
	Dwarf_Addr bias; /* file address = DWARF address + bias */
	Elf *elf;	 /* the file itself: its code */
	GElf_Addr elfbias;
	const char *debugfile; /* where the DWARF was found (libdwfl's), NULL: the file itself */
	Dwarf_CFI *cfi;
	Dwarf_Addr cfibias;
	bool cfi_tried, vars_tried;
	struct debuginfo_var *vars; /* sorted by addr */
	size_t nvars;
};

/*
 * Opens file (read as name: a path, or "[vdso]" and such, which has none)
 * with debuginfo as the debuginfo path (NULL: the default).  Returns 0, or
 * -errno when file cannot be read as an ELF file; a file without debug
 * info opens with dw NULL.  di must not move while it is open (libdwfl
 * points into it).
 */
int debuginfo__open(struct debuginfo *di, const char *name, const char *file,
		    const char *debuginfo);
void debuginfo__close(struct debuginfo *di);

/* The code at file address addr: a pointer to it and how many bytes of its section follow. */
const unsigned char *debuginfo__code(struct debuginfo *di, __u64 addr, size_t *len);

/*
 * The canonical frame address at addr as register + offset (the CFA rule
 * of .eh_frame or .debug_frame).  False when no rule is of that form.
 */
bool debuginfo__cfa(struct debuginfo *di, __u64 addr, int *reg, __s64 *off);

/* The variable at a fixed address that holds addr, or NULL. */
const struct debuginfo_var *debuginfo__var_at(struct debuginfo *di, __u64 addr);

/* The compile unit that holds the code at file address addr (into cu), or NULL. */
Dwarf_Die *debuginfo__cu(struct debuginfo *di, __u64 addr, Dwarf_Die *cu);

/*
 * The scopes that hold DWARF address pc in unit cu, as the code nests
 * them (not as names are looked up): the function first, then its lexical
 * blocks and the functions inlined into it, innermost last.  Up to max into
 * out; returns how many (0: no function holds pc).  func, when not NULL and
 * it holds pc, is the function (found before): the unit is not searched.
 */
int debuginfo__scopes(Dwarf_Die *cu, Dwarf_Die *func, Dwarf_Addr pc, Dwarf_Die *out, int max);

#endif
