// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <libiberty/demangle.h>

#include "user/symbols/demangle.h"

char *sym_demangle(const char *name)
{
	/* _Z: the Itanium C++ ABI (and Rust's legacy scheme inside it); _R: Rust's v0 */
	if (!name || name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return (void *)0;
	/* no style bit: libiberty tries Rust first, then C++, as perf does */
	return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
}
