// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * check_callpath - ldlat-top --call-graph: call paths folded, as a caller
 * tree, in JSON and as a flame graph (an SVG checked as XML by
 * tests/svgcheck.py and rendered by headless chromium); live, a program
 * whose two call paths fault known page counts (tests/progs/callprog.c)
 * under the page-fault source, whose stacks the kernel walks for real.
 * And the latency heat map (--heatmap): rows, columns and totals on
 * synthetic snapshots, and live, its total against the reports' kept samples.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "user/top/callpath.h"
#include "user/top/flamegraph.h"
#include "user/report/heatmap.h"
#include "tests/lib/clicase.h"
#include "tests/lib/testutil.h"
#include "kernel/lib/util.h"

static struct ldlat_top_val val(__u64 count, __u64 lat, unsigned int cls)
{
	struct ldlat_top_val v = { .count = count, .lat_sum = lat * count, .lat_max = lat };

	v.cls[cls] = (__u32)count;
	return v;
}

/* What render(f, c) prints, malloc'd. */
static char *render_mem(void (*render)(FILE *, const struct callpaths *, void *),
			const struct callpaths *c, void *ctx)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	render(f, c, ctx);
	fclose(f);
	return buf;
}

static void folded_samples(FILE *f, const struct callpaths *c, void *ctx)
{
	callpaths__render_folded(f, c, *(enum callpath_weight *)ctx);
}

static void tree(FILE *f, const struct callpaths *c, void *ctx)
{
	callpaths__render_tree(f, c, *(__u64 *)ctx, true);
}

/* The count at the start of the first line that ends with suffix, or -1. */
static long count_ending(const char *out, const char *suffix)
{
	const char *line = out, *nl;
	size_t n = strlen(suffix);

	for (; (nl = strchr(line, '\n')); line = nl + 1)
		if ((size_t)(nl - line) >= n && !memcmp(nl - n, suffix, n))
			return strtol(line, NULL, 10);
	return -1;
}

static void fill(struct callpaths *c)
{
	struct ldlat_top_val a = val(30, 100, LDLAT_CLASS_LOCAL_RAM),
			     b = val(10, 20, LDLAT_CLASS_L2), l = val(2, 50, LDLAT_CLASS_L3);

	callpaths__init(c);
	ck_assert_int_eq(callpaths__add_folded(c, "app;main;one;leaf", &a), 0);
	ck_assert_int_eq(callpaths__add_folded(c, "app;main;two;leaf", &b), 0);
	ck_assert_int_eq(callpaths__add_folded(c, "app;main;two;leaf", &b), 0);
	ck_assert_int_eq(callpaths__add_lost(c, 7, "app", CALLPATH_LOST_FULL, &l), 0);
	c->full = 3;
}

/* Equal paths merge; folded lines are sorted, weighed, and the unattributed are a line. */
START_TEST(test_folded)
{
	struct callpaths c;
	enum callpath_weight w = CALLPATH_WEIGHT_SAMPLES;
	char *out;

	fill(&c);
	ck_assert_uint_eq(c.npaths, 3);
	ck_assert_uint_eq(c.samples, 52);
	out = render_mem(folded_samples, &c, &w);
	ck_assert_str_eq(out, "app;[call path lost: stack map full] 2\n"
			      "app;main;one;leaf 30\n"
			      "app;main;two;leaf 20\n"
			      "[not attributed: table full] 3\n");
	free(out);
	w = CALLPATH_WEIGHT_LATENCY;
	out = render_mem(folded_samples, &c, &w);
	ck_assert_str_eq(out, "app;[call path lost: stack map full] 100\n"
			      "app;main;one;leaf 3000\n"
			      "app;main;two;leaf 400\n");
	free(out);
	callpaths__free(&c);
}
END_TEST

/*
 * A process's name is one frame whatever it holds: a ';' (what separates
 * frames in a folded line, for flamegraph.pl and every tool that reads
 * them) becomes ':', a newline (what ends the line) the two characters
 * "\n" as every control character is written (docs/formats.md); a process
 * without a name is "[pid N]".
 */
START_TEST(test_folded_names)
{
	struct callpaths c;
	struct callpath_stack none = { .n = 0 }; /* no frames of that kind */
	struct ldlat_top_val v = val(5, 0, LDLAT_CLASS_UNKNOWN);
	enum callpath_weight w = CALLPATH_WEIGHT_SAMPLES;
	char *out;

	callpaths__init(&c);
	ck_assert_int_eq(callpaths__add(&c, NULL, 42, "a;b\nc", &none, &none, &v), 0);
	ck_assert_int_eq(callpaths__add(&c, NULL, 43, NULL, &none, &none, &v), 0);
	out = render_mem(folded_samples, &c, &w);
	ck_assert_str_eq(out, "[pid 43] 5\na:b\\nc 5\n");
	free(out);
	callpaths__free(&c);
}
END_TEST

/* The tree: callers first, a chain in one column, branches most samples first, losses said. */
/*
 * The walks' line: an interval whose deferred samples were all sent in an
 * earlier one (sent 0) still says what became of them.
 */
START_TEST(test_walks_deferred_line)
{
	struct callpath_walks w = { .on = true, .defer_walked = 2, .defer_fp = 3 };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(f);
	w.c.walks = 5;
	callpaths__render_walks(f, &w);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_msg(strstr(text, "; 0 deferred before their tables were in (2 walked again in "
				   "user space, 3 left to frame pointers)"),
		      "%s", text);
	free(text);
}
END_TEST

START_TEST(test_tree)
{
	struct callpaths c;
	__u64 total = 55;
	char *out;

	fill(&c);
	out = render_mem(tree, &c, &total);
	ck_assert_msg(count_ending(out, "  app") == 52, "%s", out);
	ck_assert_int_eq(count_ending(out, "|-- main"), 50);
	ck_assert_int_eq(count_ending(out, "|-- one"), 30);
	ck_assert_int_eq(count_ending(out, "`-- two"), 20);
	ck_assert_ptr_nonnull(strstr(out, "    30   54.55%    100.0  local RAM"));
	ck_assert_ptr_nonnull(
		strstr(out, "2 samples: [call path lost: stack map full] (raise --entries)\n"));
	ck_assert_ptr_nonnull(strstr(out, "3 samples not attributed"));
	/* one before two: more samples */
	ck_assert(strstr(out, "-- one") < strstr(out, "-- two"));
	free(out);
	callpaths__free(&c);
}
END_TEST

static void flame(FILE *f, const struct callpaths *c, void *ctx)
{
	struct flamegraph g = {
		.paths = c, .weight = *(enum callpath_weight *)ctx, .has_latency = true, .kept = 55
	};

	flamegraph__render(f, &g);
}

/* The SVG parses, its total is the samples attributed and not, each frame has its count. */
START_TEST(test_flamegraph_xml)
{
	struct callpaths c;
	enum callpath_weight w = _i ? CALLPATH_WEIGHT_LATENCY : CALLPATH_WEIGHT_SAMPLES;
	char *out, *folded;
	FILE *f;

	fill(&c);
	out = render_mem(flame, &c, &w);
	f = fopen(tmp("unit.svg"), "w");
	ck_assert_ptr_nonnull(f);
	fputs(out, f);
	fclose(f);
	/* the frames, by their rects, draw the folded stacks of the same paths */
	folded = render_mem(folded_samples, &c, &w);
	f = fopen(tmp("unit.folded"), "w");
	ck_assert_ptr_nonnull(f);
	fputs(folded, f);
	fclose(f);
	free(folded);
	ck_assert_int_eq(sh(NULL, NULL, "python3 tests/svgcheck.py %s --geometry --folded %s",
			    tmp("unit.svg"), tmp("unit.folded")),
			 0);
	/* all, app, main, one, leaf, two, leaf, the lost stack, and (by samples) unattributed */
	if (_i)
		ck_assert_int_eq(sh(NULL, NULL,
				    "python3 tests/svgcheck.py %s --total 3500 --frames 8 --script "
				    "--frame one=3000 --frame leaf=3400 --frame main=3400",
				    tmp("unit.svg")),
				 0);
	else
		ck_assert_int_eq(sh(NULL, NULL,
				    "python3 tests/svgcheck.py %s --total 55 --frames 9 --script "
				    "--frame one=30 --frame leaf=50 --frame all=55 "
				    "--frame '[not attributed: table full]=3'",
				    tmp("unit.svg")),
				 0);
	/* the legend names the leaves' classes */
	ck_assert_ptr_nonnull(strstr(out, "data-class=\"local-ram\" data-n=\"30\""));
	free(out);
	callpaths__free(&c);
}
END_TEST

/* A name with XML's special characters stays XML. */
START_TEST(test_flamegraph_escapes)
{
	struct callpaths c;
	struct ldlat_top_val v = val(5, 0, LDLAT_CLASS_UNKNOWN);
	enum callpath_weight w = CALLPATH_WEIGHT_SAMPLES;
	char *out;
	FILE *f;

	callpaths__init(&c);
	ck_assert_int_eq(
		callpaths__add_folded(&c, "a<b>;std::vector<int>::push_back(int&&);\"q\"'", &v), 0);
	out = render_mem(flame, &c, &w);
	f = fopen(tmp("esc.svg"), "w");
	fputs(out, f);
	fclose(f);
	ck_assert_int_eq(sh(NULL, NULL,
			    "python3 tests/svgcheck.py %s --total 5 --frames 4 --geometry "
			    "--frame 'std::vector<int>::push_back(int&&)=5'",
			    tmp("esc.svg")),
			 0);
	free(out);
	callpaths__free(&c);
}
END_TEST

/* Samples at latencies into a snapshot's cells: bucket by bucket, as the program adds them. */
static void put(struct snapshot *s, unsigned int cls, __u64 lat, __u64 n)
{
	struct cell *c = &s->cells[ldlat_hist_index(0, cls)];

	c->count += n;
	if (!lat)
		c->unmeasured += n;
	else
		c->slot[ldlat_bucket(lat, 0)] += n;
}

/*
 * Rows are powers of two of cycles (a log-linear bucket folds into the one
 * its lower bound is in), a column per snapshot; cells, totals and the SVG
 * agree; by class, a panel per class.
 */
START_TEST(test_heatmap)
{
	struct snapshot s;
	struct heatmap h;
	struct timespec t0 = { 100, 0 };
	char label[48], *out;
	size_t len;
	FILE *f;

	ck_assert_int_eq(snapshot__init(&s, 1), 0);
	heatmap__init(&h, 0, _i, &t0);
	ck_assert_uint_eq(heatmap__row(&h, ldlat_bucket(1, 0)), 2);
	ck_assert_uint_eq(heatmap__row(&h, ldlat_bucket(63, 0)), 7);
	ck_assert_uint_eq(heatmap__row(&h, ldlat_bucket(64, 0)), 8);
	ck_assert_uint_eq(heatmap__row(&h, ldlat_bucket(100, 0)), 8);
	heatmap__row_label(&h, 8, label, sizeof(label));
	ck_assert_str_eq(label, "64-127");
	heatmap__row_label(&h, heatmap__nrows(&h) - 1, label, sizeof(label));
	ck_assert_str_eq(label, ">= 1048576");
	put(&s, LDLAT_CLASS_L1, 5, 10);
	put(&s, LDLAT_CLASS_LOCAL_RAM, 300, 7);
	put(&s, LDLAT_CLASS_LOCAL_RAM, 0, 2);
	s.taken = (struct timespec){ 101, 0 };
	s.since = t0;
	ck_assert_int_eq(heatmap__add(&h, &s), 0);
	snapshot__clear(&s);
	put(&s, LDLAT_CLASS_LOCAL_RAM, 400, 5);
	put(&s, LDLAT_CLASS_LOCAL_RAM, 2000000, 1);
	ck_assert_int_eq(heatmap__add(&h, &s), 0);
	ck_assert_uint_eq(h.ncols, 2);
	ck_assert_uint_eq(heatmap__total(&h), 25);
	ck_assert_uint_eq(h.col[0].n[LDLAT_CLASS_LOCAL_RAM][heatmap__row(&h, ldlat_bucket(300, 0))],
			  7);
	ck_assert_uint_eq(h.col[1].n[LDLAT_CLASS_LOCAL_RAM][heatmap__row(&h, ldlat_bucket(300, 0))],
			  5);
	f = fopen(tmp("heat.svg"), "w");
	ck_assert_ptr_nonnull(f);
	heatmap__render_svg(f, &h, "a <test>");
	fclose(f);
	/* cells: L1 5, RAM 300 and 400 (one row, two columns), unmeasured, >= 2^20 */
	ck_assert_int_eq(sh(NULL, NULL, "python3 tests/svgcheck.py %s --total 25 --cells 5",
			    tmp("heat.svg")),
			 0);
	f = open_memstream(&out, &len);
	heatmap__render_grid(f, &h, 40);
	fclose(f);
	ck_assert_msg(strstr(out, "256-511 |#*\n") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "unmeasured |- \n") != NULL, "%s", out);
	free(out);
	heatmap__free(&h);
	snapshot__free(&s);
}
END_TEST

static const char *callprog(void)
{
	return build_path("tests/ldlat-callprog");
}

/* The count at the end of the folded line that ends with suffix (its newline included), or -1. */
static long folded_count(const char *out, const char *suffix)
{
	const char *line = out, *nl;
	size_t n = strlen(suffix);
	long total = -1;

	for (; *line; line = nl + 1) {
		const char *sp;

		nl = strchr(line, '\n');
		if (!nl)
			break;
		sp = memrchr(line, ' ', nl - line);
		if (sp && (size_t)(sp - line) >= n && !memcmp(sp - n, suffix, n))
			total = (total < 0 ? 0 : total) + strtol(sp + 1, NULL, 10);
	}
	return total;
}

/*
 * The two call paths into fault_pages, each with exactly the pages it
 * faulted, in the folded output and the tree; every kept sample is on a line.
 */
START_TEST(test_live_folded)
{
	char *argv[] = { (char *)top(), "--source",	    "page-faults", "--format", "folded",
			 "--",		(char *)callprog(), "300",	   "120",      NULL };
	char *out, *err;

	run_expect(argv, 0, &out, &err);
	ck_assert_msg(folded_count(out, ";main;path_one;fault_pages") == 300, "%s", out);
	ck_assert_int_eq(folded_count(out, ";main;path_two;via_two;fault_pages"), 120);
	ck_assert_int_eq(strncmp(out, "ldlat-callprog;", 15), 0);
	free(out);
	free(err);
	/* the same run as JSON: the paths and the unattributed sum to the kept samples */
	argv[3] = "--call-graph";
	argv[4] = "--format=json";
	run_expect(argv, 0, &out, &err);
	ck_assert(jq_true(out, "[.call_paths.rows[] | select(.frames[-3:] == [\"main\", "
			       "\"path_one\", \"fault_pages\"]) | .samples] == [300]"));
	ck_assert(jq_true(out, "(.call_paths.rows | map(.samples) | add) + "
			       ".call_paths.not_attributed.table_full + "
			       ".call_paths.not_attributed.update_failed == .counters.kept"));
	/* no path lost: the stack map has room for every one */
	ck_assert(jq_true(out, ".call_paths.stacks_lost.samples == 0"));
	free(out);
	free(err);
	assert_nothing_left();
}
END_TEST

/*
 * What the side band tells of the processes: a path run in a forked child
 * (no exec: it has only its parent's mappings) is named as the parent's,
 * under the parent's name; a thread that renames itself (a COMM record
 * without exec) names no process; and a frame whose call is the last
 * instruction of its function (path_three, calling a function that does
 * not return) is named by its call, not by the function after it, where
 * its return address points (objdump and nm show the layout).  Every path's
 * root frame is the process's name, the program's (the kernel's comm).
 */
START_TEST(test_live_processes)
{
	char *argv[] = { (char *)top(),
			 "--source",
			 "page-faults",
			 "--format",
			 "folded",
			 "--",
			 (char *)callprog(),
			 "--fork",
			 "--name",
			 "worker",
			 "300",
			 "120",
			 "40",
			 NULL };
	char *out, *err;
	const char *line;

	/*
	 * the test's premise: path_three's last instruction is its call, and
	 * after_three starts where path_three ends (nm -S: address and size)
	 */
	ck_assert_int_eq(
		sh(NULL, NULL,
		   "f=%s; objdump -d $f | sed -n '/<path_three>:/,/^$/p' | grep . | tail -n 1 "
		   "| grep -q 'call.*<fault_and_exit>' && "
		   "e=$(nm -S $f | awk '$4 == \"path_three\" {print \"0x\" $1 \" + 0x\" $2}') "
		   "&& n=$(nm $f | awk '$3 == \"after_three\" {print \"0x\" $1}') && "
		   "[ -n \"$e\" ] && [ $(($e)) -eq $(($n)) ]",
		   callprog()),
		0);
	run_expect(argv, 0, &out, &err);
	ck_assert_msg(folded_count(out, ";main;path_one_forked;path_one;fault_pages") == 300, "%s",
		      out);
	ck_assert_int_eq(folded_count(out, ";main;path_two;via_two;fault_pages"), 120);
	ck_assert_msg(folded_count(out, ";main;path_three;fault_and_exit;fault_pages") == 40, "%s",
		      out);
	for (line = out; *line; line = strchr(line, '\n') + 1) {
		ck_assert_msg(!strncmp(line, "ldlat-callprog;", 15), "%s", out);
		if (!strchr(line, '\n'))
			break;
	}
	free(out);
	free(err);
	assert_nothing_left();
}
END_TEST

START_TEST(test_live_tree)
{
	char *argv[] = { (char *)top(), "--source", "page-faults", "--call-graph",
			 "-n",		"3",	    "--",	   (char *)callprog(),
			 "300",		"120",	    NULL };
	char *out, *err;

	run_expect(argv, 0, &out, &err);
	ck_assert_msg(count_ending(out, "-- path_one") == 300, "%s", out);
	ck_assert_int_eq(count_ending(out, "-- path_two"), 120);
	ck_assert_int_eq(count_ending(out, " via_two"), 120);
	ck_assert_int_eq(count_ending(out, " main"), 420);
	/* the tables are printed too */
	ck_assert_int_eq(count_for(out, "[.] fault_pages "), 420);
	ck_assert_ptr_nonnull(strstr(out, "Call paths, callers first: "));
	free(out);
	free(err);
	assert_nothing_left();
}
END_TEST

/*
 * --format svg: the flame graph's total is the run's kept samples, its
 * frames carry the paths' counts and are laid out by them, its script is
 * there, and chromium draws it (each frame 20 pixels wide or more shows its
 * fill colour where the SVG puts it).
 */
START_TEST(test_live_svg)
{
	const char *svg = tmp("flame.svg"), *png = tmp("flame.png");
	char *argv[] = { (char *)top(), "--source",  "page-faults", "--format",		"svg",
			 "--output",	(char *)svg, "--",	    (char *)callprog(), "300",
			 "120",		NULL };
	char *out, *err;

	run_expect(argv, 0, &out, &err);
	ck_assert_str_eq(out, "");
	free(out);
	free(err);
	ck_assert_int_eq(sh(NULL, NULL,
			    "python3 tests/svgcheck.py %s --script --geometry --frame path_one=300 "
			    "--frame via_two=120 --frame fault_pages=420",
			    svg),
			 0);
	/* the total: the kept samples of the subtitle */
	ck_assert_int_eq(sh(NULL, NULL,
			    "k=$(sed -n 's/.* \\([0-9][0-9]*\\) kept samples.*/\\1/p' %s) && "
			    "python3 tests/svgcheck.py %s --total \"$k\"",
			    svg, svg),
			 0);
	ck_assert_int_eq(sh(NULL, NULL,
			    "cd %s && timeout 120 chromium --headless --no-sandbox --disable-gpu "
			    "--no-first-run --user-data-dir=%s/chrome --window-size=1200,600 "
			    "--screenshot=%s file://%s >/dev/null 2>&1; test -s %s",
			    suite_dir(), suite_dir(), png, svg, png),
			 0);
	/* what chromium drew: each wide frame in its own fill colour */
	ck_assert_int_eq(
		sh(NULL, NULL, "python3 tests/svgcheck.py %s --png %s --min-colours 8", svg, png),
		0);
	assert_nothing_left();
}
END_TEST

/* Bad input: one sentence, exit 2. */
#define TOP_BAD(args)                                                                              \
	{                                                                                          \
		.cmd = "$TOP " args, .rc = 2, .err_starts = "ldlat-top: "                          \
	}

static const struct cli_case bad[] = {
	TOP_BAD("--weight latency"),
	TOP_BAD("--format flame"),
	TOP_BAD("--weight cycles --format folded"),
	TOP_BAD("--heatmap-by cpu"),
	TOP_BAD("--heatmap /tmp/ldlat-x.svg --output /tmp/ldlat-x.svg"),
	TOP_BAD("--heatmap /nonexistent-dir/heat.svg --input /dev/null"),
};

START_TEST(test_bad_input)
{
	cli_case__check(&bad[_i]);
}
END_TEST

/* A fault the kernel takes for the process (read() into array_c): its kernel stack, exactly. */
START_TEST(test_live_kernel_stack)
{
	char *argv[] = { (char *)top(),
			 "--source",
			 "page-faults",
			 "--format",
			 "folded",
			 "--",
			 (char *)build_path("tests/ldlat-topprog"),
			 "10",
			 "10",
			 "40",
			 NULL };
	char *out, *err;

	run_expect(argv, 0, &out, &err);
	ck_assert_msg(folded_count(out, ";ksys_read_[k];vfs_read_[k];read_zero_[k]") == 40, "%s",
		      out);
	free(out);
	free(err);
	assert_nothing_left();
}
END_TEST

/*
 * --input of what perf record -g recorded of the same program: the same
 * two paths with the same counts, and perf script's own callchains agree
 * (the paths' three innermost frames, and the number of samples).
 */
START_TEST(test_input_vs_perf)
{
	const char *data = tmp("cp.data");
	char *in[] = { (char *)top(), "--input", (char *)data, "--format", "folded", NULL };
	char *out, *err, *perf;
	long total = 0;
	const char *line, *nl, *sp;

	ck_assert_int_eq(sh(NULL, NULL,
			    "cd %s && perf record -q -e page-faults -c 1 -d -g -o %s %s 300 120 "
			    ">/dev/null 2>&1",
			    suite_dir(), data, callprog()),
			 0);
	run_expect(in, 0, &out, &err);
	ck_assert_msg(folded_count(out, ";main;path_one;fault_pages") == 300, "%s", out);
	ck_assert_int_eq(folded_count(out, ";main;path_two;via_two;fault_pages"), 120);
	for (line = out; (nl = strchr(line, '\n')); line = nl + 1) {
		sp = memrchr(line, ' ', nl - line);
		ck_assert_ptr_nonnull(sp);
		total += strtol(sp + 1, NULL, 10);
	}
	ck_assert_int_eq(
		sh(&perf, NULL,
		   "perf script -i %s -F comm,ip,sym 2>/dev/null | python3 -c '"
		   "import sys\n"
		   "n = one = two = 0\n"
		   "for b in sys.stdin.read().split(\"\\n\\n\"):\n"
		   "    l = [x.split() for x in b.split(\"\\n\")[1:] if len(x.split()) > 1]\n"
		   "    if not b.strip(): continue\n"
		   "    n += 1; f = [x[1] for x in l[:3]]\n"
		   "    one += f == [\"fault_pages\", \"path_one\", \"main\"]\n"
		   "    two += f == [\"fault_pages\", \"via_two\", \"path_two\"]\n"
		   "print(n, one, two)'",
		   data),
		0);
	{
		long n = -1, one = -1, two = -1;

		ck_assert_int_eq(sscanf(perf, "%ld %ld %ld", &n, &one, &two), 3);
		ck_assert_int_eq(one, 300);
		ck_assert_int_eq(two, 120);
		ck_assert_int_eq(n, total);
	}
	free(perf);
	free(out);
	free(err);
	assert_nothing_left();
}
END_TEST

/* Writes text to path, for a failure's message to name. */
static void save(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

/* The lines of text that hold s. */
static int count_lines_with(const char *text, const char *s)
{
	const char *line, *nl;
	int n = 0;

	for (line = text; *line; line = nl + 1) {
		nl = strchrnul(line, '\n');
		n += memmem(line, nl - line, s, strlen(s)) != NULL;
		if (!*nl)
			break;
	}
	return n;
}

/*
 * The user part below main of each path, "frame;frame count" a line, sorted:
 * of ldlat-top's folded lines (on stdin) or of perf script's callchains.
 */
#define BELOW_MAIN_FOLDED                                                                          \
	"import re, sys, collections\n"                                                            \
	"c = collections.Counter()\n"                                                              \
	"for l in sys.stdin:\n"                                                                    \
	"    m = re.search(r\";main;(.*;fault_pages)(;.*)? (\\d+)$\", l.strip())\n"                \
	"    if m: c[m.group(1)] += int(m.group(3))\n"                                             \
	"print(\"\".join(f\"{k} {v}\\n\" for k, v in sorted(c.items())), end=\"\")\n"
#define BELOW_MAIN_PERF                                                                            \
	"import sys, collections\n"                                                                \
	"c = collections.Counter()\n"                                                              \
	"for b in sys.stdin.read().split(\"\\n\\n\"):\n"                                           \
	"    f = [x.split()[1] for x in b.split(\"\\n\")[1:] if len(x.split()) > 1]\n"             \
	"    if \"main\" not in f or \"fault_pages\" not in f: continue\n"                         \
	"    f = f[f.index(\"fault_pages\"):f.index(\"main\")]\n"                                  \
	"    c[\";\".join(reversed(f))] += 1\n"                                                    \
	"print(\"\".join(f\"{k} {v}\\n\" for k, v in sorted(c.items())), end=\"\")\n"

/*
 * --input of perf record -g's file of ldlat-callprog --fan 6: 64 paths of
 * the same depth, one sample each, named apart (a sample's stack named once
 * and reused for the next one of the same stack must not reuse it for
 * another), each path below main as perf script's callchains give it.
 */
START_TEST(test_input_fan_vs_perf)
{
	const char *data = tmp("fan.data");
	char *ours, *theirs;

	ck_assert_int_eq(sh(NULL, NULL,
			    "cd %s && perf record -q -e page-faults -c 1 -d -g -o %s %s --fan 6 "
			    ">/dev/null 2>&1",
			    suite_dir(), data, callprog()),
			 0);
	ck_assert_int_eq(
		sh(&ours, NULL,
		   "%s --input %s --call-graph --format folded | python3 -c '" BELOW_MAIN_FOLDED
		   "'",
		   top(), data),
		0);
	ck_assert_int_eq(
		sh(&theirs, NULL,
		   "perf script -i %s -F comm,ip,sym 2>/dev/null | python3 -c '" BELOW_MAIN_PERF
		   "'",
		   data),
		0);
	save(tmp("fan.ldlat"), ours);
	save(tmp("fan.perf"), theirs);
	ck_assert_msg(!strcmp(ours, theirs), "ldlat-top's paths (%s) are not perf script's (%s)",
		      tmp("fan.ldlat"), tmp("fan.perf"));
	/* the premise: 64 fan paths of one sample each, besides the program's others */
	ck_assert_msg(count_lines_with(theirs, "fan_out;") == 64, "perf script: %s",
		      tmp("fan.perf"));
	free(ours);
	free(theirs);
	assert_nothing_left();
}
END_TEST

/*
 * A live heat map over -i reports: its total is the sum of the reports'
 * kept samples, a column each (page faults carry no latency: at most a
 * cell per report, in the unmeasured row; a report's cells count the
 * histograms at its read, its kept count the tables' drained generations,
 * so only the run's totals are equal); text reports end with the grid;
 * chromium draws it.
 */
START_TEST(test_live_heatmap)
{
	const char *svg = tmp("live-heat.svg"), *png = tmp("live-heat.png");
	char *argv[] = { (char *)top(),
			 "--source",
			 "page-faults",
			 "--format",
			 "json",
			 "-i",
			 "0.2",
			 "--heatmap",
			 (char *)svg,
			 "--",
			 "sh",
			 "-c",
			 "for i in 1 2 3 4 5; do $0 200 100; sleep 0.3; done",
			 (char *)callprog(),
			 NULL };
	char *targv[] = { (char *)top(), "--source", "page-faults",	 "-n", "1",  "--heatmap",
			  (char *)svg,	 "--",	     (char *)callprog(), "30", "20", NULL };
	char *out, *err, *sum;

	const char *json = tmp("live-heat.json");
	FILE *f;

	run_expect(argv, 0, &out, &err);
	f = fopen(json, "w");
	ck_assert_ptr_nonnull(f);
	fputs(out, f);
	fclose(f);
	ck_assert_int_eq(sh(&sum, NULL, "jq -s 'map(.counters.kept) | add' %s", json), 0);
	ck_assert_int_eq(sh(NULL, NULL,
			    "n=$(jq -s length %s) && [ \"$n\" -ge 2 ] && "
			    "python3 tests/svgcheck.py %s --total %ld --cells-max \"$n\" && "
			    "grep -q \"data-columns=.$n.\" %s",
			    json, svg, strtol(sum, NULL, 10), svg),
			 0);
	free(sum);
	free(out);
	free(err);
	ck_assert_int_eq(sh(NULL, NULL,
			    "cd %s && timeout 120 chromium --headless --no-sandbox --disable-gpu "
			    "--no-first-run --user-data-dir=%s/chrome --window-size=1200,300 "
			    "--screenshot=%s file://%s >/dev/null 2>&1; test -s %s && "
			    "python3 %s/tests/svgcheck.py %s --png %s --min-colours 4",
			    suite_dir(), suite_dir(), png, svg, png,
			    getenv("PWD") ? getenv("PWD") : ".", svg, png),
			 0);
	run_expect(targv, 0, &out, &err);
	ck_assert_msg(strstr(out, "heat map: latency (cycles) by interval, the last 1;") != NULL,
		      "%s", out);
	ck_assert_ptr_nonnull(strstr(out, "  unmeasured |@\n"));
	free(out);
	free(err);
	assert_nothing_left();
}
END_TEST

/*
 * 4096 call paths of one sample each (ldlat-callprog --fan 12).  With a
 * stack map too small for them (--entries 1: 1024 paths), the samples whose
 * path found it full are counted, in JSON (stacks_lost.map_full, the
 * samples under the frame that says so), the text's footer, the folded
 * lines and a warning on stderr; nothing goes missing.  At the default size
 * every path is there, each with its one sample, nothing lost, no warning.
 */
START_TEST(test_live_stack_losses)
{
	char *argv[] = {
		(char *)top(), "--source", "page-faults", "--call-graph", "--entries",
		"1",	       "--format", "json",	  "--",		  (char *)callprog(),
		"--fan",       "12",	   NULL
	};
	char *out, *err;

	run_expect(argv, 0, &out, &err);
	ck_assert_msg(jq_true(out, ".call_paths.stacks_lost.map_full > 2000 and "
				   ".call_paths.stacks_lost.samples == "
				   ".call_paths.stacks_lost.map_full"),
		      "%.3000s", out);
	ck_assert(jq_true(out, "([.call_paths.rows[] | select(.frames | index(\"[call path lost: "
			       "stack map full]\")) | .samples] | add) == "
			       ".call_paths.stacks_lost.map_full"));
	ck_assert(jq_true(out, "(.call_paths.rows | map(.samples) | add) + "
			       ".call_paths.not_attributed.table_full + "
			       ".call_paths.not_attributed.update_failed == .counters.kept"));
	ck_assert_msg(strstr(err, "ldlat-top: warning: ") &&
			      strstr(err, " samples lost their call paths (") &&
			      strstr(err, ": the stack map was full: raise --entries)"),
		      "%s", err);
	free(out);
	free(err);
	argv[7] = "text";
	run_expect(argv, 0, &out, &err);
	ck_assert_msg(strstr(out, " samples: [call path lost: stack map full] (raise --entries)\n"),
		      "%.3000s", out);
	ck_assert_ptr_nonnull(strstr(err, " samples lost their call paths ("));
	free(out);
	free(err);
	argv[6] = "--format=folded";
	argv[7] = "-n1";
	run_expect(argv, 0, &out, &err);
	ck_assert_msg(folded_count(out, "[call path lost: stack map full]") > 2000, "%.3000s", out);
	ck_assert_ptr_nonnull(strstr(err, " samples lost their call paths ("));
	free(out);
	free(err);
	/* the default size: every path, one sample each */
	argv[5] = "4096";
	argv[6] = "--format";
	argv[7] = "json";
	run_expect(argv, 0, &out, &err);
	ck_assert_msg(jq_true(out, ".call_paths.stacks_lost.samples == 0 and "
				   "([.call_paths.rows[] | select(.frames | index(\"fan_out\")) "
				   "| select(.frames[-1] == \"fault_pages\") | .samples] | "
				   "length == 4096 and all(. == 1))"),
		      "%.3000s", out);
	ck_assert_msg(!strstr(err, "call paths"), "%s", err);
	free(out);
	free(err);
	assert_nothing_left();
}
END_TEST

/* Latency weighs nothing where the samples carry none. */
START_TEST(test_bad_weight_live)
{
	char *argv[] = { (char *)top(), "--source", "page-faults", "--format", "svg",
			 "--weight",	"latency",  "--",	   "true",     NULL };
	char *out, *err;

	run_expect(argv, 2, &out, &err);
	ck_assert_msg(strstr(err, "--weight latency needs latency") != NULL, "%s", err);
	free(out);
	free(err);
	assert_nothing_left();
}
END_TEST

/* ldlat-hist has no call paths: folded is not one of its formats. */
START_TEST(test_hist_refuses_folded)
{
	char *argv[] = { (char *)build_path("ldlat-hist"), "--format", "folded", NULL };
	char *out, *err;

	run_expect(argv, 2, &out, &err);
	ck_assert_ptr_nonnull(strstr(err, "--format 'folded'"));
	free(out);
	free(err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("callpath");
	TCase *tc = tcase_create("render");
	int failed;

	suite_dir_make("callpath");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_folded);
	tcase_add_test(tc, test_folded_names);
	tcase_add_test(tc, test_tree);
	tcase_add_test(tc, test_walks_deferred_line);
	tcase_add_loop_test(tc, test_flamegraph_xml, 0, 2);
	tcase_add_test(tc, test_flamegraph_escapes);
	tcase_add_loop_test(tc, test_heatmap, 0, 2);
	tcase_add_loop_test(tc, test_bad_input, 0, (int)ARRAY_SIZE(bad));
	tcase_add_test(tc, test_hist_refuses_folded);
	suite_add_tcase(s, tc);
	if (need_root("check_callpath's live tests (perf events and BPF)")) {
		tc = tcase_create("live");
		tcase_set_timeout(tc, 240);
		tcase_add_test(tc, test_live_folded);
		tcase_add_test(tc, test_live_tree);
		tcase_add_test(tc, test_live_processes);
		tcase_add_test(tc, test_live_svg);
		tcase_add_test(tc, test_bad_weight_live);
		tcase_add_test(tc, test_live_kernel_stack);
		tcase_add_test(tc, test_input_vs_perf);
		tcase_add_test(tc, test_input_fan_vs_perf);
		tcase_add_test(tc, test_live_heatmap);
		tcase_add_test(tc, test_live_stack_losses);
		suite_add_tcase(s, tc);
	}
	failed = run_suite(s);
	suite_dir_remove();
	return failed ? 1 : 0;
}
