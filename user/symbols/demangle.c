// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <libiberty/demangle.h>

#include "user/symbols/demangle.h"

/* one setting for the process: the tool's --demangle, read before any symbol */
static enum demangle_style demangle_style = DEMANGLE_SHORT;

void demangle__set_style(enum demangle_style style)
{
	demangle_style = style;
}

char *sym_demangle(const char *name)
{
	/* _Z: the Itanium C++ ABI (and Rust's legacy scheme inside it); _R: Rust's v0 */
	if (demangle_style == DEMANGLE_NO || !name || name[0] != '_' ||
	    (name[1] != 'Z' && name[1] != 'R'))
		return (void *)0;
	/*
	 * No style bit: libiberty tries Rust first, then C++, as perf does.
	 * perf demangles with DMGL_NO_OPTS unless -v: the name without its
	 * parameter list.
	 */
	return cplus_demangle(name, demangle_style == DEMANGLE_FULL ? DMGL_PARAMS | DMGL_ANSI
								    : DMGL_NO_OPTS);
}
