/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * output.h - where and how a tool prints its reports (a report: what it
 * prints once, at an interval or at the end): in the format --format
 * chose, through the renderer the tool declared for it, to stdout or to
 * --output FILE.  Each tool declares once the formats it has (struct
 * output_formats); this module alone chooses a renderer by the format,
 * refuses a format the tool lacks, and answers what a format implies
 * (make check-writers).  A regular FILE (or a new one) is replaced
 * atomically at each report (written beside it, then renamed over it) so
 * that a reader such as the node_exporter textfile collector never sees
 * half a report; a symbolic link is followed (when root or this user owns
 * it) and the file it leads to replaced, the link kept; a FIFO, a terminal
 * or a socket (/dev/stdout) is written in place, as stdout would be;
 * anything else is refused.  A replaced file keeps its permission bits,
 * owner and group; a new one is created as a shell creates one (0666 less
 * the umask).  No signal acts while a temporary file exists.
 */
#ifndef LDLAT_OUTPUT_H
#define LDLAT_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "kernel/lib/err.h"

enum output_format {
	OUTPUT_TEXT,
	OUTPUT_JSON,	    /* one object per report, one per line */
	OUTPUT_OPENMETRICS, /* totals since the start, for Prometheus: OpenMetrics 1.0 */
	OUTPUT_PROMETHEUS,  /* the same in the Prometheus text format (textfile collector) */
	OUTPUT_FOLDED,	    /* call paths, a "frame;frame;frame count" line each */
	OUTPUT_SVG,	    /* a picture: a flame graph, a heat map */
};

/* The expositions, whose reports are totals since the start: a set of formats (1u << f). */
#define OUTPUT_TOTALS ((1u << OUTPUT_OPENMETRICS) | (1u << OUTPUT_PROMETHEUS))

/*
 * A tool's reports, declared once: the renderer of each format it has
 * (NULL: not one of its formats), given what one report holds (a struct
 * of the tool's).  lacks: formats other tools have that it says it has not
 * (1u << f), and why_not why, the end of the sentence "--format F is not
 * one of TOOL's: " (%s: F); any other format without a renderer is a word
 * its --format does not know.
 */
struct output_formats {
	const char *tool;
	void (*text)(FILE *f, const void *report);
	void (*json)(FILE *f, const void *report);
	void (*openmetrics)(FILE *f, const void *report);
	void (*prometheus)(FILE *f, const void *report);
	void (*folded)(FILE *f, const void *report);
	void (*svg)(FILE *f, const void *report);
	unsigned int lacks;
	const char *why_not;
};

struct output_opts {
	const struct output_formats *formats; /* the tool's, set before parsing */
	enum output_format format;
	const char *path; /* --output FILE; NULL: stdout */
	FILE *stream;	  /* --output written in place (output__check opens it); NULL: replaced */
};

/*
 * --format WORD: o->format; -EINVAL with the sentence in err for a word
 * that names none of the tool's formats (nor one it says why it lacks).
 */
int output__parse_format(struct output_opts *o, const char *word, struct err *err);

/* --format's --help text: the tool's formats, or doc when it has the histograms' four. */
char *output__format_help(const struct output_opts *o, const char *doc);

/*
 * Whether the tool has o's format: 0, or -EINVAL with the one sentence
 * its declaration gives for the formats it lacks.
 */
int output__supported(const struct output_opts *o, struct err *err);

/* The format's name, as --format takes it. */
const char *output__name(const struct output_opts *o);

/* Text for a person: units, a terminal's width. */
bool output__text(const struct output_opts *o);

/* Totals since the start (OpenMetrics, Prometheus): the scraper takes the rates. */
bool output__totals(const struct output_opts *o);

/* A picture of call paths (folded, svg): the report is that alone. */
bool output__paths(const struct output_opts *o);

/*
 * Each report is a screen of its own: stdout is a terminal (no --output)
 * and the format is one whose reports follow each other as lines (text,
 * folded, svg), so each may clear the screen instead.
 */
bool output__screen(const struct output_opts *o);

/* Each report replaces --output FILE: it is read alone, whole. */
bool output__replaces(const struct output_opts *o);

/*
 * Checks --format and --output before sampling starts: a format the tool
 * has (output__supported), a FILE to replace (its folder takes a new file),
 * or one to write in place, which it opens into
 * o->stream (a FIFO waits for a reader, or for a signal: -EINTR).  Call it
 * before anything a signal's teardown must undo.  Returns 0, or -errno
 * with a sentence in err (-EINVAL: a folder, a block device, a link of
 * another user's; bad input).
 */
int output__check(struct output_opts *o, struct err *err);

/* Closes what output__check opened to write in place; nothing for the others. */
void output__close(struct output_opts *o);

/*
 * Writes one report: the renderer of o's format (the tool's, o->formats)
 * given report, on stdout or into --output written in place (a blank line
 * first when separate and the format's reports follow each other as lines:
 * text, folded, svg), flushed so that a pipe or a file gets each report
 * whole as it is printed, or into --output FILE, replaced atomically.
 * Renderers do not flush.  Returns 0 or -errno (a write that failed: a
 * full disk, a closed pipe; a format the tool lacks) with a sentence in
 * err.
 */
int output__write(const struct output_opts *o, const void *report, bool separate, struct err *err);

#endif
