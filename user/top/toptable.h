/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * toptable.h - ldlat-top's tables in user space: kept samples by (process,
 * address), where the address is an instruction pointer or a data block.
 * Filled from the BPF maps (topprog.c) or sample by sample by native
 * code (a perf.data reader), with the same ldlat_top_account() the BPF
 * program runs; symbolized and printed by topreport.c.
 */
#ifndef LDLAT_TOPTABLE_H
#define LDLAT_TOPTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "bpf/ldlat.h"

/*
 * A key and its sample count: what a source without latency or data source
 * (page faults, most events) fills, 24 bytes a key.  The rest of its
 * struct ldlat_top_val lives in the table's 'wide' part, made the first
 * time a value needs it (top_table__val gives the whole value either way).
 */
struct top_entry {
	__u32 tgid;
	__u32 resident; /* native model: the key holds an entry of the kernel's table */
	__u64 addr;
	__u64 count;
};

/* An entry's value but its count, in the table's wide part (same index). */
struct top_wide {
	__u64 lat_sum;
	__u64 lat_max;
	__u32 cls[LDLAT_NCLASS];
	__u32 pad;
};

/* top_table's 'uniform': no value added yet. */
#define TOP_UNIFORM_NONE (LDLAT_NCLASS + 1)
/* top_val__uniform: a value with latency, or of several classes */
#define TOP_UNIFORM_WIDE (LDLAT_NCLASS + 2)

/*
 * An index slot: the entry's index and the top of its key's hash, so that
 * a probe reads the entry only when the tags agree (a new key reads none).
 */
struct top_slot {
	__u32 i; /* (__u32)-1: empty */
	__u32 tag;
};

/* A slot of the native model's front: the key that took it, if taken. */
struct top_front_slot {
	__u32 tgid;
	__u32 taken;
	__u64 addr;
};

struct top_table {
	struct top_entry *e;
	size_t n, cap;
	/*
	 * NULL while every value added had no latency and its samples all of
	 * one class, 'uniform' (LDLAT_NCLASS: of none counted): an entry's
	 * value is then its count alone.  Made (cap of them) by the first
	 * value that is not so, and kept until the table's memory goes.
	 */
	struct top_wide *wide;
	__u32 uniform;
	struct top_slot *slot; /* open-addressing index into e; nslot is a power of two */
	size_t nslot;
	__u64 full;	 /* samples not attributed: the kernel's table and spill ring were full */
	__u64 failed;	 /* samples not attributed: the kernel's update failed otherwise */
	__u64 spilled;	 /* samples attributed through the spill ring (the table was full) */
	__u64 resident;	 /* native model: keys the kernel's table holds */
	__u64 *door;	 /* native model: the data table's door (ldlat_top_door), its words */
	__u32 door_bits; /* log2 of them */
	/*
	 * native model: the table's front (struct ldlat_top_front) on one CPU,
	 * 1 << front_bits slots (0: none; kept across resets), each the key
	 * that took it this generation
	 */
	struct top_front_slot *front;
	__u32 front_bits;
	bool found_full; /* native model: an insert found the kernel's table full this generation */
	/*
	 * --max-keys: keys the table may hold (0: no bound), counting 'held'
	 * keys kept outside it (the rows of exited processes); a sample of a
	 * further key is counted in 'capped', not kept.  Kept across resets.
	 */
	size_t max;
	size_t held;
	__u64 capped; /* samples not attributed: their key was past max */
};

void top_table__init(struct top_table *t);
void top_table__free(struct top_table *t);

/* Entries a table keeps room for across top_table__reset, whatever it held. */
#define TOP_TABLE_KEEP 4096

/*
 * Empties the table (its bound, max, stays); keeps its memory, unless it is
 * larger than TOP_TABLE_KEEP entries and held less than a quarter of it.
 */
void top_table__reset(struct top_table *t);

/*
 * Starts loading the index slot of (tgid, addr): a caller with a batch of
 * keys asks for all of them first, so their cache misses overlap.
 */
void top_table__prefetch(const struct top_table *t, __u32 tgid, __u64 addr);

/* The entry of (tgid, addr), or NULL. */
const struct top_entry *top_table__find(const struct top_table *t, __u32 tgid, __u64 addr);

/*
 * Adds v into the entry of (tgid, addr), creating it; a key past max is
 * counted in 'capped' instead. Returns 0 or -ENOMEM.
 */
int top_table__merge(struct top_table *t, __u32 tgid, __u64 addr, const struct ldlat_top_val *v);

/* Adds one sample, as the BPF program does (past max: 'capped'). Returns 0 or -ENOMEM. */
int top_table__add_sample(struct top_table *t, __u32 tgid, __u64 addr, __u64 lat, __u32 cls);

/*
 * A kept sample of class cls into ldlat-top's tables as the BPF program adds
 * it (ldlat_account in bpf/ldlat.bpf.c): (s->tgid, s->ip) into ip and
 * (s->tgid, the block of s->addr, 1 << cfg->top_shift bytes) into data, each
 * when cfg->top asks for it and the table is not NULL.  A key that is new to
 * a table that already holds cfg->top_entries keys is counted in its 'full',
 * goes through the spill ring as the kernel's program sends it (counted in
 * 'spilled', and added), and when the ring (ldlat_top_spill_bytes(), shared
 * by both tables, emptied only by a drain, filled LDLAT_TOP_BATCH records at
 * a time) is full it is counted in 'full'
 * (top_entries 0: no bound, the tables grow).
 * Returns 0 or -ENOMEM.
 */
int top_tables__add(struct top_table *ip, struct top_table *data, const struct ldlat_config *cfg,
		    const struct ldlat_sample *s, __u32 cls);

/*
 * Removes the entries drop says to (their counts go with them); a table
 * larger than TOP_TABLE_KEEP entries left under a quarter full gives its
 * room back.
 */
void top_table__remove_if(struct top_table *t, bool (*drop)(const struct top_entry *e, void *ctx),
			  void *ctx);

/*
 * Takes one sample of latency lat and class cls back out of entry e of t,
 * one that was added to it (its count, latency sum and class count; the
 * maximum stays): a sample whose count moves elsewhere.
 */
void top_table__unaccount(struct top_table *t, struct top_entry *e, __u64 lat, __u32 cls);

/* The whole value of entry e of t (counts, sums, max, classes). */
void top_table__val(const struct top_table *t, const struct top_entry *e, struct ldlat_top_val *v);

/* Sum of the entries' counts: the samples attributed. */
__u64 top_table__samples(const struct top_table *t);

/* Adds one entry value into another (counts, sums, max, classes). */
void top_val__add(struct ldlat_top_val *acc, const struct ldlat_top_val *v);

/*
 * The class every sample of v is of, where v is a count alone (no latency):
 * LDLAT_NCLASS when of none counted, TOP_UNIFORM_NONE when v is empty; else
 * TOP_UNIFORM_WIDE (v needs a table's wide part).
 */
__u32 top_val__uniform(const struct ldlat_top_val *v);

/* The class with the most samples (LDLAT_CLASS_UNKNOWN when none). */
unsigned int top_val__dominant(const struct ldlat_top_val *v);

#endif
