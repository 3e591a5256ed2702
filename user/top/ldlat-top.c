// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ldlat-top - which code and which data suffer the slow loads: the kept
 * samples by (process, instruction) and by (process, cache line or page),
 * counted in the kernel, symbolized in user space, printed like perf top.
 */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "user/run/cli.h"
#include "user/run/listevents.h"
#include "user/run/modes.h"
#include "user/offline/offline.h"
#include "user/top/offtop.h"
#include "user/report/output.h"
#include "user/report/printer.h"
#include "user/symbols/procwatch.h"
#include "user/top/topprog.h"
#include "user/top/unwindset.h"
#include "user/symbols/unwindcache.h"
#include "user/run/entry.h"
#include "user/symbols/symbolize.h"
#include "user/run/tool.h"
#include "user/top/topreport.h"
#include "user/top/callpath.h"
#include "user/top/flamegraph.h"
#include "user/top/toppprof.h"
#include "user/symbols/buildid.h"
#include "user/symbols/demangle.h"
#include "user/report/heatmap.h"
#include "user/report/render.h"
#include "kernel/abi/cpufreq.h"
#include "kernel/lib/util.h"
#include "kernel/lib/notice.h"
#include "user/run/stdfds.h"

#define TOP_DEFAULT_ENTRIES   4096
#define TOP_MAX_ENTRIES	      (1u << 20)
#define TOP_MAX_KEYS	      100000000u
#define TOP_DEFAULT_ROWS      20
#define TOP_TICK_SECONDS      0.1 /* the side band and the spill ring read this often */
#define TOP_DRAIN_TICKS	      5	  /* the tables emptied every 5 ticks */
#define TOP_DEFAULT_MAX_STACK 64
/*
 * With unwind tables, the side band is read ten times as often: a program
 * exec'd during the run (a compiler under make or gcc's driver) walks by
 * frame pointers until its tables are in, and a tick is much of that wait
 * once they are cached (unwindcache.h).  The tables are still emptied
 * every TOP_DRAIN_TICKS * TOP_TICK_SECONDS.
 */
#define TOP_WALK_TICK_DIV 10
/*
 * The walk from unwind tables: tables of up to 1024 distinct files (an
 * inner map each, sized to its table), the executable mappings of up to
 * 1024 processes (4 KiB each, preallocated: 4.2 MB)
 */
#define TOP_UNWIND_FILES 1024
#define TOP_UNWIND_PROCS 1024
/*
 * A sample walked before its process's tables were in is sent with 8 KiB
 * of its stack to a ring of 32 MiB (~4,000 records: cc1 takes 2,464 page
 * faults in its first 50 ms, and the ring is not read while a table
 * compiles), at most 4096 a CPU in a generation (0.5 s); walked in user
 * space once the tables are in (unwinddefer.h).
 */
#define TOP_UNWIND_DEFER_MAX  4096
#define TOP_UNWIND_DEFER_RING (32u << 20)

struct top_args {
	struct cli cli;
	unsigned int by;
	enum top_sort sort;
	bool sort_set;
	enum top_data_by data_by;
	int nrows; /* 0: all */
	__u32 shift;
	__u32 entries;
	__u32 max_keys; /* 0: no bound */
	const char *debuginfo;
	enum demangle_style demangle;
	bool call_graph;
	enum top_walk walk; /* --call-graph's MODE: how the user stack is walked */
	bool walk_set;	    /* a MODE was given */
	__u32 max_stack;    /* --max-stack: frames the walk from unwind tables takes */
	bool max_stack_set;
	enum callpath_weight weight;
	bool weight_set;
	const char *heatmap; /* --heatmap FILE */
	bool heatmap_by_class;
	bool keep_set;		   /* --keep N (into cli.out.keep) */
	bool unit_ns;		   /* --unit ns */
	double ns_per_cycle;	   /* --unit ns: the nominal frequency's (top_refuse) */
	const char *annotate;	   /* --annotate FUNC */
	const char *annotate_type; /* --annotate-type TYPE */
};

static const char doc[] =
	"Which code and which data suffer the slow loads: samples of the CPU's load-latency "
	"event (or page faults) counted in the kernel by instruction and by data cache line "
	"or page, per process, then named: functions and their DSO, variables and mappings.\v"
	"Examples:\n"
	"  ldlat-top                                # whole machine until Ctrl-C\n"
	"  ldlat-top -i 2                           # refresh every 2 seconds, like top\n"
	"  ldlat-top -p 1234 --min-lat 100 -s ram   # PID 1234, loads of 100+ cycles from RAM\n"
	"  ldlat-top --by data --granularity page --data-by block -- ./app\n"
	"  ldlat-top --source page-faults -- ./app  # first touches, by function and variable\n"
	"  ldlat-top --format json -d 10 -G system.slice/db.service\n"
	"  ldlat-top --format json -i 10 --output /var/tmp/ldlat-top.json -p 1234\n"
	"  ldlat-top --list-events                  # the event it would open, and why\n"
	"  ldlat-top --input perf.data -s ram       # what perf mem record saw; no root\n"
	"  ldlat-top --call-graph -- ./app          # their call paths, as a caller tree\n"
	"  ldlat-top --format svg --output flame.svg -- ./app  # a flame graph of them\n"
	"\n"
	"Latency is in core cycles.  --format takes text or json (openmetrics is "
	"ldlat-hist's).  Each table entry costs 128 bytes per CPU in the kernel, each "
	"key about 0.4 KB in user space until the report (0.15 KB for page faults; "
	"--max-keys caps it); a key that finds its table full is counted and reported, not lost "
	"silently.  Exit status: 0, "
	"the command's own when it ends the run, 1 when the system fails, 2 for bad input.";

/* --by's keys: the tables, whose rows are keyed by instruction or by data block */
static const struct opt_word by_keys[] = {
	{ "ip", TOP_BY_IP },
	{ "code", TOP_BY_IP, .alias = true },
	{ "data", TOP_BY_DATA },
	{ "both", TOP_BY_BOTH },
	{ "type", TOP_BY_TYPE },
	{ "srcline", TOP_BY_SRCLINE },
	{},
};

static const struct opt_word sorts[] = {
	{ "samples", TOP_SORT_SAMPLES },
	{ "latency", TOP_SORT_LATENCY },
	{ "total", TOP_SORT_TOTAL },
	{},
};

static const struct opt_word granularities[] = { { "line", 6 }, { "page", 12 }, {} };
static const struct opt_word data_bys[] = { { "object", TOP_DATA_OBJECT },
					    { "block", TOP_DATA_BLOCK },
					    {} };
static const struct opt_word weights[] = { { "samples", CALLPATH_WEIGHT_SAMPLES },
					   { "latency", CALLPATH_WEIGHT_LATENCY },
					   {} };
static const struct opt_word heatmap_bys[] = { { "all", 0 }, { "class", 1 }, {} };
static const struct opt_word units[] = { { "cycles", 0 }, { "ns", 1 }, {} };

/* --list-events takes --by too: it decides whether the samples carry the IP */
static const struct opt by_options[] = {
	{ "by", 0, "KEY", 0,
	  "ip (code), data, or both tables (default); type: the data types and members the "
	  "code's loads touch (from its debug info); srcline: the code by source line",
	  OPT_KEYS, OPT_TO(struct top_args, by), .words = by_keys },
	{},
};

static const struct opt table_options[] = {
	{ "sort", 0, "KEY", 0,
	  "samples (default), latency (mean), or total (latency sum: samples x mean)", OPT_WORD,
	  OPT_TO(struct top_args, sort), OPT_SETS(struct top_args, sort_set), .words = sorts },
	CLI_ROWS("rows per table (default 20; 0: all)", struct top_args, nrows),
	{ "granularity", 0, "UNIT", 0,
	  "data addresses by cache line (line, 64 bytes, default) or page (4 KiB)", OPT_WORD,
	  OPT_TO(struct top_args, shift), .words = granularities },
	{ "data-by", 0, "KEY", 0,
	  "a data row per variable or mapping (object, default), or per line or page (block)",
	  OPT_WORD, OPT_TO(struct top_args, data_by), .words = data_bys },
	CLI_DEBUGINFO("where separate debug info is looked up: absolute directories by build ID "
		      "(DIR/.build-id/xx/rest.debug) and by path, relative ones next to the file "
		      "(default \":.debug:/usr/lib/debug\")",
		      struct top_args, debuginfo),
	CLI_DEMANGLE(struct top_args, demangle),
	{ "annotate", 0, "FUNC", 0,
	  "instead of the tables, function FUNC's instructions (named as --demangle names "
	  "it) with their samples, latency and the data type and member each "
	  "touches",
	  OPT_TEXT, OPT_TO(struct top_args, annotate), .what = "function name" },
	{ "annotate-type", 0, "TYPE", 0,
	  "instead of the tables, data type TYPE ('struct conn', named as --by type names it) "
	  "with its members and the samples that touched each, per file, as perf annotate "
	  "--data-type lays it out",
	  OPT_TEXT, OPT_TO(struct top_args, annotate_type), .what = "data type name" },
	{},
};

/* --call-graph[=MODE]: bare, the frame-pointer walk it always was */
static int parse_call_graph(void *base, const char *arg, struct err *err)
{
	static const struct {
		const char *word;
		enum top_walk walk;
	} modes[] = { { "fp", TOP_WALK_FP },
		      { "dwarf", TOP_WALK_DWARF },
		      { "auto", TOP_WALK_AUTO } };
	struct top_args *a = base;
	size_t i;

	a->call_graph = true;
	if (!arg) {
		a->walk = TOP_WALK_FP;
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(modes); i++)
		if (!strcmp(arg, modes[i].word)) {
			a->walk = modes[i].walk;
			a->walk_set = true;
			return 0;
		}
	return err__set(err, -EINVAL, "--call-graph '%s': expected fp, dwarf or auto", arg);
}

/*
 * What one option cannot tell: a mode given as a word of its own (argp
 * takes an optional argument only after '='), which would run as the
 * command; --max-stack without the walk it bounds.
 */
static int check_call_graph(void *base, struct err *err)
{
	struct top_args *a = base;
	const char *cmd = a->cli.target.argv ? a->cli.target.argv[0] : NULL;

	if (a->call_graph && !a->walk_set && cmd &&
	    (!strcmp(cmd, "fp") || !strcmp(cmd, "dwarf") || !strcmp(cmd, "auto")))
		return err__set(err, -EINVAL,
				"--call-graph takes its mode after '=' (--call-graph=%s); '%s' "
				"alone would be run as the command",
				cmd, cmd);
	if (a->max_stack_set && a->walk != TOP_WALK_DWARF && a->walk != TOP_WALK_AUTO)
		return err__set(err, -EINVAL,
				"--max-stack %u bounds the walk from unwind tables: add "
				"--call-graph=dwarf or --call-graph=auto",
				a->max_stack);
	return 0;
}

static const struct opt callgraph_options[] = {
	{ "call-graph", 0, "MODE", OPTION_ARG_OPTIONAL,
	  "also the kept samples by call path (user and kernel stacks, taken in the kernel; "
	  "--input: the file's callchains), printed as a caller tree; --format folded or svg "
	  "print them alone and imply it.  MODE, after '=': fp (the default) walks the user "
	  "stack by frame pointers; dwarf walks it from unwind tables compiled from each "
	  "mapped file's call frame information (.eh_frame, .debug_frame), as perf record "
	  "--call-graph dwarf finds it; auto: the tables where a file has them, frame "
	  "pointers elsewhere (dwarf falls back the same way, counted, but fails where the "
	  "kernel refuses the walker; auto then walks frame pointers, with a notice)",
	  OPT_PARSE, .parse = parse_call_graph },
	{ "weight", 0, "KEY", 0,
	  "what folded stacks and the flame graph weigh: samples (default) or latency (their "
	  "latency sum)",
	  OPT_WORD, OPT_TO(struct top_args, weight), OPT_SETS(struct top_args, weight_set),
	  .words = weights },
	{ .doc = "Heat map:" },
	{ "heatmap", 0, "FILE", 0,
	  "also write the kept samples' latency over time to FILE, an SVG heat map: a column "
	  "per report (-i), a row per power of two of cycles; text reports show the last "
	  "columns as a grid",
	  OPT_TEXT, OPT_TO(struct top_args, heatmap), .what = "file name" },
	{ "heatmap-by", 0, "KEY", 0, "all (one map, default) or class (a map per data source)",
	  OPT_WORD, OPT_TO(struct top_args, heatmap_by_class), .words = heatmap_bys },
	{ .doc = "Profiles:" },
	{ "keep", 0, "N", 0,
	  "--format pprof --output DIR: each report a new file DIR/ldlat-TIMESTAMP.pb.gz, the N "
	  "newest kept (default 60), older ones removed",
	  OPT_NUMBER, OPT_TO(struct top_args, cli.out.keep), OPT_SETS(struct top_args, keep_set),
	  .min = 1, .max = OUTPUT_KEEP_MAX, .what = "a number of profiles (1 to %llu)" },
	{ "unit", 0, "UNIT", 0,
	  "cycles (default) or ns: --format pprof's latency in nanoseconds, approximate (cycles "
	  "at this machine's nominal CPU frequency; turbo and power saving change the real clock)",
	  OPT_WORD, OPT_TO(struct top_args, unit_ns), .words = units },
	{},
};

/* a live run's: --input's tables grow as the file needs */
static const struct opt entries_options[] = {
	CLI_ENTRIES("keys each kernel table holds between drains (every 0.5 s; default 4096); "
		    "samples of further keys go through a spill ring of N KiB (1 MiB to 256 MiB); "
		    "with --call-graph the stack map holds 2N call paths between drains (1024 to "
		    "524288, 2 KiB each: 17 MB by default)",
		    struct top_args, entries, TOP_MAX_ENTRIES),
	{ "max-keys", 0, "N", 0,
	  "keys (process and address) each table keeps in user space until a report (default: "
	  "no bound; each key takes about 0.4 KB, 0.15 KB for page faults); samples of further "
	  "keys are counted as not attributed",
	  OPT_NUMBER, OPT_TO(struct top_args, max_keys), .min = 1, .max = TOP_MAX_KEYS,
	  .what = "a number of keys from 1 to %llu" },
	{},
};

static const struct opt_group by_opts = { 5, "Output:", by_options };
static const struct opt_group table_opts = { 5, NULL, table_options };
static const struct opt_group entries_opts = { 5, NULL, entries_options };
/* a live run's: the walk from unwind tables */
static const struct opt max_stack_options[] = {
	{ "max-stack", 0, "N", 0,
	  "--call-graph=dwarf or auto: the user stack's frames walked, at most (default 64, 1 "
	  "to 127)",
	  OPT_NUMBER, OPT_TO(struct top_args, max_stack), OPT_SETS(struct top_args, max_stack_set),
	  .min = 1, .max = LDLAT_UNWIND_MAX_STACK, .what = "a number of frames (1 to %llu)" },
	{},
};

static const struct opt_group callgraph_opts = { 5, "Call paths:", callgraph_options,
						 .check = check_call_graph };
static const struct opt_group max_stack_opts = { 5, NULL, max_stack_options };

/* Each mode's options */
static const struct opt_group *const sample_opts[] = { &cli_sample_opts, &by_opts,
						       &table_opts,	 &entries_opts,
						       &callgraph_opts,	 &max_stack_opts,
						       &cli_output_opts, NULL };

static const struct opt_group *const input_opts[] = { &cli_offline_opts, &by_opts,
						      &table_opts,	 &callgraph_opts,
						      &cli_output_opts,	 NULL };

static const struct opt_group *const list_events_opts[] = { &cli_list_opts, &by_opts, NULL };

struct top {
	struct top_args *args;
	struct tool *tool;    /* a live run's */
	struct top_prog prog; /* and its program (top_prog_ops) */
	struct unwind_set uw; /* --call-graph=dwarf, auto: the tables loaded */
	/* and those compiled before (unwindcache.h) */
	struct unwind_cache uw_cache;
	bool uw_open;
	/* the samples walked before their tables were in, until walked again */
	struct unwind_defer_queue uw_defer;
	bool uw_defer_open;
	bool drain_all;	     /* the drain under way is the run's last: every generation */
	struct offtop *file; /* --input's */
	struct machine m;    /* live: the processes; --input: its pm holds the images */
	struct symbolizer z;
	struct procwatch watch;
	bool watching;
	struct top_table ip, data; /* what the kernel's tables held, since the last report */
	struct top_sink sink;	   /* how they are filled: the drained generations */
	struct unseen counted;	   /* the events' counts, read as the last drain began */
	struct top_rows early_ip, early_data; /* their entries of exited processes, named */
	bool sink_open;
	unsigned int ticks;
	struct printer printer; /* the filter counters; where and how reports go */
	struct top_view view;
	struct heatmap heat;	/* --heatmap: a column per report */
	struct top_table stack; /* --call-graph: drained, by (process, path key) */
	struct callpaths paths; /* and named, since the last report */
	struct callpaths lost;	/* the paths' losses of the whole run (no paths) */

	/* --heatmap's file, which output__check may open (a FIFO, a terminal) */
	struct output_opts heat_out;

	/* --format pprof: the profile of the paths named since the last report */
	bool profiling;
	struct toppprof prof;
	struct toppprof_opts prof_opts;
	char kernel_id[2 * BUILDID_MAX + 1];
	bool type_seen; /* --annotate-type: some report had a sample of the type */
};

/* What a run of either mode made, and its output files closed. */
static void top__free(struct top *top)
{
	printer__free(&top->printer);
	top_table__free(&top->ip);
	top_table__free(&top->data);
	top_table__free(&top->stack);
	callpaths__free(&top->paths);
	toppprof__end(&top->prof);
	heatmap__free(&top->heat);
	symbolizer__free(&top->z);
	machine__free(&top->m);
	output__close(&top->heat_out);
	output__close(&top->args->cli.out);
}

/* --sort latency and total need latency, which 'lacking' (a sentence's end) says is missing. */
static int top_check_sort(const struct top_args *a, __u32 fields, const char *lacking,
			  struct err *err)
{
	if (a->weight == CALLPATH_WEIGHT_LATENCY && !(fields & LDLAT_HAS_LAT)) {
		err__msg(err, "--weight latency needs latency, which %s", lacking);
		return -EINVAL;
	}
	if (a->unit_ns && !(fields & LDLAT_HAS_LAT)) {
		err__msg(err, "--unit ns converts latency, which %s", lacking);
		return -EINVAL;
	}
	if (a->sort == TOP_SORT_SAMPLES || (fields & LDLAT_HAS_LAT))
		return 0;
	err__msg(err, "--sort %s needs latency, which %s",
		 a->sort == TOP_SORT_LATENCY ? "latency" : "total", lacking);
	return -EINVAL;
}

/* The tables to keep, before the program loads; latency sorting needs latency. */
static int top_configure(struct tool *t, void *ctx, struct err *err)
{
	struct top *top = ctx;
	struct top_args *a = top->args;
	int e = top_check_sort(a, t->src.fields,
			       t->addr_only ? "this kernel cannot give to BPF (address-only mode)"
					    : "page-fault samples do not carry",
			       err);

	if (e)
		return e;
	t->cfg.top = ((a->by & TOP_BY_CODE) ? LDLAT_TOP_IP : 0) |
		     ((a->by & TOP_BY_DATA) ? LDLAT_TOP_DATA : 0);
	if (a->call_graph)
		t->cfg.top |= LDLAT_TOP_STACK;
	/* a page faults once while mapped: its data keys go through the ring */
	if ((a->by & TOP_BY_DATA) && t->src.kind == SOURCE_PAGE_FAULTS)
		t->cfg.top |= LDLAT_TOP_DATA_RING;
	t->cfg.top_shift = a->shift;
	t->cfg.top_entries = a->entries;
	return 0;
}

/* A deferred sample's walk found its process's entry older than it: read again now. */
static int top_unwind_reread(void *ctx, __u32 tgid)
{
	struct top *top = ctx;
	struct err err = {};

	return unwind_set__reread(&top->uw, (pid_t)tgid, &err);
}

/*
 * --call-graph=dwarf, auto: the unwind tables' maps, and a command's
 * tables: at its exec stop (the program and the loader: the loader's own
 * samples walk through them), then at its entry point, where every library
 * it links is mapped, before its first instruction of its own.  Later
 * mappings (dlopen, exec) come with the side band (top_watch).
 */
static int top_unwind_start(struct top *top, struct tool *t, pid_t cmd, struct err *err)
{
	struct err why = {};
	int e;

	top_session__unwind_init(&top->prog.sp.s, &top->uw);
	top->uw_open = true;
	/* without the cache each table is compiled: a notice, not a failure */
	if (unwind_cache__open(&top->uw_cache, NULL, &why))
		notice__print(stderr, "ldlat-top", "warning: %s", why.msg);
	top->uw.cache = &top->uw_cache;
	e = top_session__unwind_defer_open(&top->prog.sp.s, &top->uw_defer,
					   top->prog.unwind.max_stack);
	if (e)
		return err__set(err, e, "cannot map the deferred walks' ring: %s", strerror(-e));
	top->uw_defer_open = true;
	top->uw_defer.reread = top_unwind_reread;
	top->uw_defer.reread_ctx = top;
	if (!cmd)
		return 0;
	unwind_set__add_process(&top->uw, cmd, &why);
	e = command__run_to_entry(&t->run.cmd, t->cli->target.argv[0], t->run.sigfd, &why);
	if (e == -EOPNOTSUPP) /* a program without an entry to stop at: the side band's then */
		return 0;
	if (e)
		*err = why;
	return e;
}

/* Events attached, not enabled; a command not yet running: learn the processes. */
static int top_before_enable(struct tool *t, void *ctx, struct err *err)
{
	struct top *top = ctx;
	pid_t cmd = t->run.has_cmd ? t->run.cmd.pid : 0;
	int e;

	e = top_sink__open(&top->sink, &top->prog.sp.s,
			   (top->args->by & TOP_BY_CODE) ? &top->ip : NULL,
			   (top->args->by & TOP_BY_DATA) ? &top->data : NULL);
	if (e) {
		err__msg(err, "cannot map the tables' spill ring: %s", strerror(-e));
		return e;
	}
	top->sink_open = true;
	top->sink.stack = top->args->call_graph ? &top->stack : NULL;
	if (top->prog.walking) {
		e = top_unwind_start(top, t, cmd, err);
		if (e)
			return e;
	}
	e = procwatch__start(&top->watch, &top->m, &t->run.target, cmd ? &cmd : t->run.procs,
			     cmd ? 1 : t->run.nprocs, err);
	top->watching = !e;
	if (e)
		procwatch__stop(&top->watch);
	/* the processes there now: -p's, the machine's or the command's at its entry */
	if (!e && top->uw_open && unwind_set__refresh(&top->uw, &top->m.pm))
		e = err__set(err, -ENOMEM, "out of memory");
	return e;
}

/*
 * A process whose EXIT record the side band lost (its ring was full) is
 * gone all the same: /proc says so.
 */
static void top_mark_gone(struct proc *p, void *ctx)
{
	char path[64];

	if (p->exited || p->tgid <= 0)
		return;
	snprintf(path, sizeof(path), "/proc/%d", (int)p->tgid);
	if (access(path, F_OK) && errno == ENOENT)
		procmaps__gone(ctx, p);
}

/*
 * --format pprof: what the profile says of the run (its event and period,
 * whether samples carry latency and data sources), and a first profile.
 */
static int top_profile_begin(struct top *top, const struct source *src, const char *event,
			     const struct perf_event_attr *attr)
{
	top->prof_opts = (struct toppprof_opts){
		.build_id_for = top->prof_opts.build_id_for,
		.build_id_ctx = top->prof_opts.build_id_ctx,
		.latency = src->fields & LDLAT_HAS_LAT,
		.ns_per_cycle = top->args->ns_per_cycle,
		.classes = src->fields & LDLAT_HAS_DSRC,
		.event = event,
		.period = attr && !attr->freq ? attr->sample_period : 0,
		.kernel_build_id = top->kernel_id,
	};
	return toppprof__begin(&top->prof, &top->prof_opts);
}

struct defer_apply {
	struct top *top;
	struct ldlat_top_stack *st;
	__u32 drained; /* the last generation drained */
	int e;
};

/*
 * A deferred sample whose path's entry is in this drain: its count moved
 * from the path its frame pointers gave to the one its walk in user space
 * gives, under the same process and with the same kernel frames; one not
 * walked (its tables never came in, its process is gone) keeps the frame
 * pointers', counted.  Those of a later generation wait.
 */
static bool defer_apply_one(struct unwind_deferred *d, void *ctx)
{
	struct defer_apply *a = ctx;
	struct top *top = a->top;
	struct top_entry *en = (struct top_entry *)top_table__find(&top->stack, d->tgid, d->key);
	struct ldlat_top_val v = {};
	struct callpath_stack u = {}, k = { .ips = a->st->ips[1] };
	struct proc *p;
	const char *comm;

	if (a->e)
		return false;
	/*
	 * a path the table could not store (its key names the loss, in no
	 * generation: another generation's entry would match) keeps it, in
	 * its own generation's drain
	 */
	if (d->key == LDLAT_TOP_STACK_FULL || d->key == LDLAT_TOP_STACK_FAILED) {
		if ((__s32)(d->gen - a->drained) > 0)
			return false;
		top->paths.walks.defer_fp++;
		return true;
	}
	if (!en || !en->count) {
		if ((__s32)(d->gen - a->drained) > 0)
			return false;
		top->paths.walks.defer_fp++;
		return true;
	}
	if (!unwind_defer__walk(&top->uw_defer, d) ||
	    top_session__stack(&top->prog.sp.s, d->key, a->st)) {
		top->paths.walks.defer_fp++;
		return true;
	}
	/*
	 * the copy ran out before the frame pointers did (a stack probe's
	 * fault at SP leaves nothing to copy; a frame past 8 KiB): the path
	 * the kernel walked reaches further, and stays, where it is the same
	 * as far as the copy went (frame pointers through code built without
	 * them lead anywhere)
	 */
	if (d->stop == LDLAT_STOP_READ && d->nr < a->st->nr[0] &&
	    !memcmp(d->ips, a->st->ips[0], d->nr * sizeof(*d->ips))) {
		top->paths.walks.defer_fp++;
		return true;
	}
	ldlat_top_account(&v, d->lat, d->cls);
	top_table__unaccount(&top->stack, en, d->lat, d->cls);
	/* the walk's, which may have been made just now */
	u.ips = d->ips;
	u.n = (int)d->nr;
	k.n = (int)a->st->nr[1];
	k.err = a->st->err[1];
	p = procmaps__find(&top->m.pm, (pid_t)d->tgid);
	comm = p ? p->comm : NULL;
	a->e = callpaths__add(&top->paths, &top->z, d->tgid, comm, &u, &k, &v);
	if (!a->e && top->profiling) {
		struct toppprof_ctx ctx = { .comm = comm, .cgroup = p ? p->cgroup : NULL };

		a->e = toppprof__add(&top->prof, &top->z, d->tgid, &ctx, &u, &k, &v);
	}
	top->paths.walks.defer_walked++;
	return true;
}

/* The run's last drain: a deferred sample none took keeps its frame pointers' path, counted. */
static bool defer_left(struct unwind_deferred *d, void *ctx)
{
	struct top *top = ctx;

	(void)d;
	top->paths.walks.defer_fp++;
	return true;
}

/*
 * The call-path table's entries into named paths, while the processes'
 * mappings are known (an exited process's are forgotten after a drain).
 */
static int top_take_stacks(struct top *top)
{
	struct session *s = &top->prog.sp.s;
	struct ldlat_top_stack *st;
	size_t i;
	int e = 0;

	if (!top->args->call_graph || !top->stack.n)
		goto counters;
	st = malloc(sizeof(*st));
	if (!st)
		return -ENOMEM;
	symbolizer__begin(&top->z);
	if (top->uw_defer_open) {
		/* the last drain takes every generation, the current one too */
		struct defer_apply a = { .top = top,
					 .st = st,
					 .drained = top->sink.gen - (top->drain_all ? 0 : 1) };

		unwind_defer__remove_if(&top->uw_defer, defer_apply_one, &a);
		e = a.e;
	}
	for (i = 0; i < top->stack.n && !e; i++) {
		const struct top_entry *en = &top->stack.e[i];
		struct callpath_stack u = { .ips = st->ips[0] }, k = { .ips = st->ips[1] };
		struct proc *p = procmaps__find(&top->m.pm, (pid_t)en->tgid);
		const char *comm = p ? p->comm : NULL;

		struct toppprof_ctx ctx = { .comm = comm, .cgroup = p ? p->cgroup : NULL };
		struct ldlat_top_val v;

		top_table__val(&top->stack, en, &v);

		/* every sample of it walked again (defer_apply_one) */
		if (!en->count)
			continue;

		if (en->addr == LDLAT_TOP_STACK_FULL) {
			e = callpaths__add_lost(&top->paths, en->tgid, comm, CALLPATH_LOST_FULL,
						&v);
			if (!e && top->profiling)
				e = toppprof__add_lost(&top->prof, en->tgid, &ctx,
						       CALLPATH_LOST_FULL, &v);
			continue;
		}
		/* refused by the map, or (never, as drains go) no longer in it */
		if (en->addr == LDLAT_TOP_STACK_FAILED || top_session__stack(s, en->addr, st)) {
			e = callpaths__add_lost(&top->paths, en->tgid, comm, CALLPATH_LOST_FAILED,
						&v);
			if (!e && top->profiling)
				e = toppprof__add_lost(&top->prof, en->tgid, &ctx,
						       CALLPATH_LOST_FAILED, &v);
			continue;
		}
		u.n = (int)st->nr[0];
		u.err = st->err[0];
		k.n = (int)st->nr[1];
		k.err = st->err[1];
		e = callpaths__add(&top->paths, &top->z, en->tgid, comm, &u, &k, &v);
		if (!e && top->profiling)
			e = toppprof__add(&top->prof, &top->z, en->tgid, &ctx, &u, &k, &v);
	}
	free(st);
counters:
	/* one read without room to keep it keeps its frame pointers' path */
	if (top->uw_defer_open) {
		top->paths.walks.defer_fp += top->uw_defer.nomem;
		top->uw_defer.nomem = 0;
	}
	/* none is left past the run's last drain: sent = walked + frame pointers */
	if (top->uw_defer_open && top->drain_all)
		unwind_defer__remove_if(&top->uw_defer, defer_left, top);
	top->paths.full += top->stack.full;
	top->paths.failed += top->stack.failed;
	top->paths.spilled += top->stack.spilled;
	top_table__reset(&top->stack);
	return e;
}

/*
 * --call-graph=dwarf, auto: the tables follow the processes the side band
 * reported (exec, mmap, exit).
 */
static int top_unwind_follow(struct top *top)
{
	int e;

	if (!top->uw_open)
		return 0;
	if (unwind_set__refresh(&top->uw, &top->m.pm)) {
		fprintf(stderr, "ldlat-top: out of memory\n");
		return -ENOMEM;
	}
	/* the deferred samples whose tables came in: walked while their process holds them */
	if (top->uw_defer_open && (e = unwind_defer__poll(&top->uw_defer))) {
		fprintf(stderr, "ldlat-top: cannot read the deferred walks' ring: %s\n",
			strerror(-e));
		return e;
	}
	return 0;
}

/* What the tables hold now, into the report's paths. */
static void top_unwind_state(struct top *top, struct callpath_walks *w)
{
	const struct unwind_set *u = &top->uw;

	w->on = top->uw_open;
	if (!w->on)
		return;
	w->files = u->loaded;
	w->bytes = u->bytes;
	w->procs = u->procs;
	w->no_cfi = u->no_cfi;
	w->failed = u->failed;
	w->full = u->full;
	w->loads = u->loads;
	w->freed = u->freed;
	w->procs_failed = u->procs_failed;
	w->procs_full = u->procs_full;
	w->maps_dropped = u->maps_dropped;
	w->max_files = u->max_files;
	w->max_procs = u->max_procs;
}

/* Moves the kernel's tables and the side band into user space. */
static int top_drain(struct top *top, bool all)
{
	struct err err = {};
	int e;

	top->drain_all = all;
	e = procwatch__drain(&top->watch);

	if (e) {
		fprintf(stderr, "ldlat-top: cannot read the side band: %s\n", strerror(-e));
		return e;
	}
	/*
	 * before the generation moves on: a process gone now has no sample
	 * after it, so it is sealed (pruned once reported); one found gone
	 * after the switch (by a report's read of /proc) may have samples in
	 * the next generation, and waits for the next drain
	 */
	if (top->m.pm.proc_root)
		procmaps__foreach(&top->m.pm, top_mark_gone, &top->m.pm);
	procmaps__seal_exited(&top->m.pm);
	e = top_unwind_follow(top);
	if (e)
		return e;
	/*
	 * The events' counts just before the generation moves on, as near to
	 * that moment as they can be read: a sample counted in between is in
	 * the next generation, one seen is in no count yet; either way a few
	 * for one interval, none for the run (its last drain runs with the
	 * events disabled).
	 */
	e = tool__read_unseen(top->tool, &top->counted);
	if (e) {
		fprintf(stderr, "ldlat-top: cannot read the sampling events' counts: %s\n",
			strerror(-e));
		return e;
	}
	e = prog__read(&top->prog.sp.p, &top->sink, all, &err);
	if (e)
		notice__print(stderr, "ldlat-top", "%s", err.msg);
	/* the drained generation's deferred samples are all in the ring now */
	if (!e && top->uw_defer_open && (e = unwind_defer__poll(&top->uw_defer)))
		fprintf(stderr, "ldlat-top: cannot read the deferred walks' ring: %s\n",
			strerror(-e));
	/* the drained generation's walks (its parity; both at the end) */
	if (!e && top->prog.walking &&
	    (e = top_session__unwind_counters(&top->prog.sp.s, top->sink.gen - (all ? 0 : 1), all,
					      &top->paths.walks.c)))
		fprintf(stderr, "ldlat-top: cannot read the walks' counters: %s\n", strerror(-e));
	if (!e && top_take_stacks(top)) {
		fprintf(stderr, "ldlat-top: out of memory\n");
		e = -ENOMEM;
	}
	/* the drained generation's paths are named: the map has room for the next ones */
	if (!e && !all && top->args->call_graph) {
		e = top_session__forget_stacks(&top->prog.sp.s, top->sink.gen - 1);
		if (e)
			fprintf(stderr, "ldlat-top: cannot empty the stack map: %s\n",
				strerror(-e));
	}
	return e;
}

/* Samples of the generation after the one reported, into the tables. */
static int top_carry(struct top *top)
{
	int e = top_sink__carry(&top->sink);

	if (!e && top->tool)
		e = top_take_stacks(top);
	if (e)
		fprintf(stderr, "ldlat-top: out of memory\n");
	return e;
}

/*
 * The processes that have exited since the last drain have all their
 * samples in the tables: name them now and forget their mappings, so that
 * memory follows the live processes, not how many came and went.
 */
static int top_forget_exited(struct top *top)
{
	int e = 0;

	if (top->args->by & TOP_BY_CODE)
		e = top_rows__take_exited(&top->early_ip, &top->ip, &top->z,
					  top->args->by & TOP_BY_CODE,
					  top->args->annotate ?: top->args->annotate_type, 0);
	if (!e && (top->args->by & TOP_BY_DATA))
		e = top_rows__take_exited(&top->early_data, &top->data, &top->z, TOP_BY_DATA, NULL,
					  top->args->shift);
	if (e) {
		fprintf(stderr, "ldlat-top: out of memory\n");
		return e;
	}
	/* their rows count against --max-keys until the report */
	top->ip.held = top_rows__held(&top->early_ip);
	top->data.held = top_rows__held(&top->early_data);
	procmaps__prune_exited(&top->m.pm);
	return 0;
}

/* The side band and the spill ring every tick; the tables every TOP_DRAIN_TICKS. */
static int top_tick(void *ctx)
{
	struct top *top = ctx;
	int e;

	if (++top->ticks % (TOP_DRAIN_TICKS * (top->uw_open ? TOP_WALK_TICK_DIV : 1)) == 0)
		return top_drain(top, false) ?: top_carry(top) ?: top_forget_exited(top);
	e = procwatch__drain(&top->watch);
	if (e) {
		fprintf(stderr, "ldlat-top: cannot read the side band: %s\n", strerror(-e));
		return e;
	}
	e = top_unwind_follow(top);
	if (e)
		return e;
	e = top_sink__poll(&top->sink);
	if (e)
		fprintf(stderr, "ldlat-top: cannot read the spill ring: %s\n", strerror(-e));
	return e;
}

/*
 * The profile's comments: what the text report says was dropped or lost
 * (its filter counters, the unseen samples, the paths' losses, each the
 * same line), and how its paths were taken when not as callers.  The
 * samples a path lost are in the profile too, labelled lost.
 */
static int top_profile_comments(struct top *top, const struct snapshot *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int e;

	if (!f)
		return -ENOMEM;
	render_counters(f, s, top->view.run ? top->view.run->cfg : NULL);
	callpaths__render_losses(f, &top->paths);
	if (top->file && top->file->chainless)
		fprintf(f,
			"call paths: the file's events recorded no call chains: each sample's path "
			"is its instruction alone\n");
	if (top->file && top->file->kernel_note[0])
		fprintf(f, "%s\n", top->file->kernel_note);
	e = fclose(f) ? -ENOMEM : toppprof__comments(&top->prof, text);
	free(text);
	return e;
}

/* One report of the tables drained since the last one (printer_ops.write). */
static int top_write(struct printer *p, void *ctx, struct err *err)
{
	struct top *top = ctx;
	struct top_rows ip = {}, data = {};
	struct top_report r = { .view = &top->view,
				.ip = &ip,
				.data = &data,
				.delta = &p->delta,
				.paths = &top->paths,
				.weight = top->args->weight,
				.heat = top->args->heatmap ? &top->heat : NULL };
	int e = 0;

	top_unwind_state(top, &top->paths.walks);
	if (top->args->by & TOP_BY_ANNOTATE)
		e = top_rows__annotate(&ip, &top->ip, &top->z, top->args->annotate, &top->early_ip);
	else if (top->args->by & TOP_BY_ANNOTYPE)
		e = top_rows__annotate_type(&ip, &top->ip, &top->z, top->args->annotate_type,
					    &top->early_ip);
	else if (top->args->by & TOP_BY_CODE)
		e = top_rows__code(&ip, &top->ip, &top->z, top->args->by & TOP_BY_CODE,
				   &top->early_ip);
	if (!e && (top->args->by & TOP_BY_DATA))
		e = top_rows__data_runs(
			&data, &top->data, &top->z, top->args->shift, top->args->data_by,
			&top->early_data, top->file ? &top->file->data_runs : NULL,
			top->args->nrows > 0 ? (size_t)top->args->nrows : 0, top->args->sort);
	if (e) {
		err__msg(err, "out of memory");
		goto out;
	}
	if (top->args->heatmap && heatmap__add(&top->heat, &p->delta)) {
		err__msg(err, "out of memory");
		e = -ENOMEM;
		goto out;
	}
	if (ip.ntypes)
		top->type_seen = true;
	if (!(top->args->by & TOP_BY_ANNOTATE)) /* an annotation is in address order */
		top_rows__sort(&ip, top->args->sort);
	top_rows__sort(&data, top->args->sort);
	/* the profile of the same paths, whole before its file is touched */
	if (top->profiling) {
		void *buf = NULL;

		struct timespec since = p->delta.since, taken = p->delta.taken;

		/*
		 * a file's profile lasts as long as its samples' times span, and
		 * claims no moment: the file records none here, and the moment it
		 * was read is not when it was recorded
		 */
		if (top->file) {
			__u64 ns = top->file->last_time > top->file->first_time
					   ? top->file->last_time - top->file->first_time
					   : 0;

			since = (struct timespec){ 0 };
			taken = (struct timespec){ .tv_sec = (time_t)(ns / 1000000000),
						   .tv_nsec = (long)(ns % 1000000000) };
		}
		e = toppprof__add_unattributed(&top->prof, callpaths__unattributed(&top->paths)) ?:
			    top_profile_comments(top, &p->delta) ?:
			    toppprof__encode(&top->prof, &since, &taken, &buf, &r.profile_len);
		r.profile = buf;
		if (e) {
			err__msg(err, "out of memory");
			goto out;
		}
	}
	/* a blank line between plain reports; on a terminal each one clears the screen */
	e = output__write(&top->args->cli.out, &r, p->printed && !top->view.clear, err);
	/* the heat map's file at every report: it is whole whenever the run ends */
	if (!e && top->args->heatmap)
		e = output__write(&top->heat_out, &r, false, err);
	/*
	 * every sample of a sealed process has been drained and reported; a
	 * file's processes: every sample up to the report's end has been read
	 */
	if (top->file) {
		procmaps__next_epoch(&top->m.pm);
		procmaps__seal_exited(&top->m.pm);
	}
	procmaps__prune_exited(&top->m.pm);
out:
	top_rows__free(&ip);
	top_rows__free(&data);
	top_rows__free(&top->early_ip);
	top_rows__free(&top->early_data);
	top_table__reset(&top->ip);
	top_table__reset(&top->data);
	callpaths__add_losses(&top->lost, &top->paths);
	callpaths__reset(&top->paths);
	free((void *)r.profile);
	/* the next report's profile starts empty */
	if (top->profiling) {
		toppprof__end(&top->prof);
		if (toppprof__begin(&top->prof, &top->prof_opts) && !e) {
			err__msg(err, "out of memory");
			e = -ENOMEM;
		}
	}
	/* what the report freed goes back to the system, not only the heap's top */
	malloc_trim(0);
	return e;
}

static int top_interval(void *ctx)
{
	struct top *top = ctx;
	int e = top_drain(top, false);

	return e ?: printer__print(&top->printer) ?: top_carry(top);
}

/*
 * The printer's read: the generations drained so far (the counters,
 * histograms and tables of the same samples, as of the last drain's switch
 * of generation), with the events' counts read just before it; or the
 * file's samples into the tables.
 */
static int top_read(void *ctx, struct snapshot *snap, struct err *err)
{
	struct top *top = ctx;

	if (top->file)
		return offtop__read(top->file, snap, err);
	snapshot__copy(snap, &top->sink.drained);
	snap->unseen = top->counted;
	snap->unseen.seen = snap->counters.seen;
	snap->unseen.seen_period = snap->counters.seen_period;
	return 0;
}

static const struct printer_ops top_ops = { .read = top_read, .write = top_write };

/* The columns of the terminal on stdout (COLUMNS where the ioctl has none); 0: not a terminal. */
static int top_terminal_width(void)
{
	struct winsize ws;
	const char *c = getenv("COLUMNS");

	if (!isatty(STDOUT_FILENO))
		return 0;
	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col)
		return ws.ws_col;
	return c && atoi(c) > 0 ? atoi(c) : 80;
}

/* What the report says it is: the tables, their order, and the run's header. */
static struct top_view top_view_of(const struct top_args *a, bool has_latency,
				   const struct run_info *run, const struct source *src)
{
	return (struct top_view){
		.by = a->by,
		.sort = a->sort,
		.data_by = a->data_by,
		.nrows = a->nrows ? a->nrows : -1, /* --rows 0: all */
		.shift = a->shift,
		.has_latency = has_latency,
		.intervals = a->cli.interval > 0,
		/* like top on a terminal; a pipe or file gets plain blocks */
		.clear = a->cli.interval > 0 && output__screen(&a->cli.out),
		/* a terminal's width; a file or pipe gets every column */
		.width = a->cli.out.path ? 0 : top_terminal_width(),
		.run = run,
		.src = src,
		.annotate = a->annotate ?: a->annotate_type,
	};
}

/*
 * A binary profile per interval goes only into a FILE replaced at each or
 * a DIR: two in one stream would be one broken file; --keep counts a DIR's.
 * After output__check (which decides o->stream and o->dir).
 */
static int top_check_profiles(const struct top_args *a, struct err *err)
{
	const struct output_opts *o = &a->cli.out;

	if (a->keep_set && !o->dir)
		return err__set(err, -EINVAL,
				"--keep counts the profiles of --format pprof --output DIR; %s%s%s",
				o->path ? "--output '" : "", o->path ? o->path : "no --output",
				o->path ? "' is not a directory" : " names one");
	if (a->cli.interval > 0 && output__binary(o) && !output__replaces(o))
		return err__set(err, -EINVAL,
				"--format %s with -i writes a profile per interval: name a file "
				"(replaced at each) or a directory (a file each) with --output",
				output__name(o));
	return 0;
}

/* The analysed events' one attribute when they share a fixed period (the profile's), else NULL. */
static const struct perf_event_attr *top_input_attr(const struct offline *o)
{
	const struct perf_event_attr *a = NULL;

	for (int i = 0; i < o->file.nevents; i++) {
		const struct perf_event_attr *b = &o->file.events[i].attr;

		if (!o->use[i])
			continue;
		if (b->freq || (a && a->sample_period != b->sample_period))
			return NULL;
		a = b;
	}
	return a;
}

/*
 * --input: the samples of a perf.data file into the same tables by the same
 * native logic, named with the file's mappings, printed once as a live
 * run's last report.
 */
static int top_input(struct top_args *a)
{
	struct top top = { .args = a, .heat_out = top_heatmap_file(a->heatmap) };
	struct offtop ot = {};
	struct run_info run;
	struct timespec started;
	__u32 tables = ((a->by & TOP_BY_CODE) ? LDLAT_TOP_IP : 0) |
		       ((a->by & TOP_BY_DATA) ? LDLAT_TOP_DATA : 0) |
		       (a->call_graph ? LDLAT_TOP_STACK : 0);
	struct err err = {};
	char lacking[1024];
	int e, status;

	clock_gettime(CLOCK_REALTIME, &started);
	top.profiling = output__profile(&a->cli.out);
	machine__init(&top.m, MACHINE_TIMED); /* the file's processes are not this machine's */
	top_table__init(&top.ip);
	top_table__init(&top.data);
	callpaths__init(&top.paths);
	e = output__check(&a->cli.out, &err) ?: top_check_profiles(a, &err);
	if (!e)
		e = output__check(&top.heat_out, &err);
	if (!e && symbolizer__init(&top.z, &top.m.pm, a->debuginfo)) {
		err__msg(&err, "out of memory");
		e = -ENOMEM;
	}
	if (!e)
		e = offtop__open(&ot, a->cli.input, &a->cli, tables, a->shift, top.profiling,
				 &top.m.pm, &top.z, &err);
	if (!e) {
		snprintf(lacking, sizeof(lacking), "%s (%s) do not carry",
			 ot.o.src.kind == SOURCE_PAGE_FAULTS ? "page-fault samples" : "the samples",
			 ot.o.events);
		e = top_check_sort(a, ot.o.src.fields, lacking, &err);
	}
	if (e) {
		status = err__report(&err, e, "ldlat-top", stderr);
		goto out;
	}
	ot.ip = (a->by & TOP_BY_CODE) ? &top.ip : NULL;
	ot.data = (a->by & TOP_BY_DATA) ? &top.data : NULL;
	ot.paths = a->call_graph ? &top.paths : NULL;
	/* a file's process keys are images: each distinct stack is named once */
	if (ot.paths && callpaths__memoize(ot.paths)) {
		fprintf(stderr, "ldlat-top: out of memory\n");
		status = EXIT_FAIL;
		goto out;
	}
	if (top.profiling) {
		if (ot.kernel_id_len)
			buildid__hex(ot.kernel_id, ot.kernel_id_len, top.kernel_id,
				     sizeof(top.kernel_id));
		top.prof_opts.build_id_for = offtop__build_id_hex;
		top.prof_opts.build_id_ctx = &ot;
		if (top_profile_begin(&top, &ot.o.src, ot.o.events, top_input_attr(&ot.o))) {
			fprintf(stderr, "ldlat-top: out of memory\n");
			status = EXIT_FAIL;
			goto out;
		}
		ot.prof = &top.prof;
	}
	offline__run_info(&ot.o, "ldlat-top", &started, &run);
	top.view = top_view_of(a, ot.o.src.fields & LDLAT_HAS_LAT, &run, &ot.o.src);
	top.view.paths = ot.paths;
	top.file = &ot;
	top.printer = (struct printer){
		.tool = "ldlat-top",
		.out = &a->cli.out,
		.ops = &top_ops,
		.ctx = &top,
		.final = true,
	};
	heatmap__init(&top.heat, ot.o.cfg.linear_step, a->heatmap_by_class, &started);
	if (printer__init(&top.printer, ot.o.cfg.nranges, &started)) {
		fprintf(stderr, "ldlat-top: out of memory\n");
		status = EXIT_FAIL;
		goto out;
	}
	e = printer__print(&top.printer);
	if (!e && a->cli.verbose)
		offtop__describe(&ot, "ldlat-top", stderr);
	if (!e)
		offtop__report_notes(&ot, "ldlat-top", a->cli.verbose, stderr);
	status = err__status(&err, e);
	if (!status && a->annotate_type && !top.type_seen) {
		notice__print(stderr, "ldlat-top",
			      "--annotate-type: no sample of %s touched a type named '%s' (names "
			      "as --by type gives them: 'struct conn')",
			      a->cli.input, a->annotate_type);
		status = EXIT_USAGE;
	}
out:
	offtop__close(&ot);
	top__free(&top);
	return status;
}

/*
 * --weight without a picture to weigh, --heatmap over --output: 0, or the
 * exit status.  folded and svg draw call paths.  (A format ldlat-top lacks
 * is output__check's to refuse.)
 */
static int top_refuse(struct top_args *a)
{
	char why[128];
	__u64 khz;

	if (a->weight_set && output__profile(&a->cli.out)) {
		fprintf(stderr, "ldlat-top: --weight sets what --format folded or svg weighs; a "
				"pprof profile has both samples and latency\n");
		return EXIT_USAGE;
	}
	if (a->unit_ns && !output__profile(&a->cli.out)) {
		fprintf(stderr, "ldlat-top: --unit ns applies to --format pprof; the tables, the "
				"call paths and JSON keep cycles\n");
		return EXIT_USAGE;
	}
	if (a->unit_ns && cpufreq__nominal_khz(&khz, why, sizeof(why))) {
		fprintf(stderr, "ldlat-top: --unit ns: this machine does not say its CPU's nominal "
				"frequency (no cpufreq base_frequency, no GHz in /proc/cpuinfo's "
				"model name): give latency in cycles\n");
		return EXIT_USAGE;
	}
	if (a->unit_ns)
		a->ns_per_cycle = 1e6 / (double)khz;
	if (a->weight_set && !output__paths(&a->cli.out)) {
		fprintf(stderr, "ldlat-top: --weight sets what --format folded or svg weighs; add "
				"one of them\n");
		return EXIT_USAGE;
	}
	if (a->heatmap && a->cli.out.path && !strcmp(a->heatmap, a->cli.out.path)) {
		notice__print(stderr, "ldlat-top",
			      "--heatmap and --output both name '%s'; give the heat map a file of "
			      "its own",
			      a->heatmap);
		return EXIT_USAGE;
	}
	if (output__paths(&a->cli.out))
		a->call_graph = true;
	if (a->annotate && a->annotate_type) {
		fprintf(stderr,
			"ldlat-top: --annotate and --annotate-type each replace the tables; "
			"give one\n");
		return EXIT_USAGE;
	}
	/* an annotation is of the code table alone */
	if (a->annotate)
		a->by = TOP_BY_ANNOTATE;
	if (a->annotate_type)
		a->by = TOP_BY_ANNOTYPE;
	return 0;
}

static int run_list_events(void *input)
{
	struct top_args *a = input;

	a->cli.source.sample_ip = a->by & TOP_BY_CODE;
	return list_events(stdout, &a->cli, "ldlat-top");
}

static int run_input(void *input)
{
	struct top_args *a = input;

	demangle__set_style(a->demangle);
	if (a->walk != TOP_WALK_FP) {
		fprintf(stderr,
			"ldlat-top: --call-graph=%s walks live stacks; --input's call paths "
			"are the file's callchains: give --call-graph alone\n",
			a->walk == TOP_WALK_DWARF ? "dwarf" : "auto");
		return EXIT_USAGE;
	}
	return top_refuse(a) ?: top_input(a);
}

/*
 * Samples whose call path was not kept whole, once at the end of a run: the
 * reports count them and show them under a frame that says so, but a
 * folded file or a flame graph is easily read without a look at them.
 */
static void top_warn_paths(const struct callpaths *l)
{
	static const char *const why[CALLPATH_NLOSS] = {
		"the stack map was full: raise --entries",
		"the stack map refused them",
		"the user stack could not be walked",
		"the kernel stack could not be walked",
	};
	const char *sep = "";
	int k;

	if (!l->lost_samples)
		return;
	fprintf(stderr, "ldlat-top: warning: %llu samples lost their call paths (",
		(unsigned long long)l->lost_samples);
	for (k = 0; k < CALLPATH_NLOSS; k++) {
		if (!l->lost[k])
			continue;
		fprintf(stderr, "%s%llu: %s", sep, (unsigned long long)l->lost[k], why[k]);
		sep = "; ";
	}
	fprintf(stderr, "); the reports count them under a frame that says so\n");
}

/*
 * What the walk from unwind tables could not use, once at the end of a
 * run, for the formats that show only paths (folded, svg): the reports of
 * the others count it too.
 */
static void top_warn_walks(const struct callpath_walks *w)
{
	if (!w->on || !(w->no_cfi || w->failed || w->full || w->procs_full || w->maps_dropped ||
			w->c.no_process || w->c.defer_full || w->c.defer_budget || w->defer_fp))
		return;
	fprintf(stderr, "ldlat-top: warning: the walk from unwind tables followed frame pointers "
			"where it had no table: ");
	callpaths__render_walks(stderr, w);
}

/* A live run. */
static int run_sample(void *input)
{
	struct top_args *a = input;
	struct top top = { .args = a,
			   .prog.sp.p.ops = &top_prog_ops,
			   .heat_out = top_heatmap_file(a->heatmap) };
	struct tool_hooks hooks = { .configure = top_configure,
				    .before_enable = top_before_enable,
				    .ctx = &top };
	struct run_info run;
	struct timespec started;
	struct tool tool;
	enum run_end end;
	struct err err = {};
	int e, status;

	demangle__set_style(a->demangle);
	status = top_refuse(a);
	if (status)
		return status;
	a->cli.source.sample_ip = a->by & TOP_BY_CODE;
	a->cli.source.callchain = a->call_graph;
	top.prog.walk = a->call_graph ? a->walk : TOP_WALK_FP;
	top.prog.unwind = (struct top_unwind){ .max_stack = a->max_stack,
					       .files = TOP_UNWIND_FILES,
					       .procs = TOP_UNWIND_PROCS,
					       .defer_max = TOP_UNWIND_DEFER_MAX,
					       .defer_ring = TOP_UNWIND_DEFER_RING };
	top.profiling = output__profile(&a->cli.out);
	e = output__check(&a->cli.out, &err) ?: top_check_profiles(a, &err);
	if (!e)
		e = output__check(&top.heat_out, &err);
	if (e) {
		output__close(&a->cli.out);
		return err__report(&err, e, "ldlat-top", stderr);
	}

	machine__init(&top.m, MACHINE_LIVE);
	top.m.pm.want_cgroup = top.profiling; /* the profile's cgroup labels */
	top_table__init(&top.ip);
	top_table__init(&top.data);
	top_table__init(&top.stack);
	top.ip.max = top.data.max = a->max_keys;
	callpaths__init(&top.paths);
	top.tool = &tool;
	e = tool__start(&tool, &a->cli, "ldlat-top",
			&(struct tool_opts){ .prog = &top.prog.sp.p, .hooks = &hooks }, &err);
	clock_gettime(CLOCK_REALTIME, &started);
	if (!e && symbolizer__init(&top.z, &top.m.pm, a->debuginfo))
		e = -ENOMEM;
	top.z.note_tool = "ldlat-top";
	if (e) {
		/* an unmarked -ENOMEM is an allocation's; a refused perf_event_open's has its sentence */
		notice__print(stderr, "ldlat-top", "%s",
			      e == -ENOMEM && !err__has_fault(&err, e) ? "out of memory" : err.msg);
		status = err__status(&err, e);
		goto out;
	}
	if (top.prog.walk == TOP_WALK_AUTO && !top.prog.walking && top.prog.why[0])
		notice__print(stderr, "ldlat-top",
			      "--call-graph=auto: frame pointers; the kernel refused the walk from "
			      "unwind tables: %s",
			      top.prog.why);
	tool__run_info(&tool, &started, &run);
	if (top.profiling) {
		unsigned char kid[BUILDID_MAX];
		int klen = buildid__kernel(kid, sizeof(kid));

		if (klen > 0)
			buildid__hex(kid, klen, top.kernel_id, sizeof(top.kernel_id));
		if (top_profile_begin(&top, &tool.src, tool.evlist.evsel[0].name,
				      &tool.evlist.evsel[0].attr)) {
			fprintf(stderr, "ldlat-top: out of memory\n");
			status = EXIT_FAIL;
			goto out;
		}
	}
	top.view = top_view_of(a, tool.src.fields & LDLAT_HAS_LAT, &run, &tool.src);
	top.view.paths = a->call_graph ? &top.paths : NULL;
	top.printer = (struct printer){
		.tool = "ldlat-top",
		.out = &a->cli.out,
		.ops = &top_ops,
		.ctx = &top,
	};
	if (printer__init(&top.printer, tool.cfg.nranges, &started)) {
		fprintf(stderr, "ldlat-top: out of memory\n");
		status = EXIT_FAIL;
		goto out;
	}
	heatmap__init(&top.heat, tool.cfg.linear_step, a->heatmap_by_class, &started);
	notice__print(stderr, "ldlat-top", "sampling %s on %s. Ctrl-C to end.",
		      tool.evlist.evsel[0].name, tool.run.target_desc);

	/* the tables and the side band are emptied between reports */
	end = run__wait(&tool.run,
			&(struct run_wait){
				.on_interval = a->cli.interval > 0 ? top_interval : NULL,
				.on_tick = top_tick,
				.tick = TOP_TICK_SECONDS / (top.uw_open ? TOP_WALK_TICK_DIV : 1),
				.ctx = &top });
	tool__stop_sampling(&tool);
	status = tool__exit_status(&tool, end);
	if (end == RUN_ERROR)
		goto out;
	/* the last (partial) interval, or the whole run: nothing writes the tables now */
	top.printer.final = true;
	if (end != RUN_COUNT &&
	    (top_drain(&top, true) || top_carry(&top) || printer__print(&top.printer)))
		status = EXIT_FAIL;
	top_warn_paths(&top.lost);
	top_warn_walks(&top.lost.walks);
	if (!status && a->annotate_type && !top.type_seen) {
		notice__print(stderr, "ldlat-top",
			      "--annotate-type: no sample touched a type named '%s' (names as --by "
			      "type gives them: 'struct conn')",
			      a->annotate_type);
		status = EXIT_USAGE;
	}
	if (procwatch__lost(&top.watch))
		fprintf(stderr,
			"ldlat-top: warning: the side band lost %llu mapping records (its ring was "
			"full): some addresses of exited processes may stay unnamed\n",
			(unsigned long long)procwatch__lost(&top.watch));
out:
	if (top.watching)
		procwatch__stop(&top.watch);
	if (top.sink_open)
		top_sink__close(&top.sink);
	top_rows__free(&top.early_ip);
	top_rows__free(&top.early_data);
	tool__teardown(&tool);
	if (top.uw_defer_open)
		unwind_defer__close(&top.uw_defer);
	if (top.uw_open) {
		unwind_set__free(&top.uw);
		unwind_cache__close(&top.uw_cache);
	}
	top__free(&top);
	return status;
}

static const struct mode modes[] = {
	MODE_SAMPLE(sample_opts, doc, run_sample),
	MODE_INPUT("the samples of a perf.data file", input_opts,
		   "The samples of a perf.data file (perf mem record, perf record -d -W) in the "
		   "same tables, named with the file's mappings; needs no privilege.",
		   run_input),
	MODE_LIST_EVENTS(list_events_opts, MODE_LIST_EVENTS_DOC, run_list_events),
};

/* Where the arguments hold the structs of the shared option groups */
static const struct opt_place places[] = {
	{ &cli_home, offsetof(struct top_args, cli) },
	{},
};

static const struct mode_table top_modes = { "ldlat-top", modes, ARRAY_SIZE(modes), places };

int main(int argc, char **argv)
{
	struct top_args args = { .by = TOP_BY_BOTH,
				 .nrows = TOP_DEFAULT_ROWS,
				 .shift = 6,
				 .entries = TOP_DEFAULT_ENTRIES,
				 .max_stack = TOP_DEFAULT_MAX_STACK };

	stdfds__open("ldlat-top"); /* before anything opens a file */
	cli__init(&args.cli);
	args.cli.out.formats = &top_formats;
	return modes__main(&top_modes, argc, argv, &args);
}
