// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ldlat-hist - load-latency histograms per data source, built in the kernel.
 */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "listevents.h"
#include "render.h"
#include "tool.h"

struct hist_args {
	struct cli cli;
	enum report_by by;
	bool by_set;
	__u32 linear_step;
};

enum {
	OPT_BY = 0x200,
	OPT_LINEAR,
};

static const char doc[] =
	"Histograms of memory load latency per data source (L1, L2, L3, local or remote RAM, "
	"another core's modified line), built in the kernel by a BPF program on the CPU's "
	"load-latency event; no sample is copied to user space.\v"
	"Examples:\n"
	"  ldlat-hist                          # whole machine until Ctrl-C\n"
	"  ldlat-hist -d 10 -i 1               # 10 seconds, a histogram every second\n"
	"  ldlat-hist -p 1234 -a '[heap]'      # loads of PID 1234 from its heap\n"
	"  ldlat-hist -G system.slice/db.service -s hitm,remote-ram\n"
	"  ldlat-hist --min-lat 100 -- ./app   # loads of 100 cycles and more\n"
	"  ldlat-hist --source page-faults -a 0x7f0000000000+1G -- ./app\n"
	"  ldlat-hist --source auto --by range -a 0x1000-0x2000 -a '[stack]' -- ./app\n"
	"\n"
	"Latency is in core cycles, from dispatch to data available (use latency). "
	"Exit status: 0, the command's own when it ends the run, 1 when the system fails, "
	"2 for bad input.";

static const struct argp_option options[] = {
	{ NULL, 0, NULL, 0, "Output:", 5 },
	{ "by", OPT_BY, "KEY", 0,
	  "one histogram per class (default), range, both (each range and class), or none", 5 },
	{ "linear", OPT_LINEAR, "STEP", 0, "linear buckets STEP cycles wide (the last one open)", 5 },
	{},
};

static error_t hist_parse(int key, char *arg, struct argp_state *state)
{
	struct hist_args *a = state->input;
	__u64 v;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &a->cli;
		break;
	case OPT_BY:
		a->by_set = true;
		if (!strcmp(arg, "class"))
			a->by = BY_CLASS;
		else if (!strcmp(arg, "range"))
			a->by = BY_RANGE;
		else if (!strcmp(arg, "both"))
			a->by = BY_BOTH;
		else if (!strcmp(arg, "none"))
			a->by = BY_NONE;
		else
			argp_error(state, "--by '%s': expected class, range, both or none", arg);
		break;
	case OPT_LINEAR:
		if (!cli__parse_u64(arg, &v) || !v || v > 0xffffffffu)
			argp_error(state, "--linear '%s' is not a bucket width in cycles (1 to 2^32-1)",
				   arg);
		a->linear_step = (__u32)v;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = {
	{ &cli_argp, 0, NULL, 0 },
	{},
};

static const struct argp argp = {
	.options = options,
	.parser = hist_parse,
	.args_doc = "[-- COMMAND [ARGS...]]",
	.doc = doc,
	.children = children,
};

struct printer {
	struct tool *tool;
	struct report report;
	struct snapshot cur, prev, out;
	int printed;
	bool final;
};

/* Prints what happened since the previous print. */
static int print_interval(void *ctx)
{
	struct printer *p = ctx;
	int e = session__read(&p->tool->session, &p->cur);

	if (e) {
		fprintf(stderr, "ldlat-hist: cannot read the maps: %s\n", strerror(-e));
		return e;
	}
	snapshot__delta(&p->out, &p->cur, &p->prev);
	/* the tail of a run that ended right after a tick has nothing to say */
	if (p->printed && p->final && !p->out.counters.seen)
		return 0;
	if (p->printed)
		fputc('\n', stdout);
	render_text(stdout, &p->report, &p->out);
	snapshot__copy(&p->prev, &p->cur);
	p->printed++;
	return 0;
}

/*
 * --loads: the share of all loads the samples stand for.  With a fixed period
 * each sample stands for period events; in frequency mode the period varies,
 * and the sampling event's own count is the sum of the periods.
 */
static int print_loads(const struct tool *tool, const struct snapshot *s)
{
	const struct perf_event_attr *a = &tool->evlist.evsel[0].attr;
	__u64 samples = s->counters.seen + s->recursion_misses, count;
	char what[96], how[160];
	double above;

	if (tool__sampled_count(tool, &count)) {
		fprintf(stderr, "ldlat-hist: cannot read the sampling events' count\n");
		return -1;
	}
	if (tool->src.kind == SOURCE_LDLAT)
		snprintf(what, sizeof(what), "at or above the threshold");
	else
		snprintf(what, sizeof(what), "sampled %s", source__name(tool->src.kind));
	if (!a->freq) {
		above = (double)samples * (double)a->sample_period;
		snprintf(how, sizeof(how), "%llu samples x period %llu; the event counted %llu",
			 (unsigned long long)samples, (unsigned long long)a->sample_period,
			 (unsigned long long)count);
	} else {
		above = (double)count;
		snprintf(how, sizeof(how),
			 "the sampling event's count: %llu samples at %llu Hz, the period varies",
			 (unsigned long long)samples, (unsigned long long)a->sample_freq);
	}
	loads__render(stdout, &tool->loads, what, above, how);
	return 0;
}

int main(int argc, char **argv)
{
	struct hist_args args = {};
	struct printer p = {};
	struct tool tool;
	enum run_end end;
	char err[2048];
	int e, status;

	argp_err_exit_status = EXIT_USAGE;
	cli__init(&args.cli);
	if (argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, &args))
		return EXIT_USAGE;
	if (args.cli.list_events)
		return list_events(stdout, &args.cli, "ldlat-hist");

	e = tool__start(&tool, &args.cli, "ldlat-hist", args.linear_step, 0, err, sizeof(err));
	if (e) {
		fprintf(stderr, "ldlat-hist: %s\n", err);
		tool__teardown(&tool);
		return cli__exit_status(e);
	}
	p.tool = &tool;
	p.report = (struct report){
		.src = &tool.src,
		.ranges = &args.cli.ranges,
		.by = args.by_set ? args.by : (tool.src.fields & LDLAT_HAS_LAT ? BY_CLASS : BY_RANGE),
		.linear_step = args.linear_step,
		.has_latency = tool.src.fields & LDLAT_HAS_LAT,
		.intervals = args.cli.interval > 0,
	};
	if (snapshot__init(&p.cur, tool.cfg.nranges) || snapshot__init(&p.prev, tool.cfg.nranges) ||
	    snapshot__init(&p.out, tool.cfg.nranges)) {
		fprintf(stderr, "ldlat-hist: out of memory\n");
		status = EXIT_FAIL;
		goto out;
	}
	fprintf(stderr, "ldlat-hist: sampling %s on %s%s. Ctrl-C to end.\n",
		tool.evlist.evsel[0].name, tool.run.target_desc,
		tool.evlist.nevsel > 1 ? " (and the other core types' events)" : "");

	end = tool__wait(&tool, args.cli.interval > 0 ? print_interval : NULL, &p);
	tool__stop_sampling(&tool);
	status = tool__exit_status(&tool, end);
	if (end == RUN_ERROR)
		goto out;
	/* the last (partial) interval, or the whole run */
	p.final = true;
	if (end != RUN_COUNT && print_interval(&p))
		status = EXIT_FAIL;
	if (tool.loads.active && print_loads(&tool, &p.cur))
		status = EXIT_FAIL;
out:
	snapshot__free(&p.cur);
	snapshot__free(&p.prev);
	snapshot__free(&p.out);
	tool__teardown(&tool);
	return status;
}
