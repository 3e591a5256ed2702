// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ldlat-stat - counting many events at once without lying: groups planned
 * from the CPU's counters, multiplexed and scaled with the error said, or
 * one run per group; events the CPU cannot count listed with the reason.
 */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "user/run/cli.h"
#include "user/run/countermodel.h"
#include "user/run/modes.h"
#include "user/report/output.h"
#include "user/run/run.h"
#include "user/stat/statreport.h"
#include "kernel/policy/counting.h"
#include "kernel/abi/muxint.h"
#include "kernel/policy/muxlock.h"
#include "kernel/lib/util.h"
#include "kernel/lib/notice.h"
#include "user/run/stdfds.h"

#define NAME "ldlat-stat"

/* perf stat's default events */
#define DEFAULT_EVENTS                                                                             \
	"task-clock,context-switches,cpu-migrations,page-faults,cycles,instructions,branches,"     \
	"branch-misses"

/*
 * How often the counts are read in a multiplexed run, for the error
 * estimate; less often when a reading is many read()s (many CPUs x events).
 */
#define READ_TICK	   0.1
#define READ_TICK_SLOW	   1.0
#define READ_TICK_SLOW_FDS 2000

struct stat_args {
	struct cli cli;
	struct output_opts out;
	struct count_spec *specs;
	int nspecs;
	bool all_cache;
	bool plan;
	enum stat_mode mode;
	bool mode_set;
	int mux_ms; /* 0: leave the PMU's interval alone */
};

enum {
	OPT_ALL_CACHE = 0x300,
	OPT_PLAN,
	OPT_MULTIPLEX,
	OPT_PER_GROUP,
	OPT_MUX_INTERVAL,
	OPT_CONFIG,
	OPT_RECOVER,
};

static const char doc[] =
	"Counts events (read(), not sampling): perf's generic hardware, cache and software "
	"events, and the CPU's own events by their vendor names (libpfm4). The events are "
	"planned into groups that fit the CPU's counters (general-purpose and fixed counters, "
	"offcore-response registers, the NMI watchdog's counter); then either the kernel "
	"rotates the groups in one run and every count is scaled and given with the share of "
	"time it ran and an error estimate (--multiplex, the default), or the command runs once "
	"per group (--per-group) and nothing is scaled.\v"
	"Examples:\n"
	"  ldlat-stat -- ./app                          # perf stat's default events\n"
	"  ldlat-stat --all-cache --plan                # the 32 cache events' groups here\n"
	"  ldlat-stat --all-cache --per-group -- ./app  # each group in its own run\n"
	"  ldlat-stat -e L1-dcache-loads,L1-dcache-load-misses -p 1234 -d 10\n"
	"  ldlat-stat -e MEM_INST_RETIRED:ALL_LOADS,LONGEST_LAT_CACHE:MISS -d 5\n"
	"  ldlat-stat -e '{LLC-loads,LLC-load-misses},cpu/event=0xd0,umask=0x81/' -- ./app\n"
	"  ldlat-stat --all-cache --mux-interval 10 -- ./app\n"
	"\n"
	"Exit status: 0, the command's own when it ends the run, 1 when the system fails (or "
	"no event can be counted here), 2 for bad input.";

static const struct argp_option what_options[] = {
	{ NULL, 0, NULL, 0, "What to count:", 1 },
	{ "event", 'e', "LIST", 0,
	  "events in perf's syntax, comma-separated: perf's names (cycles, L1-dcache-load-misses, "
	  "LLC-loads, dTLB-load-misses, page-faults, ...), libpfm4's vendor names "
	  "(MEM_INST_RETIRED:ALL_LOADS), pmu/term=value/, rHEX, and {a,b} for a group that must "
	  "count together; repeat as needed",
	  1 },
	{ "all-cache", OPT_ALL_CACHE, NULL, 0,
	  "every hardware-cache event the kernel defines (cache x op x result: 32)", 1 },
	{ "config", OPT_CONFIG, "FILE", 0,
	  "tools.conf to read this CPU's counters, fixed-counters and offcore-registers from", 1 },
	{},
};

static const struct argp_option how_options[] = {
	{ NULL, 0, NULL, 0, "How:", 5 },
	{ "multiplex", OPT_MULTIPLEX, NULL, 0,
	  "all groups in one run, rotated by the kernel, counts scaled (the default)", 5 },
	{ "per-group", OPT_PER_GROUP, NULL, 0,
	  "run the command once per group (or -d seconds per group), nothing scaled", 5 },
	{ "mux-interval", OPT_MUX_INTERVAL, "MS", 0,
	  "rotate groups every MS milliseconds during the run "
	  "(perf_event_mux_interval_ms of the events' PMUs, put back afterwards; one run at a "
	  "time: it locks " MUXLOCK_PATH ")",
	  5 },
	{},
};

static const struct argp_option plan_options[] = {
	{ NULL, 0, NULL, 0, "How:", 5 },
	{ "plan", OPT_PLAN, NULL, 0,
	  "print the groups, one per line, and why each split was made; count nothing", 5 },
	{},
};

static error_t stat_parse(int key, char *arg, struct argp_state *state)
{
	struct stat_args *a = state->input;
	struct err err = {};
	__u64 v;
	int e;

	switch (key) {
	case 'e':
		e = count_specs__parse(arg, &a->specs, &a->nspecs, &err);
		if (e == -ENOMEM)
			argp_failure(state, EXIT_FAIL, 0, "out of memory");
		if (e)
			argp_error(state, "%s", err.msg);
		break;
	case OPT_ALL_CACHE:
		a->all_cache = true;
		break;
	case OPT_PLAN:
		a->plan = true;
		break;
	case OPT_CONFIG:
		a->cli.config = arg;
		break;
	case OPT_MULTIPLEX:
	case OPT_PER_GROUP:
		if (a->mode_set &&
		    a->mode != (key == OPT_MULTIPLEX ? STAT_MULTIPLEX : STAT_PER_GROUP))
			argp_error(state, "--multiplex and --per-group both given: choose one");
		a->mode = key == OPT_MULTIPLEX ? STAT_MULTIPLEX : STAT_PER_GROUP;
		a->mode_set = true;
		break;
	case OPT_MUX_INTERVAL:
		if (!cli__parse_u64(arg, &v) || !v || v > 60000)
			argp_error(
				state,
				"--mux-interval '%s' is not a number of milliseconds (1 to 60000)",
				arg);
		a->mux_ms = (int)v;
		break;
	case ARGP_KEY_END:
		if (a->mode == STAT_PER_GROUP) {
			if (a->mux_ms)
				argp_error(state, "--mux-interval applies to --multiplex: with "
						  "--per-group nothing is rotated");
			if (a->cli.interval > 0)
				argp_error(state,
					   "-i applies to --multiplex: --per-group counts each "
					   "group in a run of its own");
			if (!a->cli.target.argv && !(a->cli.duration > 0))
				argp_error(state, "--per-group counts each group in turn: give a "
						  "command after -- or -d SECONDS per group");
		}
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp what_argp = { .options = what_options, .parser = stat_parse };
static const struct argp how_argp = { .options = how_options, .parser = stat_parse };
static const struct argp plan_opt_argp = { .options = plan_options, .parser = stat_parse };

static const struct argp_option recover_options[] = {
	{ "recover", OPT_RECOVER, NULL, 0,
	  "put back the multiplexing intervals a run killed before its end left changed", 0 },
	{},
};

static error_t recover_parse(int key, char *arg, struct argp_state *state)
{
	(void)arg;
	(void)state;
	return key == OPT_RECOVER ? 0 : ARGP_ERR_UNKNOWN;
}

static const struct argp recover_argp = {
	.options = recover_options,
	.parser = recover_parse,
	.doc = "Puts back what a run killed before its end (SIGKILL) left changed: the PMUs' "
	       "perf_event_mux_interval_ms, as " MUXLOCK_PATH " records it, where it still reads "
	       "what that run set.  It writes only a PMU's file under the sysfs root "
	       "(/sys/bus/event_source/devices/PMU/perf_event_mux_interval_ms, not a symbolic "
	       "link): a record naming anything else is refused, exit status 2.  Every ldlat-stat "
	       "run as root does the same at its start; this does it alone, and says what it did.",
};

/* Each mode's options, as children; their inputs in stat_args, in the same order. */
static const struct argp_child count_children[] = {
	{ &what_argp, 0, NULL, 0 },
	{ &cli_target_argp, 0, NULL, 0 },
	{ &how_argp, 0, NULL, 0 },
	{ &output_argp, 0, NULL, 0 },
	{},
};

static error_t count_parse(int key, char *arg, struct argp_state *state)
{
	struct stat_args *a = state->input;
	void *const in[] = { a, &a->cli, a, &a->out };
	_Static_assert(ARRAY_SIZE(in) == ARRAY_SIZE(count_children) - 1,
		       "an input per option group");

	(void)arg;
	return modes__children(key, state, in, ARRAY_SIZE(in));
}

static const struct argp count_argp = {
	.parser = count_parse,
	.args_doc = "[-- COMMAND [ARGS...]]",
	.doc = doc,
	.children = count_children,
};

static const struct argp_child plan_children[] = {
	{ &what_argp, 0, NULL, 0 },
	{ &cli_verbose_argp, 0, NULL, 0 },
	{ &plan_opt_argp, 0, NULL, 0 },
	{},
};

static error_t plan_parse(int key, char *arg, struct argp_state *state)
{
	struct stat_args *a = state->input;
	void *const in[] = { a, &a->cli, a };
	_Static_assert(ARRAY_SIZE(in) == ARRAY_SIZE(plan_children) - 1,
		       "an input per option group");

	(void)arg;
	return modes__children(key, state, in, ARRAY_SIZE(in));
}

static const struct argp plan_argp = {
	.parser = plan_parse,
	.doc = "Prints the counter model of this machine and the groups the events are planned "
	       "into, one per line, with why each split was made; opens nothing.",
	.children = plan_children,
};

struct stat_run {
	struct stat_args *args;
	struct counting counting;
	bool counting_init;
	struct run run;
	struct muxlock mux; /* the intervals this run changed, recorded; fd -1: none */
	int mux_ms;
	double start;
	/* -i: the totals at the previous interval */
	struct counting_event *prev;
	double prev_t;
	int reports; /* printed so far */
};

/* Once counting: the events are enabled and the target runs. */
static void say_started(const struct stat_run *s)
{
	const struct counting *c = &s->counting;
	int n = counting__nsupported(c);

	notice__print(stderr, NAME, "counting %d event%s in %d group%s on %s%s. Ctrl-C to end.", n,
		      n == 1 ? "" : "s", c->plan.ngroups, c->plan.ngroups == 1 ? "" : "s",
		      s->run.target_desc,
		      s->args->mode == STAT_PER_GROUP ? ", one run per group" : "");
}

static void render_stat(FILE *f, void *ctx)
{
	const struct stat_report *r = ctx;

	switch (r->out->format) {
	case OUTPUT_TEXT:
		render_stat_text(f, r);
		break;
	case OUTPUT_JSON:
		render_stat_json(f, r);
		break;
	case OUTPUT_OPENMETRICS:
	case OUTPUT_PROMETHEUS:
		render_stat_openmetrics(f, r);
		break;
	}
}

/* One report, to stdout or --output. */
static int emit(struct stat_run *s, struct stat_report *r)
{
	struct err err = {};
	int e;

	r->out = &s->args->out;
	e = output__write(&s->args->out, render_stat, r, s->reports++ > 0, &err);
	if (e)
		notice__print(stderr, NAME, "%s", err.msg);
	return e;
}

static int on_tick(void *ctx)
{
	struct stat_run *s = ctx;
	int e = counting__read(&s->counting, -1);

	if (e)
		fprintf(stderr, NAME ": cannot read the counters: %s\n", strerror(-e));
	return e;
}

/* -i: what the last interval counted. */
static int on_interval(void *ctx)
{
	struct stat_run *s = ctx;
	struct counting view = s->counting;
	struct stat_report r = {
		.c = &view,
		.mode = STAT_MULTIPLEX,
		.target_desc = s->run.target_desc,
		.mux_ms = s->mux_ms,
		.interval = true,
	};
	int i, e = on_tick(s);

	if (e)
		return e;
	view.ev = malloc(view.nev * sizeof(*view.ev));
	if (!view.ev)
		return -ENOMEM;
	r.t = clock__monotonic() - s->start;
	r.elapsed = r.t - s->prev_t;
	for (i = 0; i < view.nev; i++) {
		view.ev[i] = s->counting.ev[i];
		view.ev[i].total = count__sub(&s->counting.ev[i].total, &s->prev[i].total);
		s->prev[i] = s->counting.ev[i];
	}
	s->prev_t = r.t;
	/* OpenMetrics wants totals since the start: Prometheus takes the rates itself */
	if (output__exposition(s->args->out.format)) {
		r.c = &s->counting;
		r.elapsed = r.t;
	}
	e = emit(s, &r);
	free(view.ev);
	return e;
}

/* Notice lines, each on a line of its own in out, after prefix. */
static void print_lines(FILE *out, const char *prefix, const char *lines)
{
	const char *line, *nl;

	for (line = lines; *line; line = nl + 1) {
		nl = strchrnul(line, '\n');
		if (nl > line)
			fprintf(out, "%s%.*s\n", prefix, (int)(nl - line), line);
		if (!*nl)
			break;
	}
}

/* What a run killed before its end had left changed, and this one put back: a line each. */
static void say_recovered(const char *recovered)
{
	print_lines(stderr, NAME ": ", recovered);
}

static int set_mux_interval(struct stat_run *s, struct err *err)
{
	char pmus[MUXINT_MAX_PMUS][64], recovered[1024] = "";
	int i, n, e;

	e = muxlock__take(&s->mux, recovered, sizeof(recovered), err);
	say_recovered(recovered);
	if (e)
		return e;
	n = counting__pmus(&s->counting, pmus, MUXINT_MAX_PMUS);
	for (i = 0; i < n; i++) {
		e = muxlock__set(&s->mux, pmus[i], s->args->mux_ms, err);
		if (e)
			return e;
	}
	if (n && muxint__get(pmus[0], &s->mux_ms))
		s->mux_ms = -1;
	return 0;
}

static int run_multiplexed(struct stat_run *s, enum run_end *end, struct err *err)
{
	char pmus[1][64];
	int e, g, nfds = 0;

	s->mux_ms = -1;
	e = counting__open(&s->counting, -1, &s->run.target, err);
	if (e)
		return e;
	if (s->args->mux_ms) {
		e = set_mux_interval(s, err);
		if (e)
			return e;
	} else if (counting__pmus(&s->counting, pmus, 1) == 1 && muxint__get(pmus[0], &s->mux_ms)) {
		s->mux_ms = -1;
	}
	if (s->args->cli.interval > 0) {
		s->prev = calloc(s->counting.nev, sizeof(*s->prev));
		if (!s->prev)
			return -ENOMEM;
	}
	e = counting__enable(&s->counting, -1);
	if (e) {
		err__msg(err, "cannot enable the counters: %s", strerror(-e));
		return e;
	}
	s->start = clock__monotonic();
	e = run__go(&s->run, err);
	if (e)
		return e;
	say_started(s);
	for (g = 0; g < s->counting.plan.ngroups; g++)
		nfds += s->counting.groups[g].evlist.nfds;
	*end = run__wait(
		&s->run,
		&(struct run_wait){ .on_interval = s->args->cli.interval > 0 ? on_interval : NULL,
				    .on_tick = on_tick,
				    .tick = nfds > READ_TICK_SLOW_FDS ? READ_TICK_SLOW : READ_TICK,
				    .ctx = s });
	counting__disable(&s->counting, -1);
	e = counting__read(&s->counting, -1);
	if (e) {
		err__msg(err, "cannot read the counters: %s", strerror(-e));
		return e;
	}
	return 0;
}

static int run_per_group(struct stat_run *s, enum run_end *end, bool *interrupted, struct err *err)
{
	struct counting *c = &s->counting;
	double t0;
	int g, e;

	for (g = 0; g < c->plan.ngroups; g++) {
		if (g) {
			run__release(&s->run);
			e = run__prepare(&s->run, err);
			if (e)
				return e;
		}
		e = counting__open(c, g, &s->run.target, err);
		if (e)
			return e;
		e = counting__enable(c, g);
		if (e) {
			err__msg(err, "cannot enable the counters: %s", strerror(-e));
			return e;
		}
		t0 = clock__monotonic();
		e = run__go(&s->run, err);
		if (e)
			return e;
		if (!g)
			say_started(s);
		*end = run__wait(&s->run, NULL);
		counting__disable(c, g);
		e = counting__read(c, g);
		c->groups[g].elapsed = clock__monotonic() - t0;
		counting__close(c, g);
		if (e) {
			err__msg(err, "cannot read the counters: %s", strerror(-e));
			return e;
		}
		if (*end == RUN_SIGNAL || *end == RUN_ERROR || *end == RUN_TARGETS) {
			*interrupted = g + 1 < c->plan.ngroups;
			break;
		}
	}
	return 0;
}

/* Every event refused: one sentence per event, and exit 1. */
static int report_nothing_countable(const struct counting *c)
{
	int i;

	fprintf(stderr, NAME ": none of the %d event%s can be counted here:\n", c->nev,
		c->nev == 1 ? "" : "s");
	for (i = 0; i < c->nev; i++)
		notice__print(stderr, NAME, "%s: %s", c->ev[i].spec.name, c->ev[i].reason);
	return EXIT_FAIL;
}

static int stat_main(struct stat_run *s)
{
	struct stat_args *a = s->args;
	struct stat_report r = { .c = &s->counting, .mode = a->mode };
	struct counter_model model;
	enum run_end end = RUN_ERROR;
	bool interrupted = false;
	struct err err = {};
	double t0;
	int e, i, status;

	e = countermodel__build(&model, a->cli.config, &err);
	if (e)
		return err__report(&err, e, NAME, stderr);
	e = counting__init(&s->counting, a->specs, a->nspecs, &model);
	if (e) {
		fprintf(stderr, NAME ": out of memory\n");
		return EXIT_FAIL;
	}
	s->counting_init = true;
	/* a {group} that can never be scheduled is bad input, whatever this machine opens */
	e = counting__plan(&s->counting, &err);
	if (e)
		return err__report(&err, e, NAME, stderr);
	if (a->plan) {
		render_stat_plan(stdout, &s->counting);
		return EXIT_OK;
	}
	e = output__check(&a->out, &err);
	if (e)
		return err__report(&err, e, NAME, stderr);

	e = run__signals(&s->run, &err);
	if (!e)
		e = run__prepare(&s->run, &err);
	if (!e)
		e = counting__probe(&s->counting, &s->run.target, &err);
	if (e)
		return err__report(&err, e, NAME, stderr);
	if (!counting__nsupported(&s->counting))
		return report_nothing_countable(&s->counting);
	for (i = 0; i < s->counting.nev; i++)
		if (s->counting.ev[i].user_only)
			notice__print(
				stderr, NAME,
				"%s counts user space only: this process may not count the "
				"kernel (kernel.perf_event_paranoid >= 2 without CAP_PERFMON)",
				s->counting.ev[i].spec.name);
	e = counting__plan(&s->counting, &err);
	if (e)
		return err__report(&err, e, NAME, stderr);
	if (a->cli.verbose)
		render_stat_plan(stderr, &s->counting);
	t0 = clock__monotonic();
	if (a->mode == STAT_PER_GROUP)
		e = run_per_group(s, &end, &interrupted, &err);
	else
		e = run_multiplexed(s, &end, &err);
	r.elapsed = clock__monotonic() - t0;
	if (e)
		return err__report(&err, e, NAME, stderr);
	status = run__exit_status(&s->run, end);
	if (end == RUN_ERROR)
		return status;
	r.target_desc = s->run.target_desc;
	r.mux_ms = s->mux_ms;
	r.interrupted = interrupted;
	if (a->cli.interval > 0 && end == RUN_COUNT)
		return status;
	if (emit(s, &r))
		return EXIT_FAIL;
	return status;
}

/* Counting, or --plan: the same events, planned the same way. */
static int run_stat(void *input)
{
	struct stat_args *a = input;
	struct stat_run s = { .args = a, .mux.fd = -1 };
	char recovered[1024] = "";
	struct err err = {};
	int status, e;

	if (a->all_cache && count_specs__add_all_cache(&a->specs, &a->nspecs)) {
		fprintf(stderr, NAME ": out of memory\n");
		return EXIT_FAIL;
	}
	if (!a->nspecs) {
		e = count_specs__parse(DEFAULT_EVENTS, &a->specs, &a->nspecs, &err);
		if (e) {
			notice__print(stderr, NAME, "%s", err.msg);
			return EXIT_FAIL;
		}
	}
	/*
	 * a run killed before its end (SIGKILL) left intervals changed: as root,
	 * any run puts them back, so that none reports or keeps a dead run's value
	 */
	e = a->plan || a->mux_ms ? 0 : muxlock__recover(recovered, sizeof(recovered), &err);
	/* not root, or a live run's: not this run's to put back */
	if (e < 0 && e != -EPERM && e != -EBUSY)
		notice__print(stderr, NAME, "warning: %s", err.msg);
	say_recovered(recovered);
	err__clear(&err);
	run__init(&s.run, &a->cli, NAME);
	status = stat_main(&s);
	output__close(&a->out);
	/* the PMUs' intervals go back on every path, Ctrl-C included (a signalfd ended the wait) */
	if (muxlock__release(&s.mux))
		fprintf(stderr,
			NAME ": warning: could not put perf_event_mux_interval_ms back; the next "
			     "run as root puts it back (ldlat-stat recover)\n");
	if (s.counting_init)
		counting__free(&s.counting);
	run__teardown(&s.run);
	free(s.prev);
	return status;
}

/* recover: the exit status; the lines it put back, or that there was nothing to do. */
static int run_recover(void *input)
{
	char recovered[1024] = "";
	struct err err = {};
	int n;

	(void)input;
	n = muxlock__recover(recovered, sizeof(recovered), &err);
	if (n < 0)
		return err__report(&err, n, NAME, stderr);
	print_lines(stdout, "", recovered);
	if (!n && !recovered[0])
		printf("nothing to recover: no run left perf_event_mux_interval_ms changed\n");
	return EXIT_OK;
}

static const struct mode modes[] = {
	{ "count", NULL, NULL, true, "count the events, with the options above", &count_argp,
	  run_stat },
	{ "plan", "plan", NULL, false, "print the groups the events are planned into", &plan_argp,
	  run_stat },
	{ "recover", "recover", NULL, false, "put back what a killed run left changed",
	  &recover_argp, run_recover },
};

static const struct mode_table stat_modes = { NAME, modes, ARRAY_SIZE(modes) };

int main(int argc, char **argv)
{
	struct stat_args args = { .mode = STAT_MULTIPLEX };
	int status;

	stdfds__open(NAME); /* before anything opens a file */
	cli__init(&args.cli);
	status = modes__main(&stat_modes, argc, argv, &args);
	free(args.specs);
	return status;
}
