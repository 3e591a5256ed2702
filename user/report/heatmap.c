// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "user/report/heatmap.h"
#include "user/report/svg.h"
#include "kernel/abi/datasrc.h"

#define HM_CELL_H    14
#define HM_LEFT	     130 /* the row labels */
#define HM_PLOT_W    1000
#define HM_TOP	     50
#define HM_PANEL_GAP 36
#define HM_BOTTOM    70 /* the time axis and the scale */

void heatmap__init(struct heatmap *h, __u32 linear_step, bool by_class,
		   const struct timespec *started)
{
	memset(h, 0, sizeof(*h));
	h->linear_step = linear_step;
	h->by_class = by_class;
	if (started)
		h->started = *started;
}

void heatmap__free(struct heatmap *h)
{
	free(h->col);
	memset(h, 0, sizeof(*h));
}

unsigned int heatmap__nrows(const struct heatmap *h)
{
	return 1 + (h->linear_step ? LDLAT_NLINEAR : HEATMAP_LOG_ROWS);
}

unsigned int heatmap__row(const struct heatmap *h, __u32 b)
{
	if (h->linear_step)
		return 1 + (b < LDLAT_NLINEAR ? b : LDLAT_NLINEAR - 1);
	return 1 + ldlat_log2_bucket(ldlat_bucket_lo(b, 0));
}

void heatmap__row_label(const struct heatmap *h, unsigned int row, char *buf, size_t len)
{
	__u64 lo, hi;

	if (row == HEATMAP_UNMEASURED) {
		snprintf(buf, len, "unmeasured");
		return;
	}
	if (h->linear_step) {
		lo = ldlat_bucket_lo(row - 1, h->linear_step);
		hi = ldlat_bucket_hi(row - 1, h->linear_step);
	} else if (row == 1) {
		lo = hi = 0;
	} else {
		lo = 1ull << (row - 2);
		hi = row - 1 >= HEATMAP_LOG_ROWS - 1 ? ~0ull : (1ull << (row - 1)) - 1;
	}
	if (hi == ~0ull)
		snprintf(buf, len, ">= %llu", (unsigned long long)lo);
	else if (lo == hi)
		snprintf(buf, len, "%llu", (unsigned long long)lo);
	else
		snprintf(buf, len, "%llu-%llu", (unsigned long long)lo, (unsigned long long)hi);
}

int heatmap__add(struct heatmap *h, const struct snapshot *s)
{
	struct heatmap_col *c;
	__u32 r, cls, b, nb = ldlat_nbuckets(h->linear_step);

	if (h->ncols == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 16;
		struct heatmap_col *n = realloc(h->col, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		h->col = n;
		h->cap = cap;
	}
	c = &h->col[h->ncols++];
	memset(c, 0, sizeof(*c));
	c->since = s->since;
	c->taken = s->taken;
	for (r = 0; r < s->nranges; r++) {
		for (cls = 0; cls < LDLAT_NCLASS; cls++) {
			const struct cell *cell = &s->cells[ldlat_hist_index(r, cls)];

			c->n[cls][HEATMAP_UNMEASURED] += cell->unmeasured;
			for (b = 0; b < nb; b++)
				c->n[cls][heatmap__row(h, b)] += cell->slot[b];
		}
	}
	return 0;
}

static __u64 col__row(const struct heatmap_col *c, unsigned int row, int cls)
{
	__u64 n = 0;
	int k;

	if (cls >= 0)
		return c->n[cls][row];
	for (k = 0; k < LDLAT_NCLASS; k++)
		n += c->n[k][row];
	return n;
}

__u64 heatmap__total(const struct heatmap *h)
{
	__u64 n = 0;
	unsigned int row;
	size_t i;

	for (i = 0; i < h->ncols; i++)
		for (row = 0; row < heatmap__nrows(h); row++)
			n += col__row(&h->col[i], row, -1);
	return n;
}

static double ts__sec(const struct timespec *t, const struct timespec *from)
{
	return (double)(t->tv_sec - from->tv_sec) + (t->tv_nsec - from->tv_nsec) / 1e9;
}

/* The rows with a sample in any column (of class cls, -1: any): [*lo, *hi]; false when none. */
static bool heatmap__span(const struct heatmap *h, int cls, unsigned int *lo, unsigned int *hi)
{
	unsigned int row;
	size_t i;
	bool any = false;

	for (row = 0; row < heatmap__nrows(h); row++)
		for (i = 0; i < h->ncols; i++)
			if (col__row(&h->col[i], row, cls)) {
				if (!any)
					*lo = row;
				*hi = row;
				any = true;
				break;
			}
	return any;
}

/* White to yellow to red to black by the log of the count: what tells 1 from 10,000. */
static void heat_fill(char *buf, size_t len, __u64 n, __u64 max)
{
	double f = max > 1 ? log((double)n) / log((double)max) : 1.0;
	int r, g, b;

	if (f < 0.5) {
		r = 255;
		g = (int)(240 - 100 * f * 2);
		b = (int)(160 - 160 * f * 2);
	} else {
		r = (int)(255 - 120 * (f - 0.5) * 2);
		g = (int)(140 - 140 * (f - 0.5) * 2);
		b = 0;
	}
	snprintf(buf, len, "rgb(%d,%d,%d)", r, g, b);
}

/* "<text" at x, y (anchor NULL: start), with a class (NULL: none); its content follows. */
static void hm_text(FILE *out, double x, int y, const char *anchor, const char *cls)
{
	svg__open(out, "text");
	svg__attr(out, "x", "%.1f", x);
	svg__attr(out, "y", "%d", y);
	if (anchor)
		svg__attr(out, "text-anchor", "%s", anchor);
	if (cls)
		svg__attr(out, "class", "%s", cls);
	svg__close(out, false);
}

static void hm_rect(FILE *out, double x, int y, double w, int h, const char *fill)
{
	svg__open(out, "rect");
	svg__attr(out, "x", "%.2f", x);
	svg__attr(out, "y", "%d", y);
	svg__attr(out, "width", "%.2f", w);
	svg__attr(out, "height", "%d", h);
	svg__attr(out, "fill", "%s", fill);
}

static void heatmap__panel(FILE *out, const struct heatmap *h, int cls, unsigned int lo,
			   unsigned int hi, int y0, double cw, __u64 max)
{
	char label[48], fill[32];
	unsigned int row;
	size_t i;
	int y;

	svg__open(out, "g");
	svg__attr(out, "class", "panel");
	svg__attr(out, "data-class", "%s", cls >= 0 ? class__token(cls) : "all");
	svg__close(out, false);
	hm_text(out, HM_LEFT, y0 - 6, NULL, "ptitle");
	svg__textf(out, "%s", cls >= 0 ? class__name(cls) : "all kept samples, latency in cycles");
	svg__end(out, "text", true);
	for (row = lo; row <= hi; row++) {
		y = y0 + (int)(hi - row) * HM_CELL_H;
		heatmap__row_label(h, row, label, sizeof(label));
		hm_text(out, HM_LEFT - 6, y + HM_CELL_H - 3, "end", NULL);
		svg__textf(out, "%s", label);
		svg__end(out, "text", true);
		for (i = 0; i < h->ncols; i++) {
			__u64 n = col__row(&h->col[i], row, cls);

			if (!n)
				continue;
			heat_fill(fill, sizeof(fill), n, max);
			hm_rect(out, HM_LEFT + i * cw, y, cw, HM_CELL_H, fill);
			svg__attr(out, "class", "c");
			svg__attr(out, "data-n", "%llu", (unsigned long long)n);
			svg__close(out, false);
			svg__open(out, "title");
			svg__close(out, false);
			svg__textf(out, "%.1f-%.1f s, %s: %llu",
				   ts__sec(&h->col[i].since, &h->started),
				   ts__sec(&h->col[i].taken, &h->started), label,
				   (unsigned long long)n);
			svg__end(out, "title", false);
			svg__end(out, "rect", true);
		}
	}
	hm_rect(out, HM_LEFT, y0, HM_PLOT_W, (int)(hi - lo + 1) * HM_CELL_H, "none");
	svg__attr(out, "stroke", "#888");
	svg__close(out, true);
	svg__end(out, "g", true);
}

static const char hm_style[] = "text { font-family: monospace; font-size: 11px; }\n"
			       ".ptitle { font-size: 12px; font-weight: bold; }\n"
			       "#title { font-size: 16px; text-anchor: middle; }\n"
			       ".c:hover { stroke: #000; }\n";

void heatmap__render_svg(FILE *out, const struct heatmap *h, const char *title)
{
	unsigned int lo[LDLAT_NCLASS + 1], hi[LDLAT_NCLASS + 1], row;
	int panels[LDLAT_NCLASS + 1], np = 0, k, height, y, t;
	int width = HM_LEFT + HM_PLOT_W + 20;
	double cw = h->ncols ? (double)HM_PLOT_W / h->ncols : HM_PLOT_W;
	__u64 max = 0, n;
	size_t i;
	char fill[32];

	if (h->by_class) {
		for (k = 0; k < LDLAT_NCLASS; k++)
			if (heatmap__span(h, k, &lo[np], &hi[np]))
				panels[np++] = k;
	} else if (heatmap__span(h, -1, &lo[0], &hi[0])) {
		panels[np++] = -1;
	}
	height = HM_TOP + HM_BOTTOM;
	for (k = 0; k < np; k++)
		height += (int)(hi[k] - lo[k] + 1) * HM_CELL_H + HM_PANEL_GAP;
	for (i = 0; i < h->ncols; i++)
		for (k = 0; k < np; k++)
			for (row = lo[k]; row <= hi[k]; row++) {
				n = col__row(&h->col[i], row, panels[k]);
				if (n > max)
					max = n;
			}
	svg__document(out, width, height);
	svg__attr(out, "data-total", "%llu", (unsigned long long)heatmap__total(h));
	svg__attr(out, "data-columns", "%zu", h->ncols);
	svg__close(out, false);
	fputc('\n', out);
	svg__cdata(out, "style", "text/css", hm_style);
	hm_rect(out, 0, 0, width, height, "#fcfcf8");
	svg__close(out, true);
	svg__open(out, "text");
	svg__attr(out, "id", "title");
	svg__attr(out, "x", "%d", width / 2);
	svg__attr(out, "y", "22");
	svg__close(out, false);
	svg__textf(out, "%s (%llu samples in %zu intervals)", title ? title : "",
		   (unsigned long long)heatmap__total(h), h->ncols);
	svg__end(out, "text", true);
	y = HM_TOP;
	for (k = 0; k < np; k++) {
		heatmap__panel(out, h, panels[k], lo[k], hi[k], y + 12, cw, max);
		y += (int)(hi[k] - lo[k] + 1) * HM_CELL_H + HM_PANEL_GAP;
	}
	/* the time axis: seconds since the start, at about ten columns' ends */
	for (i = 0; i<h->ncols; i += h->ncols> 10 ? h->ncols / 10 : 1) {
		hm_text(out, HM_LEFT + (i + 1) * cw, y, "middle", NULL);
		svg__textf(out, "%.1f s", ts__sec(&h->col[i].taken, &h->started));
		svg__end(out, "text", true);
	}
	/* the colour scale */
	for (t = 0; t <= 10; t++) {
		__u64 v = max > 1 ? (__u64)llround(pow((double)max, t / 10.0)) : 1;

		heat_fill(fill, sizeof(fill), v ? v : 1, max);
		hm_rect(out, HM_LEFT + t * 60, y + 20, 40, 12, fill);
		svg__attr(out, "class", "scale");
		svg__close(out, true);
		hm_text(out, HM_LEFT + t * 60, y + 44, NULL, NULL);
		svg__textf(out, "%llu", (unsigned long long)v);
		svg__end(out, "text", true);
	}
	svg__end(out, "svg", true);
}

void heatmap__render_grid(FILE *out, const struct heatmap *h, int width)
{
	static const char shade[] = ".:-=+*#%@";
	unsigned int lo, hi, row;
	size_t first, i;
	__u64 max = 0, n;
	char label[48];
	int cols = width > 26 ? width - 16 : 10;

	if (!heatmap__span(h, -1, &lo, &hi)) {
		fprintf(out, "heat map: no samples yet\n");
		return;
	}
	first = h->ncols > (size_t)cols ? h->ncols - cols : 0;
	for (i = first; i < h->ncols; i++)
		for (row = lo; row <= hi; row++) {
			n = col__row(&h->col[i], row, -1);
			if (n > max)
				max = n;
		}
	fprintf(out, "heat map: latency (cycles) by interval, the last %zu; '@' = %llu samples\n",
		h->ncols - first, (unsigned long long)max);
	for (row = hi + 1; row-- > lo;) {
		heatmap__row_label(h, row, label, sizeof(label));
		fprintf(out, "%14.14s |", label);
		for (i = first; i < h->ncols; i++) {
			n = col__row(&h->col[i], row, -1);
			int k = max > 1 ? (int)((sizeof(shade) - 2) * log((double)n) /
						log((double)max))
					: (int)sizeof(shade) - 2;

			fputc(n ? shade[k] : ' ', out);
		}
		fputc('\n', out);
	}
}
