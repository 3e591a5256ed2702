/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * procmaps.h - the address spaces of the processes a run has seen, kept
 * after they exit so that their samples can still be symbolized.
 *
 * Mappings come from /proc/PID/maps (at start, and for a process first
 * seen later) and from the side band's records, which the process model
 * (machine.h) applies with the functions below.  Each mapping carries the
 * time it was learned
 * (CLOCK_MONOTONIC): where two overlap, the newer wins, so records and
 * /proc reads may arrive in any order.
 */
#ifndef LDLAT_PROCMAPS_H
#define LDLAT_PROCMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

#include "user/symbols/mapsline.h"

struct mapping {
	__u64 start, end; /* [start, end) */
	__u64 pgoff;	  /* file offset of start */
	__u64 time;	  /* when learned, CLOCK_MONOTONIC ns */
	const char *name; /* interned: a path, "[heap]", "[stack]", "[vdso]"...; NULL: anonymous */
	/*
	 * interned: the ELF file to read for name's symbols when it is not name
	 * itself (a copy found by build ID); "": no file here has the build ID
	 * recorded for it; NULL: name.  Set offline (perf.data), never live.
	 */
	const char *elf;
};

struct proc {
	pid_t tgid;
	char comm[16];
	bool known;  /* some mappings were learned */
	bool exited; /* an EXIT record, or /proc no longer has it */
	/*
	 * known to have exited before the programs last moved on to a new
	 * generation: every sample it has is in the ones drained
	 * (procmaps__seal_exited); only then is it pruned
	 */
	bool sealed;
	__u64 exited_epoch; /* pm->epoch when it was found exited */
	const char *cgroup; /* its cgroup v2 path when read (pm->want_cgroup), interned; NULL */
	__u64 exec_time;
	int nmaps, cap;
	struct mapping *maps; /* sorted by start, disjoint */
};

struct procmaps {
	void *procs;	       /* tsearch tree of struct proc, by tgid */
	void *strings;	       /* tsearch tree of interned names */
	size_t nstrings;       /* how many it holds */
	size_t swept;	       /* how many the last sweep kept (procmaps__prune_exited) */
	const char *proc_root; /* "/proc" (tests point it at fixtures); NULL: none to read */
	/*
	 * How many times the side band has been read (procmaps__next_epoch):
	 * a process found exited in one read may still have records of its
	 * own (a FORK of a child) in another CPU's ring, or written after
	 * that read and before /proc said it was gone; the next read has them.
	 */
	__u64 epoch;
	/* called with each line procmaps__read learns (the process model's); NULL: none */
	void (*read_line)(void *ctx, pid_t tgid, const struct mapsline *l);
	void *read_ctx;
	bool want_cgroup; /* procmaps__read reads each process's cgroup too */
};

void procmaps__init(struct procmaps *pm);
void procmaps__free(struct procmaps *pm);

/* The process, or NULL. */
struct proc *procmaps__find(struct procmaps *pm, pid_t tgid);

/* The process, created empty when new; NULL when out of memory. */
struct proc *procmaps__get(struct procmaps *pm, pid_t tgid);

/* A stable copy of name (NULL stays NULL). */
const char *procmaps__intern(struct procmaps *pm, const char *name);

/*
 * Learns a mapping at time t: it replaces the parts of older mappings it
 * overlaps, and only fills the gaps between newer ones.  name as in /proc
 * (NULL or "" for anonymous).  Returns 0 or -ENOMEM.
 */
int procmaps__add(struct procmaps *pm, pid_t tgid, __u64 start, __u64 end, __u64 pgoff,
		  const char *name, __u64 t);

/* The same, with the ELF file to read for name (struct mapping.elf). */
int procmaps__add_elf(struct procmaps *pm, pid_t tgid, __u64 start, __u64 end, __u64 pgoff,
		      const char *name, const char *elf, __u64 t);

/*
 * The process exec'd at time t.  Its older mappings stay: the tables' samples
 * carry no time, and those taken before the exec (a forked child touching
 * its copy of the parent's memory) fall where the new image maps nothing.
 * Where the new image maps, it is newer, and wins.  When the PID's process
 * had exited (its FORK record lost), the exec is a new process's: what was
 * learned before t is forgotten.
 */
void procmaps__exec(struct procmaps *pm, pid_t tgid, const char *comm, __u64 t);

/* A thread renamed itself (a COMM without exec): the process's name when it is the main thread. */
void procmaps__comm(struct procmaps *pm, pid_t pid, pid_t tid, const char *comm);

/*
 * A new process forked from parent at time t: it starts with the parent's
 * mappings.  What its PID held from before t (an earlier process, exited or
 * whose EXIT was lost) is forgotten; what was learned since (/proc) stays.
 */
int procmaps__fork(struct procmaps *pm, pid_t child, pid_t parent, __u64 t);

void procmaps__exit(struct procmaps *pm, pid_t tgid);

/* p has exited as of this epoch (its EXIT applied, or /proc no longer has it). */
void procmaps__gone(struct procmaps *pm, struct proc *p);

/* Forgets a process and its mappings (a PID that starts over). */
void procmaps__forget(struct procmaps *pm, pid_t tgid);

/*
 * A copy of process src of pm_src, as process dst of pm (new), with its
 * name and mappings as they are now.  Returns the copy, or NULL when out of
 * memory.
 */
struct proc *procmaps__copy(struct procmaps *pm, pid_t dst, struct procmaps *pm_src, pid_t src);

/*
 * Seals the processes known to have exited since before the last read of
 * the side band (an earlier epoch): called just before the programs move
 * on to a new generation, whose samples none of them can have, and every
 * record of theirs has been applied (a child forked just before a parent's
 * exit finds the parent's mappings).  One found gone later (a read of /proc
 * in a report, or in this epoch) may still have samples in the generation
 * being written or records in the side band: it is kept until the next.
 */
void procmaps__seal_exited(struct procmaps *pm);

/* A read of the side band begins: what was found exited before it is settled. */
void procmaps__next_epoch(struct procmaps *pm);

/*
 * Forgets the processes that have exited and are sealed (once their samples are reported),
 * and, once the interned names have doubled since the last time, the names
 * no mapping holds any more: memory follows the live processes, not how
 * many files came and went (a build's temporary files, a shell's churn).
 */
void procmaps__prune_exited(struct procmaps *pm);

/*
 * Reads <proc_root>/PID/maps and comm (and cgroup with want_cgroup), as of now.  Returns 0, -ESRCH when
 * the process is gone (marked exited), or another -errno.
 */
int procmaps__read(struct procmaps *pm, pid_t tgid);

/* Reads every process under proc_root (a system-wide start). Returns how many. */
int procmaps__read_all(struct procmaps *pm);

/* The index of the first mapping that ends after addr (maps are sorted and disjoint: so are their ends). */
int proc__first_after(const struct proc *p, __u64 addr);

/* The mapping that holds addr, or NULL. */
const struct mapping *proc__find(const struct proc *p, __u64 addr);

/* Calls fn for every process. */
void procmaps__foreach(struct procmaps *pm, void (*fn)(struct proc *p, void *ctx), void *ctx);

/* CLOCK_MONOTONIC in ns: the clock the side band's records carry. */
__u64 procmaps__now(void);

#endif
