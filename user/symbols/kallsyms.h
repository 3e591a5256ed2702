/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * kallsyms.h - kernel symbols from /proc/kallsyms: functions for kernel
 * IPs, variables for kernel data addresses.  kallsyms has no sizes: a
 * symbol reaches to the next one.
 */
#ifndef LDLAT_KALLSYMS_H
#define LDLAT_KALLSYMS_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

#include "user/symbols/dso.h"

struct kallsyms {
	int n;
	struct dso_sym *syms; /* every text and data symbol; sorted once loaded */
	char *pool;
	char **modules;
	int nmodules;
	bool loaded; /* read to its end: syms sorted, one per address */
	bool hidden; /* every address read 0: kptr_restrict, or not privileged */
	/* opened, read as far as the addresses asked need (kallsyms__open) */
	FILE *f;
	char *buf;
	size_t cap, pool_cap, used; /* syms' and pool's room, the pool's bytes used */
	bool any_nonzero;
	bool nomem;
	bool in_order;	      /* every line so far the kernel's own, by address */
	struct dso_sym found; /* what kallsyms__find gave from a part of the file */
};

/* Reads path (NULL: /proc/kallsyms) whole. Returns 0 or -errno. */
int kallsyms__load(struct kallsyms *k, const char *path);

/*
 * Opens path (NULL: /proc/kallsyms) to be read only as far as the
 * addresses kallsyms__find is asked need: the kernel's own symbols come
 * first, in address order, so a kernel address is named once a symbol
 * above it is read (the kernel prints 120,000 lines in ~40 ms; a run names
 * a few addresses).  Every answer is the one the whole file gives, for a
 * file in the kernel's order (/proc/kallsyms, or a copy of it): a line out
 * of order met sends the rest to a whole read, one not yet met cannot.
 * Returns 0 or -errno (then k finds nothing, as after a failed load).
 */
int kallsyms__open(struct kallsyms *k, const char *path);
void kallsyms__free(struct kallsyms *k);

/*
 * The symbol that holds addr, if it is of that kind; NULL otherwise.  Read
 * further first when k was opened and the part read cannot tell; what it
 * points to then lasts until the next call.
 */
const struct dso_sym *kallsyms__find(struct kallsyms *k, __u64 addr, enum dso_sym_kind kind);

/*
 * The address of the kernel's (not a module's) symbol name in the kallsyms
 * file path (NULL: /proc/kallsyms): 0 and *addr, or -ENOENT (or another
 * -errno).  Read from the file: a loaded table keeps one name per address.
 */
int kallsyms__lookup(const char *path, const char *name, __u64 *addr);

/* Whether addr is in the kernel's half of the address space. */
bool kallsyms__is_kernel(__u64 addr);

#endif
