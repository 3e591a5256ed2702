/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * c2ctable.h - ldlat-c2c's cache lines in user space: each load and store
 * sample counted into its line (bpf/c2c.h's logic), into the line's entry
 * for its offset and code address, and into the sets of threads, CPUs and
 * NUMA nodes that touched the line.
 *
 * Which samples share a line.  A line is named by an address space and the
 * line's address in it.  A private mapping (anonymous or a file mapped
 * MAP_PRIVATE that the process may have written to) is the process's own:
 * the space is the process, the address its virtual one, so two processes'
 * private lines at one virtual address stay apart.  A shared mapping
 * (MAP_SHARED: shared memory, a shared file) is the same memory in every
 * process that maps it: the space is the mapped file (device, inode), the
 * address the offset in it, so the processes' lines meet whatever virtual
 * address each mapped it at.  A sample whose address no known mapping
 * holds is taken as private.  perf c2c tells them apart the same way
 * (tools/perf/util/sort.c, sort__dcacheline_cmp), but for addresses it
 * knows no mapping of, which it keys by address alone.
 */
#ifndef LDLAT_C2CTABLE_H
#define LDLAT_C2CTABLE_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/types.h>

#include "bpf/c2c.h"
#include "user/symbols/datatype.h"

/* A shared mapping: what names its memory whatever process maps it. */
struct c2c_space {
	__u32 maj, min;
	__u64 ino, ino_generation;
};

/*
 * A growing set of small numbers (thread IDs, CPUs), sorted.  Most lines
 * are touched by one or two threads on one or two CPUs: up to two values
 * are held in the set itself (cap 0), more on the heap (v, cap of them).
 * Read them with c2c_set__values.
 */
struct c2c_set {
	union {
		__u32 *v;
		__u32 in[2];
	};
	int n, cap;
};

/* The samples of one offset of a line from one code address of one process. */
struct c2c_entry {
	__u32 offset; /* in the line */
	__u32 tgid;
	__u64 ip;
	struct ldlat_c2c_counts c;
	struct c2c_set cpus;
	/*
	 * the threads of its samples: a file's; the kernel's tables keep
	 * threads per line only (live: empty, tids_known false)
	 */
	struct c2c_set tids;
	bool tids_known;
	__u64 nodes;	       /* bit n: node n (nodes above 63 are not told apart) */
	char *symbol, *object; /* the code address named when the entry was new (heap); or NULL */
	/*
	 * the data type and member its instruction touches (the symbolizer's
	 * answer, which lives as long as the symbolizer); NULL: not asked
	 */
	const struct datatype *dt;
};

struct c2c_line {
	/* the key */
	__u64 space; /* the TGID for a private line; else its shared space's index + 1 << 32 */
	__u64 addr;  /* the line's address in its space */
	/* what it shows */
	__u64 vaddr;	    /* its virtual address where first seen */
	__u32 tgid;	    /* the process that touched it first */
	const char *object; /* a shared line's mapped file (interned), else NULL */
	struct ldlat_c2c_counts c;
	struct c2c_set tids, tgids, cpus;
	__u64 nodes;
	struct c2c_entry *ent;
	int nent, cap;
	/*
	 * A line of many entries finds them by (offset, tgid, ip) in these
	 * slots (open addressing, an entry's index + 1; 0: empty), made when
	 * it reaches C2C_ENTRY_SLOTS_FROM entries
	 */
	__u32 *eslot;
	__u32 neslots;
};

#define C2C_ENTRY_SLOTS_FROM 8

/* The NUMA view: a process's samples taken on the CPUs of one node. */
struct c2c_numa {
	__u32 tgid;
	int node; /* -1: the CPU's node is not known */
	char comm[16];
	char cgroup[128]; /* "" when not known */
	struct ldlat_c2c_counts c;
};

struct c2c_table {
	__u32 line_shift; /* log2 of the line size */
	struct c2c_line **lines;
	int nlines, cap;
	/* the lines by (space, addr): open addressing, each slot a line's index + 1 (0: empty) */
	__u32 *slot;
	__u32 nslots; /* a power of two, at least twice nlines */
	struct c2c_space *spaces;
	int nspaces;
	char **strings; /* c2c_table__intern's */
	int nstrings;
	struct c2c_numa *numa; /* by (process, node), in the order first seen */
	int nnuma, capnuma;
	struct ldlat_c2c_counts total;
	__u64 no_addr; /* load or store samples without a data address: in no line */
	__u64 other;   /* samples that are neither a load nor a store: in no line */
	__u64 nomem;   /* samples not counted into a line: out of memory */
};

void c2c_table__init(struct c2c_table *t, __u32 line_shift);

/*
 * The cache line size as perf c2c takes it: this machine's
 * cpu0/cache/index0/coherency_line_size in sysfs (LDLAT_SYSFS moves it),
 * else 64 bytes.  Returns its log2; *from says where it came from.
 */
__u32 c2c_line_shift(const char **from);
void c2c_table__free(struct c2c_table *t);

/* The index + 1 of a shared space (added when new); 0 when out of memory. */
__u64 c2c_table__space(struct c2c_table *t, const struct c2c_space *s);

/*
 * One sample: data address addr (0: none), instruction ip, process tgid,
 * thread tid, CPU cpu, node node (-1: unknown), data source ds, latency lat
 * (0: not measured).  space: 0 for a private address (the line is the
 * process's own), else c2c_table__space's answer, with addr then the
 * offset in that space and vaddr the virtual address.  Returns the
 * line's entry for the sample's offset and code address, NULL when the
 * sample went to no line (counted: no address, not a load or store, out of
 * memory).
 */
struct c2c_entry *c2c_table__add(struct c2c_table *t, __u64 space, __u64 addr, __u64 vaddr,
				 const char *object, __u64 ip, __u32 tgid, __u32 tid, __u32 cpu,
				 int node, __u64 ds, __u64 lat);

/* The line of (space, addr), created empty when new (vaddr, tgid, object set by the caller); NULL: out of memory. */
struct c2c_line *c2c_table__line(struct c2c_table *t, __u64 space, __u64 addr);

/* The line of (space, addr), or NULL. */
struct c2c_line *c2c_table__find(struct c2c_table *t, __u64 space, __u64 addr);

/* A line's entry for (offset, tgid, ip), created empty when new; NULL: out of memory. */
struct c2c_entry *c2c_line__entry(struct c2c_line *l, __u32 offset, __u32 tgid, __u64 ip);

/* The NUMA row of (tgid, node), created empty when new; NULL when out of memory. */
struct c2c_numa *c2c_table__numa(struct c2c_table *t, __u32 tgid, int node);

/* A copy of s that lives as long as t; NULL when out of memory. */
const char *c2c_table__intern(struct c2c_table *t, const char *s);

/* Adds v to s; false when out of memory. */
bool c2c_set__add(struct c2c_set *s, __u32 v);

/* The values of s, s->n of them in ascending order. */
static inline const __u32 *c2c_set__values(const struct c2c_set *s)
{
	return s->cap ? s->v : s->in;
}

void c2c_set__free(struct c2c_set *s);

/* dst += src, every count. */
void c2c_counts__add(struct ldlat_c2c_counts *dst, const struct ldlat_c2c_counts *src);

/* Whether line l belongs in the shared table: its HITM are at least 0.1% of all (perf c2c's). */
bool c2c_line__shared(const struct c2c_line *l, __u64 total_hitm);

/* The lines sorted by HITM, most first (then by records, then by address), and each line's entries. */
void c2c_table__sort(struct c2c_table *t);

/* A line's entries sorted by offset, then HITM, most first, then records. */
void c2c_line__sort(struct c2c_line *l);

#endif
