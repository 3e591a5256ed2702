/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * demangle.h - C++ and Rust symbol names as perf prints them, through
 * libiberty's demangler (the one binutils and perf use): parameters and
 * qualifiers kept (DMGL_PARAMS | DMGL_ANSI), Rust's legacy hash dropped.
 */
#ifndef LDLAT_DEMANGLE_H
#define LDLAT_DEMANGLE_H

/* The demangled name (malloc'd), or NULL when name is not mangled or cannot be read. */
char *sym_demangle(const char *name);

#endif
