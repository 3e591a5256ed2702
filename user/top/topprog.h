/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * topprog.h - ldlat-top's BPF program: the ldlat program with ldlat-top's
 * tables (top_session__open), as a run drives it (top_prog, an
 * implementation of user/run/prog.h), and moving the tables out of the
 * kernel (top_sink).  The BPF program keys every entry with a generation;
 * user space moves the
 * generation on, waits until no program can still be writing the old one,
 * and moves the old generation's entries (summed over CPUs) into a
 * struct top_table, deleting them: the kernel's tables only need room for
 * the keys of one drain period, and no sample is counted twice or lost.
 * A sample whose key finds its table full comes through the spill ring
 * (struct ldlat_top_spill) and is added to the same user-space table.
 */
#ifndef LDLAT_TOPPROG_H
#define LDLAT_TOPPROG_H

#include <stdbool.h>

#include "user/run/prog.h"
#include "user/run/session.h"
#include "user/top/toptable.h"
#include "user/top/unwindset.h"
#include "user/top/unwinddefer.h"

/*
 * session__open for ldlat-top: the program with the tables cfg->top names,
 * of cfg->top_entries keys each, and a copy of the histograms per
 * generation parity.  0 or -errno with a sentence in err.
 */
int top_session__open(struct session *s, const struct ldlat_config *cfg, unsigned int flags,
		      struct err *err);

/*
 * --call-graph dwarf: the user stack walked from unwind tables (bpf/unwind.h)
 * up to max_stack frames, with room for the tables of 'files' files and the
 * mappings of 'procs' processes (user/top/unwindset.c fills them).
 */
struct top_unwind {
	__u32 max_stack; /* 1 to LDLAT_UNWIND_MAX_STACK */
	__u32 files;
	__u32 procs;
	/*
	 * samples walked before their tables were in, sent with a stack copy
	 * to the 'unwind_defer' ring (struct ldlat_unwind_defer): at most
	 * defer_max a CPU in a generation (0: none), in a ring of defer_ring
	 * bytes (a power of two pages)
	 */
	__u32 defer_max;
	__u32 defer_ring;
};

/*
 * top_session__open with the walk from unwind tables (uw; NULL: none, the
 * kernel's frame-pointer walk); with SESSION_TEST_ENTRY also its test entry
 * ldlat_test_unwind.
 */
int top_session__open_unwind(struct session *s, const struct ldlat_config *cfg, unsigned int flags,
			     const struct top_unwind *uw, struct err *err);

/* Where the drained samples go, and the spill ring's reader. */
struct top_sink {
	struct top_table *ip, *data;	     /* the generations drained (NULL: table off) */
	struct top_table next_ip, next_data; /* spilled samples of the generation after */
	struct top_table *stack;	     /* call paths (--call-graph; set after open) */
	struct top_table next_stack;
	__u32 gen; /* the generation ip and data are filled with */
	/*
	 * The counters and histograms of every generation drained, summed
	 * (seen and periods filled in as session__read_fds does): its
	 * counters.kept is what each table sums to; taken: the last drain's
	 * switch of generation, the moment they stand for.
	 */
	struct snapshot drained;
	__u64 spilled;	/* samples that came through the spill ring */
	void *cons;	/* the ring's consumer page */
	void *prod;	/* its producer page, then the data mapped twice */
	size_t size;	/* bytes of ring data */
	size_t prodlen; /* bytes of the producer mapping */
	long page;
};

/*
 * Maps the spill ring of s (loaded with ldlat-top's tables) for ip and
 * data (either NULL when that table is off), and allocates the drained
 * snapshot.  Returns 0 or -errno.
 */
int top_sink__open(struct top_sink *k, struct session *s, struct top_table *ip,
		   struct top_table *data);

/* Unmaps and frees; safe on a zeroed sink. */
void top_sink__close(struct top_sink *k);

/*
 * Moves the tables' entries and the spill ring's records of the drained
 * generation of s into the sink's tables, with the samples not attributed,
 * and adds its counters and histograms to k->drained.
 * With all, every generation (the events must be disabled: nothing writes
 * any more); otherwise the generation moves on first, and the next
 * generation's records already in the ring wait in the sink until
 * top_sink__carry.  Returns 0 or -errno.
 */
int top_sink__drain(struct top_sink *k, struct session *s, bool all);

/*
 * Clears the program's marks of tables found full (struct ldlat_top_full)
 * on every CPU; top_sink__drain does once it has emptied a generation.
 * Returns 0 or -errno.
 */
int top_session__clear_full(struct session *s);

/* Reads the spill ring between drains (it holds the current generation's records). */
int top_sink__poll(struct top_sink *k);

/* After a report of the drained generations: their successor's records into the tables. */
int top_sink__carry(struct top_sink *k);

/*
 * The call path stored under 'key' (a call-path table entry's address,
 * ldlat_top_stack_key) into st, each stack up to its first IP of 0.
 * Returns 0, or -errno (-ENOENT: not there).
 */
int top_session__stack(struct session *s, __u64 key, struct ldlat_top_stack *st);

/*
 * Deletes the paths of the generations of parity 'parity' from the stack
 * map: those of a drained generation, once its entries are named, so that
 * the map holds about one drain period's paths.  No program writes that
 * parity until the next drain moves the generation on.  Returns 0 or -errno.
 */
int top_session__forget_stacks(struct session *s, __u32 parity);

/* --call-graph's MODE: how the user stack is walked */
enum top_walk {
	TOP_WALK_FP,	/* bpf_get_stack: the kernel's frame-pointer walk */
	TOP_WALK_DWARF, /* the unwind tables (bpf/unwind.h), or refused */
	TOP_WALK_AUTO,	/* the unwind tables; frame pointers where the kernel refuses them */
};

/* ldlat-top's program: the session, and how it walks user stacks. */
struct top_prog {
	struct session_prog sp; /* first: the interface */
	enum top_walk walk;
	struct top_unwind unwind; /* TOP_WALK_DWARF, _AUTO: its sizes */
	bool walking;		  /* the walker is loaded (after open) */
	char why[256];		  /* _AUTO without it: the kernel's refusal */
};

/*
 * ldlat-top's program as a run drives it (prog.h), in a struct top_prog:
 * top_session__open(_unwind) for the tool's configuration on its read
 * path; prog__read's model is a struct top_sink opened on the session
 * (top_sink__open), and last drains every generation (top_sink__drain's
 * all).
 */
extern const struct prog_ops top_prog_ops;

/* u set up empty on the unwind tables' maps of s (opened with the walker). */
void top_session__unwind_init(struct session *s, struct unwind_set *u);

/* d reading s's 'unwind_defer' ring (opened with the walker). Returns 0 or -errno. */
int top_session__unwind_defer_open(struct session *s, struct unwind_defer_queue *d,
				   __u32 max_stack);

/*
 * The walks of the drained generation's parity 'slot' (both with all)
 * added into sum, and zeroed for the next.  Returns 0 or -errno.
 */
int top_session__unwind_counters(struct session *s, __u32 slot, bool all,
				 struct ldlat_unwind_counters *sum);

#endif
