// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * check_newcomer - a new user's first hour: the conventions other tools
 * taught them (-h, -V, -e, biolatency's [interval [count]], -G as
 * /proc/PID/cgroup writes it), one program name in every message, a first
 * run that works on any machine, an event that could keep nothing refused
 * or adapted, and a binary copied on its own.  The conventions need nothing;
 * the runs need root (perf events and BPF).
 */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/lib/testutil.h"
#include "kernel/lib/util.h"

#define BASE	   "0x200000000000"
#define BASE_RANGE BASE "+16M"

static const char *const tools[] = { "ldlat-hist", "ldlat-top", "ldlat-stat", "ldlat-c2c" };

/* ---- conventions: no privilege needed ----------------------------------- */

/* -h is --help, in every tool and every mode */
START_TEST(test_dash_h)
{
	char *h[] = { (char *)build_path(tools[_i]), "-h", NULL };
	char *help[] = { (char *)build_path(tools[_i]), "--help", NULL };
	char *out, *err, *want, *werr;

	ck_assert_int_eq(run(help, 10, &want, &werr), 0);
	ck_assert_msg(run(h, 10, &out, &err) == 0, "%s -h: %s", tools[_i], err);
	ck_assert_str_eq(out, want);
	ck_assert_ptr_nonnull(strstr(out, "-h"));
	free(out);
	free(err);
	free(want);
	free(werr);
}
END_TEST

/* -V and --version: the tool's name and the build's version, one line */
START_TEST(test_version)
{
	char *v[] = { (char *)build_path(tools[_i]), "-V", NULL };
	char *version[] = { (char *)build_path(tools[_i]), "--version", NULL };
	char *out, *err, *out2, *err2, want[64];

	ck_assert_msg(run(v, 10, &out, &err) == 0, "%s -V: %s", tools[_i], err);
	ck_assert_int_eq(run(version, 10, &out2, &err2), 0);
	ck_assert_str_eq(out, out2);
	snprintf(want, sizeof(want), "%s ", tools[_i]);
	ck_assert_msg(!strncmp(out, want, strlen(want)), "%s", out);
	ck_assert_int_gt(strlen(out), strlen(want) + 1);
	ck_assert_ptr_eq(strchr(out, '\n'), out + strlen(out) - 1);
	ck_assert_ptr_null(strstr(out, "unknown"));
	free(out);
	free(err);
	free(out2);
	free(err2);
}
END_TEST

/* -e names the event in every tool, as perf's users type it */
START_TEST(test_dash_e)
{
	char *argv[] = { (char *)build_path(tools[_i]), "list-events", "-e", "page-faults", NULL };
	char *stat[] = { (char *)build_path("ldlat-stat"), "--plan", "-e", "page-faults", NULL };
	char *out, *err;

	if (!strcmp(tools[_i], "ldlat-stat")) {
		ck_assert_msg(run(stat, 10, &out, &err) == 0, "%s", err);
		ck_assert_ptr_nonnull(strstr(out, "page-faults"));
	} else {
		ck_assert_msg(run(argv, 10, &out, &err) == 0, "%s", err);
		ck_assert_ptr_nonnull(strstr(out, "  why          --event page-faults\n"));
	}
	free(out);
	free(err);
}
END_TEST

/*
 * Every message a bad input gets starts with the tool's name, however the
 * tool was called (build/ldlat-hist), never its path.
 */
static const char *const bad_inputs[][4] = {
	{ "--bogus" },
	{ "-x" },
	{ "--pid" },
	{ "-d" },
	{ "-d", "x" },
	{ "--source", "x" },
	{ "report", "--bogus" },
	{ "show" },
	{ "-p", "1", "-G", "x" },
};

START_TEST(test_one_name)
{
	unsigned int t, k;

	for (t = 0; t < 2; t++) {
		char *argv[6] = { (char *)build_path(tools[t]) }, *out, *err, *line, *save;
		char want[64], want_mode[64];

		for (k = 0; k < 4 && bad_inputs[_i][k]; k++)
			argv[k + 1] = (char *)bad_inputs[_i][k];
		argv[k + 1] = NULL;
		ck_assert_int_eq(run(argv, 10, &out, &err), 2);
		snprintf(want, sizeof(want), "%s: ", tools[t]);
		snprintf(want_mode, sizeof(want_mode), "%s %s: ", tools[t], bad_inputs[_i][0]);
		for (line = strtok_r(err, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			ck_assert_msg(strstr(line, "build/") == NULL, "%s", line);
			/* argp's hint, wrapped at 80 columns */
			if (!strncmp(line, "Try `", 5) || !strcmp(line, "information."))
				continue;
			ck_assert_msg(!strncmp(line, want, strlen(want)) ||
					      !strncmp(line, want_mode, strlen(want_mode)),
				      "%s %s: %s", tools[t], bad_inputs[_i][0], line);
		}
		free(out);
		free(err);
	}
}
END_TEST

/* -p and -G together: a sentence that reads */
START_TEST(test_conflict_sentence)
{
	char *argv[] = { (char *)hist(), "-p", "1", "-G", "x", NULL };
	char *cmd[] = { (char *)hist(), "-G", "x", "--", "true", NULL };
	char *out, *err;

	ck_assert_int_eq(run(argv, 10, &out, &err), 2);
	ck_assert_ptr_nonnull(strstr(
		err, "ldlat-hist: -p and -G name different things to watch; give one of them\n"));
	free(out);
	free(err);
	ck_assert_int_eq(run(cmd, 10, &out, &err), 2);
	ck_assert_ptr_nonnull(strstr(err, "ldlat-hist: -G and a command name different things to "
					  "watch; give one of them\n"));
	free(out);
	free(err);
}
END_TEST

/* a number is [interval [count]] where the mode takes -i, never a command */
START_TEST(test_interval_count_refusals)
{
	char *three[] = { (char *)hist(), "1", "2", "3", NULL };
	char *le[] = { (char *)hist(), "list-events", "1", NULL };
	char *out, *err;

	ck_assert_int_eq(run(three, 10, &out, &err), 2);
	ck_assert_ptr_nonnull(strstr(err, "ldlat-hist: '3': the interval and the count are "
					  "already given; a command named like a number goes "
					  "after --"));
	free(out);
	free(err);
	ck_assert_int_eq(run(le, 10, &out, &err), 2);
	ck_assert_ptr_nonnull(strstr(err, "'1' ([interval [count]]) is not an option of "
					  "'ldlat-hist list-events'"));
	ck_assert_ptr_null(strstr(err, "command"));
	free(out);
	free(err);
}
END_TEST

/* a binary copied on its own reads the tools.conf built into it */
START_TEST(test_lone_binary)
{
	char dir[] = "/tmp/ldlat-lone-XXXXXX", bin[64], *out, *err;
	char *argv[] = { bin, "list-events", "--source", "page-faults", NULL };
	char *cfg[] = { bin,	    "list-events",  "--source", "page-faults",
			"--config", "/nonexistent", NULL };

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(bin, sizeof(bin), "%s/ldlat-hist", dir);
	ck_assert_int_eq(sh(NULL, NULL, "cp '%s' '%s'", hist(), bin), 0);
	unsetenv("LDLAT_CONFIG");
	if (access("/etc/ldlat/tools.conf", F_OK) == 0) {
		unlink(bin);
		rmdir(dir);
		return; /* an administrator's table comes first */
	}
	ck_assert_msg(run(argv, 10, &out, &err) == 0, "%s", err);
	ck_assert_ptr_nonnull(strstr(out, "tools.conf     built-in tools.conf\n"));
	free(out);
	free(err);
	/* a file named still wins, and must exist */
	ck_assert_int_eq(run(cfg, 10, &out, &err), 2);
	ck_assert_ptr_nonnull(strstr(err, "--config '/nonexistent': cannot read it"));
	free(out);
	free(err);
	unlink(bin);
	rmdir(dir);
}
END_TEST

/* ---- install, man pages, completion, package ----------------------------- */

/*
 * --unit ns: cycles at the nominal frequency (cpufreq's base_frequency, else
 * the model name's GHz), said to be approximate; refused where no frequency
 * is known and for JSON.  On a perf.data fixture: no PMU or root needed.
 */
START_TEST(test_unit_ns)
{
	char data[4096], proc[] = "/tmp/ldlat-unit-XXXXXX", sys[4200], file[4300];
	char *argv[] = { (char *)hist(), "report", data, "--unit", "ns", NULL };
	char *json[] = { (char *)hist(), "report", data, "--unit", "ns", "--format", "json", NULL };
	char *out, *err;

	/* the suites run from the top of the source tree (tests/run.sh) */
	snprintf(data, sizeof(data), "tests/fuzz/corpus/layout0.data");
	ck_assert_ptr_nonnull(mkdtemp(proc));
	snprintf(sys, sizeof(sys), "%s/sys", proc);
	ck_assert_int_eq(sh(NULL, NULL, "mkdir -p %s/devices/system/cpu/cpu0/cpufreq", sys), 0);
	snprintf(file, sizeof(file), "%s/cpuinfo", proc);
	ck_assert_int_eq(sh(NULL, NULL, "printf 'model name\\t: Xeon CPU @ 2.40GHz\\n' > %s", file),
			 0);
	setenv("LDLAT_PROCFS", proc, 1);
	setenv("LDLAT_SYSFS", sys, 1);
	ck_assert_msg(run(argv, 10, &out, &err) == 0, "%s", err);
	ck_assert_msg(strstr(out, "ns : count"), "%s", out);
	/* 64-127 cycles at 2.4 GHz: 26.7-52.9 ns */
	ck_assert_msg(strstr(out, " 26.7 -> 52.9  : 1 "), "%s", out);
	ck_assert_ptr_nonnull(strstr(out, "ns approximate: cycles at the nominal 2.40 GHz from the "
					  "model name's 2.40GHz"));
	free(out);
	free(err);
	/* cpufreq's base frequency comes first */
	ck_assert_int_eq(sh(NULL, NULL,
			    "echo 2000000 > %s/devices/system/cpu/cpu0/cpufreq/base_frequency",
			    sys),
			 0);
	ck_assert_msg(run(argv, 10, &out, &err) == 0, "%s", err);
	ck_assert_ptr_nonnull(strstr(out, "the nominal 2.00 GHz from cpufreq base_frequency"));
	ck_assert_msg(strstr(out, " 32.0 -> 63.5  : 1 "), "%s", out);
	free(out);
	free(err);
	ck_assert_int_eq(run(json, 10, &out, &err), 2);
	ck_assert_ptr_nonnull(strstr(err, "ldlat-hist: --unit ns applies to the text report"));
	free(out);
	free(err);
	/* neither: refused, in cycles */
	ck_assert_int_eq(
		sh(NULL, NULL, "rm -r %s/devices && echo 'model name : EPYC' > %s", sys, file), 0);
	ck_assert_int_eq(run(argv, 10, &out, &err), 2);
	ck_assert_ptr_nonnull(strstr(err, "ldlat-hist: --unit ns: this machine does not say its "
					  "CPU's nominal frequency"));
	free(out);
	free(err);
	unsetenv("LDLAT_PROCFS");
	unsetenv("LDLAT_SYSFS");
	ck_assert_int_eq(sh(NULL, NULL, "rm -rf %s", proc), 0);
}
END_TEST

/*
 * make install honours PREFIX and DESTDIR at install time (nothing of
 * PREFIX compiled in), the installed tool finds the installed tools.conf,
 * and make uninstall removes every file it installed.
 */
START_TEST(test_install_uninstall)
{
	char dir[] = "/tmp/ldlat-install-XXXXXX", *out = NULL, *err = NULL, bin[256], want[512];
	char *argv[] = { bin, "list-events", "--source", "page-faults", NULL };
	static const char *const files[] = {
		"usr/bin/ldlat-hist",
		"usr/bin/ldlat-top",
		"usr/bin/ldlat-stat",
		"usr/bin/ldlat-c2c",
		"usr/share/ldlat/tools.conf",
		"usr/share/man/man8/ldlat-hist.8",
		"usr/share/man/man8/ldlat-top.8",
		"usr/share/man/man8/ldlat-stat.8",
		"usr/share/man/man8/ldlat-c2c.8",
		"usr/share/man/man5/tools.conf.5",
		"usr/share/bash-completion/completions/ldlat-hist",
		"usr/share/bash-completion/completions/ldlat-top",
		"usr/share/bash-completion/completions/ldlat-stat",
		"usr/share/bash-completion/completions/ldlat-c2c",
	};
	unsigned int i;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(sh(NULL, NULL, "make -s -C '%s' install DESTDIR=%s PREFIX=/usr >/dev/null",
			    srcdir(), dir),
			 0);
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(want, sizeof(want), "%s/%s", dir, files[i]);
		ck_assert_msg(access(want, R_OK) == 0, "%s not installed", files[i]);
	}
	/* the default build's PREFIX is nowhere in the binary */
	ck_assert_int_ne(sh(&out, &err, "grep -c /usr/local/share '%s/usr/bin/ldlat-hist'", dir),
			 0);
	free(out);
	free(err);
	snprintf(bin, sizeof(bin), "%s/usr/bin/ldlat-hist", dir);
	unsetenv("LDLAT_CONFIG");
	if (access("/etc/ldlat/tools.conf", F_OK)) {
		ck_assert_msg(run(argv, 10, &out, &err) == 0, "%s", err);
		snprintf(want, sizeof(want), "tools.conf     %s/usr/share/ldlat/tools.conf\n", dir);
		ck_assert_msg(strstr(out, want), "%s", out);
		free(out);
		free(err);
	}
	ck_assert_int_eq(
		sh(NULL, NULL, "make -s -C '%s' uninstall DESTDIR=%s PREFIX=/usr", srcdir(), dir),
		0);
	ck_assert_int_eq(sh(&out, NULL, "find %s -type f -o -type l", dir), 0);
	ck_assert_msg(!*out, "left after make uninstall:\n%s", out);
	free(out);
	ck_assert_int_eq(sh(NULL, NULL, "rm -rf %s", dir), 0);
}
END_TEST

/* the man pages make builds: mandoc -T lint finds nothing; every option is there */
START_TEST(test_man_pages)
{
	char *out, *err;

	ck_assert_int_eq(sh(&out, &err, "make -s -C '%s' check-man", srcdir()), 0);
	free(out);
	free(err);
	ck_assert_int_eq(
		sh(&out, NULL, "mandoc -T utf8 '%s/man/ldlat-hist.8' | col -b", build_path("")), 0);
	ck_assert_ptr_nonnull(strstr(out, "SYNOPSIS"));
	ck_assert_ptr_nonnull(strstr(out, "-e, --event=SPEC"));
	ck_assert_ptr_nonnull(strstr(out, "ldlat-hist show DIR [OPTION...]"));
	ck_assert_ptr_nonnull(strstr(out, "tools.conf(5)"));
	free(out);
	ck_assert_int_eq(
		sh(&out, NULL, "mandoc -T utf8 '%s/man/tools.conf.5' | col -b", build_path("")), 0);
	ck_assert_ptr_nonnull(strstr(out, "page-faults-period = N"));
	free(out);
}
END_TEST

/* bash completion: options, sources, classes, PIDs, cgroups, commands */
START_TEST(test_completion)
{
	char *out, cg[256], h[4096], st[4096], src[4096];
	const char *rel;

	ck_assert_msg(access("/usr/share/bash-completion/bash_completion", R_OK) == 0,
		      "bash-completion is not installed (make deps)");
	ck_assert_int_eq(cgroup_make(cg, sizeof(cg), "complete"), 0);
	rel = strrchr(cg, '/') + 1;
	snprintf(h, sizeof(h), "%s", hist());
	snprintf(st, sizeof(st), "%s", build_path("ldlat-stat"));
	snprintf(src, sizeof(src), "%s", srcdir());
	ck_assert_int_eq(
		sh(&out, NULL,
		   "cd '%s' && bash -c '"
		   "source /usr/share/bash-completion/bash_completion; source dist/ldlat.bash; "
		   "c() { COMP_WORDS=(\"$@\"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); "
		   "COMP_LINE=\"$*\"; COMP_POINT=${#COMP_LINE}; COMPREPLY=(); _ldlat 2>/dev/null; "
		   "echo \"$1 ${*:2}: ${COMPREPLY[*]}\"; }; "
		   "c %s --sou; c %s --source \"\"; c %s -s remote-r; c %s -p \"\"; "
		   "c %s -G \"\"; c %s -G /; c %s sh; c %s report --f; c %s --pl; "
		   "c %s --by \"\"'",
		   src, h, h, h, h, h, h, h, h, st, h),
		0);
	ck_assert_msg(strstr(out, " --sou: --source=\n"), "%s", out);
	ck_assert_msg(strstr(out, " --source : auto ldlat page-faults\n"), "%s", out);
	ck_assert_msg(strstr(out, " -s remote-r: remote-ram-any remote-ram-1hop remote-ram-2hop "
				  "remote-ram-3hop remote-ram\n"),
		      "%s", out);
	ck_assert_msg(strstr(out, " -p : ") && strstr(strstr(out, " -p : "), " 1"), "%s", out);
	ck_assert_msg(strstr(strstr(out, " -G : "), rel), "%s", out);
	ck_assert_msg(strstr(out, " -G /: ") && strstr(strstr(out, " -G /: "), "/ldlat-"), "%s",
		      out);
	ck_assert_msg(strstr(out, " sh: show\n"), "%s", out);
	ck_assert_msg(strstr(out, " report --f: --format=\n"), "%s", out);
	ck_assert_msg(strstr(out, " --pl: --plan\n"), "%s", out);
	ck_assert_msg(strstr(out, " --by : both cgroup class cpu node none pid range region tid\n"),
		      "%s", out);
	free(out);
	cgroup_remove(cg);
}
END_TEST

/*
 * The README teaches in at most 20 KB and links to the pages the reference
 * moved to; every docs/ page it links to that this tree has exists.
 */
START_TEST(test_readme)
{
	static const char *const pages[] = { "docs/tools.md",	    "docs/events.md",
					     "docs/pinned-sets.md", "docs/formats.md",
					     "docs/offline.md",	    "docs/internals.md",
					     "docs/testing.md" };
	char *out, link[64];
	unsigned int i;

	ck_assert_int_eq(sh(&out, NULL, "cat README.md"), 0);
	ck_assert_msg(strlen(out) <= 20 * 1024, "README.md is %zu bytes", strlen(out));
	ck_assert_ptr_nonnull(strstr(out, "## Quick start"));
	for (i = 0; i < ARRAY_SIZE(pages); i++) {
		snprintf(link, sizeof(link), "](%s)", pages[i]);
		ck_assert_msg(strstr(out, link), "README.md does not link %s", pages[i]);
		ck_assert_msg(access(pages[i], R_OK) == 0, "%s is missing", pages[i]);
	}
	free(out);
}
END_TEST

/* ---- runs: root --------------------------------------------------------- */

/*
 * The default source works on any machine: the load-latency event where the
 * PMU has one, else page faults, saying why in one line; a page-fault report
 * with no range says how to see more.
 */
START_TEST(test_first_run)
{
	char *argv[] = { (char *)hist(), "-d", "0.3", NULL };
	char *out, *err;

	run_expect(argv, 0, &out, &err);
	if (strstr(err, "sampling page faults instead")) {
		ck_assert_ptr_nonnull(strstr(err, "ldlat-hist: no load-latency event on this "
						  "machine"));
		ck_assert_ptr_nonnull(strstr(err, "--list-events says why)\n"));
		ck_assert_ptr_nonnull(strstr(out, "To see more: -a splits the count by address "
						  "range"));
		ck_assert_ptr_nonnull(strstr(out, "ldlat-top"));
	}
	/* the notice is one line, under 250 characters */
	{
		char *p = strstr(err, "no load-latency event"), *nl = p ? strchr(p, '\n') : NULL;

		ck_assert(!p || (nl && nl - p < 250));
	}
	free(out);
	free(err);
	assert_nothing_left();
}
END_TEST

/* with a range given the hint is not printed: the user already knows */
START_TEST(test_hint_only_unfiltered)
{
	char *argv[] = {
		(char *)hist(),	    "--source",	     "page-faults", "-a",     BASE_RANGE, "--",
		(char *)workload(), "--fault-pages", "5",	    "--base", BASE,	  NULL
	};
	char *out, *err;

	run_expect(argv, 0, &out, &err);
	ck_assert_int_eq(count_for(out, BASE_RANGE), 5);
	ck_assert_ptr_null(strstr(out, "To see more"));
	free(out);
	free(err);
	assert_nothing_left();
}
END_TEST

static int blocks(const char *out)
{
	const char *p;
	int n = 0;

	for (p = out; (p = strstr(p, "filters: ")); p++)
		n++;
	return n;
}

/* biolatency's [interval [count]]: ldlat-hist 0.2 3, ldlat-hist -i 0.2 3 */
START_TEST(test_interval_count)
{
	char *positional[] = { (char *)hist(), "--source", "page-faults", "0.2", "3",
			       "--",	       "sleep",	   "30",	  NULL };
	char *dash_i[] = { (char *)hist(), "--source", "page-faults", "-i", "0.2", "3",
			   "--",	   "sleep",    "30",	      NULL };
	char **argv = _i ? dash_i : positional;
	char *out, *err;

	run_expect(argv, 0, &out, &err);
	ck_assert_msg(blocks(out) == 3, "%s", out);
	ck_assert_ptr_null(strstr(err, "cannot run"));
	free(out);
	free(err);
	assert_nothing_left();
}
END_TEST

/* after --, a number is a command's name */
START_TEST(test_number_after_dashdash)
{
	char *argv[] = { (char *)hist(), "--source", "page-faults", "--", "2", NULL };
	char *out, *err;

	ck_assert_int_eq(run(argv, 30, &out, &err), 2);
	ck_assert_ptr_nonnull(strstr(err, "'2'"));
	free(out);
	free(err);
	assert_nothing_left();
}
END_TEST

/*
 * -G as /proc/PID/cgroup shows it ("0::/x"), its path ("/x"), and the root
 * ("/"): the cgroup's workload counted exactly.
 */
START_TEST(test_cgroup_forms)
{
	struct child in, h;
	char cg[256], procline[512], arg[512], *p;
	char *inargv[] = {
		(char *)workload(), "--wait", "--fault-pages", "64", "--base", BASE, NULL
	};
	char *hargv[] = { (char *)hist(), "--source", "page-faults", "-G", arg,
			  "-a",		  BASE_RANGE, NULL };
	FILE *f;

	ck_assert_int_eq(cgroup_make(cg, sizeof(cg), "newcomer"), 0);
	child_spawn(&in, inargv);
	ck_assert_int_eq(cgroup_enter(cg, in.pid), 0);
	snprintf(arg, sizeof(arg), "/proc/%d/cgroup", (int)in.pid);
	f = fopen(arg, "re");
	ck_assert_ptr_nonnull(f);
	procline[0] = '\0';
	while (fgets(procline, sizeof(procline), f) && strncmp(procline, "0::", 3))
		;
	fclose(f);
	ck_assert_msg(!strncmp(procline, "0::/", 4), "%s", procline);
	if ((p = strchr(procline, '\n')))
		*p = '\0';
	/* loop 0: "0::/x" as printed; 1: "/x"; 2: the root, "/" */
	snprintf(arg, sizeof(arg), "%s", _i == 0 ? procline : _i == 1 ? procline + 3 : "/");
	ck_assert_msg(child_spawn_started(&h, hargv, 30), "%s", h.errbuf);
	ck_assert(child_go(&in));
	ck_assert_int_eq(child_finish(&in, 30), 0);
	kill(h.pid, SIGINT);
	ck_assert_msg(child_finish(&h, 30) == 0, "%s", h.errbuf);
	ck_assert_msg(count_for(h.outbuf, BASE_RANGE) == 64, "-G %s:\n%s\n%s", arg, h.outbuf,
		      h.errbuf);
	child_free(&in);
	child_free(&h);
	cgroup_remove(cg);
	assert_nothing_left();
}
END_TEST

/*
 * --event page-faults: its samples carry no memory op; the default --op
 * load would keep none of them, so it is lifted, saying so; --op load given
 * is refused.
 */
START_TEST(test_event_without_op)
{
	char *argv[] = { (char *)hist(),
			 "--event",
			 "page-faults:u",
			 "-c",
			 "1",
			 "--by",
			 "range",
			 "-a",
			 BASE_RANGE,
			 "--",
			 (char *)workload(),
			 "--fault-pages",
			 "40",
			 "--base",
			 BASE,
			 NULL };
	char *op[] = { (char *)hist(), "-e", "page-faults", "--op", "load", "--", "true", NULL };
	char *out, *err;

	run_expect(argv, 0, &out, &err);
	ck_assert_msg(strstr(out, "  40 samples"), "%s\n%s", out, err);
	ck_assert_ptr_nonnull(strstr(err, "ldlat-hist: --event page-faults:u: its samples carry "
					  "no memory op, so they are kept whatever their op"));
	free(out);
	free(err);
	ck_assert_int_eq(run(op, 30, &out, &err), 2);
	ck_assert_ptr_nonnull(strstr(err, "ldlat-hist: --op keeps no sample of --event "
					  "page-faults"));
	free(out);
	free(err);
	assert_nothing_left();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("newcomer");
	TCase *tc;

	tc = tcase_create("conventions");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_dash_h, 0, ARRAY_SIZE(tools));
	tcase_add_loop_test(tc, test_version, 0, ARRAY_SIZE(tools));
	tcase_add_loop_test(tc, test_dash_e, 0, ARRAY_SIZE(tools));
	tcase_add_loop_test(tc, test_one_name, 0, ARRAY_SIZE(bad_inputs));
	tcase_add_test(tc, test_conflict_sentence);
	tcase_add_test(tc, test_interval_count_refusals);
	tcase_add_test(tc, test_lone_binary);
	tcase_add_test(tc, test_unit_ns);
	tcase_add_test(tc, test_readme);
	suite_add_tcase(s, tc);

	if (need_root("check_newcomer's runs (perf events and BPF)")) {
		tc = tcase_create("runs");
		tcase_set_timeout(tc, 120);
		tcase_add_test(tc, test_first_run);
		tcase_add_test(tc, test_hint_only_unfiltered);
		tcase_add_loop_test(tc, test_interval_count, 0, 2);
		tcase_add_test(tc, test_number_after_dashdash);
		tcase_add_loop_test(tc, test_cgroup_forms, 0, 3);
		tcase_add_test(tc, test_event_without_op);
		suite_add_tcase(s, tc);

		/* make install, check-man; cgroups (make deb: check_package) */
		tc = tcase_create("install");
		tcase_set_timeout(tc, 300);
		tcase_add_test(tc, test_install_uninstall);
		tcase_add_test(tc, test_man_pages);
		tcase_add_test(tc, test_completion);
		suite_add_tcase(s, tc);
	}
	return run_suite(s);
}
