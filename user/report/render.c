// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "user/report/render.h"
#include "user/report/table.h"
#include "kernel/abi/datasrc.h"
#include "kernel/lib/util.h"
#include "kernel/lib/unctrl.h"

#define BAR_WIDTH 40

void hist_view__range_name(const struct hist_view *r, int range, char *buf, size_t len)
{
	char spans[512];

	if (!r->ranges->nranges) {
		snprintf(buf, len, "all addresses");
		return;
	}
	range_set__describe(r->ranges, range, spans, sizeof(spans));
	if (r->ranges->range[range].mapping || strcmp(spans, r->ranges->range[range].text))
		snprintf(buf, len, "%s (%s)", r->ranges->range[range].text, spans);
	else
		snprintf(buf, len, "%s", spans);
}

/* The groups of one row of the split (row -1: none), from that row's cells. */
static int row_groups(const struct hist_view *r, const struct snapshot *s, int row,
		      struct group *groups, int n, int max)
{
	int range, cls;
	enum hist_by by = r->by;
	int nr = (int)s->nranges;
	const struct cell *cells = s->cells + (row < 0 ? 0 : ldlat_by_base((__u32)row, s->nranges));

	/* without a data source every sample is of the unknown class */
	if (!r->has_latency && by == BY_CLASS)
		by = BY_RANGE;
	else if (!r->has_latency && by == BY_BOTH)
		by = BY_RANGE;
	for (range = 0; range < (by == BY_RANGE || by == BY_BOTH ? nr : 1); range++) {
		for (cls = 0; cls < (by == BY_CLASS || by == BY_BOTH ? LDLAT_NCLASS : 1); cls++) {
			struct group g = { .range = by == BY_RANGE || by == BY_BOTH ? range : -1,
					   .cls = by == BY_CLASS || by == BY_BOTH ? cls : -1,
					   .row = row,
					   .by = row < 0 ? LDLAT_BY_NONE : s->by,
					   .others = row >= 0 && row + 1 == (int)snapshot__nrows(s),
					   .key = row < 0 ? 0 : s->row_key[row] };
			int rr, cc;

			for (rr = 0; rr < nr; rr++)
				for (cc = 0; cc < LDLAT_NCLASS; cc++)
					if ((g.range < 0 || g.range == rr) &&
					    (g.cls < 0 || g.cls == cc))
						cell__add(&g.sum, &cells[ldlat_hist_index(rr, cc)]);
			/* ranges are listed even when empty (a zero is an answer), a split's rows not */
			if (!g.sum.count && (row >= 0 || !(by == BY_RANGE && !r->has_latency)))
				continue;
			if (row >= 0 && !g.others && !s->row_set[row])
				continue; /* a row no key has (never filled) */
			if (n < max)
				groups[n] = g;
			n++;
		}
	}
	return n;
}

int hist_view__groups(const struct hist_view *r, const struct snapshot *s, struct group *groups,
		      int max)
{
	int n = 0, row;

	if (!s->by)
		n = row_groups(r, s, -1, groups, 0, max);
	for (row = 0; s->by && row < (int)snapshot__nrows(s); row++)
		n = row_groups(r, s, row, groups, n, max);
	return n < max ? n : max;
}

int hist_view__max_groups(const struct snapshot *s)
{
	return (int)(snapshot__nrows(s) * s->nranges * LDLAT_NCLASS);
}

const char *split__name(__u32 by)
{
	static const char *const keys[] = { NULL, "pid", "tid", "cpu", "node", "cgroup", "region" };

	return by < ARRAY_SIZE(keys) ? keys[by] : NULL;
}

void hist_group__row(const struct group *g, char *buf, size_t len)
{
	if (!g->by)
		snprintf(buf, len, "%s", "");
	else if (g->others)
		snprintf(buf, len, "others");
	else if (g->by == LDLAT_BY_REGION)
		snprintf(buf, len, "mem%llu", (unsigned long long)g->key);
	else
		snprintf(buf, len, "%llu", (unsigned long long)g->key);
}

void hist__total(const struct snapshot *s, struct cell *all)
{
	size_t i, n = snapshot__ncells(s);

	memset(all, 0, sizeof(*all));
	for (i = 0; i < n; i++)
		cell__add(all, &s->cells[i]);
}

static void group_title(const struct hist_view *r, const struct group *g, char *buf, size_t len)
{
	char range[600], row[32];
	size_t k = 0;

	hist_group__row(g, row, sizeof(row));
	if (*row) {
		k = (size_t)snprintf(buf, len, "%s %s, ", split__name(g->by), row);
		if (k >= len)
			return;
		buf += k;
		len -= k;
	}

	if (g->range >= 0)
		hist_view__range_name(r, g->range, range, sizeof(range));
	if (g->range >= 0 && g->cls >= 0)
		snprintf(buf, len, "range %s, source %s", range, class__name(g->cls));
	else if (g->range >= 0)
		snprintf(buf, len, "range %s", range);
	else if (g->cls >= 0)
		snprintf(buf, len, "source %s", class__name(g->cls));
	else
		snprintf(buf, len, "all kept samples");
}

static int u64_width(__u64 v)
{
	char buf[32];

	return snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
}

/* Rows of the text histogram: the buckets, or with log-linear ones each power of two. */
#define HIST_ROWS (LDLAT_NLINEAR > LDLAT_LAT_BITS + 2 ? LDLAT_NLINEAR : LDLAT_LAT_BITS + 2)

struct hist_row {
	__u64 lo, hi, count;
};

/*
 * Text shows a power of two per row as it always has (the sub-buckets would
 * be hundreds of rows); the percentiles and JSON use the sub-buckets.
 */
static int hist_rows(const struct cell *c, __u32 linear_step, struct hist_row *rows)
{
	__u32 k, r, n = linear_step ? LDLAT_NLINEAR : LDLAT_LAT_BITS + 2;

	for (r = 0; r < n; r++) {
		rows[r].count = 0;
		if (linear_step) {
			rows[r].lo = ldlat_bucket_lo(r, linear_step);
			rows[r].hi = ldlat_bucket_hi(r, linear_step);
		} else {
			rows[r].lo = r ? 1ull << (r - 1) : 0;
			rows[r].hi = r == n - 1 ? ~0ull : (1ull << r) - 1;
		}
	}
	for (k = 0; k < ldlat_nbuckets(linear_step); k++) {
		if (!c->slot[k])
			continue;
		r = linear_step ? k : ldlat_log2_bucket(ldlat_bucket_lo(k, 0));
		rows[r < n ? r : n - 1].count += c->slot[k];
	}
	return (int)n;
}

/* A latency for the text report: cycles, or nanoseconds with --unit ns. */
static void latency_text(const struct hist_view *r, __u64 cycles, int width, bool left, char *buf,
			 size_t len)
{
	if (r->ns_per_cycle > 0)
		snprintf(buf, len, left ? "%-*.1f" : "%*.1f", width,
			 (double)cycles * r->ns_per_cycle);
	else
		snprintf(buf, len, left ? "%-*llu" : "%*llu", width, (unsigned long long)cycles);
}

static void render_hist(FILE *out, const struct hist_view *r, const struct cell *c)
{
	int first = -1, last = -1, k, w = 1, stars, n;
	__u64 max = 0, lo, hi;
	char bar[BAR_WIDTH + 1], label[64];
	struct hist_row rows[HIST_ROWS];
	struct table_column cols[] = {
		/* as wide as the labels, below */
		{ .header = r->ns_per_cycle > 0 ? "ns" : "cycles", .align = TABLE_RIGHT },
		{ .header = "count", .width = 9, .align = TABLE_LEFT, .sep = " : " },
		{ .header = "distribution", .align = TABLE_LEFT, .sep = " " },
	};
	const struct table t = { cols, ARRAY_SIZE(cols) };
	struct table_row row;

	n = hist_rows(c, r->linear_step, rows);
	for (k = 0; k < n; k++) {
		if (!rows[k].count)
			continue;
		if (first < 0)
			first = k;
		last = k;
		if (rows[k].count > max)
			max = rows[k].count;
	}
	if (first < 0)
		return;
	for (k = first; k <= last; k++) {
		hi = rows[k].hi == ~0ull ? rows[k].lo : rows[k].hi;
		if (u64_width(hi) > w)
			w = u64_width(hi);
	}
	if (r->ns_per_cycle > 0) { /* "%.1f" of the widest: its digits, the point, one more */
		latency_text(r, rows[last].hi == ~0ull ? rows[last].lo : rows[last].hi, 0, false,
			     label, sizeof(label));
		w = (int)strlen(label);
	}
	cols[0].width = 2 * w + 4; /* "lo -> hi", each as wide as the widest */
	table__header(out, &t);
	for (k = first; k <= last; k++) {
		lo = rows[k].lo;
		hi = rows[k].hi;
		if (hi == ~0ull)
			snprintf(label, sizeof(label), "%*llu -> ...%*s", w, (unsigned long long)lo,
				 w - 3 > 0 ? w - 3 : 0, "");
		else if (r->ns_per_cycle > 0) {
			char a[32], b[32];

			latency_text(r, lo, w, false, a, sizeof(a));
			latency_text(r, hi, w, true, b, sizeof(b));
			snprintf(label, sizeof(label), "%s -> %s", a, b);
		} else
			snprintf(label, sizeof(label), "%*llu -> %-*llu", w, (unsigned long long)lo,
				 w, (unsigned long long)hi);
		stars = (int)((unsigned __int128)rows[k].count * BAR_WIDTH / max);
		memset(bar, '*', stars);
		memset(bar + stars, ' ', BAR_WIDTH - stars);
		bar[BAR_WIDTH] = '\0';
		table__row_begin(&row, out, &t);
		table__cell(&row, "%s", label);
		table__cell(&row, "%llu", (unsigned long long)rows[k].count);
		table__cell(&row, "|%s|", bar);
		table__row_end(&row);
	}
}

/*
 * "1234", or ">=64000" for a percentile in the open last bucket; in
 * nanoseconds ("85.3") with --unit ns.
 */
static const char *percentile_text(const struct hist_view *r, const struct cell *c, double p,
				   char *buf, size_t len)
{
	bool at_least;
	double v = cell__percentile_floor(c, p, r->linear_step, &at_least);

	if (r->ns_per_cycle > 0)
		snprintf(buf, len, "%s%.1f", at_least ? ">=" : "", v * r->ns_per_cycle);
	else
		snprintf(buf, len, "%s%.0f", at_least ? ">=" : "", v);
	return buf;
}

double hist__share(__u64 part, __u64 whole)
{
	return whole ? (double)part / (double)whole * 100.0 : 0.0;
}

static void render_summary(FILE *out, const struct hist_view *r, const struct cell *c,
			   const struct cell *all)
{
	char p50[32], p90[32], p99[32], bound[48];
	__u64 n = cell__measured(c);
	bool ns = r->ns_per_cycle > 0;
	double k = ns ? r->ns_per_cycle : 1.0;

	fprintf(out, "  %llu samples (%.1f%% of kept)", (unsigned long long)c->count,
		hist__share(c->count, all->count));
	if (r->period_weighted)
		fprintf(out, ", standing for %llu events (%.1f%% of the kept samples' events)",
			(unsigned long long)c->period, hist__share(c->period, all->period));
	if (n) {
		percentile__bound(r->linear_step, bound, sizeof(bound));
		fprintf(out,
			ns ? "\n  latency: mean %.1f ns, min %.1f, p50 %s, p90 %s, p99 %s, max "
			     "%.1f "
			     "(percentiles %s)"
			   : "\n  latency: mean %.1f cycles, min %.0f, p50 %s, p90 %s, p99 %s, max "
			     "%.0f (percentiles %s)",
			(double)c->sum / (double)n * k, (double)c->min * k,
			percentile_text(r, c, 50, p50, sizeof(p50)),
			percentile_text(r, c, 90, p90, sizeof(p90)),
			percentile_text(r, c, 99, p99, sizeof(p99)), (double)c->max * k, bound);
		if (ns)
			fprintf(out,
				"\n  (ns approximate: cycles at the nominal %.2f GHz from %s, "
				"which "
				"turbo, power saving and hybrid cores depart from)",
				1.0 / r->ns_per_cycle, r->ns_why ? r->ns_why : "this machine");
	}
	if (c->unmeasured)
		fprintf(out,
			"\n  %llu samples without a measured latency (in no bucket, mean or "
			"percentile)",
			(unsigned long long)c->unmeasured);
	fputc('\n', out);
}

const char *hist__op_name(unsigned int i, __u32 *bit)
{
	static const struct {
		const char *name;
		__u32 bit;
	} ops[HIST_NOPS] = { { "load", PERF_MEM_OP_LOAD },
			     { "store", PERF_MEM_OP_STORE },
			     { "pfetch", PERF_MEM_OP_PFETCH },
			     { "exec", PERF_MEM_OP_EXEC } };

	*bit = i < HIST_NOPS ? ops[i].bit : 0;
	return i < HIST_NOPS ? ops[i].name : NULL;
}

/* What the op filter dropped: "not a load", "not a load or store" (the ops of op_mask). */
static void op_dropped_label(__u32 op_mask, char *buf, size_t len)
{
	size_t at = (size_t)snprintf(buf, len, "not a");
	unsigned int i, n = 0;
	const char *name;
	__u32 bit;

	for (i = 0; i < HIST_NOPS && at < len; i++) {
		name = hist__op_name(i, &bit);
		if (op_mask & bit)
			at += (size_t)snprintf(buf + at, len - at, "%s%s", n++ ? " or " : " ",
					       name);
	}
	if (!n)
		snprintf(buf, len, "not an op asked for");
}

void render_counters(FILE *out, const struct snapshot *s, const struct ldlat_config *cfg)
{
	const struct ldlat_counters *c = &s->counters;
	char op[64];
	const struct {
		const char *what;
		__u64 n;
	} drops[] = {
		{ "outside every range", c->outside_ranges },
		{ "below --min-lat", c->below_min },
		{ "above --max-lat", c->above_max },
		{ "class not asked for", c->class_filtered },
		{ op, c->op_filtered },
		{ "no data address", c->no_address },
		{ "fields missing", c->fields_missing },
		{ "other process", c->tgid_filtered },
	};
	unsigned int i;
	int any = 0;

	op_dropped_label(cfg ? cfg->op_mask : 0, op, sizeof(op));
	fprintf(out, "filters: %llu seen, %llu kept", (unsigned long long)c->seen,
		(unsigned long long)c->kept);
	for (i = 0; i < ARRAY_SIZE(drops); i++) {
		if (!drops[i].n)
			continue;
		fprintf(out, "%s%llu %s",
			any++ ? ", " : "; dropped: ", (unsigned long long)drops[i].n,
			drops[i].what);
	}
	fputc('\n', out);
	render_unseen(out, &s->unseen);
}

void render_unseen(FILE *out, const struct unseen *u)
{
	/* counted at the program's last sample of each event: what came after is not seen either */
	const char *last = u->lower_bound ? " at the program's last sample of each" : "";

	if (!u->known && u->why)
		fprintf(out, "unseen: not measured: %s\n", u->why);
	if (!u->known)
		return;
	fprintf(out, "unseen: %s%s%llu samples the events produced and the program did not see (",
		u->lower_bound ? "at least " : "", u->freq ? "about " : "",
		(unsigned long long)unseen__samples(u));
	/* frequency mode: each sample stands for its own period, so events are compared */
	if (u->freq)
		fprintf(out,
			"frequency mode: their %llu events%s against the %llu the samples seen "
			"stand for)\n",
			(unsigned long long)u->counted, last, (unsigned long long)u->seen_period);
	else
		fprintf(out, "%llu by the events' counts%s, %llu seen)\n",
			(unsigned long long)u->counted, last, (unsigned long long)u->seen);
}

/* Samples per range, for samples without latency. */
static const struct table_column counts_columns[] = {
	{ .header = "samples", .width = 12, .align = TABLE_RIGHT },
	{ .header = "range", .align = TABLE_LEFT, .sep = "  " },
};
static const struct table counts_table = { counts_columns, ARRAY_SIZE(counts_columns) };

static void render_counts(FILE *out, const struct hist_view *r, const struct group *g, int n)
{
	char key[32];
	struct table_row row;
	char name[600];
	__u64 total = 0;
	int i;

	table__header(out, &counts_table);
	for (i = 0; i < n; i++) {
		hist_view__range_name(r, g[i].range < 0 ? 0 : g[i].range, name, sizeof(name));
		table__row_begin(&row, out, &counts_table);
		table__cell(&row, "%llu", (unsigned long long)g[i].sum.count);
		hist_group__row(&g[i], key, sizeof(key));
		if (*key)
			table__cell(&row, "%s %s, %s", split__name(g[i].by), key,
				    g[i].range < 0 ? "all ranges" : name);
		else
			table__cell(&row, "%s", g[i].range < 0 ? "all ranges" : name);
		table__row_end(&row);
		total += g[i].sum.count;
	}
	if (n > 1) {
		table__row_begin(&row, out, &counts_table);
		table__cell(&row, "%llu", (unsigned long long)total);
		table__cell(&row, "total");
		table__row_end(&row);
	}
	fprintf(out, "%s samples carry no latency or data source: counts per range only.\n",
		r->src->kind == SOURCE_PAGE_FAULTS ? "page-fault" : "these");
	/* one number and nothing else: what would tell more */
	if (r->src->kind == SOURCE_PAGE_FAULTS && (!r->ranges || !r->ranges->nranges))
		fprintf(out, "To see more: -a splits the count by address range (-a '[heap]' -a "
			     "'[stack]' with -p or a command, or -a LO-HI), and ldlat-top names "
			     "the code and the data behind the faults.\n");
}

void split__use(const struct snapshot *s, struct split_use *u)
{
	__u32 row, i, n = s->nranges * LDLAT_NCLASS, last = snapshot__nrows(s) - 1;

	memset(u, 0, sizeof(*u));
	u->rows = last;
	for (row = 0; s->by && row <= last; row++) {
		__u64 c = 0;

		for (i = 0; i < n; i++)
			c += s->cells[ldlat_by_base(row, s->nranges) + i].count;
		if (row == last)
			u->others = c;
		else if (s->row_set[row] && c)
			u->used++;
	}
}

/* --by's line: the rows used, and what went to the others when they ran out. */
static void render_split(FILE *out, const struct snapshot *s)
{
	struct split_use u;

	if (!s->by)
		return;
	split__use(s, &u);
	fprintf(out,
		"by %s: %u of %u rows hold samples; others (no row left for their %s): %llu "
		"samples\n",
		split__name(s->by), u.used, u.rows, split__name(s->by),
		(unsigned long long)u.others);
}

void render_text(FILE *out, const struct hist_view *r, const struct snapshot *s)
{
	int i, n, max = hist_view__max_groups(s);
	struct group *groups = calloc((size_t)max, sizeof(*groups));
	char title[800], when[32];
	struct cell all = {};
	struct tm tm;

	if (!groups) {
		fprintf(out, "out of memory\n");
		return;
	}
	if (r->intervals) {
		localtime_r(&s->taken.tv_sec, &tm);
		strftime(when, sizeof(when), "%H:%M:%S", &tm);
		fprintf(out, "%s\n", when);
	}
	n = hist_view__groups(r, s, groups, max);
	if (!r->has_latency) {
		render_counts(out, r, groups, n);
	} else if (!n) {
		fprintf(out, "no samples kept\n");
	} else {
		hist__total(s, &all);
		for (i = 0; i < n; i++) {
			group_title(r, &groups[i], title, sizeof(title));
			/* a range named as -a named it: escaped, as the table's cells are */
			fputs(i ? "\n" : "", out);
			unctrl__fputs(out, title);
			fputc('\n', out);
			render_hist(out, r, &groups[i].sum);
			render_summary(out, r, &groups[i].sum, &all);
		}
	}
	free(groups);
	render_split(out, s);
	render_counters(out, s, r->run ? r->run->cfg : NULL);
	if (r->loads)
		render_loads_text(out, r->loads);
}

void render_loads_text(FILE *out, const struct loads_share *l)
{
	fprintf(out, "loads (%s): %.0f", l->event, l->loads);
	if (l->running < 1.0)
		fprintf(out, " (on a counter %.1f%% of the time, scaled)", l->running * 100);
	fprintf(out, "; %s: ", l->what);
	if (l->above > l->loads && l->loads > 0)
		fprintf(out, "%.0f, more than the loads counted (%s): %s\n", l->above, l->how,
			LOADS_SKEW);
	else if (l->loads > 0)
		fprintf(out, "%.0f = %.4f%% of them (%s)\n", l->above, l->above / l->loads * 100,
			l->how);
	else
		fprintf(out, "%.0f, of no counted load (%s)\n", l->above, l->how);
}

static void hist_text(FILE *f, const void *report)
{
	const struct hist_report *r = report;

	if (r->with_run && r->view->run && r->view->run->pin_dir)
		render_text_run(f, r->view, r->interval);
	render_text(f, r->view, r->interval);
}

static void hist_json(FILE *f, const void *report)
{
	const struct hist_report *r = report;

	render_json(f, r->view, r->interval);
}

static void hist_openmetrics(FILE *f, const void *report)
{
	const struct hist_report *r = report;

	render_openmetrics(f, r->view, r->total);
}

static void hist_prometheus(FILE *f, const void *report)
{
	const struct hist_report *r = report;

	render_prometheus(f, r->view, r->total);
}

const struct output_formats hist_formats = { "ldlat-hist", .text = hist_text, .json = hist_json,
					     .openmetrics = hist_openmetrics,
					     .prometheus = hist_prometheus };
