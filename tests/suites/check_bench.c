// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * check_bench - the benchmarks' own tools do what the figures say they do:
 * ldlat-floor opens and enables the events ldlat-hist would, counts the
 * samples, and attaches no BPF program; ldlat-logic runs every case through
 * the logic (it checks the counters itself).  No timing is asserted.
 * Needs root.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/testutil.h"

#define BASE "0x200000000000"

static const char *floor_tool(void)
{
	return build_path("bench/ldlat-floor");
}

static int run_tool(char *const argv[], char **out, char **err)
{
	return run(argv, 120, out, err);
}

/* Every page the workload first-touches is a sample of the floor's events. */
START_TEST(test_floor_counts)
{
	char *argv[] = { (char *)floor_tool(), "--source", "page-faults", "--", (char *)workload(),
			 "--fault-pages",      "2500",	   "--base",	  BASE, NULL };
	char *out, *err;
	long n;
	int rc;

	rc = run_tool(argv, &out, &err);
	ck_assert_msg(rc == 0, "exit %d\n%s%s", rc, out, err);
	n = strtol(out, NULL, 10);
	/* the loader and libc fault too, a few dozen pages */
	ck_assert_msg(n >= 2500 && n < 2500 + 1000, "%ld events for 2500 pages:\n%s", n, out);
	ck_assert_ptr_nonnull(strstr(out, " events"));
	ck_assert_ptr_nonnull(strstr(err, "sampling page-faults (period 1) on command"));
	ck_assert_ptr_nonnull(strstr(err, "no BPF program"));
	free(out);
	free(err);
}
END_TEST

/*
 * The command looks for a BPF program among its parent's fds (the tool's):
 * under ldlat-floor it finds none (grep exits 1, and so does the floor),
 * under ldlat-hist it finds one.
 */
START_TEST(test_floor_attaches_nothing)
{
	char *probe = "grep -q '^prog_id' /proc/$PPID/fdinfo/*";
	char *floor_argv[] = {
		(char *)floor_tool(), "--source", "page-faults", "--", "sh", "-c", probe, NULL
	};
	char *hist_argv[] = { (char *)build_path("ldlat-hist"),
			      "--source",
			      "page-faults",
			      "--",
			      "sh",
			      "-c",
			      probe,
			      NULL };
	char *out, *err;
	int rc;

	rc = run_tool(floor_argv, &out, &err);
	ck_assert_msg(rc == 1, "ldlat-floor: exit %d (want 1: no program found)\n%s%s", rc, out,
		      err);
	free(out);
	free(err);
	rc = run_tool(hist_argv, &out, &err);
	ck_assert_msg(rc == 0, "ldlat-hist: exit %d (want 0: its program found)\n%s%s", rc, out,
		      err);
	free(out);
	free(err);
}
END_TEST

/* Its options are ldlat-hist's, errors included. */
START_TEST(test_floor_bad_input)
{
	char *argv[] = { (char *)floor_tool(), "--source", "nothing", "--", "true", NULL };
	char *out, *err;
	int rc;

	rc = run_tool(argv, &out, &err);
	ck_assert_msg(rc == 2, "exit %d (want 2)\n%s", rc, err);
	ck_assert_ptr_nonnull(strstr(err, "nothing"));
	free(out);
	free(err);
}
END_TEST

/* Every case of the logic benchmark runs, and counts what it should (checked inside). */
START_TEST(test_logic_runs)
{
	char *argv[] = { (char *)build_path("bench/ldlat-logic"), "1000", "3", NULL };
	char *out, *err, *p;
	int rc, lines = 0;

	rc = run_tool(argv, &out, &err);
	ck_assert_msg(rc == 0, "exit %d\n%s", rc, err);
	for (p = out; (p = strchr(p, '\n')); p++)
		lines++;
	ck_assert_msg(lines == 11, "want a header and 10 cases:\n%s", out);
	ck_assert_ptr_nonnull(
		strstr(out, "16 ranges, latency window, class set, loads only: kept\t"));
	free(out);
	free(err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("bench");
	TCase *tc = tcase_create("tools");

	if (!need_root("check_bench (perf events and BPF)"))
		return 0;
	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, test_floor_counts);
	tcase_add_test(tc, test_floor_attaches_nothing);
	tcase_add_test(tc, test_floor_bad_input);
	tcase_add_test(tc, test_logic_runs);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
