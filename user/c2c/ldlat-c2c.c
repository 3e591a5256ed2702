// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ldlat-c2c - which cache lines bounce between cores: load and store
 * samples counted per cache line (HITM local and remote, peer-cache hits,
 * stores by L1 outcome), per offset and code address, with the threads,
 * CPUs and nodes that touched each line; printed as perf c2c's Shared Data
 * Cache Line Table and its per-line Pareto breakdown.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/lib/util.h"
#include "user/c2c/c2cbpf.h"
#include "user/c2c/c2cevents.h"
#include "user/c2c/c2creport.h"
#include "user/c2c/offc2c.h"
#include "user/offline/offline.h"
#include "user/report/output.h"
#include "user/run/cli.h"
#include "user/run/listevents.h"
#include "user/run/modes.h"
#include "user/run/tool.h"
#include "user/symbols/demangle.h"
#include "user/symbols/procwatch.h"
#include "user/symbols/symbolize.h"
#include "kernel/lib/notice.h"
#include "user/run/stdfds.h"

#define C2C_DEFAULT_ROWS    20
#define C2C_DEFAULT_ENTRIES 16384
#define C2C_MAX_ENTRIES	    (1u << 20)
#define C2C_TICK_SECONDS    0.1 /* the side band is read this often */

struct c2c_args {
	struct cli cli;
	enum c2c_by by;
	bool all;
	int nrows;
	const char *debuginfo;
	enum demangle_style demangle;
	__u32 entries;
};

/* --by's keys: the views, whose rows are keyed by cache line, by node, or by process and node */
static const struct opt_word by_keys[] = {
	{ "line", C2C_BY_LINE },
	{ "node", C2C_BY_NODE },
	{ "process", C2C_BY_PROCESS },
	{},
};

static const struct opt c2c_options[] = {
	{ "by", 0, "VIEW", 0,
	  "line (default: the Shared Data Cache Line Table and its Pareto), node (loads by "
	  "the node of the CPU: local and remote cache and DRAM, the remote share, mean latency) "
	  "or process (the same per process and node)",
	  OPT_KEYS, OPT_TO(struct c2c_args, by), .words = by_keys },
	{ "all", 0, NULL, 0,
	  "every cache line, not only those with at least 0.1% of the HITM (perf c2c's rule)",
	  OPT_FLAG, OPT_TO(struct c2c_args, all) },
	CLI_ROWS("cache lines in the table and the Pareto (default 20; 0: all)", struct c2c_args,
		 nrows),
	CLI_DEBUGINFO("where separate debug info is looked up (default \":.debug:/usr/lib/debug\")",
		      struct c2c_args, debuginfo),
	CLI_DEMANGLE(struct c2c_args, demangle),
	{},
};

/* a live run's: the kernel's tables */
static const struct opt entries_options[] = {
	CLI_ENTRIES(
		"cache lines the kernel's table holds (default 16384; 4N line entries, 2N thread "
		"entries); samples of further keys are counted as lost to a full table",
		struct c2c_args, entries, C2C_MAX_ENTRIES),
	{},
};

static const struct opt_group c2c_opts = { 5, "Output:", c2c_options };
static const struct opt_group entries_opts = { 5, NULL, entries_options };

static const char doc[] =
	"Which cache lines bounce between cores (perf c2c's question): load and store samples "
	"counted per 64-byte cache line, with local and remote HITM (a load that found the "
	"line modified in another core's cache), peer-cache hits and stores by L1 outcome, "
	"per offset and code address, with the threads, CPUs and NUMA nodes that touched "
	"each line.\v"
	"Examples:\n"
	"  ldlat-c2c -d 10                          # whole machine for 10 seconds\n"
	"  ldlat-c2c -p 1234 --by process           # PID 1234: the lines, then per node\n"
	"  ldlat-c2c --source page-faults -- ./app  # first touches: addresses, no HITM\n"
	"  perf c2c record -a -- sleep 5 && ldlat-c2c --input perf.data\n"
	"  ldlat-c2c --input perf.data --format json -n 0\n"
	"  ldlat-c2c --input perf.data --by node    # local and remote loads per node\n"
	"\n"
	"A line is a process's own unless its mapping is MAP_SHARED: then it is the mapped "
	"file's (device, inode, offset), the same line in every process that maps it.  "
	"--format takes text or json.  Exit status: 0, 1 when the system fails, 2 for bad "
	"input.";

/* Each mode's options */
static const struct opt_group *const sample_opts[] = { &cli_sample_opts, &c2c_opts, &entries_opts,
						       &cli_output_opts, NULL };

static const struct opt_group *const input_opts[] = { &cli_offline_opts, &c2c_opts,
						      &cli_output_opts, NULL };

static const struct opt_group *const list_events_opts[] = { &cli_list_opts, NULL };

static int run_input(void *input)
{
	struct c2c_args *a = input;
	struct offc2c c;
	struct c2c_report v = {};
	struct err err = {};
	char target[600];
	int e, status;

	demangle__set_style(a->demangle);
	e = output__check(&a->cli.out, &err);
	if (!e)
		e = offc2c__open(&c, a->cli.input, &a->cli, a->debuginfo, &err);
	else
		memset(&c, 0, sizeof(c));
	if (!e)
		e = offc2c__read(&c, &err);
	if (e) {
		status = err__report(&err, e, "ldlat-c2c", stderr);
		goto out;
	}
	snprintf(target, sizeof(target), "%s", c.o.target);
	v = (struct c2c_report){
		.t = &c.t,
		.target = target,
		.events = c.o.events,
		.by = a->by,
		.all = a->all,
		.nrows = a->nrows,
		.kept = c.kept,
		.filtered = c.filtered,
		.lost = c.o.stats.lost,
		.malformed = c.o.malformed,
		.unknown_id = c.o.unknown_id,
		.other = c.o.other_events,
		.line_from = c.line_from,
	};
	e = output__write(&a->cli.out, &v, false, &err);
	status = e ? err__report(&err, e, "ldlat-c2c", stderr) : EXIT_OK;
out:
	offc2c__close(&c);
	output__close(&a->cli.out);
	return status;
}

static int run_list_events(void *input)
{
	struct c2c_args *a = input;

	a->cli.source.sample_ip = true;
	return list_events(stdout, &a->cli, "ldlat-c2c");
}

struct live {
	struct c2c_args *args;
	struct c2c_prog prog;
	struct machine m;
	struct symbolizer z;
	bool z_init;
	struct procwatch watch;
	bool watching;
};

/* Loads and stores both, unless --op says otherwise; the program reads what the kernel gives. */
static int live_configure(struct tool *t, void *ctx, struct err *err)
{
	struct live *l = ctx;
	int i, n = t->evlist.nevsel, e;

	if (!l->args->cli.op_set && (t->cfg.need & LDLAT_HAS_DSRC))
		t->cfg.op_mask = PERF_MEM_OP_LOAD | PERF_MEM_OP_STORE;
	/* Intel: mem-stores beside each load-latency event (not inside a group: its own) */
	for (i = 0; t->src.kind == SOURCE_LDLAT && !t->evlist.group && i < n; i++) {
		struct evsel st;

		e = c2c_stores_evsel(&t->evlist.evsel[i], &st, err);
		if (e < 0)
			return e;
		if (e && evlist__add(&t->evlist, &st)) {
			cpumap__free(&st.cpus);
			return err__set(err, -ENOMEM, "out of memory");
		}
	}
	/* before Linux 6.2 the program reads the address alone */
	if (t->path != SESSION_PATH_KERN_CTX && (t->cfg.need & ~LDLAT_HAS_ADDR)) {
		fprintf(stderr,
			"ldlat-c2c: warning: this kernel has no bpf_cast_to_kern_ctx (Linux 6.2): "
			"the lines count addresses only (no data source, no HITM)\n");
		t->cfg.need = LDLAT_HAS_ADDR;
		t->cfg.op_mask = 0;
		t->cfg.class_mask = LDLAT_ALL_CLASSES;
	}
	return 0;
}

/* Events open and attached, not enabled; a command still stopped: learn the processes. */
static int live_before_enable(struct tool *t, void *ctx, struct err *err)
{
	struct live *l = ctx;
	pid_t cmd = t->run.has_cmd ? t->run.cmd.pid : 0;
	int e;

	e = procwatch__start(&l->watch, &l->m, &t->run.target, cmd ? &cmd : t->run.procs,
			     cmd ? 1 : t->run.nprocs, err);
	l->watching = !e;
	if (e)
		procwatch__stop(&l->watch);
	return e;
}

static int live_tick(void *ctx)
{
	struct live *l = ctx;

	return procwatch__drain(&l->watch);
}

static int run_sample(void *input)
{
	struct c2c_args *a = input;
	struct live l = { .args = a, .prog = { .p.ops = &c2c_prog_ops, .entries = a->entries } };
	struct tool_hooks hooks = { .configure = live_configure,
				    .before_enable = live_before_enable,
				    .ctx = &l };
	struct c2c_table t;
	struct c2c_read got = { .t = &t };
	struct c2c_report v;
	const char *line_from;
	struct tool tool;
	enum run_end end;
	struct err err = {};
	char target[600], events[512];
	int e, i, k, status;

	demangle__set_style(a->demangle);
	/* a format it lacks is told before -i, whose refusal is ldlat-c2c's own */
	e = output__supported(&a->cli.out, &err);
	if (e)
		return err__report(&err, e, "ldlat-c2c", stderr);
	if (a->cli.interval > 0) {
		fprintf(stderr, "ldlat-c2c: -i is not one of ldlat-c2c's: it prints once, at the "
				"end (-d sets how long it samples)\n");
		return EXIT_USAGE;
	}
	e = output__check(&a->cli.out, &err);
	if (e)
		return err__report(&err, e, "ldlat-c2c", stderr);
	a->cli.source.sample_ip = true;
	machine__init(&l.m, MACHINE_LIVE);
	l.prog.line_shift = c2c_line_shift(&line_from);
	c2c_table__init(&t, l.prog.line_shift);
	e = tool__start(&tool, &a->cli, "ldlat-c2c",
			&(struct tool_opts){ .prog = &l.prog.p, .hooks = &hooks }, &err);
	if (e) {
		status = err__report(&err, e, "ldlat-c2c", stderr);
		goto out;
	}
	notice__print(stderr, "ldlat-c2c", "sampling %s on %s. Ctrl-C to end.",
		      tool.evlist.evsel[0].name, tool.run.target_desc);
	end = run__wait(
		&tool.run,
		&(struct run_wait){ .on_tick = live_tick, .tick = C2C_TICK_SECONDS, .ctx = &l });
	tool__stop_sampling(&tool);
	status = tool__exit_status(&tool, end);
	if (end == RUN_ERROR)
		goto out;
	if (l.watching)
		procwatch__drain(&l.watch);
	e = prog__read(&l.prog.p, &got, true, &err);
	if (e) {
		status = err__report(&err, e, "ldlat-c2c", stderr);
		goto out;
	}
	if (symbolizer__init(&l.z, &l.m.pm, a->debuginfo)) {
		fprintf(stderr, "ldlat-c2c: out of memory\n");
		status = EXIT_FAIL;
		goto out;
	}
	l.z_init = true;
	l.z.note_tool = "ldlat-c2c";
	symbolizer__begin(&l.z);
	for (i = 0; i < t.nlines; i++)
		for (k = 0; k < t.lines[i]->nent; k++) {
			struct c2c_entry *en = &t.lines[i]->ent[k];
			struct sym sym;

			symbolizer__ip(&l.z, en->tgid, en->ip, &sym);
			en->symbol = strdup(sym.name);
			en->object = strdup(sym.where);
			en->dt = symbolizer__datatype(&l.z, en->tgid, en->ip);
		}
	/* a process's name (the side band's, else /proc's), its cgroup v2 path (/proc's, if it runs) */
	for (i = 0; i < t.nnuma; i++) {
		machine__comm(&l.m, (pid_t)t.numa[i].tgid, t.numa[i].comm, sizeof(t.numa[i].comm));
		machine__cgroup(&l.m, (pid_t)t.numa[i].tgid, t.numa[i].cgroup,
				sizeof(t.numa[i].cgroup));
	}
	c2c_table__sort(&t);
	snprintf(target, sizeof(target), "%s", tool.run.target_desc);
	for (i = 0, k = 0; i < tool.evlist.nevsel && k < (int)sizeof(events); i++)
		k += snprintf(events + k, sizeof(events) - k, "%s%s", i ? ", " : "",
			      tool.evlist.evsel[i].name);
	t.no_addr = got.cnt.no_addr;
	v = (struct c2c_report){
		.t = &t,
		.line_from = line_from,
		.target = target,
		.events = events,
		.by = a->by,
		.all = a->all,
		.nrows = a->nrows,
		.kept = got.cnt.kept,
		.filtered = got.cnt.dropped,
		.full = got.cnt.full,
		.failed = got.cnt.failed,
		.live = true,
	};
	if (output__write(&a->cli.out, &v, false, &err))
		status = err__report(&err, -EIO, "ldlat-c2c", stderr);
out:
	if (l.watching)
		procwatch__stop(&l.watch);
	tool__teardown(&tool);
	if (l.z_init)
		symbolizer__free(&l.z);
	c2c_table__free(&t);
	machine__free(&l.m);
	output__close(&a->cli.out);
	return status;
}

static const struct mode modes[] = {
	MODE_SAMPLE(sample_opts, doc, run_sample),
	MODE_INPUT("the load and store samples of a perf.data file", input_opts,
		   "The load and store samples of a perf.data file (perf c2c record, perf mem "
		   "record -t load,store) in the same tables, named with the file's mappings; "
		   "needs no privilege.",
		   run_input),
	MODE_LIST_EVENTS(list_events_opts,
			 "Prints the event a live run would open on this machine, why, and its "
			 "perf_event_attr; opens nothing.",
			 run_list_events),
};

/* Where the arguments hold the structs of the shared option groups */
static const struct opt_place places[] = {
	{ &cli_home, offsetof(struct c2c_args, cli) },
	{},
};

static const struct mode_table c2c_modes = { "ldlat-c2c", modes, ARRAY_SIZE(modes), places };

int main(int argc, char **argv)
{
	struct c2c_args args = { .nrows = C2C_DEFAULT_ROWS, .entries = C2C_DEFAULT_ENTRIES };

	stdfds__open("ldlat-c2c"); /* before anything opens a file */
	cli__init(&args.cli);
	args.cli.out.formats = &c2c_formats;
	return modes__main(&c2c_modes, argc, argv, &args);
}
