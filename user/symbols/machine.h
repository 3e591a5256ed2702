/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * machine.h - the process model: the processes a run or a file has seen,
 * their mappings and names, and (where the input has time) their images
 * over time.  machine__process applies one side-band record (MMAP, MMAP2,
 * COMM, FORK, EXIT, CGROUP: struct sideband_rec), whether the live ring
 * gave it (procwatch.h) or a perf.data file (perf_file__parse_sideband):
 * it is the only code of user/ that applies them (tests/deps.py checks
 * it), as perf's machine__process_event is perf's.  The mappings are kept
 * in a struct procmaps (procmaps.h), which the symbolizer reads.
 *
 * Three orders:
 *  - MACHINE_LIVE: the live side band, records timestamped with
 *    CLOCK_MONOTONIC, and /proc.  An exec keeps the older mappings (the
 *    tables' samples carry no time; the newer mapping wins where both map)
 *    and the process is read again from /proc at machine__refresh for
 *    what the side band does not tell (its stack, the vDSO).
 *  - MACHINE_TIMED: a file's records in time order (the caller sorts
 *    them, and sets each record's time).  An exec or a new FORK of a PID
 *    starts the process over.  With machine__keep_history, each process's
 *    past is kept as images (below).
 *  - MACHINE_FILE_ORDER: a file's records in file order, the later winning
 *    where two map, as the file's samples are met among them.  An exec or
 *    a FORK starts over, as in MACHINE_TIMED.
 *
 * Images.  A process's history is cut where a record changes what an
 * address it already mapped would be named: an exec, a mapping over a
 * different file (or the same file at another load bias) or over a
 * build-ID copy, a PID that starts over with a new FORK.  Each piece (an
 * image) is frozen as a process of its own, with an ID from
 * MACHINE_IMAGE_BASE up, in the caller's images (a struct procmaps).
 * machine__image gives the image that names an address at a time: the one
 * in which the mapping that holds it first appeared, so that the samples
 * of one address under one mapping share one image whatever images came
 * between.  Past MACHINE_MAX_IMAGE_MAPPINGS mappings in all, the images
 * are cut no more (images_capped): a process goes on in its current image,
 * named as a live run names it.
 */
#ifndef LDLAT_MACHINE_H
#define LDLAT_MACHINE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

#include "kernel/abi/sideband.h"
#include "user/symbols/procmaps.h"

/* Image IDs start here: above every PID Linux gives (PID_MAX_LIMIT is 2^22). */
#define MACHINE_IMAGE_BASE 0x40000000
/* Mappings the frozen images may hold in all (about 200 MiB). */
#define MACHINE_MAX_IMAGE_MAPPINGS (1ull << 22)

enum machine_order {
	MACHINE_LIVE,
	MACHINE_TIMED,
	MACHINE_FILE_ORDER,
};

struct machine_image {
	__u64 start;	   /* the time from which it holds */
	pid_t id;	   /* its process in the images */
	int epoch;	   /* index of the image at which its exec or fork began */
	struct proc *proc; /* frozen at its end */
};

struct machine_timeline {
	pid_t tgid;
	int n, cap;
	struct machine_image *img;
};

/* A MAP_SHARED mapping of a file (machine__track_shared): the file's device and inode. */
struct machine_shared {
	pid_t tgid;
	__u64 start, end, pgoff;
	__u32 maj, min;
	__u64 ino, ino_generation;
	const char *name; /* interned in the machine's procmaps */
};

struct machine_cgroup {
	__u64 id;
	const char *path; /* the record's: in the file */
};

/* The kernel's MMAP record: where its text was (the symbol it names, "_text"). */
struct machine_kernel {
	char sym[64];
	__u64 ref; /* the symbol's address when recorded; 0: no such record */
	unsigned char build_id[20];
	int build_id_len;
};

struct machine {
	struct procmaps pm; /* the processes as the records leave them */
	enum machine_order order;
	/* live: the processes that exec'd since the last machine__refresh */
	pid_t *fresh;
	int nfresh, capfresh;
	/*
	 * The ELF file to read for a mapped file, when it is not the file's
	 * name (perf.data's build IDs: struct mapping.elf); NULL when not set.
	 * Returns the interned name or NULL, and -errno in *e on failure.
	 */
	const char *(*elf_for)(void *ctx, const struct sideband_rec *r, int *e);
	void *elf_ctx;
	struct machine_kernel kernel;
	/* machine__track_shared: every MAP_SHARED file mapping met, in order */
	bool track_shared;
	struct machine_shared *shared;
	int nshared, capshared;
	struct machine_cgroup *cgroups; /* CGROUP records, in order */
	int ncgroups, capcgroups;
	/* machine__keep_history: the images of each process */
	struct procmaps *images;       /* the caller's; NULL: no history */
	void *timelines;	       /* tsearch of struct machine_timeline, by TGID */
	struct machine_timeline *last; /* the last one looked up */
	pid_t next_id;
	__u64 image_mappings; /* mappings the frozen images hold */
	bool images_capped;   /* too many: later changes no longer cut */
};

/* An empty machine; MACHINE_LIVE reads /proc, the others nothing (pm.proc_root NULL). */
void machine__init(struct machine *m, enum machine_order order);
void machine__free(struct machine *m);

/* Keeps each process's images in images (MACHINE_TIMED). */
void machine__keep_history(struct machine *m, struct procmaps *images);

/*
 * Keeps every MAP_SHARED file mapping met (records, /proc reads):
 * machine__shared.  Their names are interned in m->pm: such a machine is
 * not pruned (procmaps__prune_exited would free the names no mapping holds).
 */
void machine__track_shared(struct machine *m);

/* Applies one side-band record. Returns 0 or -ENOMEM. */
int machine__process(struct machine *m, const struct sideband_rec *r);

/* Live: reads again from /proc the processes that exec'd since the last call. */
void machine__refresh(struct machine *m);

/* History: freezes every process's current image, after the last record. 0 or -ENOMEM. */
int machine__freeze(struct machine *m);

/*
 * History: the image that names address a of process tgid at time 'at':
 * the image in which the mapping that holds a appeared; the image of 'at'
 * when no mapping holds it; the first image for a kernel address (kernel),
 * whose name does not depend on the process.  tgid itself when the
 * records never named the process.
 */
__u32 machine__image(struct machine *m, __u32 tgid, __u64 at, __u64 a, bool kernel);

/* History: how many processes have images, and how many images in all. */
void machine__count_images(const struct machine *m, size_t *procs, size_t *images);

/*
 * The MAP_SHARED file mapping of process tgid that holds addr (the latest
 * met), or NULL.  A process the machine has not read yet is read from
 * /proc first (a live machine).
 */
const struct machine_shared *machine__shared(struct machine *m, pid_t tgid, __u64 addr);

/* The path of a cgroup by its ID (the latest CGROUP record of it), or NULL. */
const char *machine__cgroup_path(const struct machine *m, __u64 id);

/*
 * Live: the process's name as the machine knows it, else /proc's first
 * line of PID/comm; "" when neither tells.
 */
void machine__comm(struct machine *m, pid_t tgid, char *buf, size_t len);

/* Live: the process's cgroup v2 path, from /proc/PID/cgroup; "" when it cannot tell. */
void machine__cgroup(const struct machine *m, pid_t tgid, char *buf, size_t len);

#endif
