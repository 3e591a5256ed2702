/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * tool.h - one run of a sampling tool, from parsed options to sampling and
 * back: resolve the source, start the command, build the target, resolve the
 * ranges, load and attach the tool's BPF program (prog.h), enable the
 * events, wait, and tear it all down.  ldlat-hist, ldlat-top and ldlat-c2c
 * are this, their program, and their own output.
 */
#ifndef LDLAT_TOOL_H
#define LDLAT_TOOL_H

#include <stdbool.h>
#include <stddef.h>

#include "kernel/lib/err.h"
#include "user/run/cli.h"
#include "user/run/loads.h"
#include "user/run/prog.h"
#include "user/run/run.h"
#include "user/run/session.h"

struct tool;
struct run_info;

/* What a tool adds to the shared run; every member is optional. */
struct tool_hooks {
	/* the tool's part of t->cfg (t->src is known), before the program is opened */
	int (*configure)(struct tool *t, void *ctx, struct err *err);
	/*
	 * events open and the program attached, not yet enabled (a command's:
	 * already by its exec); a command still stopped at its exec
	 */
	int (*before_enable)(struct tool *t, void *ctx, struct err *err);
	void *ctx;
};

struct tool {
	const char *name; /* "ldlat-hist", for messages */
	struct cli *cli;
	struct evtable table; /* tools.conf */
	bool table_loaded;
	struct source src;
	struct evlist evlist;
	struct run run; /* signals, the command, the target */
	struct ldlat_config cfg;
	struct prog *prog;	/* the tool's BPF program (tool_opts.prog) */
	bool addr_only;		/* the kernel cannot give latency and data source */
	enum session_path path; /* how the program reads a sample (session__read_path) */
	struct loads loads;	/* --loads */
};

/* How a tool starts: its BPF program, and what goes into its configuration. */
struct tool_opts {
	struct prog
		*prog; /* set up (prog__init), closed: opened, attached and closed by the tool */
	__u32 linear_step; /* --linear: into the BPF configuration */
	__u32 by, by_keys; /* --by's split (enum ldlat_by) and its rows: into the configuration */
	const struct tool_hooks *hooks; /* NULL: none; called during tool__start only */
};

/*
 * Everything up to sampling: on return 0 the events are enabled, the
 * program (o->prog) attached to them, and the command runs.  Returns -errno
 * with a sentence in err (err__status tells the exit status);
 * tool__teardown releases what was set up either way, the program too.
 */
int tool__start(struct tool *t, struct cli *cli, const char *name, const struct tool_opts *o,
		struct err *err);

/* What the started run watches, for the reports (run_info): its tool, event, target, filters. */
void tool__run_info(const struct tool *t, const struct timespec *started, struct run_info *run);

/* Stops the events (the maps hold still for the last read), and --loads' counter. */
void tool__stop_sampling(struct tool *t);

/* The sampling events' own count (read() of every fd): the events the samples stand for. */
int tool__sampled_count(const struct tool *t, __u64 *count);

/* Every sampling event's count (read() of every fd) into u; seen and seen_period left 0. */
int tool__read_unseen(const struct tool *t, struct unseen *u);

/*
 * A printer's read of a live run whose program reads into a snapshot (ctx:
 * the struct tool): the events' counts, then the program's maps
 * (prog__read), and snap->unseen from both.
 */
int tool__read_maps(void *ctx, struct snapshot *snap, struct err *err);

/* The exit status after a run that ended with end. */
int tool__exit_status(struct tool *t, enum run_end end);

/* Releases everything, kills the command if it still runs. Safe to call twice. */
void tool__teardown(struct tool *t);

#endif
