// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ldlat-stat - counting many events at once without lying: groups planned
 * from the CPU's counters, multiplexed and scaled with the error said, or
 * one run per group; events the CPU cannot count listed with the reason.
 */
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
	struct count_spec *specs;
	int nspecs;
	bool all_cache;
	bool plan;
	enum stat_mode mode;
	bool mode_set;
	int mux_ms; /* 0: leave the PMU's interval alone */
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

static int parse_events(void *base, const char *arg, struct err *err)
{
	struct stat_args *a = base;
	int e = count_specs__parse(arg, &a->specs, &a->nspecs, err);

	/* whatever else refused it, the list is the user's */
	if (e == -ENOMEM)
		return err__set(err, e, "out of memory");
	return e ? -EINVAL : 0;
}

/* --multiplex and --per-group: one of them */
static int parse_mode(struct stat_args *a, enum stat_mode mode, struct err *err)
{
	if (a->mode_set && a->mode != mode)
		return err__set(err, -EINVAL, "--multiplex and --per-group both given: choose one");
	a->mode = mode;
	a->mode_set = true;
	return 0;
}

static int parse_multiplex(void *base, const char *arg, struct err *err)
{
	(void)arg;
	return parse_mode(base, STAT_MULTIPLEX, err);
}

static int parse_per_group(void *base, const char *arg, struct err *err)
{
	(void)arg;
	return parse_mode(base, STAT_PER_GROUP, err);
}

/* What only the options together tell. */
static int stat_check(void *base, struct err *err)
{
	const struct stat_args *a = base;

	if (a->mode != STAT_PER_GROUP)
		return 0;
	if (a->mux_ms)
		return err__set(
			err, -EINVAL,
			"--mux-interval applies to --multiplex: with --per-group nothing is "
			"rotated");
	if (a->cli.interval > 0)
		return err__set(err, -EINVAL,
				"-i applies to --multiplex: --per-group counts each group in a run "
				"of its own");
	if (!a->cli.target.argv && !(a->cli.duration > 0))
		return err__set(
			err, -EINVAL,
			"--per-group counts each group in turn: give a command after -- or -d "
			"SECONDS per group");
	return 0;
}

static const struct opt what_options[] = {
	{ "event", 'e', "LIST", 0,
	  "events in perf's syntax, comma-separated: perf's names (cycles, L1-dcache-load-misses, "
	  "LLC-loads, dTLB-load-misses, page-faults, ...), libpfm4's vendor names "
	  "(MEM_INST_RETIRED:ALL_LOADS), pmu/term=value/, rHEX, and {a,b} for a group that must "
	  "count together; repeat as needed",
	  OPT_PARSE, .parse = parse_events },
	{ "all-cache", 0, NULL, 0,
	  "every hardware-cache event the kernel defines (cache x op x result: 32)", OPT_FLAG,
	  OPT_TO(struct stat_args, all_cache) },
	{ "config", 0, "FILE", 0,
	  "tools.conf to read this CPU's counters, fixed-counters and offcore-registers from",
	  OPT_TEXT, OPT_TO(struct stat_args, cli.config) },
	{},
};

static const struct opt how_options[] = {
	{ "multiplex", 0, NULL, 0,
	  "all groups in one run, rotated by the kernel, counts scaled (the default)", OPT_PARSE,
	  .parse = parse_multiplex },
	{ "per-group", 0, NULL, 0,
	  "run the command once per group (or -d seconds per group), nothing scaled", OPT_PARSE,
	  .parse = parse_per_group },
	{ "mux-interval", 0, "MS", 0,
	  "rotate groups every MS milliseconds during the run "
	  "(perf_event_mux_interval_ms of the events' PMUs, put back afterwards; one run at a "
	  "time: it locks " MUXLOCK_PATH ")",
	  OPT_NUMBER, OPT_TO(struct stat_args, mux_ms), .min = 1, .max = 60000,
	  .what = "a number of milliseconds (1 to 60000)" },
	{},
};

static const struct opt plan_options[] = {
	{ "plan", 0, NULL, 0,
	  "print the groups, one per line, and why each split was made; count nothing", OPT_FLAG,
	  OPT_TO(struct stat_args, plan) },
	{},
};

static const struct opt recover_options[] = {
	{ "recover", 0, NULL, 0,
	  "put back the multiplexing intervals a run killed before its end left changed",
	  OPT_FLAG },
	{},
};

static const struct opt_group what_opts = { 1, "What to count:", what_options,
					    .check = stat_check };
static const struct opt_group how_opts = { 5, "How:", how_options, .check = stat_check };
static const struct opt_group plan_opts = { 5, "How:", plan_options, .check = stat_check };
static const struct opt_group recover_opts = { 0, NULL, recover_options };

/* Each mode's options */
static const struct opt_group *const count_opts[] = { &what_opts, &cli_target_opts, &how_opts,
						      &cli_output_opts, NULL };

static const struct opt_group *const planning_opts[] = { &what_opts, &cli_verbose_opts, &plan_opts,
							 NULL };

static const struct opt_group *const recovering_opts[] = { &recover_opts, NULL };

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

/* One report, to stdout or --output. */
static int stat_write(struct stat_run *s, struct stat_report *r)
{
	struct err err = {};
	int e = output__write(&s->args->cli.out, r, s->reports++ > 0, &err);

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
	if (output__totals(&s->args->cli.out)) {
		r.c = &s->counting;
		r.elapsed = r.t;
	}
	e = stat_write(s, &r);
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
static int say_nothing_countable(const struct counting *c)
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
	e = output__check(&a->cli.out, &err);
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
		return say_nothing_countable(&s->counting);
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
	if (stat_write(s, &r))
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
	output__close(&a->cli.out);
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
	{ "count", NULL, NULL, true, "count the events, with the options above", count_opts,
	  "[-- COMMAND [ARGS...]]", doc, run_stat },
	{ "plan", "plan", NULL, false, "print the groups the events are planned into",
	  planning_opts, NULL,
	  "Prints the counter model of this machine and the groups the events are planned into, "
	  "one per line, with why each split was made; opens nothing.",
	  run_stat },
	{ "recover", "recover", NULL, false, "put back what a killed run left changed",
	  recovering_opts, NULL,
	  "Puts back what a run killed before its end (SIGKILL) left changed: the PMUs' "
	  "perf_event_mux_interval_ms, as " MUXLOCK_PATH " records it, where it still reads what "
	  "that run set.  It writes only a PMU's file under the sysfs root "
	  "(/sys/bus/event_source/devices/PMU/perf_event_mux_interval_ms, not a symbolic link): a "
	  "record naming anything else is refused, exit status 2.  Every ldlat-stat run as root "
	  "does the same at its start; this does it alone, and says what it did.",
	  run_recover },
};

/* Where the arguments hold the structs of the shared option groups */
static const struct opt_place places[] = {
	{ &cli_home, offsetof(struct stat_args, cli) },
	{},
};

static const struct mode_table stat_modes = { NAME, modes, ARRAY_SIZE(modes), places };

int main(int argc, char **argv)
{
	struct stat_args args = { .mode = STAT_MULTIPLEX };
	int status;

	stdfds__open(NAME); /* before anything opens a file */
	cli__init(&args.cli);
	args.cli.out.formats = &stat_formats;
	status = modes__main(&stat_modes, argc, argv, &args);
	free(args.specs);
	return status;
}
