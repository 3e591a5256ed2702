/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * unwinddefer.h - ldlat-top --call-graph dwarf: the walk, in user space, of
 * a sample the BPF program took before its process's tables were in (a
 * struct ldlat_unwind_defer from the 'unwind_defer' ring: its registers
 * and a copy of its user stack).  The walker is bpf/unwind.h's own
 * ldlat_unwind_frame built natively: its reads go to the copy, its table
 * lookups to the blocks read back from the kernel's 'unwind_files', so the
 * rules and the rows are those a walk in the kernel takes.
 */
#ifndef LDLAT_UNWINDDEFER_H
#define LDLAT_UNWINDDEFER_H

#include <linux/types.h>

#include "bpf/unwind.h"

/* The tables of 'unwind_files' read back, by slot. */
struct unwind_native {
	int files_fd;
	__u32 nslots;
	struct ldlat_unwind_native_table *tables;
	__u32 *ids; /* each slot's inner map when read (a slot reloaded is read again) */
};

void unwind_native__init(struct unwind_native *n, int files_fd, __u32 max_files);

/*
 * The tables p's mappings name, read from the kernel's maps unless read
 * already.  Returns 0, or -errno (a table that is gone is no error: the
 * walk finds no row there, as the kernel's would).
 */
int unwind_native__tables(struct unwind_native *n, const struct ldlat_unwind_proc *p);

/*
 * d's user stack walked with p's mappings (NULL: frame pointers alone),
 * up to max frames into ips (frame 0 the sample's PC), as the BPF program
 * walks (ldlat.bpf.c's ldlat_top_unwind).  Returns why the walk ended
 * (enum ldlat_unwind_stop); *nr the frames, *frames_fp those a frame
 * pointer found.
 */
__u32 unwind_native__walk(struct unwind_native *n, const struct ldlat_unwind_proc *p,
			  const struct ldlat_unwind_defer *d, __u32 max, __u64 *ips, __u32 *nr,
			  __u64 *frames_fp);

void unwind_native__free(struct unwind_native *n);

#endif
