// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * check_types - ldlat-top --by type and --by srcline on ldlat-typeprog
 * (tests/progs/typeprog.c: fields of known layouts on the heap, in an
 * array, nested, in a union, inherited in C++, global and on the stack,
 * each first touched a known number of times), built at -O0 and -O2,
 * stripped with its debug info apart, and without debug info.  Under
 * --source page-faults each touch is one sample at the store's address.
 *
 * The oracles are not ldlat: perf record -d of the same run (or of the
 * file read by --input) gives each sample's address, objdump -dl the
 * instruction and source line there, the line's comment the label
 * expected, pahole the member's offsets, perf script's srcline and
 * addr2line -i the source lines and inlined frames (tests/types_oracle.py);
 * the program's own design gives each field's count.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/lib/testutil.h"

static const char *const variants[] = { "O0", "O2", "stripped", "debuglink", "nodebug" };

/* What typeprog.c's header says each field gets: one first touch per page. */
static const char design_counts[] =
	"{\"struct conn.rx_bytes\": 11, \"struct conn.tx_bytes\": 7, \"struct conn.state\": 5, "
	"\"struct item.key\": 13, \"struct item.val\": 9, \"struct outer.hdr\": 3, "
	"\"struct outer.in.x\": 6, \"struct outer.in.y\": 4, \"union msg.hdr.len\": 8, "
	"\"union msg.raw\": 2, \"class Session.id\": 12, \"class Session.seq\": 10, "
	"\"class Session.bytes\": 14, \"struct config.flags\": 15, \"struct config.limit\": 1, "
	"\"struct frame.a\": 16, \"struct frame.b\": 8}";

/* Whether the JSON's type rows give each field of the design its count. */
static void assert_design_counts(const char *json)
{
	char expr[1400];

	snprintf(expr, sizeof(expr),
		 "%s as $want | [.types.rows[] | {key: .label, value: .samples}] | from_entries "
		 "as $got | [$want | to_entries[] | $got[.key] == .value] | all",
		 design_counts);
	ck_assert_msg(jq_true(json, expr), "the fields' counts are not typeprog.c's design");
}

/* The JSON's untyped samples by reason and the typed ones add up to the samples, in every row. */
static void assert_untyped_shown(const char *json)
{
	ck_assert(jq_true(json, ".types | .typed_samples + ([.untyped_samples[]] | add // 0) == "
				".samples"));
	ck_assert(jq_true(json, ".types | ([.rows[] | select(.untyped != null) | .samples] | add "
				"// 0) == ([.untyped_samples[]] | add // 0)"));
}

static char *slurp(const char *dir, const char *name)
{
	char *out = NULL;

	ck_assert_int_eq(sh(&out, NULL, "cat %s/%s", dir, name), 0);
	return out;
}

/*
 * Live: ldlat-top samples perf record, which samples the program: the
 * program's faults are both tools' samples of the same run.  _i: -O0, -O2.
 */
START_TEST(test_types_live)
{
	char dir[] = "/tmp/ldlat-types-XXXXXX", *out = NULL, *json;
	const char *prog = build_path(_i ? "tests/ldlat-typeprog-O2" : "tests/ldlat-typeprog-O0");

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(sh(NULL, NULL,
			    "cd %s && %s --source page-faults --by type -n 0 --format json -- perf "
			    "record -q -e page-faults -c 1 -d -o p.data -- %s > t.json",
			    dir, top(), prog),
			 0);
	ck_assert_msg(sh(&out, NULL, "tests/types_oracle.py type %s/t.json %s/p.data %s", dir, dir,
			 prog) == 0,
		      "%s", out ? out : "");
	free(out);
	json = slurp(dir, "t.json");
	assert_design_counts(json);
	assert_untyped_shown(json);
	free(json);
	sh(NULL, NULL, "rm -rf %s", dir);
}
END_TEST

/*
 * --input of perf record -d's file, each build: _i indexes variants.  The
 * stripped one finds its debug info by build ID under --debuginfo-path,
 * and without that path counts the program's samples as "no debug info"
 * (so that it is the path that typed them); the debuglink one beside it;
 * the one without debug info counts them as untyped for that reason.
 */
START_TEST(test_types_input)
{
	char dir[] = "/tmp/ldlat-types-XXXXXX", prog[64], *out = NULL, *json;
	const char *v = variants[_i], *withdebug = build_path("tests/ldlat-typeprog-O2");
	bool nodebug = !strcmp(v, "nodebug");

	if (!strcmp(v, "O0"))
		withdebug = build_path("tests/ldlat-typeprog-O0");
	snprintf(prog, sizeof(prog), "tests/ldlat-typeprog-%s", v);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(sh(NULL, NULL,
			    "cd %s && perf record -q -e page-faults -c 1 -d -o p.data -- %s "
			    ">/dev/null && %s --input p.data --by type -n 0 --format json "
			    "--debuginfo-path %s:/usr/lib/debug > t.json",
			    dir, build_path(prog), top(), build_path("tests/debug")),
			 0);
	ck_assert_msg(sh(&out, NULL, "tests/types_oracle.py type %s/t.json %s/p.data %s --dso %s%s",
			 dir, dir, nodebug ? build_path(prog) : withdebug,
			 strrchr(build_path(prog), '/') + 1, nodebug ? " --nodebug" : "") == 0,
		      "%s", out ? out : "");
	free(out);
	json = slurp(dir, "t.json");
	if (!nodebug)
		assert_design_counts(json);
	assert_untyped_shown(json);
	free(json);
	if (!strcmp(v, "stripped")) {
		ck_assert_int_eq(sh(NULL, NULL,
				    "cd %s && %s --input p.data --by type -n 0 --format json > "
				    "t0.json",
				    dir, top()),
				 0);
		ck_assert_msg(sh(&out, NULL,
				 "tests/types_oracle.py type %s/t0.json %s/p.data %s --nodebug",
				 dir, dir, build_path(prog)) == 0,
			      "%s", out ? out : "");
		free(out);
	}
	sh(NULL, NULL, "rm -rf %s", dir);
}
END_TEST

/*
 * Debug info from a debuginfod server (Debian's debuginfod, serving
 * ldlat-typeprog-remote's, which nothing on disk has): typed through
 * DEBUGINFOD_URLS as the unstripped build is by objdump and pahole;
 * without the variable, untyped for no debug info.
 */
START_TEST(test_types_debuginfod)
{
	char dir[] = "/tmp/ldlat-types-XXXXXX", url[64], id[128], *out = NULL, *err = NULL;
	const char *prog = build_path("tests/ldlat-typeprog-remote");
	int port = 20000 + getpid() % 20000, i, up = 1, rc;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", port);
	ck_assert_int_eq(sh(&out, NULL, "readelf -n %s | sed -n 's/.*Build ID: *//p'", prog), 0);
	snprintf(id, sizeof(id), "%.*s", (int)strcspn(out, "\n"), out);
	free(out);
	ck_assert_int_eq(sh(NULL, NULL,
			    "cd %s && { debuginfod -F %s -p %d -d db.sqlite >log 2>&1 & echo $! > "
			    "pid; }",
			    dir, build_path("tests/debuginfod"), port),
			 0);
	/* until it has scanned its directory and serves the debug info (a minute at most) */
	for (i = 0; i < 600 && up; i++) {
		up = sh(NULL, &err, "curl -sf -o /dev/null %s/buildid/%s/debuginfo", url, id);
		free(err);
		if (up)
			usleep(100000);
	}
	rc = up ? -1
		: sh(NULL, NULL,
		     "cd %s && perf record -q -e page-faults -c 1 -d -o p.data -- %s >/dev/null && "
		     "env -u DEBUGINFOD_URLS %s --input p.data --by type -n 0 --format json > "
		     "t0.json && DEBUGINFOD_URLS=%s DEBUGINFOD_CACHE_PATH=%s/cache %s --input "
		     "p.data --by type -n 0 --format json > t.json",
		     dir, prog, top(), url, dir, top());
	sh(NULL, NULL, "kill $(cat %s/pid)", dir);
	ck_assert_msg(!up, "debuginfod did not serve %s's debug info", id);
	ck_assert_int_eq(rc, 0);
	ck_assert_msg(sh(&out, NULL, "tests/types_oracle.py type %s/t0.json %s/p.data %s --nodebug",
			 dir, dir, prog) == 0,
		      "%s", out ? out : "");
	free(out);
	ck_assert_msg(sh(&out, NULL,
			 "tests/types_oracle.py type %s/t.json %s/p.data %s.full --dso %s", dir,
			 dir, prog, strrchr(prog, '/') + 1) == 0,
		      "%s", out ? out : "");
	free(out);
	sh(NULL, NULL, "rm -rf %s", dir);
}
END_TEST

/*
 * --annotate FUNC: objdump's instructions of the function (within nm's
 * size), each with the samples perf recorded at it and, at a sampled store,
 * its line's label.  _i: live (ldlat-top sampling perf record) and from
 * the file, at -O2 and -O0, for a loop over an array, a C++ method and
 * the recursion's stack frame.  The C++ method by its full signature
 * (--demangle full), as objdump -C and nm -C name it.
 */
START_TEST(test_types_annotate)
{
	static const char *const funcs[] = { "items_touch", "session_seq(Session*)",
					     "frame_touch" };
	char dir[] = "/tmp/ldlat-types-XXXXXX", *out = NULL;
	const char *prog =
		build_path(_i % 2 ? "tests/ldlat-typeprog-O0" : "tests/ldlat-typeprog-O2");
	bool live = _i < 2;
	int f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (f = 0; f < 3; f++) {
		if (live)
			ck_assert_int_eq(sh(NULL, NULL,
					    "cd %s && rm -f p.data && %s --source page-faults "
					    "--annotate '%s' --demangle full --format json -- perf "
					    "record -q -e "
					    "page-faults -c 1 -d -o p.data -- %s > a.json",
					    dir, top(), funcs[f], prog),
					 0);
		else
			ck_assert_int_eq(
				sh(NULL, NULL,
				   "cd %s && { test -e p.data || perf record -q -e page-faults "
				   "-c 1 -d -o p.data -- %s >/dev/null; } && %s --input p.data "
				   "--annotate '%s' --demangle full --format json > a.json",
				   dir, prog, top(), funcs[f]),
				0);
		ck_assert_msg(sh(&out, NULL,
				 "tests/types_oracle.py annotate %s/a.json %s/p.data %s '%s'", dir,
				 dir, prog, funcs[f]) == 0,
			      "%s", out ? out : "");
		free(out);
	}
	ck_assert_int_eq(
		sh(&out, NULL, "cd %s && %s --input p.data --annotate items_touch", dir, top()), 0);
	ck_assert_ptr_nonnull(strstr(out, "annotate: items_touch in ldlat-typeprog-"));
	ck_assert_int_eq(count_for(out, "struct item.key"), 13);
	ck_assert_int_eq(count_for(out, "struct item.val"), 9);
	free(out);
	sh(NULL, NULL, "rm -rf %s", dir);
}
END_TEST

/*
 * A real program built with -g: ldlat-top itself reading a file of 200,000
 * generated samples (its tables' rows and entries on the heap), recorded
 * by perf record.  The typed share is reported, and each row of one of its
 * own structs has the offset pahole gives that member (two rows at least).
 */
START_TEST(test_types_real_program)
{
	char dir[] = "/tmp/ldlat-types-XXXXXX", *out = NULL, *json;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(
		sh(NULL, NULL,
		   "cd %s && %s --samples 200000 gen.data >/dev/null && perf record -q -e "
		   "page-faults -c 1 -d -o p.data -- %s --input gen.data -n 0 >/dev/null && "
		   "%s --input p.data --by type -n 0 --format json > t.json",
		   dir, build_path("tests/gen-perfdata"), top(), top()),
		0);
	/*
	 * A sanitizer's build faults its pages in the sanitizer's runtime (its
	 * shadow memory), not in the program's own code: its rows are checked,
	 * but none need be of the program's types
	 */
	ck_assert_msg(sh(&out, NULL,
			 "tests/types_oracle.py pahole %s/t.json %s/p.data %s --least %d", dir, dir,
			 top(), getenv("LDLAT_SANITIZED") ? 0 : 2) == 0,
		      "%s", out ? out : "");
	free(out);
	json = slurp(dir, "t.json");
	assert_untyped_shown(json);
	ck_assert(jq_true(json, ".types.typed_samples > 0"));
	free(json);
	sh(NULL, NULL, "rm -rf %s", dir);
}
END_TEST

/*
 * The text table: the rows by label with the same columns as the code
 * table's, and the line that sums the untyped samples by reason.
 */
START_TEST(test_types_text)
{
	char dir[] = "/tmp/ldlat-types-XXXXXX", *out = NULL;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(sh(NULL, NULL,
			    "cd %s && perf record -q -e page-faults -c 1 -d -o p.data -- %s "
			    ">/dev/null",
			    dir, build_path("tests/ldlat-typeprog-O2")),
			 0);
	ck_assert_int_eq(sh(&out, NULL, "cd %s && %s --input p.data --by type -n 0", dir, top()),
			 0);
	ck_assert_ptr_nonnull(strstr(out, "data types: "));
	ck_assert_ptr_nonnull(strstr(out, "samples  percent  mean lat   max lat  source"));
	ck_assert_int_eq(count_for(out, " struct conn.rx_bytes"), 11);
	ck_assert_int_eq(count_for(out, " class Session.bytes"), 14);
	ck_assert_int_eq(count_for(out, " union msg.raw"), 2);
	ck_assert_ptr_nonnull(strstr(out, "\ntyped: "));
	ck_assert_ptr_nonnull(strstr(out, "; untyped: "));
	ck_assert_ptr_nonnull(strstr(out, "[untyped: kernel code]"));
	free(out);
	/* a name from elsewhere is escaped in the annotation's header, as in the tables */
	ck_assert_int_eq(sh(&out, NULL,
			    "cd %s && %s --input p.data --annotate \"$(printf 'f\\033]0;t')\"", dir,
			    top()),
			 0);
	ck_assert_msg(strstr(out, "named f\\x1b]0;t ") && !strchr(out, '\033'), "%s", out);
	free(out);
	sh(NULL, NULL, "rm -rf %s", dir);
}
END_TEST

/*
 * --by srcline of perf record's file: each user-space sample on the line
 * perf script's srcline gives, and the samples addr2line -i finds in
 * inlined code in rows named "func (inlined)".  _i: -O0, -O2.
 */
START_TEST(test_srcline_input)
{
	char dir[] = "/tmp/ldlat-types-XXXXXX", *out = NULL;
	const char *prog = build_path(_i ? "tests/ldlat-typeprog-O2" : "tests/ldlat-typeprog-O0");

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(sh(NULL, NULL,
			    "cd %s && perf record -q -e page-faults -c 1 -d -o p.data -- %s "
			    ">/dev/null && %s --input p.data --by srcline -n 0 --format json > "
			    "s.json",
			    dir, prog, top()),
			 0);
	ck_assert_msg(
		sh(&out, NULL, "tests/types_oracle.py srcline %s/s.json %s/p.data", dir, dir) == 0,
		"%s", out ? out : "");
	free(out);
	sh(NULL, NULL, "rm -rf %s", dir);
}
END_TEST

/*
 * ldlat-c2c's Pareto rows by data type (tests/progs/falseshare.c: two
 * threads write struct stats.hits 7 times and .misses 5 times, both in one
 * cache line, each write a page fault): each of perf's samples in the
 * struct is in an entry of its line, offset and code address, named by
 * the member pahole places at its address (types_oracle.py c2c), with the
 * program's counts.
 */
static void assert_false_sharing(const char *dir, const char *prog, const char *data, bool input)
{
	char *out = NULL, *json, addr[32], path[128], text[128] = "";

	ck_assert_int_eq(sh(&out, NULL, "sed -n 's/^stats at //p' %s/out.txt", dir), 0);
	snprintf(addr, sizeof(addr), "%.*s", (int)strcspn(out, "\n"), out);
	free(out);
	/* from the file, the text of the same samples and the untyped ones by reason too */
	if (input)
		snprintf(text, sizeof(text), " --same --text %s/%s.txt", dir, data);
	ck_assert_msg(sh(&out, NULL, "tests/types_oracle.py c2c %s/%s.json %s/%s %s stats %s%s",
			 dir, data, dir, data, prog, addr, text) == 0,
		      "%s", out ? out : "");
	free(out);
	snprintf(path, sizeof(path), "%s.json", data);
	json = slurp(dir, path);
	ck_assert_msg(jq_true(json, "[.shared_lines[].pareto[] | select(.data.label == \"struct "
				    "stats.hits\") | .records] | add == 7"),
		      "struct stats.hits: not falseshare.c's 7 writes");
	ck_assert_msg(jq_true(json, "[.shared_lines[].pareto[] | select(.data.label == \"struct "
				    "stats.misses\") | .records] | add == 5"),
		      "struct stats.misses: not falseshare.c's 5 writes");
	/* one line, touched by both threads */
	ck_assert(jq_true(json, "[.shared_lines[] | select(any(.pareto[]; .data.type == \"struct "
				"stats\"))] | length == 1 and (.[0].threads | length) == 2"));
	free(json);
}

/* Live: ldlat-c2c samples perf record, which samples the program.  _i: -O0, -O2. */
START_TEST(test_c2c_types_live)
{
	char dir[] = "/tmp/ldlat-types-XXXXXX";
	const char *prog =
		build_path(_i ? "tests/ldlat-falseshare-O2" : "tests/ldlat-falseshare-O0");

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(
		sh(NULL, NULL,
		   "cd %s && %s --source page-faults --all -n 0 --format json --output "
		   "p.data.json -- perf record -q -e page-faults -c 1 -d -o p.data -- %s > "
		   "out.txt",
		   dir, build_path("ldlat-c2c"), prog),
		0);
	assert_false_sharing(dir, prog, "p.data", false);
	sh(NULL, NULL, "rm -rf %s", dir);
}
END_TEST

/*
 * --input of perf record -d's file, in JSON and text: every sample is
 * perf's, so the untyped ones by reason are checked too.  And of a copy of
 * it with every sample moved before the side band (perfdata_samples_first.py:
 * as perf record writes one CPU's buffer before another's, at its end),
 * which perf reads as it reads the file; read in file order, ldlat-c2c
 * named every sample's code as a process not yet seen's, untyped "no ELF
 * file".  _i: -O0, -O2.
 */
START_TEST(test_c2c_types_input)
{
	char dir[] = "/tmp/ldlat-types-XXXXXX";
	const char *prog =
		build_path(_i ? "tests/ldlat-falseshare-O2" : "tests/ldlat-falseshare-O0");
	const char *c2c = build_path("ldlat-c2c");

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(sh(NULL, NULL,
			    "cd %s && perf record -q -e page-faults -c 1 -d -o p.data -- %s > "
			    "out.txt && %s/tests/perfdata_samples_first.py p.data r.data && for f "
			    "in p.data r.data; do %s --input $f --all -n 0 --format json > $f.json "
			    "&& %s --input $f --all -n 0 > $f.txt || exit 1; done",
			    dir, prog, srcdir(), c2c, c2c),
			 0);
	assert_false_sharing(dir, prog, "p.data", true);
	assert_false_sharing(dir, prog, "r.data", true);
	sh(NULL, NULL, "rm -rf %s", dir);
}
END_TEST

/*
 * --annotate-type TYPE: the type's members as perf annotate --data-type
 * lays them out, each with its samples.  types_oracle.py annotype checks
 * the block of each binary against pahole (every member's offset, size,
 * name and type, nested structs and unions, a C++ base class) and against
 * perf's samples on the stores whose lines name a member of the type (a
 * parent holds its members'; a union's overlapping members each hold a
 * store to their bytes), and the text beside the JSON.  _i 0, 1: live
 * (ldlat-top sampling perf record) at -O2 and -O0; 2: a file of both
 * programs run one after the other, each type in two blocks, one per
 * file, as perf gives one per (type, DSO).  A type no sample touched:
 * exit 2, naming it (escaped).
 */
START_TEST(test_types_annotate_type)
{
	static const char *const types[] = { "struct outer", "union msg", "class Session" };
	char dir[] = "/tmp/ldlat-types-XXXXXX", *out = NULL, *err = NULL;
	const char *o0 = build_path("tests/ldlat-typeprog-O0");
	const char *o2 = build_path("tests/ldlat-typeprog-O2");
	const char *prog = _i == 1 ? o0 : o2;
	int t;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	if (_i == 2)
		ck_assert_int_eq(sh(NULL, NULL,
				    "cd %s && perf record -q -e page-faults -c 1 -d -o p.data -- "
				    "sh -c '%s && %s' >/dev/null",
				    dir, o0, o2),
				 0);
	for (t = 0; t < 3; t++) {
		if (_i < 2) {
			ck_assert_int_eq(
				sh(NULL, NULL,
				   "cd %s && rm -f p.data && %s --source page-faults "
				   "--annotate-type '%s' --format json -- perf record -q -e "
				   "page-faults -c 1 -d -o p.data -- %s > a.json",
				   dir, top(), types[t], prog),
				0);
			/* the text of the file perf recorded: the same samples */
			ck_assert_int_eq(
				sh(NULL, NULL,
				   "cd %s && %s --input p.data --annotate-type '%s' > a.txt", dir,
				   top(), types[t]),
				0);
		} else {
			ck_assert_int_eq(
				sh(NULL, NULL,
				   "cd %s && %s --input p.data --annotate-type '%s' --format "
				   "json > a.json && %s --input p.data --annotate-type '%s' > "
				   "a.txt",
				   dir, top(), types[t], top(), types[t]),
				0);
			out = slurp(dir, "a.json");
			ck_assert(jq_true(out, ".annotate_type.blocks | length == 2"));
			free(out);
		}
		ck_assert_msg(
			sh(&out, NULL,
			   "tests/types_oracle.py annotype %s/a.json %s/p.data %s '%s' --text "
			   "%s/a.txt",
			   dir, dir, prog, types[t], dir) == 0,
			"%s", out ? out : "");
		free(out);
		if (_i == 2) {
			ck_assert_msg(
				sh(&out, NULL,
				   "tests/types_oracle.py annotype %s/a.json %s/p.data %s '%s' "
				   "--text %s/a.txt",
				   dir, dir, o0, types[t], dir) == 0,
				"%s", out ? out : "");
			free(out);
		}
	}
	/* named as given, escaped: a name with an escape sequence reaches no terminal raw */
	ck_assert_int_eq(sh(&out, &err,
			    "cd %s && %s --input p.data --annotate-type \"$(printf 'struct "
			    "nosuch\\033[31m')\"",
			    dir, top()),
			 2);
	ck_assert_ptr_nonnull(strstr(err, "'struct nosuch\\x1b[31m'"));
	ck_assert_ptr_nonnull(strstr(out, "'struct nosuch\\x1b[31m'"));
	ck_assert_ptr_null(strchr(err, '\033'));
	ck_assert_ptr_null(strchr(out, '\033'));
	free(out);
	free(err);
	sh(NULL, NULL, "rm -rf %s", dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("types");
	TCase *tc;

	if (need_root("check_types (perf events and BPF)")) {
		tc = tcase_create("types");
		tcase_set_timeout(tc, 120);
		tcase_add_loop_test(tc, test_types_live, 0, 2);
		tcase_add_loop_test(tc, test_types_input, 0, 5);
		tcase_add_test(tc, test_types_text);
		tcase_add_test(tc, test_types_debuginfod);
		tcase_add_loop_test(tc, test_types_annotate, 0, 4);
		tcase_add_loop_test(tc, test_types_annotate_type, 0, 3);
		tcase_add_test(tc, test_types_real_program);
		tcase_add_loop_test(tc, test_srcline_input, 0, 2);
		tcase_add_loop_test(tc, test_c2c_types_live, 0, 2);
		tcase_add_loop_test(tc, test_c2c_types_input, 0, 2);
		suite_add_tcase(s, tc);
	}
	return run_suite(s) ? 1 : 0;
}
