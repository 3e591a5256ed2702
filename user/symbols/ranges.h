/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * ranges.h - the data address ranges of -a/--addr: parsing, resolving names
 * of mappings against a process, and turning them into the sorted spans the
 * BPF program searches.
 */
#ifndef LDLAT_RANGES_H
#define LDLAT_RANGES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

#include "bpf/ldlat.h"
#include "kernel/lib/err.h"

struct range_spec {
	char text[256]; /* as the user wrote it */
	bool mapping;	/* a mapping name ([heap], [stack], a file), resolved later */
	__u64 lo, hi;	/* [lo, hi), for an address range */
};

struct span {
	__u64 lo, hi;
	__u32 range;
};

/* A mapping of a process: [lo, hi) and its path ("[heap]", a file; "" when anonymous). */
struct vma {
	__u64 lo, hi;
	__u64 pgoff; /* file offset of lo */
	char path[512];
};

struct range_set {
	int nranges;
	struct range_spec range[LDLAT_MAX_RANGES];
	int nspans;
	struct span span[LDLAT_MAX_SPANS]; /* sorted by lo, disjoint */
};

/*
 * Parses one range: 0xLO-0xHI, 0xLO+SIZE (SIZE with an optional K, M, G or T
 * suffix, powers of 1024), or a mapping name.  Returns 0 or -EINVAL with a
 * sentence in err.
 */
int range__parse(struct range_spec *r, const char *text, struct err *err);

/* Parses and appends; refuses more than LDLAT_MAX_RANGES. */
int range_set__add(struct range_set *set, const char *text, struct err *err);

bool range_set__has_mappings(const struct range_set *set);

/*
 * The first range that names a file none of pid's mappings is yet (a
 * library that the dynamic loader of a command stopped at its exec has not
 * mapped), or -1: none, or /proc/PID/maps cannot be read (resolving says why).
 */
int range_set__first_unmapped(const struct range_set *set, pid_t pid);

/*
 * What bounds a process's [heap] and [stack] (0: unknown).  heap_room is how
 * far the heap may grow above its current end: RLIMIT_DATA when the process
 * has one, else range__default_heap_room().
 */
struct vm_bounds {
	__u64 start_brk; /* where the brk heap starts (/proc/PID/stat field 47) */
	__u64 heap_room;
	__u64 stack_limit; /* RLIMIT_STACK */
};

/*
 * The heap's room when RLIMIT_DATA is unlimited: this machine's memory and
 * swap (the heap cannot hold more and still be used).
 */
__u64 range__default_heap_room(void);

/*
 * Builds the spans: address ranges as given, mapping names looked up in
 * /proc/PID/maps (pid 0: none may be a mapping name).  Refuses overlapping
 * ranges.  Returns 0 or -EINVAL/-ESRCH with a sentence in err.
 *
 * [heap] covers the brk heap and heap_room above its current end, never
 * past the next mapping (mmap'd memory, malloc's large blocks included, is
 * not [heap]); [stack] the main stack and the room below it up to
 * RLIMIT_STACK; a file every mapping of it (matched by path or base name)
 * plus the anonymous mapping right after it (its .bss), contiguous mappings
 * merged.  A name no mapping has may be a variable of one of the mapped
 * ELF files (STT_OBJECT, as ldlat-top's data rows name it): its start and
 * size.
 */
int range_set__resolve(struct range_set *set, pid_t pid, struct err *err);

/* The same, reading maps from a file (tests use fixtures). */
int range_set__resolve_maps(struct range_set *set, const char *maps_path, const struct vm_bounds *b,
			    struct err *err);

/* The same, from a process's mappings sorted by address (offline: from perf.data's MMAP records). */
int range_set__resolve_vmas(struct range_set *set, const struct vma *v, int nv,
			    const struct vm_bounds *b, struct err *err);

/* "0x7f00-0x7f80" etc. for range i: the resolved spans, for headers. */
void range_set__describe(const struct range_set *set, int i, char *buf, size_t len);

#endif
