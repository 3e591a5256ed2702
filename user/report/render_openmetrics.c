// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * render_openmetrics.c - totals as an exposition, in OpenMetrics 1.0 or in
 * the Prometheus text format (what promtool check metrics and the
 * node_exporter textfile collector read): the same families and samples,
 * written through openmetrics.h, which words counters and the end for each
 * dialect.  The filter counters are typed counters (samples x_total), so
 * rate() and increase() apply and a reset is seen as one.
 */
#include <stdio.h>
#include <stdlib.h>

#include "user/report/openmetrics.h"
#include "user/report/render.h"
#include "kernel/abi/datasrc.h"
#include "kernel/lib/util.h"

/* target="...",pin="...": what tells two runs' series apart in one textfile directory. */
static void base_labels(const struct hist_view *r, struct om_labels *l)
{
	om_labels__init(l);
	om_labels__add(l, "target", r->run && r->run->target ? r->run->target : "", OM_VALUE_MAX);
	if (r->run && r->run->pin_dir)
		om_labels__add(l, "pin", r->run->pin_dir, OM_VALUE_MAX);
}

/* pin="..." only: one series whether the set is there or not. */
static void render_set_present(FILE *out, const char *pin_dir, int present)
{
	struct om_labels l;

	om_labels__init(&l);
	om_labels__add(&l, "pin", pin_dir, OM_VALUE_MAX);
	om__family(out, "ldlat_set_present", "gauge",
		   "1 when the pinned set was found in pin, 0 when pin is missing or empty (the "
		   "set was removed: nothing else is reported).");
	om__sample_u64(out, "ldlat_set_present", &l, present);
}

static void render_run_families(FILE *out, const struct hist_view *r, const struct om_labels *base)
{
	struct om_labels l = *base;
	double started = 0;

	om_labels__add(&l, "event", r->run && r->run->event ? r->run->event : "", OM_VALUE_MAX);
	om_labels__add(&l, "source", source__name(r->src->kind), 64);
	om__family(out, "ldlat_run_info", "gauge",
		   "What the run samples: the event and source (always 1).");
	om__sample_u64(out, "ldlat_run_info", &l, 1);
	if (r->run)
		started = ts__seconds(&r->run->started);
	om__family(out, "ldlat_start_time_seconds", "gauge",
		   "When sampling started, in seconds since the Unix epoch.");
	om__sample_fixed(out, "ldlat_start_time_seconds", base, started, 3);
	if (r->run && r->run->pin_dir) {
		render_set_present(out, r->run->pin_dir, 1);
		om__family(out, "ldlat_cgroup_removed", "gauge",
			   "1 when the pinned set's cgroup has been removed: its events count "
			   "nothing.");
		om__sample_u64(out, "ldlat_cgroup_removed", base, r->run->cgroup_removed ? 1 : 0);
		om__family(out, "ldlat_links_missing", "gauge",
			   "Links the pinned set pinned that are gone from pin (removed by hand): "
			   "their events sample no more once no process holds them.");
		om__sample_u64(
			out, "ldlat_links_missing", base,
			(__u64)(r->run->pin_links_missing > 0 ? r->run->pin_links_missing : 0));
	}
}

static void render_counter_families(FILE *out, enum om_dialect d, const struct snapshot *s,
				    const struct om_labels *base)
{
	const __u64 *by_verdict = &s->counters.kept;
	struct om_labels l;
	int v;

	om__counter(out, d, "ldlat_samples_seen", "Samples the BPF program saw.");
	om__sample_u64(out, "ldlat_samples_seen_total", base, s->counters.seen);
	om__counter(out, d, "ldlat_samples_kept", "Samples that passed every filter.");
	om__sample_u64(out, "ldlat_samples_kept_total", base, s->counters.kept);
	om__counter(out, d, "ldlat_samples_dropped", "Samples dropped in the kernel, by reason.");
	for (v = LDLAT_DROP_MISSING; v < LDLAT_NVERDICTS; v++) {
		l = *base;
		om_labels__add(&l, "reason", counters__key(v), OM_VALUE_MAX);
		om__sample_u64(out, "ldlat_samples_dropped_total", &l, by_verdict[v]);
	}
	/* not measured (a pinned set, a file): no sample, as a scrape without the series */
	if (!s->unseen.known)
		return;
	l = *base;
	om_labels__add(&l, "estimated", s->unseen.freq ? "1" : "0", 8);
	om__counter(out, d, "ldlat_samples_unseen",
		    s->unseen.lower_bound
			    ? "Samples the events produced that the program did not see, at least: "
			      "from each event's count at the program's last sample of it "
			      "(estimated=1 in frequency mode)."
			    : "Samples the events produced that the program did not see, from the "
			      "events' own counts (estimated=1 in frequency mode).");
	om__sample_u64(out, "ldlat_samples_unseen_total", &l, unseen__samples(&s->unseen));
}

/* Every bucket bound, always: a series keeps the same buckets from scrape to scrape. */
static void render_histogram(FILE *out, const struct hist_view *r, const struct group *g,
			     const struct om_labels *labels)
{
	const struct cell *c = &g->sum;
	struct om_labels l;
	__u64 cumulative = 0;
	int k;

	__u64 hi;

	/*
	 * Log-linear buckets are exposed at each power of two (their bounds
	 * fall there too), as the hundreds of sub-buckets would make every
	 * scrape heavy; the percentile family carries the fine estimate.
	 */
	for (k = 0; k < (int)ldlat_nbuckets(r->linear_step) - 1; k++) {
		cumulative += c->slot[k];
		hi = ldlat_bucket_hi(k, r->linear_step);
		if (!r->linear_step && (hi + 1) & hi)
			continue;
		l = *labels;
		om_labels__add_u64(&l, "le", hi);
		om__sample_u64(out, "ldlat_latency_cycles_bucket", &l, cumulative);
	}
	l = *labels;
	om_labels__add(&l, "le", "+Inf", OM_VALUE_MAX);
	om__sample_u64(out, "ldlat_latency_cycles_bucket", &l, cell__measured(c));
	om__sample_u64(out, "ldlat_latency_cycles_sum", labels, c->sum);
	om__sample_u64(out, "ldlat_latency_cycles_count", labels, cell__measured(c));
}

static void render_loads_families(FILE *out, const struct loads_share *lr,
				  const struct om_labels *base)
{
	struct om_labels l = *base;

	om_labels__add(&l, "event", lr->event, OM_VALUE_MAX);
	om__family(out, "ldlat_loads", "gauge",
		   "Every load counted beside the sampling (--loads), scaled when multiplexed.");
	om__sample_fixed(out, "ldlat_loads", &l, lr->loads, 0);
	om__family(out, "ldlat_loads_sampled_ratio", "gauge",
		   "The share of the counted loads the samples stand for (samples x period / "
		   "loads).");
	if (lr->loads > 0 && lr->above <= lr->loads) /* above: LOADS_SKEW */
		om__sample_fixed(out, "ldlat_loads_sampled_ratio", &l, lr->above / lr->loads, 9);
}

static void group_labels(const struct hist_view *r, const struct group *g,
			 const struct om_labels *base, struct om_labels *labels)
{
	char range[600];

	hist_view__group_range(r, g, range, sizeof(range));
	*labels = *base;
	if (g->by) {
		char row[32];

		hist_group__row(g, row, sizeof(row));
		om_labels__add(labels, split__name(g->by), row, OM_VALUE_MAX);
	}
	om_labels__add(labels, "class", hist_group__class(g), OM_VALUE_MAX);
	/* built here, at most sizeof(range) bytes: never cut once escaped */
	om_labels__add(labels, "range", range, 2 * sizeof(range));
}

/*
 * What the histogram family cannot say: the exact min and max, the
 * percentiles from the sub-buckets with their error bound, the samples
 * without a measured latency, and the events the samples stand for.
 */
static void render_latency_families(FILE *out, enum om_dialect d, const struct hist_view *r,
				    const struct group *g, int n, const struct om_labels *base)
{
	static const char *const qs[3] = { "50", "90", "99" };
	static const double pcts[3] = { 50, 90, 99 };
	/* the least, then the greatest */
	static const struct {
		const char *family, *help;
	} extremes[2] = {
		{ "ldlat_latency_min_cycles",
		  "Least measured latency of the kept samples, in core cycles (exact)." },
		{ "ldlat_latency_max_cycles",
		  "Greatest measured latency of the kept samples, in core cycles (exact)." },
	};
	struct om_labels labels, l;
	char help[200], bound[48];
	int i, k;

	percentile__bound(r->linear_step, bound, sizeof(bound));
	for (k = 0; k < 2; k++) {
		om__family(out, extremes[k].family, "gauge", extremes[k].help);
		for (i = 0; i < n; i++) {
			if (!cell__measured(&g[i].sum))
				continue;
			group_labels(r, &g[i], base, &labels);
			om__sample_u64(out, extremes[k].family, &labels,
				       k ? g[i].sum.max : g[i].sum.min);
		}
	}
	snprintf(help, sizeof(help),
		 "Latency percentiles of the kept samples, in core cycles, %s of the exact "
		 "value and never outside min and max.",
		 bound);
	om__family(out, "ldlat_latency_percentile_cycles", "gauge", help);
	for (i = 0; i < n; i++) {
		if (!cell__measured(&g[i].sum))
			continue;
		group_labels(r, &g[i], base, &labels);
		for (k = 0; k < 3; k++) {
			l = labels;
			om_labels__add(&l, "percentile", qs[k], 8);
			om__sample_fixed(out, "ldlat_latency_percentile_cycles", &l,
					 cell__percentile(&g[i].sum, pcts[k], r->linear_step), 0);
		}
	}
	om__family(out, "ldlat_latency_percentile_error", "gauge",
		   "The bound of the percentiles' error: relative (kind=relative, a ratio) or "
		   "in cycles (kind=cycles, linear buckets).");
	l = *base;
	om_labels__add(&l, "kind", r->linear_step ? "cycles" : "relative", 16);
	if (r->linear_step)
		om__sample_u64(out, "ldlat_latency_percentile_error", &l, r->linear_step / 2);
	else
		om__sample_fixed(out, "ldlat_latency_percentile_error", &l, LDLAT_REL_ERROR, 6);
	om__counter(out, d, "ldlat_samples_unmeasured",
		    "Kept samples without a measured latency (in no bucket, sum or percentile).");
	for (i = 0; i < n; i++) {
		group_labels(r, &g[i], base, &labels);
		om__sample_u64(out, "ldlat_samples_unmeasured_total", &labels, g[i].sum.unmeasured);
	}
}

/* The events the kept samples stand for: their periods summed (weighting=period in -F). */
static void render_event_families(FILE *out, enum om_dialect d, const struct hist_view *r,
				  const struct group *g, int n, const struct om_labels *base)
{
	struct om_labels labels;
	int i;

	om__counter(out, d, "ldlat_events",
		    "Events the kept samples stand for, the sum of their periods; in frequency "
		    "mode the period varies and shares are shares of this.");
	for (i = 0; i < n; i++) {
		group_labels(r, &g[i], base, &labels);
		om_labels__add(&labels, "weighting", r->period_weighted ? "period" : "samples", 16);
		om__sample_u64(out, "ldlat_events_total", &labels, g[i].sum.period);
	}
}

static void render_exposition(FILE *out, enum om_dialect d, const struct hist_view *r,
			      const struct snapshot *s)
{
	int max = hist_view__max_groups(s);
	struct group *groups = calloc((size_t)max, sizeof(*groups));
	struct om_labels base, labels;
	int i, n;

	base_labels(r, &base);
	render_run_families(out, r, &base);
	render_counter_families(out, d, s, &base);
	n = groups ? hist_view__groups(r, s, groups, max) : 0;
	if (s->by) {
		struct split_use u;
		struct om_labels l = base;

		split__use(s, &u);
		om_labels__add(&l, "by", split__name(s->by), 16);
		om__counter(out, d, "ldlat_split_others_samples",
			    "Kept samples whose --by key found no row left (in the others row).");
		om__sample_u64(out, "ldlat_split_others_samples_total", &l, u.others);
	}
	if (r->has_latency) {
		om__family(out, "ldlat_latency_cycles", "histogram",
			   "Latency of the kept samples in core cycles, by data-source class and "
			   "address range.");
		om__unit(out, "ldlat_latency_cycles", "cycles");
	} else {
		om__counter(out, d, "ldlat_range_samples",
			    "Kept samples per address range; this source carries no latency.");
	}
	for (i = 0; i < n; i++) {
		group_labels(r, &groups[i], &base, &labels);
		if (r->has_latency)
			render_histogram(out, r, &groups[i], &labels);
		else
			om__sample_u64(out, "ldlat_range_samples_total", &labels,
				       groups[i].sum.count);
	}
	if (r->has_latency)
		render_latency_families(out, d, r, groups, n, &base);
	render_event_families(out, d, r, groups, n, &base);
	free(groups);
	if (r->loads)
		render_loads_families(out, r->loads, &base);
	om__end(out, d);
}

void render_openmetrics(FILE *out, const struct hist_view *r, const struct snapshot *s)
{
	render_exposition(out, OM_OPENMETRICS, r, s);
}

void render_prometheus(FILE *out, const struct hist_view *r, const struct snapshot *s)
{
	render_exposition(out, OM_PROMETHEUS, r, s);
}

void render_set_absent(FILE *out, const char *pin_dir, bool prometheus)
{
	render_set_present(out, pin_dir, 0);
	om__end(out, prometheus ? OM_PROMETHEUS : OM_OPENMETRICS);
}
