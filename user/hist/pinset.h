/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * pinset.h - a pinned set: the program, its maps and its perf-event links
 * pinned in one bpffs directory, so that sampling can outlive the tool and
 * be read later (--show), by bpftool, and removed (--unpin).
 *
 * DIR/meta         what the set was started with (struct ldlat_pin_meta), frozen
 * DIR/counters     the filter counters, per CPU
 * DIR/hists        the histograms, per CPU, at range * LDLAT_NCLASS + class (with
 *                  --by, after ldlat_by_base(row): a row per key, the others last)
 * DIR/shown        the counters the last --show --delta printed (struct ldlat_pin_shown)
 * DIR/shown_hists  the histograms the last --show --delta printed, summed over CPUs
 * DIR/event_counts each event's count as the program last read it, at its link's
 *                  cookie (meta.unseen says whether the set keeps them)
 * DIR/by_rows      --by's split (pid, tid, cgroup): each key's row of hists; with
 * DIR/by_owner     by_owner (row -> key) and by_next (rows handed out), the
 * DIR/by_next      program's own, pinned only in a set with a split
 * DIR/prog         the perf_event program
 * DIR/link_cpuN    one perf-event link per CPU (link_tidN per thread; _E for
 *                  the E-th event on hybrid CPUs), --detach only: a foreground
 *                  set keeps its links unpinned, so its sampling ends with it
 *
 * A process that uses a set holds a flock on DIR: shared while it samples in
 * the foreground or shows, exclusive while it pins or unpins; --unpin does
 * not wait for it, it refuses, naming the holder (any user who may open DIR
 * may flock it).  DIR is reached as pinpath.h says: no link on bpffs, no
 * directory another user owns or may write.  Only --show --delta writes the shown maps,
 * holding an exclusive flock on DIR/shown (not on DIR, which a foreground
 * run or an exporter's --show -i holds shared for hours).
 */
#ifndef LDLAT_PINSET_H
#define LDLAT_PINSET_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "bpf/ldlat_pin.h"
#include "kernel/abi/evlist.h"
#include "kernel/lib/err.h"
#include "user/run/prog.h"
#include "user/run/session.h"
#include "user/report/snapshot.h"

struct pinset {
	char dir[PATH_MAX];
	int dir_fd;	     /* holds the flock; -1 when closed */
	char made[PATH_MAX]; /* the directories --pin created, below made_fd ("" if none) */
	int made_fd;	     /* the directory the topmost of them is in; -1 */
	bool pinned;	     /* objects of ours are in dir */
	const char *arg;     /* DIR as given, for messages */
	bool mount_pending;  /* bpffs to mount on /sys/fs/bpf before DIR is made */
	bool mounted;	     /* this process mounted it */
	int meta_fd, counters_fd, hists_fd, shown_fd, shown_hists_fd, prog_fd;
	int by_rows_fd; /* a split by pid, tid or cgroup: key -> row; else -1 */
	int counts_fd;	/* event_counts, where meta.unseen is LDLAT_PIN_UNSEEN_COUNTED; else -1 */
	int shown_lock_fd; /* DIR/shown opened as a file, for its flock; -1 when not held */
	int ncpus;
	bool absent; /* pinset__open found DIR missing or empty: no set there */
	struct ldlat_pin_meta meta;
};

/*
 * --pin, before anything is loaded: creates DIR (and its parents, 0700) when
 * needed, locks it, and checks that it is empty.  Returns 0, -EINVAL (DIR
 * not on bpffs, not empty, in use, reached through a link or a directory
 * another user owns or may write) or another -errno, with a sentence in
 * err; nothing is left created on failure.  When DIR is under /sys/fs/bpf
 * and no bpffs is mounted there, all of that waits for pinset__mount.
 */
int pinset__prepare(struct pinset *p, const char *dir, struct err *err);

/*
 * Once every input is checked: mounts bpffs on /sys/fs/bpf when prepare
 * found none, and does what prepare left.  pinset__remove unmounts it again
 * when it is empty (a failure, the end of a foreground run).  Returns 0 or
 * -errno with a sentence in err.
 */
int pinset__mount(struct pinset *p, struct err *err);

/*
 * Pins the session's program and maps, writes and freezes meta (nlinks is
 * filled here), and, when meta->detached, one link per perf event of prog
 * (its attached program; NULL: none attached) (a foreground set's links die
 * with its process).  On failure, removes what it pinned.  Returns 0 or
 * -errno with a sentence in err.
 */
int pinset__pin(struct pinset *p, struct session *s, const struct prog *prog,
		const struct evlist *evlist, struct ldlat_pin_meta *meta, struct err *err);

/*
 * After pinning, for --detach: lets go of prog's links without detaching
 * them (libbpf's link destroy would disable the perf events), so that
 * sampling goes on after this process exits; the evlist gets its fds back
 * to close.
 */
void pinset__detach(struct pinset *p, struct prog *prog, struct evlist *evlist);

/*
 * --show: opens the set in dir and takes a shared lock (waiting for an
 * ldlat-hist, refusing another holder).  Returns 0, or -EINVAL (not on
 * bpffs, missing, empty, not a set, another layout, a path pinpath.h refuses) or
 * another -errno, with a sentence in err; p->absent tells missing or empty.
 */
int pinset__open(struct pinset *p, const char *dir, struct err *err);

/*
 * The totals now (snapshot initialised for meta.cfg.nranges and its split's
 * rows), and what the events produced as the program last read their
 * counts: snap->unseen, a lower bound, or not known and why.
 */
int pinset__read(const struct pinset *p, struct snapshot *snap);

/* The links DIR holds now (DIR/link_*): fewer than meta.nlinks when some were removed. */
int pinset__links(const struct pinset *p);

/* What the last --show --delta saw; taken is 0 when none did. */
int pinset__read_shown(const struct pinset *p, struct snapshot *snap);

/* Records snap as what this --show saw (with the lock on shown held). */
int pinset__record_shown(const struct pinset *p, const struct snapshot *snap);

/*
 * --show --delta: waits for the exclusive flock on DIR/shown, which orders
 * the readers and writers of the baseline.  Returns 0 or -errno with a
 * sentence in err.  The unlock is a no-op when it is not held.
 */
int pinset__lock_shown(struct pinset *p, struct err *err);
void pinset__unlock_shown(struct pinset *p);

/*
 * --unpin: removes the links first, then the program and the maps, meta
 * last; *links of the *removed objects were links (none: nothing was
 * sampling).  An empty or missing directory is nothing to do (*removed = 0),
 * a missing one under /sys/fs/bpf even when no bpffs is mounted there.
 * Returns 0, -EINVAL (not on bpffs, not a set, a path pinpath.h refuses,
 * locked: the sentence names the holder) with a sentence in err, touching
 * nothing, or another -errno.
 */
int pinset__unpin(const char *dir, int *removed, int *links, struct err *err);

/* Removes what this process pinned (the end of a foreground --pin run). */
void pinset__remove(struct pinset *p);

/* Closes fds and releases the lock (the pins stay). */
void pinset__close(struct pinset *p);

/* The cgroup id (inode) of a cgroup v2 directory fd, and its path; 0 on failure. */
__u64 pinset__cgroup_id(int cgroup_fd, char *path, size_t len);

/*
 * Whether the cgroup of a set (meta) is gone: no cgroup has its id (moved
 * or renamed, it is still there); where the kernel will not open a cgroup
 * by id, its path names no directory with its id.
 */
bool pinset__cgroup_removed(const struct ldlat_pin_meta *meta);

#endif
