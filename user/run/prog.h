/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * prog.h - a tool's BPF program, as a run drives it: one interface
 * (struct prog_ops) and an implementation per program, ldlat-hist's
 * (hist_prog_ops, user/hist/histprog.h), ldlat-top's (top_prog_ops,
 * user/top/topprog.h) and ldlat-c2c's (c2c_prog_ops, user/c2c/c2cbpf.h);
 * the benchmarks' floor has one that loads nothing.  tool__start opens it
 * once the run's BPF configuration is known and attaches it to every event
 * once they are open; the tool reads it into its own model as it goes;
 * tool__teardown closes it.
 *
 * Attaching is here, once: a bpf_link per event fd (the link then owns the
 * fd), and a refusal is the system's failure (exit status 1) whatever its
 * errno, in every tool.
 */
#ifndef LDLAT_PROG_H
#define LDLAT_PROG_H

#include <stdbool.h>

#include "kernel/abi/evlist.h"
#include "kernel/lib/err.h"

struct tool;
struct prog;
struct bpf_link;
struct bpf_program;

struct prog_ops {
	/*
	 * Opens, configures and loads the program for the tool's BPF
	 * configuration (t->cfg) on its read path (t->path), and sets
	 * p->program.  0 or -errno with a sentence in err; a program the kernel
	 * refuses is the system's failure.
	 */
	int (*open)(struct prog *p, struct tool *t, struct err *err);
	/*
	 * The cookie of event fd i's link, before the link is made (the program
	 * may keep that event's count at it).  NULL: 0.  0 or -errno with a
	 * sentence in err.
	 */
	int (*cookie)(struct prog *p, const struct evlist *evlist, int i, __u64 *cookie,
		      struct err *err);
	/*
	 * Reads the program's tables into the tool's model (each implementation
	 * says what model is); last: the events are stopped, nothing writes any
	 * more.  0 or -errno with a sentence in err.
	 */
	int (*read)(struct prog *p, void *model, bool last, struct err *err);
	/* Releases what open made, the links already gone; safe after a failed open. */
	void (*close)(struct prog *p);
};

/* Starts zeroed but for ops (struct prog p = { .ops = &x_ops }): closed. */
struct prog {
	const struct prog_ops *ops;
	struct bpf_program *program; /* what open loaded for every event; NULL: none */
	bool opened;		     /* open was called: close is due */
	int nlinks;		     /* made so far, one per event fd */
	struct bpf_link **links;     /* each closes its perf fd when destroyed */
};

/* ops->open for t. */
int prog__open(struct prog *p, struct tool *t, struct err *err);

/*
 * Attaches the program to every fd of evlist (the links then own the fds),
 * the i-th link with its cookie.  0 or -errno with a sentence in err.
 */
int prog__attach(struct prog *p, struct evlist *evlist, struct err *err);

/* ops->read. */
int prog__read(struct prog *p, void *model, bool last, struct err *err);

/* Destroys the links (closing their perf fds), then ops->close.  Safe to call twice. */
void prog__close(struct prog *p);

#endif
