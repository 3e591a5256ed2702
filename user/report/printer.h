/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * printer.h - reports at each interval and at the end: read the maps (of a
 * live session, or of a pinned set), subtract the previous read, print in
 * the chosen format.
 */
#ifndef LDLAT_PRINTER_H
#define LDLAT_PRINTER_H

#include <stdbool.h>

#include "kernel/lib/err.h"
#include "user/report/output.h"
#include "user/report/render.h"
#include "user/report/snapshot.h"

struct printer;

/*
 * Where a printer's reports come from, declared once per kind of run (a live
 * session, a pinned set, a perf.data file); each gets the printer's ctx.
 */
struct printer_ops {
	/* the maps now (or the file's samples): 0, or -errno with the sentence in err */
	int (*read)(void *ctx, struct snapshot *snap, struct err *err);
	/*
	 * NULL: the histograms' report (printer__write); else the tool's
	 * own, written from p->delta and p->cur: 0, or -errno with the sentence in err
	 */
	int (*write)(struct printer *p, void *ctx, struct err *err);
	/* NULL, or called after each report with what was read: 0 or -errno */
	int (*printed)(void *ctx, const struct snapshot *cur);
};

struct printer {
	const char *tool;	       /* for messages */
	const struct output_opts *out; /* out->formats: hist_formats, or the tool's with .write */
	struct hist_view view;
	const struct printer_ops *ops;
	void *ctx;
	struct snapshot cur;   /* the last read: totals since the start */
	struct snapshot prev;  /* what the next report subtracts */
	struct snapshot delta; /* cur - prev */
	int printed;
	bool final; /* the report at the end of the run */
};

/*
 * Allocates the snapshots.  prev starts at zero, taken at 'started': the
 * first report covers everything since the start.  Returns 0 or -ENOMEM.
 */
int printer__init(struct printer *p, __u32 nranges, const struct timespec *started);

/* The same with --by's split: nrows rows, the others included (snapshot__init_by). */
int printer__init_by(struct printer *p, __u32 nranges, __u32 by, __u32 nrows,
		     const struct timespec *started);

/* Reads now into prev: the next report covers what happens from here on.  0, or -errno and err. */
int printer__mark(struct printer *p, struct err *err);

/*
 * The histograms' report of p->delta and p->cur (hist_report), written to
 * p->out: a run's description first in every file and in a stream's first
 * report.  0, or -errno with the sentence in err.
 */
int printer__write(struct printer *p, struct err *err);

/* Reads, writes the report, moves prev on.  Has the on_interval signature (ctx: the printer). */
int printer__print(void *ctx);

void printer__free(struct printer *p);

#endif
