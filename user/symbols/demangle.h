/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * demangle.h - C++ and Rust symbol names through libiberty's demangler (the
 * one binutils and perf use), in one of three styles the process keeps:
 * perf report's by default (the name without its parameter list:
 * store::Table::fill), the full signature as c++filt prints it
 * (store::Table::fill(long, long, int)), or the name as the symbol table
 * holds it (_ZN5store5Table4fillElli, perf report --no-demangle's).  Rust's
 * legacy hash is dropped in the first two.
 */
#ifndef LDLAT_DEMANGLE_H
#define LDLAT_DEMANGLE_H

enum demangle_style {
	DEMANGLE_SHORT, /* perf report's default: no parameters */
	DEMANGLE_FULL,	/* parameters and qualifiers */
	DEMANGLE_NO,	/* the mangled name */
};

/*
 * The style every name is given from now on.  Set once, from the tool's
 * options, before any symbol is read: a DSO's names are demangled once,
 * when it is loaded, and kept.
 */
void demangle__set_style(enum demangle_style style);

/* The demangled name (malloc'd), or NULL when name is not mangled, cannot be read, or DEMANGLE_NO. */
char *sym_demangle(const char *name);

#endif
