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

#include <stdbool.h>
#include <stddef.h>
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

/* The tables read so far forgotten (read again when a walk needs them). */
void unwind_native__release(struct unwind_native *n);

void unwind_native__free(struct unwind_native *n);

/*
 * The deferred samples of a live run: read from the ring at each tick,
 * each walked as soon as its process's tables are all in (an entry in
 * 'unwind_procs' with no mapping pending), its stack copy freed then; a
 * drain moves each walked sample's count from the path its frame pointers
 * gave (ldlat-top.c).
 */
struct unwind_deferred {
	__u32 tgid, gen, cls;
	__u32 nr;			/* the walk's frames (walked) */
	__u32 stop;			/* why it ended (enum ldlat_unwind_stop; walked) */
	__u64 key, lat;			/* its frame-pointer path in top_stack */
	__u64 *ips;			/* the walk (NULL: not walked yet) */
	struct ldlat_unwind_defer *rec; /* the copy, until walked */
};

struct ring_buffer;

struct unwind_defer_queue {
	struct unwind_native native;
	struct ring_buffer *rb;
	int procs_fd;
	__u32 max_stack;
	struct unwind_deferred *q;
	size_t n, cap;
	size_t held, max_held; /* the bytes of the copies and walks kept, and their bound */
	__u64 proc_reads;      /* processes' entries read by the polls */
	/*
	 * a process's entry read from /proc again, now (0, or -errno): a walk
	 * found it older than its sample (a library mapped since); counted
	 */
	int (*reread)(void *ctx, __u32 tgid);
	void *reread_ctx;
	__u64 rereads;
	/* records read without memory or room to keep them (their frame-pointer path stays) */
	__u64 nomem;
};

/*
 * ring_fd: the 'unwind_defer' ring; the others as unwind_set's; max_held:
 * the bytes of copies kept at once, at most (a record past it is counted in
 * nomem).  Returns 0 or -errno.
 */
int unwind_defer__open(struct unwind_defer_queue *d, int ring_fd, int files_fd, __u32 max_files,
		       int procs_fd, __u32 max_stack, size_t max_held);

/* The ring read into the queue, and the samples whose tables are in walked. Returns 0 or -errno. */
int unwind_defer__poll(struct unwind_defer_queue *d);

/* Walks e now if its tables are in; true when it is walked. */
bool unwind_defer__walk(struct unwind_defer_queue *d, struct unwind_deferred *e);

/* Drops the queue's entries for which done says so (their memory freed). */
void unwind_defer__remove_if(struct unwind_defer_queue *d,
			     bool (*done)(struct unwind_deferred *e, void *ctx), void *ctx);

void unwind_defer__close(struct unwind_defer_queue *d);

#endif
