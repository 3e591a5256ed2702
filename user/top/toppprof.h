/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * toppprof.h - ldlat-top's call paths as a pprof profile (--format pprof),
 * for continuous-profiling backends (Pyroscope, Parca) and go tool pprof.
 *
 * Each path is a sample whose locations are the path's frames, leaf first:
 * its kernel frames, its user frames, and the process's name as the root,
 * each named as the folded stacks and the caller tree name it
 * (callpath__frame), so a backend's flame graph draws the paths of the text
 * report.  A user frame's location has its address (the call's, for a
 * caller) in a mapping that carries the mapped file, its offset and the
 * file's build ID, so a backend can name it itself; a kernel frame's is in
 * one mapping "[kernel.kallsyms]" with the kernel's build ID; a frame that
 * names a loss has none.  The samples not attributed (the kernel's table
 * full) are one more path, "[not attributed: table full]", so the samples
 * add up to the kept samples.
 *
 * Values: samples/count, and with a source that measures latency its sum,
 * latency/cycles (latency/nanoseconds with a cycle length).  Labels: pid,
 * comm, class (the data-source class, when the source has one), cgroup
 * (when known), and, where a sample's data address is known (--input),
 * object (the variable or mapping, as the data table names it); and the
 * data type the sample's instruction touches (symbolizer__datatype: the
 * recorded instruction with --input, else the path's leaf, the sampled
 * one): type and member (toppprof__data_type), or untyped with the reason.
 */
#ifndef LDLAT_TOPPPROF_H
#define LDLAT_TOPPPROF_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>
#include <linux/types.h>

#include "bpf/ldlat.h"
#include "user/report/pprof.h"
#include "user/symbols/symbolize.h"
#include "user/top/callpath.h"

struct toppprof_opts {
	bool latency;		     /* the source measures latency: a second value, its sum */
	bool classes;		     /* the source has data sources: a class label */
	double ns_per_cycle;	     /* --unit ns: latency in nanoseconds; 0: cycles */
	const char *event;	     /* the sampled event, the period's type */
	__u64 period;		     /* the sampling period; 0: not one (frequency mode) */
	__u64 time_ns;		     /* when the profile's span began, ns since the epoch */
	__u64 duration_ns;	     /* its length */
	const char *kernel_build_id; /* hex; NULL or "": not known */
	/*
	 * A mapped file's build ID (hex into buf) when its ELF was not read
	 * here (--input: the one the recording's header names); NULL: none.
	 */
	const char *(*build_id_for)(void *ctx, const char *file, char *buf, size_t len);
	void *build_id_ctx;
};

struct toppprof {
	struct toppprof_opts o;
	struct pprof *p;
	__u64 kernel_map; /* its id in p, once a kernel frame is met */
	int err;	  /* the first error while adding (-ENOMEM) */
};

/* Starts a profile. Returns 0 or -ENOMEM. */
int toppprof__begin(struct toppprof *t, const struct toppprof_opts *o);
void toppprof__end(struct toppprof *t);

/* What toppprof__add knows of a sample besides its path (NULL: not known). */
struct toppprof_ctx {
	__u32 pid;	    /* the process's ID (0: the key is, as live) */
	const char *comm;   /* the process's name (NULL: "[pid N]") */
	const char *cgroup; /* its cgroup's path */
	const char *object; /* the variable or mapping its data address is in */
	const char *lost;   /* a sample whose path was lost: why ("stack map full") */
	bool no_process;    /* not attributed to one: no pid label */
	__u64 ip;	    /* its instruction (0: the path's leaf), for its data type */
	__u32 ip_key;	    /* the process key ip is named in (0: the path's) */
};

/*
 * Adds v under the path of process key with the given user and kernel
 * stacks, named with z as callpaths__add names them.  Returns 0 or -ENOMEM.
 */
int toppprof__add(struct toppprof *t, struct symbolizer *z, __u32 key,
		  const struct toppprof_ctx *ctx, const struct callpath_stack *user,
		  const struct callpath_stack *kernel, const struct ldlat_top_val *v);

/* Adds v under a path lost whole (callpaths__add_lost's). Returns 0 or -ENOMEM. */
int toppprof__add_lost(struct toppprof *t, __u32 key, const struct toppprof_ctx *ctx,
		       enum callpath_loss why, const struct ldlat_top_val *v);

/*
 * Adds each line of text (the text report's lines on what was dropped or
 * lost) as a comment of the profile (go tool pprof -comments shows them).
 * Returns 0 or -ENOMEM.
 */
int toppprof__comments(struct toppprof *t, const char *text);

/* Adds n samples not attributed (the kernel's table full). Returns 0 or -ENOMEM. */
int toppprof__add_unattributed(struct toppprof *t, __u64 n);

/*
 * The type and member labels of the data d (symbolizer__datatype's):
 * type "struct conn"; member "rx_bytes", else "+0x2000" when the offset is
 * known and no member is there, else ""; for untyped data both "" and
 * *untyped the reason ("no debug info"), else NULL.
 */
void toppprof__data_type(const struct datatype *d, char *type, size_t tlen, char *member,
			 size_t mlen, const char **untyped);

/*
 * The profile of the span [since, taken) (CLOCK_REALTIME), packed and
 * gzipped, into *buf (malloc'd, *len bytes). Returns 0 or -ENOMEM.
 */
int toppprof__encode(struct toppprof *t, const struct timespec *since, const struct timespec *taken,
		     void **buf, size_t *len);

#endif
