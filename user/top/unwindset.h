/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * unwindset.h - ldlat-top --call-graph dwarf: the unwind tables of the
 * files the profiled processes map, in the BPF program's maps.
 *
 * Each executable file a process maps is compiled once
 * (user/symbols/unwind.c) into a table at a slot of 'unwind_files' (an
 * array of maps: one inner array per file, sized to its table), shared by
 * every process that maps the file: files are the same by device and
 * inode, or by build ID.  Each process's executable mappings go to
 * 'unwind_procs' under its PID, with the slot and base of each, or why
 * it has none (no CFI, a failed load, the slots full, anonymous memory
 * such as JIT code): there the walker follows frame pointers.  A file
 * refused for want of a slot is loaded when a process mapping it is read
 * again after a slot was freed (every process is, at the next refresh).
 */
#ifndef LDLAT_UNWINDSET_H
#define LDLAT_UNWINDSET_H

#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

#include "bpf/unwind.h"
#include "kernel/lib/err.h"

enum unwind_file_state {
	UNWIND_FILE_LOADED,
	UNWIND_FILE_FREED,  /* no process maps it any more: its table was freed (entry reusable) */
	UNWIND_FILE_NO_CFI, /* no .eh_frame nor .debug_frame */
	UNWIND_FILE_FAILED, /* unreadable, not ELF, too large, or the map refused it */
	UNWIND_FILE_FULL,   /* every slot was taken */
};

struct unwind_file {
	__u64 dev, ino;
	unsigned char build_id[20];
	int build_id_len;
	enum unwind_file_state state;
	__u32 slot;  /* in unwind_files (LOADED) */
	__u32 rows;  /* the table's */
	__u64 bytes; /* what it takes in BPF */
	/* the executable segments, for each mapping's base (unwind_table__map_base) */
	__u64 tbase;
	int nseg;
	struct {
		__u64 offset, vaddr, filesz;
	} seg[4];
};

struct unwind_cache;

struct unwind_set {
	int files_fd, procs_fd;
	struct unwind_cache *cache; /* tables compiled before (NULL: each compiled) */
	__u32 max_files, max_procs;
	struct unwind_file *files;
	size_t nfiles, cap;
	__u32 *slot_refs; /* per slot: the processes whose mappings use its table (0: free) */
	/*
	 * Tables made but not yet in 'unwind_files': a process's all go in
	 * one batch, since each update of a map of maps waits for the
	 * running BPF programs (an RCU grace period, ~10 ms)
	 */
	__u32 npending;
	__u32 pending_slot[LDLAT_UNWIND_MAPS];
	int pending_fd[LDLAT_UNWIND_MAPS];
	void *procs_tree; /* tsearch of the processes given mappings, by PID */
	/*
	 * The BPF program's unwind_procs_refused (NULL: none): set when the
	 * map refuses a process, cleared when an entry is freed; while set, a
	 * sample of a process with no entry is not deferred
	 */
	volatile __u32 *refused;
	/* what the tables hold and what they could not */
	__u32 loaded;		    /* tables in the slots now */
	__u32 no_cfi, failed, full; /* files (each once) without a table, and why */
	bool retry;  /* a slot freed while files were full: unwind_set__refresh reads all again */
	__u64 loads; /* tables loaded in all */
	__u64 freed; /* tables freed: no process mapped their file any more */
	__u64 bytes; /* in BPF, the tables loaded now */
	__u64 procs; /* processes with their mappings in the map now */
	__u64 procs_failed; /* reads of a process's mappings that failed (it exited meanwhile) */
	__u64 procs_full;   /* processes refused: the map held max_procs already */
	__u64 maps_dropped; /* executable mappings past LDLAT_UNWIND_MAPS in a process */
};

/* files_fd, procs_fd: the session's 'unwind_files' and 'unwind_procs' maps and their sizes. */
void unwind_set__init(struct unwind_set *u, int files_fd, __u32 max_files, int procs_fd,
		      __u32 max_procs);

/*
 * Reads pid's executable mappings (/proc/PID/maps, each file opened
 * through /proc/PID/map_files), loads the tables of files not loaded yet,
 * and stores its mappings.  Returns 0, or -errno with a sentence in err
 * (the process is gone, or its maps cannot be read); a file that cannot
 * be loaded is counted, not an error.
 */
int unwind_set__add_process(struct unwind_set *u, pid_t pid, struct err *err);

/*
 * pid's mappings read again now, as unwind_set__add_process, outside the
 * side band's order: a deferred walk found its entry older than its
 * sample (a library mapped since the side band was last read).
 */
int unwind_set__reread(struct unwind_set *u, pid_t pid, struct err *err);

struct procmaps;

/*
 * Follows the process model: each process whose mappings changed since the
 * last call (an exec, an mmap; every one the first time) gets them read
 * again (unwind_set__add_process); an exited one is forgotten
 * (unwind_set__forget).  A process that cannot be read is counted.
 * Returns 0 or -ENOMEM.
 */
int unwind_set__refresh(struct unwind_set *u, struct procmaps *pm);

/*
 * pid's mappings out of the map, and the tables no other process uses
 * freed (their slots taken by the next files).
 */
void unwind_set__forget(struct unwind_set *u, pid_t pid);

/* The mappings pid would get (unwind_set__add_process without the map update). */
int unwind_set__proc(struct unwind_set *u, pid_t pid, struct ldlat_unwind_proc *p, struct err *err);

void unwind_set__free(struct unwind_set *u);

#endif
