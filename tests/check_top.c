// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * check_top - ldlat-top's user space without the kernel: the process
 * address-space model, kernel symbols from a kallsyms fixture, ELF
 * symbolization of live and exited processes (a PIE with a shared library,
 * the same program stripped with its debug info found by build ID), the
 * table model, rows, sorting and both output formats.
 */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../user/procmaps.h"
#include "../user/symbolize.h"
#include "testutil.h"

static const char *fixture(const char *name)
{
	static char buf[4][4096];
	static int next;
	const char *dir = getenv("LDLAT_FIXTURES");
	char *p = buf[next++ % 4];

	snprintf(p, 4096, "%s/%s", dir ? dir : "tests/fixtures", name);
	return p;
}

/* ---- procmaps: newest wins, exec, fork -------------------------------------- */

START_TEST(test_procmaps_newest_wins)
{
	struct procmaps pm;
	struct proc *p;
	const struct mapping *m;

	procmaps__init(&pm);
	ck_assert_int_eq(procmaps__add(&pm, 7, 0x1000, 0x9000, 0, "/bin/a", 10), 0);
	/* newer, in the middle: splits the old one in three */
	ck_assert_int_eq(procmaps__add(&pm, 7, 0x3000, 0x4000, 0x100000, "/lib/b", 20), 0);
	p = procmaps__find(&pm, 7);
	ck_assert_int_eq(p->nmaps, 3);
	m = proc__find(p, 0x3800);
	ck_assert_str_eq(m->name, "/lib/b");
	ck_assert_uint_eq(m->pgoff, 0x100000);
	m = proc__find(p, 0x4000);
	ck_assert_str_eq(m->name, "/bin/a");
	ck_assert_uint_eq(m->start, 0x4000);
	ck_assert_uint_eq(m->pgoff, 0x3000); /* the tail keeps its file offset */
	/* older, over everything: fills only the gaps */
	ck_assert_int_eq(procmaps__add(&pm, 7, 0x0, 0xa000, 0, NULL, 5), 0);
	ck_assert_ptr_null(proc__find(p = procmaps__find(&pm, 7), 0x500)->name);
	ck_assert_str_eq(proc__find(p, 0x1000)->name, "/bin/a");
	ck_assert_str_eq(proc__find(p, 0x3fff)->name, "/lib/b");
	ck_assert_ptr_null(proc__find(p, 0x9000)->name);
	ck_assert_ptr_null(proc__find(p, 0xa000));
	ck_assert_int_eq(p->nmaps, 5);
	/* after an exec the new image wins where it maps, the old one stays elsewhere */
	procmaps__exec(&pm, 7, "b", 25);
	ck_assert_int_eq(procmaps__add(&pm, 7, 0x20000, 0x21000, 0, "[heap]", 30), 0);
	ck_assert_int_eq(procmaps__add(&pm, 7, 0x1000, 0x2000, 0, "/bin/b", 30), 0);
	p = procmaps__find(&pm, 7);
	ck_assert_str_eq(proc__find(p, 0x1800)->name, "/bin/b");
	ck_assert_str_eq(proc__find(p, 0x2800)->name, "/bin/a");
	ck_assert_str_eq(p->comm, "b");
	ck_assert_int_eq(procmaps__fork(&pm, 8, 7, 40), 0);
	ck_assert_str_eq(proc__find(procmaps__find(&pm, 8), 0x20010)->name, "[heap]");
	ck_assert_str_eq(procmaps__find(&pm, 8)->comm, "b");
	procmaps__free(&pm);
}
END_TEST

/* /proc/PID/maps fixtures: a proc root with one process */
START_TEST(test_procmaps_read_fixture)
{
	struct procmaps pm;
	struct proc *p;

	procmaps__init(&pm);
	pm.proc_root = fixture("proc");
	ck_assert_int_eq(procmaps__read(&pm, 4242), 0);
	p = procmaps__find(&pm, 4242);
	ck_assert_str_eq(p->comm, "ldlat-workload");
	ck_assert_str_eq(proc__find(p, 0x555555555100)->name, "/usr/bin/ldlat-workload");
	ck_assert_uint_eq(proc__find(p, 0x555555555100)->pgoff, 0x1000);
	ck_assert_str_eq(proc__find(p, 0x55555555a100)->name, "[heap]");
	ck_assert_ptr_null(proc__find(p, 0x555555558100)->name);
	ck_assert_int_eq(procmaps__read(&pm, 4243), -ESRCH);
	ck_assert(procmaps__find(&pm, 4243) == NULL || procmaps__find(&pm, 4243)->exited);
	ck_assert_int_eq(procmaps__read_all(&pm), 1);
	procmaps__free(&pm);
}
END_TEST

/* ---- kallsyms ------------------------------------------------------------ */

START_TEST(test_kallsyms)
{
	struct kallsyms k;
	const struct dso_sym *s;

	ck_assert_int_eq(kallsyms__load(&k, fixture("kallsyms")), 0);
	s = kallsyms__find(&k, 0xffffffff81234567ull, SYM_FUNC);
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(s->name, "clear_page_erms");
	ck_assert_ptr_null(s->module);
	/* a local and a global at one address: the global is kept */
	s = kallsyms__find(&k, 0xffffffff81300010ull, SYM_FUNC);
	ck_assert_str_eq(s->name, "copy_user_generic");
	s = kallsyms__find(&k, 0xffffffffc0001010ull, SYM_FUNC);
	ck_assert_str_eq(s->name, "ext4_file_read_iter");
	ck_assert_str_eq(s->module, "ext4");
	s = kallsyms__find(&k, 0xffffffff82000008ull, SYM_OBJECT);
	ck_assert_str_eq(s->name, "jiffies_64");
	ck_assert_ptr_null(kallsyms__find(&k, 0xffffffff82000008ull, SYM_FUNC));
	/* below every symbol (the direct map) */
	ck_assert_ptr_null(kallsyms__find(&k, 0xffff888000001000ull, SYM_OBJECT));
	kallsyms__free(&k);
	/* unprivileged readers see zeros: no symbol at all rather than wrong ones */
	ck_assert_int_eq(kallsyms__load(&k, fixture("kallsyms.hidden")), 0);
	ck_assert(k.hidden);
	ck_assert_ptr_null(kallsyms__find(&k, 0, SYM_FUNC));
	kallsyms__free(&k);
}
END_TEST

/* ---- ELF symbolization: a live PIE with a shared library, then exited ----- */

struct symprog {
	struct child c;
	char name[16][64];
	unsigned long long addr[16];
	int n;
};

static void symprog_start(struct symprog *sp, const char *binary)
{
	char *argv[] = { (char *)build_path(binary), NULL };
	char *line, *save = NULL;

	memset(sp, 0, sizeof(*sp));
	child_spawn(&sp->c, argv);
	while (!strstr(sp->c.outbuf, "ready\n")) {
		ck_assert_msg(sp->c.out >= 0, "%s ended early: %s", binary, sp->c.errbuf);
		child_pump(&sp->c, 0.1);
	}
	for (line = strtok_r(sp->c.outbuf, "\n", &save); line && sp->n < 16;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%63s %llx", sp->name[sp->n], &sp->addr[sp->n]) == 2)
			sp->n++;
	ck_assert_int_eq(sp->n, 9);
}

static unsigned long long symprog_addr(const struct symprog *sp, const char *name)
{
	int i;

	for (i = 0; i < sp->n; i++)
		if (!strcmp(sp->name[i], name))
			return sp->addr[i];
	ck_abort_msg("no address for %s", name);
	return 0;
}

static void expect_ip(struct symbolizer *z, const struct symprog *sp, const char *func,
		      const char *dso_suffix)
{
	struct sym s;

	symbolizer__ip(z, sp->c.pid, symprog_addr(sp, func), &s);
	ck_assert_msg(s.kind == SYM_RESOLVED && !strcmp(s.name, func), "%s: got %s (%d) in %s",
		      func, s.name, s.kind, s.where);
	ck_assert_int_eq(s.offset, 4);
	ck_assert_msg(strlen(s.where) >= strlen(dso_suffix) &&
			      !strcmp(s.where + strlen(s.where) - strlen(dso_suffix), dso_suffix),
		      "%s in %s", func, s.where);
}

static void expect_data(struct symbolizer *z, const struct symprog *sp, const char *var,
			int offset, const char *where_suffix)
{
	struct sym s;

	symbolizer__data(z, sp->c.pid, symprog_addr(sp, var), 64, &s);
	ck_assert_msg(!strcmp(s.name, var), "%s: got %s (%d) in %s", var, s.name, s.kind, s.where);
	if (offset >= 0)
		ck_assert_int_eq(s.offset, offset);
	ck_assert_msg(strstr(s.where, where_suffix), "%s in %s", var, s.where);
}

static void expect_all(struct symbolizer *z, const struct symprog *sp, const char *prog)
{
	expect_ip(z, sp, "prog_hot", prog);
	expect_ip(z, sp, "prog_static_hot", prog);
	expect_ip(z, sp, "symlib_sum", "/libldlatsym.so");
	expect_data(z, sp, "prog_global", 5000, prog);
	expect_data(z, sp, "prog_static", 100, prog);
	expect_data(z, sp, "prog_data", 24, prog);
	expect_data(z, sp, "symlib_table", 8000, "/libldlatsym.so");
	expect_data(z, sp, "[heap]", -1, "ldlat-symprog");
	expect_data(z, sp, "[stack]", -1, "ldlat-symprog");
}

/* _i: 0 the program with its symbols, 1 stripped with debug info by build ID */
START_TEST(test_symbolize_live_then_exited)
{
	static const char *const progs[] = { "tests/ldlat-symprog", "tests/ldlat-symprog-stripped" };
	struct procmaps pm;
	struct symbolizer z;
	struct symprog sp;
	char debug[4096];

	snprintf(debug, sizeof(debug), "%s", build_path("tests/debug"));
	procmaps__init(&pm);
	ck_assert_int_eq(symbolizer__init(&z, &pm, debug), 0);
	symprog_start(&sp, progs[_i]);
	/* the snapshot is taken while it lives ... */
	ck_assert_int_eq(procmaps__read(&pm, sp.c.pid), 0);
	symbolizer__begin(&z);
	expect_all(&z, &sp, progs[_i] + strlen("tests"));
	/* ... and still names everything once it has exited */
	ck_assert_int_eq(child_finish(&sp.c, 10), 0);
	child_free(&sp.c);
	symbolizer__free(&z);
	ck_assert_int_eq(symbolizer__init(&z, &pm, debug), 0);
	symbolizer__begin(&z);
	expect_all(&z, &sp, progs[_i] + strlen("tests"));
	if (_i)
		ck_assert_ptr_nonnull(strstr(dso_cache__get(&z.dsos, build_path(progs[_i]))->symfile,
					     "/.build-id/"));
	symbolizer__free(&z);
	procmaps__free(&pm);
}
END_TEST

/* The stripped program without its debug info: no static function, no variables. */
START_TEST(test_symbolize_stripped_without_debuginfo)
{
	struct procmaps pm;
	struct symbolizer z;
	struct symprog sp;
	struct sym s;

	procmaps__init(&pm);
	ck_assert_int_eq(symbolizer__init(&z, &pm, "/nonexistent"), 0);
	symprog_start(&sp, "tests/ldlat-symprog-stripped");
	symbolizer__begin(&z);
	symbolizer__ip(&z, sp.c.pid, symprog_addr(&sp, "prog_static_hot"), &s);
	ck_assert_int_eq(s.kind, SYM_MAPPING);
	ck_assert_str_eq(s.name + strspn(s.name, "0x123456789abcdef"), "");
	ck_assert_ptr_nonnull(strstr(s.where, "ldlat-symprog-stripped"));
	symbolizer__data(&z, sp.c.pid, symprog_addr(&sp, "prog_static"), 64, &s);
	ck_assert_int_eq(s.kind, SYM_MAPPING);
	ck_assert_str_eq(s.name, "ldlat-symprog-stripped");
	/* the shared library keeps its symbols */
	expect_ip(&z, &sp, "symlib_sum", "/libldlatsym.so");
	ck_assert_int_eq(child_finish(&sp.c, 10), 0);
	child_free(&sp.c);
	symbolizer__free(&z);
	procmaps__free(&pm);
}
END_TEST

/* A process never seen, and gone: [exited]; an address in no mapping: [unknown]. */
START_TEST(test_symbolize_exited_and_unknown)
{
	struct procmaps pm;
	struct symbolizer z;
	struct sym s;
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
	procmaps__init(&pm);
	ck_assert_int_eq(symbolizer__init(&z, &pm, NULL), 0);
	symbolizer__begin(&z);
	symbolizer__ip(&z, pid, 0x401000, &s);
	ck_assert_int_eq(s.kind, SYM_EXITED);
	ck_assert_str_eq(s.name, "[exited]");
	symbolizer__data(&z, pid, 0x601000, 4096, &s);
	ck_assert_int_eq(s.kind, SYM_EXITED);
	symbolizer__data(&z, getpid(), 0x10, 64, &s);
	ck_assert_int_eq(s.kind, SYM_UNKNOWN);
	ck_assert_str_eq(s.name, "[unknown]");
	symbolizer__free(&z);
	procmaps__free(&pm);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("top");
	TCase *tc = tcase_create("symbols");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_procmaps_newest_wins);
	tcase_add_test(tc, test_procmaps_read_fixture);
	tcase_add_test(tc, test_kallsyms);
	tcase_add_loop_test(tc, test_symbolize_live_then_exited, 0, 2);
	tcase_add_test(tc, test_symbolize_stripped_without_debuginfo);
	tcase_add_test(tc, test_symbolize_exited_and_unknown);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
