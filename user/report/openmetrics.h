/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * openmetrics.h - the one writer of expositions, for every tool, in both
 * dialects: OpenMetrics 1.0 and the Prometheus text format 0.0.4 (what
 * node_exporter's textfile collector and promtool check metrics read).  A
 * family's HELP, TYPE and UNIT lines, a sample with its labels (values
 * escaped by escape.h's label_value), and the closing # EOF.
 *
 * The dialects agree on gauges and histograms, not on counters: both name
 * a counter's samples x_total, but OpenMetrics names the family x in its
 * HELP and TYPE lines and the text format names it x_total there, and each
 * parser refuses the other's form.  om__counter writes either.
 */
#ifndef LDLAT_OPENMETRICS_H
#define LDLAT_OPENMETRICS_H

#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

/* Room for a sample's labels: the most the tools write (target, pin, class, range, le) fits. */
#define OM_LABELS_MAX 4096
/* The cut of a label value from outside (a target, an event): 597 bytes once escaped. */
#define OM_VALUE_MAX 600

/* The labels of a sample: name="value" pairs, comma-separated, escaped. */
struct om_labels {
	char text[OM_LABELS_MAX];
	size_t len;
};

void om_labels__init(struct om_labels *l);
/*
 * name="value", value escaped and cut to what a buffer of cut bytes holds
 * (label_value): OM_VALUE_MAX for text from outside, more for text the
 * tool built in a buffer of its own, so that it is never cut.
 */
void om_labels__add(struct om_labels *l, const char *name, const char *value, size_t cut);
void om_labels__add_u64(struct om_labels *l, const char *name, __u64 v);
void om_labels__add_int(struct om_labels *l, const char *name, int v);

enum om_dialect {
	OM_OPENMETRICS, /* application/openmetrics-text; version=1.0.0 */
	OM_PROMETHEUS,	/* text/plain; version=0.0.4 */
};

/* # HELP, then # TYPE unless type is NULL (unknown in OpenMetrics, untyped in Prometheus). */
void om__family(FILE *out, const char *name, const char *type, const char *help);
void om__unit(FILE *out, const char *name, const char *unit);
/*
 * A counter family: # HELP and # TYPE counter, naming 'family' in OpenMetrics
 * and 'family_total' in the text format; its samples are family_total in both.
 */
void om__counter(FILE *out, enum om_dialect d, const char *family, const char *help);

/* name{labels} value: the sample's full name (a histogram's _bucket, _sum, _count). */
void om__sample_u64(FILE *out, const char *name, const struct om_labels *l, __u64 v);
/* v with a fixed number of decimals ("%.3f": a time, "%.9f": a ratio) */
void om__sample_fixed(FILE *out, const char *name, const struct om_labels *l, double v,
		      int decimals);
/* v to the last bit ("%.17g": a scraper reads back the same double) */
void om__sample_exact(FILE *out, const char *name, const struct om_labels *l, double v);

/* The end of the exposition. */
void om__eof(FILE *out);
/* The end in dialect d: # EOF in OpenMetrics, nothing in the text format (which has none). */
void om__end(FILE *out, enum om_dialect d);

#endif
