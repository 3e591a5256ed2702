// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * check_unwind - user stacks without frame pointers (--call-graph dwarf).
 * The unwind tables user/symbols/unwind.c compiles out of each file's call
 * frame information, against binutils' readelf (tests/suites/unwind_oracle.c)
 * at every address where either changes rules: the test programs built
 * without frame pointers (tests/progs/unwindprog.c), one with .debug_frame
 * and no .eh_frame, libc, the dynamic loader and Debian's sort.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "user/symbols/unwind.h"
#include "tests/suites/unwind_oracle.h"
#include "tests/lib/testutil.h"
#include "kernel/lib/util.h"

static char tmpdir[] = "/tmp/ldlat-unwind.XXXXXX";

static const char *tmp_path(const char *name)
{
	static char buf[4][512];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", tmpdir, name);
	return buf[i];
}

static bool row_eq(const struct ldlat_unwind_row *a, const struct ldlat_unwind_row *b)
{
	return a->kind == b->kind && a->cfa == b->cfa && a->fp == b->fp;
}

static void row_str(char *buf, size_t len, const struct ldlat_unwind_row *r)
{
	snprintf(buf, len, "cfa kind %u off %u, fp kind %u off %d", LDLAT_UNWIND_ROW_CFA(r), r->cfa,
		 LDLAT_UNWIND_ROW_FP(r), r->fp);
}

static int u64_cmp(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * The table of path against readelf's rules at every address where either
 * changes (and the byte before it); returns the addresses compared.
 */
static size_t table_vs_readelf(const char *path, struct unwind_table *t)
{
	struct ldlat_unwind_row none = { .kind = LDLAT_CFA_NONE | LDLAT_FP_SAME << 4 };
	struct unwind_oracle o;
	struct err err = {};
	__u64 *at;
	size_t n = 0, i, bad = 0;
	char msg[256], want[96], got[96];

	ck_assert_msg(unwind_table__compile(t, path, &err) == 0, "%s", err.msg);
	ck_assert_msg(unwind_oracle__read(&o, path, msg, sizeof(msg)) == 0, "%s", msg);
	ck_assert_msg(o.nrows > 0 && t->nrows > 0, "%s: %zu rows from readelf, %u compiled", path,
		      o.nrows, t->nrows);
	at = calloc(2 * (o.nrows + 2 * o.nfdes + t->nrows), sizeof(*at));
	ck_assert_ptr_nonnull(at);
	for (i = 0; i < o.nrows; i++)
		at[n++] = o.rows[i].addr;
	for (i = 0; i < o.nfdes; i++) {
		at[n++] = o.fdes[i].lo;
		at[n++] = o.fdes[i].hi;
	}
	for (i = 0; i < t->nrows; i++)
		at[n++] = t->base + t->rows[i].pc;
	for (i = 0; i < n; i++)
		at[n + i] = at[i] - 1; /* the last byte of the rule before */
	n *= 2;
	qsort(at, n, sizeof(*at), u64_cmp);
	for (i = 0; i < n; i++) {
		const struct ldlat_unwind_row *r;
		struct ldlat_unwind_row w;

		if (i && at[i] == at[i - 1])
			continue;
		r = unwind_table__find(t, at[i]);
		if (!r)
			r = &none;
		w = unwind_oracle__at(&o, at[i]);
		if (!row_eq(r, &w)) {
			if (bad++ < 5) {
				row_str(want, sizeof(want), &w);
				row_str(got, sizeof(got), r);
				fprintf(stderr, "%s: at %#llx readelf says %s, the table %s\n",
					path, (unsigned long long)at[i], want, got);
			}
		}
	}
	ck_assert_msg(!bad, "%s: %zu of %zu addresses differ from readelf's rules", path, bad, n);
	free(at);
	unwind_oracle__free(&o);
	return n;
}

static const char *const table_files[] = {
	"tests/ldlat-unwindprog",
	"tests/libldlatunwind.so",
	"tests/ldlat-unwindprog-debugframe",
	"/lib/x86_64-linux-gnu/libc.so.6",
	"/lib64/ld-linux-x86-64.so.2",
	"/usr/bin/sort",
};

START_TEST(test_table_vs_readelf)
{
	const char *f = table_files[_i];
	const char *path = f[0] == '/' ? f : build_path(f);
	struct unwind_table t;
	size_t n = table_vs_readelf(path, &t);

	ck_assert_msg(n > 20, "%s: %zu addresses", path, n);
	/* glibc's own assembly has a few rules the walker leaves (readelf agrees on them) */
	if (f[0] != '/')
		ck_assert_msg(!t.unsupported, "%s: %u rows the walker cannot evaluate", path,
			      t.unsupported);
	fprintf(stderr,
		"%s: %u rows, %zu addresses as readelf says, %u FDEs (%u .debug_frame), "
		"%u rows unsupported\n",
		path, t.nrows, n, t.fdes, t.fdes_debug, t.unsupported);
	if (strstr(f, "debugframe"))
		ck_assert_msg(t.fdes_debug > 0, "%s: no FDE from .debug_frame", path);
	else
		ck_assert_uint_eq(t.fdes_debug, 0);
	/* the key tables are shared by */
	ck_assert_msg(t.build_id_len == 20, "%s: no build ID", path);
	unwind_table__free(&t);
}
END_TEST

/* Which rows kinds a table has. */
static unsigned int kinds_of(const struct unwind_table *t)
{
	unsigned int m = 0;
	__u32 i;

	for (i = 0; i < t->nrows; i++)
		m |= 1u << LDLAT_UNWIND_ROW_CFA(&t->rows[i]);
	return m;
}

/* The rules the walker needs beyond SP + n: the PLT's, libc's signal frame, RBP-based frames. */
START_TEST(test_table_kinds)
{
	struct unwind_table t;
	struct err err = {};
	unsigned int m;

	ck_assert_msg(unwind_table__compile(&t, build_path("tests/ldlat-unwindprog"), &err) == 0,
		      "%s", err.msg);
	m = kinds_of(&t);
	ck_assert_msg(m & (1u << LDLAT_CFA_PLT), "no PLT row in ldlat-unwindprog");
	ck_assert_msg(m & (1u << LDLAT_CFA_END), "no outermost frame (_start) in ldlat-unwindprog");
	unwind_table__free(&t);
	ck_assert_msg(unwind_table__compile(&t, "/lib/x86_64-linux-gnu/libc.so.6", &err) == 0, "%s",
		      err.msg);
	m = kinds_of(&t);
	ck_assert_msg(m & (1u << LDLAT_CFA_SIGNAL), "no signal frame in libc");
	ck_assert_msg(m & (1u << LDLAT_CFA_FP), "no RBP-based frame in libc");
	unwind_table__free(&t);
}
END_TEST

/* A file without call frame information: -ENODATA, its frames left to frame pointers. */
START_TEST(test_table_no_cfi)
{
	const char *out = tmp_path("nocfi");
	struct unwind_table t;
	struct err err = {};

	ck_assert_int_eq(sh(NULL, NULL,
			    "objcopy --remove-section .eh_frame --remove-section .eh_frame_hdr "
			    "--remove-section .debug_frame '%s' '%s'",
			    build_path("tests/ldlat-unwindprog"), out),
			 0);
	ck_assert_int_eq(unwind_table__compile(&t, out, &err), -ENODATA);
	ck_assert_msg(strstr(err.msg, "no call frame information"), "%s", err.msg);
	ck_assert_int_eq(unwind_table__compile(&t, "/etc/passwd", &err), -ENOEXEC);
	ck_assert_int_eq(unwind_table__compile(&t, tmp_path("absent"), &err), -ENOENT);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("unwind");
	TCase *tc = tcase_create("tables");
	int failed;

	if (!mkdtemp(tmpdir)) {
		perror("check_unwind: mkdtemp");
		return 1;
	}
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_table_vs_readelf, 0, (int)ARRAY_SIZE(table_files));
	tcase_add_test(tc, test_table_kinds);
	tcase_add_test(tc, test_table_no_cfi);
	suite_add_tcase(s, tc);
	failed = run_suite(s);
	sh(NULL, NULL, "rm -rf %s", tmpdir);
	return failed ? 1 : 0;
}
