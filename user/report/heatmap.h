/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * heatmap.h - latency over time: one column per report (an -i interval),
 * one row per power of two of latency (the histograms' buckets folded,
 * [2^k, 2^(k+1)) cycles; with --linear, one row per bucket), and a row for
 * the samples without a measured latency; each cell the kept samples of
 * that interval and row.  A column sums to its report's kept samples.
 * Drawn as an SVG file (colour = count; with by_class, one panel per data
 * source class) and as a compact grid of characters for a terminal.
 */
#ifndef LDLAT_HEATMAP_H
#define LDLAT_HEATMAP_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>
#include <linux/types.h>

#include "bpf/ldlat.h"
#include "user/report/snapshot.h"

#define HEATMAP_UNMEASURED 0			/* the row of samples without a measured latency */
#define HEATMAP_LOG_ROWS   (LDLAT_LAT_BITS + 2) /* 0, then [2^k, 2^(k+1)), then the open last */
#define HEATMAP_ROWS	   (1 + (LDLAT_NLINEAR > HEATMAP_LOG_ROWS ? LDLAT_NLINEAR : HEATMAP_LOG_ROWS))

struct heatmap_col {
	struct timespec since, taken;
	__u64 n[LDLAT_NCLASS][HEATMAP_ROWS];
};

struct heatmap {
	__u32 linear_step; /* the buckets' kind (snapshot.h) */
	bool by_class;	   /* a panel per class */
	struct timespec started;
	struct heatmap_col *col;
	size_t ncols, cap;
};

void heatmap__init(struct heatmap *h, __u32 linear_step, bool by_class,
		   const struct timespec *started);
void heatmap__free(struct heatmap *h);

/* The rows in use: 1 + the buckets' rows. */
unsigned int heatmap__nrows(const struct heatmap *h);

/* The row of histogram bucket b. */
unsigned int heatmap__row(const struct heatmap *h, __u32 b);

/* "[32, 63]", "unmeasured": what a row holds, in cycles. */
void heatmap__row_label(const struct heatmap *h, unsigned int row, char *buf, size_t len);

/* One report's snapshot (what it saw since the previous one) as a column. Returns 0 or -ENOMEM. */
int heatmap__add(struct heatmap *h, const struct snapshot *interval);

/* Every cell summed: the kept samples of the columns. */
__u64 heatmap__total(const struct heatmap *h);

/* The SVG file: a title, the cells (rect class "c", data-n its count), the axes, a colour scale. */
void heatmap__render_svg(FILE *out, const struct heatmap *h, const char *title);

/*
 * The last columns that fit in width characters as a grid: a row per
 * latency row in use, one character per column (' ' none, then
 * ".:-=+*#%@" by the share of the grid's largest cell).
 */
void heatmap__render_grid(FILE *out, const struct heatmap *h, int width);

#endif
