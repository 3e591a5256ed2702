// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * render_json.c - a report as one JSON object on one line, so that a run with
 * intervals is JSON Lines.  The schema is documented in README.md ("JSON");
 * tests/lib/json_schema.py checks output against it.
 *
 * Numbers that can exceed 2^53 (addresses) are hex strings; an unbounded
 * limit or an open-ended bucket bound is null.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "user/report/json.h"
#include "user/report/render.h"
#include "kernel/abi/datasrc.h"
#include "kernel/lib/util.h"

static void json_u64_or_null(struct json *j, const char *key, __u64 v)
{
	if (v == ~0ull)
		json__null(j, key);
	else
		json__u64(j, key, v);
}

static void json_hex(struct json *j, const char *key, __u64 v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v);
	json__string(j, key, buf);
}

static const char *by_name(enum hist_by by)
{
	static const char *const names[] = { "class", "range", "both", "none" };

	return names[by];
}

static void json_filters(struct json *j, const struct hist_view *r)
{
	const struct ldlat_config *cfg = r->run ? r->run->cfg : NULL;
	const struct range_set *set = r->ranges;
	char name[600];
	const char *op;
	unsigned int i;
	__u32 bit;
	int k;

	json__object_begin(j, "filters");
	json__array_begin(j, "ranges");
	for (k = 0; k < set->nranges; k++) {
		hist_view__range_name(r, k, name, sizeof(name));
		json__object_begin(j, NULL);
		json__i64(j, "index", k);
		json__string(j, "name", name);
		json__string(j, "spec", set->range[k].text);
		json__array_begin(j, "spans");
		for (i = 0; i < (unsigned int)set->nspans; i++) {
			if (set->span[i].range != (__u32)k)
				continue;
			json__object_begin(j, NULL);
			json_hex(j, "low", set->span[i].lo);
			json_hex(j, "high", set->span[i].hi);
			json__object_end(j);
		}
		json__array_end(j);
		json__object_end(j);
	}
	json__array_end(j);
	if (!cfg)
		goto out;
	json__u64(j, "min_latency", cfg->min_lat);
	json_u64_or_null(j, "max_latency", cfg->max_lat);
	if (!r->has_latency) { /* no data source: no class, no op to filter on */
		json__null(j, "classes");
		json__null(j, "ops");
		goto out;
	}
	json__array_begin(j, "classes");
	for (k = 0; k < LDLAT_NCLASS; k++)
		if (cfg->class_mask & (1u << k))
			json__string(j, NULL, class__token(k));
	json__array_end(j);
	if (!cfg->op_mask) {
		json__null(j, "ops");
		goto out;
	}
	json__array_begin(j, "ops");
	for (i = 0; i < HIST_NOPS; i++) {
		op = hist__op_name(i, &bit);
		if (cfg->op_mask & bit)
			json__string(j, NULL, op);
	}
	json__array_end(j);
out:
	json__object_end(j);
}

void render_json_counters(struct json *j, const struct snapshot *s)
{
	const __u64 *by_verdict = &s->counters.kept;
	int v;

	json__object_begin(j, "counters");
	json__u64(j, "seen", s->counters.seen);
	json__u64(j, "kept", s->counters.kept);
	json__object_begin(j, "dropped");
	for (v = LDLAT_DROP_MISSING; v < LDLAT_NVERDICTS; v++)
		json__u64(j, counters__key(v), by_verdict[v]);
	json__object_end(j);
	json__u64(j, "seen_period", s->counters.seen_period);
	render_json_unseen(j, &s->unseen);
	json__object_end(j);
}

void render_json_unseen(struct json *j, const struct unseen *u)
{
	if (!u->known) {
		json__null(j, "unseen");
		if (u->why)
			json__string(j, "unseen_unknown", u->why);
		return;
	}
	json__object_begin(j, "unseen");
	json__u64(j, "samples", unseen__samples(u));
	json__bool(j, "estimated", u->freq);
	json__bool(j, "lower_bound", u->lower_bound);
	json__string(j, "method",
		     u->freq ? "events counted - periods seen" : "count / period - seen");
	json__u64(j, u->freq ? "events_counted" : "samples_counted", u->counted);
	json__u64(j, "seen", u->seen);
	json__u64(j, "seen_period", u->seen_period);
	json__object_end(j);
}

static void json_group(struct json *j, const struct hist_view *r, const struct group *g,
		       const struct cell *all)
{
	char row[32];
	static const char *const pnames[3] = { "p50", "p90", "p99" };
	static const double pcts[3] = { 50, 90, 99 };
	const struct cell *c = &g->sum;
	__u64 n = cell__measured(c);
	bool at_least[3];
	double pv[3];
	char name[600];
	__u32 k;

	json__object_begin(j, NULL);
	hist_group__row(g, row, sizeof(row));
	if (g->by && !g->others)
		json__u64(j, split__name(g->by), g->key);
	else if (g->by)
		json__string(j, split__name(g->by), row); /* "others" */
	if (g->range < 0)
		json__null(j, "range");
	else
		json__i64(j, "range", g->range);
	hist_view__group_range(r, g, name, sizeof(name));
	json__string(j, "range_name", name);
	if (g->cls < 0) {
		json__null(j, "class");
		json__null(j, "class_name");
	} else {
		json__string(j, "class", class__token(g->cls));
		json__string(j, "class_name", class__name(g->cls));
	}
	json__u64(j, "count", c->count);
	json__fixed(j, "share", hist__share(c->count, all->count) / 100.0, 6);
	json__u64(j, "events", c->period);
	if (r->period_weighted)
		json__fixed(j, "event_share", hist__share(c->period, all->period) / 100.0, 6);
	else
		json__null(j, "event_share");
	if (!r->has_latency) {
		json__null(j, "measured");
		json__null(j, "unmeasured");
		json__null(j, "sum");
		json__null(j, "mean");
		json__null(j, "min");
		json__null(j, "max");
		json__null(j, "percentiles");
		json__null(j, "buckets");
		goto out;
	}
	json__u64(j, "measured", n);
	json__u64(j, "unmeasured", c->unmeasured);
	json__u64(j, "sum", c->sum);
	if (!n) {
		json__null(j, "mean");
		json__null(j, "min");
		json__null(j, "max");
		json__null(j, "percentiles");
	} else {
		json__fixed(j, "mean", (double)c->sum / (double)n, 3);
		json__u64(j, "min", c->min);
		json__u64(j, "max", c->max);
		json__object_begin(j, "percentiles");
		for (k = 0; k < 3; k++) {
			pv[k] = cell__percentile_floor(c, pcts[k], r->linear_step, &at_least[k]);
			json__fixed(j, pnames[k], pv[k], 1);
		}
		/* those in the open last bucket: their value is a floor (and max a ceiling) */
		json__array_begin(j, "at_least");
		for (k = 0; k < 3; k++)
			if (at_least[k])
				json__string(j, NULL, pnames[k]);
		json__array_end(j);
		json__object_end(j);
	}
	json__array_begin(j, "buckets");
	for (k = 0; k < ldlat_nbuckets(r->linear_step); k++) {
		if (!c->slot[k])
			continue;
		json__object_begin(j, NULL);
		json__u64(j, "low", ldlat_bucket_lo(k, r->linear_step));
		json_u64_or_null(j, "high", ldlat_bucket_hi(k, r->linear_step));
		json__u64(j, "count", c->slot[k]);
		json__object_end(j);
	}
	json__array_end(j);
out:
	json__object_end(j);
}

/* How far a percentile may be from the exact one: relative (log-linear) or in cycles (linear). */
void render_json_percentile_error(struct json *j, __u32 linear_step)
{
	json__object_begin(j, "percentile_error");
	json__string(j, "kind", linear_step ? "cycles" : "relative");
	if (linear_step)
		json__u64(j, "bound", linear_step / 2);
	else
		json__fixed(j, "bound", LDLAT_REL_ERROR, 6);
	json__object_end(j);
}

void render_json_run(struct json *j, const struct run_info *run, const struct source *src,
		     const struct snapshot *s)
{
	json__string(j, "tool", run && run->tool ? run->tool : "ldlat");
	json__fixed(j, "time", ts__seconds(&s->taken), 3);
	json__object_begin(j, "interval");
	json__fixed(j, "start", ts__seconds(&s->since), 3);
	json__fixed(j, "end", ts__seconds(&s->taken), 3);
	json__fixed(j, "seconds", ts__seconds(&s->taken) - ts__seconds(&s->since), 3);
	json__object_end(j);
	json__string(j, "source", source__name(src->kind));
	json__string(j, "event", run && run->event ? run->event : "");
	json__string(j, "target", run && run->target ? run->target : "");
	json__fixed(j, "started", run ? ts__seconds(&run->started) : 0.0, 3);
}

void render_json(FILE *out, const struct hist_view *r, const struct snapshot *s)
{
	int max = hist_view__max_groups(s);
	struct group *groups = calloc((size_t)max, sizeof(*groups));
	const struct run_info *run = r->run;
	struct cell all;
	struct json j;
	int i, n;

	json__init(&j, out);
	json__object_begin(&j, NULL);
	render_json_run(&j, run, r->src, s);
	json__bool(&j, "latency", r->has_latency);
	json__string(&j, "unit", "cycles");
	json__string(&j, "buckets", r->linear_step ? "linear" : "log-linear");
	if (r->linear_step)
		json__u64(&j, "bucket_width", r->linear_step);
	else
		json__null(&j, "bucket_width");
	render_json_percentile_error(&j, r->linear_step);
	json__string(&j, "weighting", r->period_weighted ? "period" : "samples");
	/* without a data source, hist_view__groups groups by range */
	json__string(&j, "by",
		     by_name(!r->has_latency && (r->by == BY_CLASS || r->by == BY_BOTH) ? BY_RANGE
											: r->by));
	json_filters(&j, r);
	render_json_counters(&j, s);
	if (s->by) {
		struct split_use u;

		split__use(s, &u);
		json__object_begin(&j, "split");
		json__string(&j, "key", split__name(s->by));
		json__u64(&j, "rows", u.rows);
		json__u64(&j, "rows_used", u.used);
		json__u64(&j, "others", u.others);
		json__object_end(&j);
	}
	json__array_begin(&j, "histograms");
	n = groups ? hist_view__groups(r, s, groups, max) : 0;
	hist__total(s, &all);
	for (i = 0; i < n; i++)
		json_group(&j, r, &groups[i], &all);
	free(groups);
	json__array_end(&j);
	if (r->loads) {
		json__object_begin(&j, "loads");
		json__string(&j, "event", r->loads->event);
		json__fixed(&j, "count", r->loads->loads, 0);
		json__fixed(&j, "running", r->loads->running, 6);
		json__fixed(&j, "above", r->loads->above, 0);
		if (r->loads->loads > 0 && r->loads->above <= r->loads->loads)
			json__fixed(&j, "fraction", r->loads->above / r->loads->loads, 9);
		else
			json__null(&j, "fraction");
		if (r->loads->loads > 0 && r->loads->above > r->loads->loads)
			json__string(&j, "note", "more than the loads counted: " LOADS_SKEW);
		json__string(&j, "how", r->loads->how);
		json__object_end(&j);
	}
	if (run && run->pin_dir) {
		json__object_begin(&j, "pinned");
		json__string(&j, "dir", run->pin_dir);
		json__i64(&j, "pid", run->pin_pid);
		json__bool(&j, "detached", run->pin_detached);
		json__bool(&j, "owner_dead", run->pin_owner_dead);
		json__i64(&j, "links", run->pin_links);
		json__i64(&j, "links_missing", run->pin_links_missing);
		if (run->cgroup_removed)
			json__string(&j, "cgroup_removed", run->cgroup_removed);
		else
			json__null(&j, "cgroup_removed");
		json__object_end(&j);
	}
	json__object_end(&j);
	json__end_line(&j);
}
