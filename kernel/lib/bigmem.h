/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* bigmem.h - large arrays in huge pages, where the kernel gives them on request. */
#ifndef LDLAT_BIGMEM_H
#define LDLAT_BIGMEM_H

#include <stddef.h>

/* The size from which bigmem__advise asks for huge pages. */
#define BIGMEM_MIN ((size_t)4 << 20)

/*
 * Asks the kernel to back the block p (from malloc, calloc or realloc; NULL
 * is nothing) with transparent huge pages when it holds BIGMEM_MIN bytes
 * or more: its pages not yet touched then come 2 MiB a fault, not 4 KiB.
 * Only for an array that is written through soon (an index cleared whole,
 * records appended in order): a huge page is backed whole however little
 * of it is used.  Call it again after each realloc.  A kernel without
 * transparent huge pages, or with them off, declines; that is not an error.
 * True when the kernel took the advice.
 */
_Bool bigmem__advise(void *p);

#endif
