/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * modes.h - a tool's modes as a table (bpftool's cmd_select): each mode
 * (sample, show DIR, report FILE, list-events, ...) names the option groups
 * it takes (opts.h), and its argp is built from them alone, so a
 * combination of two modes cannot be parsed.  A mode is chosen by its word (ldlat-hist show DIR) or, in the
 * flag form the tools have always taken, by its flag (--show DIR); an
 * option or a command that belongs to another mode is refused here, in one
 * sentence built from the table, with exit status 2.
 */
#ifndef LDLAT_MODES_H
#define LDLAT_MODES_H

#include <stdbool.h>

#include "user/run/opts.h"

struct mode {
	const char *name;    /* the word: ldlat-hist show DIR */
	const char *flag;    /* the long option that selects it (show: --show DIR); NULL: none */
	const char *operand; /* what flag takes, given after the word ("DIR"); NULL: none */
	bool command;	     /* takes a command to run: the first argument and the rest */
	const char *summary; /* one line for the tool's --help */
	const struct opt_group *const
		*opts;		 /* its option groups (its flag's among them), ended by NULL */
	const char *args_doc;	 /* its usage line's arguments; NULL: none */
	const char *doc;	 /* its --help's text, as argp's doc */
	int (*run)(void *input); /* the mode, on the input argp filled: the exit status */
};

/*
 * The modes the sampling tools share, spelled once: sampling live (a
 * command after --), a perf.data file (--input FILE, whose word is
 * "report" as the tools have always taken it: ldlat-hist report FILE) and
 * --list-events.
 */
#define MODE_SAMPLE(opts, doc, run)                                                                \
	{                                                                                          \
		"sample", NULL, NULL, true, "sample live, with the options above", opts,           \
			"[-- COMMAND [ARGS...]]", doc, run                                         \
	}
#define MODE_INPUT(summary, opts, doc, run)                                                        \
	{                                                                                          \
		"report", "input", "FILE", false, summary, opts, NULL, doc, run                    \
	}
#define MODE_LIST_EVENTS(opts, doc, run)                                                           \
	{                                                                                          \
		"list-events", "list-events", NULL, false, "the event it would open, and why",     \
			opts, NULL, doc, run                                                       \
	}
#define MODE_LIST_EVENTS_DOC                                                                       \
	"Prints the load-latency event chosen for this machine, why, and its perf_event_attr; "    \
	"opens nothing."

struct mode_table {
	const char *tool;
	const struct mode *modes; /* modes[0]: the default, chosen when nothing else is */
	int nmodes;
	const struct opt_place
		*places; /* where its arguments hold the groups' homes, ended by {} */
};

/*
 * Chooses the mode: argv[1] a mode's name, else the first mode-selecting
 * flag, else modes[0].  Refuses (exit status 2, in *status) an option or a
 * command of another mode, then parses the arguments with the argp of that
 * mode's option groups alone (opts.h; ARGP_IN_ORDER), into input.  The default mode's --help
 * lists the modes.  Returns the mode, or NULL with *status set when the
 * arguments were refused or --help was printed.
 */
const struct mode *modes__parse(const struct mode_table *t, int argc, char **argv, void *input,
				int *status);

/* modes__parse, then the mode's run: the exit status. */
int modes__main(const struct mode_table *t, int argc, char **argv, void *input);

#endif
