// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * render_run.c - what every format says about a run besides its histograms:
 * group labels, the filters, the span of time, a pinned set's header.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "user/report/render.h"
#include "kernel/abi/datasrc.h"
#include "kernel/lib/util.h"
#include "kernel/lib/unctrl.h"

void hist_view__group_range(const struct hist_view *r, const struct group *g, char *buf, size_t len)
{
	if (g->range < 0)
		snprintf(buf, len, "all");
	else
		hist_view__range_name(r, g->range, buf, len);
}

const char *hist_group__class(const struct group *g)
{
	return g->cls < 0 ? "all" : class__token(g->cls);
}

static void put_time(char *buf, size_t len, const struct timespec *ts, const char *fmt)
{
	struct tm tm;

	localtime_r(&ts->tv_sec, &tm);
	strftime(buf, len, fmt, &tm);
}

static void put_duration(char *buf, size_t len, double s)
{
	long t = (long)(s + 0.5);

	if (t >= 86400)
		snprintf(buf, len, "%ldd%02ldh%02ldm", t / 86400, t / 3600 % 24, t / 60 % 60);
	else if (t >= 3600)
		snprintf(buf, len, "%ldh%02ldm%02lds", t / 3600, t / 60 % 60, t % 60);
	else if (t >= 60)
		snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
	else
		snprintf(buf, len, "%.1fs", s);
}

static void render_filters(FILE *out, const struct hist_view *r)
{
	const struct ldlat_config *cfg = r->run->cfg;
	char name[600];
	int i, cls, n = 0;

	fprintf(out, "  ranges: ");
	if (!r->ranges->nranges)
		fprintf(out, "every address");
	for (i = 0; i < r->ranges->nranges; i++) {
		hist_view__range_name(r, i, name, sizeof(name));
		fprintf(out, "%s%s", i ? ", " : "", name);
	}
	fputc('\n', out);
	if (!r->has_latency)
		return;
	if (cfg->min_lat && cfg->max_lat != ~0ull)
		fprintf(out, "  latency: %llu to %llu cycles", (unsigned long long)cfg->min_lat,
			(unsigned long long)cfg->max_lat);
	else if (cfg->min_lat)
		fprintf(out, "  latency: at least %llu cycles", (unsigned long long)cfg->min_lat);
	else if (cfg->max_lat != ~0ull)
		fprintf(out, "  latency: at most %llu cycles", (unsigned long long)cfg->max_lat);
	else
		fprintf(out, "  latency: any");
	fprintf(out, "; classes: ");
	if ((cfg->class_mask & LDLAT_ALL_CLASSES) == LDLAT_ALL_CLASSES)
		fprintf(out, "all");
	else
		for (cls = 0; cls < LDLAT_NCLASS; cls++)
			if (cfg->class_mask & (1u << cls))
				fprintf(out, "%s%s", n++ ? "," : "", class__token(cls));
	fprintf(out, "; ops: %s%s%s%s%s\n", cfg->op_mask ? "" : "any",
		cfg->op_mask & PERF_MEM_OP_LOAD ? "load " : "",
		cfg->op_mask & PERF_MEM_OP_STORE ? "store " : "",
		cfg->op_mask & PERF_MEM_OP_PFETCH ? "pfetch " : "",
		cfg->op_mask & PERF_MEM_OP_EXEC ? "exec " : "");
}

void render_links_missing(FILE *out, const struct run_info *run)
{
	char dir[512];

	unctrl__str(dir, sizeof(dir), run->pin_dir ? run->pin_dir : "DIR");
	fprintf(out,
		"%d of the %d links the set pinned %s gone from %s (removed by hand?): an event "
		"whose link is gone samples no more once no process holds it, and the counts "
		"leave it out (ldlat-hist --unpin %s removes the set)",
		run->pin_links_missing, run->pin_links, run->pin_links_missing == 1 ? "is" : "are",
		dir, dir);
}

void render_text_run(FILE *out, const struct hist_view *r, const struct snapshot *s)
{
	const struct run_info *run = r->run;
	char started[64], since[64], taken[64], ago[32], span[32];
	/* named by others (a command, a cgroup, a file): escaped, as the table's cells are */
	char event[512], target[1024], dir[1024], cgroup[1024];

	if (!run)
		return;
	put_time(started, sizeof(started), &run->started, "%Y-%m-%d %H:%M:%S %Z");
	put_duration(ago, sizeof(ago), ts__seconds_between(&run->started, &s->taken));
	unctrl__str(event, sizeof(event), run->event);
	unctrl__str(target, sizeof(target), run->target);
	unctrl__str(dir, sizeof(dir), run->pin_dir ? run->pin_dir : "DIR");
	unctrl__str(cgroup, sizeof(cgroup), run->cgroup_removed ? run->cgroup_removed : "");
	if (run->pin_dir)
		fprintf(out, "pinned set %s: %s on %s\n", dir, event, target);
	else
		fprintf(out, "%s: %s on %s\n", run->tool, event, target);
	fprintf(out, "  started %s (%s ago)", started, ago);
	if (run->pin_dir)
		fprintf(out, " by ldlat-hist PID %d, %s", run->pin_pid,
			run->pin_detached ? "detached" : "in the foreground");
	fputc('\n', out);
	if (run->pin_owner_dead)
		fprintf(out,
			"  warning: PID %d died without removing the set (killed before its end): "
			"its sampling ended with it; the counts are those until then (ldlat-hist "
			"unpin %s removes it)\n",
			run->pin_pid, dir);
	render_filters(out, r);
	if (run->pin_links_missing) {
		fprintf(out, "  warning: ");
		render_links_missing(out, run);
		fputc('\n', out);
	}
	if (run->cgroup_removed)
		fprintf(out,
			"  warning: the cgroup %s has been removed since it was pinned: its events "
			"count nothing any more (ldlat-hist --unpin %s removes the set)\n",
			cgroup, dir);
	put_time(since, sizeof(since), &s->since, "%H:%M:%S");
	put_time(taken, sizeof(taken), &s->taken, "%H:%M:%S");
	put_duration(span, sizeof(span), ts__seconds_between(&s->since, &s->taken));
	fprintf(out, "%s from %s to %s (%s)\n",
		s->since.tv_sec == run->started.tv_sec && s->since.tv_nsec == run->started.tv_nsec
			? "totals"
			: "change",
		since, taken, span);
}
