// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <bpf/libbpf.h>

#include "user/run/cli.h"
#include "user/run/runloop.h"
#include "user/symbols/demangle.h"
#include "kernel/abi/datasrc.h"
#include "kernel/lib/err.h"
#include "kernel/lib/util.h"

void cli__init(struct cli *cli)
{
	memset(cli, 0, sizeof(*cli));
	cli->source.kind = SOURCE_AUTO;
	cli->max_lat = ~0ull;
	cli->class_mask = LDLAT_ALL_CLASSES;
	cli->op_mask = PERF_MEM_OP_LOAD;
}

const struct opt_word cli_demangle_styles[] = {
	{ "short", DEMANGLE_SHORT },
	{ "full", DEMANGLE_FULL },
	{ "no", DEMANGLE_NO },
	{},
};

static const struct opt_word sources[] = {
	{ "ldlat", SOURCE_LDLAT },
	{ "page-faults", SOURCE_PAGE_FAULTS },
	{ "faults", SOURCE_PAGE_FAULTS, .alias = true },
	{ "auto", SOURCE_AUTO },
	{},
};

static int parse_event(void *base, const char *arg, struct err *err)
{
	struct cli *cli = base;

	if (!*arg)
		return err__set(err, -EINVAL,
				"--event '': expected an event spec (cpu/event=0xcd,umask=0x1/)");
	cli->source.event = arg;
	return 0;
}

static int parse_loads(void *base, const char *arg, struct err *err)
{
	struct cli *cli = base;

	(void)err;
	cli->loads = true;
	cli->loads_event = arg;
	return 0;
}

static int parse_range(void *base, const char *arg, struct err *err)
{
	struct cli *cli = base;

	return range_set__add(&cli->ranges, arg, err) ? -EINVAL : 0;
}

static int parse_classes(void *base, const char *arg, struct err *err)
{
	struct cli *cli = base;
	struct err why = {};

	if (class__parse_list(arg, &cli->class_mask, &why))
		return err__set(err, -EINVAL, "-s: %s", why.msg);
	return 0;
}

static int parse_ops(void *base, const char *list, struct err *err)
{
	static const struct {
		const char *name;
		__u32 bits;
	} ops[] = {
		{ "load", PERF_MEM_OP_LOAD },	  { "store", PERF_MEM_OP_STORE },
		{ "pfetch", PERF_MEM_OP_PFETCH }, { "prefetch", PERF_MEM_OP_PFETCH },
		{ "exec", PERF_MEM_OP_EXEC },	  { "any", 0 },
	};
	__u32 *mask = &((struct cli *)base)->op_mask;
	char *copy = strdup(list), *tok, *save = NULL;
	unsigned int i;
	bool any = false, found;

	if (!copy)
		return err__set(err, -ENOMEM, "out of memory");
	*mask = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		found = false;
		for (i = 0; i < ARRAY_SIZE(ops) && !found; i++) {
			if (strcasecmp(tok, ops[i].name))
				continue;
			found = true;
			*mask |= ops[i].bits;
			any |= !ops[i].bits;
		}
		if (!found) {
			err__msg(err,
				 "--op: unknown memory op '%s' (load, store, pfetch, exec, any)",
				 tok);
			free(copy);
			return -EINVAL;
		}
	}
	free(copy);
	if (any)
		*mask = 0;
	else if (!*mask) {
		return err__set(err, -EINVAL, "--op: empty list (load, store, pfetch, exec, any)");
	}
	return 0;
}

bool cli__positional_number(const char *s)
{
	char *end;
	double v;

	return s && opts__parse_seconds(s, &v, &end) && !*end;
}

/* [interval [count]] after the options, as biolatency and vmstat take them */
static int cli__positional(struct cli *cli, const char *arg, struct err *err)
{
	char *end;
	__u64 v;

	if (!cli->interval) {
		opts__parse_seconds(arg, &cli->interval, &end);
		if (cli->interval < RUNLOOP_MIN_SECONDS)
			return err__set(err, -EINVAL, "interval '%s': %s", arg, RUNLOOP_TOO_SHORT);
		return 0;
	}
	if (cli->count)
		return err__set(err, -EINVAL,
				"'%s': the interval and the count are already given; a command "
				"named like a number goes after --",
				arg);
	if (!opts__parse_u64(arg, &v) || !v || v > 1000000000)
		return err__set(err, -EINVAL, "count '%s' is not a whole number of intervals", arg);
	cli->count = (long)v;
	return 0;
}

static int parse_interval(void *base, const char *arg, struct err *err)
{
	struct cli *cli = base;
	char *end;
	__u64 v;

	if (!opts__parse_seconds(arg, &cli->interval, &end) ||
	    (*end && (*end != ',' || !opts__parse_u64(end + 1, &v) || !v || v > 1000000000)))
		return err__set(err, -EINVAL, "--interval '%s': expected SECONDS or SECONDS,COUNT",
				arg);
	if (cli->interval < RUNLOOP_MIN_SECONDS)
		return err__set(err, -EINVAL, "--interval '%s': %s", arg, RUNLOOP_TOO_SHORT);
	if (*end)
		cli->count = (long)v;
	return 0;
}

/* A non-option argument: biolatency's [interval [count]], or the command. */
static int cli__arg(void *base, struct argp_state *state, const char *arg, struct err *err)
{
	struct cli *cli = base;

	/* numbers before a command and not after -- */
	if (!cli->target.argv && cli__positional_number(arg) &&
	    !(state->next >= 2 && !strcmp(state->argv[state->next - 2], "--")))
		return cli__positional(cli, arg, err);
	/* the first other argument starts the command: the rest are its own */
	cli->target.argv = &state->argv[state->next - 1];
	state->next = state->argc;
	return 0;
}

/* Once every option is read: what no single option can tell. */
static int cli__check(void *base, struct err *err)
{
	struct cli *cli = base;

	if (cli->min_lat > cli->max_lat)
		return err__set(err, -EINVAL, "--min-lat %llu is above --max-lat %llu",
				(unsigned long long)cli->min_lat, (unsigned long long)cli->max_lat);
	if (cli->source.period && cli->source.freq)
		return err__set(err, -EINVAL, "--period and --freq both given: choose one");
	return target_opts__check(&cli->target, err) ? -EINVAL : 0;
}

/* --help lists the class names from the one table that defines them. */
static char *cli__class_help(const char *doc, const void *base)
{
	char *out;

	(void)base;
	if (asprintf(&out, "%s (%s)", doc, class__list_help()) < 0)
		return (char *)doc;
	return out;
}

/* What to sample: the sampling tools' own */
static const struct opt source_options[] = {
	{ "source", 0, "SRC", 0,
	  "auto (the default: ldlat where the CPU has it, else page-faults, saying why), "
	  "ldlat (the CPU's load-latency event; fail without one), or page-faults (software "
	  "event: addresses only)",
	  OPT_WORD, OPT_TO(struct cli, source.kind), OPT_SETS(struct cli, source_set),
	  .words = sources },
	{ "ldlat", 'L', "CYCLES", 0,
	  "hardware latency threshold in core cycles (default: ldlat in tools.conf's [defaults])",
	  OPT_NUMBER, OPT_TO(struct cli, source.ldlat), .min = 1,
	  .what = "a positive number of cycles" },
	{ "period", 'c', "N", 0, "sample every Nth event (default: tools.conf's [defaults])",
	  OPT_NUMBER, OPT_TO(struct cli, source.period), .min = 1, .what = "a positive number" },
	{ "freq", 'F', "HZ", 0, "sample N times a second (default: tools.conf's [defaults])",
	  OPT_NUMBER, OPT_TO(struct cli, source.freq), .min = 1,
	  .what = "a positive number of hertz" },
	{ "event", 'e', "SPEC", 0,
	  "the load-latency event, in perf's syntax (cpu/event=0xcd,umask=0x1/pp, "
	  "{cpu/mem-loads-aux/,cpu/mem-loads/}, r1cd), instead of tools.conf's entry for this CPU",
	  OPT_PARSE, .parse = parse_event },
	{ "config", 0, "FILE", 0, "read the event table and defaults from FILE, not tools.conf",
	  OPT_TEXT, OPT_TO(struct cli, config) },
	{},
};

static const struct opt list_events_options[] = {
	/* the mode it selects is the modes table's (modes.h) */
	{ "list-events", 0, NULL, 0,
	  "print the load-latency event chosen for this machine, why, and its perf_event_attr; "
	  "then exit",
	  OPT_FLAG },
	{},
};

/* Which samples to keep */
static const struct opt filter_options[] = {
	{ "addr", 'a', "RANGE", 0,
	  "data addresses in RANGE: LO-HI or LO+SIZE (addresses in hex, 0x optional; SIZE in "
	  "bytes with K/M/G/T, or 0x hex), or a mapping of the target process ([heap], "
	  "[stack], a file path or name); repeat for up to 16 ranges",
	  OPT_PARSE, .parse = parse_range },
	{ "min-lat", 0, "CYCLES", 0, "latency at least CYCLES", OPT_NUMBER,
	  OPT_TO(struct cli, min_lat), OPT_SETS(struct cli, min_lat_set),
	  .what = "a number of cycles" },
	{ "max-lat", 0, "CYCLES", 0, "latency at most CYCLES", OPT_NUMBER,
	  OPT_TO(struct cli, max_lat), OPT_SETS(struct cli, max_lat_set),
	  .what = "a number of cycles" },
	{ "class", 's', "LIST", 0, "data-source classes, comma-separated", OPT_PARSE,
	  OPT_SETS(struct cli, class_set), .parse = parse_classes, .help = cli__class_help },
	{ "op", 0, "LIST", 0, "memory ops: load (default), store, pfetch, exec, any", OPT_PARSE,
	  OPT_SETS(struct cli, op_set), .parse = parse_ops },
	{},
};

/* Where: every tool's, sampling or counting; -p apart, as --input filters by it */
static const struct opt where_options[] = {
	{ "cpu", 'C', "LIST", 0, "only these CPUs (0-3,8)", OPT_TEXT,
	  OPT_TO(struct cli, target.cpus) },
	{ "cgroup", 'G', "PATH", 0,
	  "only this cgroup v2 directory (a container, a systemd unit): a path under the "
	  "cgroup v2 mount, as /proc/PID/cgroup shows it (/system.slice/db.service, "
	  "0::/user.slice, / for the root), or the directory itself",
	  OPT_TEXT, OPT_TO(struct cli, target.cgroup) },
	{ "inherit", 0, NULL, 0, "with -p, also children and threads created later", OPT_FLAG,
	  OPT_TO(struct cli, target.inherit) },
	{},
};

static const struct opt pid_options[] = {
	{ "pid", 'p', "PID[,PID]", 0, "only these processes (all their threads)", OPT_TEXT,
	  OPT_TO(struct cli, target.pids) },
	{},
};

/* For how long */
static const struct opt when_options[] = {
	{ "duration", 'd', "SECONDS", 0, "stop after SECONDS (at least 0.01)", OPT_SECONDS,
	  OPT_TO(struct cli, duration), .least = RUNLOOP_MIN_SECONDS,
	  .what = "a positive number of seconds", .too_small = RUNLOOP_TOO_SHORT },
	{ "interval", 'i', "SECONDS[,COUNT]", 0,
	  "print every SECONDS (at least 0.01) what the interval saw; stop after COUNT "
	  "intervals",
	  OPT_PARSE, .parse = parse_interval },
	{},
};

static const struct opt verbose_options[] = {
	{ "verbose", 'v', NULL, 0, "say more: resolved ranges, events, libbpf's messages",
	  OPT_COUNT, OPT_TO(struct cli, verbose) },
	{},
};

/* --loads: ldlat-hist's only, so a group of its own */
static const struct opt loads_options[] = {
	{ "loads", 0, "EVENT", OPTION_ARG_OPTIONAL,
	  "also count every retired load (EVENT: this CPU's retired-loads event through "
	  "libpfm4), to print what share of all loads the samples stand for",
	  OPT_PARSE, .parse = parse_loads },
	{},
};

const struct opt_home cli_home = { "struct cli" };

/* Every group of struct cli's takes the non-option arguments and checks them at the end. */
#define CLI_GROUP .home = &cli_home, .check = cli__check, .arg = cli__arg

const struct opt_group cli_source_opts = { 1, "What to sample:", source_options, CLI_GROUP };
const struct opt_group cli_list_events_opts = { 1, NULL, list_events_options, CLI_GROUP };
const struct opt_group cli_filter_opts = { 3,
					   "Which samples to keep (in the kernel):", filter_options,
					   CLI_GROUP };
const struct opt_group cli_where_opts = { 2, "Where (default: the whole machine):", where_options,
					  CLI_GROUP };
const struct opt_group cli_pid_opts = { 2, NULL, pid_options, CLI_GROUP };
const struct opt_group cli_when_opts = { 4, "For how long:", when_options, CLI_GROUP };
const struct opt_group cli_verbose_opts = { 4, NULL, verbose_options, CLI_GROUP };
const struct opt_group cli_loads_opts = { 1, NULL, loads_options, CLI_GROUP };

const struct opt_group cli_sample_opts = {
	.subs = (const struct opt_group *const[]){ &cli_source_opts, &cli_filter_opts,
						   &cli_where_opts, &cli_pid_opts, &cli_when_opts,
						   &cli_verbose_opts, NULL },
};

const struct opt_group cli_target_opts = {
	.subs = (const struct opt_group *const[]){ &cli_where_opts, &cli_pid_opts, &cli_when_opts,
						   &cli_verbose_opts, NULL },
};

static const struct opt input_options[] = {
	{ "input", 0, "FILE", 0,
	  "analyse the samples of a perf.data file (perf mem record, perf record -d -W) with "
	  "the same filters and reports, instead of sampling; needs no privilege",
	  OPT_TEXT, OPT_TO(struct cli, input), .what = "file name" },
	{},
};

const struct opt_group cli_input_opts = { 8, "Offline:", input_options, CLI_GROUP };

const struct opt_group cli_offline_opts = {
	.subs = (const struct opt_group *const[]){ &cli_pid_opts, &cli_filter_opts,
						   &cli_verbose_opts, &cli_input_opts, NULL },
};

const struct opt_group cli_list_opts = {
	.subs = (const struct opt_group *const[]){ &cli_source_opts, &cli_list_events_opts,
						   &cli_verbose_opts, NULL },
};

/* --format and --output: which formats a tool has is its own (output.h) */
static int parse_format(void *base, const char *arg, struct err *err)
{
	return output__parse_format(&((struct cli *)base)->out, arg, err);
}

static char *format_help(const char *doc, const void *base)
{
	return output__format_help(base ? &((const struct cli *)base)->out : NULL, doc);
}

static const struct opt output_options[] = {
	{ "format", 0, "FMT", 0,
	  "text (default), json (one object per report, one per line), prometheus (totals since "
	  "the start in the Prometheus text format: node_exporter's textfile collector, promtool) "
	  "or openmetrics (the same in OpenMetrics 1.0)",
	  OPT_PARSE, .parse = parse_format, .help = format_help },
	{ "output", 0, "FILE", 0,
	  "write each report to FILE, replacing it atomically (for the node_exporter textfile "
	  "collector: a FILE.prom in its directory) and keeping its mode and owner (a new FILE: "
	  "0666 less the umask); a symbolic link's file is replaced, the link kept; a FIFO, a "
	  "terminal or a socket (/dev/stdout) is written in place; a directory is refused",
	  OPT_TEXT, OPT_TO(struct cli, out.path), .what = "file name" },
	{},
};

const struct opt_group cli_output_opts = { 6, "Output format:", output_options, CLI_GROUP };

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	return vfprintf(stderr, fmt, ap);
}

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

void cli__libbpf_verbose(int verbose)
{
	/* errors are reported by the tools, in sentences; libbpf's own text is for -v */
	libbpf_set_print(verbose ? libbpf_print : libbpf_quiet);
}

/* err__status() gives the tools' exit statuses */
_Static_assert(ERR_EXIT_INPUT == EXIT_USAGE && ERR_EXIT_SYSTEM == EXIT_FAIL,
	       "kernel/lib/err.h and cli.h agree on the exit statuses");
