// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * render_json.c - a report as one JSON object on one line, so that a run with
 * intervals is JSON Lines.  The schema is documented in README.md ("JSON");
 * tests/json_schema.py checks output against it.
 *
 * Numbers that can exceed 2^53 (addresses) are hex strings; an unbounded
 * limit or an open-ended bucket bound is null.
 */
#include <stdio.h>
#include <string.h>

#include "escape.h"
#include "render.h"
#include "../kernel/datasrc.h"

static void json_u64_or_null(FILE *out, __u64 v)
{
	if (v == ~0ull)
		fputs("null", out);
	else
		fprintf(out, "%llu", (unsigned long long)v);
}

static double ts_seconds(const struct timespec *ts)
{
	return (double)ts->tv_sec + (double)ts->tv_nsec / 1e9;
}

static const char *by_name(enum report_by by)
{
	static const char *const names[] = {"class", "range", "both", "none"};

	return names[by];
}

static void json_filters(FILE *out, const struct report *r)
{
	const struct ldlat_config *cfg = r->run ? r->run->cfg : NULL;
	const struct range_set *set = r->ranges;
	static const struct {
		const char *name;
		__u32 bit;
	} ops[] = {{"load", PERF_MEM_OP_LOAD},
		   {"store", PERF_MEM_OP_STORE},
		   {"pfetch", PERF_MEM_OP_PFETCH},
		   {"exec", PERF_MEM_OP_EXEC}};
	char name[600];
	unsigned int i;
	int k, n;

	fputs("\"filters\":{\"ranges\":[", out);
	for (k = 0; k < set->nranges; k++) {
		report__range_name(r, k, name, sizeof(name));
		fprintf(out, "%s{\"index\":%d,\"name\":", k ? "," : "", k);
		json_string(out, name);
		fputs(",\"spec\":", out);
		json_string(out, set->range[k].text);
		fputs(",\"spans\":[", out);
		for (i = 0, n = 0; i < (unsigned int)set->nspans; i++) {
			if (set->span[i].range != (__u32)k)
				continue;
			fprintf(out, "%s{\"low\":\"0x%llx\",\"high\":\"0x%llx\"}", n++ ? "," : "",
				(unsigned long long)set->span[i].lo,
				(unsigned long long)set->span[i].hi);
		}
		fputs("]}", out);
	}
	fputs("]", out);
	if (!cfg) {
		fputs("}", out);
		return;
	}
	fprintf(out, ",\"min_latency\":%llu,\"max_latency\":", (unsigned long long)cfg->min_lat);
	json_u64_or_null(out, cfg->max_lat);
	if (!r->has_latency) { /* no data source: no class, no op to filter on */
		fputs(",\"classes\":null,\"ops\":null}", out);
		return;
	}
	fputs(",\"classes\":[", out);
	for (k = 0, n = 0; k < LDLAT_NCLASS; k++) {
		if (!(cfg->class_mask & (1u << k)))
			continue;
		fputs(n++ ? "," : "", out);
		json_string(out, class__token(k));
	}
	fputs("],\"ops\":", out);
	if (!cfg->op_mask) {
		fputs("null}", out);
		return;
	}
	fputc('[', out);
	for (i = 0, n = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (cfg->op_mask & ops[i].bit)
			fprintf(out, "%s\"%s\"", n++ ? "," : "", ops[i].name);
	fputs("]}", out);
}

static void json_counters(FILE *out, const struct snapshot *s)
{
	const __u64 *by_verdict = &s->counters.kept;
	int v;

	fprintf(out, "\"counters\":{\"seen\":%llu,\"kept\":%llu,\"dropped\":{",
		(unsigned long long)s->counters.seen, (unsigned long long)s->counters.kept);
	for (v = LDLAT_DROP_MISSING; v < LDLAT_NVERDICTS; v++)
		fprintf(out, "%s\"%s\":%llu", v == LDLAT_DROP_MISSING ? "" : ",", counters__key(v),
			(unsigned long long)by_verdict[v]);
	fprintf(out, "},\"skipped\":%llu}", (unsigned long long)s->recursion_misses);
}

static void json_group(FILE *out, const struct report *r, const struct group *g)
{
	const struct cell *c = &g->sum;
	char name[600];
	int k, n = 0;

	fputs("{\"range\":", out);
	if (g->range < 0)
		fputs("null", out);
	else
		fprintf(out, "%d", g->range);
	fputs(",\"range_name\":", out);
	report__group_range(r, g, name, sizeof(name));
	json_string(out, name);
	fputs(",\"class\":", out);
	if (g->cls < 0) {
		fputs("null,\"class_name\":null", out);
	} else {
		json_string(out, class__token(g->cls));
		fputs(",\"class_name\":", out);
		json_string(out, class__name(g->cls));
	}
	fprintf(out, ",\"count\":%llu", (unsigned long long)c->count);
	if (!r->has_latency) {
		fputs(",\"sum\":null,\"mean\":null,\"percentiles\":null,\"buckets\":null}", out);
		return;
	}
	fprintf(out, ",\"sum\":%llu,\"mean\":%.3f", (unsigned long long)c->sum,
		c->count ? (double)c->sum / (double)c->count : 0.0);
	fprintf(out, ",\"percentiles\":{\"p50\":%.1f,\"p90\":%.1f,\"p99\":%.1f}",
		cell__percentile(c, 50, r->linear_step), cell__percentile(c, 90, r->linear_step),
		cell__percentile(c, 99, r->linear_step));
	fputs(",\"buckets\":[", out);
	for (k = 0; k < LDLAT_NBUCKETS; k++) {
		if (!c->slot[k])
			continue;
		fprintf(out, "%s{\"low\":%llu,\"high\":", n++ ? "," : "",
			(unsigned long long)ldlat_bucket_lo(k, r->linear_step));
		json_u64_or_null(out, ldlat_bucket_hi(k, r->linear_step));
		fprintf(out, ",\"count\":%llu}", (unsigned long long)c->slot[k]);
	}
	fputs("]}", out);
}

void render_json(FILE *out, const struct report *r, const struct snapshot *s)
{
	struct group groups[LDLAT_MAX_RANGES * LDLAT_NCLASS];
	const struct run_info *run = r->run;
	int i, n;

	fputs("{\"tool\":", out);
	json_string(out, run && run->tool ? run->tool : "ldlat");
	fprintf(out, ",\"time\":%.3f,\"interval\":{\"start\":%.3f,\"end\":%.3f,\"seconds\":%.3f}",
		ts_seconds(&s->taken), ts_seconds(&s->since), ts_seconds(&s->taken),
		ts_seconds(&s->taken) - ts_seconds(&s->since));
	fputs(",\"source\":", out);
	json_string(out, source__name(r->src->kind));
	fputs(",\"event\":", out);
	json_string(out, run && run->event ? run->event : "");
	fputs(",\"target\":", out);
	json_string(out, run && run->target ? run->target : "");
	fprintf(out, ",\"started\":%.3f", run ? ts_seconds(&run->started) : 0.0);
	fprintf(out, ",\"latency\":%s,\"unit\":\"cycles\",\"buckets\":\"%s\",\"bucket_width\":",
		r->has_latency ? "true" : "false", r->linear_step ? "linear" : "log2");
	if (r->linear_step)
		fprintf(out, "%u", r->linear_step);
	else
		fputs("null", out);
	/* without a data source, report__groups groups by range */
	fprintf(out, ",\"by\":\"%s\",",
		by_name(!r->has_latency && (r->by == BY_CLASS || r->by == BY_BOTH) ? BY_RANGE
										   : r->by));
	json_filters(out, r);
	fputc(',', out);
	json_counters(out, s);
	fputs(",\"histograms\":[", out);
	n = report__groups(r, s, groups, LDLAT_MAX_RANGES * LDLAT_NCLASS);
	for (i = 0; i < n; i++) {
		fputs(i ? "," : "", out);
		json_group(out, r, &groups[i]);
	}
	fputs("]", out);
	if (r->loads) {
		fputs(",\"loads\":{\"event\":", out);
		json_string(out, r->loads->event);
		fprintf(out, ",\"count\":%.0f,\"running\":%.6f,\"above\":%.0f,\"fraction\":", r->loads->loads,
			r->loads->running, r->loads->above);
		if (r->loads->loads > 0)
			fprintf(out, "%.9f", r->loads->above / r->loads->loads);
		else
			fputs("null", out);
		fputs(",\"how\":", out);
		json_string(out, r->loads->how);
		fputc('}', out);
	}
	if (run && run->pin_dir) {
		fputs(",\"pinned\":{\"dir\":", out);
		json_string(out, run->pin_dir);
		fprintf(out, ",\"pid\":%d,\"detached\":%s,\"cgroup_removed\":", run->pin_pid,
			run->pin_detached ? "true" : "false");
		if (run->cgroup_removed)
			json_string(out, run->cgroup_removed);
		else
			fputs("null", out);
		fputc('}', out);
	}
	fputs("}\n", out);
	fflush(out);
}
