// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * check_pprof - the pprof writer (user/report/pprof.h), read by the real
 * consumer: every profile here is read back by Go's own pprof (`go tool
 * pprof`, Debian's golang-go) through tests/pprofcheck.py, never by ldlat.
 *
 * writer: profiles built by hand: the call paths and values -traces reads
 * (leaf first in the file, outermost first in the folded lines compared),
 * the labels -tags reads, the functions -top reads, the header (period,
 * time, duration, sample types, mappings with their build IDs) -raw reads;
 * a sample given twice adds up; 20,000 samples over random paths and
 * labels read back as the sums the test computes; names with control
 * characters and bytes that are not UTF-8 come out escaped; the file is
 * gzip (gzip -t) and an empty profile is read too.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "user/report/pprof.h"
#include "tests/lib/testutil.h"

static char dir[256];

static const char *tmp(const char *name)
{
	static char buf[4][512];
	static int next;
	char *p = buf[next++ % 4];

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/ldlat-pprof-XXXXXX");
		ck_assert_ptr_nonnull(mkdtemp(dir));
	}
	snprintf(p, 512, "%s/%s", dir, name);
	return p;
}

static void save(const struct pprof *p, const char *path)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(pprof__write(p, f), 0);
	ck_assert_int_eq(fclose(f), 0);
}

/* What tests/pprofcheck.py prints of path (malloc'd). */
static char *check(const char *what, const char *path, const char *extra)
{
	char *out = NULL;

	ck_assert_int_eq(sh(&out, NULL, "python3 tests/pprofcheck.py %s %s %s", what, path, extra),
			 0);
	return out;
}

static void expect(const char *what, const char *path, const char *extra, const char *want)
{
	char *out = check(what, path, extra);

	ck_assert_msg(!strcmp(out, want), "pprofcheck %s %s %s:\n%s\nwanted:\n%s", what, path,
		      extra, out, want);
	free(out);
}

static const struct pprof_opts opts = {
	.sample_type = { { "samples", "count" }, { "latency", "cycles" } },
	.nsample_types = 2,
	.period_type = { "mem-loads", "count" },
	.period = 1000,
	.time_nanos = 1700000000123456789ll,
	.duration_nanos = 2500000000ll,
};

/*
 * Two processes, each with its program and a library (build IDs), a kernel
 * frame, a frame that names a loss (no mapping, no address): paths, values,
 * labels, functions and the header as Go's pprof reads them.
 */
START_TEST(test_paths_labels_header)
{
	struct pprof *p = pprof__new(&opts);
	__u64 app, libc, kern, fmain, fone, ftwo, fstart, fk, fapp, fdb, flost;
	__u64 lmain, lone, ltwo, lstart, lk, lapp, ldb, llost;
	const char *path = tmp("paths.pb.gz");

	ck_assert_ptr_nonnull(p);
	app = pprof__mapping(p, 0x555555554000, 0x555555556000, 0x1000, "/usr/bin/app",
			     "0123456789abcdef0123456789abcdef01234567", true);
	libc = pprof__mapping(p, 0x7ffff7d80000, 0x7ffff7f15000, 0x28000,
			      "/usr/lib/x86_64-linux-gnu/libc.so.6", "feedface", true);
	kern = pprof__mapping(p, 0xffffffff81000000, 0xffffffff83000000, 0, "[kernel.kallsyms]",
			      NULL, true);
	ck_assert(app && libc && kern && app != libc && libc != kern);
	/* the same mapping again is the same id */
	ck_assert_uint_eq(pprof__mapping(p, 0x555555554000, 0x555555556000, 0x1000, "/usr/bin/app",
					 "0123456789abcdef0123456789abcdef01234567", true),
			  app);
	fmain = pprof__function(p, "main", NULL, NULL);
	fone = pprof__function(p, "path_one", NULL, NULL);
	ftwo = pprof__function(p, "path_two", NULL, NULL);
	fstart = pprof__function(p, "__libc_start_call_main", NULL, NULL);
	fk = pprof__function(p, "asm_exc_page_fault_[k]", NULL, NULL);
	fapp = pprof__function(p, "app", NULL, NULL);
	fdb = pprof__function(p, "db", NULL, NULL);
	flost = pprof__function(p, "[call path lost: stack map full]", NULL, NULL);
	ck_assert_uint_eq(pprof__function(p, "main", NULL, NULL), fmain);
	lmain = pprof__location(p, app, 0x555555555189, fmain);
	lone = pprof__location(p, app, 0x555555555150, fone);
	ltwo = pprof__location(p, app, 0x555555555170, ftwo);
	lstart = pprof__location(p, libc, 0x7ffff7da9d90, fstart);
	lk = pprof__location(p, kern, 0xffffffff82000b27, fk);
	lapp = pprof__location(p, 0, 0, fapp);
	ldb = pprof__location(p, 0, 0, fdb);
	llost = pprof__location(p, 0, 0, flost);
	ck_assert_uint_eq(pprof__location(p, app, 0x555555555189, fmain), lmain);

	/* leaf first */
	__u64 one[] = { lk, lone, lmain, lstart, lapp };
	__u64 two[] = { ltwo, lmain, lstart, lapp };
	__u64 db[] = { lone, lmain, ldb };
	__u64 lost[] = { llost, lapp };
	__s64 v1[] = { 300, 60000 }, v2[] = { 120, 48000 }, v3[] = { 7, 700 }, v4[] = { 2, 30 };
	struct pprof_label l1[] = { { "class", "l1" }, { "pid", "4242" }, { "comm", "app" } };
	struct pprof_label l2[] = { { "class", "local-ram" },
				    { "pid", "4242" },
				    { "comm", "app" } };
	struct pprof_label l3[] = { { "class", "l1" },
				    { "pid", "77" },
				    { "comm", "db" },
				    { "cgroup", "/system.slice/db.service" },
				    { "object", "table_rows" } };
	struct pprof_label l4[] = { { "pid", "4242" }, { "comm", "app" } };

	ck_assert_int_eq(pprof__sample(p, one, 5, v1, l1, 3), 0);
	ck_assert_int_eq(pprof__sample(p, two, 4, v2, l2, 3), 0);
	ck_assert_int_eq(pprof__sample(p, db, 3, v3, l3, 5), 0);
	ck_assert_int_eq(pprof__sample(p, lost, 2, v4, l4, 2), 0);
	/* the same path and labels: added */
	ck_assert_int_eq(pprof__sample(p, db, 3, v3, l3, 5), 0);
	ck_assert_uint_eq(pprof__samples(p), 4);
	ck_assert_int_eq(pprof__comment(p, "ldlat-top --format pprof"), 0);
	save(p, path);
	pprof__free(p);

	expect("traces", path, "",
	       "app;[call path lost: stack map full] 2\n"
	       "app;__libc_start_call_main;main;path_one;asm_exc_page_fault_[k] 300\n"
	       "app;__libc_start_call_main;main;path_two 120\n"
	       "db;main;path_one 14\n");
	expect("traces", path, "--index latency",
	       "app;[call path lost: stack map full] 30\n"
	       "app;__libc_start_call_main;main;path_one;asm_exc_page_fault_[k] 60000\n"
	       "app;__libc_start_call_main;main;path_two 48000\n"
	       "db;main;path_one 1400\n");
	expect("traces", path, "--labels",
	       "{cgroup=/system.slice/db.service,class=l1,comm=db,object=table_rows,pid=77} "
	       "db;main;path_one 14\n"
	       "{class=l1,comm=app,pid=4242} "
	       "app;__libc_start_call_main;main;path_one;asm_exc_page_fault_[k] 300\n"
	       "{class=local-ram,comm=app,pid=4242} app;__libc_start_call_main;main;path_two 120\n"
	       "{comm=app,pid=4242} app;[call path lost: stack map full] 2\n");
	expect("tags", path, "",
	       "cgroup /system.slice/db.service 14.0\n"
	       "class l1 314.0\n"
	       "class local-ram 120.0\n"
	       "comm app 422.0\n"
	       "comm db 14.0\n"
	       "object table_rows 14.0\n"
	       "pid 4242 422.0\n"
	       "pid 77 14.0\n");
	expect("top", path, "",
	       "[call path lost: stack map full] 2 2\n"
	       "__libc_start_call_main 0 420\n"
	       "app 0 422\n"
	       "asm_exc_page_fault_[k] 300 300\n"
	       "db 0 14\n"
	       "main 0 434\n"
	       "path_one 14 314\n"
	       "path_two 120 120\n");
	expect("header", path, "",
	       "Comment: ldlat-top --format pprof\n"
	       "PeriodType: mem-loads count\n"
	       "Period: 1000\n"
	       "Time: 2023-11-14 22:13:20.123456789 +0000 UTC\n"
	       "Duration: 2.5s\n"
	       "types: samples/count[dflt] latency/cycles\n"
	       "mapping 0x555555554000 0x555555556000 0x1000 /usr/bin/app "
	       "0123456789abcdef0123456789abcdef01234567\n"
	       "mapping 0x7ffff7d80000 0x7ffff7f15000 0x28000 "
	       "/usr/lib/x86_64-linux-gnu/libc.so.6 feedface\n"
	       "mapping 0xffffffff81000000 0xffffffff83000000 0x0 [kernel.kallsyms]\n");
}
END_TEST

/*
 * 20,000 samples over random paths (1 to 12 frames of 40 functions, 3
 * mappings) and labels (class and pid): go tool pprof's sums per path and
 * labels are the test's own.
 */
START_TEST(test_random_sums)
{
	enum { NFUNC = 40, NPATHS = 300, NSAMPLES = 20000 };
	struct pprof *p = pprof__new(&opts);
	static const char *classes[] = { "l1", "lfb", "l2", "l3", "local-ram", "remote-ram-1hop" };
	__u64 maps[3], loc[NFUNC];
	char name[NFUNC][32];
	struct {
		__u64 locs[12];
		int n, cls, pid;
		long long count, lat;
	} path[NPATHS];
	const char *file = tmp("random.pb.gz"), *want = tmp("random.want");
	FILE *f;
	char *cmp = NULL;
	unsigned int seed = 31;

	ck_assert_ptr_nonnull(p);
	for (int i = 0; i < 3; i++) {
		char file_name[32];

		snprintf(file_name, sizeof(file_name), "/lib/lib%d.so", i);
		maps[i] = pprof__mapping(p, 0x10000000ull * (i + 1), 0x10000000ull * (i + 2), 0,
					 file_name, "00ff", true);
	}
	for (int i = 0; i < NFUNC; i++) {
		snprintf(name[i], sizeof(name[i]), "fn%02d", i);
		loc[i] = pprof__location(p, maps[i % 3], 0x10000000ull * (i % 3 + 1) + 16 * i,
					 pprof__function(p, name[i], NULL, NULL));
		ck_assert_uint_ne(loc[i], 0);
	}
	memset(path, 0, sizeof(path));
	for (int i = 0; i < NPATHS; i++) {
		/* distinct paths: the first frame (the leaf) and its length vary with i */
		path[i].n = 1 + (int)(rand_r(&seed) % 12);
		for (int k = 0; k < path[i].n; k++)
			path[i].locs[k] = loc[rand_r(&seed) % NFUNC];
		path[i].cls = (int)(rand_r(&seed) % 6);
		path[i].pid = 100 + i; /* a label of its own: each path is one sample */
	}
	for (int s = 0; s < NSAMPLES; s++) {
		int i = (int)(rand_r(&seed) % NPATHS);
		__s64 v[2] = { 1 + rand_r(&seed) % 3, rand_r(&seed) % 5000 };
		char pid[16];
		struct pprof_label l[] = { { "class", classes[path[i].cls] }, { "pid", pid } };

		snprintf(pid, sizeof(pid), "%d", path[i].pid);
		ck_assert_int_eq(pprof__sample(p, path[i].locs, path[i].n, v, l, 2), 0);
		path[i].count += v[0];
		path[i].lat += v[1];
	}
	save(p, file);
	pprof__free(p);

	/* the sums the test expects, as pprofcheck prints them: outermost first, sorted */
	f = fopen(want, "w");
	ck_assert_ptr_nonnull(f);
	for (int i = 0; i < NPATHS; i++) {
		if (!path[i].count)
			continue;
		fprintf(f, "{class=%s,pid=%d} ", classes[path[i].cls], path[i].pid);
		for (int k = path[i].n - 1; k >= 0; k--)
			fprintf(f, "%s%s", name[path[i].locs[k] - loc[0]], k ? ";" : "");
		fprintf(f, " %lld\n", path[i].count);
	}
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(sh(&cmp, NULL,
			    "python3 tests/pprofcheck.py traces %s --labels | LC_ALL=C sort | "
			    "diff - $(LC_ALL=C sort %s > %s.s; echo %s.s) && echo same",
			    file, want, want, want),
			 0);
	ck_assert_str_eq(cmp, "same\n");
	free(cmp);
}
END_TEST

/*
 * Names other users choose: ESC, BEL, a newline, a byte that is not UTF-8,
 * come out escaped as the text report writes them; nothing raw reaches the
 * output of go tool pprof.
 */
START_TEST(test_names_escaped)
{
	struct pprof *p = pprof__new(&opts);
	const char *path = tmp("escape.pb.gz");
	__u64 l[2];
	__s64 v[] = { 5, 50 };
	struct pprof_label lab[] = { { "comm", "x\033]0;T\007\n\xff" } };
	char *out = NULL;

	ck_assert_ptr_nonnull(p);
	l[0] = pprof__location(p, 0, 0, pprof__function(p, "to\033[31mu\nch\xc2\x9b", NULL, NULL));
	l[1] = pprof__location(p, 0, 0, pprof__function(p, "x\033]0;T\007\n\xff", NULL, NULL));
	ck_assert_int_eq(pprof__sample(p, l, 2, v, lab, 1), 0);
	save(p, path);
	pprof__free(p);
	expect("traces", path, "--labels",
	       "{comm=x\\x1b]0;T\\x07\\n\\xff} x\\x1b]0;T\\x07\\n\\xff;to\\x1b[31mu\\nch\\xc2\\x9b "
	       "5\n");
	/* and nothing of a terminal's in go tool pprof's own output */
	ck_assert_int_eq(sh(&out, NULL,
			    "go tool pprof -traces %s | od -An -c | grep -c '033' || true", path),
			 0);
	ck_assert_str_eq(out, "0\n");
	free(out);
}
END_TEST

/* The file is gzip, as the format is stored; an empty profile is one too, and is read. */
START_TEST(test_gzip_and_empty)
{
	struct pprof *p = pprof__new(&opts);
	const char *path = tmp("empty.pb.gz");
	unsigned char magic[2];
	FILE *f;

	ck_assert_ptr_nonnull(p);
	save(p, path);
	pprof__free(p);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fread(magic, 1, 2, f), 2);
	fclose(f);
	ck_assert(magic[0] == 0x1f && magic[1] == 0x8b);
	ck_assert_int_eq(sh(NULL, NULL, "gzip -t %s", path), 0);
	expect("header", path, "",
	       "PeriodType: mem-loads count\n"
	       "Period: 1000\n"
	       "Time: 2023-11-14 22:13:20.123456789 +0000 UTC\n"
	       "Duration: 2.5s\n"
	       "types: samples/count[dflt] latency/cycles\n"
	       "mapping 0x0 0x0 0x0\n");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pprof");
	TCase *writer = tcase_create("writer");
	int failed;

	tcase_set_timeout(writer, 120);
	tcase_add_test(writer, test_paths_labels_header);
	tcase_add_test(writer, test_random_sums);
	tcase_add_test(writer, test_names_escaped);
	tcase_add_test(writer, test_gzip_and_empty);
	suite_add_tcase(s, writer);
	/* one directory of files for the whole suite, removed at its end */
	setenv("CK_FORK", "no", 1);
	failed = run_suite(s);
	if (dir[0])
		sh(NULL, NULL, "rm -rf %s", dir);
	return failed ? 1 : 0;
}
