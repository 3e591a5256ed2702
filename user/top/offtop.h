/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * offtop.h - ldlat-top --input: the samples of a perf.data file into
 * ldlat-top's tables, each one judged and counted by the native build of the
 * BPF program's logic (offline.h, top_tables__add), and the file's MMAP,
 * MMAP2, COMM, FORK and EXIT records into the process model the live side
 * band feeds (machine.h), so that every sample is named with the mappings
 * that were in place when it was taken.
 *
 * Order.  perf record empties each CPU's ring buffer in turn, so a file is
 * in time order per CPU but not across CPUs: a sample may come before the
 * mmap of another CPU that preceded it.  The side-band records are therefore
 * applied in timestamp order (file order among equal times), and each
 * sample is placed by its own timestamp.  A file without timestamps (an
 * event without PERF_SAMPLE_TIME or sample_id_all) is taken in file order.
 *
 * Images.  The records build the process model's history (machine.h): a
 * process's images over time, frozen in the images' procmaps, and the
 * tables are keyed by (image, IP) and (image, block) instead of (TGID, ...).
 * A sample goes to the image that names its address (machine__image), so
 * that samples of one address under one mapping share one entry whatever
 * images came between, as they share one (TGID, address) entry live: rows,
 * counts and the lines or pages touched are the same as a live run's.  A
 * process of which the file holds no records keeps its TGID as the key,
 * and reads [exited] (its mappings are unknown).
 *
 * Files.  A mapped file is read by path, unless perf recorded its build ID
 * (MMAP2 with a build ID, perf record --buildid-mmap; else the
 * HEADER_BUILD_ID section, which perf record writes for the files with
 * samples) and the file at that path has another one: then a copy from
 * perf's build-ID cache, and when there is none the file's addresses stay
 * unnamed and its DSO says "(recorded file not found)" (symbolizer__elf_for).
 *
 * Kernel.  Kernel addresses are named from /proc/kallsyms only when the file
 * was recorded on this kernel in this boot: the kernel's build ID (else its
 * release and the host name) and the address perf recorded for the kernel's
 * text agree with this machine's.  Otherwise perf's build-ID cache copy of
 * that kernel's kallsyms, when there is one; else they stay raw, and a note
 * says why.
 */
#ifndef LDLAT_OFFTOP_H
#define LDLAT_OFFTOP_H

#include <stdbool.h>
#include <stdio.h>

#include "kernel/lib/err.h"
#include "user/offline/offline.h"
#include "user/symbols/machine.h"
#include "user/symbols/symbolize.h"
#include "user/top/callpath.h"
#include "user/top/toppprof.h"
#include "user/top/topreport.h"
#include "user/top/toptable.h"

struct offtop {
	struct offline o;	     /* the file, its events, the configuration */
	struct machine model;	     /* the processes as the records leave them, and their images */
	struct procmaps *images;     /* the caller's, which the symbolizer reads */
	struct symbolizer *z;	     /* the caller's */
	struct top_table *ip, *data; /* the caller's; either NULL when not asked for */
	struct callpaths *paths;     /* the caller's, --call-graph's; NULL when not asked for */
	struct toppprof *prof;	     /* the caller's, --format pprof's; NULL when not asked for */
	/*
	 * leaf_paths is offtop__open's argument (--format pprof):
	 * an event that recorded no call chain
	 * but the IP gives each sample a path of its instruction alone, and
	 * chainless says one did, rather than being refused.
	 */
	bool leaf_paths, chainless;
	void *build_ids;  /* tsearch of HEADER_BUILD_ID entries, by file name */
	void *mismatched; /* tsearch of "hex name": files no file here matches */
	bool timed;	  /* timestamps order the records */
	__u64 sideband;	  /* mmap, comm, fork and exit records applied */
	/* in file order: each side-band record's index, and the latest time up to it */
	__u64 *sb_seq, *sb_latest;
	__u64 samples_behind; /* samples written after a side-band record newer than they are */
	__u64 first_time,
		last_time;    /* timed: the samples' first and last time (perf's clock, ns) */
	__u64 kernel_samples; /* kept samples with a kernel IP or data address */
	bool kernel_checked;
	unsigned char kernel_id[20]; /* the file's kernel build ID (HEADER_BUILD_ID) */
	int kernel_id_len;
	char kernel_note[1024]; /* how kernel addresses are named, when not from /proc/kallsyms */
	struct top_runs data_runs; /* the data table, named in windows of OFFTOP_DATA_WINDOW keys */
};

/* Keys the data table holds before they are named and written out as a run. */
#define OFFTOP_DATA_WINDOW (1u << 18)

/*
 * The build ID the file's header recorded for a mapped file, as hex in buf,
 * or NULL (ctx: the struct offtop; toppprof_opts.build_id_for).
 */
const char *offtop__build_id_hex(void *ctx, const char *file, char *buf, size_t len);

/*
 * Opens the file as ldlat-hist --input does (events, -a, -p, filters: see
 * offline__open), checks that its samples carry what the tables need (the
 * process, the IP for the code table, the data address for the data table),
 * (LDLAT_TOP_STACK: the call chains for t->paths), sets cfg's tables
 * (LDLAT_TOP_* in tables, blocks of 1 << shift bytes, no
 * bound on their size), and reads every side-band record into the images.
 * leaf_paths: an event without call chains gives each sample the path of its
 * instruction alone (--format pprof) rather than being refused.
 * Returns 0 or -errno with a sentence in err (-EINVAL: a bad file, or an
 * option the file cannot serve).
 */
int offtop__open(struct offtop *t, const char *path, struct cli *cli, __u32 tables, __u32 shift,
		 bool leaf_paths, struct procmaps *images, struct symbolizer *z, struct err *err);

/*
 * Every sample of the file into snap (replacing what it held) and into
 * t->ip and t->data (emptied first), stamped now: a reader shaped like a live
 * session's (a printer's read).  0, or -errno with the sentence in err.
 */
int offtop__read(void *t, struct snapshot *snap, struct err *err);

/* A line on how the file was read (-v). */
void offtop__describe(const struct offtop *t, const char *tool, FILE *out);

/*
 * What the report cannot say in its rows, one line each: samples skipped,
 * the files whose build ID no file here has (one line for all of them;
 * with verbose, a line each before it), how kernel addresses were named.
 */
void offtop__report_notes(const struct offtop *t, const char *tool, bool verbose, FILE *out);

void offtop__close(struct offtop *t);

#endif
