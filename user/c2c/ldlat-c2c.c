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
#include "user/c2c/c2creport.h"
#include "user/c2c/offc2c.h"
#include "user/offline/offline.h"
#include "user/report/output.h"
#include "user/run/cli.h"
#include "user/run/modes.h"

#define C2C_DEFAULT_ROWS 20

struct c2c_args {
	struct cli cli;
	struct output_opts out;
	struct offline_opts offline;
	bool all;
	int nrows;
	const char *debuginfo;
};

enum {
	OPT_ALL = 0x200,
	OPT_DEBUGINFO,
};

static const struct argp_option c2c_options[] = {
	{ NULL, 0, NULL, 0, "Output:", 5 },
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

static const char doc[] =
	"Which cache lines bounce between cores (perf c2c's question): load and store samples "
	"counted per 64-byte cache line, with local and remote HITM (a load that found the "
	"line modified in another core's cache), peer-cache hits and stores by L1 outcome, "
	"per offset and code address, with the threads, CPUs and NUMA nodes that touched "
	"each line.\v"
	"Examples:\n"
	"  perf c2c record -a -- sleep 5 && ldlat-c2c --input perf.data\n"
	"  ldlat-c2c --input perf.data --format json -n 0\n"
	"  ldlat-c2c --input perf.data -p 1234 --all\n"
	"\n"
	"A line is a process's own unless its mapping is MAP_SHARED: then it is the mapped "
	"file's (device, inode, offset), the same line in every process that maps it.  "
	"--format takes text or json.  Exit status: 0, 1 when the system fails, 2 for bad "
	"input.";

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
	.doc = doc,
	.children = report_children,
};

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
	if (!a->offline.input) {
		fprintf(stderr,
			"ldlat-c2c: --input FILE is needed: this version reads the files perf c2c "
			"record and perf mem record -t load,store write\n");
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
	return status;
}

static const struct mode modes[] = {
	{ "report", "input", "FILE", false, "the load and store samples of a perf.data file",
	  &report_argp, run_report },
};

static const struct mode_table c2c_modes = { "ldlat-c2c", modes, ARRAY_SIZE(modes) };

int main(int argc, char **argv)
{
	struct c2c_args args = { .nrows = C2C_DEFAULT_ROWS };

	cli__init(&args.cli);
	args.out.no_openmetrics = true;
	return modes__main(&c2c_modes, argc, argv, &args);
}
