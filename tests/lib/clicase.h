/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * clicase.h - command-line cases as data: the command, the exit status it
 * must end with, what its output must and must not hold.  A suite keeps its
 * cases in a table and runs each as a Check loop test:
 *
 *	static const struct cli_case bad[] = {
 *		{ .cmd = "$HIST --source page-faults -p 999999999", .rc = 2,
 *		  .err = { "-p 999999999: no such process" }, .tool = "ldlat-hist" },
 *	};
 *
 *	START_TEST(test_bad)
 *	{
 *		cli_case__check(&bad[_i]);
 *	}
 *	END_TEST
 *	...
 *	tcase_add_loop_test(tc, test_bad, 0, ARRAY_SIZE(bad));
 *
 * A word of the command may name $HIST, $TOP, $STAT, $C2C (the tools of the
 * build under test), $WORKLOAD, $BUILD (the build folder), $FIXTURES,
 * $SRC (the source tree), or any name a suite gave with cli_var_set.
 */
#ifndef LDLAT_CLICASE_H
#define LDLAT_CLICASE_H

#include <stdbool.h>

#define CLI_WORDS  40 /* words of a command */
#define CLI_CHECKS 8  /* checks of one kind in a case */

/* count_for(stdout, label) is n, or at least n */
struct cli_count {
	const char *label;
	long n;
	bool at_least;
};

struct cli_case {
	const char *what; /* said when it fails (and the command line) */
	/* the command: one of */
	const char *cmd;		/* its words, split at blanks, $NAMEs expanded */
	const char *argv[CLI_WORDS];	/* its words one by one (a word that holds a blank) */
	const char *sh;			/* a line for sh -c, the $NAMEs in its environment */
	int rc;				/* the exit status it must end with */
	double seconds;			/* how long it may run before it is killed (60 when 0) */
	const char *out[CLI_CHECKS];	/* strings stdout must hold */
	const char *err[CLI_CHECKS];	/* ... and stderr */
	const char *no_out[CLI_CHECKS]; /* strings stdout must not hold */
	const char *no_err[CLI_CHECKS];
	const char *out_re[CLI_CHECKS]; /* extended regular expressions a line of stdout matches */
	const char *err_re[CLI_CHECKS];
	const char *jq[CLI_CHECKS];	     /* jq -e filters true of stdout (a JSON document) */
	struct cli_count counts[CLI_CHECKS]; /* rows of a text report */
	bool empty_out;			     /* stdout is empty */
	/*
	 * Every line of stderr (there is one at least) is the tool's,
	 * "TOOL: ...", or argp's pointer to --help ("Try `..."), and holds no
	 * raw control character (the input escaped).
	 */
	const char *tool;
	/* stderr starts with this (the tool's name, where other lines may follow) */
	const char *err_starts;
	bool nothing_left; /* the command left no process behind (assert_nothing_left) */
};

/* What a case's command printed and its exit status: free with cli_result__free. */
struct cli_result {
	int rc;
	char *out, *err;
};

/* The words of cmd, split at blanks, each $NAME expanded: w->argv, NULL-ended. */
struct cli_words {
	char *argv[CLI_WORDS + 1];
	char buf[16384];
};

/* Gives $name a value in the cases that follow (a copy is kept). */
void cli_var_set(const char *name, const char *value);

void cli_words(struct cli_words *w, const char *cmd);

/* Runs the case and checks all it says (Check assertions); what it printed in *r. */
void cli_case__run(const struct cli_case *c, struct cli_result *r);

/* cli_case__run, nothing kept. */
void cli_case__check(const struct cli_case *c);

void cli_result__free(struct cli_result *r);

#endif
