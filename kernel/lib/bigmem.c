// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bigmem.c - large arrays in huge pages.
 *
 * A page touched first costs a page fault: on a virtual machine several
 * microseconds each, and ldlat-top's tables and report arrays for 300,000
 * keys are tens of MB of such pages.  With MADV_HUGEPAGE a fault in a 2 MiB
 * aligned part of the block maps a whole huge page (where the system sets
 * transparent_hugepage to madvise or always).  The advice covers the whole
 * pages the block spans.  A block this large is mostly a mapping of its
 * own, which glibc moves with mremap on realloc; mremap takes a single
 * mapping, so a part is never advised alone (that would split it in
 * three).  A block glibc placed on its heap instead (its threshold for a
 * mapping rises once a large block is freed) is advised with the pages
 * around it, which only lets those take huge pages too.
 */
#include <malloc.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kernel/lib/bigmem.h"

_Bool bigmem__advise(void *p)
{
	uintptr_t page, lo, hi;
	size_t n;

	if (!p)
		return 0;
	n = malloc_usable_size(p);
	if (n < BIGMEM_MIN)
		return 0;
	page = (uintptr_t)sysconf(_SC_PAGESIZE);
	lo = (uintptr_t)p & ~(page - 1);
	hi = ((uintptr_t)p + n + page - 1) & ~(page - 1);
	return !madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
}
