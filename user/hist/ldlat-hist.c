// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ldlat-hist - load-latency histograms per data source, built in the kernel.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "user/run/cli.h"
#include "user/run/listevents.h"
#include "user/run/modes.h"
#include "user/offline/offline.h"
#include "user/report/output.h"
#include "user/hist/pincmd.h"
#include "user/report/printer.h"
#include "user/report/render.h"
#include "user/run/signals.h"
#include "user/run/tool.h"
#include "user/hist/histprog.h"
#include "kernel/abi/cpufreq.h"
#include "kernel/lib/util.h"
#include "kernel/lib/notice.h"
#include "user/run/stdfds.h"
#include <bpf/libbpf.h>

struct hist_args {
	struct cli cli;
	struct pin_opts pin;
	enum hist_by by;
	bool by_set;
	__u32 split;	  /* --by pid|tid|cpu|node|cgroup: enum ldlat_by */
	__u32 split_keys; /* --by-keys: rows for pid, tid and cgroup keys */
	__u32 linear_step;
	bool unit_ns; /* --unit ns */
};

/* --by pid, tid, cgroup: rows for that many keys unless --by-keys says otherwise */
#define HIST_BY_KEYS 16

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
	"  ldlat-hist -G system.slice/db.service --pin /sys/fs/bpf/ldlat/db --detach\n"
	"  ldlat-hist --show /sys/fs/bpf/ldlat/db --delta   # the change since the last --delta\n"
	"  ldlat-hist --show /sys/fs/bpf/ldlat/db --format prometheus --allow-missing \\\n"
	"      --output /var/lib/prometheus/node-exporter/ldlat-db.prom\n"
	"  ldlat-hist --unpin /sys/fs/bpf/ldlat/db\n"
	"  ldlat-hist -G db --by pid --pin /sys/fs/bpf/ldlat/db-pids --detach\n"
	"  ldlat-hist --input perf.data -s ram # what perf mem record saw; no root\n"
	"  ldlat-hist --input perf.data --by cpu  # recorded with -a or --sample-cpu\n"
	"\n"
	"Latency is in core cycles, from dispatch to data available (use latency). "
	"Exit status: 0, the command's own when it ends the run, 1 when the system fails, "
	"2 for bad input.";

/* --by's keys: the histograms' grouping (column 0) and the kernel's split (column 1) */
static const struct opt_word by_keys[] = {
	{ "class", BY_CLASS, 0 },
	{ "range", BY_RANGE, 0 },
	{ "both", BY_BOTH, 0 },
	{ "none", BY_NONE, 0 },
	{ "pid", LDLAT_BY_PID, 1 },
	{ "tid", LDLAT_BY_TID, 1 },
	{ "cpu", LDLAT_BY_CPU, 1 },
	{ "node", LDLAT_BY_NODE, 1 },
	{ "cgroup", LDLAT_BY_CGROUP, 1 },
	{ "region", LDLAT_BY_REGION, 1 },
	{},
};

static const struct opt_word units[] = { { "cycles", 0 }, { "ns", 1 }, {} };

static const struct opt by_options[] = {
	{ "by", 0, "KEY[,KEY]", 0,
	  "one histogram per class (default), range, both (each range and class), or none; "
	  "and split by pid, tid, cpu, node, cgroup or memory region in the kernel (--by "
	  "pid,class), kept by a pinned set (--show prints its own split), or from the keys "
	  "a recording holds (--input)",
	  OPT_KEYS, OPT_TO(struct hist_args, by), OPT_SETS(struct hist_args, by_set),
	  OPT_TO2(struct hist_args, split), .words = by_keys },
	{ "by-keys", 0, "N", 0,
	  "--by pid, tid or cgroup: rows for N keys (default 16, at most 256); the samples of "
	  "further keys are counted in an others row",
	  OPT_NUMBER, OPT_TO(struct hist_args, split_keys), .min = 1, .max = LDLAT_BY_MAX_KEYS,
	  .what = "a number of keys (1 to %llu)" },
	{},
};

/* not --show's: the buckets of a pinned set are its own */
static const struct opt linear_options[] = {
	{ "linear", 0, "STEP", 0, "linear buckets STEP cycles wide (the last one open)", OPT_NUMBER,
	  OPT_TO(struct hist_args, linear_step), .min = 1,
	  .what = "a bucket width in cycles (1 to 2^32-1)" },
	{ "unit", 0, "UNIT", 0,
	  "cycles (default) or ns: latency in nanoseconds, approximate (cycles at this "
	  "machine's nominal CPU frequency; turbo and power saving change the real clock); "
	  "text output only",
	  OPT_WORD, OPT_TO(struct hist_args, unit_ns), .words = units },
	{},
};

static const struct opt_group by_opts = { 5, "Output:", by_options };
static const struct opt_group linear_opts = { 5, NULL, linear_options };

/* Each mode's options */
static const struct opt_group *const sample_opts[] = {
	&cli_sample_opts, &cli_loads_opts,  &by_opts, &linear_opts,
	&cli_output_opts, &pin_sample_opts, NULL
};

static const struct opt_group *const show_opts[] = { &cli_when_opts,   &cli_verbose_opts, &by_opts,
						     &cli_output_opts, &pin_show_opts,	  NULL };

static const struct opt_group *const unpin_opts[] = { &pin_unpin_opts, &cli_verbose_opts, NULL };

static const struct opt_group *const input_opts[] = { &cli_offline_opts, &by_opts, &linear_opts,
						      &cli_output_opts, NULL };

static const struct opt_group *const list_events_opts[] = { &cli_list_opts, NULL };

/* --pin: the set is ready before the events are; on --detach, leave it sampling. */
static int pin_run(struct tool *tool, struct session_prog *prog, struct pinset *ps,
		   const struct hist_args *args, const struct timespec *started, struct err *err)
{
	struct ldlat_pin_meta meta;
	int i, e;

	for (i = 0; args->pin.detach && i < tool->evlist.nevsel; i++) {
		if (!tool->evlist.evsel[i].has_leader)
			continue;
		err__msg(
			err,
			"--detach: %s needs its group leader %s, which a pinned link does not keep "
			"open; run with --pin but without --detach",
			tool->evlist.evsel[i].name, tool->evlist.evsel[i].leader_name);
		return -ENOTSUP;
	}
	e = pinset__mount(ps, err);
	if (e)
		return e;
	pin_meta__fill(&meta, tool, &prog->s, started, args->pin.detach);
	e = pinset__pin(ps, &prog->s, &prog->p, &tool->evlist, &meta, err);
	if (e || !args->pin.detach)
		return e;
	pinset__detach(ps, &prog->p, &tool->evlist);
	notice__print(stderr, "ldlat-hist",
		      "pinned in %s: sampling %s on %s goes on. Read it with ldlat-hist --show "
		      "%s; stop it with ldlat-hist --unpin %s",
		      ps->dir, tool->evlist.evsel[0].name, tool->run.target_desc, ps->dir, ps->dir);
	return 0;
}

/*
 * --loads: the share of all loads the samples stand for.  With a fixed period
 * each sample stands for period events; in frequency mode the period varies,
 * and the sampling event's own count is the sum of the periods.  Each report
 * covers the same span for both: the loads counter and the sampling events'
 * count are read right after the maps, and an interval's report takes the
 * difference from the previous one.
 */
struct hist_loads {
	struct tool *tool;
	char what[96], how[160];
	struct loads_share share;
	struct count loads, loads_prev; /* the counter at the last read, at the last report */
	__u64 count, count_prev;	/* the sampling events' count, the same */
};

/* The printer's read: the maps, then the two counts. */
static int hist_loads_read(void *src, struct snapshot *snap, struct err *err)
{
	struct hist_loads *h = src;
	int e = tool__read_maps(h->tool, snap, err);

	if (e)
		return e;
	e = loads__read(&h->tool->loads);
	if (!e)
		e = tool__sampled_count(h->tool, &h->count);
	if (e)
		return err__set(err, e, "cannot read the --loads counter: %s", strerror(-e));
	h->loads = h->tool->loads.total;
	return 0;
}

/* printer_ops.write: the report of delta, with the loads of the same span. */
static int hist_loads_write(struct printer *p, void *ctx, struct err *err)
{
	struct hist_loads *h = ctx;
	const struct perf_event_attr *a = &h->tool->evlist.evsel[0].attr;
	const struct snapshot *d = &p->delta;
	__u64 samples = d->counters.seen + unseen__samples(&d->unseen);
	__u64 count = h->count - h->count_prev;
	struct count loads = count__sub(&h->loads, &h->loads_prev);
	double above;
	int e;

	if (h->tool->src.kind == SOURCE_LDLAT)
		snprintf(h->what, sizeof(h->what), "at or above the threshold");
	else
		snprintf(h->what, sizeof(h->what), "sampled %s", source__name(h->tool->src.kind));
	if (!a->freq) {
		above = (double)samples * (double)a->sample_period;
		snprintf(h->how, sizeof(h->how),
			 "%llu samples x period %llu; the event counted %llu",
			 (unsigned long long)samples, (unsigned long long)a->sample_period,
			 (unsigned long long)count);
	} else {
		above = (double)count;
		snprintf(h->how, sizeof(h->how),
			 "the sampling event's count: %llu samples at %llu Hz, the period varies",
			 (unsigned long long)samples, (unsigned long long)a->sample_freq);
	}
	loads__share(&h->tool->loads, &loads, h->what, above, h->how, &h->share);
	e = printer__write(p, err);
	if (!e) {
		h->loads_prev = h->loads;
		h->count_prev = h->count;
	}
	return e;
}

/* Where each kind of run's reports come from: a live session, one with --loads, a file. */
static const struct printer_ops sample_ops = { .read = tool__read_maps };
static const struct printer_ops loads_ops = { .read = hist_loads_read, .write = hist_loads_write };
static const struct printer_ops input_ops = { .read = offline__read };

/* The histograms' report of a run whose samples carry src's fields. */
/*
 * --unit ns: the nominal frequency of this machine's CPU, in the report.
 * Refused where it cannot mean anything: no frequency known, samples without
 * latency, or a format other than text (whose units are fixed: cycles).
 */
static int hist_unit(const struct hist_args *args, const struct source *src, struct hist_view *r,
		     struct err *err)
{
	static char why[128];
	__u64 khz;

	if (!args->unit_ns)
		return 0;
	if (!output__text(&args->cli.out))
		return err__set(err, -EINVAL,
				"--unit ns applies to the text report; JSON and OpenMetrics keep "
				"cycles");
	if (!(src->fields & LDLAT_HAS_LAT))
		return err__set(err, -EINVAL, "--unit ns: %s samples carry no latency to convert",
				source__name(src->kind));
	if (cpufreq__nominal_khz(&khz, why, sizeof(why)))
		return err__set(err, -EINVAL,
				"--unit ns: this machine does not say its CPU's nominal frequency "
				"(no cpufreq base_frequency, no GHz in /proc/cpuinfo's model "
				"name): latency stays in cycles");
	r->ns_per_cycle = 1e6 / (double)khz;
	r->ns_why = why;
	return 0;
}

static struct hist_view hist_view_of(const struct hist_args *args, const struct run_info *run,
				     const struct source *src)
{
	return (struct hist_view){
		.run = run,
		.src = src,
		.ranges = &args->cli.ranges,
		.by = args->by_set ? args->by : (src->fields & LDLAT_HAS_LAT ? BY_CLASS : BY_RANGE),
		.linear_step = args->linear_step,
		.has_latency = src->fields & LDLAT_HAS_LAT,
		.intervals = args->cli.interval > 0,
	};
}

/* Rows of --by's split: a row per possible CPU or node, else --by-keys (at most LDLAT_BY_MAX_KEYS). */
static __u32 hist_split_rows(const struct hist_args *args)
{
	unsigned int lo, hi;
	__u32 n = args->split_keys ? args->split_keys : HIST_BY_KEYS;
	int cpus;
	FILE *f;

	if (args->split == LDLAT_BY_REGION)
		return LDLAT_BY_REGIONS;
	if (args->split == LDLAT_BY_CPU) {
		cpus = libbpf_num_possible_cpus();
		n = cpus > 0 ? (__u32)cpus : 1;
	} else if (args->split == LDLAT_BY_NODE) {
		n = 1;
		f = fopen("/sys/devices/system/node/possible", "r");
		if (f) {
			if (fscanf(f, "%u-%u", &lo, &hi) == 2)
				n = hi + 1;
			fclose(f);
		}
	}
	return n < LDLAT_BY_MAX_KEYS ? n : LDLAT_BY_MAX_KEYS;
}

/* A split's histograms are per-CPU: more than this much kernel memory is refused. */
#define HIST_SPLIT_MAX_BYTES (512ull << 20)

/* --by with --by-keys and the ranges: the kernel memory its rows take, refused past the bound. */
static int hist_split_check(const struct hist_args *args)
{
	__u64 rows = (__u64)hist_split_rows(args) + 1, ranges = args->cli.ranges.nranges;
	int cpus = libbpf_num_possible_cpus();
	__u64 bytes = rows * (ranges ? ranges : 1) * LDLAT_NCLASS * sizeof(struct ldlat_hist) *
		      (__u64)(cpus > 0 ? cpus : 1);
	struct err err = {};

	if (!args->split || bytes <= HIST_SPLIT_MAX_BYTES)
		return 0;
	err__set(&err, -EINVAL,
		 "--by %s: %llu rows of %llu range(s) on %d CPUs need %llu MiB of kernel memory "
		 "(at most %llu): give fewer --by-keys or ranges",
		 split__name(args->split), (unsigned long long)rows, (unsigned long long)ranges,
		 cpus, (unsigned long long)(bytes >> 20),
		 (unsigned long long)(HIST_SPLIT_MAX_BYTES >> 20));
	return err__report(&err, -EINVAL, "ldlat-hist", stderr);
}

/*
 * --input: the samples of a perf.data file through the same logic, printed
 * once through the same printer and formats as a live run's report.
 */
static int run_input(void *input)
{
	struct hist_args *args = input;
	struct offline o = {};
	struct printer p = {};
	struct hist_view unit = {};
	struct run_info run;
	struct timespec started;
	struct err err = {};
	int e;

	clock_gettime(CLOCK_REALTIME, &started);
	e = output__check(&args->cli.out, &err);
	if (!e)
		e = offline__open(&o, args->cli.input, &args->cli, args->linear_step, &err);
	/* a CPU's or node's rows are the recording machine's: offline__split counts them */
	if (!e)
		e = offline__split(&o, args->split,
				   args->split_keys ? args->split_keys : HIST_BY_KEYS, &err);
	if (!e)
		e = hist_unit(args, &o.src, &unit, &err);
	if (e) {
		offline__close(&o);
		output__close(&args->cli.out);
		return err__report(&err, e, "ldlat-hist", stderr);
	}
	if (args->cli.verbose)
		notice__print(stderr, "ldlat-hist", "%s: %d event%s, analysing %s%s%s", o.file.path,
			      o.file.nevents, o.file.nevents == 1 ? "" : "s", o.events,
			      o.file.hostname ? ", recorded on " : "",
			      o.file.hostname ? o.file.hostname : "");
	offline__run_info(&o, "ldlat-hist", &started, &run);
	p.tool = "ldlat-hist";
	p.out = &args->cli.out;
	p.ops = &input_ops;
	p.ctx = &o;
	p.view = hist_view_of(args, &run, &o.src);
	p.view.period_weighted = offline__freq(&o);
	p.view.ns_per_cycle = unit.ns_per_cycle;
	p.view.ns_why = unit.ns_why;
	p.final = true;
	if (printer__init_by(&p, o.cfg.nranges, o.cfg.by, o.cfg.by_keys + 1, &started)) {
		fprintf(stderr, "ldlat-hist: out of memory\n");
		e = -ENOMEM;
	} else {
		e = printer__print(&p);
	}
	if (!e)
		offline__report_skipped(&o, "ldlat-hist", stderr);
	printer__free(&p);
	offline__close(&o);
	output__close(&args->cli.out);
	return err__status(&err, e);
}

static int run_list_events(void *input)
{
	struct hist_args *args = input;

	return list_events(stdout, &args->cli, "ldlat-hist");
}

static int run_unpin(void *input)
{
	struct hist_args *args = input;

	return pincmd__unpin("ldlat-hist", args->pin.unpin);
}

static int run_show(void *input)
{
	struct hist_args *args = input;
	struct err err = {};
	int e;

	if (args->split_keys)
		return err__report(
			&err,
			err__set(&err, -EINVAL,
				 "--by-keys sets the rows of a split as it is made: a set "
				 "shows the rows it was pinned with (--pin DIR --by KEY "
				 "--by-keys N)"),
			"ldlat-hist", stderr);
	e = pin_opts__check_show(&args->pin, &args->cli, &args->cli.out, &err);
	if (!e)
		e = output__check(&args->cli.out, &err);
	if (e)
		return err__report(&err, e, "ldlat-hist", stderr);
	e = pincmd__show("ldlat-hist", &args->pin, &args->cli, &args->cli.out, args->by,
			 args->by_set, args->split);
	output__close(&args->cli.out);
	return e;
}

/* A live run: in the foreground, or --pin'ned, or --detach'ed from. */
static int run_sample(void *input)
{
	struct hist_args *args = input;
	struct printer p = {};
	struct hist_loads loads = {};
	struct pinset ps = { .dir_fd = -1 };
	struct hist_view unit = {};
	struct run_info run;
	struct timespec started;
	struct session_prog prog = { .p.ops = &hist_prog_ops,
				     .flags = args->pin.pin ? SESSION_PIN : 0 };
	struct tool tool;
	enum run_end end;
	struct err err = {};
	int e, status;

	status = hist_split_check(args);
	if (status)
		return status;
	e = pin_opts__check_sample(&args->pin, &args->cli, &err);
	if (!e)
		e = output__check(&args->cli.out, &err);
	if (e)
		return err__report(&err, e, "ldlat-hist", stderr);
	if (args->pin.pin) {
		/* a Ctrl-C from here on waits for the run's signalfd: the set made now goes */
		e = signals__block();
		if (e)
			err__msg(&err, "cannot block signals: %s", strerror(-e));
		else
			e = pinset__prepare(&ps, args->pin.pin, &err);
		if (e) {
			output__close(&args->cli.out);
			return err__report(&err, e, "ldlat-hist", stderr);
		}
	}

	e = tool__start(&tool, &args->cli, "ldlat-hist",
			&(struct tool_opts){ .prog = &prog.p,
					     .linear_step = args->linear_step,
					     .by = args->split,
					     .by_keys = args->split ? hist_split_rows(args) : 0 },
			&err);
	clock_gettime(CLOCK_REALTIME, &started);
	if (!e)
		e = hist_unit(args, &tool.src, &unit, &err);
	if (!e && args->pin.pin)
		e = pin_run(&tool, &prog, &ps, args, &started, &err);
	if (e || args->pin.detach) {
		status = err__report(&err, e, "ldlat-hist", stderr);
		tool__teardown(&tool);
		if (e)
			pinset__remove(&ps);
		pinset__close(&ps);
		output__close(&args->cli.out);
		return status;
	}
	tool__run_info(&tool, &started, &run);
	p.tool = "ldlat-hist";
	p.out = &args->cli.out;
	p.ops = &sample_ops;
	p.ctx = &tool;
	p.view = hist_view_of(args, &run, &tool.src);
	p.view.period_weighted = tool.evlist.evsel[0].attr.freq;
	p.view.ns_per_cycle = unit.ns_per_cycle;
	p.view.ns_why = unit.ns_why;
	if (tool.loads.active) {
		loads.tool = &tool;
		p.ops = &loads_ops;
		p.ctx = &loads;
		p.view.loads = &loads.share;
	}
	if (printer__init_by(&p, tool.cfg.nranges, tool.cfg.by, tool.cfg.by_keys + 1, &started)) {
		fprintf(stderr, "ldlat-hist: out of memory\n");
		status = EXIT_FAIL;
		goto out;
	}
	notice__print(stderr, "ldlat-hist", "sampling %s on %s%s%s%s. Ctrl-C to end.",
		      tool.evlist.evsel[0].name, tool.run.target_desc,
		      tool.evlist.nevsel > 1 ? " (and the other core types' events)" : "",
		      args->pin.pin ? ", pinned in " : "", args->pin.pin ? ps.dir : "");

	end = run__wait(
		&tool.run,
		&(struct run_wait){ .on_interval = args->cli.interval > 0 ? printer__print : NULL,
				    .ctx = &p });
	tool__stop_sampling(&tool);
	status = tool__exit_status(&tool, end);
	if (end == RUN_ERROR)
		goto out;
	/* the last (partial) interval, or the whole run */
	p.final = true;
	if (end != RUN_COUNT && printer__print(&p))
		status = EXIT_FAIL;
out:
	printer__free(&p);
	tool__teardown(&tool);
	/* a set pinned in the foreground ends with its run */
	pinset__remove(&ps);
	pinset__close(&ps);
	output__close(&args->cli.out);
	return status;
}

static const struct mode modes[] = {
	MODE_SAMPLE(sample_opts, doc, run_sample),
	{ "show", "show", "DIR", false, "print the histograms of a set --pin'ned in DIR", show_opts,
	  NULL,
	  "Prints the histograms of the set pinned in DIR by ldlat-hist --pin DIR: once, with -i "
	  "at every interval, with --delta the change since the last --delta.",
	  run_show },
	{ "unpin", "unpin", "DIR", false, "stop and remove the set pinned in DIR", unpin_opts, NULL,
	  "Stops the set pinned in DIR by ldlat-hist --pin DIR and removes it: its links first, "
	  "then the rest.",
	  run_unpin },
	MODE_INPUT("the samples of a perf.data file", input_opts,
		   "Analyses the samples of a perf.data file (perf mem record, perf record -d -W) "
		   "with the same filters and reports as a live run; needs no privilege.",
		   run_input),
	MODE_LIST_EVENTS(list_events_opts, MODE_LIST_EVENTS_DOC, run_list_events),
};

/* Where the arguments hold the structs of the shared option groups */
static const struct opt_place places[] = {
	{ &cli_home, offsetof(struct hist_args, cli) },
	{ &pin_home, offsetof(struct hist_args, pin) },
	{},
};

static const struct mode_table hist_modes = { "ldlat-hist", modes, ARRAY_SIZE(modes), places };

int main(int argc, char **argv)
{
	struct hist_args args = {};

	stdfds__open("ldlat-hist"); /* before anything opens a file */
	cli__init(&args.cli);
	args.cli.out.formats = &hist_formats;
	return modes__main(&hist_modes, argc, argv, &args);
}
