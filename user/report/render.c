// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "user/report/render.h"
#include "user/report/table.h"
#include "kernel/abi/datasrc.h"
#include "kernel/lib/util.h"

#define BAR_WIDTH 40

void report__range_name(const struct report *r, int range, char *buf, size_t len)
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

int report__groups(const struct report *r, const struct snapshot *s, struct group *groups, int max)
{
	int n = 0, range, cls, ng;
	enum report_by by = r->by;
	int nr = (int)s->nranges;

	/* without a data source every sample is of the unknown class */
	if (!r->has_latency && by == BY_CLASS)
		by = BY_RANGE;
	else if (!r->has_latency && by == BY_BOTH)
		by = BY_RANGE;
	for (range = 0; range < (by == BY_RANGE || by == BY_BOTH ? nr : 1); range++) {
		for (cls = 0; cls < (by == BY_CLASS || by == BY_BOTH ? LDLAT_NCLASS : 1); cls++) {
			struct group g = { .range = by == BY_RANGE || by == BY_BOTH ? range : -1,
					   .cls = by == BY_CLASS || by == BY_BOTH ? cls : -1 };
			int rr, cc;

			for (rr = 0; rr < nr; rr++)
				for (cc = 0; cc < LDLAT_NCLASS; cc++)
					if ((g.range < 0 || g.range == rr) &&
					    (g.cls < 0 || g.cls == cc))
						cell__add(&g.sum,
							  &s->cells[ldlat_hist_index(rr, cc)]);
			/* ranges are listed even when empty: a zero is an answer */
			if (!g.sum.count && !(by == BY_RANGE && !r->has_latency))
				continue;
			if (n < max)
				groups[n] = g;
			n++;
		}
	}
	ng = n < max ? n : max;
	return ng;
}

static void group_title(const struct report *r, const struct group *g, char *buf, size_t len)
{
	char range[600];

	if (g->range >= 0)
		report__range_name(r, g->range, range, sizeof(range));
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

/* A latency for the text report: cycles, or nanoseconds with --unit ns. */
static void latency_text(const struct report *r, __u64 cycles, int width, bool left, char *buf,
			 size_t len)
{
	if (r->ns_per_cycle > 0)
		snprintf(buf, len, left ? "%-*.1f" : "%*.1f", width,
			 (double)cycles * r->ns_per_cycle);
	else
		snprintf(buf, len, left ? "%-*llu" : "%*llu", width, (unsigned long long)cycles);
}

static void render_hist(FILE *out, const struct report *r, const struct cell *c)
{
	int first = -1, last = -1, k, w = 1, stars;
	__u64 max = 0, lo, hi;
	char bar[BAR_WIDTH + 1], label[64];
	struct table_column cols[] = {
		/* as wide as the labels, below */
		{ .header = r->ns_per_cycle > 0 ? "ns" : "cycles", .align = TABLE_RIGHT },
		{ .header = "count", .width = 9, .align = TABLE_LEFT, .sep = " : " },
		{ .header = "distribution", .align = TABLE_LEFT, .sep = " " },
	};
	const struct table t = { cols, ARRAY_SIZE(cols) };
	struct table_row row;

	for (k = 0; k < LDLAT_NBUCKETS; k++) {
		if (!c->slot[k])
			continue;
		if (first < 0)
			first = k;
		last = k;
		if (c->slot[k] > max)
			max = c->slot[k];
	}
	if (first < 0)
		return;
	for (k = first; k <= last; k++) {
		hi = ldlat_bucket_hi(k, r->linear_step);
		if (u64_width(hi) > w)
			w = u64_width(hi);
	}
	if (r->ns_per_cycle > 0) { /* "%.1f" of the widest: its digits, the point, one more */
		latency_text(r, ldlat_bucket_hi(last, r->linear_step), 0, false, label,
			     sizeof(label));
		w = (int)strlen(label);
	}
	cols[0].width = 2 * w + 4; /* "lo -> hi", each as wide as the widest */
	table__header(out, &t);
	for (k = first; k <= last; k++) {
		lo = ldlat_bucket_lo(k, r->linear_step);
		hi = ldlat_bucket_hi(k, r->linear_step);
		if (hi == ~0ull && r->linear_step)
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
		stars = (int)((unsigned __int128)c->slot[k] * BAR_WIDTH / max);
		memset(bar, '*', stars);
		memset(bar + stars, ' ', BAR_WIDTH - stars);
		bar[BAR_WIDTH] = '\0';
		table__row_begin(&row, out, &t);
		table__cell(&row, "%s", label);
		table__cell(&row, "%llu", (unsigned long long)c->slot[k]);
		table__cell(&row, "|%s|", bar);
		table__row_end(&row);
	}
}

/* --unit ns: the summary line in nanoseconds, and where they come from */
static void render_summary_ns(FILE *out, const struct report *r, const struct cell *c)
{
	double p[3], k = r->ns_per_cycle;
	bool at_least[3];
	static const double at[3] = { 50, 90, 99 };
	int i;

	for (i = 0; i < 3; i++)
		p[i] = cell__percentile_floor(c, at[i], r->linear_step, &at_least[i]) * k;
	fprintf(out,
		"  %llu samples, mean %.1f ns, p50 %s%.1f, p90 %s%.1f, p99 %s%.1f (percentiles "
		"estimated from the buckets; ns approximate: cycles at the nominal %.2f GHz from "
		"%s, which turbo, power saving and hybrid cores depart from)\n",
		(unsigned long long)c->count,
		c->count ? (double)c->sum / (double)c->count * k : 0.0, at_least[0] ? ">=" : "",
		p[0], at_least[1] ? ">=" : "", p[1], at_least[2] ? ">=" : "", p[2], 1.0 / k,
		r->ns_why ? r->ns_why : "this machine");
}

/* "1234", or ">=64000" for a percentile in the open last bucket. */
static const char *percentile_text(const struct cell *c, double p, __u32 linear_step, char *buf,
				   size_t len)
{
	bool at_least;
	double v = cell__percentile_floor(c, p, linear_step, &at_least);

	snprintf(buf, len, "%s%.0f", at_least ? ">=" : "", v);
	return buf;
}

static void render_summary(FILE *out, const struct report *r, const struct cell *c)
{
	char p50[32], p90[32], p99[32];

	if (r->ns_per_cycle > 0) {
		render_summary_ns(out, r, c);
		return;
	}

	fprintf(out,
		"  %llu samples, mean %.1f cycles, p50 %s, p90 %s, p99 %s (percentiles "
		"estimated from the buckets)\n",
		(unsigned long long)c->count, c->count ? (double)c->sum / (double)c->count : 0.0,
		percentile_text(c, 50, r->linear_step, p50, sizeof(p50)),
		percentile_text(c, 90, r->linear_step, p90, sizeof(p90)),
		percentile_text(c, 99, r->linear_step, p99, sizeof(p99)));
}

const char *report__op_name(unsigned int i, __u32 *bit)
{
	static const struct {
		const char *name;
		__u32 bit;
	} ops[REPORT_NOPS] = { { "load", PERF_MEM_OP_LOAD },
			       { "store", PERF_MEM_OP_STORE },
			       { "pfetch", PERF_MEM_OP_PFETCH },
			       { "exec", PERF_MEM_OP_EXEC } };

	*bit = i < REPORT_NOPS ? ops[i].bit : 0;
	return i < REPORT_NOPS ? ops[i].name : NULL;
}

/* What the op filter dropped: "not a load", "not a load or store" (the ops of op_mask). */
static void op_dropped_label(__u32 op_mask, char *buf, size_t len)
{
	size_t at = (size_t)snprintf(buf, len, "not a");
	unsigned int i, n = 0;
	const char *name;
	__u32 bit;

	for (i = 0; i < REPORT_NOPS && at < len; i++) {
		name = report__op_name(i, &bit);
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
	if (s->recursion_misses)
		fprintf(out,
			"warning: the kernel skipped %llu samples while another BPF program ran on "
			"their CPU\n",
			(unsigned long long)s->recursion_misses);
}

/* Samples per range, for samples without latency. */
static const struct table_column counts_columns[] = {
	{ .header = "samples", .width = 12, .align = TABLE_RIGHT },
	{ .header = "range", .align = TABLE_LEFT, .sep = "  " },
};
static const struct table counts_table = { counts_columns, ARRAY_SIZE(counts_columns) };

static void render_counts(FILE *out, const struct report *r, const struct group *g, int n)
{
	struct table_row row;
	char name[600];
	__u64 total = 0;
	int i;

	table__header(out, &counts_table);
	for (i = 0; i < n; i++) {
		report__range_name(r, g[i].range < 0 ? 0 : g[i].range, name, sizeof(name));
		table__row_begin(&row, out, &counts_table);
		table__cell(&row, "%llu", (unsigned long long)g[i].sum.count);
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

void render_text(FILE *out, const struct report *r, const struct snapshot *s)
{
	struct group groups[LDLAT_MAX_RANGES * LDLAT_NCLASS];
	char title[800], when[32];
	struct tm tm;
	int i, n;

	if (r->intervals) {
		localtime_r(&s->taken.tv_sec, &tm);
		strftime(when, sizeof(when), "%H:%M:%S", &tm);
		fprintf(out, "%s\n", when);
	}
	n = report__groups(r, s, groups, LDLAT_MAX_RANGES * LDLAT_NCLASS);
	if (!r->has_latency) {
		render_counts(out, r, groups, n);
	} else if (!n) {
		fprintf(out, "no samples kept\n");
	} else {
		for (i = 0; i < n; i++) {
			group_title(r, &groups[i], title, sizeof(title));
			fprintf(out, "%s%s\n", i ? "\n" : "", title);
			render_hist(out, r, &groups[i].sum);
			render_summary(out, r, &groups[i].sum);
		}
	}
	render_counters(out, s, r->run ? r->run->cfg : NULL);
	if (r->loads)
		render_loads_text(out, r->loads);
}

void render_loads_text(FILE *out, const struct loads_report *l)
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
