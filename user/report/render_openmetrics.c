// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * render_openmetrics.c - totals as an OpenMetrics exposition that is also
 * valid Prometheus text format (what promtool check metrics and the
 * node_exporter textfile collector read).
 *
 * The two formats agree on histograms and gauges but not on counters: in
 * OpenMetrics the family 'x' has the sample 'x_total', in the text format
 * the TYPE line names 'x_total' itself, and each parser rejects the other's
 * form.  The filter counters are therefore exposed without a TYPE (unknown
 * in OpenMetrics, untyped in the text format), which both accept; they only
 * ever grow, so rate() applies.
 */
#include <stdio.h>
#include <string.h>

#include "user/report/escape.h"
#include "user/report/render.h"
#include "kernel/abi/datasrc.h"
#include "kernel/lib/util.h"

#define LABELS_MAX 2048

/* target="...",pin="...": what tells two runs' series apart in one textfile directory. */
static void base_labels(const struct report *r, char *buf, size_t len)
{
	char target[600], pin[600];

	label_value(target, sizeof(target), r->run && r->run->target ? r->run->target : "");
	if (r->run && r->run->pin_dir) {
		label_value(pin, sizeof(pin), r->run->pin_dir);
		snprintf(buf, len, "target=\"%s\",pin=\"%s\"", target, pin);
	} else {
		snprintf(buf, len, "target=\"%s\"", target);
	}
}

static void family(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP %s %s\n", name, help);
	if (type)
		fprintf(out, "# TYPE %s %s\n", name, type);
}

static void render_run_families(FILE *out, const struct report *r, const char *base)
{
	char event[600], source[64];
	double started = 0;

	label_value(event, sizeof(event), r->run && r->run->event ? r->run->event : "");
	label_value(source, sizeof(source), source__name(r->src->kind));
	family(out, "ldlat_run_info", "gauge",
	       "What the run samples: the event and source (always 1).");
	fprintf(out, "ldlat_run_info{%s,event=\"%s\",source=\"%s\"} 1\n", base, event, source);
	if (r->run)
		started = ts__seconds(&r->run->started);
	family(out, "ldlat_start_time_seconds", "gauge",
	       "When sampling started, in seconds since the Unix epoch.");
	fprintf(out, "ldlat_start_time_seconds{%s} %.3f\n", base, started);
	if (r->run && r->run->pin_dir) {
		family(out, "ldlat_cgroup_removed", "gauge",
		       "1 when the pinned set's cgroup has been removed: its events count "
		       "nothing.");
		fprintf(out, "ldlat_cgroup_removed{%s} %d\n", base, r->run->cgroup_removed ? 1 : 0);
	}
}

static void render_counter_families(FILE *out, const struct snapshot *s, const char *base)
{
	const __u64 *by_verdict = &s->counters.kept;
	int v;

	family(out, "ldlat_samples_seen", NULL,
	       "Samples the BPF program saw (a counter since the start).");
	fprintf(out, "ldlat_samples_seen{%s} %llu\n", base, (unsigned long long)s->counters.seen);
	family(out, "ldlat_samples_kept", NULL,
	       "Samples that passed every filter (a counter since the start).");
	fprintf(out, "ldlat_samples_kept{%s} %llu\n", base, (unsigned long long)s->counters.kept);
	family(out, "ldlat_samples_dropped", NULL,
	       "Samples dropped in the kernel, by reason (a counter since the start).");
	for (v = LDLAT_DROP_MISSING; v < LDLAT_NVERDICTS; v++)
		fprintf(out, "ldlat_samples_dropped{%s,reason=\"%s\"} %llu\n", base,
			counters__key(v), (unsigned long long)by_verdict[v]);
	family(out, "ldlat_samples_skipped", NULL,
	       "Samples the kernel did not give the program because another BPF program was "
	       "running on that CPU (a counter since the start).");
	fprintf(out, "ldlat_samples_skipped{%s} %llu\n", base,
		(unsigned long long)s->recursion_misses);
}

/* Every bucket bound, always: a series keeps the same buckets from scrape to scrape. */
static void render_histogram(FILE *out, const struct report *r, const struct group *g,
			     const char *labels)
{
	const struct cell *c = &g->sum;
	__u64 cumulative = 0;
	int k;

	for (k = 0; k < LDLAT_NBUCKETS - 1; k++) {
		cumulative += c->slot[k];
		fprintf(out, "ldlat_latency_cycles_bucket{%s,le=\"%llu\"} %llu\n", labels,
			(unsigned long long)ldlat_bucket_hi(k, r->linear_step),
			(unsigned long long)cumulative);
	}
	fprintf(out, "ldlat_latency_cycles_bucket{%s,le=\"+Inf\"} %llu\n", labels,
		(unsigned long long)c->count);
	fprintf(out, "ldlat_latency_cycles_sum{%s} %llu\n", labels, (unsigned long long)c->sum);
	fprintf(out, "ldlat_latency_cycles_count{%s} %llu\n", labels, (unsigned long long)c->count);
}

static void render_loads_families(FILE *out, const struct loads_report *l, const char *base)
{
	char event[600];

	label_value(event, sizeof(event), l->event);
	family(out, "ldlat_loads", "gauge",
	       "Every load counted beside the sampling (--loads), scaled when multiplexed.");
	fprintf(out, "ldlat_loads{%s,event=\"%s\"} %.0f\n", base, event, l->loads);
	family(out, "ldlat_loads_sampled_ratio", "gauge",
	       "The share of the counted loads the samples stand for (samples x period / loads).");
	if (l->loads > 0 && l->above <= l->loads) /* above: LOADS_SKEW */
		fprintf(out, "ldlat_loads_sampled_ratio{%s,event=\"%s\"} %.9f\n", base, event,
			l->above / l->loads);
}

void render_openmetrics(FILE *out, const struct report *r, const struct snapshot *s)
{
	struct group groups[LDLAT_MAX_RANGES * LDLAT_NCLASS];
	char base[LABELS_MAX], labels[LABELS_MAX + 1024], range[600], range_label[1200];
	int i, n;

	base_labels(r, base, sizeof(base));
	render_run_families(out, r, base);
	render_counter_families(out, s, base);
	n = report__groups(r, s, groups, LDLAT_MAX_RANGES * LDLAT_NCLASS);
	if (r->has_latency) {
		family(out, "ldlat_latency_cycles", "histogram",
		       "Latency of the kept samples in core cycles, by data-source class and "
		       "address "
		       "range.");
		fprintf(out, "# UNIT ldlat_latency_cycles cycles\n");
	} else {
		family(out, "ldlat_range_samples", NULL,
		       "Kept samples per address range; this source carries no latency (a counter "
		       "since the start).");
	}
	for (i = 0; i < n; i++) {
		report__group_range(r, &groups[i], range, sizeof(range));
		label_value(range_label, sizeof(range_label), range);
		snprintf(labels, sizeof(labels), "%s,class=\"%s\",range=\"%s\"", base,
			 report__group_class(&groups[i]), range_label);
		if (r->has_latency)
			render_histogram(out, r, &groups[i], labels);
		else
			fprintf(out, "ldlat_range_samples{%s} %llu\n", labels,
				(unsigned long long)groups[i].sum.count);
	}
	if (r->loads)
		render_loads_families(out, r->loads, base);
	fprintf(out, "# EOF\n");
}
