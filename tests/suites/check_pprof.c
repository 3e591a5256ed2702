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

#include "kernel/lib/util.h"
#include "user/report/pprof.h"
#include "tests/lib/testutil.h"

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

/* ---- ldlat-top --format pprof ------------------------------------------------------ */

static const char *callprog(void)
{
	return build_path("tests/ldlat-callprog");
}

/* The number at the end of the line of out that ends with suffix (its newline included), or -1. */
static long long line_count(const char *out, const char *suffix)
{
	size_t n = strlen(suffix);

	for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *end = strchr(l, '\n'), *sp;

		if (!end || (size_t)(end - l) <= n)
			continue;
		sp = end;
		while (sp > l && sp[-1] != ' ')
			sp--;
		if (sp - 1 - l >= (long)n && !strncmp(sp - 1 - n, suffix, n))
			return atoll(sp);
	}
	return -1;
}

/*
 * The sum of the values of the lines of traces that end in suffix, each of
 * which must start with root: a path of the program's named whole (a
 * process whose name or mappings were lost has another root or frame).
 */
static long long suffix_sum(const char *out, const char *suffix, const char *root)
{
	size_t n = strlen(suffix);
	long long sum = 0;

	for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *end = strchr(l, '\n'), *sp;

		if (!end)
			end = l + strlen(l);
		sp = end;
		while (sp > l && sp[-1] != ' ')
			sp--;
		if (sp - 1 - l < (long)n || strncmp(sp - 1 - n, suffix, n))
			continue;
		ck_assert_msg(!strncmp(l, root, strlen(root)), "a path not under %s: %.*s", root,
			      (int)(end - l), l);
		sum += atoll(sp);
	}
	return sum;
}

/* The sum of the values of pprofcheck's "traces --labels" lines that carry label key=value. */
static long long label_sum(const char *traces, const char *key, const char *value)
{
	char want[256];
	long long sum = 0;
	size_t wl;

	snprintf(want, sizeof(want), "%s=%s", key, value);
	wl = strlen(want);
	for (const char *l = traces; *l;) {
		const char *end = strchr(l, '\n'), *close = strchr(l, '}'), *v;

		if (!end)
			break;
		for (v = l + 1; close && v < close; v++)
			if (!strncmp(v, want, wl) && (v[-1] == '{' || v[-1] == ',') &&
			    (v[wl] == ',' || v[wl] == '}'))
				break;
		if (close && v < close) {
			const char *sp = end;

			while (sp > l && sp[-1] != ' ')
				sp--;
			sum += atoll(sp);
		}
		l = end + 1;
	}
	return sum;
}

/* perf's names for the recording's levels (perf script's "|LVL ...|"), and ldlat's classes. */
static const struct {
	const char *perf_lvl, *cls;
} levels[] = {
	{ "L1 or L1 hit", "l1" },
	{ "LFB/MAB or LFB/MAB hit", "lfb" },
	{ "L2 or L2 hit", "l2" },
	{ "L3 or L3 hit", "l3" },
};

#define RECORDING "recordings/skylake-sp-load-latency.data"

/*
 * A real recording with latency and data sources, without call chains:
 * each sample's path is its instruction; per data-source class the
 * samples and the latency summed are perf script's of the level perf names
 * (weight, data_src); per process the samples are perf's; the period, the
 * event and the sample types are the file's; each mapping carries the
 * build ID perf buildid-list reads from the file; the comments say how the
 * paths were taken and what was kept.
 */
START_TEST(test_recording_classes)
{
	const char *data = fixture_path(RECORDING), *prof = tmp("rec.pb.gz");
	char *argv[] = { (char *)top(), "--input",  (char *)data, "--format",
			 "pprof",	"--output", (char *)prof, NULL };
	char *out, *err, *perf, *samples, *lat, *hdr, *ids, *tags, *line, *save = NULL;
	long long cnt[ARRAY_SIZE(levels)] = { 0 }, sum[ARRAY_SIZE(levels)] = { 0 };
	unsigned int j, named = 0;

	ck_assert_msg(run(argv, 60, &out, &err) == 0, "%s", err);
	ck_assert_str_eq(out, "");
	free(out);
	ck_assert_int_eq(sh(&perf, NULL, "perf script -i %s -F weight,data_src", data), 0);
	for (line = strtok_r(perf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *lvl = strstr(line, "|LVL ");
		long long w = atoll(strrchr(line, ' ') + 1); /* the weight comes last */

		ck_assert_msg(lvl, "perf script: %s", line);
		for (j = 0; j < (unsigned int)ARRAY_SIZE(levels); j++) {
			size_t len = strlen(levels[j].perf_lvl);

			if (!strncmp(lvl + 5, levels[j].perf_lvl, len) && lvl[5 + len] == '|') {
				cnt[j]++;
				sum[j] += w;
				named++;
			}
		}
	}
	ck_assert_uint_eq(named, 14);
	samples = check("traces", prof, "--labels");
	lat = check("traces", prof, "--labels --index latency");
	for (j = 0; j < (unsigned int)ARRAY_SIZE(levels); j++) {
		ck_assert_msg(label_sum(samples, "class", levels[j].cls) == cnt[j],
			      "class %s: %lld samples, perf says %lld:\n%s", levels[j].cls,
			      label_sum(samples, "class", levels[j].cls), cnt[j], samples);
		ck_assert_msg(label_sum(lat, "class", levels[j].cls) == sum[j],
			      "class %s: latency %lld, perf says %lld:\n%s", levels[j].cls,
			      label_sum(lat, "class", levels[j].cls), sum[j], lat);
	}
	/* per process, the samples perf script counts */
	free(perf);
	ck_assert_int_eq(sh(&perf, NULL,
			    "perf script -i %s -F pid | sort -n | uniq -c | "
			    "awk '{print \"pid \" $2 \" \" $1 \".0\"}' | sort",
			    data),
			 0);
	tags = check("tags", prof, "");
	ck_assert_int_eq(sh(&out, NULL, "printf '%%s' '%s' | grep '^pid ' | sort", tags), 0);
	ck_assert_msg(!strcmp(out, perf), "pids:\n%s\nperf:\n%s", out, perf);
	free(out);
	/* the header: the file's event and period, both types, the recorded build IDs */
	hdr = check("header", prof, "");
	ck_assert_msg(strstr(hdr, "PeriodType: MEM_TRANS_RETIRED.LOAD_LATENCY:ldlat=64:precise=2:"
				  "mh:mg:pinned count\nPeriod: 10009\n"),
		      "%s", hdr);
	ck_assert_msg(strstr(hdr, "types: samples/count[dflt] latency/cycles\n"), "%s", hdr);
	/* a file's profile claims no moment: the moment it was read is not the recording's */
	ck_assert_msg(!strstr(hdr, "Time: "), "%s", hdr);
	/* the duration: the span of the samples' times, as perf script prints them (about 7.3 s) */
	free(perf);
	ck_assert_int_eq(sh(&perf, NULL,
			    "perf script -i %s -F time | tr -d ' :' | sort -n | sed -n '1p;$p' | "
			    "tr '\\n' ' '",
			    data),
			 0);
	{
		double first, last;
		char want[64];

		ck_assert_int_eq(sscanf(perf, "%lf %lf", &first, &last), 2);
		/* -raw prints Go's time.Duration cut to four characters: "7.33" */
		snprintf(want, sizeof(want), "%.6f", last - first);
		want[4] = '\0';
		ck_assert_msg(strstr(hdr, "\nDuration: ") &&
				      !strncmp(strstr(hdr, "\nDuration: ") + 11, want, 4),
			      "duration not %s (perf: %s):\n%s", want, perf, hdr);
	}
	ck_assert_msg(strstr(hdr, "Comment: call paths: the file's events recorded no call "
				  "chains: each sample's path is its instruction alone\n"),
		      "%s", hdr);
	ck_assert_msg(strstr(hdr, "Comment: filters: 14 seen, 14 kept\n"), "%s", hdr);
	ck_assert_int_eq(sh(&ids, NULL, "perf buildid-list -i %s", data), 0);
	for (line = strtok_r(hdr, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char file[512], id[128], want[700];

		if (sscanf(line, "mapping %*s %*s %*s %511s %127s", file, id) != 2 ||
		    file[0] == '[')
			continue;
		snprintf(want, sizeof(want), "%s %s\n", id, file);
		ck_assert_msg(strstr(ids, want), "mapping %s: build ID %s; perf buildid-list:\n%s",
			      file, id, ids);
		named++;
	}
	ck_assert_uint_gt(named, 14); /* at least one mapping checked */
	free(ids);
	free(hdr);
	free(tags);
	free(lat);
	free(samples);
	free(perf);
	free(err);
}
END_TEST

/*
 * --unit ns: latency in nanoseconds at the nominal frequency (the model
 * name's 2.00GHz of a /proc made for the test): each sample's cycles / 2,
 * rounded, summed per class as perf's weights are.
 */
START_TEST(test_recording_ns)
{
	const char *data = fixture_path(RECORDING), *prof = tmp("ns.pb.gz");
	char proc[512], *out, *err, *perf, *lat, *hdr, *line, *save = NULL;
	char *argv[] = { (char *)top(), "--input", (char *)data, "--format",   "pprof",
			 "--unit",	"ns",	   "--output",	 (char *)prof, NULL };
	long long ns = 0, from_lat = 0;

	snprintf(proc, sizeof(proc), "%s", tmp("proc"));
	ck_assert_int_eq(sh(NULL, NULL,
			    "mkdir -p %s/sys && printf 'model name\\t: Xeon CPU @ 2.00GHz\\n' > "
			    "%s/cpuinfo",
			    proc, proc),
			 0);
	setenv("LDLAT_PROCFS", proc, 1);
	setenv("LDLAT_SYSFS", tmp("proc/sys"), 1);
	ck_assert_msg(run(argv, 60, &out, &err) == 0, "%s", err);
	unsetenv("LDLAT_PROCFS");
	unsetenv("LDLAT_SYSFS");
	free(out);
	free(err);
	hdr = check("header", prof, "");
	ck_assert_msg(strstr(hdr, "types: samples/count[dflt] latency/nanoseconds\n"), "%s", hdr);
	ck_assert_int_eq(sh(&perf, NULL, "perf script -i %s -F weight", data), 0);
	for (line = strtok_r(perf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		ns += (atoll(line) + 1) / 2;
	lat = check("traces", prof, "--index latency --unit ns");
	for (line = strtok_r(lat, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		from_lat += atoll(strrchr(line, ' ') + 1);
	ck_assert_msg(from_lat == ns, "%lld ns in the profile, %lld from perf's weights", from_lat,
		      ns);
	free(lat);
	free(perf);
	free(hdr);
}
END_TEST

/*
 * Bad input, exit 2 with one sentence and nothing written: an --output in a
 * folder that does not exist, stdout a terminal, a file that is not a perf.data (an existing
 * profile left as it was), --keep without a DIR, --unit ns or --weight
 * where they mean nothing.  A failure of the system, exit 1: the file
 * grows past RLIMIT_FSIZE; the old profile stays whole and no temporary
 * file is left.
 */
START_TEST(test_bad_output)
{
	const char *data = fixture_path(RECORDING);
	char d[512], old[600], bad[600], *out, *err;
	char *nodir[] = { (char *)top(),
			  "--input",
			  (char *)data,
			  "--format",
			  "pprof",
			  "--output",
			  "/nonexistent-ldlat/p.pb.gz",
			  NULL };
	char *notdata[] = { (char *)top(), "--input",  bad, "--format",
			    "pprof",	   "--output", old, NULL };
	char *keep[] = { (char *)top(), "--input", (char *)data, "--format", "pprof",
			 "--keep",	"3",	   "--output",	 old,	     NULL };
	char *unit[] = { (char *)top(), "--input", (char *)data, "--unit", "ns", NULL };
	char *weight[] = { (char *)top(), "--input", (char *)data, "--format", "pprof",
			   "--weight",	  "latency", "--output",   old,	       NULL };
	char **cases[] = { nodir, notdata, keep, unit, weight };

	snprintf(d, sizeof(d), "%s", tmp("bad"));
	snprintf(old, sizeof(old), "%s/old.pb.gz", d);
	snprintf(bad, sizeof(bad), "%s/not-perf.data", d);
	ck_assert_int_eq(sh(NULL, NULL,
			    "mkdir -p %s && echo old > %s && head -c 5000 /dev/urandom > %s", d,
			    old, bad),
			 0);
	for (size_t i = 0; i < (size_t)ARRAY_SIZE(cases); i++) {
		ck_assert_msg(run(cases[i], 60, &out, &err) == 2, "case %zu: %s", i, err);
		ck_assert_msg(!strncmp(err, "ldlat-top: ", 11) && strchr(err, '\n') &&
				      !strchr(err, '\n')[1],
			      "case %zu: not one sentence:\n%s", i, err);
		free(out);
		free(err);
	}
	ck_assert_int_eq(sh(&out, NULL, "cat %s; ls -A %s", old, d), 0);
	ck_assert_str_eq(out, "old\nnot-perf.data\nold.pb.gz\n");
	free(out);
	/* stdout a terminal (script(1)'s pseudo-terminal): no binary profile there */
	ck_assert_int_eq(sh(&out, NULL,
			    "script -qec '%s --input %s --format pprof' /dev/null; echo rc=$?",
			    top(), data),
			 0);
	ck_assert_msg(strstr(out,
			     "ldlat-top: --format pprof writes a binary profile, not for a "
			     "terminal: name a file or a directory with --output, or pipe it") &&
			      strstr(out, "rc=2\n"),
		      "%s", out);
	free(out);
	/* a write that fails (past RLIMIT_FSIZE, SIGXFSZ ignored): exit 1, the old file kept */
	ck_assert_int_eq(sh(NULL, &err,
			    "trap '' XFSZ; ulimit -f 1; exec %s --input %s --format pprof "
			    "--output %s",
			    top(), data, old),
			 1);
	ck_assert_msg(strstr(err, "ldlat-top: cannot write --output '") &&
			      strstr(err, "': File too large\n"),
		      "%s", err);
	free(err);
	ck_assert_int_eq(sh(&out, NULL, "cat %s; ls -A %s", old, d), 0);
	ck_assert_str_eq(out, "old\nnot-perf.data\nold.pb.gz\n");
	free(out);
}
END_TEST

/*
 * user/systemd/ldlat-pprof-push against a stand-in for Pyroscope's /ingest
 * and Parca's /profiles/writeraw (tests/pprof_receiver.py): each profile
 * of the folder arrives byte for byte at both, oldest first, with the
 * application name, format and labels, and Go's pprof reads what arrived;
 * sent profiles are removed.  A server that fails (503): exit 1, the
 * profile kept for the next run.
 */
START_TEST(test_push)
{
	char d[512], rx[600], *out;
	const char *prof = tmp("push-src.pb.gz");
	char *argv[] = { (char *)top(), "--input", (char *)fixture_path(RECORDING),
			 "--format",	"pprof",   "--output",
			 (char *)prof,	NULL };
	char *err;

	snprintf(d, sizeof(d), "%s", tmp("push"));
	snprintf(rx, sizeof(rx), "%s", tmp("rx"));
	ck_assert_msg(run(argv, 60, &out, &err) == 0, "%s", err);
	free(out);
	free(err);
	ck_assert_int_eq(sh(NULL, NULL,
			    "mkdir -p %s %s && cp %s %s/ldlat-20261206T051835.497781Z.pb.gz && "
			    "printf x > %s/ldlat-20261206T051836.000000Z.pb.gz",
			    d, rx, prof, d, d),
			 0);
	ck_assert_int_eq(
		sh(&out, NULL,
		   "python3 tests/pprof_receiver.py %s & rx=$!; "
		   "for i in $(seq 100); do [ -e %s/port ] && break; sleep 0.1; done; "
		   "u=http://127.0.0.1:$(cat %s/port); "
		   "LDLAT_PYROSCOPE_URL=$u LDLAT_PARCA_URL=$u user/systemd/ldlat-pprof-push %s "
		   "db; echo rc=$?; touch %s/fail; printf y > %s/ldlat-20261206T051837.0Z.pb.gz; "
		   "cp %s %s/ldlat-20261206T051838.000000Z.pb.gz; "
		   "LDLAT_PYROSCOPE_URL=$u user/systemd/ldlat-pprof-push %s db 2>&1; echo rc=$?; "
		   "kill $rx; ls %s %s",
		   rx, rx, rx, d, rx, d, prof, d, d, d, rx),
		0);
	ck_assert_msg(!strncmp(out, "rc=0\n", 5) &&
			      strstr(out, "not sent; kept for the next run\nrc=1\n"),
		      "%s", out);
	/* the first run sent both files to both; the second kept what failed */
	ck_assert_msg(strstr(out, "push:\nldlat-20261206T051837.0Z.pb.gz\n"
				  "ldlat-20261206T051838.000000Z.pb.gz\n\n") &&
			      strstr(out, "rx:\n1.pyroscope.pb.gz\n"
					  "1.pyroscope.query\n2.parca.labels\n2.parca.pb.gz\n"
					  "3.pyroscope.pb.gz\n3.pyroscope.query\n4.parca.labels\n"
					  "4.parca.pb.gz\nfail\nport\n"),
		      "%s", out);
	free(out);
	ck_assert_int_eq(
		sh(&out, NULL,
		   "cmp %s %s/1.pyroscope.pb.gz && cmp %s %s/2.parca.pb.gz && "
		   "cat %s/1.pyroscope.query %s/2.parca.labels && cat %s/3.pyroscope.pb.gz",
		   prof, rx, prof, rx, rx, rx, rx),
		0);
	ck_assert_msg(strstr(out, "name=ldlat.memory%7Bhost%3D") &&
			      strstr(out, "%2Cset%3Ddb%7D&format=pprof&from=") &&
			      strstr(out, "\n__name__=ldlat_memory\nhost=") &&
			      strstr(out, "\nset=db\nx"),
		      "%s", out);
	free(out);
	snprintf(d, sizeof(d), "%s/1.pyroscope.pb.gz", rx);
	out = check("header", d, "");
	ck_assert_msg(strstr(out, "Period: 10009\n"), "%s", out);
	free(out);
}
END_TEST

/*
 * perf record -g of the call-path program (page faults, one sample each):
 * ldlat-top --input's profile read by Go's pprof gives exactly the call
 * paths and counts of its folded report of the same file, 300 and 120 on
 * the program's two paths, fault_pages 420 in -top, the pid perf recorded,
 * the variables the faults touched (array_one, array_two) as the object
 * label, and the program's mapping with the build ID perf recorded.
 */
START_TEST(test_recorded_paths)
{
	const char *data = tmp("cp.data"), *prof = tmp("cp.pb.gz");
	char *folded[] = { (char *)top(), "--input", (char *)data, "--format", "folded", NULL };
	char *pprof[] = { (char *)top(), "--input",  (char *)data, "--format",
			  "pprof",	 "--output", (char *)prof, NULL };
	char *out, *err, *traces, *tops, *tags, *hdr, *ids, want[600];

	if (!need_root("perf record"))
		return;
	ck_assert_int_eq(sh(NULL, NULL,
			    "cd %s && perf record -q -e page-faults -c 1 -d -g -o %s %s 300 120 "
			    ">/dev/null 2>&1",
			    suite_dir(), data, callprog()),
			 0);
	ck_assert_msg(run(folded, 60, &out, &err) == 0, "%s", err);
	free(err);
	ck_assert_msg(run(pprof, 60, &tops, &err) == 0, "%s", err);
	free(tops);
	free(err);
	traces = check("traces", prof, "");
	ck_assert_int_eq(sh(&tops, NULL, "printf '%%s' '%s' | LC_ALL=C sort", out), 0);
	ck_assert_msg(!strcmp(traces, tops), "pprof -traces:\n%s\nfolded:\n%s", traces, tops);
	ck_assert_int_eq(line_count(traces, ";main;path_one;fault_pages"), 300);
	ck_assert_int_eq(line_count(traces, ";main;path_two;via_two;fault_pages"), 120);
	free(tops);
	free(out);
	tops = check("top", prof, "");
	ck_assert_msg(strstr(tops, "\nfault_pages 420 420\n"), "%s", tops);
	tags = check("tags", prof, "");
	ck_assert_msg(strstr(tags, "object array_one 300.0\n") &&
			      strstr(tags, "object array_two 120.0\n"),
		      "%s", tags);
	ck_assert_int_eq(sh(&out, NULL, "perf script -i %s -F comm,pid | grep -m1 callprog", data),
			 0);
	{
		int pid = -1;

		ck_assert_int_eq(sscanf(out, "%*s %d", &pid), 1);
		snprintf(want, sizeof(want), "pid %d ", pid);
	}
	ck_assert_msg(strstr(tags, want), "%s not in:\n%s", want, tags);
	ck_assert_msg(strstr(tags, "comm ldlat-callprog "), "%s", tags);
	free(out);
	hdr = check("header", prof, "");
	ck_assert_int_eq(sh(&ids, NULL, "perf buildid-list -i %s | grep ' %s$'", data, callprog()),
			 0);
	*strchr(ids, ' ') = '\0';
	snprintf(want, sizeof(want), " %s %s\n", callprog(), ids);
	ck_assert_msg(strstr(hdr, want), "%s not in:\n%s", want, hdr);
	ck_assert_msg(strstr(hdr, "PeriodType: page-faults count\nPeriod: 1\n"), "%s", hdr);
	free(ids);
	free(hdr);
	free(tags);
	free(tops);
	free(traces);
}
END_TEST

/*
 * The type and member labels of a profile of ldlat-typeprog's page faults
 * (tests/progs/typeprog.c: fields of known layouts, each first touched a
 * known number of times), against perf record -d's file of the same run:
 * tests/types_oracle.py sums the profile's samples by (type, member) as
 * go tool pprof -raw reads them, and compares each field's count with the
 * samples perf recorded on the source lines objdump -dl places them on,
 * whose comments name the field (check_types' oracle); every sample
 * carries a type or an untyped label.
 */
static void assert_types(const char *dir, const char *prof, const char *prog)
{
	char *out = NULL;

	ck_assert_msg(
		sh(&out, NULL, "tests/types_oracle.py pprof %s %s/p.data %s", prof, dir, prog) == 0,
		"%s", out ? out : "");
	free(out);
}

/* --input of perf record -d's file: each sample's recorded instruction.  _i: -O0, -O2. */
START_TEST(test_recorded_types)
{
	const char *prog = build_path(_i ? "tests/ldlat-typeprog-O2" : "tests/ldlat-typeprog-O0");
	const char *dir = suite_dir(), *prof = tmp(_i ? "types-O2.pb.gz" : "types-O0.pb.gz");

	if (!need_root("perf record"))
		return;
	ck_assert_int_eq(sh(NULL, NULL,
			    "cd %s && perf record -q -e page-faults -c 1 -d -o p.data -- %s "
			    ">/dev/null && %s --input p.data --format pprof --output %s",
			    dir, prog, top(), prof),
			 0);
	assert_types(dir, prof, prog);
}
END_TEST

/*
 * Live: ldlat-top samples perf record, which samples the program (both
 * tools' samples of the same faults); each path's leaf is the faulting
 * instruction.  _i: -O0, -O2.
 */
START_TEST(test_live_types)
{
	const char *prog = build_path(_i ? "tests/ldlat-typeprog-O2" : "tests/ldlat-typeprog-O0");
	const char *dir = suite_dir(), *prof = tmp(_i ? "ltypes-O2.pb.gz" : "ltypes-O0.pb.gz");

	if (!need_root("ldlat-top"))
		return;
	ck_assert_int_eq(sh(NULL, NULL,
			    "cd %s && %s --source page-faults --format pprof --output %s -- perf "
			    "record -q -e page-faults -c 1 -d -o p.data -- %s >/dev/null",
			    dir, top(), prof, prog),
			 0);
	assert_types(dir, prof, prog);
}
END_TEST

/* This process's cgroup v2 path, as /proc/self/cgroup's "0::" line gives it (malloc'd). */
static char *own_cgroup(void)
{
	char *out;

	ck_assert_int_eq(sh(&out, NULL, "sed -n 's/^0:://p' /proc/self/cgroup"), 0);
	*strchrnul(out, '\n') = '\0';
	return out;
}

/*
 * Live: the program's two paths, 300 and 120 samples, its pid, name and
 * cgroup as labels, and the counters' line as a comment.
 */
START_TEST(test_live_paths)
{
	const char *prof = tmp("live.pb.gz");
	char *argv[] = { (char *)top(), "--source",   "page-faults", "--format",	 "pprof",
			 "--output",	(char *)prof, "--",	     (char *)callprog(), "300",
			 "120",		NULL };
	char *out, *err, *traces, *tags, *hdr, *cg, want[600];

	if (!need_root("ldlat-top"))
		return;
	ck_assert_msg(run(argv, 60, &out, &err) == 0, "%s", err);
	traces = check("traces", prof, "");
	ck_assert_int_eq(line_count(traces, ";main;path_one;fault_pages"), 300);
	ck_assert_int_eq(line_count(traces, ";main;path_two;via_two;fault_pages"), 120);
	tags = check("tags", prof, "");
	cg = own_cgroup();
	snprintf(want, sizeof(want), "cgroup %s ", cg);
	ck_assert_msg(strstr(tags, want), "%s not in:\n%s", want, tags);
	ck_assert_msg(strstr(tags, "comm ldlat-callprog "), "%s", tags);
	ck_assert_ptr_nonnull(strstr(err, "(PID "));
	snprintf(want, sizeof(want), "pid %d ", atoi(strstr(err, "(PID ") + 5));
	ck_assert_msg(strstr(tags, want), "%s not in:\n%s", want, tags);
	hdr = check("header", prof, "");
	ck_assert_msg(strstr(hdr, "Comment: filters: "), "%s", hdr);
	ck_assert_msg(strstr(hdr, "\nPeriodType: page-faults (period 1) count\nPeriod: 1\n"), "%s",
		      hdr);
	free(hdr);
	free(cg);
	free(tags);
	free(traces);
	free(out);
	free(err);
}
END_TEST

/*
 * Nothing lost silently: 4096 paths of one sample each into a stack map of
 * 2 (--entries 1): the samples whose path the map could not keep are
 * samples under "[call path lost: stack map full]" labelled lost, the
 * text report's loss line is a comment with the same count, and every kept
 * sample (the filters' comment) is in the profile.
 */
START_TEST(test_live_losses)
{
	const char *prof = tmp("losses.pb.gz");
	char *argv[] = { (char *)top(),	     "--source", "page-faults", "--entries",  "1",
			 "--format",	     "pprof",	 "--output",	(char *)prof, "--",
			 (char *)callprog(), "--fan",	 "12",		NULL };
	char *out, *err, *tags, *hdr, *traces, *line, *save = NULL, want[128];
	long long lost, kept = -1, total = 0;

	if (!need_root("ldlat-top"))
		return;
	ck_assert_msg(run(argv, 60, &out, &err) == 0, "%s", err);
	tags = check("tags", prof, "");
	ck_assert_msg(strstr(tags, "\nlost stack map full "), "%s", tags);
	lost = atoll(strstr(tags, "\nlost stack map full ") + 21);
	ck_assert_msg(lost > 2000, "%s", tags);
	traces = check("traces", prof, "");
	ck_assert_int_eq(line_count(traces, "ldlat-callprog;[call path lost: stack map full]"),
			 lost);
	for (line = strtok_r(traces, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		total += atoll(strrchr(line, ' ') + 1);
	hdr = check("header", prof, "");
	snprintf(want, sizeof(want),
		 "Comment: %lld samples: [call path lost: stack map full] (raise --entries)\n",
		 lost);
	ck_assert_msg(strstr(hdr, want), "%s not in:\n%s", want, hdr);
	ck_assert_int_eq(sscanf(strstr(hdr, "Comment: filters: "),
				"Comment: filters: %*u seen, %lld kept", &kept),
			 1);
	ck_assert_msg(total == kept, "%lld samples in the profile, %lld kept", total, kept);
	free(hdr);
	free(traces);
	free(tags);
	free(out);
	free(err);
}
END_TEST

/*
 * -i: a profile per interval into DIR, each a file of its own; over them
 * the paths add up to what the program did (5 runs of 30 and 12 pages), in
 * more than one profile; nothing else is left in DIR.  --keep 2 of the
 * same leaves the 2 newest.  -i with a FILE: replaced at each, whole at the
 * end, no temporary file beside it.  -i into a pipe is refused.
 */
START_TEST(test_intervals)
{
	char d[512], keep[600], one[600], cmd[1024], *out, *err, *files, *f, *save = NULL;
	char *argv[] = { (char *)top(), "-i",	    "0.05", "--source", "page-faults", "--format",
			 "pprof",	"--output", d,	    "--keep",	"1000",	       "--",
			 "sh",		"-c",	    cmd,    NULL };
	char *pipe_argv[] = { (char *)top(), "-i", "1", "--format", "pprof", "--", "true", NULL };
	long long one_sum = 0, two_sum = 0;
	int nfiles = 0, with = 0;

	if (!need_root("ldlat-top"))
		return;
	snprintf(d, sizeof(d), "%s", tmp("intervals"));
	snprintf(cmd, sizeof(cmd), "for i in 1 2 3 4 5; do %s 30 12; sleep 0.1; done", callprog());
	ck_assert_int_eq(sh(NULL, NULL, "mkdir -p %s", d), 0);
	ck_assert_msg(run(argv, 60, &out, &err) == 0, "%s", err);
	free(out);
	free(err);
	ck_assert_int_eq(sh(&files, NULL, "ls -A %s", d), 0);
	for (f = strtok_r(files, "\n", &save); f; f = strtok_r(NULL, "\n", &save)) {
		char path[1200], *traces;
		long long a, b;

		ck_assert_msg(!strncmp(f, "ldlat-", 6) && strlen(f) == 6 + 23 + 6 &&
				      !strcmp(f + 29, ".pb.gz"),
			      "not a profile's name: %s", f);
		snprintf(path, sizeof(path), "%s/%s", d, f);
		traces = check("traces", path, "");
		a = suffix_sum(traces, ";main;path_one;fault_pages", "ldlat-callprog;");
		b = suffix_sum(traces, ";main;path_two;via_two;fault_pages", "ldlat-callprog;");
		one_sum += a;
		two_sum += b;
		with += a > 0 || b > 0;
		nfiles++;
		free(traces);
	}
	ck_assert_int_eq(one_sum, 150);
	ck_assert_int_eq(two_sum, 60);
	ck_assert_msg(with >= 2, "the paths came in %d of %d profiles", with, nfiles);
	free(files);
	/* --keep 2: the two newest (names sort as times) */
	snprintf(keep, sizeof(keep), "%s", tmp("keep"));
	ck_assert_int_eq(sh(NULL, NULL, "mkdir -p %s", keep), 0);
	argv[8] = keep;
	argv[10] = "2";
	ck_assert_msg(run(argv, 60, &out, &err) == 0, "%s", err);
	free(out);
	free(err);
	ck_assert_int_eq(sh(&files, NULL, "ls -A %s | wc -l", keep), 0);
	ck_assert_str_eq(files, "2\n");
	free(files);
	/* a FILE replaced at each interval: one file, whole */
	snprintf(one, sizeof(one), "%s/one.pb.gz", tmp("file"));
	ck_assert_int_eq(sh(NULL, NULL, "mkdir -p %s", tmp("file")), 0);
	argv[8] = one;
	argv[9] = "--entries"; /* the same argument count: a default value */
	argv[10] = "65536";
	ck_assert_msg(run(argv, 60, &out, &err) == 0, "%s", err);
	free(out);
	free(err);
	ck_assert_int_eq(sh(&files, NULL, "ls -A %s", tmp("file")), 0);
	ck_assert_str_eq(files, "one.pb.gz\n");
	free(files);
	free(check("header", one, ""));
	/* into a pipe: two profiles would be one broken stream */
	ck_assert_int_eq(run(pipe_argv, 60, &out, &err), 2);
	ck_assert_msg(strstr(err, "--format pprof with -i writes a profile per interval"), "%s",
		      err);
	free(out);
	free(err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pprof");
	TCase *writer = tcase_create("writer"), *tc;
	int failed;

	tcase_set_timeout(writer, 120);
	tcase_add_test(writer, test_paths_labels_header);
	tcase_add_test(writer, test_random_sums);
	tcase_add_test(writer, test_names_escaped);
	tcase_add_test(writer, test_gzip_and_empty);
	suite_add_tcase(s, writer);
	tc = tcase_create("input");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_recording_classes);
	tcase_add_test(tc, test_recording_ns);
	tcase_add_test(tc, test_bad_output);
	tcase_add_test(tc, test_push);
	suite_add_tcase(s, tc);
	tc = tcase_create("root");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_recorded_paths);
	tcase_add_loop_test(tc, test_recorded_types, 0, 2);
	tcase_add_loop_test(tc, test_live_types, 0, 2);
	tcase_add_test(tc, test_live_paths);
	tcase_add_test(tc, test_live_losses);
	tcase_add_test(tc, test_intervals);
	suite_add_tcase(s, tc);
	/* one directory of files for the whole suite, removed at its end */
	suite_dir_make("pprof");
	setenv("CK_FORK", "no", 1);
	failed = run_suite(s);
	suite_dir_remove();
	return failed ? 1 : 0;
}
