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
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "user/report/json.h"
#include "user/symbols/procmaps.h"
#include "user/symbols/machine.h"
#include "user/symbols/procwatch.h"
#include "user/symbols/ranges.h"
#include "user/symbols/symbolize.h"
#include "user/symbols/demangle.h"
#include "user/top/topreport.h"
#include "user/top/toptable.h"
#include "tests/lib/clicase.h"
#include "tests/lib/testutil.h"
#include "tests/suites/top_input.h"
#include "kernel/lib/util.h"

static int blocks_of(const char *out, const char *what);

/*
 * Processes that map a file of their own each (a build's temporary files)
 * and exit: once pruned, their names go too, while a live process's names
 * stay, the same pointers.  The interned names stay within twice what the
 * live processes hold, plus a constant, however many came and went.
 */
START_TEST(test_procmaps_names_pruned)
{
	enum { N = 5000 };
	struct procmaps pm;
	const struct proc *live;
	const char *kept;
	char name[64];
	int i;

	procmaps__init(&pm);
	pm.proc_root = NULL;
	ck_assert_int_eq(procmaps__add(&pm, 1, 0x1000, 0x2000, 0, "/usr/lib/libkept.so", 1), 0);
	live = procmaps__find(&pm, 1);
	kept = live->maps[0].name;
	for (i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "/tmp/cc%06d.o", i);
		ck_assert_int_eq(procmaps__add(&pm, 100 + i, 0x1000, 0x2000, 0, name, 2), 0);
		ck_assert_int_eq(
			procmaps__add(&pm, 100 + i, 0x3000, 0x4000, 0, "/usr/lib/libkept.so", 2),
			0);
		procmaps__exit(&pm, 100 + i);
		if (i % 50 == 49) {
			procmaps__next_epoch(&pm);
			procmaps__seal_exited(&pm);
			procmaps__prune_exited(&pm);
		}
	}
	procmaps__next_epoch(&pm);
	procmaps__seal_exited(&pm);
	procmaps__prune_exited(&pm);
	ck_assert_msg(pm.nstrings < 600, "%zu names kept for 1 live process", pm.nstrings);
	ck_assert_ptr_eq(procmaps__find(&pm, 1)->maps[0].name, kept);
	ck_assert_str_eq(kept, "/usr/lib/libkept.so");
	ck_assert_ptr_eq(procmaps__intern(&pm, "/usr/lib/libkept.so"), kept);
	ck_assert_ptr_null(procmaps__find(&pm, 100));
	procmaps__free(&pm);
}
END_TEST

/*
 * A process found gone by a read of /proc after the generation switched
 * (a report naming a frame it had not learned) may have samples in the
 * generation being written: pruned then, those samples lost its name and
 * mappings ("[pid N]", "[unknown]" frames).  It is pruned only once sealed
 * (at the next switch); a PID a new process takes is not sealed.
 */
START_TEST(test_procmaps_late_exit_kept)
{
	char root[] = "/tmp/ldlat-procroot-XXXXXX";
	struct procmaps pm;
	struct proc *p;

	ck_assert_ptr_nonnull(mkdtemp(root));
	procmaps__init(&pm);
	pm.proc_root = root; /* no process under it: every read finds it gone */
	ck_assert_int_eq(procmaps__add(&pm, 9, 0x1000, 0x2000, 0, "/bin/nine", 1), 0);
	procmaps__exec(&pm, 9, "nine", 1);
	ck_assert_int_eq(procmaps__read(&pm, 9), -ESRCH);
	ck_assert(procmaps__find(&pm, 9)->exited);
	procmaps__prune_exited(&pm);
	p = procmaps__find(&pm, 9);
	ck_assert_msg(p, "a process found gone after the switch was pruned");
	ck_assert_str_eq(p->comm, "nine");
	ck_assert_str_eq(proc__find(p, 0x1800)->name, "/bin/nine");
	/* the next switch seals it: reported, it goes */
	procmaps__next_epoch(&pm);
	procmaps__seal_exited(&pm);
	procmaps__prune_exited(&pm);
	ck_assert_ptr_null(procmaps__find(&pm, 9));
	/* sealed, then its PID reused by a fork and an exec: the new process is not */
	ck_assert_int_eq(procmaps__add(&pm, 10, 0x1000, 0x2000, 0, "/bin/ten", 2), 0);
	procmaps__exit(&pm, 10);
	procmaps__exit(&pm, 11);
	ck_assert_int_eq(procmaps__add(&pm, 11, 0x1000, 0x2000, 0, "/bin/eleven", 2), 0);
	procmaps__exit(&pm, 11);
	procmaps__next_epoch(&pm);
	procmaps__seal_exited(&pm);
	ck_assert_int_eq(procmaps__fork(&pm, 10, 1, 3), 0);
	procmaps__exec(&pm, 11, "eleven2", 3);
	procmaps__exit(&pm, 10);
	procmaps__exit(&pm, 11);
	procmaps__prune_exited(&pm);
	ck_assert_ptr_nonnull(procmaps__find(&pm, 10));
	ck_assert_ptr_nonnull(procmaps__find(&pm, 11));
	procmaps__free(&pm);
	ck_assert_int_eq(rmdir(root), 0);
}
END_TEST

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
	procmaps__exit(&pm, 7);
	procmaps__next_epoch(&pm);
	procmaps__seal_exited(&pm);
	procmaps__prune_exited(&pm);
	ck_assert_ptr_null(procmaps__find(&pm, 7));
	ck_assert_ptr_nonnull(procmaps__find(&pm, 8));
	procmaps__free(&pm);
}
END_TEST

/* One side-band record through the live path (machine__process of a live machine). */
static void sb_rec(struct machine *m, __u32 type, __u32 pid, __u32 ppid, __u64 t, __u64 addr,
		   __u64 len, const char *str, bool exec)
{
	struct sideband_rec r = { .type = type,
				  .pid = pid,
				  .tid = pid,
				  .ppid = ppid,
				  .time = t,
				  .addr = addr,
				  .len = len,
				  .exec = exec,
				  .str = str };

	ck_assert_int_eq(machine__process(m, &r), 0);
}

/*
 * A PID reused while the side band still holds its earlier process (the
 * EXIT applied but not yet pruned, or lost): the new process, forked from
 * another program, has that program's mappings and name, none of the dead
 * one's.  A /proc read of the new process done before its FORK record was
 * applied stays; an exec in a PID whose process had exited (its FORK lost)
 * starts over too.
 */
START_TEST(test_procmaps_pid_reused)
{
	struct machine w;
	struct procmaps *pm = &w.pm;
	const struct proc *p;
	int pid;

	machine__init(&w, MACHINE_LIVE);
	pm->proc_root = NULL;
	/* the parent, 200: /bin/b, learned early (t 5) */
	sb_rec(&w, PERF_RECORD_MMAP2, 200, 1, 5, 0x1000, 0x2000, "/bin/b", false);
	sb_rec(&w, PERF_RECORD_COMM, 200, 1, 6, 0, 0, "b", false);
	/* 300 and 301 exit; 302 too, but its EXIT was lost */
	for (pid = 300; pid <= 302; pid++) {
		sb_rec(&w, PERF_RECORD_MMAP2, pid, 1, 10, 0x1000, 0x1000, "/bin/dead", false);
		sb_rec(&w, PERF_RECORD_MMAP2, pid, 1, 10, 0x7000, 0x1000, "/lib/libdead.so", false);
		sb_rec(&w, PERF_RECORD_COMM, pid, 1, 11, 0, 0, "dead", false);
		if (pid != 302)
			sb_rec(&w, PERF_RECORD_EXIT, pid, 1, 20, 0, 0, NULL, false);
	}
	/* 301's new process read from /proc (t 35) before its FORK record (t 30) */
	ck_assert_int_eq(procmaps__add(pm, 301, 0x9000, 0xa000, 0, "[stack]", 35), 0);
	for (pid = 300; pid <= 302; pid++) {
		sb_rec(&w, PERF_RECORD_FORK, pid, 200, 30, 0, 0, NULL, false);
		p = procmaps__find(pm, pid);
		ck_assert_ptr_nonnull(p);
		ck_assert(!p->exited);
		ck_assert_ptr_null(proc__find(p, 0x7800));
		ck_assert_ptr_nonnull(proc__find(p, 0x1800));
		ck_assert_str_eq(proc__find(p, 0x1800)->name, "/bin/b");
		ck_assert_str_eq(proc__find(p, 0x2800)->name, "/bin/b");
		ck_assert_int_eq(p->nmaps, pid == 301 ? 2 : 1);
		if (pid != 301)
			ck_assert_str_eq(p->comm, "b");
	}
	ck_assert_str_eq(proc__find(procmaps__find(pm, 301), 0x9800)->name, "[stack]");
	/* 303 exits; its PID's next process is first seen at its exec */
	sb_rec(&w, PERF_RECORD_MMAP2, 303, 1, 10, 0x7000, 0x1000, "/lib/libdead.so", false);
	sb_rec(&w, PERF_RECORD_EXIT, 303, 1, 20, 0, 0, NULL, false);
	sb_rec(&w, PERF_RECORD_COMM, 303, 1, 30, 0, 0, "c", true);
	sb_rec(&w, PERF_RECORD_MMAP2, 303, 1, 31, 0x1000, 0x1000, "/bin/c", false);
	p = procmaps__find(pm, 303);
	ck_assert(!p->exited);
	ck_assert_str_eq(p->comm, "c");
	ck_assert_ptr_null(proc__find(p, 0x7800));
	ck_assert_str_eq(proc__find(p, 0x1800)->name, "/bin/c");
	ck_assert_int_eq(p->nmaps, 1);
	/* a live process's exec keeps its older mappings where the new image maps nothing */
	sb_rec(&w, PERF_RECORD_COMM, 200, 1, 40, 0, 0, "b2", true);
	sb_rec(&w, PERF_RECORD_MMAP2, 200, 1, 41, 0x1000, 0x1000, "/bin/b2", false);
	p = procmaps__find(pm, 200);
	ck_assert_str_eq(proc__find(p, 0x1800)->name, "/bin/b2");
	ck_assert_str_eq(proc__find(p, 0x2800)->name, "/bin/b");
	machine__free(&w);
}
END_TEST

/*
 * A process found exited in one read of the side band (its EXIT applied, or
 * /proc found it gone when the read had exec's maps read again) may still
 * have records of its own to come in the next read: a FORK it wrote into
 * another CPU's ring, or after that read and before it died.  Sealed and
 * pruned at once, its child, applied in the next read, had none of its
 * mappings: a shell's subshell that execs nothing, all its samples
 * "[exited]".  It is sealed only once a read of the side band has begun
 * after it was found exited: the child then has its mappings, and the
 * parent goes at the switch after.
 */
START_TEST(test_procmaps_exit_settles)
{
	struct machine w;
	struct procmaps *pm = &w.pm;
	const struct proc *p;

	machine__init(&w, MACHINE_LIVE);
	pm->proc_root = NULL;
	/* a read of the side band: the parent, 400, maps /bin/sh; 401 too, then exits */
	procmaps__next_epoch(pm);
	sb_rec(&w, PERF_RECORD_MMAP2, 400, 1, 5, 0x1000, 0x2000, "/bin/sh", false);
	sb_rec(&w, PERF_RECORD_COMM, 400, 1, 6, 0, 0, "sh", false);
	sb_rec(&w, PERF_RECORD_FORK, 401, 400, 7, 0, 0, NULL, false);
	sb_rec(&w, PERF_RECORD_EXIT, 401, 400, 8, 0, 0, NULL, false);
	/* 400's EXIT (t 20) is in this read, its FORK of 402 (t 10) in the next */
	sb_rec(&w, PERF_RECORD_EXIT, 400, 1, 20, 0, 0, NULL, false);
	/* the switch: what exited in an earlier read is sealed, the rest waits */
	procmaps__seal_exited(pm);
	procmaps__prune_exited(pm);
	ck_assert_msg(procmaps__find(pm, 400),
		      "a process was pruned in the read that found it exited");
	procmaps__next_epoch(pm);
	sb_rec(&w, PERF_RECORD_FORK, 402, 400, 10, 0, 0, NULL, false);
	p = procmaps__find(pm, 402);
	ck_assert_ptr_nonnull(p);
	ck_assert(p->known);
	ck_assert_str_eq(proc__find(p, 0x1800)->name, "/bin/sh");
	ck_assert_str_eq(p->comm, "sh");
	/* the next switch seals both exited processes */
	procmaps__seal_exited(pm);
	procmaps__prune_exited(pm);
	ck_assert_ptr_null(procmaps__find(pm, 400));
	ck_assert_ptr_null(procmaps__find(pm, 401));
	ck_assert_ptr_nonnull(procmaps__find(pm, 402));
	machine__free(&w);
}
END_TEST

/* One side-band record of thread tid of process pid, through the live path. */
static void sb_thread_rec(struct machine *m, __u32 type, __u32 pid, __u32 ppid, __u32 tid, __u64 t,
			  __u64 addr, __u64 len, const char *str)
{
	struct sideband_rec r = { .type = type,
				  .pid = pid,
				  .tid = tid,
				  .ppid = ppid,
				  .time = t,
				  .addr = addr,
				  .len = len,
				  .str = str };

	ck_assert_int_eq(machine__process(m, &r), 0);
}

/*
 * A thread's records as the kernel writes them (kernel/events/core.c:
 * perf_event_task, perf_event_comm, perf_event_mmap): its FORK carries its
 * process's PID as pid and ppid and its own ID as tid; the name it gives
 * itself, a COMM without exec; what it maps, an MMAP2 of its process; its
 * EXIT, its own tid.  None of them is its process's birth, name or death:
 * the process keeps its mappings (the thread's too), its name and its life.
 * A process the thread forks (pid == tid, its parent the thread's process)
 * starts with those mappings and that name.
 */
START_TEST(test_procwatch_threads)
{
	struct machine w;
	struct procmaps *pm = &w.pm;
	const struct proc *p;
	int pid;

	machine__init(&w, MACHINE_LIVE);
	pm->proc_root = NULL;
	sb_thread_rec(&w, PERF_RECORD_MMAP2, 500, 500, 500, 5, 0x1000, 0x2000, "/bin/app");
	sb_thread_rec(&w, PERF_RECORD_COMM, 500, 500, 500, 6, 0, 0, "app");
	sb_thread_rec(&w, PERF_RECORD_FORK, 500, 500, 501, 10, 0, 0, NULL);
	sb_thread_rec(&w, PERF_RECORD_COMM, 500, 500, 501, 11, 0, 0, "worker");
	sb_thread_rec(&w, PERF_RECORD_MMAP2, 500, 500, 501, 12, 0x8000, 0x1000, "/lib/libw.so");
	sb_thread_rec(&w, PERF_RECORD_FORK, 600, 500, 600, 13, 0, 0, NULL);
	sb_thread_rec(&w, PERF_RECORD_EXIT, 500, 500, 501, 14, 0, 0, NULL);
	for (pid = 500; pid <= 600; pid += 100) {
		p = procmaps__find(pm, pid);
		ck_assert_ptr_nonnull(p);
		ck_assert_msg(!p->exited, "process %d exited with its thread", pid);
		ck_assert_str_eq(p->comm, "app");
		ck_assert_ptr_nonnull(proc__find(p, 0x1800));
		ck_assert_str_eq(proc__find(p, 0x1800)->name, "/bin/app");
		ck_assert_ptr_nonnull(proc__find(p, 0x8800));
		ck_assert_str_eq(proc__find(p, 0x8800)->name, "/lib/libw.so");
	}
	/* the main thread's exit is the process's */
	sb_thread_rec(&w, PERF_RECORD_EXIT, 500, 500, 500, 20, 0, 0, NULL);
	ck_assert(procmaps__find(pm, 500)->exited);
	ck_assert(!procmaps__find(pm, 600)->exited);
	machine__free(&w);
}
END_TEST

/*
 * procmaps__add against a model of one owner per page: over 3,000 random
 * mappings of random times (newest wins, equal times: the later), every page
 * names the mapping, file offset and time the model does, and the list stays
 * sorted and disjoint.  Then a fork copies it all.
 */
START_TEST(test_procmaps_model)
{
	enum { PAGES = 96, PG = 0x1000, OPS = 3000 };
	static const char *names[] = { NULL, "/bin/a", "/lib/b", "[heap]", "/lib/c" };
	struct {
		int name;	 /* -1: nothing mapped */
		__u64 time, off; /* file offset of the page */
	} model[PAGES];
	struct procmaps pm;
	const struct proc *p;
	const struct mapping *m;
	unsigned int seed = 12345;
	int op, i, pid;

	procmaps__init(&pm);
	for (i = 0; i < PAGES; i++)
		model[i].name = -1;
	for (op = 0; op < OPS; op++) {
		int lo = rand_r(&seed) % PAGES, len = 1 + rand_r(&seed) % 12,
		    name = rand_r(&seed) % 5;
		int hi = lo + len > PAGES ? PAGES : lo + len;
		__u64 t = 1 + rand_r(&seed) % 400, pgoff = (__u64)(rand_r(&seed) % 64) * PG;

		ck_assert_int_eq(procmaps__add(&pm, 7, (__u64)lo * PG, (__u64)hi * PG, pgoff,
					       names[name], t),
				 0);
		for (i = lo; i < hi; i++) {
			if (model[i].name >= 0 && model[i].time > t)
				continue;
			model[i].name = name;
			model[i].time = t;
			model[i].off = pgoff + (__u64)(i - lo) * PG;
		}
	}
	for (pid = 7; pid <= 8; pid++) {
		p = procmaps__find(&pm, pid);
		ck_assert_ptr_nonnull(p);
		for (i = 1; i < p->nmaps; i++)
			ck_assert(p->maps[i - 1].end <= p->maps[i].start);
		for (i = 0; i < PAGES; i++) {
			m = proc__find(p, (__u64)i * PG + 0x10);
			if (model[i].name < 0) {
				ck_assert_ptr_null(m);
				continue;
			}
			ck_assert_ptr_nonnull(m);
			if (names[model[i].name])
				ck_assert_str_eq(m->name, names[model[i].name]);
			else
				ck_assert_ptr_null(m->name);
			ck_assert_uint_eq(m->time, model[i].time);
			ck_assert_uint_eq(m->pgoff + ((__u64)i * PG - m->start), model[i].off);
		}
		if (pid == 7)
			ck_assert_int_eq(procmaps__fork(&pm, 8, 7, 500), 0);
	}
	procmaps__free(&pm);
}
END_TEST

/* The function named at a file address of d, or "". */
static const char *func_at(const struct dso *d, __u64 vaddr)
{
	const struct dso_sym *f = dso__func(d, vaddr);

	return f ? f->name : "";
}

/* The address objdump gives a symbol, as perf names it. */
static __u64 objdump_addr(const char *path, const char *name)
{
	char *out = NULL;
	__u64 a = 0;

	ck_assert_int_eq(sh(&out, NULL, "objdump -d %s | sed -n 's/^\\([0-9a-f]*\\) <%s>:$/\\1/p'",
			    path, name),
			 0);
	a = strtoull(out, NULL, 16);
	free(out);
	ck_assert_msg(a, "objdump has no %s in %s", name, path);
	return a;
}

/*
 * Names as perf gives them: C++ and Rust (legacy) demangled (C++ without its
 * parameters by default; with them, as c++filt, or mangled on request), a PLT stub as
 * sym@plt, a label of size 0 in code (tests/progs/names.c); addresses from
 * objdump and nm, not from the code under test.
 */
START_TEST(test_dso_names)
{
	const char *path = build_path("tests/ldlat-names");
	struct dso_cache c;
	struct dso *d;
	char *out = NULL;
	__u64 lookup, walk, zero;

	ck_assert_int_eq(dso_cache__init(&c, NULL), 0);
	d = dso_cache__get(&c, path);
	ck_assert(d && d->elf);
	ck_assert_int_eq(
		sh(&out, NULL, "nm %s | awk '/_ZN5ldlat5Table6lookupEi$/ {print $1}'", path), 0);
	lookup = strtoull(out, NULL, 16);
	free(out);
	ck_assert_int_eq(sh(&out, NULL, "nm %s | awk '/walk17h/ {print $1}'", path), 0);
	walk = strtoull(out, NULL, 16);
	free(out);
	ck_assert_int_eq(sh(&out, NULL, "nm %s | awk '$3 == \"zero_label\" {print $1}'", path), 0);
	zero = strtoull(out, NULL, 16);
	free(out);
	ck_assert(lookup && walk && zero);
	ck_assert_str_eq(func_at(d, lookup + 1), "ldlat::Table::lookup");
	ck_assert_str_eq(func_at(d, walk), "ldlat::rust::walk");
	ck_assert_str_eq(func_at(d, zero + 2), "zero_label");
	ck_assert_str_eq(func_at(d, objdump_addr(path, "getpid@plt") + 6), "getpid@plt");
	ck_assert_str_eq(func_at(d, objdump_addr(path, "printf@plt")), "printf@plt");
	dso_cache__free(&c);
	/* the other styles, read afresh (a DSO keeps the names it was read with) */
	demangle__set_style(DEMANGLE_FULL);
	ck_assert_int_eq(dso_cache__init(&c, NULL), 0);
	d = dso_cache__get(&c, path);
	ck_assert_str_eq(func_at(d, lookup + 1), "ldlat::Table::lookup(int)");
	ck_assert_str_eq(func_at(d, walk), "ldlat::rust::walk");
	dso_cache__free(&c);
	demangle__set_style(DEMANGLE_NO);
	ck_assert_int_eq(dso_cache__init(&c, NULL), 0);
	d = dso_cache__get(&c, path);
	ck_assert_str_eq(func_at(d, lookup + 1), "_ZN5ldlat5Table6lookupEi");
	dso_cache__free(&c);
	demangle__set_style(DEMANGLE_SHORT);
}
END_TEST

/*
 * A relocatable object (a .o a linker maps while it reads it, seen by a
 * system-wide run) is not a file whose symbols name process addresses: it
 * is left unread.  libdwfl relocates such a file through a section_address
 * callback when asked for its ELF handle; without one it jumped to address
 * 0 (ldlat-top died of SIGSEGV beside a build).  A device file is not
 * opened at all.
 */
START_TEST(test_dso_not_loadable)
{
	const char *obj = build_path("obj/user/symbols/mapsline.o");
	struct dso_cache c;
	struct dso *d;

	ck_assert_int_eq(access(obj, R_OK), 0);
	ck_assert_int_eq(dso_cache__init(&c, NULL), 0);
	d = dso_cache__get(&c, obj);
	ck_assert(d && !d->elf && !d->nfuncs);
	d = dso_cache__get(&c, "/dev/zero");
	ck_assert(d && !d->elf);
	/* the executable beside it still is read */
	d = dso_cache__get(&c, build_path("tests/ldlat-names"));
	ck_assert(d && d->elf && d->nfuncs > 0);
	dso_cache__free(&c);
}
END_TEST

/*
 * The DSO cache past its bound forgets the names it could not read (one per
 * temporary file a busy machine maps), and keeps the ELF files, the same
 * pointers.
 */
START_TEST(test_dso_cache_trimmed)
{
	struct dso_cache c;
	struct dso *names;
	char path[64];
	int i;

	ck_assert_int_eq(dso_cache__init(&c, NULL), 0);
	names = dso_cache__get(&c, build_path("tests/ldlat-names"));
	ck_assert(names && names->elf);
	for (i = 0; i < 3000; i++) {
		snprintf(path, sizeof(path), "/tmp/ldlat-no-such-file-%d.o", i);
		ck_assert(dso_cache__get(&c, path));
		dso_cache__trim(&c, 1024);
		ck_assert_uint_le(c.n, 1025);
	}
	ck_assert_ptr_eq(dso_cache__get(&c, build_path("tests/ldlat-names")), names);
	dso_cache__free(&c);
}
END_TEST

/*
 * A table a burst grew keeps its memory while the reports stay as large,
 * and gives it back once one holds under a quarter of it; it fills again
 * as before.
 */
START_TEST(test_top_table_shrinks)
{
	struct ldlat_top_val v = { .count = 1 };
	struct top_table t;
	__u64 a;

	top_table__init(&t);
	for (a = 0; a < 20000; a++)
		ck_assert_int_eq(top_table__merge(&t, 1, a * 64, &v), 0);
	ck_assert_uint_ge(t.cap, 20000);
	top_table__reset(&t);
	for (a = 0; a < 20000; a++)
		ck_assert_int_eq(top_table__merge(&t, 1, a * 64, &v), 0);
	ck_assert_uint_ge(t.cap, 20000); /* as large again: kept */
	top_table__reset(&t);
	for (a = 0; a < 10; a++)
		ck_assert_int_eq(top_table__merge(&t, 2, a * 64, &v), 0);
	top_table__reset(&t);
	ck_assert_uint_le(t.cap, TOP_TABLE_KEEP);
	ck_assert_int_eq(top_table__merge(&t, 3, 64, &v), 0);
	ck_assert_int_eq(top_table__merge(&t, 3, 64, &v), 0);
	ck_assert_uint_eq(t.n, 1);
	ck_assert_uint_eq(t.e[0].count, 2);
	top_table__free(&t);
}
END_TEST

/*
 * On a terminal of 80 columns every row fits (columns dropped, names
 * shortened); into a pipe the rows keep every column, wider than 80.
 */
START_TEST(test_top_terminal_width)
{
	char *out = NULL;

	ck_assert_int_eq(
		sh(&out, NULL,
		   "script -qec 'stty cols 80; %s --input %s -n 0 2>/dev/null' /dev/null | "
		   "tr -d '\\r' | awk '{ if (length($0) > m) m = length($0) } END { print m }'",
		   build_path("ldlat-top"), "tests/fuzz/corpus/recorded.data"),
		0);
	ck_assert_int_le(atoi(out), 80);
	ck_assert_int_gt(atoi(out), 60);
	free(out);
	ck_assert_int_eq(sh(&out, NULL,
			    "%s --input %s -n 0 2>/dev/null | awk '{ if (length($0) > m) m = "
			    "length($0) } END { print m }'",
			    build_path("ldlat-top"), "tests/fuzz/corpus/recorded.data"),
			 0);
	ck_assert_int_gt(atoi(out), 100);
	free(out);
	ck_assert_int_eq(sh(&out, NULL, "%s --input %s --format json 2>/dev/null",
			    build_path("ldlat-top"), "tests/fuzz/corpus/recorded.data"),
			 0);
	/* every data row says where it starts */
	ck_assert(jq_true(out, "all(.data.rows[]; .address | test(\"^0x[0-9a-f]+$\"))"));
	free(out);
}
END_TEST

/*
 * -a NAME takes a variable of the target's ELF files, as the data rows name
 * it: its start and size (nm -S's), in the process (a maps file with the
 * program at a known base).
 */
START_TEST(test_range_variable)
{
	const char *prog = build_path("tests/ldlat-bigtouch");
	char maps[] = "/tmp/ldlat-top-maps-XXXXXX", *out = NULL;
	struct range_set set = {};
	struct vm_bounds b = {};
	struct err err = {};
	unsigned long long start, size;
	FILE *f;
	int fd = mkstemp(maps);

	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	fprintf(f, "555555554000-555555555000 r--p 00000000 08:01 42 %s\n", prog);
	fprintf(f, "555555555000-555555556000 r-xp 00001000 08:01 42 %s\n", prog);
	fclose(f);
	ck_assert_int_eq(sh(&out, NULL, "nm -S %s | awk '$4 == \"big_b\" {print $1, $2}'", prog),
			 0);
	ck_assert_int_eq(sscanf(out, "%llx %llx", &start, &size), 2);
	free(out);
	ck_assert_int_eq(range_set__add(&set, "big_b", &err), 0);
	ck_assert_msg(range_set__resolve_maps(&set, maps, &b, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(set.nspans, 1);
	ck_assert_uint_eq(set.span[0].lo, 0x555555554000ull + start);
	ck_assert_uint_eq(set.span[0].hi, 0x555555554000ull + start + size);
	memset(&set, 0, sizeof(set));
	ck_assert_int_eq(range_set__add(&set, "no_such_variable", &err), 0);
	ck_assert_int_eq(range_set__resolve_maps(&set, maps, &b, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "no mapping 'no_such_variable'"));
	unlink(maps);
}
END_TEST

/*
 * --input reads a file much larger than what it keeps in a window of it,
 * in every tool: 2,000,000 samples (176 MB) in under 64 MiB, where mapping
 * the whole file would hold all of it (ldlat-hist and ldlat-c2c held 176
 * MB: only ldlat-top gave the pages back).  ldlat-c2c reads perf c2c
 * record's layout (64 lines), whose tables do not grow with the file.
 */
static const struct {
	const char *tool, *args, *gen;
} bounded[] = {
	{ "ldlat-top", "--by ip -n 3", "" },
	{ "ldlat-hist", "", "" },
	{ "ldlat-c2c", "-n 3", "--c2c" },
};

START_TEST(test_input_bounded)
{
	char dir[] = "/tmp/ldlat-top-big-XXXXXX", *out = NULL;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(sh(NULL, NULL, "%s %s --samples 2000000 %s/perf.data",
			    build_path("tests/gen-perfdata"), bounded[_i].gen, dir),
			 0);
	ck_assert_int_eq(sh(&out, NULL,
			    "/usr/bin/time -f %%M -o %s/rss %s --input %s/perf.data %s "
			    ">/dev/null 2>&1 && cat %s/rss && stat -c %%s %s/perf.data",
			    dir, build_path(bounded[_i].tool), dir, bounded[_i].args, dir, dir),
			 0);
	{
		long kb = 0, bytes = 0;

		ck_assert_int_eq(sscanf(out, "%ld %ld", &kb, &bytes), 2);
		ck_assert_int_gt(bytes, 150L << 20);
		ck_assert_msg(kb < 64 * 1024, "%s: peak RSS %ld KiB reading %ld bytes",
			      bounded[_i].tool, kb, bytes);
	}
	free(out);
	sh(NULL, NULL, "rm -rf %s", dir);
}
END_TEST

/* /proc/PID/maps fixtures: a proc root with one process */
START_TEST(test_procmaps_read_fixture)
{
	struct procmaps pm;
	struct proc *p;

	procmaps__init(&pm);
	pm.proc_root = fixture_path("proc");
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

	ck_assert_int_eq(kallsyms__load(&k, fixture_path("kallsyms")), 0);
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
	ck_assert_int_eq(kallsyms__load(&k, fixture_path("kallsyms.hidden")), 0);
	ck_assert(k.hidden);
	ck_assert_ptr_null(kallsyms__find(&k, 0, SYM_FUNC));
	kallsyms__free(&k);
}
END_TEST

/* A lookup in a file opened (read as far as needed) against the same lookup in the whole file. */
static void kallsyms_same(struct kallsyms *whole, struct kallsyms *lazy, __u64 a, const char *path,
			  const char *how)
{
	int kind;

	for (kind = SYM_FUNC; kind <= SYM_OBJECT; kind++) {
		const struct dso_sym *w = kallsyms__find(whole, a, kind),
				     *l = kallsyms__find(lazy, a, kind);

		ck_assert_msg(!w == !l, "%s, %s: 0x%llx kind %d: %s whole, %s read in part", path,
			      how, (unsigned long long)a, kind, w ? w->name : "none",
			      l ? l->name : "none");
		if (!w)
			continue;
		ck_assert_msg(!strcmp(w->name, l->name) && w->start == l->start &&
				      w->size == l->size && w->kind == l->kind &&
				      !w->module == !l->module &&
				      (!w->module || !strcmp(w->module, l->module)),
			      "%s, %s: 0x%llx: %s+%llu [%s] whole, %s+%llu [%s] read in part", path,
			      how, (unsigned long long)a, w->name, (unsigned long long)w->size,
			      w->module ? w->module : "", l->name, (unsigned long long)l->size,
			      l->module ? l->module : "");
	}
}

static int u64__cmp(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * Every symbol's start, the addresses beside it, and others no symbol
 * starts at, from `from` up, asked of a file opened to be read in part (in
 * rising order, falling, shuffled, and one opened for each: the first
 * lookup reads), answered as the whole file answers them: name, start,
 * size, kind, module.
 */
static void kallsyms_lazy_file(const char *path, int fresh_every, __u64 from)
{
	static const __u64 fixed[] = { 0,
				       1,
				       0x1000,
				       0x1800,
				       0xffff888000001000ull,
				       1ull << 63,
				       0xfffffe0000006010ull,
				       0xffffffff80000000ull,
				       0xffffffff80ff0010ull,
				       0xffffffff81000000ull,
				       0xffffffffc0000000ull,
				       0xffffffffc0001090ull,
				       0xffffffffc0001100ull,
				       0xffffffffffffffffull };
	struct kallsyms whole, lazy;
	__u64 *addr, t;
	size_t n = 0, i, j;
	unsigned int seed = 12345;

	ck_assert_int_eq(kallsyms__load(&whole, path), 0);
	addr = malloc((3 * (size_t)whole.n + ARRAY_SIZE(fixed)) * sizeof(*addr));
	ck_assert_ptr_nonnull(addr);
	for (i = 0; i < ARRAY_SIZE(fixed); i++)
		addr[n++] = fixed[i];
	for (i = 0; i < (size_t)whole.n; i++) {
		addr[n++] = whole.syms[i].start - 1;
		addr[n++] = whole.syms[i].start;
		addr[n++] = whole.syms[i].start + 1;
	}
	for (i = j = 0; i < n; i++)
		if (addr[i] >= from)
			addr[j++] = addr[i];
	n = j;
	qsort(addr, n, sizeof(*addr), u64__cmp);

	ck_assert_int_eq(kallsyms__open(&lazy, path), 0);
	for (i = 0; i < n; i++)
		kallsyms_same(&whole, &lazy, addr[i], path, "rising");
	kallsyms__free(&lazy);
	ck_assert_int_eq(kallsyms__open(&lazy, path), 0);
	for (i = n; i-- > 0;)
		kallsyms_same(&whole, &lazy, addr[i], path, "falling");
	kallsyms__free(&lazy);
	for (i = n; i > 1; i--) {
		seed = seed * 1103515245u + 12345u;
		j = (seed >> 8) % i;
		t = addr[i - 1];
		addr[i - 1] = addr[j];
		addr[j] = t;
	}
	ck_assert_int_eq(kallsyms__open(&lazy, path), 0);
	for (i = 0; i < n; i++)
		kallsyms_same(&whole, &lazy, addr[i], path, "shuffled");
	kallsyms__free(&lazy);
	for (i = 0; i < n; i += (size_t)fresh_every) {
		ck_assert_int_eq(kallsyms__open(&lazy, path), 0);
		kallsyms_same(&whole, &lazy, addr[i], path, "first asked");
		kallsyms__free(&lazy);
	}
	free(addr);
	kallsyms__free(&whole);
}

START_TEST(test_kallsyms_read_in_part)
{
	static const struct {
		const char *name;
		__u64 from;
	} fixtures[] = {
		{ "kallsyms", 0 },
		{ "kallsyms.hidden", 0 },
		{ "kallsyms.modules", 0 },
		/*
		 * not the kernel's order: its a_func after b_func is read, and
		 * the whole file then, by an address at or above b_func (below
		 * it, no file read in part can know a_func comes)
		 */
		{ "kallsyms.unsorted", 0xffffffff81300000ull },
	};
	char copy[] = "/tmp/ldlat-kallsyms-XXXXXX", buf[65536];
	struct kallsyms whole, lazy;
	FILE *in, *out;
	size_t i, len;
	int fd;

	for (i = 0; i < ARRAY_SIZE(fixtures); i++) {
		char *path = strdup(fixture_path(fixtures[i].name));

		kallsyms_lazy_file(path, 1, fixtures[i].from);
		free(path);
	}
	/* this machine's: a copy (BPF programs come and go in /proc's), then /proc's itself */
	fd = mkstemp(copy);
	ck_assert_int_ge(fd, 0);
	out = fdopen(fd, "w");
	in = fopen("/proc/kallsyms", "re");
	ck_assert_ptr_nonnull(out);
	ck_assert_ptr_nonnull(in);
	while ((len = fread(buf, 1, sizeof(buf), in)) > 0)
		ck_assert_uint_eq(fwrite(buf, 1, len, out), len);
	fclose(in);
	ck_assert_int_eq(fclose(out), 0);
	kallsyms_lazy_file(copy, 4001, 0);
	/* the kernel's own symbols do not move: named from /proc as from the copy */
	ck_assert_int_eq(kallsyms__load(&whole, copy), 0);
	ck_assert_int_eq(kallsyms__open(&lazy, NULL), 0);
	for (i = 0; i + 1 < (size_t)whole.n; i += 7)
		if (!whole.syms[i].module && !whole.syms[i + 1].module)
			kallsyms_same(&whole, &lazy, whole.syms[i].start + whole.syms[i].size / 2,
				      "/proc/kallsyms", "rising");
	kallsyms__free(&lazy);
	kallsyms__free(&whole);
	unlink(copy);
}
END_TEST

/* ---- ELF symbolization: a live PIE with a shared library, then exited ----- */

struct symprog {
	struct child c;
	char name[16][64];
	unsigned long long addr[16];
	int n;
};

/* Starts the program at path and reads the addresses it prints. */
static void symprog_start_path(struct symprog *sp, const char *path)
{
	char *argv[] = { (char *)path, NULL };
	char *line, *save = NULL;

	memset(sp, 0, sizeof(*sp));
	child_spawn(&sp->c, argv);
	while (!strstr(sp->c.outbuf, "ready\n")) {
		ck_assert_msg(sp->c.out >= 0, "%s ended early: %s", path, sp->c.errbuf);
		child_pump(&sp->c, 0.1);
	}
	for (line = strtok_r(sp->c.outbuf, "\n", &save); line && sp->n < 16;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%63s %llx", sp->name[sp->n], &sp->addr[sp->n]) == 2)
			sp->n++;
	ck_assert_int_eq(sp->n, 9);
}

static void symprog_start(struct symprog *sp, const char *binary)
{
	symprog_start_path(sp, build_path(binary));
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

static void expect_data(struct symbolizer *z, const struct symprog *sp, const char *var, int offset,
			const char *where_suffix)
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
	static const char *const progs[] = { "tests/ldlat-symprog",
					     "tests/ldlat-symprog-stripped" };
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
		ck_assert_ptr_nonnull(strstr(
			dso_cache__get(&z.dsos, build_path(progs[_i]))->symfile, "/.build-id/"));
	symbolizer__free(&z);
	procmaps__free(&pm);
}
END_TEST

/*
 * Live, a program whose file was deleted after its mappings were read: named
 * through /proc/PID/map_files/ while it lives (root: the kernel lets only
 * CAP_SYS_ADMIN read those links), its DSO marked "(deleted)"; once it has
 * exited, its addresses stay unnamed, still marked, with one note on stderr
 * for the file however many addresses are asked for.
 */
START_TEST(test_symbolize_deleted)
{
	char dir[128], prog[192], notes[192], *text, *err, *p;
	struct procmaps pm;
	struct symbolizer z;
	struct symprog sp;
	struct sym s;
	int fd, saved, n = 0;
	bool root = need_root("reading /proc/PID/map_files/");

	snprintf(dir, sizeof(dir), "/tmp/ldlat-top-deleted-%d", getpid());
	snprintf(prog, sizeof(prog), "%s/ldlat-symprog", dir);
	snprintf(notes, sizeof(notes), "%s/notes", dir);
	ck_assert_int_eq(sh(NULL, NULL, "rm -rf %s && mkdir %s && cp %s %s %s/", dir, dir,
			    build_path("tests/ldlat-symprog"), build_path("tests/libldlatsym.so"),
			    dir),
			 0);
	procmaps__init(&pm);
	ck_assert_int_eq(symbolizer__init(&z, &pm, "/nonexistent"), 0);
	z.note_tool = "check_top";
	symprog_start_path(&sp, prog);
	ck_assert_int_eq(procmaps__read(&pm, sp.c.pid), 0);
	ck_assert_int_eq(unlink(prog), 0);
	symbolizer__begin(&z);
	if (root) {
		expect_ip(&z, &sp, "prog_hot", "/ldlat-symprog (deleted)");
		expect_data(&z, &sp, "prog_global", 5000, "/ldlat-symprog");
	}
	expect_ip(&z, &sp, "symlib_sum", "/libldlatsym.so");
	ck_assert_int_eq(child_finish(&sp.c, 10), 0);
	child_free(&sp.c);
	procmaps__exit(&pm, sp.c.pid);
	symbolizer__free(&z);
	ck_assert_int_eq(symbolizer__init(&z, &pm, "/nonexistent"), 0);
	z.note_tool = "check_top";
	symbolizer__begin(&z);
	fflush(stderr);
	saved = dup(2);
	fd = open(notes, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert(saved >= 0 && fd >= 0);
	dup2(fd, 2);
	close(fd);
	symbolizer__ip(&z, sp.c.pid, symprog_addr(&sp, "prog_hot"), &s);
	symbolizer__ip(&z, sp.c.pid, symprog_addr(&sp, "prog_static_hot"), &s);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	ck_assert_int_eq(s.kind, SYM_MAPPING);
	ck_assert_msg(strstr(s.where, "/ldlat-symprog (deleted)"), "%s", s.where);
	ck_assert_int_eq(sh(&text, &err, "cat %s", notes), 0);
	free(err);
	for (p = text; (p = strstr(p, "check_top: note: ")); p++)
		n++;
	ck_assert_msg(n == 1 && strstr(text, "/ldlat-symprog (deleted): ") &&
			      strstr(text, "its addresses are not named"),
		      "%s", text);
	free(text);
	symbolizer__free(&z);
	procmaps__free(&pm);
	ck_assert_int_eq(sh(NULL, NULL, "rm -rf %s", dir), 0);
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

/* Maps the ELF build/<name> into process tgid at base the way the kernel's ELF loader does. */
static struct dso *map_like_exec(struct symbolizer *z, pid_t tgid, __u64 base, const char *name)
{
	const __u64 page = 4096;
	struct dso *d = dso_cache__get(&z->dsos, build_path(name));
	int i;

	ck_assert(d && d->elf && d->nsegs >= 2);
	for (i = 0; i < d->nsegs; i++) {
		const struct dso_seg *g = &d->segs[i];
		__u64 lo = g->vaddr & ~(page - 1),
		      file_end = (g->vaddr + g->filesz + page - 1) & ~(page - 1),
		      mem_end = (g->vaddr + g->memsz + page - 1) & ~(page - 1);

		ck_assert_int_eq(procmaps__add(z->pm, tgid, base + lo, base + file_end,
					       g->offset & ~(page - 1), d->path, 1),
				 0);
		if (mem_end > file_end)
			ck_assert_int_eq(procmaps__add(z->pm, tgid, base + file_end, base + mem_end,
						       0, NULL, 1),
					 0);
	}
	return d;
}

/*
 * A snapshot taken at exec, before the dynamic loader made the RELRO page
 * read-only: the data segment's mapping starts at a file page the
 * read-only segment maps too, and .bss is the anonymous mapping after it.
 * Each variable of ldlat-topprog, laid out the way the kernel's ELF loader
 * maps it, names itself.
 */
START_TEST(test_symbolize_at_exec_layout)
{
	const __u64 base = 0x555555554000ull;
	struct procmaps pm;
	struct symbolizer z;
	struct dso *d;
	struct sym s;
	int i, n = 0;

	procmaps__init(&pm);
	ck_assert_int_eq(symbolizer__init(&z, &pm, NULL), 0);
	d = map_like_exec(&z, 99999999, base, "tests/ldlat-topprog");
	ck_assert(d->nobjs >= 3);
	symbolizer__begin(&z);
	for (i = 0; i < d->nobjs; i++) {
		/* its first and its last byte */
		symbolizer__data(&z, 99999999, base + d->objs[i].start, 1, &s);
		ck_assert_msg(s.kind == SYM_RESOLVED && !strcmp(s.name, d->objs[i].name) &&
				      !s.offset,
			      "%s: got %s%+lld", d->objs[i].name, s.name, (long long)s.offset);
		symbolizer__data(&z, 99999999, base + d->objs[i].start + d->objs[i].size - 1, 1,
				 &s);
		ck_assert_msg(s.kind == SYM_RESOLVED && !strcmp(s.name, d->objs[i].name),
			      "%s (end): got %s", d->objs[i].name, s.name);
		n += !strncmp(s.name, "array_", 6);
	}
	ck_assert_int_eq(n, 3);
	symbolizer__free(&z);
	procmaps__free(&pm);
}
END_TEST

/*
 * A file that is not an ELF, mapped from a non-zero offset: data addresses in
 * it are named by their offset in the file (the mapping's pgoff added).
 */
START_TEST(test_symbolize_file_offset)
{
	const __u64 lo = 0x7f1234560000ull;
	struct procmaps pm;
	struct symbolizer z;
	struct sym s;

	procmaps__init(&pm);
	ck_assert_int_eq(symbolizer__init(&z, &pm, NULL), 0);
	ck_assert_int_eq(procmaps__add(&pm, 99999998, lo, lo + 0x4000, 0x3000,
				       "/nonexistent/ldlat-data.bin", 1),
			 0);
	symbolizer__begin(&z);
	symbolizer__data(&z, 99999998, lo + 0x1010, 1, &s);
	ck_assert_int_eq(s.kind, SYM_MAPPING);
	ck_assert_msg(!strncmp(s.name, "/nonexistent/ldlat-data.bin", 27), "%s", s.name);
	ck_assert_int_eq(s.offset, 0x3000 + 0x1010);
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

/* ---- tables filled natively (a perf.data reader's path), rows, sorting, output ---- */

static __u64 sym_start(const struct dso_sym *syms, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(syms[i].name, name))
			return syms[i].start;
	ck_abort_msg("no symbol %s", name);
	return 0;
}

static char *render(const struct top_view *r, const struct top_rows *ip,
		    const struct top_rows *data, const struct snapshot *snap, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	if (json)
		top_render_json(f, r, ip, data, snap);
	else
		top_render_text(f, r, ip, data, snap);
	fclose(f);
	return buf;
}

/* Every key of t holds what want (nkeys values, key k at address k << 6) says. */
static void table_is(const struct top_table *t, const struct ldlat_top_val *want, size_t nkeys)
{
	struct ldlat_top_val got;
	size_t k, n = 0;

	for (k = 0; k < nkeys; k++) {
		const struct top_entry *e = top_table__find(t, 7, (__u64)k << 6);

		if (!want[k].count) {
			ck_assert_ptr_null(e);
			continue;
		}
		ck_assert_ptr_nonnull(e);
		top_table__val(t, e, &got);
		ck_assert_msg(!memcmp(&got, &want[k], sizeof(got)),
			      "key %zu: count %llu/%llu, lat_sum %llu/%llu, unknown %u/%u", k,
			      (unsigned long long)got.count, (unsigned long long)want[k].count,
			      (unsigned long long)got.lat_sum, (unsigned long long)want[k].lat_sum,
			      got.cls[LDLAT_CLASS_UNKNOWN], want[k].cls[LDLAT_CLASS_UNKNOWN]);
		n++;
	}
	ck_assert_uint_eq(t->n, n);
}

static bool key_odd(const struct top_entry *e, void *ctx)
{
	(void)ctx;
	return (e->addr >> 6) & 1;
}

/*
 * A table keeps a count alone per key while every sample has no latency and
 * one class (page faults: unknown), and the whole value from the first that
 * does not: each key's value is what the BPF program's ldlat_top_account
 * adds up for it, sample by sample, before and after the table widens (a
 * sample of another class, one with latency, a merged value of two classes),
 * through a removal that moves entries and a reset.
 */
START_TEST(test_top_table_slim)
{
	enum { NKEYS = 3000 };
	static struct ldlat_top_val want[NKEYS], other;
	struct top_table t;
	size_t k, round;

	for (round = 0; round < 4; round++) {
		top_table__init(&t);
		memset(want, 0, sizeof(want));
		for (k = 0; k < 2 * NKEYS; k++) {
			size_t key = (k * 7919) % NKEYS;

			ck_assert_int_eq(top_table__add_sample(&t, 7, (__u64)key << 6, 0,
							       LDLAT_CLASS_UNKNOWN),
					 0);
			ldlat_top_account(&want[key], 0, LDLAT_CLASS_UNKNOWN);
		}
		/* 24 bytes a key while every sample is a count alone */
		ck_assert_ptr_null(t.wide);
		ck_assert_uint_eq(sizeof(t.e[0]), 24);
		table_is(&t, want, NKEYS);
		/* a sample taken back out of each fifth key, a count alone still */
		for (k = 0; k < NKEYS; k += 5) {
			top_table__unaccount(
				&t, (struct top_entry *)top_table__find(&t, 7, (__u64)k << 6), 0,
				LDLAT_CLASS_UNKNOWN);
			want[k].count--;
			want[k].cls[LDLAT_CLASS_UNKNOWN]--;
		}
		ck_assert_ptr_null(t.wide);
		table_is(&t, want, NKEYS);
		if (round == 0) { /* a sample of another class */
			ck_assert_int_eq(top_table__add_sample(&t, 7, 5 << 6, 0, LDLAT_CLASS_L1),
					 0);
			ldlat_top_account(&want[5], 0, LDLAT_CLASS_L1);
		} else if (round == 1) { /* one with latency, of a new key */
			ck_assert_int_eq(
				top_table__add_sample(&t, 7, 9 << 6, 300, LDLAT_CLASS_UNKNOWN), 0);
			ldlat_top_account(&want[9], 300, LDLAT_CLASS_UNKNOWN);
		} else if (round == 2) { /* a merged value of two classes */
			memset(&other, 0, sizeof(other));
			ldlat_top_account(&other, 0, LDLAT_CLASS_UNKNOWN);
			ldlat_top_account(&other, 0, LDLAT_CLASS_L2);
			ck_assert_int_eq(top_table__merge(&t, 7, 11 << 6, &other), 0);
			top_val__add(&want[11], &other);
		} else { /* a sample of no class counted */
			ck_assert_int_eq(top_table__add_sample(&t, 7, 13 << 6, 0, LDLAT_NCLASS), 0);
			ldlat_top_account(&want[13], 0, LDLAT_NCLASS);
		}
		ck_assert_ptr_nonnull(t.wide);
		table_is(&t, want, NKEYS);
		for (k = 0; k < NKEYS; k += 3) {
			ck_assert_int_eq(
				top_table__add_sample(&t, 7, (__u64)k << 6, k, LDLAT_CLASS_L3), 0);
			ldlat_top_account(&want[k], k, LDLAT_CLASS_L3);
		}
		table_is(&t, want, NKEYS);
		/* an L3 sample of latency k taken back out of each fifteenth key (the maximum stays) */
		for (k = 0; k < NKEYS; k += 15) {
			top_table__unaccount(
				&t, (struct top_entry *)top_table__find(&t, 7, (__u64)k << 6), k,
				LDLAT_CLASS_L3);
			want[k].count--;
			want[k].lat_sum -= k;
			want[k].cls[LDLAT_CLASS_L3]--;
		}
		table_is(&t, want, NKEYS);
		/* the odd keys leave: the entries (and their wide parts) move down */
		top_table__remove_if(&t, key_odd, NULL);
		for (k = 1; k < NKEYS; k += 2)
			memset(&want[k], 0, sizeof(want[k]));
		table_is(&t, want, NKEYS);
		top_table__free(&t);
	}
	/* a slim table of unknown samples, reset, takes samples of another class slim */
	top_table__init(&t);
	ck_assert_int_eq(top_table__add_sample(&t, 7, 1 << 6, 0, LDLAT_CLASS_UNKNOWN), 0);
	top_table__reset(&t);
	memset(want, 0, sizeof(want));
	ck_assert_int_eq(top_table__add_sample(&t, 7, 1 << 6, 0, LDLAT_CLASS_L1), 0);
	ldlat_top_account(&want[1], 0, LDLAT_CLASS_L1);
	ck_assert_ptr_null(t.wide);
	table_is(&t, want, 2);
	top_table__free(&t);
}
END_TEST

/*
 * A table bounded to 3 keys: a sample of a fourth key is counted in capped,
 * one of a key it holds is added; keys held outside it (exited processes'
 * rows) count; a reset keeps the bound.
 */
START_TEST(test_top_table_max_keys)
{
	struct ldlat_top_val v = { .count = 7 };
	struct top_table t;
	__u64 a;

	top_table__init(&t);
	t.max = 3;
	for (a = 1; a <= 5; a++)
		ck_assert_int_eq(top_table__add_sample(&t, 1, a << 12, 0, 0), 0);
	ck_assert_uint_eq(t.n, 3);
	ck_assert_uint_eq(t.capped, 2);
	ck_assert_ptr_null(top_table__find(&t, 1, 4 << 12));
	ck_assert_int_eq(top_table__add_sample(&t, 1, 1 << 12, 0, 0), 0);
	ck_assert_uint_eq(top_table__find(&t, 1, 1 << 12)->count, 2);
	ck_assert_int_eq(top_table__merge(&t, 2, 1 << 12, &v), 0);
	ck_assert_uint_eq(t.capped, 9);
	ck_assert_uint_eq(top_table__samples(&t) + t.capped, 5 + 1 + 7);
	top_table__reset(&t);
	ck_assert_uint_eq(t.max, 3);
	ck_assert_uint_eq(t.capped, 0);
	t.held = 2;
	ck_assert_int_eq(top_table__add_sample(&t, 1, 1 << 12, 0, 0), 0);
	ck_assert_int_eq(top_table__add_sample(&t, 1, 2 << 12, 0, 0), 0);
	ck_assert_uint_eq(t.n, 1);
	ck_assert_uint_eq(t.capped, 1);
	ck_assert_uint_le(t.cap, 3);
	top_table__free(&t);
}
END_TEST

START_TEST(test_report_native_tables)
{
	const __u64 base = 0x555555554000ull;
	struct source src = { .kind = SOURCE_LDLAT };
	struct run_info run = { .tool = "ldlat-top", .event = "cpu/mem-loads,ldlat=30/P" };
	struct top_view rep = { .by = TOP_BY_BOTH,
				.nrows = -1,
				.shift = 6,
				.has_latency = true,
				.run = &run,
				.src = &src };
	struct top_table ip, data;
	struct top_rows ipr, datar;
	struct snapshot snap = {};
	struct procmaps pm;
	struct symbolizer z;
	struct dso *d;
	__u64 a, b, arr;
	char *text;

	procmaps__init(&pm);
	ck_assert_int_eq(symbolizer__init(&z, &pm, NULL), 0);
	z.kallsyms_path = fixture_path("kallsyms");
	d = map_like_exec(&z, 4321, base, "tests/ldlat-topprog");
	snprintf(procmaps__get(&pm, 4321)->comm, 16, "ldlat-topprog");
	a = base + sym_start(d->funcs, d->nfuncs, "touch_a") + 2;
	b = base + sym_start(d->funcs, d->nfuncs, "touch_b") + 2;
	arr = base + sym_start(d->objs, d->nobjs, "array_a");
	top_table__init(&ip);
	top_table__init(&data);
	/* touch_a: 3 L3 hits of 100 cycles; touch_b: 400 (L3) and 500 (RAM) cycles */
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(top_table__add_sample(&ip, 4321, a + i, 100, LDLAT_CLASS_L3), 0);
	ck_assert_int_eq(top_table__add_sample(&ip, 4321, b, 400, LDLAT_CLASS_L3), 0);
	ck_assert_int_eq(top_table__add_sample(&ip, 4321, b, 500, LDLAT_CLASS_LOCAL_RAM), 0);
	ck_assert_int_eq(
		top_table__add_sample(&ip, 0, 0xffffffff81234567ull, 1000, LDLAT_CLASS_REMOTE_HITM),
		0);
	ip.full = 4;
	/* array_a: lines +0x0, +0x40 (twice), +0x1000; and a block in no mapping */
	ck_assert_int_eq(top_table__add_sample(&data, 4321, arr, 10, LDLAT_CLASS_L1), 0);
	ck_assert_int_eq(top_table__add_sample(&data, 4321, arr + 64, 300, LDLAT_CLASS_LOCAL_RAM),
			 0);
	ck_assert_int_eq(top_table__add_sample(&data, 4321, arr + 64, 100, LDLAT_CLASS_LOCAL_RAM),
			 0);
	ck_assert_int_eq(top_table__add_sample(&data, 4321, arr + 4096, 20, LDLAT_CLASS_L2), 0);
	ck_assert_int_eq(top_table__add_sample(&data, 4321, 0x1000, 20, LDLAT_CLASS_L2), 0);

	ck_assert_int_eq(top_rows__ip(&ipr, &ip, &z, NULL), 0);
	ck_assert_uint_eq(ipr.n, 3);
	ck_assert_uint_eq(ipr.total, 10);
	top_rows__sort(&ipr, TOP_SORT_SAMPLES);
	ck_assert_str_eq(ipr.r[0].name, "touch_a");
	ck_assert_uint_eq(ipr.r[0].v.count, 3);
	top_rows__sort(&ipr, TOP_SORT_LATENCY);
	ck_assert_str_eq(ipr.r[0].name, "clear_page_erms");
	ck_assert(ipr.r[0].kernel);
	ck_assert_str_eq(ipr.r[1].name, "touch_b");
	ck_assert_uint_eq(ipr.r[1].v.lat_max, 500);
	top_rows__sort(&ipr, TOP_SORT_TOTAL);
	ck_assert_str_eq(ipr.r[0].name, "clear_page_erms");
	ck_assert_str_eq(ipr.r[1].name, "touch_b"); /* 900 cycles in all, touch_a 300 */

	ck_assert_int_eq(top_rows__data(&datar, &data, &z, 6, TOP_DATA_OBJECT, NULL), 0);
	top_rows__sort(&datar, TOP_SORT_SAMPLES);
	ck_assert_uint_eq(datar.n, 2);
	ck_assert_str_eq(datar.r[0].name, "array_a");
	ck_assert_uint_eq(datar.r[0].v.count, 4);
	ck_assert_uint_eq(datar.r[0].blocks, 3);
	ck_assert_int_eq(datar.r[0].offset, 0x40); /* the hottest line */
	ck_assert_uint_eq(top_val__dominant(&datar.r[0].v), LDLAT_CLASS_LOCAL_RAM);
	ck_assert_str_eq(datar.r[1].name, "[unknown]");

	rep.sort = TOP_SORT_SAMPLES;
	text = render(&rep, &ipr, &datar, &snap, false);
	ck_assert_ptr_nonnull(strstr(text, "[.] touch_a "));
	ck_assert_ptr_nonnull(strstr(text, "[k] clear_page_erms "));
	ck_assert_ptr_nonnull(strstr(text, "[kernel.kallsyms]"));
	ck_assert_ptr_nonnull(strstr(
		text, "4 samples not attributed: table and spill ring full, raise --entries"));
	ck_assert_ptr_nonnull(strstr(text, "L3 hit 50%")); /* touch_b: shared with local RAM */
	ck_assert_int_eq(count_for(text, " array_a "), 4);
	ck_assert_ptr_nonnull(strstr(text, "+0x40 "));
	free(text);
	text = render(&rep, &ipr, &datar, &snap, true);
	ck_assert(jq_true(
		text,
		"[.code.rows[] | select(.function == \"touch_b\") | "
		"[.mean_latency, .max_latency, .source, .sources.l3]] == [[450, 500, \"l3\", 1]]"));
	ck_assert(jq_true(text, ".code.not_attributed.table_full == 4 and .code.samples == 10"));
	ck_assert(jq_true(
		text,
		".tool == \"ldlat-top\" and .event == \"cpu/mem-loads,ldlat=30/P\" "
		"and .source == \"ldlat\" and .latency and .counters.dropped.below_min == 0"));
	ck_assert(jq_true(text, ".data.rows[0] | .object == \"array_a\" and .hottest_offset == 64 "
				"and .blocks == 3 and .kind == \"variable\""));
	free(text);
	top_rows__free(&datar);
	ck_assert_int_eq(top_rows__data(&datar, &data, &z, 6, TOP_DATA_BLOCK, NULL), 0);
	ck_assert_uint_eq(datar.n, 4);
	top_rows__free(&datar);
	top_rows__free(&ipr);
	top_table__free(&ip);
	top_table__free(&data);
	symbolizer__free(&z);
	procmaps__free(&pm);
}
END_TEST

/* The data table of test_early_rows: two processes of one program, 4322 exited. */
static void early_table(struct top_table *data, __u64 arr)
{
	top_table__init(data);
	ck_assert_int_eq(top_table__add_sample(data, 4321, arr, 10, LDLAT_CLASS_L1), 0);
	ck_assert_int_eq(top_table__add_sample(data, 4321, arr + 64, 30, LDLAT_CLASS_L1), 0);
	ck_assert_int_eq(top_table__add_sample(data, 4321, arr + 64, 30, LDLAT_CLASS_L1), 0);
	ck_assert_int_eq(top_table__add_sample(data, 4322, arr + 64, 30, LDLAT_CLASS_L1), 0);
	ck_assert_int_eq(top_table__add_sample(data, 4322, arr + 4096, 20, LDLAT_CLASS_L2), 0);
	ck_assert_int_eq(top_table__add_sample(data, 4322, 0x1000, 20, LDLAT_CLASS_L2), 0);
}

/*
 * The rows of an exited process, named early, are the rows the report
 * would have made of its entries: its line of array_a that the live
 * process touched too is one line (3 samples, the hottest), array_a
 * holds 5 samples in 3 lines, the address in no mapping is [unknown]; by
 * line, 4 rows; the report takes the early rows (they are left empty) and
 * prints what it prints with every process live.
 */
START_TEST(test_early_rows)
{
	const __u64 base = 0x555555554000ull;
	struct source src = { .kind = SOURCE_LDLAT };
	struct run_info run = { .tool = "ldlat-top", .event = "cpu/mem-loads,ldlat=30/P" };
	struct top_view rep = { .by = TOP_BY_DATA,
				.nrows = -1,
				.shift = 6,
				.has_latency = true,
				.run = &run,
				.src = &src };
	struct top_rows early = {}, datar, all;
	struct snapshot snap = {};
	struct top_table data;
	struct procmaps pm;
	struct symbolizer z;
	struct dso *d;
	char *text[2][2];
	__u64 arr;
	int by, exited;

	procmaps__init(&pm);
	ck_assert_int_eq(symbolizer__init(&z, &pm, NULL), 0);
	z.kallsyms_path = fixture_path("kallsyms");
	d = map_like_exec(&z, 4321, base, "tests/ldlat-topprog");
	map_like_exec(&z, 4322, base, "tests/ldlat-topprog");
	snprintf(procmaps__get(&pm, 4321)->comm, 16, "ldlat-topprog");
	snprintf(procmaps__get(&pm, 4322)->comm, 16, "ldlat-topprog");
	arr = base + sym_start(d->objs, d->nobjs, "array_a");
	for (by = 0; by < 2; by++) {
		enum top_data_by db = by ? TOP_DATA_BLOCK : TOP_DATA_OBJECT;

		for (exited = 0; exited < 2; exited++) {
			early_table(&data, arr);
			procmaps__get(&pm, 4322)->exited = exited;
			ck_assert_int_eq(
				top_rows__take_exited(&early, &data, &z, TOP_BY_DATA, NULL, 6), 0);
			ck_assert_uint_eq(early.n, exited ? 3 : 0);
			ck_assert_uint_eq(data.n, exited ? 2 : 5);
			ck_assert_int_eq(top_rows__data(&datar, &data, &z, 6, db, &early), 0);
			ck_assert_uint_eq(early.n, 0);
			top_rows__sort(&datar, TOP_SORT_SAMPLES);
			ck_assert_uint_eq(datar.total, 6);
			if (!by) {
				ck_assert_uint_eq(datar.n, 2);
				ck_assert_str_eq(datar.r[0].name, "array_a");
				ck_assert_uint_eq(datar.r[0].v.count, 5);
				ck_assert_uint_eq(datar.r[0].blocks, 3);
				ck_assert_int_eq(datar.r[0].offset, 0x40);
				ck_assert_uint_eq(datar.r[0].hot, 3);
				ck_assert_str_eq(datar.r[1].name, "[unknown]");
			} else {
				ck_assert_uint_eq(datar.n, 4);
				ck_assert_uint_eq(datar.r[0].v.count, 3);
				ck_assert_int_eq(datar.r[0].offset, 0x40);
			}
			rep.data_by = db;
			all = (struct top_rows){ 0 };
			text[by][exited] = render(&rep, &all, &datar, &snap, by);
			top_rows__free(&datar);
			top_rows__free(&early);
			top_table__free(&data);
		}
		ck_assert_str_eq(text[by][1], text[by][0]);
		free(text[by][0]);
		free(text[by][1]);
	}
	symbolizer__free(&z);
	procmaps__free(&pm);
}
END_TEST

/*
 * A slim data table of 4 processes: two of one program (its variable
 * array_a, mapped at two addresses, and the same anonymous addresses: one
 * block each), one of another name at those addresses, one whose pages are
 * in no mapping; 20,000
 * samples of lines and pages drawn at random, process 4322 exited or not.
 */
static void slim_table(struct top_table *data, const __u64 *arr, unsigned int seed)
{
	static const pid_t who[] = { 4321, 4322, 4323, 4324 };
	int i;

	top_table__init(data);
	for (i = 0; i < 20000; i++) {
		int w = rand_r(&seed) % 4;
		pid_t p = who[w];
		unsigned int r = rand_r(&seed);
		__u64 a;

		switch (r % 3) {
		case 0:
			a = arr[w] + (r >> 4) % 4096;
			break;
		case 1:
			a = 0x7f0000000000ull + (r >> 4) % (1u << 20);
			break;
		default:
			a = 0x7f0000100000ull + ((r >> 4) % 64) * 4096;
			break;
		}
		ck_assert_int_eq(top_table__add_sample(data, (__u32)p, ldlat_top_block(a, 6), 0,
						       LDLAT_CLASS_UNKNOWN),
				 0);
	}
}

/*
 * Object rows of a table of counts alone are made from slim blocks, a row
 * per object, and an exited process's early rows are blocks: the same rows,
 * field by field and in the same order, as the row-per-entry ways
 * (top_rows__take_exited_each, top_rows__data_each) make, with and without
 * an exited process (or two, whose blocks fold together), and the same
 * text and JSON; so are block rows, and
 * object rows of a table that took a sample with latency after.
 */
START_TEST(test_data_rows_slim)
{
	const __u64 base = 0x555555554000ull;
	struct source src = { .kind = SOURCE_PAGE_FAULTS };
	struct run_info run = { .tool = "ldlat-top", .event = "page-faults" };
	struct top_view rep = {
		.by = TOP_BY_DATA, .nrows = -1, .shift = 6, .run = &run, .src = &src
	};
	struct top_rows early[2], rows[2], none = { 0 };
	struct snapshot snap = {};
	struct top_table data[2];
	struct procmaps pm;
	struct symbolizer z;
	struct dso *d;
	char *text[2];
	__u64 arr[4];
	int exited, k, json, mode;
	size_t i;

	procmaps__init(&pm);
	pm.proc_root = NULL; /* these processes are the test's: none is read from /proc */
	ck_assert_int_eq(symbolizer__init(&z, &pm, NULL), 0);
	z.kallsyms_path = fixture_path("kallsyms");
	d = map_like_exec(&z, 4321, base, "tests/ldlat-topprog");
	map_like_exec(&z, 4322, base + 0x10000000, "tests/ldlat-topprog");
	map_like_exec(&z, 4323, base, "tests/ldlat-topprog");
	for (k = 0; k < 3; k++) {
		ck_assert_int_eq(procmaps__add(&pm, 4321 + k, 0x7f0000000000ull, 0x7f0000100000ull,
					       0, NULL, 1),
				 0);
		ck_assert_int_eq(procmaps__add(&pm, 4321 + k, 0x7f0000100000ull, 0x7f0000140000ull,
					       0, "[heap]", 1),
				 0);
		snprintf(procmaps__get(&pm, 4321 + k)->comm, 16,
			 k == 2 ? "other" : "ldlat-topprog");
	}
	procmaps__get(&pm, 4324);
	for (k = 0; k < 4; k++)
		arr[k] = base + sym_start(d->objs, d->nobjs, "array_a") + (k == 1 ? 0x10000000 : 0);
	/* mode 0: object rows; 1: block rows; 2: object rows of a table widened after */
	for (mode = 0; mode < 3; mode++)
		for (exited = 0; exited < 3; exited++) {
			enum top_data_by db = mode == 1 ? TOP_DATA_BLOCK : TOP_DATA_OBJECT;

			for (k = 0; k < 2; k++) {
				memset(&early[k], 0, sizeof(early[k]));
				slim_table(&data[k], arr, 42);
				ck_assert_ptr_null(data[k].wide);
				procmaps__get(&pm, 4322)->exited = exited > 0;
				procmaps__get(&pm, 4321)->exited = exited > 1;
				/* a report finds 4324 gone (no mapping): live again here */
				procmaps__get(&pm, 4324)->exited = false;
				/* the reference: rows named and folded one per entry */
				ck_assert_int_eq(
					(k ? top_rows__take_exited_each : top_rows__take_exited)(
						&early[k], &data[k], &z, TOP_BY_DATA, NULL, 6),
					0);
				ck_assert_uint_eq(top_rows__held(&early[k]) > 0, exited > 0);
				ck_assert_uint_eq(data[k].n, data[0].n);
			}
			ck_assert_uint_eq(early[0].n, 0); /* blocks, not rows */
			ck_assert_uint_eq(top_rows__held(&early[0]), early[1].n);
			for (k = 0; k < 2 && mode == 2; k++) {
				ck_assert_int_eq(top_table__add_sample(&data[k], 4321, arr[0], 7,
								       LDLAT_CLASS_L1),
						 0);
				ck_assert_ptr_nonnull(data[k].wide);
			}
			ck_assert_int_eq(top_rows__data(&rows[0], &data[0], &z, 6, db, &early[0]),
					 0);
			ck_assert_int_eq(
				top_rows__data_each(&rows[1], &data[1], &z, 6, db, &early[1]), 0);
			ck_assert_uint_eq(early[0].n, 0);
			ck_assert_uint_ge(rows[1].n, 6);
			ck_assert_uint_eq(rows[0].n, rows[1].n);
			ck_assert_uint_eq(rows[0].total, rows[1].total);
			ck_assert_uint_eq(rows[0].total, mode == 2 ? 20001 : 20000);
			for (i = 0; i < rows[1].n; i++) {
				const struct top_row *g = &rows[0].r[i], *w = &rows[1].r[i];

				ck_assert_str_eq(g->name, w->name);
				ck_assert_str_eq(g->where, w->where);
				ck_assert_msg(
					g->kind == w->kind && g->kernel == w->kernel &&
						g->offset == w->offset && g->start == w->start &&
						g->blocks == w->blocks && g->hot == w->hot,
					"row %zu (%s in %s): offset %lld/%lld, start "
					"0x%llx/0x%llx, "
					"blocks %llu/%llu, hot %llu/%llu",
					i, w->name, w->where, (long long)g->offset,
					(long long)w->offset, (unsigned long long)g->start,
					(unsigned long long)w->start, (unsigned long long)g->blocks,
					(unsigned long long)w->blocks, (unsigned long long)g->hot,
					(unsigned long long)w->hot);
				ck_assert_mem_eq(&g->v, &w->v, sizeof(g->v));
			}
			for (json = 0; json < 2; json++) {
				rep.data_by = db;
				rep.has_latency = mode == 2;
				for (k = 0; k < 2; k++) {
					top_rows__sort(&rows[k], TOP_SORT_SAMPLES);
					text[k] = render(&rep, &none, &rows[k], &snap, json);
				}
				ck_assert_str_eq(text[0], text[1]);
				free(text[0]);
				free(text[1]);
			}
			for (k = 0; k < 2; k++) {
				top_rows__free(&rows[k]);
				top_rows__free(&early[k]);
				top_table__free(&data[k]);
			}
		}
	symbolizer__free(&z);
	procmaps__free(&pm);
}
END_TEST

START_TEST(test_json_writer)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json j;

	json__init(&j, f);
	json__object_begin(&j, NULL);
	json__string(&j, "a\"b", "x\ny\\z\001");
	json__array_begin(&j, "list");
	json__u64(&j, NULL, 18446744073709551615ull);
	json__i64(&j, NULL, -64);
	json__double(&j, NULL, 0.0 / 0.0);
	json__bool(&j, NULL, true);
	json__null(&j, NULL);
	json__object_begin(&j, NULL);
	json__object_end(&j);
	json__array_end(&j);
	json__double(&j, "d", 2.5);
	json__object_end(&j);
	json__end_line(&j);
	fclose(f);
	ck_assert_str_eq(
		buf, "{\"a\\\"b\":\"x\\ny\\\\z\\u0001\",\"list\":[18446744073709551615,-64,null,"
		     "true,null,{}],\"d\":2.5}\n");
	ck_assert(jq_true(buf, ".list[0] > 0 and .d == 2.5"));
	free(buf);
}
END_TEST

/* ---- ldlat-top end to end (root): page faults of a program with known pages ---- */

static const char *topprog(void)
{
	return build_path("tests/ldlat-topprog");
}

/* The first row under the header line that ends with 'header' (its newline included). */
static bool first_row_names(const char *out, const char *header, const char *name)
{
	const char *h = strstr(out, header), *row, *end;

	if (!h)
		return false;
	row = h + strlen(header);
	end = strchr(row, '\n');
	return end && memmem(row, end - row, name, strlen(name));
}

/*
 * The two hot functions and the two arrays lead their tables with exactly
 * one sample per first-touched page; the kernel's writes into array_c are
 * kernel IPs.  _i: 0 cache lines, 1 pages.
 */
START_TEST(test_top_command_exact)
{
	char *argv[] = { (char *)top(),
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
	char *out, *err, *p, *line;
	long kernel = 0;

	run_expect(argv, 0, &out, &err);
	ck_assert_msg(count_for(out, "[.] touch_a ") == 200, "%.2000s", out);
	ck_assert_int_eq(count_for(out, "[.] touch_b "), 100);
	ck_assert_int_eq(count_for(out, " array_a "), 200);
	ck_assert_int_eq(count_for(out, " array_b "), 100);
	ck_assert_int_eq(count_for(out, " array_c "), 40);
	ck_assert(first_row_names(out, " DSO\n", "[.] touch_a "));
	ck_assert(first_row_names(out, " in\n", " array_a "));
	ck_assert_ptr_nonnull(strstr(out, _i ? "(4096-byte pages)" : "(64-byte lines)"));
	/* the kernel zeroed array_c's pages: as many samples at named kernel functions */
	for (line = out; line; line = (p = strchr(line, '\n')) ? p + 1 : NULL) {
		p = strstr(line, "[k] ");
		if (p && (!strchr(line, '\n') || p < strchr(line, '\n')) && strncmp(p + 4, "0x", 2))
			kernel += strtol(line, NULL, 10);
	}
	ck_assert_msg(kernel >= 40, "%ld kernel samples:\n%.2000s", kernel, out);
	ck_assert_ptr_nonnull(strstr(err, "sampling page-faults (period 1) on command"));
	free(out);
	free(err);
	assert_nothing_left();
}
END_TEST

/*
 * touch_b() in a second thread: its samples are the process's (keyed by the
 * thread group ID, not the thread's own ID), named like the first thread's.
 */
START_TEST(test_top_thread)
{
	char *argv[] = { (char *)top(), "--source", "page-faults", "--", (char *)topprog(),
			 "--thread",	"120",	    "60",	   NULL };
	char *out, *err;

	run_expect(argv, 0, &out, &err);
	ck_assert_msg(count_for(out, "[.] touch_a ") == 120, "%.2000s", out);
	ck_assert_msg(count_for(out, "[.] touch_b ") == 60, "%.2000s", out);
	ck_assert_int_eq(count_for(out, " array_a "), 120);
	ck_assert_int_eq(count_for(out, " array_b "), 60);
	free(out);
	free(err);
	assert_nothing_left();
}
END_TEST

/* The program for kernels before 6.3 takes the IP from the registers: the same rows. */
START_TEST(test_top_address_only)
{
	char *argv[] = { "env", "LDLAT_FORCE_ADDR_ONLY=1", (char *)top(), "--source", "page-faults",
			 "--",	(char *)topprog(),	   "120",	  "60",	      NULL };
	char *out, *err;

	run_expect(argv, 0, &out, &err);
	ck_assert_msg(count_for(out, "[.] touch_a ") == 120, "%.2000s", out);
	ck_assert_int_eq(count_for(out, "[.] touch_b "), 60);
	ck_assert_int_eq(count_for(out, " array_a "), 120);
	ck_assert_int_eq(count_for(out, " array_b "), 60);
	free(out);
	free(err);
	assert_nothing_left();
}
END_TEST

/* JSON: the same counts, and every kept sample is in a row or counted as not attributed. */
START_TEST(test_top_json)
{
	char *argv[] = {
		(char *)top(),	 "--source", "page-faults", "--format",	       "json", "-n",  "0",
		"--granularity", "page",     "--",	    (char *)topprog(), "200",  "100", NULL
	};
	char *out, *err;

	run_expect(argv, 0, &out, &err);
	ck_assert(jq_true(out,
			  "[.code.rows[] | select(.function == \"touch_a\") | .samples] == [200]"));
	ck_assert(jq_true(
		out,
		"[.data.rows[] | select(.object == \"array_b\") | "
		"[.samples, .blocks, .kind, .hottest_offset]] == [[100, 100, \"variable\", 0]]"));
	ck_assert(jq_true(out,
			  "(.code.rows | map(.samples) | add) + .code.not_attributed.table_full "
			  "+ .code.not_attributed.update_failed == .counters.kept"));
	ck_assert(jq_true(out,
			  "(.data.rows | map(.samples) | add) + .data.not_attributed.table_full "
			  "== .counters.kept and .data.samples == .counters.kept"));
	ck_assert(jq_true(out, ".code.rows[0].mean_latency == null and .block_bytes == 4096"));
	/* the header every tool's JSON starts with */
	ck_assert(jq_true(out, ".tool == \"ldlat-top\" and .source == \"page-faults\" and "
			       ".event == \"page-faults (period 1)\" and (.target | "
			       "startswith(\"command\")) and .latency == false and "
			       ".interval.start == .started and .interval.end >= .started"));
	free(out);
	free(err);
}
END_TEST

/* --output: the report goes to the file (text or JSON), nothing to stdout. */
START_TEST(test_top_output_file)
{
	char path[64];
	char *argv[] = {
		(char *)top(),	      "--source", "page-faults",     "--output", path, "--format",
		_i ? "json" : "text", "--",	  (char *)topprog(), "20",	 "10", NULL
	};
	char *out, *err, *doc;
	FILE *f;
	long len;

	snprintf(path, sizeof(path), "/tmp/ldlat-top-output-%d", (int)getpid());
	run_expect(argv, 0, &out, &err);
	ck_assert_str_eq(out, "");
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	doc = calloc(1, len + 1);
	ck_assert_int_eq(fread(doc, 1, len, f), len);
	fclose(f);
	unlink(path);
	if (_i) {
		ck_assert_int_eq(blocks_of(doc, "\n"), 1);
		ck_assert(jq_true(
			doc,
			"[.code.rows[] | select(.function == \"touch_a\") | .samples] == [20]"));
	} else {
		ck_assert_msg(count_for(doc, "[.] touch_a ") == 20, "%.2000s", doc);
		ck_assert_int_eq(blocks_of(doc, "filters: "), 1);
		ck_assert_ptr_null(strstr(doc, "\033["));
	}
	free(doc);
	free(out);
	free(err);
}
END_TEST

/*
 * A table too small: the samples of keys that found it full come through
 * the spill ring, and every one is attributed.
 */
START_TEST(test_top_table_full)
{
	char *argv[] = { (char *)top(),	    "--source", "page-faults", "--entries", "8",
			 "--format",	    "json",	"-n",	       "0",	    "--",
			 (char *)topprog(), "200",	"100",	       NULL };
	char *out, *err;

	run_expect(argv, 0, &out, &err);
	ck_assert(jq_true(out, ".code.not_attributed.table_full == 0 and "
			       ".data.not_attributed.table_full == 0 and "
			       ".code.spilled >= 292 and .data.spilled >= 292"));
	ck_assert(jq_true(out, "(.code.rows | map(.samples) | add) == .counters.kept and "
			       "(.data.rows | map(.samples) | add) == .counters.kept"));
	ck_assert(jq_true(out,
			  "[.code.rows[] | select(.function == \"touch_a\") | .samples] == [200]"));
	ck_assert(jq_true(out, "[.data.rows[] | select(.object == \"array_b\") | .samples] == "
			       "[100]"));
	free(out);
	free(err);
	assert_nothing_left();
}
END_TEST

/*
 * Function names as perf report gives them, on one perf.data file of a C++
 * program (tests/progs/cxxnames.cc): its methods, overloads and a template,
 * and libc's memmove, which has aliases at its address.  _i: --demangle
 * short against perf report's names (store::Table::fill, and the alias
 * perf keeps), no against perf report --no-demangle's, full against those
 * through c++filt.  JSON, text and the folded paths' leaves, sample by
 * sample (tests/names_vs_perf.py).
 */
START_TEST(test_names_vs_perf)
{
	static const char *const styles[] = { "short", "no", "full" };
	char dir[] = "/tmp/ldlat-names-perf-XXXXXX", *out = NULL;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(sh(NULL, NULL,
			    "perf record -q -e page-faults -c 1 -d -g -o %s/perf.data -- %s "
			    ">/dev/null 2>&1",
			    dir, build_path("tests/ldlat-cxxnames")),
			 0);
	ck_assert_msg(sh(&out, NULL,
			 "tests/names_vs_perf.py %s %s/perf.data %s "
			 "ldlat-cxxnames,libc.so.6",
			 top(), dir, styles[_i]) == 0,
		      "%s", out ? out : "");
	free(out);
	ck_assert_int_eq(sh(NULL, NULL, "rm -rf %s", dir), 0);
}
END_TEST

/*
 * A broken call chain stays visibly broken: store::broken (tests/progs/
 * cxxnames.cc) faults with its frame pointer at a zeroed frame, so the
 * kernel's walk ends in a return address of 0.  perf script names it
 * [unknown] (and stackcollapse-perf.pl keeps it as the outermost frame);
 * ldlat-top's folded path, sampled live, must hold the same frames as perf
 * script's chain of perf record -g on the same program.
 */
START_TEST(test_broken_chain_vs_perf)
{
	char dir[] = "/tmp/ldlat-chain-perf-XXXXXX", *ours = NULL, *perfs = NULL;
	const char *prog = build_path("tests/ldlat-cxxnames");

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(sh(&ours, NULL,
			    "%s --source page-faults --call-graph --format folded -- %s "
			    "2>/dev/null | grep ';store::broken '",
			    top(), prog),
			 0);
	/* perf script's chain of the sample in store::broken, outermost first, as folded */
	ck_assert_int_eq(
		sh(&perfs, NULL,
		   "perf record -q -e page-faults -c 1 -g -o %s/perf.data -- %s "
		   ">/dev/null 2>&1 && perf script -i %s/perf.data -F comm,ip,sym "
		   "2>/dev/null | awk '/^[^ \t]/ { if (n) out(); comm = $1; n = 0; next } "
		   "NF >= 2 { f[n++] = $2 } END { if (n) out() } "
		   "function out(  i, s) { if (f[0] != \"store::broken\") { n = 0; return } "
		   "s = comm; for (i = n - 1; i >= 0; i--) s = s \";\" f[i]; print s \" 1\"; "
		   "n = 0 }'",
		   dir, prog, dir),
		0);
	ck_assert_msg(*perfs && !strcmp(ours, perfs), "ldlat-top: %sperf script: %s", ours, perfs);
	ck_assert_msg(strstr(ours, ";[unknown];"), "no [unknown] frame: %s", ours);
	free(ours);
	free(perfs);
	ck_assert_int_eq(sh(NULL, NULL, "rm -rf %s", dir), 0);
}
END_TEST

/*
 * Data rows beside perf report --mem-mode --sort dso_daddr, on one file
 * perf recorded of tests/progs/datarows.c (an executable linked at a fixed
 * address; its .data, its .bss beyond its file's pages, two anonymous
 * mappings, the heap): the samples of each data DSO are perf's but for the
 * two differences docs/tools.md states (.bss; a user page the kernel
 * touched), each modelled from perf script's own samples and mmap events
 * and readelf; the executable's image row starts at its mapping, not 0;
 * the [anon] row's address and hottest offset are its hottest line's
 * (tests/datarows_vs_perf.py).
 */
START_TEST(test_data_rows_vs_perf)
{
	char dir[] = "/tmp/ldlat-datarows-perf-XXXXXX", *out = NULL;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(sh(NULL, NULL,
			    "perf record -q -e page-faults -c 1 -d -o %s/perf.data -- %s "
			    ">/dev/null 2>&1",
			    dir, build_path("tests/ldlat-datarows")),
			 0);
	ck_assert_msg(sh(&out, NULL, "tests/datarows_vs_perf.py %s %s/perf.data ldlat-datarows",
			 top(), dir) == 0,
		      "%s", out ? out : "");
	free(out);
	ck_assert_int_eq(sh(NULL, NULL, "rm -rf %s", dir), 0);
}
END_TEST

/*
 * ldlat-top's peak RSS (KiB, as /usr/bin/time reads it from the kernel: the
 * tool's and its children's, the workload's under 4 MiB: it reads, where a
 * kernel maps the zero page, and gives its pages back as it goes, where
 * another allocates a page per read fault) on
 * --fault-pages pages at 0x200000000000, only those kept (-a), with extra
 * options; its JSON into *out.
 */
static long top_peak_kib(const char *opts, long pages, char **out)
{
	char path[] = "/tmp/ldlat-top-rss-XXXXXX";
	char *o = NULL;
	long kib = 0;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(
		sh(&o, NULL,
		   "/usr/bin/time -f %%M -o %s %s --source page-faults --format json "
		   "-a 0x200000000000+%ld %s -- %s --fault-pages %ld --read --release --base "
		   "0x200000000000 2>/dev/null",
		   path, top(), pages * 4096, opts, workload(), pages),
		0);
	{
		FILE *f = fopen(path, "r");

		ck_assert_ptr_nonnull(f);
		ck_assert_int_eq(fscanf(f, "%ld", &kib), 1);
		fclose(f);
	}
	unlink(path);
	if (out)
		*out = o;
	else
		free(o);
	ck_assert_int_gt(kib, 0);
	return kib;
}

/*
 * --max-keys bounds what the tables hold in user space: 100,000 pages
 * first-touched (exactly one sample each, the workload's arithmetic), 2,000
 * keys kept, the other 98,000 samples counted as not attributed, and the
 * peak RSS that of a run that met 2,000 keys only, plus the spill ring
 * (4 MiB, mapped twice: such a run never fills it) and 4 MiB.
 */
START_TEST(test_top_max_keys)
{
	const long pages = 100000, keys = 2000;
	const char *rows = "--data-by block --granularity page -n 0";
	long capped, alone, whole;
	char *out = NULL, opts[96];

	alone = top_peak_kib("", keys, NULL);
	snprintf(opts, sizeof(opts), "--max-keys %ld %s", keys, rows);
	capped = top_peak_kib(opts, pages, &out);
	ck_assert(jq_true(out, ".counters.kept == 100000"));
	ck_assert(jq_true(out, ".data.rows_total == 2000 and "
			       "(.data.rows | map(.samples) | add) == 2000 and "
			       "(.data.rows | map(select(.samples != 1)) | length) == 0"));
	ck_assert(jq_true(out, ".data.not_attributed.max_keys == 98000 and "
			       ".data.not_attributed.table_full == 0 and .data.samples == 100000"));
	/* the code table met one key: nothing of it is past the bound */
	ck_assert(jq_true(out, ".code.not_attributed.max_keys == 0 and "
			       "(.code.rows | map(.samples) | add) == 100000"));
	free(out);
	/*
	 * the same run unbounded: the bound is what keeps its memory down (its
	 * options: a row per page; object rows of page faults are made from
	 * 48-byte blocks, too few bytes a key to tell 100,000 from 2,000 apart)
	 */
	whole = top_peak_kib(rows, pages, NULL);
	ck_assert_msg(capped <= alone + 12 * 1024,
		      "--max-keys %ld on %ld keys: peak RSS %ld KiB, %ld KiB for %ld keys alone",
		      keys, pages, capped, alone, keys);
	ck_assert_msg(whole > alone + 12 * 1024,
		      "%ld keys unbounded: %ld KiB, too close to %ld keys' %ld KiB to tell", pages,
		      whole, keys, alone);
	assert_nothing_left();
}
END_TEST

/* nm's address of b less a's, in one ELF file (the linker may place b first). */
static long long nm_distance(const char *path, const char *a, const char *b)
{
	char *out = NULL;
	unsigned long long x = 0, y = 0;

	ck_assert_int_eq(sh(&out, NULL, "nm %s | awk '$3 == \"%s\" {print $1}'", path, a), 0);
	x = strtoull(out, NULL, 16);
	free(out);
	ck_assert_int_eq(sh(&out, NULL, "nm %s | awk '$3 == \"%s\" {print $1}'", path, b), 0);
	y = strtoull(out, NULL, 16);
	free(out);
	ck_assert(x && y && x != y);
	return (long long)(y - x);
}

/*
 * Real programs with the default table size, against perf record and perf
 * report on the same program: nothing unattributed, each function's share
 * within 1% of the total (tests/top_vs_perf.py).  _i: 0 the first touches
 * of two arrays of 16384 pages each (both named, with every page), 1 a
 * python list of 10^7 items (python3 as PATH finds it: often a shell shim
 * that execs the interpreter), 2 sort of a 47 MB file.
 */
START_TEST(test_top_vs_perf)
{
	char dir[] = "/tmp/ldlat-top-perf-XXXXXX", cmd[1024], *out = NULL;
	const char *big = build_path("tests/ldlat-bigtouch");

	ck_assert_ptr_nonnull(mkdtemp(dir));
	if (_i == 0)
		snprintf(cmd, sizeof(cmd), "%s", big);
	else if (_i == 1)
		snprintf(cmd, sizeof(cmd), "python3 -c 'x=[0]*10**7'");
	else {
		ck_assert_int_eq(sh(NULL, NULL, "seq 6000000 -1 1 > %s/in", dir), 0);
		snprintf(cmd, sizeof(cmd), "sort %s/in -o /dev/null", dir);
	}
	ck_assert_int_eq(
		sh(NULL, NULL,
		   "cd %s && %s --source page-faults -n 0 --format json -- %s > top.json && "
		   "perf record -q -e page-faults -c 1 -d -o perf.data -- %s >/dev/null",
		   dir, top(), cmd, cmd),
		0);
	ck_assert_msg(sh(&out, NULL, "tests/top_vs_perf.py %s/top.json %s/perf.data", dir, dir) ==
			      0,
		      "%s", out ? out : "");
	free(out);
	if (_i == 0) {
		ck_assert_int_eq(sh(&out, NULL, "cat %s/top.json", dir), 0);
		ck_assert(jq_true(out, "[.data.rows[] | select(.kind == \"variable\" and "
				       "(.object | startswith(\"big_\"))) | [.object, .samples, "
				       ".blocks]] | sort == [[\"big_a\", 16384, 16384], "
				       "[\"big_b\", 16384, 16384]]"));
		ck_assert(jq_true(out, "[.code.rows[] | select(.function | startswith(\"touch_big"
				       "\")) | .samples] == [16384, 16384]"));
		/* each array's row starts at the array: their distance is nm's */
		snprintf(cmd, sizeof(cmd),
			 "[.data.rows[] | select(.object == \"big_b\" or .object == \"big_a\")] "
			 "| sort_by(.object) | (.[1].address | ltrimstr(\"0x\") | explode | "
			 "reduce .[] as $c (0; . * 16 + ($c | if . >= 97 then . - 87 else . - 48 "
			 "end))) - (.[0].address | ltrimstr(\"0x\") | explode | reduce .[] as $c "
			 "(0; . * 16 + ($c | if . >= 97 then . - 87 else . - 48 end))) == %lld",
			 nm_distance(big, "big_a", "big_b"));
		ck_assert(jq_true(out, cmd));
		free(out);
	}
	sh(NULL, NULL, "rm -rf %s", dir);
	assert_nothing_left();
}
END_TEST

/*
 * A process that exits before the report is still named: _i 0, a child of
 * the command, known from the side band only (it execs and exits between two
 * drains); _i 1, a -p process read from /proc at the start.
 */
START_TEST(test_top_exited)
{
	char script[1024], pid[32];
	char *cargv[] = { (char *)top(), "--source", "page-faults", "-n",   "0",
			  "--",		 "sh",	     "-c",	    script, NULL };
	char *wargv[] = { (char *)topprog(), "--wait", "200", "100", NULL };
	char *pargv[] = { (char *)top(), "--source", "page-faults", "-n", "0", "-p", pid, NULL };
	struct child w, t;
	char *out, *err;

	if (!_i) {
		snprintf(script, sizeof(script), "%s 200 100; sleep 1", topprog());
		run_expect(cargv, 0, &out, &err);
	} else {
		child_spawn(&w, wargv);
		snprintf(pid, sizeof(pid), "%d", w.pid);
		child_spawn(&t, pargv);
		ck_assert_msg(child_wait_stderr(&t, "Ctrl-C to end", 30), "%s", t.errbuf);
		ck_assert_int_eq(write(w.in, "g", 1), 1);
		ck_assert_int_eq(child_finish(&w, 30), 0);
		/* the target's exit ends the run: the report comes after it */
		ck_assert_int_eq(child_finish(&t, 30), 0);
		out = strdup(t.outbuf);
		err = strdup(t.errbuf);
		child_free(&w);
		child_free(&t);
	}
	ck_assert_msg(count_for(out, "[.] touch_a ") == 200, "%.2000s", out);
	ck_assert_int_eq(count_for(out, "[.] touch_b "), 100);
	ck_assert_int_eq(count_for(out, " array_a "), 200);
	ck_assert_int_eq(count_for(out, " array_b "), 100);
	ck_assert_ptr_null(strstr(out, "[exited]"));
	free(out);
	free(err);
	assert_nothing_left();
}
END_TEST

static int blocks_of(const char *out, const char *what)
{
	int n = 0;

	for (const char *p = out; (p = strstr(p, what)); p++)
		n++;
	return n;
}

/* -i: a block per interval, plain (not a terminal) and timestamped; JSON a line each. */
START_TEST(test_top_intervals)
{
	char *argv[] = { (char *)top(), "--source", "page-faults", "-i", "0.3,3", "--format",
			 NULL,		"--",	    "sleep",	   "30", NULL };
	char *out, *err;

	argv[6] = "text";
	run_expect(argv, 0, &out, &err);
	ck_assert_int_eq(blocks_of(out, "code: "), 3);
	ck_assert_int_eq(blocks_of(out, "data: "), 3);
	ck_assert_int_eq(blocks_of(out, "filters: "), 3);
	ck_assert_ptr_null(strstr(out, "\033[")); /* no screen clearing into a pipe */
	free(out);
	free(err);
	argv[6] = "json";
	run_expect(argv, 0, &out, &err);
	ck_assert_int_eq(blocks_of(out, "\n"), 3);
	/*
	 * Each interval's samples seen are the kept and the dropped ones, and
	 * the kernel's own count of the event (its count over its period) for
	 * that interval; sleep faults its pages in the first.
	 */
	ck_assert_msg(jq_true(out, "[., inputs] | length == 3 and .[0].counters.seen > 0 and "
				   "all(.[].counters; .seen == .kept + (.dropped | add) and "
				   ".seen == .unseen.samples_counted)"),
		      "%.1000s", out);
	free(out);
	free(err);
	assert_nothing_left();
}
END_TEST

/*
 * Each interval's rows add up to that interval's kept count, while a
 * command faults pages on and off across the interval ends (and past the
 * tables' size, through the spill ring).
 */
START_TEST(test_top_intervals_add_up)
{
	char loop[512];
	char *argv[] = { (char *)top(), "--source", "page-faults", "-i",	"0.2", "--format",
			 "json",	"-n",	    "0",	   "--entries", "512", "--",
			 "sh",		"-c",	    loop,	   NULL };
	char *out, *err;

	snprintf(loop, sizeof(loop), "for i in 1 2 3 4 5 6 7 8; do %s 3000; sleep 0.1; done",
		 build_path("tests/ldlat-bigtouch"));
	run_expect(argv, 0, &out, &err);
	ck_assert_int_ge(blocks_of(out, "\n"), 3);
	/* jq -e judges its last output: the intervals as one array */
	ck_assert(jq_true(out, "[., inputs] | all(.[]; "
			       "((.code.rows | map(.samples) | add) // 0) + "
			       ".code.not_attributed.table_full + "
			       ".code.not_attributed.update_failed == .counters.kept and "
			       "((.data.rows | map(.samples) | add) // 0) + "
			       ".data.not_attributed.table_full + "
			       ".data.not_attributed.update_failed == .counters.kept and "
			       ".code.samples == .counters.kept)"));
	/* the pages were faulted over several intervals, lines through the ring */
	ck_assert(jq_true(out, "[., inputs] | (map(select(.counters.kept > 1000)) | length) >= 2 "
			       "and (map(.data.spilled) | add) > 0"));
	free(out);
	free(err);
	assert_nothing_left();
}
END_TEST

/*
 * -a takes the variable a data row names, in ldlat-hist and ldlat-top: the
 * 300 first touches of big_b, none of big_a's 300.
 */
START_TEST(test_variable_range)
{
	char *argv[] = { (char *)(_i ? top() : build_path("ldlat-hist")),
			 "--source",
			 "page-faults",
			 "-a",
			 "big_b",
			 "--format",
			 "json",
			 "--",
			 (char *)build_path("tests/ldlat-bigtouch"),
			 "300",
			 NULL };
	char *out, *err;

	run_expect(argv, 0, &out, &err);
	ck_assert_msg(
		jq_true(out, ".counters.kept == 300 and .counters.dropped.outside_ranges > 300"),
		"%s", out);
	if (_i)
		ck_assert(jq_true(out, "[.data.rows[] | .object] == [\"big_b\"]"));
	free(out);
	free(err);
	assert_nothing_left();
}
END_TEST

/*
 * The side band's reads are the epochs a process's exit settles in, on a
 * real side band: a child that has exited (reaped, its EXIT written) is
 * found exited by the read after, and sealed only by a switch after the
 * read after that, when every record it wrote before it died is in.
 */
START_TEST(test_procwatch_exit_settles)
{
	struct target t = { .kind = TARGET_SYSTEM, .cgroup_fd = -1 };
	struct err err = {};
	struct procwatch w;
	struct machine m;
	struct proc *p;
	pid_t child;
	int i;

	ck_assert_msg(cpumap__online(&t.cpus, &err) == 0, "%s", err.msg);
	machine__init(&m, MACHINE_LIVE);
	ck_assert_msg(procwatch__start(&w, &m, &t, NULL, 0, &err) == 0, "%s", err.msg);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (!child)
		_exit(0);
	ck_assert_int_eq(waitpid(child, NULL, 0), child);
	/* its EXIT is in a ring now; a busy machine may take a few reads to see it */
	for (i = 0; i < 100 && !((p = procmaps__find(&m.pm, child)) && p->exited); i++) {
		ck_assert_int_eq(procwatch__drain(&w), 0);
		if (!(p = procmaps__find(&m.pm, child)) || !p->exited)
			usleep(10000);
	}
	ck_assert_msg(p && p->exited, "the child's EXIT was not read");
	/* the switch of the read that found it: kept */
	procmaps__seal_exited(&m.pm);
	procmaps__prune_exited(&m.pm);
	ck_assert_ptr_nonnull(procmaps__find(&m.pm, child));
	/* one more read, then the switch: sealed and gone */
	ck_assert_int_eq(procwatch__drain(&w), 0);
	procmaps__seal_exited(&m.pm);
	procmaps__prune_exited(&m.pm);
	ck_assert_ptr_null(procmaps__find(&m.pm, child));
	procwatch__stop(&w);
	machine__free(&m);
	cpumap__free(&t.cpus);
}
END_TEST

/*
 * A shell that starts python ten times (python3 as PATH finds it, often a
 * shim that execs the interpreter): the side band loses no mapping record
 * and no row is left to a process whose mappings were never learned; the
 * samples are as many as perf stat counts faults of the same command, within
 * 10% (how many a python start takes depends on the installation: about
 * 1,000 for Debian's own, several times that through a pyenv shim).
 */
START_TEST(test_top_shim)
{
#define SHIM_LOOP "for i in 1 2 3 4 5 6 7 8 9 10; do python3 -c 'x = [0] * 10**5'; done"
	char *argv[] = { (char *)top(), "--source", "page-faults", "-n", "0",	    "--format",
			 "json",	"--",	    "sh",	   "-c", SHIM_LOOP, NULL };
	char *out, *err = NULL, want[128];
	long faults = -1;

	ck_assert_int_eq(sh(NULL, &err,
			    "perf stat -x, -e page-faults -- sh -c \"" SHIM_LOOP "\" >/dev/null"),
			 0);
	ck_assert_msg(err && sscanf(err, "%ld,", &faults) == 1 && faults > 1000, "%s", err);
	free(err);
	run_expect(argv, 0, &out, &err);
	ck_assert_msg(!strstr(err, "lost"), "%s", err);
	ck_assert(jq_true(out, "([.code.rows[], .data.rows[]] | map(select(.kind == \"exited\")) "
			       "| length) == 0"));
	snprintf(want, sizeof(want), ".counters.kept > %ld and .counters.kept < %ld",
		 faults * 9 / 10, faults * 11 / 10);
	ck_assert_msg(jq_true(out, want), "perf stat counts %ld faults", faults);
#undef SHIM_LOOP
	free(out);
	free(err);
	assert_nothing_left();
}
END_TEST

/*
 * The end of a system-wide run under exec and dlopen churn (the soak's
 * loop): from the end of -d 0.3 (_i 0) or from a SIGTERM after the first
 * report (_i 1) to the exit, within 2 s: the side band's last drain, the
 * tables, the last report and its naming (kernel symbols too), the
 * teardown.  A regression bound a busy machine meets (0.2-0.65 s on a 2-core
 * VM shared with other tests), not a benchmark.
 */
START_TEST(test_top_end_under_churn)
{
	char *loop[] = { "sh",
			 "-c",
			 "while :; do \"$@\" || exit 1; done",
			 "shim",
			 (char *)build_path("tests/ldlat-dlchurn"),
			 "20",
			 "libz.so.1",
			 "libelf.so.1",
			 "libdw.so.1",
			 "libbpf.so.1",
			 (char *)build_path("tests/libldlatsym.so"),
			 NULL };
	char *argv[] = { (char *)top(), "--source",	  "page-faults",      "-n", "3", "--format",
			 "json",	_i ? "-i" : "-d", _i ? "0.2" : "0.3", NULL };
	struct child c;
	double from, took;
	pid_t shim = fork();
	int rc;

	ck_assert_int_ge(shim, 0);
	if (shim == 0) {
		setpgid(0, 0); /* the loop and what it runs: one group, ended together */
		execvp(loop[0], loop);
		_exit(127);
	}
	setpgid(shim, shim);
	ck_assert(child_spawn_started(&c, argv, 30));
	from = clock__monotonic();
	if (_i) {
		ck_assert_msg(child_wait_stdout(&c, "\"counters\"", 1, 30), "%s", c.errbuf);
		from = clock__monotonic();
		kill(c.pid, SIGTERM);
	}
	rc = child_finish(&c, 30);
	took = clock__monotonic() - from - (_i ? 0 : 0.3);
	kill(-shim, SIGKILL);
	while (waitpid(-shim, NULL, 0) > 0)
		;
	ck_assert_msg(rc == 0, "exit %d: %s", rc, c.errbuf);
	/* a sanitized tool runs a few times slower */
	ck_assert_msg(took < (getenv("LDLAT_SANITIZED") ? 6.0 : 2.0), "ended %.2f s after %s", took,
		      _i ? "SIGTERM" : "its -d");
	child_free(&c);
}
END_TEST

/*
 * Each interval of a system-wide run under exec and dlopen churn (the
 * soak's loop) is one consistent moment: its counters, its tables and the
 * events' counts are of the same samples (the program counts every sample
 * under the drain generation it reads, and a drain reads a generation no
 * program writes any more).  Every interval: seen = kept + dropped, seen_period
 * = seen (page faults, period 1), each table sums to kept, the unseen line
 * compares the same seen.  The run: the intervals' seen sum to at most the
 * events' counts summed (the kernel's, the last read with the events
 * disabled), and what they fall short is reported as unseen.  Before, kept
 * came from the drain and the other counters from a read after it:
 * seen_period and seen differed by thousands in most intervals.
 */
START_TEST(test_top_intervals_consistent)
{
	char *loop[] = { "sh",
			 "-c",
			 "while :; do \"$@\" || exit 1; done",
			 "shim",
			 (char *)build_path("tests/ldlat-dlchurn"),
			 "20",
			 "libz.so.1",
			 "libelf.so.1",
			 "libdw.so.1",
			 "libbpf.so.1",
			 (char *)build_path("tests/libldlatsym.so"),
			 NULL };
	char *argv[] = { (char *)top(), "--source", "page-faults", "-n",  "1",
			 "--format",	"json",	    "-i",	   "0.1", NULL };
	struct child c;
	pid_t shim = fork();
	int rc;

	ck_assert_int_ge(shim, 0);
	if (shim == 0) {
		setpgid(0, 0); /* the loop and what it runs: one group, ended together */
		execvp(loop[0], loop);
		_exit(127);
	}
	setpgid(shim, shim);
	ck_assert(child_spawn_started(&c, argv, 30));
	/* 30 intervals, then the end: its last drain runs with the events disabled */
	ck_assert_msg(child_wait_stdout(&c, "\"counters\"", 30, 120), "%s", c.errbuf);
	kill(c.pid, SIGTERM);
	rc = child_finish(&c, 60);
	kill(-shim, SIGKILL);
	while (waitpid(-shim, NULL, 0) > 0)
		;
	ck_assert_msg(rc == 0, "exit %d: %s", rc, c.errbuf);
	ck_assert_int_ge(blocks_of(c.outbuf, "\n"), 30);
	ck_assert_msg(jq_true(c.outbuf, "[., inputs] | all(.[]; "
					".counters.seen == .counters.kept + "
					"([.counters.dropped[]] | add) and "
					".counters.seen_period == .counters.seen and "
					".counters.unseen.seen == .counters.seen and "
					".code.samples == .counters.kept and "
					".data.samples == .counters.kept)"),
		      "%.2000s", c.outbuf);
	/* churn throughout: intervals saw thousands of faults */
	ck_assert(jq_true(c.outbuf,
			  "[., inputs] | map(select(.counters.seen > 1000)) | length >= 10"));
	ck_assert_msg(jq_true(c.outbuf,
			      "[., inputs] | (map(.counters.seen) | add) as $seen | "
			      "(map(.counters.unseen.samples_counted) | add) as $counted | "
			      "$seen <= $counted and $counted - $seen <= "
			      "(map(.counters.unseen.samples) | add)"),
		      "%.2000s", c.outbuf);
	child_free(&c);
}
END_TEST

/* --by picks the tables. */
START_TEST(test_top_by)
{
	char *argv[] = {
		(char *)top(), "--source",	  "page-faults", "--by", _i ? "data" : "ip",
		"--",	       (char *)topprog(), "20",		 "10",	 NULL
	};
	char *out, *err;

	run_expect(argv, 0, &out, &err);
	ck_assert((strstr(out, "code: ") != NULL) == !_i);
	ck_assert((strstr(out, "data: ") != NULL) == (_i == 1));
	ck_assert_int_eq(count_for(out, _i ? " array_a " : "[.] touch_a "), 20);
	free(out);
	free(err);
}
END_TEST

/* Rows of one DSO whose function is named (not a bare file address). */
static int named_rows(const char *out, const char *dso)
{
	const char *line, *nl, *f;
	int n = 0;

	for (line = out; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		f = strstr(line, "[.] ");
		if (f && (!nl || f < nl) && strncmp(f + 4, "0x", 2) &&
		    memmem(line, nl ? (size_t)(nl - line) : strlen(line), dso, strlen(dso)))
			n++;
	}
	return n;
}

/* --debuginfo-path: a stripped program is named from its debug info found by build ID. */
START_TEST(test_top_debuginfo_path)
{
	char debug[4096];
	char *argv[] = {
		(char *)top(), "--source", "page-faults",
		"-n",	       "0",	   "--by",
		"ip",	       "--",	   (char *)build_path("tests/ldlat-symprog-stripped"),
		NULL,	       NULL,	   NULL
	};
	char *out, *err;

	snprintf(debug, sizeof(debug), "%s", build_path("tests/debug"));
	run_expect(argv, 0, &out, &err);
	ck_assert_msg(named_rows(out, " ldlat-symprog-stripped") == 0, "%.2000s", out);
	free(out);
	free(err);
	argv[10] = argv[8];
	argv[7] = "--debuginfo-path";
	argv[8] = debug;
	argv[9] = "--";
	run_expect(argv, 0, &out, &err);
	ck_assert_msg(named_rows(out, " ldlat-symprog-stripped") > 0, "%.2000s", out);
	free(out);
	free(err);
}
END_TEST

/* -i on a terminal clears the screen before each report, like top. */
START_TEST(test_top_terminal_clears)
{
	char cmd[4096];
	char *argv[] = { "script", "-qec", cmd, "/dev/null", NULL };
	char *out, *err;

	snprintf(cmd, sizeof(cmd), "%s --source page-faults -i 0.3,2 -- sleep 30", top());
	run_expect(argv, 0, &out, &err);
	ck_assert_int_eq(blocks_of(out, "\033[H\033[2J"), 2);
	free(out);
	free(err);
}
END_TEST

/*
 * --help lists only what ldlat-top takes: --format's text or json, no --loads
 * (both ldlat-hist's: refused below, --loads as an option ldlat-top does not
 * have); ldlat-hist's own --help keeps them.
 */
START_TEST(test_top_help)
{
	char *argv[] = { (char *)top(), "--help", NULL };
	char *out, *err, *fmt;

	run_expect(argv, 0, &out, &err);
	ck_assert_msg(!strstr(out, "--loads"), "%s", out);
	fmt = strstr(out, "--format=FMT");
	ck_assert_ptr_nonnull(fmt);
	fmt = strstr(fmt, "text");
	ck_assert_msg(fmt && !strncmp(fmt, "text (default), json (one object", 32), "%s", out);
	ck_assert_msg(strstr(out, "folded (call paths as folded stacks),") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "or pprof (them as a") != NULL, "%s", out);
	free(out);
	free(err);
	argv[0] = (char *)build_path("ldlat-hist");
	run_expect(argv, 0, &out, &err);
	ck_assert_msg(strstr(out, "--loads[=EVENT]"), "%s", out);
	ck_assert_msg(strstr(out, "prometheus (totals") && strstr(out, "or openmetrics (the"), "%s",
		      out);
	free(out);
	free(err);
}
END_TEST

/* Bad input: exit 2, a sentence naming it, nothing left. */
#define TOP_BAD(args, message)                                                                     \
	{                                                                                          \
		.cmd = "$TOP --source page-faults " args, .rc = 2, .err = { message },             \
		.err_starts = "ldlat-top: ", .nothing_left = true                                  \
	}

static const struct cli_case top_bad_inputs[] = {
	/* needs a target that starts: the command never runs */
	TOP_BAD("--sort latency --",
		"--sort latency needs latency, which page-fault samples do not carry"),
	TOP_BAD("--sort size", "--sort 'size': expected samples, latency or total"),
	TOP_BAD("--entries 0", "--entries '0' is not a table size from 1 to"),
	TOP_BAD("--max-keys 0", "--max-keys '0' is not a number of keys from 1 to 100000000"),
	TOP_BAD("--granularity word", "--granularity 'word': expected line or page"),
	TOP_BAD("--by stack", "--by 'stack': expected ip, data, both, type or srcline"),
	TOP_BAD("--format xml", "--format 'xml': expected text, json, folded, svg or pprof"),
	TOP_BAD("--format openmetrics", "--format openmetrics is not one of ldlat-top's"),
	TOP_BAD("--format prometheus", "--format prometheus is not one of ldlat-top's"),
	TOP_BAD("--loads -n5", "unrecognized option '--loads'"),
	TOP_BAD("--output /nonexistent-ldlat-top/x.json",
		"cannot create a file in /nonexistent-ldlat-top"),
	TOP_BAD("-n many", "--rows 'many' is not a number of rows"),
	TOP_BAD("--data-by file", "--data-by 'file': expected object or block"),
	TOP_BAD("-p 999999999", "-p 999999999: no such process"),
	TOP_BAD("-- /nonexistent/cmd", "cannot run '/nonexistent/cmd'"),
};

START_TEST(test_top_bad_input)
{
	cli_case__check(&top_bad_inputs[_i]);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("top");
	TCase *tc = tcase_create("symbols");
	bool root;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_procmaps_newest_wins);
	tcase_add_test(tc, test_procmaps_pid_reused);
	tcase_add_test(tc, test_procwatch_threads);
	tcase_add_test(tc, test_procmaps_names_pruned);
	tcase_add_test(tc, test_procmaps_late_exit_kept);
	tcase_add_test(tc, test_procmaps_exit_settles);
	tcase_add_test(tc, test_procmaps_model);
	tcase_add_test(tc, test_procmaps_read_fixture);
	tcase_add_test(tc, test_dso_names);
	tcase_add_test(tc, test_dso_not_loadable);
	tcase_add_test(tc, test_dso_cache_trimmed);
	tcase_add_test(tc, test_top_table_shrinks);
	tcase_add_test(tc, test_range_variable);
	tcase_add_test(tc, test_top_terminal_width);
	tcase_add_loop_test(tc, test_input_bounded, 0, ARRAY_SIZE(bounded));
	tcase_add_test(tc, test_kallsyms);
	tcase_add_test(tc, test_kallsyms_read_in_part);
	tcase_add_loop_test(tc, test_symbolize_live_then_exited, 0, 2);
	tcase_add_test(tc, test_symbolize_stripped_without_debuginfo);
	tcase_add_test(tc, test_symbolize_deleted);
	tcase_add_test(tc, test_symbolize_exited_and_unknown);
	tcase_add_test(tc, test_symbolize_at_exec_layout);
	tcase_add_test(tc, test_symbolize_file_offset);
	tcase_add_test(tc, test_top_table_max_keys);
	tcase_add_test(tc, test_top_table_slim);
	tcase_add_test(tc, test_data_rows_slim);
	tcase_add_test(tc, test_report_native_tables);
	tcase_add_test(tc, test_early_rows);
	tcase_add_test(tc, test_json_writer);
	tcase_add_test(tc, test_top_help);
	suite_add_tcase(s, tc);
	root = need_root("check_top's end-to-end tests (perf events and BPF)");
	top_input_tcases(s, root);
	if (root) {
		tc = tcase_create("e2e");
		tcase_set_timeout(tc, 120);
		tcase_add_loop_test(tc, test_top_command_exact, 0, 2);
		tcase_add_test(tc, test_top_address_only);
		tcase_add_test(tc, test_top_thread);
		tcase_add_test(tc, test_top_json);
		tcase_add_loop_test(tc, test_top_output_file, 0, 2);
		tcase_add_test(tc, test_top_table_full);
		tcase_add_test(tc, test_top_max_keys);
		tcase_add_test(tc, test_top_intervals);
		tcase_add_test(tc, test_top_intervals_add_up);
		tcase_add_loop_test(tc, test_variable_range, 0, 2);
		tcase_add_test(tc, test_top_shim);
		tcase_add_test(tc, test_procwatch_exit_settles);
		tcase_add_loop_test(tc, test_top_by, 0, 2);
		tcase_add_test(tc, test_top_debuginfo_path);
		tcase_add_test(tc, test_top_terminal_clears);
		tcase_add_loop_test(tc, test_top_bad_input, 0, ARRAY_SIZE(top_bad_inputs));
		suite_add_tcase(s, tc);
		/*
		 * Real programs (python, sort) against perf record: a case of its own,
		 * which make test-kernels leaves out (its guests have 2 GiB and no
		 * debug symbols of their own; the BPF path is e2e's)
		 */
		tc = tcase_create("vs-perf");
		tcase_set_timeout(tc, 300);
		tcase_add_loop_test(tc, test_top_vs_perf, 0, 3);
		suite_add_tcase(s, tc);
		/* names against perf report's: the kernel matrix leaves it out with vs-perf */
		tc = tcase_create("names-perf");
		tcase_set_timeout(tc, 120);
		tcase_add_loop_test(tc, test_names_vs_perf, 0, 3);
		tcase_add_test(tc, test_broken_chain_vs_perf);
		tcase_add_test(tc, test_data_rows_vs_perf);
		suite_add_tcase(s, tc);
		/*
		 * Rows of a process that has exited named from its mappings: a case of
		 * its own, which the kernel matrix leaves out for now (in a 6.12
		 * guest under TCG the data rows of an exited command went unnamed)
		 */
		/*
		 * The end of a run under churn, bounded in seconds: a case of its
		 * own, which the kernel matrix leaves out (its guests run under
		 * TCG, many times slower than the host: a bound in seconds there
		 * says nothing of the code)
		 */
		tc = tcase_create("end");
		tcase_set_timeout(tc, 120);
		tcase_add_loop_test(tc, test_top_end_under_churn, 0, 2);
		suite_add_tcase(s, tc);
		/* system-wide under churn: the kernel matrix leaves it out with "end" */
		tc = tcase_create("churn");
		tcase_set_timeout(tc, 240);
		tcase_add_test(tc, test_top_intervals_consistent);
		suite_add_tcase(s, tc);
		tc = tcase_create("exited");
		tcase_set_timeout(tc, 120);
		tcase_add_loop_test(tc, test_top_exited, 0, 2);
		suite_add_tcase(s, tc);
	}
	failed = run_suite(s);
	suite_dir_remove();
	return failed ? 1 : 0;
}
