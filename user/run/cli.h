/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * cli.h - the options every tool shares: what to sample (--source, -L, -c,
 * -F), where (-C, -p, -G, --inherit, a command), which samples to keep (-a,
 * --min-lat, --max-lat, -s, --op), for how long (-d, -i) and where the
 * reports go (--format, --output), declared once as option groups (opts.h)
 * each mode of a tool names.
 */
#ifndef LDLAT_CLI_H
#define LDLAT_CLI_H

#include <stdbool.h>
#include <linux/types.h>

#include "kernel/policy/source.h"
#include "user/symbols/ranges.h"
#include "user/report/output.h"
#include "user/run/opts.h"
#include "user/run/targets.h"

struct cli {
	struct source_opts source;
	bool source_set; /* --source given */
	struct target_opts target;
	struct range_set ranges;
	__u64 min_lat, max_lat;
	bool min_lat_set, max_lat_set;
	__u32 class_mask; /* LDLAT_ALL_CLASSES unless -s */
	bool class_set;
	__u32 op_mask; /* PERF_MEM_OP_LOAD unless --op */
	bool op_set;
	bool loads;		 /* --loads: count every retired load next to the sampling */
	const char *loads_event; /* --loads=EVENT; NULL: this CPU's retired-loads event */
	double duration;	 /* seconds; 0: until Ctrl-C or the target ends */
	double interval;	 /* seconds; 0: print once, at the end */
	long count;		 /* intervals to print; 0: no limit */
	int verbose;
	const char *config;	/* --config FILE: tools.conf to read */
	struct output_opts out; /* --format, --output */
	const char *input;	/* --input FILE: a perf.data file's samples; NULL: sample live */
};

/* Sets the defaults; call before argp_parse. */
void cli__init(struct cli *cli);

/*
 * The shared options, as groups (opts.h) whose fields are in a struct cli,
 * their home: a tool places it in its arguments (modes.h's places).
 * Errors exit with status 2.  Each group alone, for a mode that takes only
 * some of them:
 */
extern const struct opt_home cli_home;
extern const struct opt_group cli_source_opts;	    /* --source, -L, -c, -F, -e, --config */
extern const struct opt_group cli_list_events_opts; /* --list-events */
extern const struct opt_group cli_filter_opts;	    /* -a, --min-lat, --max-lat, -s, --op */
extern const struct opt_group cli_where_opts;	    /* -C, -G, --inherit */
extern const struct opt_group cli_pid_opts;	    /* -p */
extern const struct opt_group cli_when_opts;	    /* -d, -i */
extern const struct opt_group cli_verbose_opts;	    /* -v */
extern const struct opt_group cli_loads_opts;	    /* --loads (ldlat-hist's) */

/* A sampling run's: source, filters, where, -p, for how long, -v. */
extern const struct opt_group cli_sample_opts;

/*
 * Only where and for how long (-C, -p, -G, --inherit, a command, -d, -i,
 * -v), for tools that count rather than sample; same struct cli.
 */
extern const struct opt_group cli_target_opts;

/* --input FILE (offline.h) */
extern const struct opt_group cli_input_opts;

/* A perf.data file's: --input, and -p, the filters and -v, which mean the same offline. */
extern const struct opt_group cli_offline_opts;

/* --list-events': the source, --list-events, -v. */
extern const struct opt_group cli_list_opts;

/*
 * Options several tools take, each with a text of its own: how many keys a
 * kernel table holds (1 to max), how many rows a table prints (0: all),
 * where separate debug info is looked up; the field is member of type.
 */
#define CLI_ENTRIES(doc, type, member, most)                                                       \
	{                                                                                          \
		"entries", 0, "N", 0, doc, OPT_NUMBER, OPT_TO(type, member),                       \
			.min = 1, .max = most, .what = "a table size from 1 to %llu"               \
	}
#define CLI_ROWS(doc, type, member)                                                                \
	{                                                                                          \
		"rows", 'n', "N", 0, doc, OPT_NUMBER, OPT_TO(type, member),                        \
			.max = 1000000, .what = "a number of rows (0 for all)"                     \
	}
#define CLI_DEBUGINFO(doc, type, member)                                                           \
	{                                                                                          \
		"debuginfo-path", 0, "PATH", 0, doc, OPT_TEXT, OPT_TO(type, member)                \
	}

/*
 * --demangle STYLE, for the tools that name functions: short (perf
 * report's: no parameter list), full (the signature) or no (the symbol
 * table's name); the field is member of type, an enum demangle_style
 * (demangle.h) the tool sets before it reads a symbol.
 */
extern const struct opt_word cli_demangle_styles[];
#define CLI_DEMANGLE(type, member)                                                                 \
	{                                                                                          \
		"demangle", 0, "STYLE", 0,                                                         \
			"C++ and Rust names: short (as perf report prints them, without "          \
			"parameters: ns::Class::method; the default), full (with parameters, "     \
			"as c++filt prints them), or no (mangled, as perf report --no-demangle)",  \
			OPT_WORD, OPT_TO(type, member), .words = cli_demangle_styles               \
	}

/* --format and --output (output.h) */
extern const struct opt_group cli_output_opts;

/*
 * Whether a non-option argument is biolatency's positional interval or
 * count (a positive number), which is never taken for a command.
 */
bool cli__positional_number(const char *s);

/* Turns on libbpf's debug output (-v). */
void cli__libbpf_verbose(int verbose);

/* Exit statuses. */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,	/* the system failed: what to do is in the message */
	EXIT_USAGE = 2, /* bad input: the message names it */
};

#endif
