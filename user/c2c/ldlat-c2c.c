// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ldlat-c2c - which cache lines bounce between cores: load and store
 * samples counted per cache line (HITM local and remote, peer-cache hits,
 * stores by L1 outcome), per offset and code address, with the threads,
 * CPUs and nodes that touched each line; printed as perf c2c's Shared Data
 * Cache Line Table and its per-line Pareto breakdown.
 */
#include <argp.h>
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
	struct output_opts out;
	struct offline_opts offline;
	enum c2c_by by;
	bool all;
	int nrows;
	const char *debuginfo;
	__u32 entries;
};

enum {
	OPT_ALL = 0x200,
	OPT_DEBUGINFO,
	OPT_ENTRIES,
	OPT_BY,
};

static const struct argp_option c2c_options[] = {
	{ NULL, 0, NULL, 0, "Output:", 5 },
	{ "by", OPT_BY, "VIEW", 0,
	  "line (default: the Shared Data Cache Line Table and its Pareto), node (loads by "
	  "the node of the CPU: local and remote cache and DRAM, the remote share, mean latency) "
	  "or process (the same per process and node)",
	  5 },
	{ "all", OPT_ALL, NULL, 0,
	  "every cache line, not only those with at least 0.1% of the HITM (perf c2c's rule)", 5 },
	{ "rows", 'n', "N", 0, "cache lines in the table and the Pareto (default 20; 0: all)", 5 },
	{ "debuginfo-path", OPT_DEBUGINFO, "PATH", 0,
	  "where separate debug info is looked up (default \":.debug:/usr/lib/debug\")", 5 },
	{},
};

static error_t c2c_parse(int key, char *arg, struct argp_state *state)
{
	struct c2c_args *a = state->input;
	__u64 n;

	switch (key) {
	case OPT_ALL:
		a->all = true;
		return 0;
	case OPT_BY:
		if (!strcmp(arg, "line"))
			a->by = C2C_BY_LINE;
		else if (!strcmp(arg, "node"))
			a->by = C2C_BY_NODE;
		else if (!strcmp(arg, "process"))
			a->by = C2C_BY_PROCESS;
		else
			argp_error(state, "--by '%s': expected line, node or process", arg);
		return 0;
	case 'n':
		if (!cli__parse_u64(arg, &n) || n > 1000000)
			argp_error(state, "--rows '%s' is not a number of rows (0 for all)", arg);
		a->nrows = (int)n;
		return 0;
	case OPT_DEBUGINFO:
		a->debuginfo = arg;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp c2c_opts_argp = { .options = c2c_options, .parser = c2c_parse };

/* a live run's: the kernel's tables */
static const struct argp_option entries_options[] = {
	{ "entries", OPT_ENTRIES, "N", 0,
	  "cache lines the kernel's table holds (default 16384; 4N line entries, 2N thread "
	  "entries); samples of further keys are counted as lost to a full table",
	  5 },
	{},
};

static error_t entries_parse(int key, char *arg, struct argp_state *state)
{
	struct c2c_args *a = state->input;
	__u64 n;

	if (key != OPT_ENTRIES)
		return ARGP_ERR_UNKNOWN;
	if (!cli__parse_u64(arg, &n) || !n || n > C2C_MAX_ENTRIES)
		argp_error(state, "--entries '%s' is not a table size from 1 to %u", arg,
			   C2C_MAX_ENTRIES);
	a->entries = (__u32)n;
	return 0;
}

static const struct argp entries_argp = { .options = entries_options, .parser = entries_parse };

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

static const struct argp_child sample_children[] = {
	{ &cli_argp, 0, NULL, 0 },
	{ &c2c_opts_argp, 0, NULL, 0 },
	{ &entries_argp, 0, NULL, 0 },
	{ &output_argp, 0, NULL, 0 },
	{},
};

static error_t sample_parse(int key, char *arg, struct argp_state *state)
{
	struct c2c_args *a = state->input;
	void *const in[] = { &a->cli, a, a, &a->out };
	_Static_assert(ARRAY_SIZE(in) == ARRAY_SIZE(sample_children) - 1,
		       "an input per option group");

	(void)arg;
	return modes__children(key, state, in, ARRAY_SIZE(in));
}

static const struct argp sample_argp = {
	.parser = sample_parse,
	.args_doc = "[-- COMMAND [ARGS...]]",
	.doc = doc,
	.children = sample_children,
};

static const struct argp_child report_children[] = {
	{ &cli_pid_argp, 0, NULL, 0 },
	{ &cli_filter_argp, 0, NULL, 0 },
	{ &cli_verbose_argp, 0, NULL, 0 },
	{ &c2c_opts_argp, 0, NULL, 0 },
	{ &output_argp, 0, NULL, 0 },
	{ &offline_argp, 0, NULL, 0 },
	{},
};

static error_t report_parse(int key, char *arg, struct argp_state *state)
{
	struct c2c_args *a = state->input;
	void *const in[] = { &a->cli, &a->cli, &a->cli, a, &a->out, &a->offline };
	_Static_assert(ARRAY_SIZE(in) == ARRAY_SIZE(report_children) - 1,
		       "an input per option group");

	(void)arg;
	return modes__children(key, state, in, ARRAY_SIZE(in));
}

static const struct argp report_argp = {
	.parser = report_parse,
	.doc = "The load and store samples of a perf.data file (perf c2c record, perf mem record "
	       "-t load,store) in the same tables, named with the file's mappings; needs no "
	       "privilege.",
	.children = report_children,
};

/* --format openmetrics and prometheus are ldlat-hist's: 0, or the exit status. */
static int c2c_refuse(const struct c2c_args *a)
{
	if (!output__exposition(a->out.format))
		return 0;
	fprintf(stderr, "ldlat-c2c: --format %s is not one of ldlat-c2c's: use text or json\n",
		a->out.format == OUTPUT_PROMETHEUS ? "prometheus" : "openmetrics");
	return EXIT_USAGE;
}

static int run_report(void *input)
{
	struct c2c_args *a = input;
	struct offc2c c;
	struct c2c_view v = {};
	struct err err = {};
	char target[600];
	int e, status;

	if (output__exposition(a->out.format)) {
		fprintf(stderr,
			"ldlat-c2c: --format %s is not one of ldlat-c2c's: use text or json\n",
			a->out.format == OUTPUT_PROMETHEUS ? "prometheus" : "openmetrics");
		return EXIT_USAGE;
	}
	e = output__check(&a->out, &err);
	if (!e)
		e = offc2c__open(&c, a->offline.input, &a->cli, a->debuginfo, &err);
	else
		memset(&c, 0, sizeof(c));
	if (!e)
		e = offc2c__read(&c, &err);
	if (e) {
		status = err__report(&err, e, "ldlat-c2c", stderr);
		goto out;
	}
	snprintf(target, sizeof(target), "%s", c.o.target);
	v = (struct c2c_view){
		.t = &c.t,
		.target = target,
		.events = c.o.events,
		.by = a->by,
		.all = a->all,
		.nrows = a->nrows,
		.json = a->out.format == OUTPUT_JSON,
		.kept = c.kept,
		.filtered = c.filtered,
		.lost = c.o.stats.lost,
		.malformed = c.o.malformed,
		.unknown_id = c.o.unknown_id,
		.other = c.o.other_events,
	};
	e = output__write(&a->out, c2c_report__render, &v, false, &err);
	status = e ? err__report(&err, e, "ldlat-c2c", stderr) : EXIT_OK;
out:
	offc2c__close(&c);
	output__close(&a->out);
	return status;
}

static const struct argp_child list_events_children[] = {
	{ &cli_source_argp, 0, NULL, 0 },
	{ &cli_list_events_argp, 0, NULL, 0 },
	{ &cli_verbose_argp, 0, NULL, 0 },
	{},
};

static error_t list_events_parse(int key, char *arg, struct argp_state *state)
{
	struct c2c_args *a = state->input;
	void *const in[] = { &a->cli, &a->cli, &a->cli };
	_Static_assert(ARRAY_SIZE(in) == ARRAY_SIZE(list_events_children) - 1,
		       "an input per option group");

	(void)arg;
	return modes__children(key, state, in, ARRAY_SIZE(in));
}

static const struct argp list_events_argp = {
	.parser = list_events_parse,
	.doc = "Prints the event a live run would open on this machine, why, and its "
	       "perf_event_attr; opens nothing.",
	.children = list_events_children,
};

static int run_list_events(void *input)
{
	struct c2c_args *a = input;

	a->cli.source.sample_ip = true;
	return list_events(stdout, &a->cli, "ldlat-c2c");
}

struct live {
	struct c2c_args *args;
	struct c2c_prog prog;
	struct procmaps pm;
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

	e = procwatch__start(&l->watch, &l->pm, &t->run.target, cmd ? &cmd : t->run.procs,
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

/* A process's name (the side band's, else /proc's) and its cgroup v2 path (/proc's, if it runs). */
static void live_name(struct procmaps *pm, struct c2c_numa *n)
{
	const struct proc *p = procmaps__find(pm, n->tgid);
	char path[64], line[256];
	FILE *f;

	if (p && p->comm[0])
		snprintf(n->comm, sizeof(n->comm), "%s", p->comm);
	snprintf(path, sizeof(path), "/proc/%u/comm", n->tgid);
	if (!n->comm[0] && (f = fopen(path, "re"))) {
		if (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(n->comm, sizeof(n->comm), "%s", line);
		}
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%u/cgroup", n->tgid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(n->cgroup, sizeof(n->cgroup), "%s", line + 3);
		}
	fclose(f);
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
	struct c2c_view v;
	struct tool tool;
	enum run_end end;
	struct err err = {};
	char target[600], events[512];
	int e, i, k, status;

	if (c2c_refuse(a))
		return EXIT_USAGE;
	if (a->cli.interval > 0) {
		fprintf(stderr, "ldlat-c2c: -i is not one of ldlat-c2c's: it prints once, at the "
				"end (-d sets how long it samples)\n");
		return EXIT_USAGE;
	}
	e = output__check(&a->out, &err);
	if (e)
		return err__report(&err, e, "ldlat-c2c", stderr);
	a->cli.source.sample_ip = true;
	procmaps__init(&l.pm);
	c2c_table__init(&t, LDLAT_C2C_LINE_SHIFT);
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
	if (symbolizer__init(&l.z, &l.pm, a->debuginfo)) {
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
		}
	for (i = 0; i < t.nnuma; i++)
		live_name(&l.pm, &t.numa[i]);
	c2c_table__sort(&t);
	snprintf(target, sizeof(target), "%s", tool.run.target_desc);
	for (i = 0, k = 0; i < tool.evlist.nevsel && k < (int)sizeof(events); i++)
		k += snprintf(events + k, sizeof(events) - k, "%s%s", i ? ", " : "",
			      tool.evlist.evsel[i].name);
	t.no_addr = got.cnt.no_addr;
	v = (struct c2c_view){
		.t = &t,
		.target = target,
		.events = events,
		.by = a->by,
		.all = a->all,
		.nrows = a->nrows,
		.json = a->out.format == OUTPUT_JSON,
		.kept = got.cnt.kept,
		.filtered = got.cnt.dropped,
		.full = got.cnt.full,
		.failed = got.cnt.failed,
		.live = true,
	};
	if (output__write(&a->out, c2c_report__render, &v, false, &err))
		status = err__report(&err, -EIO, "ldlat-c2c", stderr);
out:
	if (l.watching)
		procwatch__stop(&l.watch);
	tool__teardown(&tool);
	if (l.z_init)
		symbolizer__free(&l.z);
	c2c_table__free(&t);
	procmaps__free(&l.pm);
	output__close(&a->out);
	return status;
}

static const struct mode modes[] = {
	{ "sample", NULL, NULL, true, "sample live, with the options above", &sample_argp,
	  run_sample },
	{ "report", "input", "FILE", false, "the load and store samples of a perf.data file",
	  &report_argp, run_report },
	{ "list-events", "list-events", NULL, false, "the event it would open, and why",
	  &list_events_argp, run_list_events },
};

static const struct mode_table c2c_modes = { "ldlat-c2c", modes, ARRAY_SIZE(modes) };

int main(int argc, char **argv)
{
	struct c2c_args args = { .nrows = C2C_DEFAULT_ROWS, .entries = C2C_DEFAULT_ENTRIES };

	stdfds__open("ldlat-c2c"); /* before anything opens a file */
	cli__init(&args.cli);
	args.out.no_openmetrics = true;
	return modes__main(&c2c_modes, argc, argv, &args);
}
