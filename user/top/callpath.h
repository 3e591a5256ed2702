/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * callpath.h - ldlat-top --call-graph: the kept samples by call path.  A
 * path is the process's name, its user frames and its kernel frames, the
 * outermost caller first, each frame a function name (a kernel one marked
 * "_[k]", as flame-graph tools mark them); samples of one path share one
 * entry with their count, latency sum and classes.  A path the kernel's
 * stack map could not take (it was full), or a stack the kernel could not
 * walk, is a frame that says so, and is counted: the paths always sum to
 * the samples the table attributed.  Printed as a caller tree (perf report -g caller's
 * shape), as folded stacks (one "frame;frame;frame count" line per path,
 * what flame-graph tools read), in JSON, and drawn as an SVG flame graph
 * (flamegraph.h).
 */
#ifndef LDLAT_CALLPATH_H
#define LDLAT_CALLPATH_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

#include "bpf/ldlat.h"
#include "bpf/unwind.h"
#include "user/report/json.h"
#include "user/symbols/symbolize.h"

struct callpath {
	char *folded; /* frames, outermost first, joined by ';' */
	struct ldlat_top_val v;
};

/* Why a path, or one of its stacks, is missing. */
enum callpath_loss {
	CALLPATH_LOST_FULL,   /* the stack map was full: the sample's path was not kept */
	CALLPATH_LOST_FAILED, /* the stack map refused it otherwise (a bucket busy in NMI) */
	CALLPATH_LOST_USER,   /* the user stack could not be taken (bpf_get_stack's error) */
	CALLPATH_LOST_KERNEL, /* the kernel stack could not be taken */
	CALLPATH_NLOSS,
};

/*
 * --call-graph=dwarf or auto: how the user stacks of a report's samples
 * were walked (the walker's counters), and what the unwind tables hold now
 * and could not (user/top/unwindset.h's counts).
 */
struct callpath_walks {
	bool on;
	struct ldlat_unwind_counters c;
	__u64 files, bytes, procs;		      /* tables loaded, their size, processes */
	__u64 no_cfi, failed, full;		      /* files without a table, and why */
	__u64 loads, freed;			      /* tables loaded in all, and freed */
	__u64 procs_failed, procs_full, maps_dropped; /* processes and mappings not given */
	__u64 max_files, max_procs;		      /* the maps' sizes */
	/* of c.deferred: walked again in user space, or left to their frame pointers */
	__u64 defer_walked, defer_fp;
};

struct callpath_memo;

struct callpaths {
	void *index;		    /* tsearch of struct callpath, by folded */
	struct callpath_memo *memo; /* callpaths__memoize's; NULL: every sample named */
	struct callpath_walks walks;
	__u64 npaths;
	__u64 samples;		    /* in the paths */
	__u64 lost[CALLPATH_NLOSS]; /* samples by what they lost */
	__u64 lost_samples;	    /* samples that lost any: under a frame that says so */
	__u64 full, failed;	    /* not attributed: the kernel's table was full */
	__u64 spilled;		    /* attributed through the spill ring */
};

void callpaths__init(struct callpaths *c);
void callpaths__free(struct callpaths *c);
/*
 * Names each distinct stack once: a later sample of the same process key,
 * name and IPs (and IP keys) goes to the path the first one was named into,
 * without naming its frames again.  Only where a key names one process
 * image for the whole of the paths' life (--input's image keys): live, a
 * TGID's mappings change under it.  Returns 0 or -ENOMEM.
 */
int callpaths__memoize(struct callpaths *c);
/* Empties it (after a report). */
void callpaths__reset(struct callpaths *c);

/*
 * One stack of a sample: the IPs innermost first, as the stack map or a
 * PERF_SAMPLE_CALLCHAIN holds them (n 0: there are no frames of that kind);
 * err below 0 when it could not be taken (bpf_get_stack's error).
 */
struct callpath_stack {
	const __u64 *ips;
	int n;
	int err;
	const __u32 *keys; /* the symbolizer's process key of each IP (NULL: the path's) */
};

/*
 * The address a stack's frame i is named at: the leaf's IP; a caller's
 * return address less one, the call itself (a function whose last
 * instruction is a call that does not return has its return address in the
 * next function).  A return address of 0 (a broken chain's end) stays 0:
 * [unknown], not the top of the address space.
 */
static inline __u64 callpath_stack__ip(const struct callpath_stack *st, int i)
{
	return st->ips[i] - (i && st->ips[i] ? 1 : 0);
}

/*
 * The frame the paths show for ip of process key: its function, else
 * "[file]" of its mapping, else "[unknown]", a ';' as ':', with "_[k]"
 * after a kernel frame; sym gets what the symbolizer found (its mapping
 * and build ID too).
 */
void callpath__frame(struct symbolizer *z, __u32 key, __u64 ip, bool kernel, struct sym *sym,
		     char *frame, size_t len);

/*
 * Adds v under the path of process tgid (named comm; NULL: "[pid N]")
 * whose user and kernel stacks are given, named with z (key: the
 * symbolizer's process key, the TGID live).  Returns 0 or -ENOMEM.
 */
int callpaths__add(struct callpaths *c, struct symbolizer *z, __u32 key, const char *comm,
		   const struct callpath_stack *user, const struct callpath_stack *kernel,
		   const struct ldlat_top_val *v);

/*
 * Adds v under the path of process tgid (named comm) that was lost whole
 * (CALLPATH_LOST_FULL or _FAILED): one frame says why.  Returns 0 or -ENOMEM.
 */
int callpaths__add_lost(struct callpaths *c, __u32 key, const char *comm, enum callpath_loss why,
			const struct ldlat_top_val *v);

/* Adds v under a path given as its folded string. Returns 0 or -ENOMEM. */
int callpaths__add_folded(struct callpaths *c, const char *folded, const struct ldlat_top_val *v);

/* The paths sorted by their folded string; *n of them.  NULL with n 0 when none or no memory. */
const struct callpath **callpaths__sorted(const struct callpaths *c, size_t *n);

/* The samples not in a path: the kernel's table was full or its update failed. */
static inline __u64 callpaths__unattributed(const struct callpaths *c)
{
	return c->full + c->failed;
}

/* The frame a loss is shown as ("[call path lost: stack map full]"). */
const char *callpath_loss__frame(enum callpath_loss l);

/* Adds the losses of one set of paths into another (a run's, from each report's). */
void callpaths__add_losses(struct callpaths *acc, const struct callpaths *c);

/*
 * The walks' line and the tables' line (--call-graph=dwarf or auto), as
 * the text report and the profile's comments print them; nothing when off.
 */
void callpaths__render_walks(FILE *out, const struct callpath_walks *w);

/* What a path's weight is: samples, or their latency sum. */
enum callpath_weight {
	CALLPATH_WEIGHT_SAMPLES,
	CALLPATH_WEIGHT_LATENCY,
};

static inline __u64 callpath__weight(const struct ldlat_top_val *v, enum callpath_weight w)
{
	return w == CALLPATH_WEIGHT_LATENCY ? v->lat_sum : v->count;
}

/*
 * Folded stacks: "frame;frame;frame weight" per path, sorted; the samples
 * not attributed as one line "[not attributed: table full] N".
 */
void callpaths__render_folded(FILE *out, const struct callpaths *c, enum callpath_weight w);

/*
 * The caller tree: from each process down to the frames that took the
 * samples, percent of 'total' (the kept samples), samples, and with
 * latency the mean and the leading data source; then the losses.
 */
void callpaths__render_tree(FILE *out, const struct callpaths *c, __u64 total, bool has_latency);

/* The tree's last lines: the samples that lost their paths, a line per loss; none without. */
void callpaths__render_losses(FILE *out, const struct callpaths *c);

/* "call_paths": {...} into an open JSON object. */
void callpaths__json(struct json *j, const struct callpaths *c);

/*
 * The paths as a tree of frames (what the caller tree and the flame graph
 * draw): children sorted by name.
 */
struct callnode {
	const char *name; /* into the paths' folded strings' copies */
	size_t len;
	struct ldlat_top_val v; /* this frame and everything it called */
	struct callnode *child;
	size_t nchild, cap;
};

/*
 * Builds the tree of the paths under a root named root; with unattributed,
 * the samples not in a path as one more child of the root (a frame that
 * says so).  Returns NULL when out of memory.
 */
struct callnode *callpaths__tree(const struct callpaths *c, const char *root, bool unattributed);

#define CALLPATH_UNATTRIBUTED "[not attributed: table full]"
void callnode__free(struct callnode *n);

/* The process's name as a path's root frame (NULL or empty: "[pid KEY]", in name). */
const char *callpath__root(__u32 key, const char *comm, char *name, size_t len);

#endif
