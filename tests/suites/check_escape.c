// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * check_escape - names that other users choose, printed by root.  A
 * command's name (its comm, from the link it was run through), the path
 * of a file it maps, a symbol in that file, a cgroup's path and the names
 * a perf.data file records (comm, mappings, event, host, cgroup) hold ESC
 * sequences (a window title, colours, CSI), BEL, DEL, newlines and a C1
 * control (U+009B, CSI on some terminals).  In every text report, folded
 * stack and notice of the four tools, none reaches the output raw: each is
 * written escaped (\n, \t, \xNN; kernel/lib/unctrl.h), one name per cell,
 * one path per line; the folded lines read as flamegraph.pl reads them
 * (each name one frame, one count per line); JSON carries the names
 * exactly, as jq reads them back.
 *
 * The escaping itself is checked against Python's UTF-8 decoder on random
 * bytes, and the table writer against printf's padding.  The live runs
 * need root (page faults through the BPF program); the perf.data runs do
 * not.
 */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/lib/notice.h"
#include "kernel/lib/unctrl.h"
#include "kernel/lib/util.h"
#include "user/report/table.h"
#include "user/top/callpath.h"
#include "tests/lib/datasrc_cases.h"
#include "tests/lib/perfwrite.h"
#include "tests/lib/testutil.h"

/* The names: each holds what a terminal obeys, as raw bytes. */
#define EVIL_COMM  "x\033]0;T\007\n\033[31m\xc2\x9b" /* 15 bytes: a whole comm */
#define EVIL_FILE  "t\033[33mop\007\177"	     /* the program's file */
#define EVIL_SYM   "to;uch\033[32m\n_a 5"	     /* touch_a, renamed in its ELF */
#define EVIL_LIB   "/opt/ldlat-escape/lib\n\033[2Jevil\177.so"
#define EVIL_DATA  "/dev/shm/c2c\033[1m\nshared"
#define EVIL_EVENT "mem-loads\033[5m\nx"
#define EVIL_HOST  "host\033]2;pwned\007"
#define EVIL_CG	   "/user.slice/\033]0;cg\007\nx"

/* No raw control character in out: a byte below 0x20 but a newline or a tab, DEL, U+0080-U+009F. */
static void assert_clean(const char *what, const char *out)
{
	const unsigned char *p;

	for (p = (const unsigned char *)out; *p; p++)
		ck_assert_msg(!((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f ||
				(p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)),
			      "%s: a raw control character (0x%02x) at byte %zu of:\n%s", what, *p,
			      (size_t)(p - (const unsigned char *)out), out);
}

/* raw as the text outputs write it (for strstr), and as a JSON string literal (for jq). */
static const char *esc(const char *raw)
{
	static char buf[4][1024];
	static int next;

	return unctrl__str(buf[next++ % 4], sizeof(buf[0]), raw);
}

static const char *json_lit(const char *raw)
{
	static char buf[4][1024];
	static int next;
	char *b = buf[next++ % 4];
	const unsigned char *p;
	size_t o = 0;

	b[o++] = '"';
	for (p = (const unsigned char *)raw; *p && o + 8 < sizeof(buf[0]); p++) {
		if (*p < 0x20 || *p == 0x7f)
			o += (size_t)snprintf(b + o, 8, "\\u%04x", *p);
		else if (*p == '"' || *p == '\\')
			o += (size_t)snprintf(b + o, 8, "\\%c", *p);
		else
			b[o++] = (char)*p;
	}
	b[o++] = '"';
	b[o] = '\0';
	return b;
}

static void assert_jq(const char *doc, const char *expr)
{
	ck_assert_msg(jq_true(doc, expr), "jq -e '%s' fails on:\n%.4000s", expr, doc);
}

/* ---- the escaping, against Python's UTF-8 decoder ---------------------------------- */

/*
 * The rule in Python: a character that decodes strictly as UTF-8 (RFC 3629:
 * no overlong form, no surrogate, nothing past U+10FFFF) and is not a
 * control (C0, DEL, C1) stays; any other byte is \xNN, \n, \t.
 */
static const char oracle_py[] =
	"import sys\n"
	"def esc(b):\n"
	"    out, i = [], 0\n"
	"    while i < len(b):\n"
	"        ch = None\n"
	"        for n in (1, 2, 3, 4):\n"
	"            try:\n"
	"                ch = b[i:i + n].decode('utf-8')\n"
	"                break\n"
	"            except UnicodeDecodeError:\n"
	"                pass\n"
	"        c = ord(ch) if ch else -1\n"
	"        if ch and len(ch) == 1 and not (c < 0x20 or 0x7f <= c <= 0x9f):\n"
	"            out.append(ch)\n"
	"            i += len(ch.encode())\n"
	"            continue\n"
	"        out.append({10: '\\\\n', 9: '\\\\t'}.get(b[i], '\\\\x%02x' % b[i]))\n"
	"        i += 1\n"
	"    return ''.join(out)\n"
	"for line in sys.stdin:\n"
	"    sys.stdout.buffer.write(esc(bytes.fromhex(line.strip())).encode() + b'\\n')\n";

START_TEST(test_unctrl_vs_python)
{
	/* the edges by hand, then random bytes weighted towards UTF-8's lead and continuation bytes */
	static const char *const edges[] = {
		"plain",
		"a\nb\tc\033[31m\007\177",
		"\xc3\xa9t\xc3\xa9",
		"\xc2\x9b"
		"2J",
		"\xc2\xa0",
		"\x9b",
		"\xff\xfe",
		"\xc0\xaf",
		"\xe0\x80\xaf",
		"\xed\xa0\x80",
		"\xf4\x90\x80\x80",
		"\xf0\x9f\x98\x80",
		"\xe2\x82",
		"\xe2\x82\xac",
		"back\\slash",
	};
	static const unsigned char pool[] = { 'a',  ' ',  '\\', 0x01, 0x1b, 0x7f, 0x80, 0x9b,
					      0xa0, 0xbf, 0xc0, 0xc2, 0xdf, 0xe0, 0xed, 0xef,
					      0xf0, 0xf4, 0xf5, 0xff, '\n', '\t', 0x9f, 0x90 };
	enum { N = 3000 };
	char(*in)[16] = calloc(N, sizeof(*in)), got[80], again[80];
	char *out, *err, *line, *save = NULL;
	FILE *f;
	int i, j, len;

	ck_assert_ptr_nonnull(in);
	srandom(42);
	for (i = 0; i < N; i++) {
		if (i < (int)ARRAY_SIZE(edges)) {
			snprintf(in[i], sizeof(in[i]), "%s", edges[i]);
			continue;
		}
		len = 1 + (int)(random() % 12);
		for (j = 0; j < len; j++)
			in[i][j] = (char)(random() % 3 ? pool[random() % ARRAY_SIZE(pool)]
						       : 1 + random() % 255);
	}
	f = fopen(tmp("unctrl.py"), "w");
	fputs(oracle_py, f);
	fclose(f);
	f = fopen(tmp("unctrl.hex"), "w");
	for (i = 0; i < N; i++) {
		for (j = 0; in[i][j]; j++)
			fprintf(f, "%02x", (unsigned char)in[i][j]);
		fputc('\n', f);
	}
	fclose(f);
	ck_assert_int_eq(sh(&out, &err, "python3 %s <%s", tmp("unctrl.py"), tmp("unctrl.hex")), 0);
	/* no input is empty, and no escaped text holds a newline: a line each */
	line = strtok_r(out, "\n", &save);
	for (i = 0; i < N; i++) {
		ck_assert_msg(line, "python stopped at case %d", i);
		unctrl__str(got, sizeof(got), in[i]);
		ck_assert_msg(!strcmp(got, line), "case %d: '%s', python '%s'", i, got, line);
		line = strtok_r(NULL, "\n", &save);
		ck_assert_uint_eq(unctrl__len(in[i]), strlen(got));
		/* escaped text escapes to itself */
		ck_assert_str_eq(unctrl__str(again, sizeof(again), got), got);
	}
	/* a short buffer cuts before an escape, never inside one */
	ck_assert_str_eq(unctrl__str(got, 6, "ab\033cd"), "ab");
	ck_assert_str_eq(unctrl__str(got, 7, "ab\033cd"), "ab\\x1b");
	free(out);
	free(err);
	free(in);
}
END_TEST

/* ---- the writers ------------------------------------------------------------------- */

typedef void (*render_fn)(FILE *f, void *ctx);

static char *render_mem(render_fn fn, void *ctx)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fn(f, ctx);
	fclose(f);
	return buf;
}

static void table_rows(FILE *f, void *ctx)
{
	static const struct table_column cols[] = {
		{ "name", 12, TABLE_LEFT, NULL, 0 },
		{ "n", 4, TABLE_RIGHT, " ", 0 },
	};
	static const struct table t = { cols, 2 };
	struct table_row r;

	(void)ctx;
	table__row_begin(&r, f, &t);
	table__cell(&r, "%s", "a\033b\n");
	table__cell(&r, "%d", 7);
	table__row_end(&r);
}

/* A cell's control characters escaped, and the columns after it placed by the escaped width. */
START_TEST(test_table_cell)
{
	char *out = render_mem(table_rows, NULL), want[64];

	/* printf pads the escaped text as the table's declaration says: %-12s %4d */
	snprintf(want, sizeof(want), "%-12s %4d\n", "a\\x1bb\\n", 7);
	ck_assert_str_eq(out, want);
	free(out);
}
END_TEST

static void notices(FILE *f, void *ctx)
{
	char buf[256] = "";
	char *line, *save = NULL;

	(void)ctx;
	notice__add(buf, sizeof(buf), "pinned in %s", "/sys/fs/bpf/a\nldlat-hist: forged");
	notice__add(buf, sizeof(buf), "second %s", "\033]0;T\007");
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		notice__print(f, "tool", "%s", line);
	notice__print(f, "tool", "sampling on command '%s'", EVIL_COMM);
}

/* A notice is one line whatever the names it quotes hold. */
START_TEST(test_notices)
{
	char *out = render_mem(notices, NULL), want[512];

	snprintf(want, sizeof(want),
		 "tool: pinned in /sys/fs/bpf/a\\nldlat-hist: forged\n"
		 "tool: second \\x1b]0;T\\x07\n"
		 "tool: sampling on command '%s'\n",
		 esc(EVIL_COMM));
	ck_assert_str_eq(out, want);
	assert_clean("notices", out);
	free(out);
}
END_TEST

/*
 * How flamegraph.pl reads a folded line: the count is the number after the
 * last white space; a second number before it makes the line a
 * differential; the stack is split at ';'.  Prints "frames<TAB>count<TAB>
 * frame<TAB>frame..." per line, or what it could not read.
 */
static const char flamegraph_read_pl[] =
	"while (<>) {\n"
	"  chomp;\n"
	"  my ($stack, $n) = /^(.*)\\s+?(\\d+(?:\\.\\d*)?)$/;\n"
	"  if (!defined $n) { print \"UNREAD $_\\n\"; next; }\n"
	"  if ($stack =~ /^(.*)\\s+?(\\d+(?:\\.\\d*)?)$/) { print \"DIFFERENTIAL $_\\n\"; next; }\n"
	"  my @f = split /;/, $stack;\n"
	"  print scalar(@f), \"\\t$n\\t\", join(\"\\t\", @f), \"\\n\";\n"
	"}\n";

/* flamegraph.pl's reading of folded output: every line read, one count each. */
static char *flamegraph_read(const char *folded)
{
	char *out, *err;
	FILE *f;

	f = fopen(tmp("read.pl"), "w");
	fputs(flamegraph_read_pl, f);
	fclose(f);
	f = fopen(tmp("folded.txt"), "w");
	fputs(folded, f);
	fclose(f);
	ck_assert_int_eq(sh(&out, &err, "perl %s %s", tmp("read.pl"), tmp("folded.txt")), 0);
	ck_assert_msg(!strstr(out, "UNREAD") && !strstr(out, "DIFFERENTIAL"),
		      "flamegraph.pl would misread:\n%s\nfrom:\n%s", out, folded);
	free(err);
	return out;
}

static void folded(FILE *f, void *ctx)
{
	callpaths__render_folded(f, ctx, CALLPATH_WEIGHT_SAMPLES);
}

/*
 * Frames as callpaths__add stores them (';' already ':'), holding a newline,
 * ESC, a C1 control, a name ending in a number, a C++ name with spaces:
 * each stays one frame of one line, with one count.
 */
START_TEST(test_folded_frames)
{
	struct callpaths c;
	struct ldlat_top_val a = { .count = 3 }, b = { .count = 4 };
	char *out, *read;

	callpaths__init(&c);
	ck_assert_int_eq(callpaths__add_folded(&c, "x\033]0:T\007\n\033[31m\xc2\x9b;f 5;g 12", &a),
			 0);
	ck_assert_int_eq(callpaths__add_folded(&c, "app;ns::f(int, char);h 1.5", &b), 0);
	out = render_mem(folded, &c);
	assert_clean("folded", out);
	ck_assert_str_eq(out, "app;ns::f(int, char);h_1.5 4\n"
			      "x\\x1b]0:T\\x07\\n\\x1b[31m\\xc2\\x9b;f_5;g_12 3\n");
	read = flamegraph_read(out);
	ck_assert_str_eq(read, "3\t4\tapp\tns::f(int, char)\th_1.5\n"
			       "3\t3\tx\\x1b]0:T\\x07\\n\\x1b[31m\\xc2\\x9b\tf_5\tg_12\n");
	free(read);
	free(out);
	callpaths__free(&c);
}
END_TEST

/* ---- a live run of each tool on a program that names itself so --------------------- */

static char link_path[512], file_path[512];

/*
 * ldlat-topprog with touch_a renamed EVIL_SYM in its symbol table, as
 * EVIL_FILE, run through a link named EVIL_COMM: the kernel names the
 * process after the link, and maps the file.
 */
static void make_program(void)
{
	char redefine[256];
	char *objcopy[] = { "objcopy", "--redefine-sym",
			    redefine,  (char *)build_path("tests/ldlat-topprog"),
			    file_path, NULL };
	char *out, *err;

	snprintf(file_path, sizeof(file_path), "%s", tmp(EVIL_FILE));
	snprintf(link_path, sizeof(link_path), "%s", tmp(EVIL_COMM));
	snprintf(redefine, sizeof(redefine), "touch_a=%s", EVIL_SYM);
	unlink(file_path);
	unlink(link_path);
	ck_assert_msg(run(objcopy, 30, &out, &err) == 0, "objcopy: %s", err);
	free(out);
	free(err);
	ck_assert_int_eq(symlink(file_path, link_path), 0);
}

/* tool ARGS... -- link 20 10: the program touches 20 pages in touch_a, 10 in touch_b. */
static int run_live(const char *const *args, char **out, char **err)
{
	char *argv[24];
	int n = 0, i;

	for (i = 0; args[i]; i++)
		argv[n++] = (char *)args[i];
	argv[0] = (char *)build_path(args[0]);
	argv[n++] = "--";
	argv[n++] = link_path;
	argv[n++] = "20";
	argv[n++] = "10";
	argv[n] = NULL;
	return run(argv, 60, out, err);
}

/* The sampling notice names the command escaped, on one line of its own. */
static void assert_notice(const char *tool, const char *err)
{
	char want[1024];

	assert_clean(tool, err);
	snprintf(want, sizeof(want), "%s: sampling page-faults (period 1) on command '%s' (PID ",
		 tool, esc(link_path));
	if (!strcmp(tool, "ldlat-stat"))
		snprintf(want, sizeof(want),
			 "ldlat-stat: counting 1 event in 1 group on command '%s' (",
			 esc(link_path));
	ck_assert_msg(strstr(err, want), "want '%s' in:\n%s", want, err);
}

START_TEST(test_live_top)
{
	const char *const text[] = { "ldlat-top", "--source", "page-faults", "--call-graph", NULL };
	const char *const fold[] = { "ldlat-top", "--source", "page-faults", "--call-graph",
				     "--format",  "folded",   NULL };
	const char *const json[] = { "ldlat-top", "--source", "page-faults", "--call-graph",
				     "--format",  "json",     NULL };
	char *out, *err, *read, *line, want[1024], expr[2048];

	if (!need_root("ldlat-top sampling a program's page faults"))
		return;
	make_program();
	ck_assert_msg(run_live(text, &out, &err) == 0, "%s", err);
	assert_notice("ldlat-top", err);
	assert_clean("ldlat-top text", out);
	/* the code table: the symbol and the file; the data table: the process */
	snprintf(want, sizeof(want), "[.] %s", esc(EVIL_SYM));
	ck_assert_msg(count_for(out, want) == 20, "want 20 samples in '%s':\n%s", want, out);
	ck_assert_msg(strstr(out, esc(EVIL_FILE)) && strstr(out, esc(EVIL_COMM)), "%s", out);
	free(out);
	free(err);

	ck_assert_msg(run_live(fold, &out, &err) == 0, "%s", err);
	assert_clean("ldlat-top folded", out);
	assert_clean("ldlat-top folded's stderr", err);
	read = flamegraph_read(out);
	/* touch_a's 20 faults: one line, its first frame the process, its last the symbol */
	line = strstr(read, "\tto:uch\\x1b[32m\\n_a_5\n");
	ck_assert_msg(line, "no line ends in touch_a's frame:\n%s", read);
	while (line > read && line[-1] != '\n')
		line--;
	ck_assert_msg(
		!strncmp(strchr(line, '\t'), "\t20\tx\\x1b]0:T\\x07\\n\\x1b[31m\\xc2\\x9b\t", 36),
		"not 20 samples under the process: %.200s", line);
	free(read);
	free(out);
	free(err);

	ck_assert_msg(run_live(json, &out, &err) == 0, "%s", err);
	assert_clean("ldlat-top json's stderr", err);
	snprintf(expr, sizeof(expr), ".code.rows | any(.function == %s and .samples == 20)",
		 json_lit(EVIL_SYM));
	assert_jq(out, expr);
	snprintf(expr, sizeof(expr), ".code.rows | any(.dso | endswith(%s))", json_lit(EVIL_FILE));
	assert_jq(out, expr);
	snprintf(expr, sizeof(expr), ".data.rows | any(.in == %s)", json_lit(EVIL_COMM));
	assert_jq(out, expr);
	snprintf(expr, sizeof(expr), ".target | contains(%s)", json_lit(link_path));
	assert_jq(out, expr);
	free(out);
	free(err);
}
END_TEST

START_TEST(test_live_hist_stat_c2c)
{
	const char *const hist[] = { "ldlat-hist", "--source", "page-faults", "--by",
				     "pid",	   "-a",       EVIL_FILE,     NULL };
	const char *const hist_json[] = { "ldlat-hist", "--source", "page-faults", "-a",
					  EVIL_FILE,	"--format", "json",	   NULL };
	const char *const stat[] = { "ldlat-stat", "-e", "page-faults", NULL };
	const char *const c2c[] = {
		"ldlat-c2c", "--source", "page-faults", "--by", "process", NULL
	};
	const char *const c2c_json[] = { "ldlat-c2c", "--source", "page-faults", "--by",
					 "process",   "--format", "json",	 NULL };
	char *out, *err, want[1024], expr[2048];

	if (!need_root("the tools sampling a program's page faults"))
		return;
	make_program();
	/* ldlat-hist: the range the file's name gives, a row per process */
	ck_assert_msg(run_live(hist, &out, &err) == 0, "%s", err);
	assert_notice("ldlat-hist", err);
	assert_clean("ldlat-hist text", out);
	snprintf(want, sizeof(want), ", %s (0x", esc(EVIL_FILE));
	ck_assert_msg(strstr(out, want), "want '%s' in:\n%s", want, out);
	free(out);
	free(err);
	ck_assert_msg(run_live(hist_json, &out, &err) == 0, "%s", err);
	snprintf(expr, sizeof(expr), ".target | contains(%s)", json_lit(link_path));
	assert_jq(out, expr);
	free(out);
	free(err);

	ck_assert_msg(run_live(stat, &out, &err) == 0, "%s", err);
	assert_notice("ldlat-stat", err);
	assert_clean("ldlat-stat text", out);
	snprintf(want, sizeof(want), "Counter stats for command '%s'", esc(link_path));
	ck_assert_msg(strstr(out, want), "want '%s' in:\n%s", want, out);
	free(out);
	free(err);

	ck_assert_msg(run_live(c2c, &out, &err) == 0, "%s", err);
	assert_notice("ldlat-c2c", err);
	assert_clean("ldlat-c2c text", out);
	ck_assert_msg(strstr(out, esc(EVIL_COMM)), "%s", out);
	free(out);
	free(err);
	ck_assert_msg(run_live(c2c_json, &out, &err) == 0, "%s", err);
	snprintf(expr, sizeof(expr), ".processes | any(.command == %s)", json_lit(EVIL_COMM));
	assert_jq(out, expr);
	free(out);
	free(err);
}
END_TEST

/* ---- a perf.data file that someone else wrote ------------------------------------- */

#define BASE  0x400000ull
#define DBASE 0x7f0000000000ull

/* A CGROUP record: its ID and path, padded to 8 bytes. */
static void cgroup_record(struct pw *w, __u64 id, const char *path)
{
	unsigned char b[128] = { 0 };
	size_t n = 8 + (strlen(path) + 1 + 7) / 8 * 8;

	memcpy(b, &id, 8);
	memcpy(b + 8, path, strlen(path));
	pw_record(w, PERF_RECORD_CGROUP, 0, b, n);
}

/*
 * Process 100 (EVIL_COMM, in cgroup EVIL_CG) maps EVIL_LIB for code and
 * EVIL_DATA shared; 10 loads from code in EVIL_LIB, each another core's
 * modified line in two lines of EVIL_DATA, called from another address of
 * EVIL_LIB.  The event is named EVIL_EVENT, the host EVIL_HOST.
 */
static const char *write_evil(void)
{
	const char *path = tmp("evil.data");
	struct pw_event ev;
	struct pw_sample s = {};
	struct pw w;
	int i;

	pw_mem_loads_event(&ev, 100);
	ev.name = EVIL_EVENT;
	ev.attr.sample_type |= PERF_SAMPLE_CGROUP | PERF_SAMPLE_CALLCHAIN;
	ck_assert_int_eq(pw_open(&w, path, &ev, 1, false), 0);
	w.hostname = EVIL_HOST;
	pw_comm(&w, 100, 100, EVIL_COMM, 10);
	pw_mmap2(&w, 100, BASE, 1 << 20, 0, EVIL_LIB, 20);
	pw_mmap2_data(&w, 100, DBASE, 1 << 20, 0, 8, 1, 4242, true, EVIL_DATA, 30);
	cgroup_record(&w, 11, EVIL_CG);
	for (i = 0; i < 10; i++) {
		s.ip = BASE + 0x100;
		s.pid = s.tid = 100;
		s.time = 100 + i;
		s.addr = DBASE + (i % 2) * 64;
		s.id = 100;
		s.period = 1;
		s.weight = 200;
		s.data_src = GEN_07;
		s.cgroup = 11;
		s.callchain[0] = PERF_CONTEXT_USER;
		s.callchain[1] = BASE + 0x100;
		s.callchain[2] = BASE + 0x200;
		s.callchain_nr = 3;
		pw_sample(&w, 0, &s);
	}
	ck_assert_int_eq(pw_close(&w), 0);
	return path;
}

static int run_input(char **out, char **err, const char *tool, ...)
{
	char *argv[24];
	va_list ap;
	int n = 0;

	argv[n++] = (char *)build_path(tool);
	argv[n++] = "--input";
	argv[n++] = (char *)tmp("evil.data");
	va_start(ap, tool);
	while (n < 23 && (argv[n] = va_arg(ap, char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	return run(argv, 60, out, err);
}

START_TEST(test_input_top)
{
	char *out, *err, *read, want[1024], expr[2048];

	write_evil();
	ck_assert_msg(run_input(&out, &err, "ldlat-top", "-v", NULL) == 0, "%s", err);
	assert_clean("ldlat-top --input text", out);
	assert_clean("ldlat-top --input -v notices", err);
	/* the file's event and host in the notices; its mappings and process in the tables */
	snprintf(want, sizeof(want), "analysing %s, recorded on %s\n", esc(EVIL_EVENT),
		 esc(EVIL_HOST));
	ck_assert_msg(strstr(err, want), "want '%s' in:\n%s", want, err);
	ck_assert_msg(count_for(out, esc(strrchr(EVIL_LIB, '/') + 1)) == 10, "%s", out);
	ck_assert_msg(strstr(out, esc(EVIL_DATA)) && strstr(out, esc(EVIL_COMM)), "%s", out);
	free(out);
	free(err);

	ck_assert_msg(
		run_input(&out, &err, "ldlat-top", "--call-graph", "--format", "folded", NULL) == 0,
		"%s", err);
	assert_clean("ldlat-top --input folded", out);
	read = flamegraph_read(out);
	snprintf(want, sizeof(want), "\t10\tx\\x1b]0:T\\x07\\n\\x1b[31m\\xc2\\x9b\t[%s]\t",
		 esc(strrchr(EVIL_LIB, '/') + 1));
	ck_assert_msg(strstr(read, want), "want '%s' in:\n%s", want, read);
	free(read);
	free(out);
	free(err);

	ck_assert_msg(run_input(&out, &err, "ldlat-top", "--format", "json", NULL) == 0, "%s", err);
	snprintf(expr, sizeof(expr), ".code.rows | any(.dso == %s and .samples == 10)",
		 json_lit(EVIL_LIB));
	assert_jq(out, expr);
	snprintf(expr, sizeof(expr), ".data.rows | any(.in == %s)", json_lit(EVIL_COMM));
	assert_jq(out, expr);
	snprintf(expr, sizeof(expr), ".event == %s", json_lit(EVIL_EVENT));
	assert_jq(out, expr);
	free(out);
	free(err);
}
END_TEST

START_TEST(test_input_hist_c2c)
{
	char *out, *err, want[1024], expr[2048];

	write_evil();
	/* ldlat-hist -a NAME: the file's mapping by its name */
	ck_assert_msg(run_input(&out, &err, "ldlat-hist", "-v", "-p", "100", "-a", EVIL_DATA,
				"--by", "range", NULL) == 0,
		      "%s", err);
	assert_clean("ldlat-hist --input text", out);
	assert_clean("ldlat-hist --input -v notices", err);
	snprintf(want, sizeof(want), "range %s (0x", esc(EVIL_DATA));
	ck_assert_msg(strstr(out, want), "want '%s' in:\n%s", want, out);
	snprintf(want, sizeof(want), "analysing %s, recorded on %s\n", esc(EVIL_EVENT),
		 esc(EVIL_HOST));
	ck_assert_msg(strstr(err, want), "want '%s' in:\n%s", want, err);
	free(out);
	free(err);
	ck_assert_msg(run_input(&out, &err, "ldlat-hist", "-p", "100", "-a", EVIL_DATA, "--format",
				"json", NULL) == 0,
		      "%s", err);
	snprintf(expr, sizeof(expr), ".event == %s", json_lit(EVIL_EVENT));
	assert_jq(out, expr);
	free(out);
	free(err);

	/* ldlat-c2c: the lines of the shared file, the process and its cgroup */
	ck_assert_msg(run_input(&out, &err, "ldlat-c2c", NULL) == 0, "%s", err);
	assert_clean("ldlat-c2c --input lines", out);
	assert_clean("ldlat-c2c --input stderr", err);
	snprintf(want, sizeof(want), "  %s  HITM 5 (local 5, remote 0)", esc(EVIL_DATA));
	ck_assert_msg(strstr(out, want), "want '%s' in:\n%s", want, out);
	ck_assert_msg(strstr(out, esc(EVIL_EVENT)), "%s", out);
	free(out);
	free(err);
	ck_assert_msg(run_input(&out, &err, "ldlat-c2c", "--by", "process", NULL) == 0, "%s", err);
	assert_clean("ldlat-c2c --input --by process", out);
	ck_assert_msg(strstr(out, esc(EVIL_COMM)) && strstr(out, esc(EVIL_CG)), "%s", out);
	free(out);
	free(err);
	ck_assert_msg(run_input(&out, &err, "ldlat-c2c", "--by", "process", "--format", "json",
				NULL) == 0,
		      "%s", err);
	snprintf(expr, sizeof(expr), ".processes | any(.command == %s and .cgroup == %s)",
		 json_lit(EVIL_COMM), json_lit(EVIL_CG));
	assert_jq(out, expr);
	free(out);
	free(err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("escape");
	TCase *unit = tcase_create("writers"), *live = tcase_create("live"),
	      *input = tcase_create("input");
	int failed;

	tcase_add_test(unit, test_unctrl_vs_python);
	tcase_add_test(unit, test_table_cell);
	tcase_add_test(unit, test_notices);
	tcase_add_test(unit, test_folded_frames);
	suite_add_tcase(s, unit);
	tcase_set_timeout(live, 180);
	tcase_add_test(live, test_live_top);
	tcase_add_test(live, test_live_hist_stat_c2c);
	suite_add_tcase(s, live);
	tcase_set_timeout(input, 60);
	tcase_add_test(input, test_input_top);
	tcase_add_test(input, test_input_hist_c2c);
	suite_add_tcase(s, input);
	/* one directory of files for the whole suite, removed at its end */
	setenv("CK_FORK", "no", 1);
	suite_dir_make("escape");
	failed = run_suite(s);
	suite_dir_remove();
	return failed ? 1 : 0;
}
