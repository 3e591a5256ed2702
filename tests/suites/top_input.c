// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * top_input.c - check_top's cases for ldlat-top --input.
 *
 * Files the test writer makes (tests/lib/perfwrite.c), at addresses placed from
 * nm's reading of the test programs: latency and data source in every
 * column, the filters, the order of execs and mappings (also written out of
 * time order, as two CPUs' buffers are), a PID that starts over, build IDs
 * (the file's, a copy in perf's cache, none), the kernel (another kernel,
 * perf's cached kallsyms), bad files and refused options.  As root, files
 * Debian's perf records here of tests/progs/topprog.c, against live ldlat-top runs
 * of the same program.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "user/symbols/buildid.h"
#include "user/symbols/kallsyms.h"
#include "user/top/offtop.h"
#include "tests/lib/datasrc_cases.h"
#include "tests/lib/perfwrite.h"
#include "tests/lib/clicase.h"
#include "tests/lib/testutil.h"
#include "tests/suites/top_input.h"
#include "kernel/lib/util.h"

#define BASE  0x555555554000ull /* where the written files map the test programs */
#define BASE2 0x565555554000ull
#define KIP   0xffffffff81234567ull /* a kernel IP */

/* a copy another user can read, for the tests that run ldlat-top as nobody (reachable_copy) */
static const char *topprog_copy;

static const char *topprog(void)
{
	return topprog_copy ? topprog_copy : build_path("tests/ldlat-topprog");
}

static const char *symprog(void)
{
	return build_path("tests/ldlat-symprog");
}

/* A symbol's address in an ELF file, as nm reads it. */
static __u64 nm_addr(const char *file, const char *sym)
{
	char cmd[1024], *argv[] = { "sh", "-c", cmd, NULL }, *out, *err;
	unsigned long long a = 0;

	snprintf(cmd, sizeof(cmd), "nm '%s' | awk '$3 == \"%s\" { print $1 }'", file, sym);
	ck_assert_int_eq(run(argv, 30, &out, &err), 0);
	ck_assert_msg(sscanf(out, "%llx", &a) == 1, "nm: no %s in %s", sym, file);
	free(out);
	free(err);
	return a;
}

/* An ELF file's build ID, as readelf reads it; its length. */
static int readelf_build_id(const char *file, unsigned char *id)
{
	char cmd[1024], *argv[] = { "sh", "-c", cmd, NULL }, *out, *err, *p;
	int n = 0;
	unsigned int b;

	snprintf(cmd, sizeof(cmd), "readelf -n '%s' | sed -n 's/.*Build ID: *//p'", file);
	ck_assert_int_eq(run(argv, 30, &out, &err), 0);
	for (p = out; n < 20 && sscanf(p, "%2x", &b) == 1; p += 2)
		id[n++] = (unsigned char)b;
	ck_assert_int_gt(n, 8);
	free(out);
	free(err);
	return n;
}

static int run_top(char **argv, char **out, char **err)
{
	return run(argv, 120, out, err);
}

/* The tool on a file, with extra arguments (NULL-terminated). */
static int top_input(const char *path, char **out, char **err, ...)
{
	char *argv[32] = { (char *)top(), "--input", (char *)path };
	int n = 3;
	va_list ap;

	va_start(ap, err);
	while (n < 31 && (argv[n] = va_arg(ap, char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	return run_top(argv, out, err);
}

static void sample(struct pw *w, __u32 pid, __u64 time, __u64 ip, __u64 addr, __u64 lat, __u64 ds)
{
	struct pw_sample s = { .ip = ip,
			       .pid = pid,
			       .tid = pid,
			       .time = time,
			       .addr = addr,
			       .period = 1,
			       .weight = lat, /* var1_dw: the low 32 bits */
			       .data_src = ds };

	pw_sample(w, 0, &s);
}

/* ---- latency and data source, as a load-latency PMU records them ---------------- */

/*
 * Process 4000 runs ldlat-topprog: touch_a loads 5 lines of array_a, 4 from
 * L3 (40, 60, 80, 100 cycles) and 1 from local RAM (400); touch_b 3 loads
 * of array_b from local RAM (300, 500, 700), two in one line.  Process 4001
 * runs it too: 2 L3 loads in touch_a (1000 cycles each).
 */
static void write_latency(const char *path, bool pipe)
{
	__u64 ta = BASE + nm_addr(topprog(), "touch_a") + 4,
	      tb = BASE + nm_addr(topprog(), "touch_b") + 4,
	      aa = BASE + nm_addr(topprog(), "array_a"), ab = BASE + nm_addr(topprog(), "array_b");
	static const __u64 lat_a[] = { 40, 60, 80, 100, 400 }, lat_b[] = { 300, 500, 700 };
	struct pw_event ev;
	struct pw w;
	int i;

	pw_mem_loads_event(&ev, 100);
	ck_assert_int_eq(pw_open(&w, path, &ev, 1, pipe), 0);
	pw_comm(&w, 4000, 4000, "ldlat-topprog", 100);
	pw_mmap2(&w, 4000, BASE, 8 << 20, 0, topprog(), 110);
	pw_comm(&w, 4001, 4001, "ldlat-topprog", 120);
	pw_mmap2(&w, 4001, BASE2, 8 << 20, 0, topprog(), 130);
	for (i = 0; i < 5; i++)
		sample(&w, 4000, 200 + i, ta, aa + 64 * i, lat_a[i], i < 4 ? GEN_04 : GEN_0C);
	for (i = 0; i < 3; i++)
		sample(&w, 4000, 300 + i, tb, ab + (i == 2 ? 4096 : 0), lat_b[i], GEN_0C);
	for (i = 0; i < 2; i++)
		sample(&w, 4001, 400 + i, ta - BASE + BASE2, aa - BASE + BASE2 + 8192, 1000,
		       GEN_04);
	ck_assert_int_eq(pw_close(&w), 0);
}

/* The text row of a function: samples, mean, max, source, function, DSO as ldlat-top lays them out. */
static bool has_code_row(const char *out, unsigned long samples, const char *mean, const char *max,
			 const char *source, const char *func, const char *dso)
{
	char want[512];
	const char *p, *line;

	snprintf(want, sizeof(want), "  %8s  %8s  %-22s [.] %-36s %s\n", mean, max, source, func,
		 dso);
	p = strstr(out, want);
	if (!p)
		return false;
	for (line = p; line > out && line[-1] != '\n'; line--)
		;
	return strtoul(line, NULL, 10) == samples;
}

/* _i: 0 the file format, 1 the pipe format. */
START_TEST(test_input_latency_columns)
{
	const char *path = tmp(_i ? "latency-pipe.data" : "latency.data");
	char *out, *err;

	write_latency(path, _i);
	/* process 4000: mean (40+60+80+100+400)/5 = 136, L3 4 of 5 */
	ck_assert_int_eq(top_input(path, &out, &err, "-p", "4000", NULL), 0);
	ck_assert_msg(has_code_row(out, 5, "136", "400", "L3 hit 80%", "touch_a", "ldlat-topprog"),
		      "%s", out);
	ck_assert_msg(has_code_row(out, 3, "500", "700", "local RAM", "touch_b", "ldlat-topprog"),
		      "%s", out);
	ck_assert_int_eq(count_for(out, " array_a "), 5);
	ck_assert_int_eq(count_for(out, " array_b "), 3);
	ck_assert_ptr_nonnull(strstr(out, "filters: 10 seen, 8 kept; dropped: 2 other process"));
	ck_assert_str_eq(err, "");
	free(out);
	free(err);
	/* both processes: (680 + 2000) / 7 = 382.9; L3 6 of 7 */
	ck_assert_int_eq(top_input(path, &out, &err, NULL), 0);
	ck_assert_msg(has_code_row(out, 7, "383", "1000", "L3 hit 86%", "touch_a", "ldlat-topprog"),
		      "%s", out);
	free(out);
	free(err);
	/* JSON: sums, classes, lines touched */
	ck_assert_int_eq(top_input(path, &out, &err, "-p", "4000", "--format", "json", NULL), 0);
	ck_assert(jq_true(out, "[.code.rows[] | select(.function == \"touch_a\") | [.samples, "
			       ".latency_sum, .max_latency, .mean_latency, .source, .sources]] == "
			       "[[5, 680, 400, 136, \"l3\", {\"l3\": 4, \"local-ram\": 1}]]"));
	ck_assert(jq_true(out, "[.data.rows[] | select(.object == \"array_b\") | [.samples, "
			       ".blocks, .hottest_offset, .source, .latency_sum]] == "
			       "[[3, 2, 0, \"local-ram\", 1500]]"));
	ck_assert(jq_true(out, ".latency == true and .source == \"ldlat\" and .counters.kept == 8 "
			       "and (.target | startswith(\"file \")) and .data.samples == 8"));
	free(out);
	free(err);
	/* pages: array_b's two lines are one page and a second one */
	ck_assert_int_eq(top_input(path, &out, &err, "-p", "4000", "--format", "json",
				   "--granularity", "page", "--data-by", "block", NULL),
			 0);
	ck_assert(jq_true(out, "[.data.rows[] | select(.object == \"array_b\") | [.samples, "
			       ".offset]] == [[2, 0], [1, 4096]] and .block_bytes == 4096"));
	free(out);
	free(err);
}
END_TEST

/* The filters and orders of a live run, on the same file. */
START_TEST(test_input_filters_and_sort)
{
	const char *path = tmp("filters.data");
	char *out, *err;

	write_latency(path, false);
	/* -s ram: the one RAM load of touch_a, all three of touch_b */
	ck_assert_int_eq(top_input(path, &out, &err, "-p", "4000", "-s", "ram", NULL), 0);
	ck_assert_msg(has_code_row(out, 1, "400", "400", "local RAM", "touch_a", "ldlat-topprog"),
		      "%s", out);
	ck_assert_int_eq(count_for(out, "[.] touch_b "), 3);
	free(out);
	free(err);
	/* --min-lat 100: 100 and 400 of touch_a */
	ck_assert_int_eq(top_input(path, &out, &err, "-p", "4000", "--min-lat", "100", NULL), 0);
	ck_assert_msg(has_code_row(out, 2, "250", "400", "L3 hit 50%", "touch_a", "ldlat-topprog"),
		      "%s", out);
	free(out);
	free(err);
	/* --sort latency (500 > 136) and total (1500 > 680) put touch_b first; samples touch_a */
	ck_assert_int_eq(top_input(path, &out, &err, "-p", "4000", "--sort", "latency", "--by",
				   "ip", "--format", "json", NULL),
			 0);
	ck_assert(jq_true(out, "[.code.rows[].function] == [\"touch_b\", \"touch_a\"]"));
	free(out);
	free(err);
	ck_assert_int_eq(top_input(path, &out, &err, "-p", "4000", "--sort", "total", "--by", "ip",
				   "--format", "json", NULL),
			 0);
	ck_assert(jq_true(out, "[.code.rows[].function] == [\"touch_b\", \"touch_a\"] and .data == "
			       "null"));
	free(out);
	free(err);
	ck_assert_int_eq(top_input(path, &out, &err, "--by", "data", "-n", "1", NULL), 0);
	ck_assert_ptr_null(strstr(out, "code: "));
	ck_assert_int_eq(count_for(out, " array_a "), 7);
	ck_assert_ptr_nonnull(strstr(out, "... 1 more rows"));
	free(out);
	free(err);
	/* -a: only array_b's addresses */
	{
		char range[64];

		snprintf(range, sizeof(range), "0x%llx+4K",
			 (unsigned long long)(BASE + nm_addr(topprog(), "array_b")));
		ck_assert_int_eq(top_input(path, &out, &err, "-a", range, NULL), 0);
		ck_assert_int_eq(count_for(out, "[.] touch_b "), 2);
		ck_assert_int_eq(count_for(out, "[.] touch_a "), -1);
		free(out);
		free(err);
	}
	/* --output: the report in the file, nothing on stdout */
	ck_assert_int_eq(top_input(path, &out, &err, "--output", tmp("report.txt"), NULL), 0);
	ck_assert_str_eq(out, "");
	free(out);
	out = NULL;
	{
		char *argv[] = { "cat", (char *)tmp("report.txt"), NULL }, *e2;

		ck_assert_int_eq(run(argv, 10, &out, &e2), 0);
		ck_assert_int_eq(count_for(out, "[.] touch_a "), 7);
		free(e2);
	}
	free(out);
	free(err);
}
END_TEST

/* ---- which program, which mapping: records in time order --------------------------- */

/*
 * Process 4100 runs ldlat-topprog (a sample in touch_a, array_a), then execs
 * ldlat-symprog mapped at the same address (a sample in prog_hot,
 * prog_global).  Process 4200 has ldlat-topprog mapped and then, without an
 * exec, ldlat-symprog over it, with the same two samples.  Process 4400
 * runs ldlat-topprog (a sample in touch_a), exits, and its PID comes back
 * as a fork of process 4401, which runs ldlat-symprog at the same address
 * (a sample in prog_hot).  out_of_order: the samples taken before the exec
 * and the remap are written after them, and the new program's mapping
 * before the exec, as perf record writes the buffers of CPUs in turn;
 * timed false: no timestamps at all (file order).
 */
static void write_order(const char *path, bool out_of_order, bool pipe, bool timed)
{
	__u64 ta = BASE + nm_addr(topprog(), "touch_a") + 4,
	      aa = BASE + nm_addr(topprog(), "array_a") + 64,
	      ph = BASE + nm_addr(symprog(), "prog_hot") + 4,
	      pg = BASE + nm_addr(symprog(), "prog_global") + 128;
	struct pw_event ev;
	struct pw w;
	__u32 pid;

	pw_mem_loads_event(&ev, 100);
	if (!timed) {
		ev.attr.sample_type &= ~(__u64)PERF_SAMPLE_TIME;
		ev.attr.sample_id_all = 0;
	}
	ck_assert_int_eq(pw_open(&w, path, &ev, 1, pipe), 0);
	/* 4100: exec; 4200: remap */
	for (pid = 4100; pid <= 4200; pid += 100) {
		__u64 t0 = pid == 4100 ? 0 : 500;

		if (pid == 4100)
			pw_comm(&w, pid, pid, "ldlat-topprog", t0 + 100);
		pw_mmap2(&w, pid, BASE, 8 << 20, 0, topprog(), t0 + 110);
		if (!out_of_order)
			sample(&w, pid, t0 + 200, ta, aa, 50, GEN_04);
		/* out of order, the exec's mapping comes before the exec (another CPU's) */
		if (pid == 4100 && !out_of_order)
			pw_comm(&w, pid, pid, "ldlat-symprog", t0 + 300);
		pw_mmap2(&w, pid, BASE, 8 << 20, 0, symprog(), t0 + 310);
		if (pid == 4100 && out_of_order)
			pw_comm(&w, pid, pid, "ldlat-symprog", t0 + 300);
		if (out_of_order)
			sample(&w, pid, t0 + 200, ta, aa, 50, GEN_04);
		sample(&w, pid, t0 + 400, ph, pg, 60, GEN_04);
	}
	/* 4400: a PID that starts over */
	pw_comm(&w, 4401, 4401, "ldlat-symprog", 1050);
	pw_mmap2(&w, 4401, BASE, 8 << 20, 0, symprog(), 1060);
	pw_comm(&w, 4400, 4400, "ldlat-topprog", 1090);
	pw_mmap2(&w, 4400, BASE, 8 << 20, 0, topprog(), 1100);
	sample(&w, 4400, 1150, ta, aa, 70, GEN_04);
	pw_exit(&w, 4400, 4400, 1160);
	pw_fork(&w, 4400, 4401, 1200);
	sample(&w, 4400, 1250, ph, pg, 80, GEN_04);
	ck_assert_int_eq(pw_close(&w), 0);
}

/*
 * _i: 0 in order, 1 out of file order, 2 the same in the pipe format, 3 in
 * order without timestamps.  Every sample is named with the program mapped
 * when it was taken: 3 in touch_a of ldlat-topprog, 3 in prog_hot of
 * ldlat-symprog, none misnamed.
 */
START_TEST(test_input_exec_and_remap)
{
	const char *path = tmp("order.data");
	char *out, *err;

	write_order(path, _i == 1 || _i == 2, _i == 2, _i != 3);
	ck_assert_int_eq(top_input(path, &out, &err, "-n", "0", "--format", "json", "-v", NULL), 0);
	ck_assert(jq_true(out, "[.code.rows[] | select(.function == \"touch_a\") | .samples] == "
			       "[3] and [.code.rows[] | select(.function == \"prog_hot\") | "
			       ".samples] == [3] and (.code.rows | length) == 2"));
	ck_assert(jq_true(out, "[.code.rows[] | .dso | split(\"/\") | last] | sort == "
			       "[\"ldlat-symprog\", \"ldlat-topprog\"]"));
	ck_assert(jq_true(out, "[.data.rows[] | [.object, .samples, .blocks]] | sort == "
			       "[[\"array_a\", 3, 1], [\"prog_global\", 3, 1]]"));
	ck_assert_msg(strstr(err, _i == 3 ? "applied in file order" : "applied in time order"),
		      "%s", err);
	ck_assert_msg(strstr(err, _i == 1 || _i == 2 ? "; 2 samples come after a newer one"
						     : "; 0 samples come after a newer one"),
		      "%s", err);
	free(out);
	free(err);
}
END_TEST

/*
 * The key of a sample is the image in which its mapping appeared: two loads
 * of one line of array_a, before and after a mapping elsewhere that cuts the
 * process's history, are one entry of the table, as live.
 */
START_TEST(test_input_one_entry_across_images)
{
	const char *path = tmp("images.data");
	__u64 ta = BASE + nm_addr(topprog(), "touch_a") + 4,
	      aa = BASE + nm_addr(topprog(), "array_a") + 64;
	struct procmaps images;
	struct symbolizer z;
	struct top_table ip, data;
	struct ldlat_top_val v;
	struct snapshot snap;
	struct offtop t;
	struct pw_event ev;
	struct pw w;
	struct cli cli;
	struct err err = {};

	pw_mem_loads_event(&ev, 100);
	ck_assert_int_eq(pw_open(&w, path, &ev, 1, false), 0);
	pw_comm(&w, 4300, 4300, "ldlat-topprog", 100);
	pw_mmap2(&w, 4300, BASE, 8 << 20, 0, topprog(), 110);
	pw_mmap2(&w, 4300, BASE2, 1 << 20, 0, "//anon", 120);
	sample(&w, 4300, 150, ta, aa, 10, GEN_04);
	pw_mmap2(&w, 4300, BASE2, 1 << 20, 0, symprog(), 200); /* over the anonymous one */
	sample(&w, 4300, 250, ta, aa, 20, GEN_04);
	ck_assert_int_eq(pw_close(&w), 0);

	cli__init(&cli);
	procmaps__init(&images);
	images.proc_root = NULL;
	ck_assert_int_eq(symbolizer__init(&z, &images, NULL), 0);
	top_table__init(&ip);
	top_table__init(&data);
	ck_assert_msg(offtop__open(&t, path, &cli, LDLAT_TOP_IP | LDLAT_TOP_DATA, 6, false, &images,
				   &z, &err) == 0,
		      "%s", err.msg);
	t.ip = &ip;
	t.data = &data;
	ck_assert_int_eq(snapshot__init(&snap, t.o.cfg.nranges), 0);
	ck_assert_int_eq(offtop__read(&t, &snap, &err), 0);
	ck_assert_uint_eq(snap.counters.kept, 2);
	/* two images, one entry in each table, of the image where the mapping appeared */
	ck_assert_int_eq(procmaps__find(&images, MACHINE_IMAGE_BASE + 2) != NULL, 1);
	ck_assert_uint_eq(data.n, 1);
	top_table__val(&data, &data.e[0], &v);
	ck_assert_uint_eq(v.count, 2);
	ck_assert_uint_eq(v.lat_sum, 30);
	ck_assert_uint_eq(ip.n, 1);
	/* images: before the exec, until the mapping at 200, after it: the second */
	ck_assert_uint_eq(data.e[0].tgid, MACHINE_IMAGE_BASE + 1);
	snapshot__free(&snap);
	offtop__close(&t);
	top_table__free(&ip);
	top_table__free(&data);
	symbolizer__free(&z);
	procmaps__free(&images);
}
END_TEST

/* ---- build IDs ---------------------------------------------------------------------- */

/*
 * Process 4500 maps 'prog' (a path under the test's directory) at BASE, with
 * one sample in touch_a; the file says prog's build ID is ldlat-topprog's
 * (HEADER_BUILD_ID, or in the MMAP2 record).
 */
static void write_build_id(const char *path, const char *prog, bool in_mmap, bool pipe)
{
	__u64 ta = BASE + nm_addr(topprog(), "touch_a") + 4;
	unsigned char id[20];
	int len = readelf_build_id(topprog(), id);
	struct pw_event ev;
	struct pw w;

	pw_mem_loads_event(&ev, 100);
	ck_assert_int_eq(pw_open(&w, path, &ev, 1, pipe), 0);
	pw_comm(&w, 4500, 4500, "prog", 100);
	if (in_mmap)
		pw_mmap2_build_id(&w, 4500, BASE, 8 << 20, 0, id, len, prog, 110);
	else
		pw_mmap2(&w, 4500, BASE, 8 << 20, 0, prog, 110);
	sample(&w, 4500, 200, ta, BASE + nm_addr(topprog(), "array_a"), 30, GEN_04);
	if (!in_mmap)
		pw_build_id(&w, PERF_RECORD_MISC_USER, id, len, prog);
	ck_assert_int_eq(pw_close(&w), 0);
}

static void copy_file(const char *from, const char *to)
{
	char *argv[] = { "cp", (char *)from, (char *)to, NULL }, *out, *err;

	unlink(to); /* a new file, not the old one rewritten */
	ck_assert_int_eq(run(argv, 30, &out, &err), 0);
	free(out);
	free(err);
}

/*
 * _i: 0 HEADER_BUILD_ID, 1 the same in the pipe format, 2 MMAP2 build IDs.
 * The file at the path matches: named.  It is another program: not named,
 * "(recorded file not found)", and a note with the ID.  A copy of the right one in
 * perf's build-ID cache: named from it, under the mapped name.
 */
START_TEST(test_input_build_ids)
{
	const char *path = tmp("buildid.data"), *prog = tmp("prog");
	char cache[600], link[700], hex[41], env[700];
	unsigned char id[20];
	int len = readelf_build_id(topprog(), id);
	char *out, *err;

	buildid__hex(id, len, hex, sizeof(hex));
	copy_file(topprog(), prog);
	write_build_id(path, prog, _i == 2, _i == 1);
	snprintf(link, sizeof(link), "cache%d", _i); /* each case its own: empty at first */
	snprintf(cache, sizeof(cache), "%s", tmp(link));
	snprintf(env, sizeof(env), "PERF_BUILDID_DIR=%s", cache);
	putenv(env);
	ck_assert_int_eq(top_input(path, &out, &err, NULL), 0);
	ck_assert_msg(count_for(out, "[.] touch_a ") == 1, "%s", out);
	ck_assert_ptr_nonnull(strstr(out, " array_a "));
	ck_assert_str_eq(err, "");
	free(out);
	free(err);

	copy_file(symprog(), prog);
	ck_assert_int_eq(top_input(path, &out, &err, NULL), 0);
	ck_assert_msg(count_for(out, "[.] touch_a ") == -1, "%s", out);
	ck_assert_msg(strstr(out, "prog (recorded file not found)\n"), "%s", out);
	ck_assert_msg(
		strstr(err, "no file this user can read has the build ID perf recorded for") &&
			strstr(err, hex),
		"%s", err);
	free(out);
	free(err);

	/* perf's cache: .build-id/xx/rest/elf */
	snprintf(link, sizeof(link), "%s/.build-id/%.2s/%s", cache, hex, hex + 2);
	{
		char cmd[2000], *argv[] = { "sh", "-c", cmd, NULL }, *o, *e;

		snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && cp '%s' '%s/elf'", link, topprog(),
			 link);
		ck_assert_int_eq(run(argv, 30, &o, &e), 0);
		free(o);
		free(e);
	}
	ck_assert_int_eq(top_input(path, &out, &err, "--format", "json", NULL), 0);
	ck_assert(jq_true(out, "[.code.rows[] | select(.function == \"touch_a\") | .dso | "
			       "endswith(\"/prog\")] == [true]"));
	ck_assert(jq_true(out, "[.data.rows[] | select(.object == \"array_a\") | .in | "
			       "endswith(\"/prog\")] == [true]"));
	ck_assert_str_eq(err, "");
	free(out);
	free(err);
	unsetenv("PERF_BUILDID_DIR");
}
END_TEST

/* ---- the kernel -------------------------------------------------------------------- */

/* One kernel sample of process 4600 (IP ip, address in its anonymous memory). */
static void write_kernel(const char *path, const char *osrelease, const char *hostname, __u64 text,
			 const unsigned char *kid, int kidlen, __u64 ip)
{
	struct pw_event ev;
	struct pw w;

	pw_mem_loads_event(&ev, 100);
	ck_assert_int_eq(pw_open(&w, path, &ev, 1, false), 0);
	w.osrelease = osrelease;
	w.hostname = hostname;
	if (text)
		pw_kernel_mmap(&w, text, 0x1000000, text, 0);
	pw_comm(&w, 4600, 4600, "kprog", 100);
	pw_mmap2(&w, 4600, BASE, 1 << 20, 0, "//anon", 110);
	sample(&w, 4600, 200, ip, BASE + 64, 30, GEN_04);
	if (kidlen)
		pw_build_id(&w, PERF_RECORD_MISC_KERNEL, kid, kidlen, "[kernel.kallsyms]");
	ck_assert_int_eq(pw_close(&w), 0);
}

/*
 * Recorded on another kernel (release and host differ; the build ID
 * differs): raw, and a note that says so.  perf's build-ID cache holds that
 * kernel's kallsyms (written here, with its _text where the file says):
 * named from it, and a note that says so.
 */
START_TEST(test_input_other_kernel)
{
	const char *path = tmp("kernel.data");
	const unsigned char other[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3 };
	char hex[41], dir[700], env[700], ksyms[900];
	char *out, *err;
	FILE *f;

	write_kernel(path, NULL, NULL, 0xffffffff81000000ull, NULL, 0, KIP);
	ck_assert_int_eq(top_input(path, &out, &err, "--by", "ip", NULL), 0);
	ck_assert_msg(count_for(out, "[k] 0xffffffff81234567 ") == 1, "%s", out);
	ck_assert_msg(strstr(err, "kernel addresses are shown raw, not named from /proc/kallsyms: "
				  "it was recorded on kernel 6.1.0-test on host ldlat-test"),
		      "%s", err);
	free(out);
	free(err);

	write_kernel(path, NULL, NULL, 0xffffffff81000000ull, other, 20, KIP);
	ck_assert_int_eq(top_input(path, &out, &err, "--by", "ip", NULL), 0);
	ck_assert_msg(strstr(err, "it was recorded on another kernel (build ID deadbeef0102030000"),
		      "%s", err);
	free(out);
	free(err);

	buildid__hex(other, 20, hex, sizeof(hex));
	snprintf(dir, sizeof(dir), "%s/[kernel.kallsyms]/%s", tmp("kcache"), hex);
	{
		char cmd[1000], *argv[] = { "mkdir", "-p", cmd, NULL }, *o, *e;

		snprintf(cmd, sizeof(cmd), "%s", dir);
		ck_assert_int_eq(run(argv, 10, &o, &e), 0);
		free(o);
		free(e);
	}
	snprintf(ksyms, sizeof(ksyms), "%s/kallsyms", dir);
	f = fopen(ksyms, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "ffffffff81000000 T _text\nffffffff81234000 T recorded_function\n"
		   "ffffffff81300000 T after_it\n");
	fclose(f);
	snprintf(env, sizeof(env), "PERF_BUILDID_DIR=%s", tmp("kcache"));
	putenv(env);
	ck_assert_int_eq(top_input(path, &out, &err, "--by", "ip", NULL), 0);
	ck_assert_msg(count_for(out, "[k] recorded_function ") == 1, "%s", out);
	ck_assert_msg(strstr(err, "kernel addresses named from perf's build-ID cache copy"), "%s",
		      err);
	free(out);
	free(err);
	/* the copy must have the kernel's text where the file says */
	write_kernel(path, NULL, NULL, 0xffffffff82000000ull, other, 20, KIP);
	ck_assert_int_eq(top_input(path, &out, &err, "--by", "ip", NULL), 0);
	ck_assert_msg(count_for(out, "[k] 0xffffffff81234567 ") == 1, "%s", out);
	free(out);
	free(err);
	unsetenv("PERF_BUILDID_DIR");
}
END_TEST

/*
 * The running kernel (its release and host, or its build ID): kernel
 * addresses named from /proc/kallsyms when root reads it and the kernel's
 * text is where the file says; in another boot (text elsewhere), raw.
 */
START_TEST(test_input_this_kernel)
{
	const char *path = tmp("thiskernel.data");
	struct utsname u;
	unsigned char kid[20];
	__u64 text = 0, schedule = 0;
	char *out, *err;
	int kidlen;

	if (!need_root("check_top (/proc/kallsyms addresses)"))
		return;
	ck_assert_int_eq(uname(&u), 0);
	ck_assert_int_eq(kallsyms__lookup(NULL, "_text", &text), 0);
	ck_assert_int_eq(kallsyms__lookup(NULL, "schedule", &schedule), 0);
	ck_assert_uint_ne(text, 0);
	/* by release and host */
	write_kernel(path, u.release, u.nodename, text, NULL, 0, schedule + 1);
	ck_assert_int_eq(top_input(path, &out, &err, "--by", "ip", NULL), 0);
	ck_assert_msg(count_for(out, "[k] schedule ") == 1, "%s", out);
	ck_assert_str_eq(err, "");
	free(out);
	free(err);
	/* by build ID, whatever the release says */
	kidlen = buildid__kernel(kid, sizeof(kid));
	if (kidlen > 0) {
		write_kernel(path, NULL, NULL, text, kid, kidlen, schedule + 1);
		ck_assert_int_eq(top_input(path, &out, &err, "--by", "ip", NULL), 0);
		ck_assert_msg(count_for(out, "[k] schedule ") == 1, "%s", out);
		free(out);
		free(err);
	}
	/* another boot: the text elsewhere */
	write_kernel(path, u.release, u.nodename, text + 0x200000, NULL, 0, schedule + 1);
	ck_assert_int_eq(top_input(path, &out, &err, "--by", "ip", NULL), 0);
	ck_assert_msg(count_for(out, "[k] schedule ") == -1, "%s", out);
	ck_assert_msg(strstr(err, "it was recorded in another boot of this kernel"), "%s", err);
	free(out);
	free(err);
}
END_TEST

/* ---- bad input ----------------------------------------------------------------------- */

/*
 * A bad option of ldlat-top on the file $FILE: exit 2, one sentence that
 * starts with the tool's name, nothing on stdout.
 */
#define TOP_FILE_BAD(cmd_, message)                                                                \
	{                                                                                          \
		.cmd = cmd_, .rc = 2, .err = { message },                                          \
		.err_starts = "ldlat-top: ", .empty_out = true, .seconds = 120                     \
	}
#define REPORT_REFUSES(args, message) TOP_FILE_BAD("$TOP --input $FILE " args, message)
#define WORD_REFUSES(args, message)   TOP_FILE_BAD("$TOP report $FILE " args, message)

/* Options of live sampling or list-events: not options of ldlat-top report (--input FILE). */
static const struct cli_case top_live_only[] = {
	REPORT_REFUSES("--source page-faults", "--source is not an option of 'ldlat-top report'"),
	REPORT_REFUSES("-L 50", "-L is not an option of 'ldlat-top report'"),
	REPORT_REFUSES("-c 10", "-c is not an option of 'ldlat-top report'"),
	REPORT_REFUSES("-C 0", "-C is not an option of 'ldlat-top report'"),
	REPORT_REFUSES("-G /sys/fs/cgroup", "-G is not an option of 'ldlat-top report'"),
	REPORT_REFUSES("-d 1", "-d is not an option of 'ldlat-top report'"),
	REPORT_REFUSES("-i 1", "-i is not an option of 'ldlat-top report'"),
	REPORT_REFUSES("-- true", "a command ('true') is not an argument of 'ldlat-top report'"),
	REPORT_REFUSES("--event cpu/mem-loads/P", "--event is not an option of 'ldlat-top report'"),
	REPORT_REFUSES("--list-events", "--list-events is not an option of 'ldlat-top report'"),
	REPORT_REFUSES("--entries 100", "--entries is not an option of 'ldlat-top report'"),
	REPORT_REFUSES("--loads", "unrecognized option '--loads'"),
	REPORT_REFUSES("--format openmetrics", "--format openmetrics is not one of ldlat-top's"),
	REPORT_REFUSES("--inherit -p1", "--inherit is not an option of 'ldlat-top report'"),
};

START_TEST(test_input_live_only)
{
	const char *path = tmp("live-only.data");

	write_latency(path, false);
	cli_var_set("FILE", path);
	cli_case__check(&top_live_only[_i]);
}
END_TEST

/* ldlat-top report FILE is ldlat-top --input FILE: the same report and messages. */
START_TEST(test_input_report_word)
{
	const char *path = tmp("word.data");
	char *word[] = { (char *)top(), "report", (char *)path, "--sort", "total",
			 "-n",		"3",	  "-v",		NULL };
	char *out, *err, *fout, *ferr;

	write_latency(path, false);
	ck_assert_int_eq(top_input(path, &fout, &ferr, "--sort", "total", "-n", "3", "-v", NULL),
			 0);
	ck_assert_ptr_nonnull(strstr(fout, "touch_a"));
	ck_assert_int_eq(run_top(word, &out, &err), 0);
	ck_assert_str_eq(out, fout);
	ck_assert_str_eq(err, ferr);
	free(out);
	free(err);
	free(fout);
	free(ferr);
}
END_TEST

/* Another mode's option after ldlat-top report FILE: exit 2, the option named. */
static const struct cli_case top_word_refused[] = {
	WORD_REFUSES("--entries 100", "--entries is not an option of 'ldlat-top report'"),
	WORD_REFUSES("-i 1", "-i is not an option of 'ldlat-top report'"),
	WORD_REFUSES("--list-events", "--list-events is not an option of 'ldlat-top report'"),
};

START_TEST(test_input_word_refused)
{
	const char *path = tmp("word-refused.data");

	write_latency(path, false);
	cli_var_set("FILE", path);
	cli_case__check(&top_word_refused[_i]);
}
END_TEST

/* Samples of an event that lacks what the tables are keyed by (or of page faults: drop 0). */
static void write_lacking(const char *path, __u64 drop)
{
	struct pw_event ev;
	struct pw w;

	pw_mem_loads_event(&ev, 100);
	ev.attr.sample_type &= ~drop;
	if (!drop) {
		ev.attr.type = PERF_TYPE_SOFTWARE;
		ev.attr.config = PERF_COUNT_SW_PAGE_FAULTS;
		ev.attr.sample_type =
			PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR;
		ev.name = "page-faults";
	}
	ck_assert_int_eq(pw_open(&w, path, &ev, 1, false), 0);
	sample(&w, 4000, 200, BASE, BASE, 30, GEN_04);
	ck_assert_int_eq(pw_close(&w), 0);
}

static const char *const top_bad_files[][3] = {
	{ "truncated", NULL, "is truncated" },
	{ "big-endian", NULL, "big-endian" },
	{ "missing", NULL, "No such file" },
	{ "record of size 0", NULL, "a record of 0 bytes" },
	{ "no TID", NULL, "needs the process of each sample (PERF_SAMPLE_TID)" },
	{ "no IP", NULL, "needs the instruction pointer of each sample (PERF_SAMPLE_IP)" },
	{ "no IP, --by data", "data", NULL },
	{ "no ADDR", NULL, "needs the data address of each sample (PERF_SAMPLE_ADDR" },
	{ "page faults, --sort latency", NULL, "--sort latency needs latency, which page-fault" },
	{ "mapping without -p", NULL, "need a single -p process" },
};

START_TEST(test_input_bad_files)
{
	const char *path = tmp("bad.data");
	char *argv[8] = { (char *)top(), "--input", (char *)path };
	char *out, *err, *buf = NULL;
	struct stat st;
	__u64 data;
	FILE *f;
	int want = top_bad_files[_i][2] ? 2 : 0;

	write_latency(path, false);
	switch (_i) {
	case 0:
	case 1:
	case 3:
		ck_assert_int_eq(stat(path, &st), 0);
		buf = malloc(st.st_size);
		f = fopen(path, "r+");
		ck_assert_int_eq(fread(buf, 1, st.st_size, f), (size_t)st.st_size);
		memcpy(&data, buf + 40, 8);
		if (_i == 1)
			memcpy(buf, "2ELIFREP", 8);
		if (_i == 3) /* the second record's size */
			memset(buf + data + ((struct perf_event_header *)(buf + data))->size + 6, 0,
			       2);
		rewind(f);
		ck_assert_int_eq(fwrite(buf, 1, _i == 0 ? data + 20 : (size_t)st.st_size, f),
				 _i == 0 ? data + 20 : (size_t)st.st_size);
		fclose(f);
		if (_i == 0)
			ck_assert_int_eq(truncate(path, data + 20), 0);
		free(buf);
		break;
	case 2:
		argv[2] = (char *)tmp("missing.data");
		break;
	case 4:
		write_lacking(path, PERF_SAMPLE_TID);
		break;
	case 5:
	case 6:
		write_lacking(path, PERF_SAMPLE_IP);
		if (_i == 6) {
			argv[3] = "--by";
			argv[4] = "data";
		}
		break;
	case 7:
		write_lacking(path, PERF_SAMPLE_ADDR);
		break;
	case 8:
		write_lacking(path, 0);
		argv[3] = "--sort";
		argv[4] = "latency";
		break;
	case 9:
		argv[3] = "-a";
		argv[4] = "[heap]";
		break;
	}
	ck_assert_int_eq(run_top(argv, &out, &err), want);
	if (want) {
		ck_assert_msg(strncmp(err, "ldlat-top: ", 11) == 0, "%s", err);
		ck_assert_msg(strstr(err, top_bad_files[_i][2]), "%s: %s", top_bad_files[_i][0],
			      err);
		ck_assert_str_eq(out, "");
	} else {
		ck_assert_ptr_nonnull(strstr(out, "data: 1 samples"));
	}
	free(out);
	free(err);
}
END_TEST

/* No privilege needed: as nobody, every capability dropped. */
START_TEST(test_input_unprivileged)
{
	/* $AS_NOBODY: setpriv as nobody, every capability dropped, when this is root */
	static const struct cli_case nobody = {
		.sh = "$AS_NOBODY $COPY --input $FILE",
		.seconds = 120,
		.counts = { { "[.] touch_a ", 7 } },
	};
	const char *path = tmp("nobody.data");

	topprog_copy = reachable_copy(build_path("tests/ldlat-topprog"));
	write_latency(path, false);
	chmod(path, 0644);
	chmod(suite_dir(), 0755);
	cli_var_set("AS_NOBODY", geteuid() ? "" : AS_NOBODY_NO_CAPS);
	cli_var_set("COPY", reachable_copy(top()));
	cli_var_set("FILE", path);
	cli_case__check(&nobody);
}
END_TEST

/* ---- files Debian's perf records here (root) -------------------------------------- */

/* perf record of argv into path, its build IDs in a cache of the test's own. */
static void perf_record(const char *path, const char *opts, const char *cmd)
{
	char line[4096], *argv[] = { "sh", "-c", line, NULL }, *out, *err;

	snprintf(line, sizeof(line),
		 "perf --buildid-dir '%s' record -q -e page-faults -c 1 -d %s -o '%s' -- %s "
		 "</dev/null >/dev/null",
		 tmp("perf-cache"), opts, path, cmd);
	ck_assert_msg(run(argv, 120, &out, &err) == 0, "%s: %s", line, err);
	free(out);
	free(err);
}

/* The sum of the samples of the [k] rows named by a function (not a bare address). */
static long named_kernel_samples(const char *out)
{
	const char *line, *p, *nl;
	long n = 0;

	for (line = out; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		p = strstr(line, "[k] ");
		if (p && (!nl || p < nl) && strncmp(p + 4, "0x", 2))
			n += strtol(line, NULL, 10);
	}
	return n;
}

/*
 * tests/progs/topprog.c recorded by perf, and run live under ldlat-top --source
 * page-faults: the same functions and arrays, with the same counts (one per
 * first-touched page); the kernel's writes into array_c at named kernel
 * functions.  _i: 0 cache lines, 1 pages.
 */
START_TEST(test_input_recorded_vs_live)
{
	const char *path = tmp("topprog.data");
	char cmd[1024];
	char *largv[] = { (char *)top(),
			  "--source",
			  "page-faults",
			  "-n",
			  "0",
			  "--granularity",
			  _i ? "page" : "line",
			  "--",
			  (char *)topprog(),
			  "200",
			  "100",
			  "40",
			  NULL };
	static const char *const rows[] = { "[.] touch_a ", "[.] touch_b ", " array_a ",
					    " array_b ", " array_c " };
	static const long want[] = { 200, 100, 200, 100, 40 };
	char *out, *err, *lout, *lerr;
	unsigned int k;

	snprintf(cmd, sizeof(cmd), "%s 200 100 40", topprog());
	perf_record(path, "", cmd);
	ck_assert_int_eq(
		top_input(path, &out, &err, "-n", "0", "--granularity", _i ? "page" : "line", NULL),
		0);
	run_expect(largv, 0, &lout, &lerr);
	for (k = 0; k < ARRAY_SIZE(rows); k++) {
		ck_assert_msg(count_for(out, rows[k]) == want[k], "%s: %ld\n%s", rows[k],
			      count_for(out, rows[k]), out);
		ck_assert_int_eq(count_for(lout, rows[k]), count_for(out, rows[k]));
	}
	ck_assert_msg(named_kernel_samples(out) >= 40, "%s", out);
	ck_assert_msg(named_kernel_samples(lout) >= 40, "%s", lout);
	ck_assert_str_eq(err, "");
	free(out);
	free(err);
	free(lout);
	free(lerr);
}
END_TEST

/*
 * One process, sampled live by ldlat-top -p and recorded by perf record -p at
 * the same time (both attached before it runs): the outputs are identical,
 * every row, in text, and in JSON but for the clock readings, the event,
 * the target and the samples that came through the spill ring (a live
 * run's alone: the first sample of each data key, ldlat_top_door).  _i: 0
 * text, 1 JSON.
 */
START_TEST(test_input_live_equal)
{
	struct perf_recorder rec;
	struct child w, live;
	char pid[32];
	const char *path = tmp("equal.data");
	char *wargv[] = { (char *)topprog(), "--wait", "150", "80", "20", NULL };
	char *largv[] = { (char *)top(), "--source", "page-faults",	   "-p", pid, "-n",
			  "0",		 "--format", _i ? "json" : "text", NULL };
	char *pargv[] = { "perf",
			  "--buildid-dir",
			  (char *)tmp("perf-cache"),
			  "record",
			  "-q",
			  "-D",
			  "-1",
			  "--control",
			  rec.ctlarg,
			  "-e",
			  "page-faults",
			  "-c",
			  "1",
			  "-d",
			  "-p",
			  pid,
			  "-o",
			  (char *)path,
			  NULL };
	const char *jq_same = "del(.time, .interval, .started, .event, .target, .code.spilled, "
			      ".data.spilled) | .code.rows |= "
			      "sort_by(.function, "
			      ".dso) | .data.rows |= sort_by(.object, .in)";
	char *out, *err;

	if (!need_root("check_top (perf record and live sampling)"))
		return;
	perf_record_fifos(&rec, suite_dir());
	child_spawn(&w, wargv);
	snprintf(pid, sizeof(pid), "%d", w.pid);
	perf_record_start(&rec, pargv);
	child_spawn(&live, largv);
	ck_assert_msg(child_wait_stderr(&live, "Ctrl-C to end", 30), "%s", live.errbuf);
	ck_assert_int_eq(write(w.in, "g", 1), 1);
	ck_assert_int_eq(child_finish(&w, 60), 0);
	ck_assert_int_eq(child_finish(&live, 60), 0);
	perf_record_stop(&rec);

	ck_assert_int_eq(top_input(path, &out, &err, "-p", pid, "-n", "0", "--format",
				   _i ? "json" : "text", NULL),
			 0);
	ck_assert_msg(count_for(live.outbuf, "[.] touch_a ") == 150 || _i, "%s", live.outbuf);
	/* what the events counted against what the program saw: a live run's alone */
	ck_assert_msg(
		strstr(live.outbuf, _i ? "\"unseen\":{\"samples\":0," : "\nunseen: 0 samples"),
		"%s", live.outbuf);
	drop_unseen(live.outbuf);
	if (!_i) {
		ck_assert_msg(!strcmp(out, live.outbuf), "live:\n%s\noffline:\n%s", live.outbuf,
			      out);
	} else {
		char expr[4096];

		ck_assert(jq_true(live.outbuf, "[.code.rows[] | select(.function == \"touch_a\") | "
					       ".samples] == [150]"));
		/* the same document, but for what names the run */
		snprintf(expr, sizeof(expr), "(%s) == ($off[0] | %s)", jq_same, jq_same);
		{
			char script[8192], *argv[] = { "sh", "-c", script, NULL }, *o, *e;
			FILE *f = fopen(tmp("live.json"), "w");

			ck_assert_ptr_nonnull(f);
			fputs(live.outbuf, f);
			fclose(f);
			f = fopen(tmp("offline.json"), "w");
			fputs(out, f);
			fclose(f);
			snprintf(script, sizeof(script), "jq -e --slurpfile off '%s' '%s' '%s'",
				 tmp("offline.json"), expr, tmp("live.json"));
			ck_assert_msg(run(argv, 30, &o, &e) == 0, "%s%s\nlive:\n%s\noffline:\n%s",
				      o, e, live.outbuf, out);
			free(o);
			free(e);
		}
	}
	child_free(&w);
	child_free(&live);
	free(out);
	free(err);
}
END_TEST

/*
 * ldlat-topprog execs ldlat-symprog in the same process: the samples before
 * the exec are named in ldlat-topprog (touch_a, array_a, its libc), those
 * after in ldlat-symprog.
 */
START_TEST(test_input_recorded_exec)
{
	const char *path = tmp("exec.data");
	char cmd[1024];
	char *out, *err;

	snprintf(cmd, sizeof(cmd), "%s 30 20 --exec %s", topprog(), symprog());
	perf_record(path, "", cmd);
	ck_assert_int_eq(top_input(path, &out, &err, "-n", "0", "--format", "json", NULL), 0);
	ck_assert(jq_true(out,
			  "[.code.rows[] | select(.function == \"touch_a\") | [.samples, (.dso "
			  "| endswith(\"/ldlat-topprog\"))]] == [[30, true]]"));
	ck_assert(jq_true(out, "[.code.rows[] | select(.dso | endswith(\"/ldlat-symprog\"))] | "
			       "length > 0"));
	ck_assert(
		jq_true(out, "[.data.rows[] | select(.object == \"array_a\") | .samples] == [30]"));
	/* libc's data, by the process that touched it: before and after the exec */
	ck_assert(jq_true(out, "[.data.rows[] | select(.object == \"libc.so.6\") | .in] | sort == "
			       "[\"ldlat-symprog\", \"ldlat-topprog\"]"));
	free(out);
	free(err);
}
END_TEST

/*
 * Build IDs in a recording: perf record's HEADER_BUILD_ID and cache (its
 * own, in the test's directory), and MMAP2 build IDs (--buildid-mmap, no
 * cache).  The program replaced after the recording: named from the cache,
 * or "(recorded file not found)" without one; the same when it was removed
 * (_i 2).
 */
START_TEST(test_input_recorded_build_ids)
{
	const char *path = tmp("rec-bid.data"), *prog = tmp("prog");
	char cmd[1024], env[700];
	char *out, *err;

	copy_file(topprog(), prog);
	snprintf(cmd, sizeof(cmd), "%s 20 10", prog);
	perf_record(path, _i ? "-N --buildid-mmap" : "", cmd);
	if (_i == 2)
		ck_assert_int_eq(unlink(prog), 0);
	else
		copy_file(symprog(), prog);
	snprintf(env, sizeof(env), "PERF_BUILDID_DIR=%s", _i ? tmp("no-cache") : tmp("perf-cache"));
	putenv(env);
	ck_assert_int_eq(top_input(path, &out, &err, "--by", "ip", "-n", "0", NULL), 0);
	if (!_i) {
		ck_assert_msg(count_for(out, "[.] touch_a ") == 20, "%s", out);
		ck_assert_int_eq(count_for(out, "[.] touch_b "), 10);
		ck_assert_ptr_null(strstr(out, "not found"));
	} else {
		ck_assert_msg(count_for(out, "[.] touch_a ") == -1, "%s", out);
		ck_assert_msg(strstr(out, "prog (recorded file not found)\n"), "%s", out);
		ck_assert_msg(strstr(err, "no file this user can read has the build ID"), "%s",
			      err);
	}
	free(out);
	free(err);
	unsetenv("PERF_BUILDID_DIR");
}
END_TEST

/* A recording read by nobody: user code named, kernel addresses raw, and a note why. */
START_TEST(test_input_recorded_unprivileged)
{
	const char *path = tmp("nobody-rec.data");
	char cmd[1024];
	char *argv[] = { "setpriv",
			 "--reuid=65534",
			 "--regid=65534",
			 "--clear-groups",
			 "--inh-caps=-all",
			 "--bounding-set=-all",
			 (char *)reachable_copy(top()),
			 "--input",
			 (char *)path,
			 "-n",
			 "0",
			 NULL };
	char *out, *err;

	snprintf(cmd, sizeof(cmd), "%s 50 25 10", reachable_copy(topprog()));
	perf_record(path, "", cmd);
	chmod(path, 0644);
	chmod(suite_dir(), 0755);
	/*
	 * An empty build-ID cache of its own: a cache another test's perf record
	 * left in $HOME/.debug holds a copy of kallsyms read as root, which
	 * would name the kernel addresses this user cannot see.
	 */
	setenv("PERF_BUILDID_DIR", tmp("nobody-cache"), 1);
	ck_assert_msg(run_top(argv, &out, &err) == 0, "%s", err);
	unsetenv("PERF_BUILDID_DIR");
	ck_assert_int_eq(count_for(out, "[.] touch_a "), 50);
	ck_assert_int_eq(count_for(out, " array_c "), 10);
	ck_assert_int_eq(named_kernel_samples(out), 0);
	ck_assert_msg(strstr(err, "kernel addresses are shown raw") &&
			      strstr(err, "/proc/kallsyms shows this user no addresses"),
		      "%s", err);
	free(out);
	free(err);
}
END_TEST

/* ---- a data table larger than ldlat-top holds at once -------------------------- */

#define RUNS_ANON  0x7e0000000000ull
#define RUNS_LINES (5 * OFFTOP_DATA_WINDOW / 2) /* lines touched once: three windows */

/* Samples with i a multiple of k, i < n. */
static __u64 multiples(__u64 n, __u64 k)
{
	return (n - 1) / k + 1;
}

/*
 * Processes 4000 and 4001 (one program) share an anonymous mapping: 4000
 * touches RUNS_LINES lines once each, from offset 1024 on; between them
 * line 0 is touched by both (every 700th and 900th sample) and line 64 by
 * 4001 (every 1100th), so both hot lines have samples in every window.
 */
static void write_runs(const char *path)
{
	struct pw_event ev;
	struct pw w;
	__u64 i, t = 200;

	pw_mem_loads_event(&ev, 100);
	ck_assert_int_eq(pw_open(&w, path, &ev, 1, false), 0);
	pw_comm(&w, 4000, 4000, "ldlat-runs", 100);
	pw_mmap2(&w, 4000, RUNS_ANON, 1ull << 30, 0, "//anon", 110);
	pw_comm(&w, 4001, 4001, "ldlat-runs", 120);
	pw_mmap2(&w, 4001, RUNS_ANON, 1ull << 30, 0, "//anon", 130);
	for (i = 0; i < RUNS_LINES; i++) {
		sample(&w, 4000, t++, 0x1000, RUNS_ANON + 1024 + 64 * i, 100, GEN_04);
		if (i % 700 == 0)
			sample(&w, 4000, t++, 0x1000, RUNS_ANON, 100, GEN_04);
		if (i % 900 == 0)
			sample(&w, 4001, t++, 0x1000, RUNS_ANON + 8, 100, GEN_04);
		if (i % 1100 == 0)
			sample(&w, 4001, t++, 0x1000, RUNS_ANON + 64, 100, GEN_04);
	}
	ck_assert_int_eq(pw_close(&w), 0);
}

/*
 * The data table is named and written out a window of OFFTOP_DATA_WINDOW
 * lines at a time, and the windows merged: every line's count exact (the
 * hot lines' samples are spread over all windows and two processes), the
 * lines per object and the totals exact, in bounded memory.
 */
START_TEST(test_input_data_runs)
{
	const char *path = tmp("runs.data");
	__u64 h1 = multiples(RUNS_LINES, 700) + multiples(RUNS_LINES, 900),
	      h2 = multiples(RUNS_LINES, 1100), total = RUNS_LINES + h1 + h2;
	char *out, *err, expr[512];

	write_runs(path);
	ck_assert_int_eq(top_input(path, &out, &err, "--by", "data", "--data-by", "block", "-n",
				   "3", "--format", "json", NULL),
			 0);
	snprintf(expr, sizeof(expr),
		 ".data.samples == %llu and .data.rows_total == %llu and .counters.kept == %llu "
		 "and ([.data.rows[] | [.samples, .offset]] == [[%llu, 0], [%llu, 64], [1, 1024]])",
		 (unsigned long long)total, (unsigned long long)RUNS_LINES + 2,
		 (unsigned long long)total, (unsigned long long)h1, (unsigned long long)h2);
	ck_assert_msg(jq_true(out, expr), "%s\n%s", expr, err);
	free(out);
	free(err);
	ck_assert_int_eq(top_input(path, &out, &err, "--by", "data", "--format", "json", NULL), 0);
	snprintf(expr, sizeof(expr),
		 "[.data.rows[] | [.samples, .blocks, .hottest_offset]] == [[%llu, %llu, 0]]",
		 (unsigned long long)total, (unsigned long long)RUNS_LINES + 2);
	ck_assert_msg(jq_true(out, expr), "%s\n%s", expr, out);
	free(out);
	free(err);
	/* text: the rows past -n, summed */
	ck_assert_int_eq(
		top_input(path, &out, &err, "--by", "data", "--data-by", "block", "-n", "2", NULL),
		0);
	snprintf(expr, sizeof(expr), "%llu", (unsigned long long)RUNS_LINES);
	ck_assert_msg(strstr(out, "... ") && strstr(out, expr), "%s", out);
	free(out);
	free(err);
	/*
	 * the peak: the window, not the file's RUNS_LINES lines.  A sanitizer
	 * build's RSS holds its shadow memory and freed blocks in quarantine
	 * (make test-asan sets LDLAT_SANITIZED): that bound is the optimised
	 * build's (make test).
	 */
	if (getenv("LDLAT_SANITIZED")) {
		printf("test_input_data_runs: the peak RSS bound is left to make test "
		       "(a sanitizer build's RSS holds its shadow memory)\n");
		return;
	}
	ck_assert_int_eq(sh(&out, NULL,
			    "/usr/bin/time -f %%M %s --input %s --by data --data-by block "
			    ">/dev/null 2>%s && tail -1 %s",
			    top(), path, tmp("runs.rss"), tmp("runs.rss")),
			 0);
	ck_assert_msg(atol(out) < 160 * 1024, "peak RSS %s KiB", out);
	free(out);
}
END_TEST

void top_input_tcases(Suite *s, bool root)
{
	TCase *tc = tcase_create("input");

	suite_dir_make("top-input");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_input_latency_columns, 0, 2);
	tcase_add_test(tc, test_input_filters_and_sort);
	tcase_add_loop_test(tc, test_input_exec_and_remap, 0, 4);
	tcase_add_test(tc, test_input_one_entry_across_images);
	tcase_add_test(tc, test_input_data_runs);
	tcase_add_loop_test(tc, test_input_build_ids, 0, 3);
	tcase_add_test(tc, test_input_other_kernel);
	tcase_add_test(tc, test_input_this_kernel);
	tcase_add_loop_test(tc, test_input_live_only, 0, ARRAY_SIZE(top_live_only));
	tcase_add_test(tc, test_input_report_word);
	tcase_add_loop_test(tc, test_input_word_refused, 0, ARRAY_SIZE(top_word_refused));
	tcase_add_loop_test(tc, test_input_bad_files, 0, ARRAY_SIZE(top_bad_files));
	tcase_add_test(tc, test_input_unprivileged);
	suite_add_tcase(s, tc);
	if (!root)
		return;
	tc = tcase_create("input-recorded");
	tcase_set_timeout(tc, 180);
	tcase_add_loop_test(tc, test_input_recorded_vs_live, 0, 2);
	tcase_add_loop_test(tc, test_input_live_equal, 0, 2);
	tcase_add_test(tc, test_input_recorded_exec);
	tcase_add_loop_test(tc, test_input_recorded_build_ids, 0, 3);
	tcase_add_test(tc, test_input_recorded_unprivileged);
	suite_add_tcase(s, tc);
}
