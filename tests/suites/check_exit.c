// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * check_exit - the one exit-status rule, mode by mode: 0 success, 1 the
 * system failed, 2 the user's input or a privilege the user lacks; every
 * error a line of its own that starts with the tool's name, a newline or
 * another control character of the user's input escaped in it.
 *
 * Each mode of each tool (the modes its --help lists, from its mode table)
 * has cases here: a bad value, an option of another mode, a privilege
 * (run as nobody), and a failure of the system (an unreadable sysfs, a
 * report into /dev/full, a BPF program's attach refused: the same status
 * and sentence in every tool that attaches one).  A mode that the table
 * misses fails the test.
 * The tools run from a copy in a directory nobody may enter, wherever the
 * checkout is.  Needs root (setpriv, perf events, a pinned set).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/lib/clicase.h"
#include "tests/lib/testutil.h"
#include "kernel/lib/util.h"

/* The tools' copy, and what the cases may name: $T the tool, $D this directory. */
static char dir[256];

#define NOBODY "setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "

struct exit_case {
	const char *tool; /* ldlat-hist */
	const char *mode; /* the mode word the case exercises */
	const char *sh;	  /* sh -c, with $T the tool's path and $D the copy's directory */
	int rc;
	const char *want; /* in the error line */
};

static const struct exit_case cases[] = {
	/* ldlat-hist sample */
	{ "ldlat-hist", "sample", "LDLAT_SYSFS=/nonexistent $T --source page-faults -C 1 -d 1", 1,
	  "cannot read the online CPUs from /nonexistent/devices/system/cpu/online: No such file" },
	{ "ldlat-hist", "sample", "$T --source page-faults -C 99999 -d 1", 2,
	  "is not a CPU number or range" },
	{ "ldlat-hist", "sample", "$T --source page-faults -p \"$(printf '1\\n2')\" -d 1", 2,
	  "-p '1\\n2': '1\\n2' is not a process ID" },
	{ "ldlat-hist", "sample", NOBODY "$T --source page-faults -- true", 2, "needs privilege" },
	{ "ldlat-hist", "sample", "$T --source page-faults --delta -d 1", 2,
	  "--delta is not an option of 'ldlat-hist sample'" },
	{ "ldlat-hist", "sample", "$T \"$(printf -- '--x\\033y')\"", 2,
	  "unrecognized option '--x\\x1by'" },
	/* --output written in place (a device, a FIFO): a failed write is the system's, exit 1 */
	{ "ldlat-hist", "sample", "$T --source page-faults --output /dev/full -- true", 1,
	  "cannot write the report to --output '/dev/full': No space left on device" },
	{ "ldlat-hist", "sample", "$T --source page-faults --output $D -- true", 2,
	  "is a directory: name a file in it" },
	/* standard output closed: no file the tool opens takes its number */
	{ "ldlat-hist", "sample", "$T --source page-faults -d 0.3 -p $$ >&-", 1,
	  "cannot write the report to standard output: Bad file descriptor" },
	/* a notice quoting a pin directory with a newline: one line */
	{ "ldlat-hist", "sample",
	  "d=\"$(printf '/sys/fs/bpf/ldlat-exit-%s\\nx' $$)\" && $T --source page-faults --pin "
	  "\"$d\" --detach -p $$; rc=$?; $T unpin \"$d\" >/dev/null; rmdir \"$d\" 2>/dev/null; "
	  "exit $rc",
	  0, "\\nx: sampling page-faults (period 1) on PID " },
	/* ldlat-hist show */
	{ "ldlat-hist", "show", "$T show /sys/fs/bpf/ldlat-exit-nonexistent", 2,
	  "--show '/sys/fs/bpf/ldlat-exit-nonexistent': no such directory" },
	{ "ldlat-hist", "show", "$T show /tmp", 2, "is not on a BPF file system (bpffs)" },
	{ "ldlat-hist", "show",
	  "d=/sys/fs/bpf/ldlat-exit-$$ && mkdir -m 700 $d && " NOBODY
	  "$T show $d; rc=$?; rmdir $d; "
	  "exit $rc",
	  2, "Permission denied: a pinned set is read and removed as root" },
	{ "ldlat-hist", "show",
	  "d=/sys/fs/bpf/ldlat-exit-$$ && $T --source page-faults --pin $d --detach -p $$ && "
	  "{ $T show $d >/dev/full; rc=$?; $T unpin $d >/dev/null 2>&1; rmdir $d 2>/dev/null; exit "
	  "$rc; }",
	  1, "cannot write the report to standard output: No space left on device" },
	/* ldlat-hist unpin */
	{ "ldlat-hist", "unpin", "$T unpin /tmp", 2, "is not on a BPF file system (bpffs)" },
	{ "ldlat-hist", "unpin",
	  "d=/sys/fs/bpf/ldlat-exit-$$ && mkdir -m 700 $d && " NOBODY "$T unpin $d; rc=$?; rmdir "
	  "$d; exit $rc",
	  2, "Permission denied: a pinned set is read and removed as root" },
	{ "ldlat-hist", "unpin", "$T unpin /sys/fs/bpf --pin /sys/fs/bpf/x", 2,
	  "--pin is not an option of 'ldlat-hist unpin'" },
	/* ldlat-hist report */
	{ "ldlat-hist", "report", "$T report /nonexistent", 2, "cannot open /nonexistent" },
	{ "ldlat-hist", "report", "$T report /etc/passwd", 2, "is not a perf.data file" },
	{ "ldlat-hist", "report", "$T report $D/perf.data >/dev/full", 1,
	  "cannot write the report to standard output: No space left on device" },
	/* ldlat-hist list-events */
	{ "ldlat-hist", "list-events", "$T list-events -G /nonexistent", 2,
	  "-G is not an option of 'ldlat-hist list-events'" },
	{ "ldlat-hist", "list-events", "$T list-events -- true", 2,
	  "a command ('true') is not an argument of 'ldlat-hist list-events'" },
	{ "ldlat-hist", "list-events", "$T list-events --source page-faults >/dev/full", 1,
	  "cannot write the report to standard output: No space left on device" },
	/*
	 * The program's attach refused (ldlat-deny --attach: EINVAL, which alone
	 * would read as bad input): the system's, the same status and sentence
	 * in each tool that attaches one
	 */
	{ "ldlat-hist", "sample", "$D/ldlat-deny --attach $T --source page-faults -- true", 1,
	  "cannot attach the BPF program to page-faults (period 1): Invalid argument" },
	{ "ldlat-top", "sample", "$D/ldlat-deny --attach $T --source page-faults -- true", 1,
	  "cannot attach the BPF program to page-faults (period 1): Invalid argument" },
	{ "ldlat-c2c", "sample", "$D/ldlat-deny --attach $T --source page-faults -- true", 1,
	  "cannot attach the BPF program to page-faults (period 1): Invalid argument" },
	/* ldlat-top sample */
	{ "ldlat-top", "sample", "LDLAT_SYSFS=/nonexistent $T --source page-faults -C 1 -d 1", 1,
	  "cannot read the online CPUs from /nonexistent/devices/system/cpu/online: No such file" },
	{ "ldlat-top", "sample", "$T --source page-faults --sort \"$(printf 'a\\tb')\"", 2,
	  "--sort 'a\\tb': expected samples, latency or total" },
	{ "ldlat-top", "sample", NOBODY "$T --source page-faults -- true", 2, "needs privilege" },
	{ "ldlat-top", "sample", "$T --source page-faults --output /dev/full -- true", 1,
	  "cannot write the report to --output '/dev/full': No space left on device" },
	{ "ldlat-top", "sample", "$T --source page-faults -d 0.3 -p $$ >&-", 1,
	  "cannot write the report to standard output: Bad file descriptor" },
	/* ldlat-top report */
	{ "ldlat-top", "report", "$T report \"$(printf '/x\\ny')\"", 2, "cannot open /x\\ny" },
	{ "ldlat-top", "report", "$T report $D/perf.data >/dev/full", 1,
	  "cannot write the report to standard output: No space left on device" },
	/* ldlat-top list-events */
	{ "ldlat-top", "list-events", "$T list-events -p 1", 2,
	  "-p is not an option of 'ldlat-top list-events'" },
	{ "ldlat-top", "list-events", "$T list-events --source page-faults >/dev/full", 1,
	  "cannot write the report to standard output: No space left on device" },
	/* ldlat-stat count */
	{ "ldlat-stat", "count", "LDLAT_SYSFS=/nonexistent $T -e page-faults -C 1 -d 1", 1,
	  "cannot read the online CPUs from /nonexistent/devices/system/cpu/online: No such file" },
	{ "ldlat-stat", "count", "$T -e \"$(printf 'cy\\ncles')\" -d 1", 2, "event 'cy\\ncles'" },
	{ "ldlat-stat", "count", "$T -e page-faults -d 0.3 -p $$ >&-", 1,
	  "cannot write the report to standard output: Bad file descriptor" },
	{ "ldlat-stat", "count",
	  "LDLAT_MUXLOCK=$D/muxlock " NOBODY "$T --mux-interval 9 -e page-faults -- true", 2,
	  "--mux-interval: cannot open the lock file " },
	{ "ldlat-stat", "count", "$T -e page-faults --output /dev/full -- true", 1,
	  "cannot write the report to --output '/dev/full': No space left on device" },
	/* ldlat-stat plan */
	{ "ldlat-stat", "plan", "$T plan -G /nonexistent", 2,
	  "-G is not an option of 'ldlat-stat plan'" },
	{ "ldlat-stat", "plan", "$T plan -p 1", 2, "-p is not an option of 'ldlat-stat plan'" },
	{ "ldlat-stat", "plan", "$T plan --output /dev/null", 2,
	  "--output is not an option of 'ldlat-stat plan'" },
	{ "ldlat-stat", "plan", "$T plan -- true", 2,
	  "a command ('true') is not an argument of 'ldlat-stat plan'" },
	{ "ldlat-stat", "plan", "$T plan -e cycles >/dev/full", 1,
	  "cannot write the report to standard output: No space left on device" },
	/* ldlat-stat recover */
	{ "ldlat-stat", "recover", "LDLAT_MUXLOCK=$D/muxlock " NOBODY "$T recover", 2,
	  "recover: cannot open the lock file" },
	{ "ldlat-stat", "recover", "$T recover -e cycles", 2,
	  "-e is not an option of 'ldlat-stat recover'" },
	{ "ldlat-stat", "recover", "LDLAT_MUXLOCK=$D/muxlock $T recover >/dev/full", 1,
	  "cannot write the report to standard output: No space left on device" },
};

/*
 * The tools, ldlat-deny, tools.conf, a perf.data and a lock file nobody may
 * open, in a directory all may enter.
 */
static void copy_tools(void)
{
	if (dir[0])
		return;
	snprintf(dir, sizeof(dir), "/tmp/ldlat-exit-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(chmod(dir, 0755), 0);
	ck_assert_int_eq(
		sh(NULL, NULL,
		   "cp %s %s %s %s %s %s/ && cp %s %s/tools.conf && %s --samples 100 %s/perf.data "
		   "&& : >%s/muxlock && chmod 600 %s/muxlock",
		   build_path("ldlat-hist"), build_path("ldlat-top"), build_path("ldlat-stat"),
		   build_path("ldlat-c2c"), build_path("tests/ldlat-deny"), dir,
		   build_path("../tools.conf"), dir, build_path("tests/gen-perfdata"), dir, dir,
		   dir),
		0);
}

static void remove_tools(void)
{
	if (dir[0])
		sh(NULL, NULL, "rm -rf %s", dir);
	dir[0] = '\0';
}

/*
 * The case through the harness: in /, $T the tool's copy, $D its directory,
 * LDLAT_CONFIG the copy's tools.conf; every line of stderr the tool's, no
 * line broken by input (struct cli_case's tool).
 */
START_TEST(test_mode_errors)
{
	const struct exit_case *e = &cases[_i];
	char what[128], line[2048], tool[300];
	const struct cli_case c = {
		.what = what,
		.sh = line,
		.rc = e->rc,
		.err = { e->want },
		.tool = e->tool,
	};

	if (!need_root("the exit-status cases (setpriv, perf events, bpffs)"))
		return;
	copy_tools();
	snprintf(what, sizeof(what), "%s %s", e->tool, e->mode);
	snprintf(tool, sizeof(tool), "%s/%s", dir, e->tool);
	cli_var_set("T", tool);
	cli_var_set("D", dir);
	snprintf(line, sizeof(line),
		 "cd / && LDLAT_CONFIG=\"$D/tools.conf\"; export LDLAT_CONFIG; %s", e->sh);
	cli_case__check(&c);
}
END_TEST

/* Every mode a tool's --help lists has cases: one with exit 2, and one with exit 1. */
START_TEST(test_every_mode_has_cases)
{
	static const char *const tools[] = { "ldlat-hist", "ldlat-top", "ldlat-stat" };
	char *out, *err, *p, word[64];
	unsigned int t, i;
	int modes;
	bool input, system;

	for (t = 0; t < ARRAY_SIZE(tools); t++) {
		ck_assert_int_eq(sh(&out, &err, "%s --help", build_path(tools[t])), 0);
		p = strstr(out, "Commands (");
		ck_assert_msg(p, "%s --help lists no modes: %s", tools[t], out);
		p = strchr(p, '\n') + 1;
		for (modes = 0; sscanf(p, "  %63s", word) == 1 && p[0] == ' '; modes++) {
			input = system = false;
			for (i = 0; i < ARRAY_SIZE(cases); i++) {
				if (strcmp(cases[i].tool, tools[t]) || strcmp(cases[i].mode, word))
					continue;
				input |= cases[i].rc == 2;
				system |= cases[i].rc == 1;
			}
			ck_assert_msg(input, "%s %s: no case of bad input (exit 2)", tools[t],
				      word);
			ck_assert_msg(system || !strcmp(word, "unpin"),
				      "%s %s: no case of a system failure (exit 1)", tools[t],
				      word);
			p = strchr(p, '\n') + 1;
		}
		ck_assert_int_ge(modes, 3);
		free(out);
		free(err);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("exit");
	TCase *tc = tcase_create("modes");
	int failed;

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_every_mode_has_cases);
	tcase_add_loop_test(tc, test_mode_errors, 0, ARRAY_SIZE(cases));
	suite_add_tcase(s, tc);
	/* the copy is made once, in this process: no fork per test */
	setenv("CK_FORK", "no", 1);
	failed = run_suite(s);
	remove_tools();
	return failed ? 1 : 0;
}
