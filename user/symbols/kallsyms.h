/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * kallsyms.h - kernel symbols from /proc/kallsyms: functions for kernel
 * IPs, variables for kernel data addresses.  kallsyms has no sizes: a
 * symbol reaches to the next one.
 */
#ifndef LDLAT_KALLSYMS_H
#define LDLAT_KALLSYMS_H

#include <stdbool.h>
#include <linux/types.h>

#include "user/symbols/dso.h"

struct kallsyms {
	int n;
	struct dso_sym *syms; /* every text and data symbol, sorted */
	char *pool;
	char **modules;
	int nmodules;
	bool loaded;
	bool hidden; /* every address read 0: kptr_restrict, or not privileged */
};

/* Reads path (NULL: /proc/kallsyms). Returns 0 or -errno. */
int kallsyms__load(struct kallsyms *k, const char *path);
void kallsyms__free(struct kallsyms *k);

/* The symbol that holds addr, if it is of that kind; NULL otherwise. */
const struct dso_sym *kallsyms__find(const struct kallsyms *k, __u64 addr, enum dso_sym_kind kind);

/*
 * The address of the kernel's (not a module's) symbol name in the kallsyms
 * file path (NULL: /proc/kallsyms): 0 and *addr, or -ENOENT (or another
 * -errno).  Read from the file: a loaded table keeps one name per address.
 */
int kallsyms__lookup(const char *path, const char *name, __u64 *addr);

/* Whether addr is in the kernel's half of the address space. */
bool kallsyms__is_kernel(__u64 addr);

#endif
