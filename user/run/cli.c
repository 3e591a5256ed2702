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
#include "kernel/abi/datasrc.h"
#include "kernel/lib/err.h"
#include "kernel/lib/util.h"

enum {
	OPT_SOURCE = 0x100,
	OPT_MIN_LAT,
	OPT_MAX_LAT,
	OPT_OP,
	OPT_INHERIT,
	OPT_LOADS,
	OPT_CONFIG,
	OPT_LIST_EVENTS,
};

/* What to sample: the sampling tools' own */
static const struct argp_option source_options[] = {
	{ NULL, 0, NULL, 0, "What to sample:", 1 },
	{ "source", OPT_SOURCE, "SRC", 0,
	  "auto (the default: ldlat where the CPU has it, else page-faults, saying why), "
	  "ldlat (the CPU's load-latency event; fail without one), or page-faults (software "
	  "event: addresses only)",
	  1 },
	{ "ldlat", 'L', "CYCLES", 0,
	  "hardware latency threshold in core cycles (default: ldlat in tools.conf's [defaults])",
	  1 },
	{ "period", 'c', "N", 0, "sample every Nth event (default: tools.conf's [defaults])", 1 },
	{ "freq", 'F', "HZ", 0, "sample N times a second (default: tools.conf's [defaults])", 1 },
	{ "event", 'e', "SPEC", 0,
	  "the load-latency event, in perf's syntax (cpu/event=0xcd,umask=0x1/pp, "
	  "{cpu/mem-loads-aux/,cpu/mem-loads/}, r1cd), instead of tools.conf's entry for this CPU",
	  1 },
	{ "config", OPT_CONFIG, "FILE", 0,
	  "read the event table and defaults from FILE, not tools.conf", 1 },
	{},
};

static const struct argp_option list_events_options[] = {
	{ "list-events", OPT_LIST_EVENTS, NULL, 0,
	  "print the load-latency event chosen for this machine, why, and its perf_event_attr; "
	  "then exit",
	  1 },
	{},
};

/* Which samples to keep */
static const struct argp_option filter_options[] = {
	{ NULL, 0, NULL, 0, "Which samples to keep (in the kernel):", 3 },
	{ "addr", 'a', "RANGE", 0,
	  "data addresses in RANGE: LO-HI or LO+SIZE (addresses in hex, 0x optional; SIZE in "
	  "bytes with K/M/G/T, or 0x hex), or a mapping of the target process ([heap], "
	  "[stack], a file path or name); repeat for up to 16 ranges",
	  3 },
	{ "min-lat", OPT_MIN_LAT, "CYCLES", 0, "latency at least CYCLES", 3 },
	{ "max-lat", OPT_MAX_LAT, "CYCLES", 0, "latency at most CYCLES", 3 },
	{ "class", 's', "LIST", 0, "data-source classes, comma-separated", 3 },
	{ "op", OPT_OP, "LIST", 0, "memory ops: load (default), store, pfetch, exec, any", 3 },
	{},
};

/* Where: every tool's, sampling or counting; -p apart, as --input filters by it */
static const struct argp_option where_options[] = {
	{ NULL, 0, NULL, 0, "Where (default: the whole machine):", 2 },
	{ "cpu", 'C', "LIST", 0, "only these CPUs (0-3,8)", 2 },
	{ "cgroup", 'G', "PATH", 0,
	  "only this cgroup v2 directory (a container, a systemd unit): a path under the "
	  "cgroup v2 mount, as /proc/PID/cgroup shows it (/system.slice/db.service, "
	  "0::/user.slice, / for the root), or the directory itself",
	  2 },
	{ "inherit", OPT_INHERIT, NULL, 0, "with -p, also children and threads created later", 2 },
	{},
};

static const struct argp_option pid_options[] = {
	{ "pid", 'p', "PID[,PID]", 0, "only these processes (all their threads)", 2 },
	{},
};

/* For how long */
static const struct argp_option when_options[] = {
	{ NULL, 0, NULL, 0, "For how long:", 4 },
	{ "duration", 'd', "SECONDS", 0, "stop after SECONDS (at least 0.01)", 4 },
	{ "interval", 'i', "SECONDS[,COUNT]", 0,
	  "print every SECONDS (at least 0.01) what the interval saw; stop after COUNT "
	  "intervals",
	  4 },
	{},
};

static const struct argp_option verbose_options[] = {
	{ "verbose", 'v', NULL, 0, "say more: resolved ranges, events, libbpf's messages", 4 },
	{},
};

void cli__init(struct cli *cli)
{
	memset(cli, 0, sizeof(*cli));
	cli->source.kind = SOURCE_AUTO;
	cli->max_lat = ~0ull;
	cli->class_mask = LDLAT_ALL_CLASSES;
	cli->op_mask = PERF_MEM_OP_LOAD;
}

bool cli__parse_u64(const char *s, __u64 *v)
{
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && !*end;
}

static bool parse_seconds(const char *s, double *v, char **end)
{
	if (!s || !*s || *s == '-' || *s == '+')
		return false;
	errno = 0;
	*v = strtod(s, end);
	return !errno && *end != s && *v > 0 && *v < 1e9;
}

static int parse_ops(const char *list, __u32 *mask, struct err *err)
{
	static const struct {
		const char *name;
		__u32 bits;
	} ops[] = {
		{ "load", PERF_MEM_OP_LOAD },	  { "store", PERF_MEM_OP_STORE },
		{ "pfetch", PERF_MEM_OP_PFETCH }, { "prefetch", PERF_MEM_OP_PFETCH },
		{ "exec", PERF_MEM_OP_EXEC },	  { "any", 0 },
	};
	char *copy = strdup(list), *tok, *save = NULL;
	unsigned int i;
	bool any = false, found;

	if (!copy)
		return -ENOMEM;
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

	return s && parse_seconds(s, &v, &end) && !*end;
}

/* [interval [count]] after the options, as biolatency and vmstat take them */
static void cli__positional(struct cli *cli, const char *arg, struct argp_state *state)
{
	char *end;
	__u64 v;

	if (!cli->interval) {
		parse_seconds(arg, &cli->interval, &end);
		if (cli->interval < RUNLOOP_MIN_SECONDS)
			argp_error(state, "interval '%s': %s", arg, RUNLOOP_TOO_SHORT);
		return;
	}
	if (cli->count)
		argp_error(state,
			   "'%s': the interval and the count are already given; a command named "
			   "like a number goes after --",
			   arg);
	if (!cli__parse_u64(arg, &v) || !v || v > 1000000000)
		argp_error(state, "count '%s' is not a whole number of intervals", arg);
	cli->count = (long)v;
}

static error_t cli__parse(int key, char *arg, struct argp_state *state)
{
	struct cli *cli = state->input;
	struct err err = {};
	char *end;
	__u64 v;

	switch (key) {
	case OPT_SOURCE:
		cli->source_set = true;
		if (!strcmp(arg, "ldlat"))
			cli->source.kind = SOURCE_LDLAT;
		else if (!strcmp(arg, "page-faults") || !strcmp(arg, "faults"))
			cli->source.kind = SOURCE_PAGE_FAULTS;
		else if (!strcmp(arg, "auto"))
			cli->source.kind = SOURCE_AUTO;
		else
			argp_error(state, "--source '%s': expected ldlat, page-faults or auto",
				   arg);
		break;
	case 'L':
		if (!cli__parse_u64(arg, &cli->source.ldlat) || !cli->source.ldlat)
			argp_error(state, "--ldlat '%s' is not a positive number of cycles", arg);
		break;
	case 'c':
		if (!cli__parse_u64(arg, &cli->source.period) || !cli->source.period)
			argp_error(state, "--period '%s' is not a positive number", arg);
		break;
	case 'F':
		if (!cli__parse_u64(arg, &cli->source.freq) || !cli->source.freq)
			argp_error(state, "--freq '%s' is not a positive number of hertz", arg);
		break;
	case OPT_LOADS:
		cli->loads = true;
		cli->loads_event = arg;
		break;
	case 'e':
		if (!*arg)
			argp_error(
				state,
				"--event '': expected an event spec (cpu/event=0xcd,umask=0x1/)");
		cli->source.event = arg;
		break;
	case OPT_CONFIG:
		cli->config = arg;
		break;
	case OPT_LIST_EVENTS: /* the mode it selects is the modes table's (modes.h) */
		break;
	case 'C':
		cli->target.cpus = arg;
		break;
	case 'p':
		cli->target.pids = arg;
		break;
	case 'G':
		cli->target.cgroup = arg;
		break;
	case OPT_INHERIT:
		cli->target.inherit = true;
		break;
	case 'a':
		if (range_set__add(&cli->ranges, arg, &err))
			argp_error(state, "%s", err.msg);
		break;
	case OPT_MIN_LAT:
		if (!cli__parse_u64(arg, &cli->min_lat))
			argp_error(state, "--min-lat '%s' is not a number of cycles", arg);
		cli->min_lat_set = true;
		break;
	case OPT_MAX_LAT:
		if (!cli__parse_u64(arg, &cli->max_lat))
			argp_error(state, "--max-lat '%s' is not a number of cycles", arg);
		cli->max_lat_set = true;
		break;
	case 's':
		if (class__parse_list(arg, &cli->class_mask, &err))
			argp_error(state, "-s: %s", err.msg);
		cli->class_set = true;
		break;
	case OPT_OP:
		if (parse_ops(arg, &cli->op_mask, &err))
			argp_error(state, "%s", err.msg);
		cli->op_set = true;
		break;
	case 'd':
		if (!parse_seconds(arg, &cli->duration, &end) || *end)
			argp_error(state, "--duration '%s' is not a positive number of seconds",
				   arg);
		if (cli->duration < RUNLOOP_MIN_SECONDS)
			argp_error(state, "--duration '%s': %s", arg, RUNLOOP_TOO_SHORT);
		break;
	case 'i':
		if (!parse_seconds(arg, &cli->interval, &end) ||
		    (*end && (*end != ',' || !cli__parse_u64(end + 1, &v) || !v || v > 1000000000)))
			argp_error(state, "--interval '%s': expected SECONDS or SECONDS,COUNT",
				   arg);
		if (cli->interval < RUNLOOP_MIN_SECONDS)
			argp_error(state, "--interval '%s': %s", arg, RUNLOOP_TOO_SHORT);
		if (*end)
			cli->count = (long)v;
		break;
	case 'v':
		cli->verbose++;
		break;
	case ARGP_KEY_ARG:
		/* biolatency's [interval [count]]: numbers before a command and not after -- */
		if (!cli->target.argv && cli__positional_number(arg) &&
		    !(state->next >= 2 && !strcmp(state->argv[state->next - 2], "--"))) {
			cli__positional(cli, arg, state);
			break;
		}
		/* the first other argument starts the command: the rest are its own */
		cli->target.argv = &state->argv[state->next - 1];
		state->next = state->argc;
		break;
	case ARGP_KEY_END:
		if (cli->min_lat > cli->max_lat)
			argp_error(state, "--min-lat %llu is above --max-lat %llu",
				   (unsigned long long)cli->min_lat,
				   (unsigned long long)cli->max_lat);
		if (cli->source.period && cli->source.freq)
			argp_error(state, "--period and --freq both given: choose one");
		if (target_opts__check(&cli->target, &err))
			argp_error(state, "%s", err.msg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* --help lists the class names from the one table that defines them. */
static char *cli__help_filter(int key, const char *text, void *input)
{
	char *out;

	(void)input;
	if (key != 's' || !text)
		return (char *)text;
	if (asprintf(&out, "%s (%s)", text, class__list_help()) < 0)
		return (char *)text;
	return out;
}

/* --loads: ldlat-hist's only, so an argp of its own */
static const struct argp_option loads_options[] = {
	{ "loads", OPT_LOADS, "EVENT", OPTION_ARG_OPTIONAL,
	  "also count every retired load (EVENT: this CPU's retired-loads event through "
	  "libpfm4), to print what share of all loads the samples stand for",
	  1 },
	{},
};

const struct argp cli_loads_argp = {
	.options = loads_options,
	.parser = cli__parse,
};

const struct argp cli_source_argp = {
	.options = source_options,
	.parser = cli__parse,
};

const struct argp cli_list_events_argp = {
	.options = list_events_options,
	.parser = cli__parse,
};

const struct argp cli_filter_argp = {
	.options = filter_options,
	.parser = cli__parse,
	.help_filter = cli__help_filter,
};

const struct argp cli_where_argp = {
	.options = where_options,
	.parser = cli__parse,
};

const struct argp cli_pid_argp = {
	.options = pid_options,
	.parser = cli__parse,
};

const struct argp cli_when_argp = {
	.options = when_options,
	.parser = cli__parse,
};

const struct argp cli_verbose_argp = {
	.options = verbose_options,
	.parser = cli__parse,
};

static const struct argp_child sample_children[] = {
	{ &cli_source_argp, 0, NULL, 0 },
	{ &cli_filter_argp, 0, NULL, 0 },
	{ &cli_where_argp, 0, NULL, 0 },
	{ &cli_pid_argp, 0, NULL, 0 },
	{ &cli_when_argp, 0, NULL, 0 },
	{ &cli_verbose_argp, 0, NULL, 0 },
	{},
};

static const struct argp_child target_children[] = {
	{ &cli_where_argp, 0, NULL, 0 },
	{ &cli_pid_argp, 0, NULL, 0 },
	{ &cli_when_argp, 0, NULL, 0 },
	{ &cli_verbose_argp, 0, NULL, 0 },
	{},
};

/* A set of the above: every child's input is the same struct cli. */
static error_t cli__parse_set(const struct argp_child *c, int key, struct argp_state *state)
{
	int i;

	if (key != ARGP_KEY_INIT)
		return ARGP_ERR_UNKNOWN;
	for (i = 0; c[i].argp; i++)
		state->child_inputs[i] = state->input;
	return 0;
}

static error_t cli__parse_sample(int key, char *arg, struct argp_state *state)
{
	(void)arg;
	return cli__parse_set(sample_children, key, state);
}

static error_t cli__parse_target(int key, char *arg, struct argp_state *state)
{
	(void)arg;
	return cli__parse_set(target_children, key, state);
}

const struct argp cli_argp = {
	.parser = cli__parse_sample,
	.children = sample_children,
};

const struct argp cli_target_argp = {
	.parser = cli__parse_target,
	.children = target_children,
};

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
