/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * cli.h - the options every tool shares: what to sample (--source, -L, -c,
 * -F), where (-C, -p, -G, --inherit, a command), which samples to keep (-a,
 * --min-lat, --max-lat, -s, --op) and for how long (-d, -i), as an argp child
 * parser each tool adds to its own.
 */
#ifndef LDLAT_CLI_H
#define LDLAT_CLI_H

#include <argp.h>
#include <stdbool.h>
#include <linux/types.h>

#include "kernel/policy/source.h"
#include "user/symbols/ranges.h"
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
	const char *config; /* --config FILE: tools.conf to read */
};

/* Sets the defaults; call before argp_parse. */
void cli__init(struct cli *cli);

/*
 * The shared options, as argp children: put one in the tool's argp children
 * with its input set to the struct cli (state->child_inputs[i] = cli in the
 * tool's ARGP_KEY_INIT).  Errors exit with status 2 through argp_error.
 * Each group alone, for a mode that takes only some of them:
 */
extern const struct argp cli_source_argp;      /* --source, -L, -c, -F, -e, --config */
extern const struct argp cli_list_events_argp; /* --list-events */
extern const struct argp cli_filter_argp;      /* -a, --min-lat, --max-lat, -s, --op */
extern const struct argp cli_where_argp;       /* -C, -G, --inherit */
extern const struct argp cli_pid_argp;	       /* -p */
extern const struct argp cli_when_argp;	       /* -d, -i */
extern const struct argp cli_verbose_argp;     /* -v */
extern const struct argp cli_loads_argp;       /* --loads (ldlat-hist's) */

/* A sampling run's: source, filters, where, -p, for how long, -v. */
extern const struct argp cli_argp;

/*
 * Only where and for how long (-C, -p, -G, --inherit, a command, -d, -i,
 * -v), for tools that count rather than sample; same struct cli as input.
 */
extern const struct argp cli_target_argp;

/*
 * Whether a non-option argument is biolatency's positional interval or
 * count (a positive number), which is never taken for a command.
 */
bool cli__positional_number(const char *s);

/* Parses a non-negative decimal or 0x number; false when it is not one. */
bool cli__parse_u64(const char *s, __u64 *v);

/* Turns on libbpf's debug output (-v). */
void cli__libbpf_verbose(int verbose);

/* Exit statuses. */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,	/* the system failed: what to do is in the message */
	EXIT_USAGE = 2, /* bad input: the message names it */
};

#endif
