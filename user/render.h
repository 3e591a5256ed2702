/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * render.h - printing a snapshot: histograms grouped by class, range, both or
 * neither, with a summary line each and the filter counters.
 */
#ifndef LDLAT_RENDER_H
#define LDLAT_RENDER_H

#include <stdbool.h>
#include <stdio.h>

#include "../kernel/source.h"
#include "ranges.h"
#include "snapshot.h"

enum report_by {
	BY_CLASS, /* one histogram per data-source class (the default) */
	BY_RANGE, /* one per address range */
	BY_BOTH,  /* one per (range, class) */
	BY_NONE,  /* one for everything kept */
};

struct report {
	const struct source *src;
	const struct range_set *ranges; /* nranges 0: one range, every address */
	enum report_by by;
	__u32 linear_step;
	bool has_latency; /* the samples carry latency and data source */
	bool intervals;	  /* each snapshot is one interval: print its time */
};

/* A group of cells to print as one histogram. */
struct group {
	int range; /* -1: every range */
	int cls;   /* -1: every class */
	struct cell sum;
};

/*
 * The groups to print for r->by, non-empty ones only, in class and range
 * order.  Returns how many were written to groups (at most max).
 */
int report__groups(const struct report *r, const struct snapshot *s, struct group *groups, int max);

/* "[heap] 0x55d0...-0x7f12..." or "all addresses", for range i. */
void report__range_name(const struct report *r, int range, char *buf, size_t len);

void render_text(FILE *out, const struct report *r, const struct snapshot *s);

/* The filter counters' line ("filters: N seen, M kept; dropped: ..."), and a recursion warning. */
void render_counters(FILE *out, const struct snapshot *s);

#endif
