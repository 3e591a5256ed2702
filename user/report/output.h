/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * output.h - where and how a tool prints its reports: --format text, json,
 * prometheus or openmetrics, to stdout or to --output FILE.  A regular FILE
 * (or a new one) is replaced atomically at each report (written beside it,
 * then renamed over it) so that a reader such as the node_exporter textfile
 * collector never sees half a report; a symbolic link is followed (when root
 * or this user owns it) and the file it leads to replaced, the link kept; a
 * FIFO, a terminal or a socket (/dev/stdout) is written in place, as stdout
 * would be; anything else is refused.  A replaced file keeps its permission
 * bits, owner and group; a new one is created as a shell creates one (0666
 * less the umask).  No signal acts while a temporary file exists.
 */
#ifndef LDLAT_OUTPUT_H
#define LDLAT_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "kernel/lib/err.h"
#include "user/report/render.h"

enum output_format {
	OUTPUT_TEXT,
	OUTPUT_JSON,	    /* one object per report, one per line */
	OUTPUT_OPENMETRICS, /* totals since the start, for Prometheus: OpenMetrics 1.0 */
	OUTPUT_PROMETHEUS,  /* the same in the Prometheus text format (textfile collector) */
};

/* OpenMetrics or Prometheus: totals since the start, for a scraper. */
static inline bool output__exposition(enum output_format f)
{
	return f == OUTPUT_OPENMETRICS || f == OUTPUT_PROMETHEUS;
}

/* ldlat-top's pictures of call paths: --format folded or svg (format reads text). */
enum output_graph {
	OUTPUT_GRAPH_NONE,
	OUTPUT_GRAPH_FOLDED, /* one "frame;frame;frame count" line per call path */
	OUTPUT_GRAPH_SVG,    /* an interactive flame graph */
};

struct output_opts {
	enum output_format format;
	const char *path;    /* --output FILE; NULL: stdout */
	bool no_openmetrics; /* set before parsing: the tool has none (its --help leaves it out) */
	bool graphs;	     /* set before parsing: the tool takes --format folded and svg */
	enum output_graph graph;
	FILE *stream; /* --output written in place (output__check opens it); NULL: replaced */
};

/*
 * --format WORD: o->format (and o->graph) as the tool has them; -EINVAL with
 * the sentence in err for a word that is none of its formats.
 */
int output__parse_format(struct output_opts *o, const char *word, struct err *err);

/* --format's --help text: doc, or a string of its own listing only the tool's formats. */
char *output__format_help(const struct output_opts *o, const char *doc);

/*
 * Checks --output before sampling starts: a FILE to replace (its folder
 * takes a new file), or one to write in place, which it opens into
 * o->stream (a FIFO waits for a reader, or for a signal: -EINTR).  Call it
 * before anything a signal's teardown must undo.  Returns 0, or -errno
 * with a sentence in err (-EINVAL: a folder, a block device, a link of
 * another user's; bad input).
 */
int output__check(struct output_opts *o, struct err *err);

/* Closes what output__check opened to write in place; nothing for the others. */
void output__close(struct output_opts *o);

/*
 * Prints one report.  Text and JSON print 'interval' (what it saw since the
 * previous report); the expositions print 'total' (everything since the start:
 * Prometheus computes rates itself).  seq counts the reports before this one:
 * text reports on stdout are separated by a blank line, and a run's
 * description (render_text_run) leads the first text report when
 * r->run->pin_dir is set, and every one written to a file.  Returns 0 or
 * -errno with a sentence in err.
 */
int output__emit(const struct output_opts *o, const struct report *r,
		 const struct snapshot *interval, const struct snapshot *total, int seq,
		 struct err *err);

/*
 * Any tool's report: render(f, ctx) on stdout or into --output written in
 * place (a blank line first when separate and the format is text), flushed
 * so that a pipe or a file gets each report whole as it is printed, or into
 * --output FILE, replaced atomically.  Renderers do not flush.  Returns 0 or -errno (a write that
 * failed: a full disk, a closed pipe) with a sentence in err.
 */
int output__write(const struct output_opts *o, void (*render)(FILE *f, void *ctx), void *ctx,
		  bool separate, struct err *err);

#endif
