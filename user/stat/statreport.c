// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "user/report/json.h"
#include "user/report/openmetrics.h"
#include "user/report/output.h"
#include "user/report/table.h"
#include "user/stat/statreport.h"
#include "kernel/abi/evnames.h"
#include "kernel/lib/util.h"
#include "kernel/lib/unctrl.h"

/* The other event of a ratio: its index, or -1. */
static int ratio_partner(const struct counting *c, const struct perf_event_attr *a, int *kind)
{
	unsigned int cache, op, result;

	*kind = 0;
	if (a->type == PERF_TYPE_HW_CACHE &&
	    evname__cache_decode(a->config, &cache, &op, &result) &&
	    result == PERF_COUNT_HW_CACHE_RESULT_MISS) {
		*kind = 1;
		return counting__find(
			c, PERF_TYPE_HW_CACHE,
			evname__cache_config(cache, op, PERF_COUNT_HW_CACHE_RESULT_ACCESS));
	}
	if (a->type != PERF_TYPE_HARDWARE)
		return -1;
	switch (a->config) {
	case PERF_COUNT_HW_CACHE_MISSES:
		*kind = 2;
		return counting__find(c, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES);
	case PERF_COUNT_HW_BRANCH_MISSES:
		*kind = 3;
		return counting__find(c, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS);
	case PERF_COUNT_HW_INSTRUCTIONS:
		*kind = 4;
		return counting__find(c, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	}
	return -1;
}

static bool is_clock(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_TASK_CLOCK || a->config == PERF_COUNT_SW_CPU_CLOCK);
}

static void row__fill(const struct stat_report *r, const struct counting_event *ev,
		      struct stat_row *row)
{
	const struct counting *c = r->c;

	memset(row, 0, sizeof(*row));
	row->name = ev->spec.name;
	row->pfm = ev->spec.pfm;
	row->group = ev->group + 1;
	row->error = 0;
	if (ev->unsupported) {
		row->state = ROW_UNSUPPORTED;
		snprintf(row->reason, sizeof(row->reason), "%s", ev->reason);
		return;
	}
	if (ev->group < 0 || !c->groups[ev->group].counted) {
		row->state = ROW_NOT_COUNTED;
		snprintf(row->reason, sizeof(row->reason),
			 "its group's run did not happen: the runs were interrupted");
		return;
	}
	if (!ev->total.run && !ev->total.ena && r->interval) {
		/*
		 * A task's events are enabled only while it runs: an interval in
		 * which it slept or after it exited counted nothing, which is 0
		 */
		row->state = ROW_COUNTED;
		row->running = 1.0;
		row->msec = is_clock(&ev->spec.attr);
		row->idle = true;
		return;
	}
	if (!ev->total.run) {
		row->state = ROW_NOT_COUNTED;
		snprintf(row->reason, sizeof(row->reason),
			 ev->total.ena ? "enabled, but never on a counter: its group did not fit "
					 "beside the counters others held (the NMI watchdog, "
					 "another tool)"
				       : "the target never ran while it was enabled");
		return;
	}
	row->state = ROW_COUNTED;
	row->raw = ev->total.val;
	row->running = count__running(&ev->total);
	row->msec = is_clock(&ev->spec.attr);
	if (r->mode == STAT_MULTIPLEX) {
		row->value = count__scaled(&ev->total);
		row->scaled = row->running < 1.0;
		row->error = r->interval ? (row->scaled ? -1.0 : 0.0)
					 : count_series__error(&ev->series, &ev->total);
	} else {
		row->value = (double)ev->total.val;
	}
}

static double row__seconds(const struct stat_report *r, const struct counting_event *ev)
{
	if (r->mode == STAT_PER_GROUP && ev->group >= 0 && r->c->groups[ev->group].elapsed > 0)
		return r->c->groups[ev->group].elapsed;
	return r->elapsed;
}

void stat_report__rows(const struct stat_report *r, struct stat_row *rows)
{
	const struct counting *c = r->c;
	const struct counting_event *ev, *other;
	int i, j, kind;
	double secs;

	for (i = 0; i < c->nev; i++)
		row__fill(r, &c->ev[i], &rows[i]);
	for (i = 0; i < c->nev; i++) {
		ev = &c->ev[i];
		if (rows[i].state != ROW_COUNTED)
			continue;
		j = ratio_partner(c, &ev->spec.attr, &kind);
		secs = row__seconds(r, ev);
		if (j >= 0 && rows[j].state == ROW_COUNTED && rows[j].value > 0) {
			other = &c->ev[j];
			rows[i].ratio = rows[i].value / rows[j].value;
			rows[i].ratio_apart =
				r->mode == STAT_PER_GROUP || other->group != ev->group;
			if (kind == 4) {
				snprintf(rows[i].ratio_unit, sizeof(rows[i].ratio_unit),
					 "insn per cycle");
			} else {
				rows[i].ratio *= 100.0;
				rows[i].ratio_pct = true;
				snprintf(rows[i].ratio_unit, sizeof(rows[i].ratio_unit), "of %s",
					 kind == 2   ? "all cache refs"
					 : kind == 3 ? "all branches"
						     : other->spec.name);
			}
		} else if (ev->spec.attr.type == PERF_TYPE_SOFTWARE && secs > 0) {
			if (rows[i].msec) {
				rows[i].ratio = rows[i].value / 1e9 / secs;
				snprintf(rows[i].ratio_unit, sizeof(rows[i].ratio_unit),
					 "CPUs utilized");
			} else {
				rows[i].ratio = rows[i].value / secs;
				snprintf(rows[i].ratio_unit, sizeof(rows[i].ratio_unit), "/sec");
			}
		}
	}
}

/* 1234567 -> "1,234,567" */
static const char *thousands(double v, char *buf, size_t len)
{
	char digits[64];
	size_t n, i, o = 0;

	snprintf(digits, sizeof(digits), "%.0f", v < 0 ? 0 : v);
	n = strlen(digits);
	for (i = 0; i < n && o + 2 < len; i++) {
		buf[o++] = digits[i];
		if ((n - i - 1) % 3 == 0 && i + 1 < n)
			buf[o++] = ',';
	}
	buf[o] = '\0';
	return buf;
}

static const char *ratio_text(const struct stat_row *row, char *buf, size_t len)
{
	double v = row->ratio;
	const char *prefix = "";

	if (!row->ratio_unit[0]) {
		buf[0] = '\0';
		return buf;
	}
	if (!strcmp(row->ratio_unit, "/sec")) {
		if (v >= 1e9) {
			v /= 1e9;
			prefix = "G";
		} else if (v >= 1e6) {
			v /= 1e6;
			prefix = "M";
		} else if (v >= 1e3) {
			v /= 1e3;
			prefix = "K";
		}
		snprintf(buf, len, "# %8.3f %s/sec", v, prefix);
	} else if (row->ratio_pct) {
		snprintf(buf, len, "# %7.2f%% %s%s", v, row->ratio_unit,
			 row->ratio_apart ? " (other group)" : "");
	} else {
		snprintf(buf, len, "# %8.2f %s%s", v, row->ratio_unit,
			 row->ratio_apart ? " (other group)" : "");
	}
	return buf;
}

/* perf stat's columns: the count, the event, a ratio (or why there is no count), a note. */
static const struct table_column stat_columns[] = {
	{ .width = 20, .align = TABLE_RIGHT },
	{ .width = 30, .align = TABLE_LEFT, .sep = "  " },
	{ .align = TABLE_LEFT, .sep = " " },
	/* the share of the time on a counter, set apart at the 90th byte */
	{ .align = TABLE_LEFT, .sep = " ", .stop = 90 },
};
static const struct table stat_table = { stat_columns, ARRAY_SIZE(stat_columns) };

static void render_row(FILE *out, const struct stat_row *row)
{
	char num[64], ratio[160], tail[96] = "";
	struct table_row tr;

	table__row_begin(&tr, out, &stat_table);
	if (row->state != ROW_COUNTED) {
		table__cell(&tr, "%s",
			    row->state == ROW_UNSUPPORTED ? "<not supported>" : "<not counted>");
		table__cell(&tr, "%s", row->name);
		table__cell(&tr, "%s", row->reason);
		table__row_end(&tr);
		return;
	}
	if (row->msec)
		snprintf(num, sizeof(num), "%s.%02d msec",
			 thousands(floor(row->value / 1e6), ratio, sizeof(ratio)),
			 (int)fmod(row->value / 1e4, 100.0));
	else
		thousands(row->value, num, sizeof(num));
	ratio_text(row, ratio, sizeof(ratio));
	if (row->scaled) {
		if (row->error < 0)
			snprintf(tail, sizeof(tail), "(%.2f%%, error unknown)", row->running * 100);
		else
			snprintf(tail, sizeof(tail), "(%.2f%%, ±%.1f%%)", row->running * 100,
				 row->value > 0 ? row->error / row->value * 100 : 0.0);
	} else if (row->running < 1.0) {
		snprintf(tail, sizeof(tail), "(ran %.2f%% of its run: not scaled)",
			 row->running * 100);
	} else if (row->idle) {
		snprintf(tail, sizeof(tail), "(the target did not run in this interval)");
	}
	table__cell(&tr, "%s", num);
	table__cell(&tr, "%s", row->name);
	if (ratio[0] || tail[0])
		table__cell(&tr, "%s", ratio);
	if (tail[0])
		table__cell(&tr, "%s", tail);
	table__row_end(&tr);
}

void render_stat_text(FILE *out, const struct stat_report *r)
{
	const struct counting *c = r->c;
	struct stat_row *rows = calloc(c->nev ? c->nev : 1, sizeof(*rows));
	bool any_scaled = false;
	int i, hw = 0;

	if (!rows)
		return;
	/* software groups never wait for a counter: only hardware groups rotate */
	for (i = 0; i < c->plan.ngroups; i++)
		hw += c->plan.groups[i].kind != EV_SOFTWARE;
	stat_report__rows(r, rows);
	if (r->interval) {
		fprintf(out, "%.3f seconds:\n", r->t);
	} else {
		/* a command's name, escaped as the table's cells are */
		fputs("\n Counter stats for ", out);
		unctrl__fputs(out, r->target_desc);
		if (r->mode == STAT_PER_GROUP)
			fprintf(out, " (one run per group, %d run%s; counts are not scaled):\n\n",
				c->plan.ngroups, c->plan.ngroups == 1 ? "" : "s");
		else if (hw > 1 && r->mux_ms > 0)
			fprintf(out,
				" (%d groups, multiplexed: the kernel rotates them every %d "
				"ms):\n\n",
				c->plan.ngroups, r->mux_ms);
		else if (hw > 1)
			fprintf(out, " (%d groups, multiplexed):\n\n", c->plan.ngroups);
		else if (c->plan.ngroups > 1)
			fprintf(out, " (%d groups):\n\n", c->plan.ngroups);
		else
			fprintf(out, ":\n\n");
	}
	for (i = 0; i < c->nev; i++) {
		render_row(out, &rows[i]);
		any_scaled |= rows[i].scaled;
	}
	if (!r->interval) {
		fprintf(out, "\n%20.3f seconds time elapsed%s\n", r->elapsed,
			r->mode == STAT_PER_GROUP ? " (all runs)" : "");
		if (any_scaled)
			fprintf(out,
				"\n(xx%%): the share of the time the event was on a counter; its "
				"count is scaled by time_enabled/time_running. ±: one standard "
				"error of that estimate, from how much the event's rate varied "
				"between readings.\n");
	}
	free(rows);
}

void render_stat_plan(FILE *out, const struct counting *c)
{
	char spec[4096];
	int i;

	fprintf(out, "# counter model: %s", c->model.label);
	if (c->model.has_pmu)
		fprintf(out,
			", %d general-purpose counters per group, %d fixed, %d offcore-response",
			c->model.gp, c->model.fixed, c->model.offcore);
	fputc('\n', out);
	for (i = 0; i < c->model.nwhy; i++)
		fprintf(out, "#   %s\n", c->model.why[i]);
	fprintf(out,
		"# %d event%s in %d group%s; access and miss counts of a cache stay in one "
		"group, so their ratio is measured over the same time\n",
		counting__nsupported(c), counting__nsupported(c) == 1 ? "" : "s", c->plan.ngroups,
		c->plan.ngroups == 1 ? "" : "s");
	for (i = 0; i < c->plan.ngroups; i++) {
		plan__group_spec(&c->plan, i, c->pin, spec, sizeof(spec));
		fprintf(out, "%s\t# %s\n", spec, c->plan.groups[i].why);
	}
	for (i = 0; i < c->nev; i++)
		if (c->ev[i].unsupported)
			fprintf(out, "# not supported: %s: %s\n", c->ev[i].spec.name,
				c->ev[i].reason);
	for (i = 0; i < c->nev; i++)
		if (c->ev[i].spec.pfm[0])
			fprintf(out,
				"# libpfm4: %s is %s (type %u, config 0x%llx, config1 0x%llx)\n",
				c->ev[i].spec.name, c->ev[i].spec.pfm, c->ev[i].spec.attr.type,
				(unsigned long long)c->ev[i].spec.attr.config,
				(unsigned long long)c->ev[i].spec.attr.config1);
}

static const char *row_state(enum stat_row_state s)
{
	return s == ROW_COUNTED	      ? "counted"
	       : s == ROW_UNSUPPORTED ? "not supported"
				      : "not counted";
}

static void json_exact_or_null(struct json *j, const char *key, bool known, double v)
{
	if (known)
		json__double_exact(j, key, v);
	else
		json__null(j, key);
}

static void json_string_or_null(struct json *j, const char *key, const char *v)
{
	if (v && v[0])
		json__string(j, key, v);
	else
		json__null(j, key);
}

static void json_counter_model(struct json *j, const struct counter_model *m)
{
	json__object_begin(j, "counter_model");
	json__string(j, "label", m->label);
	json__bool(j, "pmu", m->has_pmu);
	json__i64(j, "general_purpose", m->gp);
	json__i64(j, "fixed", m->fixed);
	json__i64(j, "offcore", m->offcore);
	json__bool(j, "nmi_watchdog", m->watchdog);
	if (m->smt < 0)
		json__null(j, "smt");
	else
		json__bool(j, "smt", m->smt);
	json__object_end(j);
}

static void json_groups(struct json *j, const struct counting *c)
{
	int i, k;

	json__array_begin(j, "groups");
	for (i = 0; i < c->plan.ngroups; i++) {
		json__object_begin(j, NULL);
		json__array_begin(j, "events");
		for (k = 0; k < c->plan.groups[i].n; k++)
			json__string(j, NULL, c->pin[c->plan.groups[i].ev[k]].name);
		json__array_end(j);
		json__string(j, "why", c->plan.groups[i].why);
		json__object_end(j);
	}
	json__array_end(j);
}

static void json_row(struct json *j, const struct stat_row *row)
{
	bool counted = row->state == ROW_COUNTED;

	json__object_begin(j, NULL);
	json__string(j, "name", row->name);
	if (row->group > 0)
		json__i64(j, "group", row->group);
	else
		json__null(j, "group");
	json__string(j, "state", row_state(row->state));
	if (counted)
		json__null(j, "reason");
	else
		json__string(j, "reason", row->reason);
	json_exact_or_null(j, "count", counted, row->value);
	if (counted)
		json__u64(j, "raw", row->raw);
	else
		json__null(j, "raw");
	if (row->msec)
		json__string(j, "unit", "ns");
	else
		json__null(j, "unit");
	json_exact_or_null(j, "running", counted, row->running);
	json__bool(j, "scaled", row->scaled);
	json_exact_or_null(j, "error", counted && row->error >= 0, row->error);
	if (counted && row->ratio_unit[0]) {
		json__object_begin(j, "ratio");
		json__double_exact(j, "value", row->ratio);
		json__string(j, "unit", row->ratio_unit);
		json__bool(j, "percent", row->ratio_pct);
		json__bool(j, "other_group", row->ratio_apart);
		json__object_end(j);
	} else {
		json__null(j, "ratio");
	}
	json_string_or_null(j, "libpfm4", row->pfm);
	json__object_end(j);
}

void render_stat_json(FILE *out, const struct stat_report *r)
{
	const struct counting *c = r->c;
	struct stat_row *rows = calloc(c->nev ? c->nev : 1, sizeof(*rows));
	struct json j;
	int i;

	if (!rows)
		return;
	stat_report__rows(r, rows);
	json__init(&j, out);
	json__object_begin(&j, NULL);
	json__string(&j, "tool", "ldlat-stat");
	json__fixed(&j, "time", clock__seconds(CLOCK_REALTIME), 3);
	json__string(&j, "target", r->target_desc);
	json__string(&j, "mode", r->mode == STAT_MULTIPLEX ? "multiplex" : "per-group");
	json__fixed(&j, "seconds", r->elapsed, 6);
	if (r->interval) {
		json__object_begin(&j, "interval");
		json__fixed(&j, "end", r->t, 6);
		json__object_end(&j);
	} else {
		json__null(&j, "interval");
	}
	if (r->mux_ms > 0)
		json__i64(&j, "mux_interval_ms", r->mux_ms);
	else
		json__null(&j, "mux_interval_ms");
	json_counter_model(&j, &c->model);
	json_groups(&j, c);
	json__array_begin(&j, "events");
	for (i = 0; i < c->nev; i++)
		json_row(&j, &rows[i]);
	json__array_end(&j);
	json__object_end(&j);
	json__end_line(&j);
	free(rows);
}

/* target="...",event="...",group="N": a counted event's series */
static void event_labels(const struct om_labels *base, const struct stat_row *row,
			 struct om_labels *l)
{
	*l = *base;
	om_labels__add(l, "event", row->name, OM_VALUE_MAX);
	om_labels__add_int(l, "group", row->group);
}

/* An exposition of the counts, in OpenMetrics or the Prometheus text format (dialect). */
static void render_exposition(FILE *out, const struct stat_report *r, enum om_dialect dialect)
{
	const struct counting *c = r->c;
	struct stat_row *rows = calloc(c->nev ? c->nev : 1, sizeof(*rows));
	struct om_labels base, l;
	int i;

	if (!rows)
		return;
	stat_report__rows(r, rows);
	om_labels__init(&base);
	om_labels__add(&base, "target", r->target_desc, OM_VALUE_MAX);
	om__family(out, "ldlat_stat_events", "gauge",
		   "Event counts since the start; scaled by time_enabled/time_running when the "
		   "kernel multiplexed them (task-clock and cpu-clock in ns).");
	for (i = 0; i < c->nev; i++) {
		if (rows[i].state != ROW_COUNTED)
			continue;
		event_labels(&base, &rows[i], &l);
		om__sample_exact(out, "ldlat_stat_events", &l, rows[i].value);
	}
	om__family(out, "ldlat_stat_running_ratio", "gauge",
		   "The share of the time the event was on a counter.");
	for (i = 0; i < c->nev; i++) {
		if (rows[i].state != ROW_COUNTED)
			continue;
		event_labels(&base, &rows[i], &l);
		om__sample_fixed(out, "ldlat_stat_running_ratio", &l, rows[i].running, 9);
	}
	om__family(out, "ldlat_stat_events_stderr", "gauge",
		   "One standard error of a scaled count, in events (absent when unknown).");
	for (i = 0; i < c->nev; i++) {
		if (rows[i].state != ROW_COUNTED || rows[i].error < 0)
			continue;
		event_labels(&base, &rows[i], &l);
		om__sample_exact(out, "ldlat_stat_events_stderr", &l, rows[i].error);
	}
	om__family(out, "ldlat_stat_counted", "gauge",
		   "Whether the event was counted (1), or could not be opened here or never got a "
		   "counter (0).");
	for (i = 0; i < c->nev; i++) {
		l = base;
		om_labels__add(&l, "event", rows[i].name, OM_VALUE_MAX);
		om_labels__add(&l, "state", row_state(rows[i].state), OM_VALUE_MAX);
		om__sample_u64(out, "ldlat_stat_counted", &l, rows[i].state == ROW_COUNTED);
	}
	om__end(out, dialect);
	free(rows);
}

static void stat_text(FILE *f, const void *report)
{
	render_stat_text(f, report);
}

static void stat_json(FILE *f, const void *report)
{
	render_stat_json(f, report);
}

static void stat_openmetrics(FILE *f, const void *report)
{
	render_exposition(f, report, OM_OPENMETRICS);
}

static void stat_prometheus(FILE *f, const void *report)
{
	render_exposition(f, report, OM_PROMETHEUS);
}

const struct output_formats stat_formats = { "ldlat-stat", .text = stat_text, .json = stat_json,
					     .openmetrics = stat_openmetrics,
					     .prometheus = stat_prometheus };
