// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * check_unwind - user stacks without frame pointers (--call-graph dwarf).
 * The unwind tables user/symbols/unwind.c compiles out of each file's call
 * frame information, against binutils' readelf (tests/suites/unwind_oracle.c)
 * at every address where either changes rules: the test programs built
 * without frame pointers (tests/progs/unwindprog.c), one with .debug_frame
 * and no .eh_frame, libc, the dynamic loader and Debian's sort.
 *
 * And the BPF walker (bpf/unwind.h) through BPF_PROG_TEST_RUN
 * (ldlat_test_unwind): this process's own registers, taken at the end of
 * a chain of calls built without frame pointers (the suites build at -O2),
 * its tables loaded as ldlat-top loads them (user/top/unwindset.c); the
 * walk must equal what glibc's backtrace() (libgcc's unwinder) finds from
 * the same place: plain calls, through a signal frame, in a thread, and by
 * frame pointers where no table covers the code.  Needs root.
 */
#include <check.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <errno.h>
#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/ldlat.h"
#include "user/run/session.h"
#include "user/top/topprog.h"
#include "user/symbols/unwind.h"
#include "user/symbols/unwindcache.h"
#include "user/top/unwindset.h"
#include "user/top/unwinddefer.h"
#include "bpf/ldlat.skel.h"
#include "tests/suites/unwind_oracle.h"
#include "tests/lib/testutil.h"
#include "tests/lib/clicase.h"
#include "kernel/lib/util.h"

static bool row_eq(const struct ldlat_unwind_row *a, const struct ldlat_unwind_row *b)
{
	return a->kind == b->kind && a->cfa == b->cfa && a->fp == b->fp;
}

static void row_str(char *buf, size_t len, const struct ldlat_unwind_row *r)
{
	snprintf(buf, len, "cfa kind %u off %u, fp kind %u, rbx kind %u, off %d",
		 LDLAT_UNWIND_ROW_CFA(r), r->cfa, LDLAT_UNWIND_ROW_FP(r), LDLAT_UNWIND_ROW_RBX(r),
		 r->fp);
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

/* cc1's table through the cache c: 0, and t as unwind_cache__table_fd gives it. */
static int cache_table(struct unwind_cache *c, const char *cc1, struct unwind_table *t)
{
	struct err err = {};
	int fd = open(cc1, O_RDONLY | O_CLOEXEC), e;

	ck_assert_int_ge(fd, 0);
	e = unwind_cache__table_fd(c, t, fd, cc1, &err);
	close(fd);
	ck_assert_msg(e == 0, "%s", err.msg);
	return e;
}

/*
 * The cache of compiled tables: kept only in a directory of this user's
 * alone, reached by no link; an entry named by the build ID readelf reads
 * in the file, giving back the rows the compiler gave; an entry altered (a
 * row out of order), a link, or one open to others is refused, compiled
 * again and replaced by a regular file; a file another user may write or
 * owns is compiled and never kept.
 */
START_TEST(test_table_cache)
{
	struct unwind_table fresh, t;
	struct unwind_cache c;
	struct err err = {};
	char *cc1 = NULL, *id = NULL, entry[600];
	struct ldlat_unwind_row zero = {};
	struct stat st;
	int fd;

	ck_assert_int_eq(sh(&cc1, NULL, "gcc -print-prog-name=cc1"), 0);
	cc1[strcspn(cc1, "\n")] = '\0';
	ck_assert_int_eq(sh(&id, NULL,
			    "readelf -n %s | sed -n 's/.*Build ID: *\\([0-9a-f]*\\).*/\\1/p'", cc1),
			 0);
	id[strcspn(id, "\n")] = '\0';
	ck_assert_uint_eq(strlen(id), 40);
	snprintf(entry, sizeof(entry), "%s/%s", tmp("cache-t"), id);

	/* a directory others may read, and a link to one: not used */
	ck_assert_int_eq(mkdir(tmp("cache-open"), 0755), 0);
	ck_assert_int_eq(chmod(tmp("cache-open"), 0755), 0);
	ck_assert_int_eq(unwind_cache__open(&c, tmp("cache-open"), &err), -EPERM);
	ck_assert_int_eq(c.dirfd, -1);
	ck_assert_int_eq(unwind_cache__open(&c, tmp("cache-t"), &err), 0);
	unwind_cache__close(&c);
	ck_assert_int_eq(stat(tmp("cache-t"), &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0700);
	ck_assert_int_eq(symlink(tmp("cache-t"), tmp("cache-link")), 0);
	ck_assert_int_lt(unwind_cache__open(&c, tmp("cache-link"), &err), 0);
	ck_assert_int_eq(c.dirfd, -1);

	ck_assert_int_eq(unwind_table__compile(&fresh, cc1, &err), 0);
	ck_assert_uint_ge(fresh.nrows, UNWIND_CACHE_MIN_ROWS);
	ck_assert_int_eq(unwind_cache__open(&c, tmp("cache-t"), &err), 0);
	/* compiled and kept under the build ID */
	cache_table(&c, cc1, &t);
	ck_assert_uint_eq(c.stored, 1);
	ck_assert_uint_eq(c.hits, 0);
	unwind_table__free(&t);
	ck_assert_int_eq(lstat(entry, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	ck_assert_int_gt(st.st_size, (off_t)(fresh.nrows * sizeof(*fresh.rows)));
	/* found again: the compiler's rows */
	cache_table(&c, cc1, &t);
	ck_assert_uint_eq(c.hits, 1);
	ck_assert_uint_eq(t.nrows, fresh.nrows);
	ck_assert_uint_eq(t.base, fresh.base);
	ck_assert_int_eq(t.nseg, fresh.nseg);
	ck_assert(!memcmp(t.rows, fresh.rows, fresh.nrows * sizeof(*fresh.rows)));
	unwind_table__free(&t);

	/* the last row's address zeroed: out of order, refused, compiled and kept again */
	fd = open(entry, O_WRONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pwrite(fd, &zero, sizeof(zero), st.st_size - (off_t)sizeof(zero)),
			 (ssize_t)sizeof(zero));
	close(fd);
	cache_table(&c, cc1, &t);
	ck_assert_uint_eq(c.refused, 1);
	ck_assert_uint_eq(c.hits, 1);
	ck_assert_uint_eq(c.stored, 2);
	ck_assert(!memcmp(t.rows, fresh.rows, fresh.nrows * sizeof(*fresh.rows)));
	unwind_table__free(&t);
	cache_table(&c, cc1, &t);
	ck_assert_uint_eq(c.hits, 2);
	unwind_table__free(&t);

	/* a link in its place, to a valid copy: refused, replaced by a regular file */
	ck_assert_int_eq(sh(NULL, NULL, "cp -p %s %s && ln -sf %s %s", entry, tmp("entry-copy"),
			    tmp("entry-copy"), entry),
			 0);
	cache_table(&c, cc1, &t);
	ck_assert_uint_eq(c.refused, 2);
	ck_assert_uint_eq(c.hits, 2);
	unwind_table__free(&t);
	ck_assert_int_eq(lstat(entry, &st), 0);
	ck_assert(S_ISREG(st.st_mode));

	/* an entry others may write: refused */
	ck_assert_int_eq(chmod(entry, 0666), 0);
	cache_table(&c, cc1, &t);
	ck_assert_uint_eq(c.refused, 3);
	ck_assert_uint_eq(c.hits, 2);
	unwind_table__free(&t);

	unwind_cache__close(&c);

	/*
	 * a copy of the compiler others may write, then one another user owns:
	 * its own rows, compiled, never kept under the build ID it carries
	 */
	snprintf(entry, sizeof(entry), "%s/%s", tmp("cache-u"), id);
	ck_assert_int_eq(
		sh(NULL, NULL, "cp %s %s && chmod 0757 %s", cc1, tmp("cc1-copy"), tmp("cc1-copy")),
		0);
	ck_assert_int_eq(unwind_cache__open(&c, tmp("cache-u"), &err), 0);
	cache_table(&c, tmp("cc1-copy"), &t);
	ck_assert_uint_eq(t.nrows, fresh.nrows);
	unwind_table__free(&t);
	ck_assert_uint_eq(c.stored, 0);
	ck_assert_int_eq(lstat(entry, &st), -1);
	ck_assert_int_eq(chmod(tmp("cc1-copy"), 0755), 0);
	if (need_root("the cache's test of a file another user owns")) {
		ck_assert_int_eq(chown(tmp("cc1-copy"), 65534, 65534), 0); /* nobody's */
		cache_table(&c, tmp("cc1-copy"), &t);
		unwind_table__free(&t);
		ck_assert_uint_eq(c.stored, 0);
		ck_assert_int_eq(lstat(entry, &st), -1);
		ck_assert_int_eq(chown(tmp("cc1-copy"), 0, 0), 0);
	}
	/* the same file, this user's and closed to others: kept */
	cache_table(&c, tmp("cc1-copy"), &t);
	unwind_table__free(&t);
	ck_assert_uint_eq(c.stored, 1);
	ck_assert_int_eq(lstat(entry, &st), 0);
	unwind_cache__close(&c);

	unwind_table__free(&fresh);
	sh(NULL, NULL, "rm -rf %s %s %s %s %s %s", tmp("cache-t"), tmp("cache-open"),
	   tmp("cache-link"), tmp("entry-copy"), tmp("cache-u"), tmp("cc1-copy"));
	free(cc1);
	free(id);
}
END_TEST

/* A file without call frame information: -ENODATA, its frames left to frame pointers. */
START_TEST(test_table_no_cfi)
{
	const char *out = tmp("nocfi");
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
	ck_assert_int_eq(unwind_table__compile(&t, tmp("absent"), &err), -ENOENT);
}
END_TEST

/* What one walk found, and what backtrace() found from the same place. */
struct walk {
	__u64 ips[LDLAT_STACK_DEPTH];
	__u32 nr;
	__u16 stop; /* enum ldlat_unwind_stop + 1 */
	void *bt[LDLAT_STACK_DEPTH];
	int nbt;
	/* wdefer_tgid: the same registers deferred under it (ldlat_unwind_defer_send) */
	struct ldlat_unwind_defer *rec;
};

static struct session wsess;
static struct unwind_set wset;
static volatile int wsink;
static int wrepeat = 1;	  /* test runs of each walk: more to time them */
static __u32 wdefer_tgid; /* a process with no tables: the walk's registers deferred under it */
static struct ring_buffer *wring;
static struct ldlat_unwind_defer *wrec; /* the last record the ring gave */
static int wrecs;			/* and how many it gave */

static int defer_got(void *ctx, void *data, size_t size)
{
	(void)ctx;
	ck_assert_uint_eq(size, sizeof(*wrec));
	if (!wrec)
		wrec = malloc(sizeof(*wrec));
	ck_assert_ptr_nonnull(wrec);
	memcpy(wrec, data, sizeof(*wrec));
	wrecs++;
	return 0;
}

/* The records in the 'unwind_defer' ring: how many, the last in wrec. */
static int defer_drain(void)
{
	if (!wring)
		wring = ring_buffer__new(bpf_map__fd(wsess.skel->maps.unwind_defer), defer_got,
					 NULL, NULL);
	ck_assert_ptr_nonnull(wring);
	wrecs = 0;
	ck_assert_int_ge(ring_buffer__consume(wring), 0);
	return wrecs;
}

/* Every stored path out of top_stacks, so that the next walk's is the only one. */
static void stacks_clear(void)
{
	int fd = bpf_map__fd(wsess.skel->maps.top_stacks);
	__u64 key;

	while (!bpf_map_get_next_key(fd, NULL, &key))
		bpf_map_delete_elem(fd, &key);
}

/*
 * The walk from the calling function: its PC, SP and RBP into the test
 * entry (run repeat times), backtrace() beside it.  Frame 0 is a PC in that
 * function for both; the rest are return addresses, which both give as
 * they are.  Inlined, so that the registers and backtrace() are the
 * caller's.
 */
static inline __attribute__((always_inline)) void walk_from_caller(struct walk *w, int repeat)
{
	__u64 args[4];
	struct ldlat_top_stack st;
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args, .ctx_size_in = sizeof(args));
	int fd = bpf_map__fd(wsess.skel->maps.top_stacks);
	__u64 key;

	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
			 : "=r"(args[0]), "=r"(args[1]), "=r"(args[2]));
	args[3] = (__u64)getpid();
	w->nbt = backtrace(w->bt, LDLAT_STACK_DEPTH);
	stacks_clear();
	w->nr = 0;
	for (int i = 0; i < repeat; i++)
		if (bpf_prog_test_run_opts(bpf_program__fd(wsess.skel->progs.ldlat_test_unwind),
					   &opts))
			return;
	if (wdefer_tgid) {
		/* the stack above SP as it was: this frame and its callers' */
		args[3] = wdefer_tgid;
		w->rec = NULL;
		if (bpf_prog_test_run_opts(bpf_program__fd(wsess.skel->progs.ldlat_test_unwind),
					   &opts) ||
		    defer_drain() != 1)
			return;
		w->rec = wrec;
		wrec = NULL;
		stacks_clear();
		args[3] = (__u64)getpid();
		if (bpf_prog_test_run_opts(bpf_program__fd(wsess.skel->progs.ldlat_test_unwind),
					   &opts))
			return;
	}
	if (bpf_map_get_next_key(fd, NULL, &key) || bpf_map_lookup_elem(fd, &key, &st))
		return;
	memcpy(w->ips, st.ips[0], sizeof(w->ips));
	w->nr = st.nr[0];
	w->stop = st.stop[0];
}

/* The walk from here (wrepeat runs) */
static __attribute__((noinline)) void walk_here(struct walk *w)
{
	walk_from_caller(w, wrepeat);
}

/* n calls deep, then the walk */
static __attribute__((noinline)) void deep(int n, struct walk *w)
{
	if (n > 0)
		deep(n - 1, w);
	else
		walk_here(w);
	wsink++;
}

static __attribute__((noinline)) void chain_b(struct walk *w)
{
	walk_here(w);
	wsink++;
}

static __attribute__((noinline)) void chain_a(struct walk *w)
{
	chain_b(w);
	wsink++;
}

/* The same chain with frame pointers, walked where no table covers it. */
static __attribute__((noinline, optimize("no-omit-frame-pointer"))) void
walk_here_fp(struct walk *w)
{
	walk_from_caller(w, 1);
}

static __attribute__((noinline, optimize("no-omit-frame-pointer"))) void chain_fp_b(struct walk *w)
{
	walk_here_fp(w);
	wsink++;
}

static __attribute__((noinline, optimize("no-omit-frame-pointer"))) void chain_fp_a(struct walk *w)
{
	chain_fp_b(w);
	wsink++;
}

static void walk_print(const struct walk *w)
{
	int i;

	fprintf(stderr, "walk: %u frames, stop %d; backtrace: %d\n", w->nr, (int)w->stop - 1,
		w->nbt);
	for (i = 0; i < (int)w->nr || i < w->nbt; i++)
		fprintf(stderr, "  %2d %#18llx %18p\n", i,
			i < (int)w->nr ? (unsigned long long)w->ips[i] : 0ull,
			i < w->nbt ? w->bt[i] : NULL);
}

/*
 * A sanitizer build (make test-asan sets LDLAT_SANITIZED): its backtrace()
 * is AddressSanitizer's, which puts a frame of its own first.
 */
static bool sanitized;

/*
 * frames 1 to n - 1 equal (0: a PC in the function where each started);
 * n 0: every frame backtrace() gave.
 */
static void walk_equal(const struct walk *w, int n)
{
	int i, o = 0, bad = 0;

	/* backtrace()'s frame of the walk's caller, past the sanitizer's own */
	if (sanitized)
		while (o + 1 < w->nbt && w->nr > 1 &&
		       (__u64)(unsigned long)w->bt[o + 1] != w->ips[1])
			o++;
	if (!n)
		n = w->nbt - o;
	if ((int)w->nr < n || o + n > w->nbt)
		bad = 1;
	for (i = 1; !bad && i < n; i++)
		if (w->ips[i] != (__u64)(unsigned long)w->bt[o + i])
			bad = 1;
	if (bad)
		walk_print(w);
	ck_assert_msg(!bad, "the walk's %u frames differ from backtrace()'s %d (first %d)", w->nr,
		      w->nbt, n);
}

/* The walks' counters, both generations, every CPU. */
static void counters_sum(struct ldlat_unwind_counters *sum)
{
	int ncpus = libbpf_num_possible_cpus(), c, k, i;
	struct ldlat_unwind_counters *v = calloc(ncpus, sizeof(*v));

	ck_assert_ptr_nonnull(v);
	memset(sum, 0, sizeof(*sum));
	for (k = 0; k < 2; k++) {
		__u32 key = k;

		ck_assert_int_eq(
			bpf_map_lookup_elem(bpf_map__fd(wsess.skel->maps.unwind_counters), &key, v),
			0);
		for (c = 0; c < ncpus; c++) {
			sum->walks += v[c].walks;
			sum->frames += v[c].frames;
			sum->frames_fp += v[c].frames_fp;
			sum->no_process += v[c].no_process;
			sum->deferred += v[c].deferred;
			sum->defer_full += v[c].defer_full;
			sum->defer_budget += v[c].defer_budget;
			for (i = 0; i < LDLAT_NSTOPS; i++)
				sum->stop[i] += v[c].stop[i];
		}
	}
	free(v);
}

/* ldlat-top's tables of top_entries keys, walking: the test entry loaded */
static void walk_setup_entries(__u32 max_stack, __u32 defer_max, __u32 defer_ring, bool self,
			       __u32 top_entries)
{
	struct ldlat_config c = { .nranges = 1,
				  .max_lat = ~0ull,
				  .class_mask = LDLAT_ALL_CLASSES,
				  .need = LDLAT_HAS_ADDR,
				  .top = LDLAT_TOP_IP | LDLAT_TOP_STACK,
				  .top_shift = 6,
				  .top_entries = top_entries };
	struct top_unwind uw = { .max_stack = max_stack,
				 .files = 16,
				 .procs = 4,
				 .defer_max = defer_max,
				 .defer_ring = defer_ring };
	struct err err = {};

	ck_assert_msg(top_session__open_unwind(&wsess, &c, SESSION_TEST_ENTRY, &uw, &err) == 0,
		      "%s", err.msg);
	unwind_set__init(&wset, bpf_map__fd(wsess.skel->maps.unwind_files), uw.files,
			 bpf_map__fd(wsess.skel->maps.unwind_procs), uw.procs);
	wset.refused = &wsess.skel->bss->unwind_procs_refused;
	if (!self)
		return;
	ck_assert_msg(unwind_set__add_process(&wset, getpid(), &err) == 0, "%s", err.msg);
	/* this program, libc, the loader, libbpf's, libelf's... */
	ck_assert_uint_ge(wset.loaded, 2);
	ck_assert_uint_eq(wset.failed, 0);
}

static void walk_setup_defer(__u32 max_stack, __u32 defer_max, __u32 defer_ring, bool self)
{
	walk_setup_entries(max_stack, defer_max, defer_ring, self, 64);
}

static void walk_setup_depth(__u32 max_stack)
{
	walk_setup_defer(max_stack, 0, 0, true);
}

static void walk_setup(void)
{
	walk_setup_depth(64);
}

static void walk_teardown(void)
{
	ring_buffer__free(wring);
	wring = NULL;
	free(wrec);
	wrec = NULL;
	wdefer_tgid = 0;
	unwind_set__free(&wset);
	session__close(&wsess);
}

/* Plain calls from main: every frame backtrace() finds, the walk ended at _start. */
START_TEST(test_walk_calls)
{
	struct ldlat_unwind_counters sum;
	struct walk w;

	walk_setup();
	chain_a(&w);
	walk_equal(&w, 0);
	counters_sum(&sum);
	ck_assert_uint_eq(sum.walks, 1);
	ck_assert_uint_eq(sum.frames, w.nr);
	ck_assert_uint_eq(sum.frames_fp, 0);
	ck_assert_int_eq(w.stop, LDLAT_STOP_END + 1);
	ck_assert_uint_eq(sum.stop[LDLAT_STOP_END], 1);
	walk_teardown();
}
END_TEST

static struct walk sig_walk;

static void on_signal(int sig)
{
	(void)sig;
	chain_a(&sig_walk);
}

/* From a signal handler: through the kernel's signal frame (glibc's __restore_rt) to main. */
START_TEST(test_walk_signal)
{
	walk_setup();
	signal(SIGUSR1, on_signal);
	raise(SIGUSR1);
	signal(SIGUSR1, SIG_DFL);
	walk_equal(&sig_walk, 0);
	ck_assert_int_eq(sig_walk.stop, LDLAT_STOP_END + 1);
	walk_teardown();
}
END_TEST

static void *in_thread(void *arg)
{
	chain_a(arg);
	return NULL;
}

/* In a thread: up to clone3, whose return address is undefined. */
START_TEST(test_walk_thread)
{
	struct walk w;
	pthread_t t;

	walk_setup();
	ck_assert_int_eq(pthread_create(&t, NULL, in_thread, &w), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	walk_equal(&w, 0);
	ck_assert_int_eq(w.stop, LDLAT_STOP_END + 1);
	walk_teardown();
}
END_TEST

/*
 * This program's mapping told to have no table: the walk goes by frame
 * pointers, which walk_here_fp and its two callers keep; those frames
 * equal backtrace()'s and are counted as found by frame pointers.
 */
START_TEST(test_walk_fp_fallback)
{
	struct ldlat_unwind_proc *p = malloc(sizeof(*p));
	__u64 here = (__u64)(unsigned long)walk_here_fp;
	struct ldlat_unwind_counters sum;
	struct err err = {};
	__u32 key = (__u32)getpid(), i, hit = 0;
	struct walk w;

	ck_assert_ptr_nonnull(p);
	walk_setup();
	ck_assert_int_eq(unwind_set__proc(&wset, getpid(), p, &err), 0);
	for (i = 0; i < p->n; i++)
		if (p->maps[i].start <= here && here < p->maps[i].end) {
			p->maps[i].kind = LDLAT_MAP_NO_TABLE;
			hit++;
		}
	ck_assert_uint_eq(hit, 1);
	ck_assert_int_eq(
		bpf_map_update_elem(bpf_map__fd(wsess.skel->maps.unwind_procs), &key, p, BPF_ANY),
		0);
	chain_fp_a(&w);
	/* walk_here_fp, chain_fp_b, chain_fp_a and the return into this test */
	walk_equal(&w, 4);
	counters_sum(&sum);
	ck_assert_uint_ge(sum.frames_fp, 3);
	free(p);
	walk_teardown();
}
END_TEST

/*
 * The sample deferred for a process with no tables (no entry in
 * 'unwind_procs'): the ring's record holds the registers given and the
 * stack from SP as this test built it, 8 KiB of it, or all that can be
 * read where it ends sooner; a record the
 * ring has no room for, and one past the generation's budget, are counted
 * and not sent.  A published process's sample is deferred only when its
 * PC is in a mapping whose table is pending, or its mappings are those of
 * another program (the one before an exec: the record names the running
 * one's inode).
 */
START_TEST(test_defer_record)
{
	__u64 args[4], pg = (__u64)sysconf(_SC_PAGESIZE), i;
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args, .ctx_size_in = sizeof(args));
	struct ldlat_unwind_proc *p = calloc(1, sizeof(*p));
	struct ldlat_unwind_counters sum;
	__u32 key = 4242;
	struct stat exe;
	int fd;
	unsigned char *stack;

	ck_assert_ptr_nonnull(p);
	/* a ring with room for one record; at most two a generation */
	walk_setup_defer(64, 2, 4 * pg, false);
	fd = bpf_program__fd(wsess.skel->progs.ldlat_test_unwind);
	/* 8 KiB of stack, then a page no one may read (unmapped, a later mmap could fill it) */
	stack = mmap(NULL, LDLAT_UNWIND_COPY_BYTES + pg, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(stack, MAP_FAILED);
	ck_assert_int_eq(mprotect(stack + LDLAT_UNWIND_COPY_BYTES, pg, PROT_NONE), 0);
	for (i = 0; i < LDLAT_UNWIND_COPY_BYTES; i++)
		stack[i] = (unsigned char)(i * 7 + (i >> 8));
	args[0] = 0x401234;
	args[1] = (__u64)(unsigned long)stack;
	args[2] = 0;
	args[3] = 4242;
	ck_assert_int_eq(bpf_prog_test_run_opts(fd, &opts), 0);
	ck_assert_int_eq(bpf_prog_test_run_opts(fd, &opts), 0);
	counters_sum(&sum);
	ck_assert_uint_eq(sum.walks, 2);
	ck_assert_uint_eq(sum.no_process, 2);
	ck_assert_uint_eq(sum.deferred, 1);
	ck_assert_uint_eq(sum.defer_full, 1);
	ck_assert_int_eq(defer_drain(), 1);
	ck_assert_uint_eq(wrec->tgid, 4242);
	ck_assert_uint_eq(wrec->pc, args[0]);
	ck_assert_uint_eq(wrec->sp, args[1]);
	ck_assert_uint_eq(wrec->fp, 0);
	ck_assert_uint_eq(wrec->len, LDLAT_UNWIND_COPY_BYTES);
	ck_assert_int_eq(memcmp(wrec->stack, stack, LDLAT_UNWIND_COPY_BYTES), 0);
	/* 3000 bytes before the end: all of them (the outermost frames are the last) */
	args[1] = (__u64)(unsigned long)(stack + LDLAT_UNWIND_COPY_BYTES - 3000);
	args[2] = 0x7ffe0000;
	ck_assert_int_eq(bpf_prog_test_run_opts(fd, &opts), 0);
	ck_assert_int_eq(defer_drain(), 1);
	ck_assert_uint_eq(wrec->len, 3000);
	ck_assert_uint_eq(wrec->fp, args[2]);
	ck_assert_int_eq(memcmp(wrec->stack, stack + LDLAT_UNWIND_COPY_BYTES - 3000, 3000), 0);
	/* the budget spent: counted, not sent */
	ck_assert_int_eq(bpf_prog_test_run_opts(fd, &opts), 0);
	ck_assert_int_eq(defer_drain(), 0);
	counters_sum(&sum);
	ck_assert_uint_eq(sum.deferred, 2);
	ck_assert_uint_eq(sum.defer_budget, 1);
	/* a published process: deferred only with its PC in a pending mapping */
	memset(&sum, 0, sizeof(sum));
	for (i = 0; i < 2; i++) {
		__u32 k = (__u32)i;
		int ncpus = libbpf_num_possible_cpus();
		void *zero = calloc(ncpus, sizeof(sum));

		ck_assert_ptr_nonnull(zero);
		ck_assert_int_eq(bpf_map_update_elem(bpf_map__fd(wsess.skel->maps.unwind_counters),
						     &k, zero, BPF_ANY),
				 0);
		free(zero);
	}
	p->n = 1;
	p->maps[0].start = 0x400000;
	p->maps[0].end = 0x500000;
	p->maps[0].kind = LDLAT_MAP_NO_TABLE;
	ck_assert_int_eq(
		bpf_map_update_elem(bpf_map__fd(wsess.skel->maps.unwind_procs), &key, p, BPF_ANY),
		0);
	ck_assert_int_eq(bpf_prog_test_run_opts(fd, &opts), 0);
	ck_assert_int_eq(defer_drain(), 0);
	p->maps[0].kind = LDLAT_MAP_PENDING;
	ck_assert_int_eq(
		bpf_map_update_elem(bpf_map__fd(wsess.skel->maps.unwind_procs), &key, p, BPF_ANY),
		0);
	ck_assert_int_eq(bpf_prog_test_run_opts(fd, &opts), 0);
	ck_assert_int_eq(defer_drain(), 1);
	ck_assert_uint_eq(wrec->pc, args[0]);
	counters_sum(&sum);
	ck_assert_uint_eq(sum.walks, 2);
	ck_assert_uint_eq(sum.no_process, 0);
	ck_assert_uint_eq(sum.deferred, 1);
	/* mappings of another program (before an exec): none, and deferred */
	ck_assert_int_eq(stat("/proc/self/exe", &exe), 0);
	p->maps[0].kind = LDLAT_MAP_NO_TABLE;
	p->exe_ino = exe.st_ino + 1;
	ck_assert_int_eq(
		bpf_map_update_elem(bpf_map__fd(wsess.skel->maps.unwind_procs), &key, p, BPF_ANY),
		0);
	ck_assert_int_eq(bpf_prog_test_run_opts(fd, &opts), 0);
	ck_assert_int_eq(defer_drain(), 1);
	ck_assert_uint_eq(wrec->exe_ino, exe.st_ino);
	p->exe_ino = exe.st_ino;
	ck_assert_int_eq(
		bpf_map_update_elem(bpf_map__fd(wsess.skel->maps.unwind_procs), &key, p, BPF_ANY),
		0);
	ck_assert_int_eq(bpf_prog_test_run_opts(fd, &opts), 0);
	ck_assert_int_eq(defer_drain(), 0);
	counters_sum(&sum);
	ck_assert_uint_eq(sum.no_process, 1);
	munmap(stack, LDLAT_UNWIND_COPY_BYTES + pg);
	free(p);
	walk_teardown();
}
END_TEST

/*
 * A walk that reaches a mapping whose table is on its way (a program just
 * exec'd: its own table comes after those of the libraries its parent
 * mapped too) ends there and the sample is deferred; it does not follow
 * the frame pointer on (code without frame pointers leaves RBP any value:
 * the frames past it were garbage, and the walk ended outside the pending
 * mapping, not deferred).  Built by hand: the PC in a mapping without a
 * table, whose frame pointer leads to a return into the pending mapping,
 * whose own would lead one frame further.
 */
START_TEST(test_defer_pending_caller)
{
	__u64 args[4], *stack = calloc(64, sizeof(__u64));
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args, .ctx_size_in = sizeof(args));
	struct ldlat_unwind_proc *p = calloc(1, sizeof(*p));
	struct ldlat_unwind_counters sum;
	__u32 key = 4242;
	int fd;

	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_nonnull(stack);
	walk_setup_defer(64, 16, 16 * (__u32)sysconf(_SC_PAGESIZE), false);
	fd = bpf_program__fd(wsess.skel->progs.ldlat_test_unwind);
	p->n = 2;
	p->maps[0].start = 0x400000;
	p->maps[0].end = 0x500000;
	p->maps[0].kind = LDLAT_MAP_NO_TABLE;
	p->maps[1].start = 0x600000;
	p->maps[1].end = 0x700000;
	p->maps[1].kind = LDLAT_MAP_PENDING;
	ck_assert_int_eq(
		bpf_map_update_elem(bpf_map__fd(wsess.skel->maps.unwind_procs), &key, p, BPF_ANY),
		0);
	/* RBP at stack[8]: the caller's RBP and a return into the pending mapping */
	stack[8] = (__u64)(unsigned long)&stack[16];
	stack[9] = 0x601000;
	/* the pending frame's RBP: one more frame, in the mapping without a table */
	stack[16] = (__u64)(unsigned long)&stack[24];
	stack[17] = 0x402000;
	args[0] = 0x401234;
	args[1] = (__u64)(unsigned long)stack;
	args[2] = (__u64)(unsigned long)&stack[8];
	args[3] = key;
	ck_assert_int_eq(bpf_prog_test_run_opts(fd, &opts), 0);
	counters_sum(&sum);
	ck_assert_uint_eq(sum.walks, 1);
	ck_assert_uint_eq(sum.frames, 2);
	ck_assert_uint_eq(sum.frames_fp, 1);
	ck_assert_uint_eq(sum.stop[LDLAT_STOP_NO_TABLE], 1);
	ck_assert_uint_eq(sum.deferred, 1);
	ck_assert_int_eq(defer_drain(), 1);
	ck_assert_uint_eq(wrec->pc, args[0]);
	free(stack);
	free(p);
	walk_teardown();
}
END_TEST

/*
 * A process the map of processes refused has no entry and gets none: its
 * samples are not deferred (counted in no_process) while the map refuses,
 * and are again once an entry is freed.  The map (4 entries) filled: this
 * process, and three more by hand; the parent is refused (E2BIG).
 */
START_TEST(test_defer_refused)
{
	__u64 args[4];
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args, .ctx_size_in = sizeof(args));
	struct ldlat_unwind_proc *p = calloc(1, sizeof(*p));
	struct ldlat_unwind_counters sum;
	unsigned char *stack = calloc(1, LDLAT_UNWIND_COPY_BYTES);
	struct err err = {};
	struct stat exe;
	__u32 key;
	int fd;

	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_nonnull(stack);
	walk_setup_defer(64, 16, 16 * (__u32)sysconf(_SC_PAGESIZE), true);
	fd = bpf_program__fd(wsess.skel->progs.ldlat_test_unwind);
	ck_assert_uint_eq(wsess.skel->bss->unwind_procs_refused, 0);
	for (key = 4243; key < 4246; key++)
		ck_assert_int_eq(bpf_map_update_elem(bpf_map__fd(wsess.skel->maps.unwind_procs),
						     &key, p, BPF_NOEXIST),
				 0);
	ck_assert_int_eq(unwind_set__add_process(&wset, getppid(), &err), -E2BIG);
	ck_assert_uint_eq(wset.procs_full, 1);
	ck_assert_uint_eq(wsess.skel->bss->unwind_procs_refused, 1);
	/* a process with no entry: counted, not sent */
	args[0] = 0x401234;
	args[1] = (__u64)(unsigned long)stack;
	args[2] = 0;
	args[3] = 4242;
	ck_assert_int_eq(bpf_prog_test_run_opts(fd, &opts), 0);
	ck_assert_int_eq(defer_drain(), 0);
	counters_sum(&sum);
	ck_assert_uint_eq(sum.no_process, 1);
	ck_assert_uint_eq(sum.deferred, 0);
	ck_assert_uint_eq(sum.defer_full + sum.defer_budget, 0);
	/* one whose entry is its program's before an exec: replaced in place, deferred */
	ck_assert_int_eq(stat("/proc/self/exe", &exe), 0);
	p->exe_ino = exe.st_ino + 1;
	key = 4243;
	ck_assert_int_eq(
		bpf_map_update_elem(bpf_map__fd(wsess.skel->maps.unwind_procs), &key, p, BPF_ANY),
		0);
	args[3] = key;
	ck_assert_int_eq(bpf_prog_test_run_opts(fd, &opts), 0);
	ck_assert_int_eq(defer_drain(), 1);
	ck_assert_uint_eq(wrec->tgid, key);
	args[3] = 4242;
	/* an entry freed: room again, and the same sample is deferred */
	unwind_set__forget(&wset, getpid());
	ck_assert_uint_eq(wsess.skel->bss->unwind_procs_refused, 0);
	ck_assert_int_eq(bpf_prog_test_run_opts(fd, &opts), 0);
	ck_assert_int_eq(defer_drain(), 1);
	ck_assert_uint_eq(wrec->tgid, 4242);
	counters_sum(&sum);
	ck_assert_uint_eq(sum.no_process, 3);
	ck_assert_uint_eq(sum.deferred, 2);
	free(stack);
	free(p);
	walk_teardown();
}
END_TEST

/* The call-path table's samples counted full (not attributed), generation 0, CPU 0. */
static __u64 stack_full(void)
{
	struct ldlat_top_counters v[libbpf_num_possible_cpus()];
	__u32 slot = 0;

	ck_assert_int_eq(bpf_map_lookup_elem(bpf_map__fd(wsess.skel->maps.top_counters), &slot, v),
			 0);
	return v[0].full[2];
}

/*
 * A deferred record only for a sample counted under its path's key: the
 * drain moves that count to the walked path.  A call-path table of one
 * entry (the first path's) and the smallest spill ring (1 MiB): a second
 * path spills with its key, and is sent; once the ring is full, the
 * sample whose batch it refuses is counted in full, and is not sent (else
 * the drain would take a count from another sample of its path).  The
 * ring is filled with the map of processes marked refusing: those
 * samples are not deferred.  Every run on CPU 0: the batches are a CPU's.
 */
START_TEST(test_defer_kept_only)
{
	__u64 args[4], full;
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args, .ctx_size_in = sizeof(args),
		    .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = 0);
	unsigned char *stack = calloc(1, LDLAT_UNWIND_COPY_BYTES);
	int fd, i;

	ck_assert_ptr_nonnull(stack);
	walk_setup_entries(64, 64, 16 * (__u32)sysconf(_SC_PAGESIZE), false, 1);
	ck_assert_uint_eq(bpf_map__max_entries(wsess.skel->maps.top_spill), 1 << 20);
	fd = bpf_program__fd(wsess.skel->progs.ldlat_test_unwind);
	args[1] = (__u64)(unsigned long)stack;
	args[2] = 0;
	args[3] = 4242;
	/* the first path takes the table's entry; the second spills, sent */
	args[0] = 0x401234;
	ck_assert_int_eq(bpf_prog_test_run_opts(fd, &opts), 0);
	ck_assert_int_eq(defer_drain(), 1);
	args[0] = 0x405678;
	ck_assert_int_eq(bpf_prog_test_run_opts(fd, &opts), 0);
	ck_assert_int_eq(defer_drain(), 1);
	ck_assert_uint_eq(wrec->pc, args[0]);
	ck_assert_uint_eq(stack_full(), 0);
	/* the ring filled, till it refuses a batch (1351 batches of 32 fit) */
	wsess.skel->bss->unwind_procs_refused = 1;
	for (i = 0; i < 50000 && !stack_full(); i++)
		ck_assert_int_eq(bpf_prog_test_run_opts(fd, &opts), 0);
	full = stack_full();
	ck_assert_uint_eq(full, 32);
	ck_assert_int_eq(defer_drain(), 0);
	/* a batch but its last, then the last deferred: refused with its batch, not sent */
	for (i = 0; i < 31; i++)
		ck_assert_int_eq(bpf_prog_test_run_opts(fd, &opts), 0);
	ck_assert_uint_eq(stack_full(), full);
	wsess.skel->bss->unwind_procs_refused = 0;
	ck_assert_int_eq(bpf_prog_test_run_opts(fd, &opts), 0);
	ck_assert_uint_eq(stack_full(), full + 32);
	ck_assert_int_eq(defer_drain(), 0);
	free(stack);
	walk_teardown();
}
END_TEST

static bool defer_all(struct unwind_deferred *e, void *ctx)
{
	(void)e;
	(void)ctx;
	return true;
}

/*
 * ldlat-top's queue of deferred records holds at most its bound of copies
 * (the ring's size): three records the kernel sent, of 8 KiB each, into a
 * queue with room for two: two kept, one counted (its sample keeps its
 * frame pointers' path), and the bytes given back when they go.  A poll
 * reads each process's entry once, however its records interleave.  A
 * walk's frames count in the bound too; the tables read back for the walks
 * are forgotten once no record waits.
 */
START_TEST(test_defer_queue_bound)
{
	__u64 args[4], pg = (__u64)sysconf(_SC_PAGESIZE);
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args, .ctx_size_in = sizeof(args));
	size_t one = offsetof(struct ldlat_unwind_defer, stack) + LDLAT_UNWIND_COPY_BYTES;
	struct unwind_defer_queue q;
	struct ldlat_unwind_counters sum;
	unsigned char *stack;
	int fd, i;

	walk_setup_defer(64, 16, 16 * pg, true);
	fd = bpf_program__fd(wsess.skel->progs.ldlat_test_unwind);
	stack = mmap(NULL, LDLAT_UNWIND_COPY_BYTES, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(stack, MAP_FAILED);
	memset(stack, 0x5a, LDLAT_UNWIND_COPY_BYTES);
	args[0] = 0x401234;
	args[1] = (__u64)(unsigned long)stack;
	args[2] = 0;
	args[3] = 4242;
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(bpf_prog_test_run_opts(fd, &opts), 0);
	counters_sum(&sum);
	ck_assert_uint_eq(sum.deferred, 3);
	ck_assert_uint_eq(sum.defer_full, 0);
	ck_assert_int_eq(unwind_defer__open(&q, bpf_map__fd(wsess.skel->maps.unwind_defer),
					    bpf_map__fd(wsess.skel->maps.unwind_files), 16,
					    bpf_map__fd(wsess.skel->maps.unwind_procs), 64,
					    2 * one),
			 0);
	ck_assert_int_eq(unwind_defer__poll(&q), 0);
	ck_assert_uint_eq(q.n, 2);
	ck_assert_uint_eq(q.nomem, 1);
	ck_assert_uint_eq(q.held, 2 * one);
	/* one process's entry read once a poll */
	ck_assert_uint_eq(q.proc_reads, 1);
	unwind_defer__remove_if(&q, defer_all, NULL);
	ck_assert_uint_eq(q.n, 0);
	ck_assert_uint_eq(q.held, 0);
	/*
	 * two processes' records interleaved, as two CPUs' are in the ring:
	 * each process's entry read once in a poll, not at every change
	 */
	for (i = 0; i < 4; i++) {
		args[3] = 4242 + (i & 1);
		ck_assert_int_eq(bpf_prog_test_run_opts(fd, &opts), 0);
	}
	q.max_held = 8 * one;
	q.proc_reads = 0;
	ck_assert_int_eq(unwind_defer__poll(&q), 0);
	ck_assert_uint_eq(q.n, 4);
	ck_assert_uint_eq(q.proc_reads, 2);
	/*
	 * 4242 given this process's mappings: its two records walked (one
	 * frame: the PC is in none), their copies given back for their frames;
	 * this process's tables read back, and forgotten once none waits
	 */
	{
		struct ldlat_unwind_proc *self = malloc(sizeof(*self));
		__u32 me = (__u32)getpid(), other = 4242, slots = 0;

		ck_assert_ptr_nonnull(self);
		ck_assert_int_eq(
			bpf_map_lookup_elem(bpf_map__fd(wsess.skel->maps.unwind_procs), &me, self),
			0);
		ck_assert_int_eq(bpf_map_update_elem(bpf_map__fd(wsess.skel->maps.unwind_procs),
						     &other, self, BPF_ANY),
				 0);
		free(self);
		ck_assert_int_eq(unwind_defer__poll(&q), 0);
		ck_assert_uint_eq(q.held, 2 * one + 2 * sizeof(__u64));
		for (i = 0; i < (int)q.native.nslots; i++)
			slots += q.native.tables[i].blocks != NULL;
		ck_assert_uint_gt(slots, 0);
		unwind_defer__remove_if(&q, defer_all, NULL);
		ck_assert_uint_eq(q.held, 0);
		for (i = 0; i < (int)q.native.nslots; i++)
			ck_assert_ptr_null(q.native.tables[i].blocks);
	}
	unwind_defer__close(&q);
	munmap(stack, LDLAT_UNWIND_COPY_BYTES);
	walk_teardown();
}
END_TEST

/* The sample of stale_a's walk under stale_tgid's entry, its path, and that with this process's */
static __u32 stale_tgid;
static struct ldlat_top_stack stale_st, stale_full;

static void stale_path(struct ldlat_top_stack *st)
{
	int fd = bpf_map__fd(wsess.skel->maps.top_stacks);
	__u64 key;

	ck_assert_int_eq(bpf_map_get_next_key(fd, NULL, &key), 0);
	ck_assert_int_eq(bpf_map_lookup_elem(fd, &key, st), 0);
	stacks_clear();
}

static __attribute__((noinline, optimize("no-omit-frame-pointer"))) void stale_here(void)
{
	__u64 args[4];
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args, .ctx_size_in = sizeof(args));
	int fd = bpf_program__fd(wsess.skel->progs.ldlat_test_unwind);

	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
			 : "=r"(args[0]), "=r"(args[1]), "=r"(args[2]));
	stacks_clear();
	args[3] = stale_tgid;
	ck_assert_int_eq(bpf_prog_test_run_opts(fd, &opts), 0);
	stale_path(&stale_st);
	args[3] = (__u64)getpid();
	ck_assert_int_eq(bpf_prog_test_run_opts(fd, &opts), 0);
	stale_path(&stale_full);
	wsink++;
}

static __attribute__((noinline, optimize("no-omit-frame-pointer"))) void stale_a(void)
{
	stale_here();
	wsink++;
}

/* A PC past a prologue that saves RBP: its rule takes the caller's frame from RBP */
static __attribute__((noinline)) void wsink_add(void)
{
	wsink++;
}

static __attribute__((noinline, optimize("no-omit-frame-pointer"))) __u64 fp_body_pc(void)
{
	__u64 pc;

	wsink_add(); /* a call: the function has a frame */
	__asm__ volatile("lea 0(%%rip), %0" : "=r"(pc));
	wsink_add();
	return pc;
}

/* p without its mapping that holds addr (p->n - 1 of them then) */
static void entry_without(struct ldlat_unwind_proc *p, __u64 addr)
{
	int i = ldlat_unwind_map_find(p, addr);

	ck_assert_int_ge(i, 0);
	memmove(&p->maps[i], &p->maps[i + 1], (p->n - (__u32)i - 1) * sizeof(p->maps[0]));
	p->n--;
}

static int reread_calls, reread_ret;
static const struct ldlat_unwind_proc
	*reread_with; /* what a read from /proc stores (NULL: as it was) */

static int reread_entry(void *ctx, __u32 tgid)
{
	(void)ctx;
	reread_calls++;
	if (reread_with)
		ck_assert_int_eq(bpf_map_update_elem(bpf_map__fd(wsess.skel->maps.unwind_procs),
						     &tgid, reread_with, BPF_ANY),
				 0);
	return reread_ret;
}

static bool defer_walked(struct unwind_deferred *e, void *ctx)
{
	(void)ctx;
	return e->ips != NULL;
}

/*
 * A process's entry older than its sample: the library the sample ran in,
 * or one of its callers returns to, mapped after the side band was last
 * read (a program's first page faults are its loader's mapping its
 * libraries; cc1's first run walked 2,352 of 7,222 samples to one frame
 * so).  Such a sample is deferred: at its PC in no mapping of the entry
 * (the path meanwhile its frame pointers'), or at a return address the
 * tables' rules gave in none (the walk ends there, not on by a frame
 * pointer).  Its walk in user space finds the entry as old, has it read
 * from /proc again (once: a poll's other records of the process walk with
 * that), and walks with what that read stored; one whose mapping is in no
 * read either keeps the walk it gets, and one whose process is gone waits.
 */
START_TEST(test_defer_stale_entry)
{
	struct ldlat_unwind_proc *self = malloc(sizeof(*self)), *old = malloc(sizeof(*self));
	__u32 me = (__u32)getpid(), a = 4242, b = 4243, i, n;
	struct ldlat_unwind_counters sum;
	struct unwind_defer_queue q;
	struct err err = {};
	struct ldlat_top_stack full[2], *f; /* a's and b's, each with every mapping known */
	__u64 lib = 0;
	size_t k;
	int fd;

	ck_assert_ptr_nonnull(self);
	ck_assert_ptr_nonnull(old);
	walk_setup_defer(64, 16, 1 << 20, true);
	fd = bpf_map__fd(wsess.skel->maps.unwind_procs);
	ck_assert_int_eq(bpf_map_lookup_elem(fd, &me, self), 0);
	/* the walk with every mapping known: this program's frames, then a library's */
	stale_tgid = me;
	stale_a();
	ck_assert_uint_ge(stale_full.nr[0], 4);
	for (i = 1; i < stale_full.nr[0] && !lib; i++)
		if (ldlat_unwind_map_find(self, stale_full.ips[0][i]) !=
		    ldlat_unwind_map_find(self, stale_full.ips[0][0]))
			lib = stale_full.ips[0][i];
	ck_assert_msg(lib, "no frame outside this program's mapping");
	counters_sum(&sum);
	ck_assert_uint_eq(sum.deferred, 0);
	/* a: the entry without this program's code, where the sample's PC is */
	*old = *self;
	entry_without(old, stale_full.ips[0][0]);
	ck_assert_int_eq(bpf_map_update_elem(fd, &a, old, BPF_ANY), 0);
	stale_tgid = a;
	stale_a();
	full[0] = stale_full;
	counters_sum(&sum);
	ck_assert_uint_eq(sum.deferred, 1);
	/* its path meanwhile the frame pointers' (stale_here's and stale_a's), not one frame */
	ck_assert_uint_ge(stale_st.nr[0], 3);
	for (i = 0; i < 3; i++)
		ck_assert_uint_eq(stale_st.ips[0][i], full[0].ips[0][i]);
	/* b: without the library the frames return to: the walk ends at its first return there */
	*old = *self;
	entry_without(old, lib);
	ck_assert_int_eq(bpf_map_update_elem(fd, &b, old, BPF_ANY), 0);
	stale_tgid = b;
	stale_a();
	full[1] = stale_full;
	ck_assert_int_eq(stale_st.stop[0], LDLAT_STOP_NO_MAPPING + 1);
	ck_assert_uint_eq(stale_st.ips[0][stale_st.nr[0] - 1], lib);
	counters_sum(&sum);
	ck_assert_uint_eq(sum.deferred, 2);
	/* walked in user space: each entry read again once, and the walks are the whole entry's */
	ck_assert_int_eq(unwind_defer__open(&q, bpf_map__fd(wsess.skel->maps.unwind_defer),
					    bpf_map__fd(wsess.skel->maps.unwind_files), 16, fd, 64,
					    1 << 20),
			 0);
	q.reread = reread_entry;
	reread_with = self;
	ck_assert_int_eq(unwind_defer__poll(&q), 0);
	ck_assert_uint_eq(q.n, 2);
	ck_assert_int_eq(reread_calls, 2);
	ck_assert_uint_eq(q.rereads, 2);
	for (k = 0; k < q.n; k++) {
		ck_assert_ptr_nonnull(q.q[k].ips);
		f = &full[q.q[k].tgid == b];
		fprintf(stderr,
			"check_unwind: an entry older than its sample (%u): %u frames after it was "
			"read again, ended %u; the kernel's with every mapping known %u, ended "
			"%u\n",
			q.q[k].tgid, q.q[k].nr, q.q[k].stop, f->nr[0], f->stop[0] - 1);
		/* as far as the 8 KiB copy went */
		n = q.q[k].nr < f->nr[0] ? q.q[k].nr : f->nr[0];
		ck_assert_uint_ge(n, 4);
		for (i = 0; i < n; i++)
			ck_assert_msg(q.q[k].ips[i] == f->ips[0][i],
				      "frame %u: %llx, the kernel's %llx", i,
				      (unsigned long long)q.q[k].ips[i],
				      (unsigned long long)f->ips[0][i]);
		if (q.q[k].nr < f->nr[0])
			ck_assert_uint_eq(q.q[k].stop, LDLAT_STOP_READ);
		else
			ck_assert_uint_eq(q.q[k].stop + 1, f->stop[0]);
	}
	unwind_defer__remove_if(&q, defer_all, NULL);
	/* a read that finds the mapping in none either: the walk is taken as it is */
	*old = *self;
	entry_without(old, stale_full.ips[0][0]);
	ck_assert_int_eq(bpf_map_update_elem(fd, &a, old, BPF_ANY), 0);
	stale_tgid = a;
	stale_a();
	stale_a();
	reread_with = NULL;
	reread_calls = 0;
	ck_assert_int_eq(unwind_defer__poll(&q), 0);
	ck_assert_uint_eq(q.n, 2);
	ck_assert_int_eq(reread_calls, 1);
	for (k = 0; k < q.n; k++) {
		ck_assert_ptr_nonnull(q.q[k].ips);
		ck_assert_uint_eq(q.q[k].nr, 1);
		ck_assert_uint_eq(q.q[k].stop, LDLAT_STOP_NO_MAPPING);
	}
	unwind_defer__remove_if(&q, defer_all, NULL);
	/* its process gone (the read fails): not walked, kept for the drain to leave to its frame pointers */
	stale_a();
	reread_ret = -ESRCH;
	reread_calls = 0;
	ck_assert_int_eq(unwind_defer__poll(&q), 0);
	ck_assert_uint_eq(q.n, 1);
	ck_assert_int_eq(reread_calls, 1);
	ck_assert_ptr_null(q.q[0].ips);
	ck_assert_ptr_nonnull(q.q[0].rec);
	unwind_defer__remove_if(&q, defer_walked, NULL);
	ck_assert_uint_eq(q.n, 1);
	reread_ret = 0;
	unwind_defer__close(&q);
	/*
	 * ldlat-top's read again (unwind_set__reread): this process's entry
	 * made old is whole again from /proc; one the set does not follow
	 * stays unread, and is no failure
	 */
	*old = *self;
	entry_without(old, lib);
	ck_assert_int_eq(bpf_map_update_elem(fd, &me, old, BPF_ANY), 0);
	ck_assert_int_eq(unwind_set__reread(&wset, (pid_t)me, &err), 0);
	ck_assert_int_eq(bpf_map_lookup_elem(fd, &me, old), 0);
	ck_assert_uint_eq(old->n, self->n);
	ck_assert_int_ge(ldlat_unwind_map_find(old, lib), 0);
	ck_assert_int_eq(unwind_set__reread(&wset, 4244, &err), -ESRCH);
	ck_assert_uint_eq(wset.procs_failed, 0);
	/*
	 * by hand: a frame whose rule reads its caller's RBP and return
	 * address, that return address in no mapping, where a frame pointer
	 * would lead on: the walk ends there, deferred
	 */
	{
		__u64 args[4], *stack = calloc(64, sizeof(__u64));
		LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args, .ctx_size_in = sizeof(args));

		ck_assert_ptr_nonnull(stack);
		stack[8] = (__u64)(unsigned long)&stack[16];
		stack[9] = 0x10000;
		stack[16] = (__u64)(unsigned long)&stack[24];
		stack[17] = stale_full.ips[0][1];
		args[0] = fp_body_pc();
		args[1] = (__u64)(unsigned long)stack;
		args[2] = (__u64)(unsigned long)&stack[8];
		args[3] = me;
		stacks_clear();
		ck_assert_int_eq(
			bpf_prog_test_run_opts(bpf_program__fd(wsess.skel->progs.ldlat_test_unwind),
					       &opts),
			0);
		stale_path(&stale_st);
		ck_assert_uint_eq(stale_st.nr[0], 2);
		ck_assert_uint_eq(stale_st.ips[0][1], 0x10000);
		ck_assert_int_eq(stale_st.stop[0], LDLAT_STOP_NO_MAPPING + 1);
		counters_sum(&sum);
		ck_assert_uint_eq(sum.deferred, 6);
		free(stack);
	}
	free(self);
	free(old);
	walk_teardown();
}
END_TEST

/*
 * A deferred walk's record, walked in user space (user/top/unwinddefer.c:
 * bpf/unwind.h's rules built natively, the tables read back from the
 * kernel's maps), against the kernel's walk of the same registers with the
 * process's tables in: the same frames, as far as the 8 KiB copy reaches
 * (a walk that goes past it ends 'stack unreadable'), else the same end.
 */
static void walk_native_equal(const struct walk *w)
{
	struct ldlat_unwind_proc *p = malloc(sizeof(*p));
	__u64 ips[LDLAT_UNWIND_MAX_STACK], ffp;
	struct unwind_native n;
	__u32 nr, stop, key = (__u32)getpid(), i;

	ck_assert_ptr_nonnull(p);
	ck_assert_msg(w->rec != NULL, "no deferred record");
	ck_assert_uint_gt(w->rec->len, 0);
	ck_assert_int_eq(bpf_map_lookup_elem(bpf_map__fd(wsess.skel->maps.unwind_procs), &key, p),
			 0);
	unwind_native__init(&n, bpf_map__fd(wsess.skel->maps.unwind_files), 16);
	ck_assert_int_eq(unwind_native__tables(&n, p), 0);
	stop = unwind_native__walk(&n, p, w->rec, 64, ips, &nr, &ffp);
	fprintf(stderr,
		"check_unwind: deferred walk (%u bytes copied): %u frames, ended %u; the kernel's "
		"%u, ended %u\n",
		w->rec->len, nr, stop, w->nr, (unsigned)w->stop - 1);
	ck_assert_uint_ge(nr, 3);
	ck_assert_uint_le(nr, w->nr);
	for (i = 0; i < nr; i++)
		ck_assert_msg(ips[i] == w->ips[i], "frame %u: %llx, the kernel's %llx", i,
			      (unsigned long long)ips[i], (unsigned long long)w->ips[i]);
	if (nr < w->nr)
		ck_assert_uint_eq(stop, LDLAT_STOP_READ);
	else
		ck_assert_uint_eq(stop + 1, w->stop);
	unwind_native__free(&n);
	free(w->rec);
	free(p);
}

START_TEST(test_walk_deferred)
{
	struct walk w;
	pthread_t t;

	walk_setup_defer(64, 16, 1 << 16, true);
	wdefer_tgid = 4242;
	chain_a(&w);
	walk_equal(&w, 0);
	walk_native_equal(&w);
	signal(SIGUSR1, on_signal);
	raise(SIGUSR1);
	signal(SIGUSR1, SIG_DFL);
	walk_equal(&sig_walk, 0);
	walk_native_equal(&sig_walk);
	ck_assert_int_eq(pthread_create(&t, NULL, in_thread, &w), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	walk_equal(&w, 0);
	walk_native_equal(&w);
	walk_teardown();
}
END_TEST

/*
 * The cost of a sample's walk at 16 and 64 frames (--max-stack), 80 calls
 * deep: the test entry's run time as the kernel's BPF statistics count it
 * (the sample's accounting and its path's storing with it), printed; the
 * walk must stop at the depth asked for.
 */
START_TEST(test_walk_cost)
{
	static const __u32 depth[] = { 16, 64 };
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	struct walk w;
	int stats, fd;

	walk_setup_depth(depth[_i]);
	stats = bpf_enable_stats(BPF_STATS_RUN_TIME);
	ck_assert_int_ge(stats, 0);
	wrepeat = 2000;
	deep(80, &w);
	wrepeat = 1;
	fd = bpf_program__fd(wsess.skel->progs.ldlat_test_unwind);
	ck_assert_int_eq(bpf_obj_get_info_by_fd(fd, &info, &len), 0);
	close(stats);
	ck_assert_uint_eq(w.nr, depth[_i]);
	ck_assert_int_eq(w.stop, LDLAT_STOP_MAX + 1);
	ck_assert_uint_ge(info.run_cnt, 2000);
	fprintf(stderr, "check_unwind: a walk of %u frames: %.0f ns a sample (%llu runs)\n",
		depth[_i], (double)info.run_time_ns / (double)info.run_cnt,
		(unsigned long long)info.run_cnt);
	walk_teardown();
}
END_TEST

/*
 * A process's mappings as the walker gets them: user addresses only (a
 * [vsyscall] mapping, above 2^63, made the search of a process with some
 * counts of mappings answer it for any address, and the walk fall back to
 * frame pointers); and the walker's search (built natively here) finds
 * each mapping by its first and last byte, and nothing between two, for
 * every count of mappings.
 */
START_TEST(test_proc_mappings)
{
	struct ldlat_unwind_proc *p = calloc(1, sizeof(*p));
	struct unwind_set u;
	struct err err = {};
	__u32 n, i;

	ck_assert_ptr_nonnull(p);
	unwind_set__init(&u, -1, 0, -1, 0); /* no maps: every file counted as not loaded */
	ck_assert_int_eq(unwind_set__proc(&u, getpid(), p, &err), 0);
	ck_assert_uint_gt(p->n, 0);
	for (i = 0; i < p->n; i++) {
		ck_assert_uint_lt(p->maps[i].start, 1ull << 63);
		ck_assert_int_eq(ldlat_unwind_map_find(p, p->maps[i].start), (int)i);
		ck_assert_int_eq(ldlat_unwind_map_find(p, p->maps[i].end - 1), (int)i);
	}
	unwind_set__free(&u);
	for (n = 1; n <= LDLAT_UNWIND_MAPS; n++) {
		memset(p, 0, sizeof(*p));
		p->n = n;
		for (i = 0; i < n; i++) {
			p->maps[i].start = 0x400000ull + i * 0x10000ull;
			p->maps[i].end = p->maps[i].start + 0x8000;
		}
		for (i = 0; i < n; i++) {
			ck_assert_int_eq(ldlat_unwind_map_find(p, p->maps[i].start), (int)i);
			ck_assert_int_eq(ldlat_unwind_map_find(p, p->maps[i].end - 1), (int)i);
			ck_assert_int_eq(ldlat_unwind_map_find(p, p->maps[i].end), -1);
		}
		ck_assert_int_eq(ldlat_unwind_map_find(p, 0x3fffffull), -1);
	}
	free(p);
}
END_TEST

/*
 * ldlat-top --call-graph=dwarf live, against perf record --call-graph dwarf
 * (perf's own unwinding of 8 KiB user stack copies with libdw) on the same
 * program: folded paths, callers first, as ldlat-top --format folded
 * prints them (perf script's frames, kernel ones marked "_[k]").
 */
struct fold {
	char *path;
	long n;
};

struct folds {
	struct fold *f;
	size_t n, cap;
};

static void folds_add(struct folds *t, const char *path, long n)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (!strcmp(t->f[i].path, path)) {
			t->f[i].n += n;
			return;
		}
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 256;
		t->f = realloc(t->f, t->cap * sizeof(*t->f));
		ck_assert_ptr_nonnull(t->f);
	}
	t->f[t->n].path = strdup(path);
	t->f[t->n++].n = n;
}

static long folds_get(const struct folds *t, const char *path)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (!strcmp(t->f[i].path, path))
			return t->f[i].n;
	return 0;
}

static void folds_free(struct folds *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->f[i].path);
	free(t->f);
	memset(t, 0, sizeof(*t));
}

/* ldlat-top --format folded: "comm;caller;...;leaf N" a line. */
static void folds_of_top(struct folds *t, char *text)
{
	char *line, *save = NULL, *sp;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		sp = strrchr(line, ' ');
		if (!sp)
			continue;
		*sp = 0;
		folds_add(t, line, atol(sp + 1));
	}
}

/*
 * perf script -F comm,ip,sym --no-inline: a sample is its comm on a line,
 * then a frame a line ("ADDR SYM", innermost first), then a blank line.
 */
static void folds_of_perf(struct folds *t, char *text)
{
	char path[16384], *frames[LDLAT_STACK_DEPTH * 2 + 8], *line, *save = NULL;
	int nf = 0, i;
	size_t len = 0;
	bool in = false;

	for (line = strtok_r(text, "\n", &save);; line = strtok_r(NULL, "\n", &save)) {
		bool frame = line && (line[0] == ' ' || line[0] == '\t');

		if (in && !frame) {
			for (i = nf - 1; i >= 0; i--)
				len += (size_t)snprintf(path + len, sizeof(path) - len, ";%s",
							frames[i]);
			folds_add(t, path, 1);
			for (i = 0; i < nf; i++)
				free(frames[i]);
			in = false;
		}
		if (!line)
			break;
		if (!frame) {
			len = (size_t)snprintf(path, sizeof(path), "%s", line);
			while (len && path[len - 1] == ' ')
				path[--len] = 0;
			nf = 0;
			in = true;
		} else if (nf < (int)ARRAY_SIZE(frames)) {
			char *p = line, *end;
			unsigned long long ip;

			while (*p == ' ' || *p == '\t')
				p++;
			ip = strtoull(p, &end, 16);
			while (*end == ' ')
				end++;
			ck_assert_int_ne(asprintf(&frames[nf], "%s%s", *end ? end : "[unknown]",
						  ip >= 0xffff800000000000ull ? "_[k]" : ""),
					 -1);
			nf++;
		}
	}
}

/* The program's own functions whose samples the oracle compares, and its roots. */
static bool own_leaf(const char *f)
{
	return !strcmp(f, "touch_pages") || !strcmp(f, "unwindlib_touch") ||
	       !strcmp(f, "touch_pages_leaf");
}

static bool own_root(const char *f)
{
	return !strcmp(f, "main") || !strcmp(f, "path_thread");
}

/*
 * The paths of the program's own page touches, from its own outermost
 * function (main, or path_thread in the thread): the loader's and libc's
 * frames outside them are named differently by the two (clone3 by perf,
 * __GI___clone3 by ldlat-top: aliases of one address), and the sigreturn
 * trampoline, which has no symbol, perf calls [unknown] where ldlat-top
 * names its file: any "[...]" frame is compared as "[unnamed]".  A touch
 * whose walk never reached a root counts under "[partial];LEAF".
 */
static void folds_own(const struct folds *in, struct folds *out)
{
	size_t i;

	for (i = 0; i < in->n; i++) {
		char *copy = strdup(in->f[i].path), *fr[LDLAT_STACK_DEPTH * 2 + 8], *save = NULL;
		char key[16384];
		int n = 0, k, root = -1;
		size_t len = 0;

		for (char *f = strtok_r(copy, ";", &save); f && n < (int)ARRAY_SIZE(fr);
		     f = strtok_r(NULL, ";", &save))
			fr[n++] = f;
		if (n >= 2 && own_leaf(fr[n - 1])) {
			for (k = 1; k < n && root < 0; k++)
				if (own_root(fr[k]))
					root = k;
			if (root < 0)
				len = (size_t)snprintf(key, sizeof(key), "[partial];%s", fr[n - 1]);
			for (k = root; root >= 0 && k < n; k++)
				len += (size_t)snprintf(key + len, sizeof(key) - len, "%s%s",
							k > root ? ";" : "",
							fr[k][0] == '[' ? "[unnamed]" : fr[k]);
			folds_add(out, key, in->f[i].n);
		}
		free(copy);
	}
}

static void folds_print(const char *what, const struct folds *t)
{
	size_t i;

	fprintf(stderr, "%s:\n", what);
	for (i = 0; i < t->n; i++)
		fprintf(stderr, "  %s %ld\n", t->f[i].path, t->f[i].n);
}

/*
 * The folded paths ldlat-top prints for the test program with --call-graph
 * MODE, and those of perf record --call-graph dwarf on it; address space
 * randomization off for both (setarch -R), so that both runs touch the
 * same stack pages in the same functions.
 */
static void top_folds(const char *mode, const char *prog, struct folds *t)
{
	char *out = NULL;

	ck_assert_int_eq(sh(&out, NULL,
			    "setarch -R %s --source page-faults --call-graph=%s --format folded "
			    "-- %s 2>%s",
			    top(), mode, prog, tmp("top.err")),
			 0);
	folds_of_top(t, out);
	free(out);
}

static void perf_folds(const char *prog, struct folds *t)
{
	char *out = NULL;

	ck_assert_int_eq(
		sh(NULL, NULL,
		   "setarch -R perf record -q -m 8192 -o %s -e page-faults -c 1 --call-graph dwarf "
		   "-- %s >/dev/null 2>&1",
		   tmp("perf.data"), prog),
		0);
	ck_assert_int_eq(sh(&out, NULL, "perf script -i %s --no-inline -F comm,ip,sym 2>/dev/null",
			    tmp("perf.data")),
			 0);
	folds_of_perf(t, out);
	free(out);
	/* a sample perf lost (its buffer full: 8 KiB of stack each) would be a false difference */
	out = NULL;
	sh(&out, NULL, "perf report -i %s --stats 2>/dev/null | grep -i 'LOST' || true",
	   tmp("perf.data"));
	ck_assert_msg(!out || !*out, "perf record lost samples: %s", out);
	free(out);
	unlink(tmp("perf.data"));
}

/*
 * A sample with no stack to copy: ldlat-stackprobe's big() probes its 256
 * KiB frame a page at a time, each probe's fault at SP on a page not there
 * yet, while its frame pointer leads to main.  Run three times by a shell
 * (so exec'd during the run, its samples deferred) and alive a second
 * after (so its tables come in and the deferred samples are walked again):
 * a walk of the empty copy ends at once, and the frame pointers' path
 * stays.  Oracle: perf's frame-pointer walk of the same command.
 */
START_TEST(test_live_deferred_no_copy)
{
	const char *prog = build_path("tests/ldlat-stackprobe");
	char *out = NULL, *err = NULL;
	long perf_n = -1, top_n = -1, short_n = -1, walked = -1;

	ck_assert_int_eq(
		sh(&out, NULL,
		   "perf record -q -o %s -e page-faults -c 1 --call-graph fp -- sh -c '%s; %s; %s' "
		   ">/dev/null 2>&1 && perf script -i %s -F comm,ip,sym 2>/dev/null | awk '"
		   "/^ldlat-stack/ { c = 1; b = 0; next } /^$/ { c = 0; b = 0; next } "
		   "c && / big$/ { b = 1 } c && b && / main$/ { n++; b = 0 } END { print n + 0 }'",
		   tmp("sp.data"), prog, prog, prog, tmp("sp.data")),
		0);
	ck_assert_int_eq(sscanf(out, "%ld", &perf_n), 1);
	free(out);
	out = NULL;
	unlink(tmp("sp.data"));
	ck_assert_int_eq(sh(&out, NULL,
			    "%s --source page-faults --call-graph=dwarf --format folded -- sh -c "
			    "'%s; %s; %s' 2>%s | awk '/^ldlat-stackprob;/ && / [0-9]+$/ { "
			    "if ($0 ~ /;main;big [0-9]+$/) t += $NF; "
			    "else if ($0 ~ /^ldlat-stackprob;big [0-9]+$/) s += $NF } "
			    "END { print t + 0, s + 0 }'",
			    top(), prog, prog, prog, tmp("sp.err")),
			 0);
	ck_assert_int_eq(sscanf(out, "%ld %ld", &top_n, &short_n), 2);
	free(out);
	ck_assert_int_eq(sh(&err, NULL, "cat %s", tmp("sp.err")), 0);
	ck_assert_msg(sscanf(strstr(err, "deferred before") ? strstr(err, "deferred before") : "",
			     "deferred before their tables were in (%ld walked", &walked) == 1,
		      "%s", err);
	fprintf(stderr,
		"check_unwind: stack probes: ldlat-top main;big %ld, big alone %ld (%ld walked "
		"again); perf's frame pointers main;big %ld\n",
		top_n, short_n, walked, perf_n);
	/* the deferred walks were taken: else this run tests nothing */
	ck_assert_msg(walked > 0, "%s", err);
	ck_assert_msg(perf_n >= 150, "perf: %ld", perf_n);
	ck_assert_msg(short_n == 0, "%ld samples of big lost main: %s", short_n, err);
	ck_assert_msg(top_n >= perf_n - 3 && top_n <= perf_n + 3, "ldlat-top %ld, perf %ld", top_n,
		      perf_n);
	free(err);
}
END_TEST

/* Each of the program's paths, exact, as perf's DWARF mode finds it. */
START_TEST(test_live_vs_perf)
{
	struct folds top_all = {}, perf_all = {}, top_own = {}, perf_own = {};
	const char *prog = build_path("tests/ldlat-unwindprog");
	size_t i;

	perf_folds(prog, &perf_all);
	top_folds("dwarf", prog, &top_all);
	folds_own(&perf_all, &perf_own);
	folds_own(&top_all, &top_own);
	folds_print("perf record --call-graph dwarf", &perf_own);
	folds_print("ldlat-top --call-graph=dwarf", &top_own);
	/* the five paths: main's four (one through a signal frame) and the thread's */
	ck_assert_uint_ge(perf_own.n, 5);
	for (i = 0; i < perf_own.n; i++)
		ck_assert_msg(folds_get(&top_own, perf_own.f[i].path) == perf_own.f[i].n,
			      "%s: perf %ld, ldlat-top %ld", perf_own.f[i].path, perf_own.f[i].n,
			      folds_get(&top_own, perf_own.f[i].path));
	for (i = 0; i < top_own.n; i++)
		ck_assert_msg(folds_get(&perf_own, top_own.f[i].path) == top_own.f[i].n,
			      "%s: ldlat-top %ld, perf %ld", top_own.f[i].path, top_own.f[i].n,
			      folds_get(&perf_own, top_own.f[i].path));
	folds_free(&top_all);
	folds_free(&perf_all);
	folds_free(&top_own);
	folds_free(&perf_own);
}
END_TEST

/*
 * The samples of comm whose path holds a frame named frame: their count,
 * and of them those with a user frame (one not ending "_[k]").
 */
static long folds_count_in(const struct folds *t, const char *comm, const char *frame, long *user)
{
	long n = 0;
	size_t i, lc = strlen(comm);

	*user = 0;
	for (i = 0; i < t->n; i++) {
		const char *p = t->f[i].path, *f;

		if (strncmp(p, comm, lc) || p[lc] != ';' || !strstr(p, frame))
			continue;
		n += t->f[i].n;
		for (f = p + lc; f; f = strchr(f + 1, ';')) {
			const char *end = strchr(f + 1, ';');
			size_t l = end ? (size_t)(end - f - 1) : strlen(f + 1);

			if (l < 4 || strncmp(f + 1 + l - 4, "_[k]", 4)) {
				*user += t->f[i].n;
				break;
			}
		}
	}
	return n;
}

/*
 * A program's own page faults while the kernel loads it (load_elf_binary
 * zeroing the end of its data): the registers its exec saved are those of
 * the program being replaced, so the walk takes no user frame, as perf's
 * DWARF mode finds none.  One run: perf record is ldlat-top's command, so
 * both see the same faults.
 */
START_TEST(test_live_exec_no_user_frames)
{
	struct folds top_all = {}, perf_all = {};
	char prog[8192], *out = NULL;
	long top_n, top_user, perf_n, perf_user;

	snprintf(prog, sizeof(prog),
		 "perf record -q -m 8192 -o %s -e page-faults -c 1 --call-graph dwarf -- %s 1 1 1 "
		 "1 1",
		 tmp("perf.data"), build_path("tests/ldlat-unwindprog"));
	top_folds("dwarf", prog, &top_all);
	ck_assert_int_eq(sh(&out, NULL, "perf script -i %s --no-inline -F comm,ip,sym 2>/dev/null",
			    tmp("perf.data")),
			 0);
	folds_of_perf(&perf_all, out);
	free(out);
	unlink(tmp("perf.data"));
	/* comm: the first 15 bytes of the program's name */
	perf_n = folds_count_in(&perf_all, "ldlat-unwindpro", ";load_elf_binary_[k]", &perf_user);
	top_n = folds_count_in(&top_all, "ldlat-unwindpro", ";load_elf_binary_[k]", &top_user);
	fprintf(stderr,
		"check_unwind: faults in the exec: perf %ld (%ld with a user frame), ldlat-top %ld "
		"(%ld)\n",
		perf_n, perf_user, top_n, top_user);
	ck_assert_int_gt(perf_n, 0);
	ck_assert_int_eq(perf_user, 0);
	ck_assert_int_eq(top_n, perf_n);
	ck_assert_int_eq(top_user, 0);
	folds_free(&top_all);
	folds_free(&perf_all);
}
END_TEST

/*
 * The frame-pointer walk on the same program (built without them): the
 * same touches, each path cut to its leaf, no caller found.
 */
START_TEST(test_live_fp_collapses)
{
	struct folds top_all = {}, perf_all = {}, top_own = {}, perf_own = {};
	const char *prog = build_path("tests/ldlat-unwindprog");
	long perf_sum = 0, top_sum = 0;
	size_t i;

	perf_folds(prog, &perf_all);
	top_folds("fp", prog, &top_all);
	folds_own(&perf_all, &perf_own);
	folds_own(&top_all, &top_own);
	folds_print("ldlat-top --call-graph=fp", &top_own);
	for (i = 0; i < perf_own.n; i++)
		perf_sum += perf_own.f[i].n;
	for (i = 0; i < top_own.n; i++) {
		ck_assert_msg(!strncmp(top_own.f[i].path, "[partial];", 10),
			      "a frame-pointer walk found a caller: %s", top_own.f[i].path);
		top_sum += top_own.f[i].n;
	}
	ck_assert_int_gt(perf_sum, 0);
	ck_assert_int_eq(top_sum, perf_sum);
	folds_free(&top_all);
	folds_free(&perf_all);
	folds_free(&top_own);
	folds_free(&perf_own);
}
END_TEST

/* The mean count of user frames (those without "_[k]", the comm left out) per sample. */
static double folds_user_depth(const struct folds *t, long *samples)
{
	double frames = 0;
	size_t i;

	*samples = 0;
	for (i = 0; i < t->n; i++) {
		const char *p = strchr(t->f[i].path, ';');
		int n = 0;

		while (p) {
			const char *next = strchr(p + 1, ';');
			size_t l = next ? (size_t)(next - p - 1) : strlen(p + 1);

			if (l < 4 || strncmp(p + 1 + l - 4, "_[k]", 4))
				n++;
			p = next;
		}
		frames += (double)n * (double)t->f[i].n;
		*samples += t->f[i].n;
	}
	return *samples ? frames / (double)*samples : 0;
}

/* The paths of in that hold frame (a substring of a frame's name), into out. */
static void folds_with(const struct folds *in, const char *frame, struct folds *out)
{
	size_t i;

	for (i = 0; i < in->n; i++)
		if (strstr(in->f[i].path, frame))
			folds_add(out, in->f[i].path, in->f[i].n);
}

/*
 * The samples of process comm whose user path is the same under both, by
 * count per distinct path (the smaller of the two counts of each): the
 * path's user frames only, a "[...]" frame (no symbol: perf's [unknown],
 * ldlat-top's [file]) compared as "[unnamed]".  *all: comm's samples
 * under perf.
 */
static long folds_agree(const struct folds *top_f, const struct folds *perf_f, const char *comm,
			long *all)
{
	struct folds u[2] = {};
	const struct folds *in[2] = { top_f, perf_f };
	long same = 0, n;
	size_t i;
	int w;

	for (w = 0; w < 2; w++)
		for (i = 0; i < in[w]->n; i++) {
			char *copy = strdup(in[w]->f[i].path), *save = NULL, key[16384], *f;
			size_t len = 0, l;

			ck_assert_ptr_nonnull(copy);
			f = strtok_r(copy, ";", &save);
			if (f && !strcmp(f, comm)) {
				while ((f = strtok_r(NULL, ";", &save))) {
					l = strlen(f);
					if (l >= 4 && !strcmp(f + l - 4, "_[k]"))
						continue;
					len += (size_t)snprintf(key + len, sizeof(key) - len, ";%s",
								f[0] == '[' ? "[unnamed]" : f);
				}
				key[len] = 0;
				folds_add(&u[w], key, in[w]->f[i].n);
			}
			free(copy);
		}
	*all = 0;
	for (i = 0; i < u[1].n; i++) {
		n = folds_get(&u[0], u[1].f[i].path);
		same += n < u[1].f[i].n ? n : u[1].f[i].n;
		*all += u[1].f[i].n;
	}
	folds_free(&u[0]);
	folds_free(&u[1]);
	return same;
}

/*
 * The deferred samples of a gcc -c run, in each format: the folded
 * stacks' warning (the run test_live_depth just made), JSON, the text
 * report; some walked again in user space, none counted twice, and each
 * one sent either walked or left to its frame pointers by the run's end.
 */
static void gcc_deferred_shown(const char *prog)
{
	char *out = NULL;

	ck_assert_int_eq(sh(&out, NULL, "cat %s", tmp("top.err")), 0);
	ck_assert_msg(strstr(out, "deferred before their tables were in (") != NULL, "%s", out);
	free(out);
	out = NULL;
	ck_assert_int_eq(
		sh(&out, NULL,
		   "setarch -R %s --source page-faults --call-graph=dwarf --format json -- "
		   "%s 2>/dev/null | jq -c '.call_paths.unwind.deferred | [.sent > 0, "
		   ".walked > 0, .walked + .frame_pointers == .sent]'",
		   top(), prog),
		0);
	ck_assert_str_eq(out, "[true,true,true]\n");
	free(out);
	out = NULL;
	ck_assert_int_eq(sh(&out, NULL,
			    "setarch -R %s --source page-faults --call-graph=dwarf --by ip -- %s "
			    "2>/dev/null",
			    top(), prog),
			 0);
	ck_assert_msg(strstr(out, "deferred before their tables were in (") != NULL, "%s", out);
	free(out);
}

/*
 * -i with deferred samples: each is moved to its walked path in the drain
 * of its own generation, so each interval's paths still add up to its kept
 * samples, and its seen ones to the kept and the dropped.
 */
START_TEST(test_live_intervals_deferred)
{
	char *out = NULL;

	ck_assert_int_eq(sh(NULL, NULL,
			    "gcc -E -std=gnu11 -D_GNU_SOURCE -iquote . user/top/topreport.c -o %s",
			    tmp("gcc.i")),
			 0);
	setenv("LDLAT_UNWIND_CACHE", tmp("cache-gcc"), 1);
	ck_assert_int_eq(sh(&out, NULL,
			    "%s --source page-faults --call-graph=dwarf -i 0.2 -n 0 --format json "
			    "-- /usr/bin/gcc -O2 -c %s -o %s 2>/dev/null",
			    top(), tmp("gcc.i"), tmp("gcc.o")),
			 0);
	/* a sanitized ldlat-top compiles the tables so slowly that gcc ends within one interval */
	ck_assert_msg(
		jq_true(out, sanitized ? "[., inputs] | length >= 1" : "[., inputs] | length >= 2"),
		"%.2000s", out);
	ck_assert_msg(jq_true(out,
			      "[., inputs] | all(.[]; "
			      ".call_paths.samples + .call_paths.not_attributed.table_full + "
			      ".call_paths.not_attributed.update_failed == .counters.kept and "
			      ".counters.seen == .counters.kept + (.counters.dropped | add)) and "
			      "(map(.call_paths.unwind.deferred.walked) | add) > 0"),
		      "%.2000s", out);
	free(out);
	unlink(tmp("gcc.i"));
	unlink(tmp("gcc.o"));
	sh(NULL, NULL, "rm -rf %s", tmp("cache-gcc"));
}
END_TEST

/*
 * Debian's own programs, built without frame pointers: sort on 300,000
 * lines, python3 building a list of strings, and gcc's compiler proper
 * (cc1, run as the command itself) on a preprocessed test program: their
 * first touches' user stacks at least 90% as deep on average as perf's
 * DWARF mode finds them (frame pointers: about a quarter for sort).
 */
static const char *const depth_progs[] = { "sort", "python3", "cc1", "gcc -c" };
/*
 * At least this part of perf's depth.  gcc's driver execs cc1 and as
 * during the run: the tables already in (the loader's, the C library's)
 * are theirs within a tick (10 ms), their own tens of milliseconds later
 * (cc1's from the cache a first run filled).  Page faults come early in a
 * process (cc1 takes two fifths of its own in its first 50 ms, as all of
 * its own in 20 ms): those before are deferred with a copy of their stack
 * and walked again once the tables are in (96.5-97.1% of perf's depth
 * here; 63-80% when they kept their frame pointers' walk, 16% with a
 * table loaded at the next 0.1 s tick after its compile).  And cc1's
 * samples take perf's user path (the same count of each distinct path):
 * 98.3% of them measured, 88.7-91.3% before a walk stopped at a pending
 * table and deferred copies reached the stack's end (the sanitized build:
 * 95.1-99.0% of the depth, 96.0-96.1% of the samples; it wants 80% of
 * each, as its first run is slower).  test_live_same_run_gcc compares
 * them sample for sample.
 */
static const double depth_min[] = { 0.9, 0.9, 0.9, 0.9 };
#define GCC_CC1_SAME_PATHS 0.85

START_TEST(test_live_depth)
{
	struct folds top_all = {}, perf_all = {};
	char prog[2048], *cc1 = NULL;
	double dt, dp;
	long nt, np;

	if (_i == 0) {
		ck_assert_int_eq(sh(NULL, NULL,
				    "awk 'BEGIN { srand(1); for (i = 0; i < 300000; i++) "
				    "print int(rand() * 1e9) }' > %s",
				    tmp("sort.in")),
				 0);
		snprintf(prog, sizeof(prog), "/usr/bin/sort %s -o /dev/null", tmp("sort.in"));
	} else if (_i == 1) {
		snprintf(prog, sizeof(prog),
			 "/usr/bin/python3 -c 'x = [str(i) for i in range(300000)]'");
	} else if (_i == 2) {
		ck_assert_int_eq(sh(&cc1, NULL, "gcc -print-prog-name=cc1"), 0);
		cc1[strcspn(cc1, "\n")] = '\0';
		ck_assert_int_eq(
			sh(NULL, NULL, "gcc -E -o %s tests/progs/callprog.c", tmp("cc1.i")), 0);
		snprintf(prog, sizeof(prog), "%s -quiet -O2 %s -o /dev/null", cc1, tmp("cc1.i"));
		free(cc1);
	} else {
		/*
		 * gcc's driver: cc1 and as are exec'd during the run, their
		 * tables loaded from the side band's records (a tree file
		 * preprocessed, as bench/unwind.sh compiles: cc1 runs long
		 * enough, most of a second, to count)
		 */
		ck_assert_int_eq(sh(NULL, NULL,
				    "gcc -E -std=gnu11 -D_GNU_SOURCE -iquote . "
				    "user/top/topreport.c -o %s",
				    tmp("gcc.i")),
				 0);
		snprintf(prog, sizeof(prog), "/usr/bin/gcc -O2 -c %s -o %s", tmp("gcc.i"),
			 tmp("gcc.o"));
		/* a first run compiles cc1's table and caches it, as a user's first run does */
		setenv("LDLAT_UNWIND_CACHE", tmp("cache-gcc"), 1);
		top_folds("dwarf", prog, &top_all);
		dt = folds_user_depth(&top_all, &nt);
		fprintf(stderr, "%s: the first run (cc1's table compiled): %.2f (%ld samples)\n",
			depth_progs[_i], dt, nt);
		folds_free(&top_all);
		memset(&top_all, 0, sizeof(top_all));
	}
	perf_folds(prog, &perf_all);
	top_folds("dwarf", prog, &top_all);
	dp = folds_user_depth(&perf_all, &np);
	dt = folds_user_depth(&top_all, &nt);
	fprintf(stderr,
		"%s: mean user-stack depth: ldlat-top --call-graph=dwarf %.2f (%ld samples), "
		"perf record --call-graph dwarf %.2f (%ld samples): %.1f%%\n",
		depth_progs[_i], dt, nt, dp, np, 100 * dt / dp);
	ck_assert_int_gt(np, 1000);
	ck_assert_int_gt(nt, 1000);
	if (_i == 3) {
		long all, same = folds_agree(&top_all, &perf_all, "cc1", &all);

		fprintf(stderr,
			"%s: cc1's samples on the same user path as perf's: %ld of %ld (%.1f%%)\n",
			depth_progs[_i], same, all, all ? 100.0 * (double)same / (double)all : 0);
		ck_assert_int_gt(all, 1000);
		ck_assert_msg((double)same >= (sanitized ? 0.8 : GCC_CC1_SAME_PATHS) * (double)all,
			      "cc1: %ld of %ld samples on perf's path", same, all);
		gcc_deferred_shown(prog);
	}
	/*
	 * a sanitized ldlat-top reads, checks and stores cc1's cached rows
	 * several times slower, and holds more samples deferred: 95.1-99.0% of
	 * perf's depth measured there (43-53% before deferring)
	 */
	ck_assert_msg(dt >= (sanitized && _i == 3 ? 0.8 : depth_min[_i]) * dp,
		      "%s: ldlat-top %.2f frames, perf %.2f", depth_progs[_i], dt, dp);
	folds_free(&top_all);
	folds_free(&perf_all);
	unlink(tmp("sort.in"));
	unlink(tmp("cc1.i"));
	unlink(tmp("gcc.i"));
	unlink(tmp("gcc.o"));
	sh(NULL, NULL, "rm -rf %s", tmp("cache-gcc"));
}
END_TEST

/*
 * gcc -O2 -c with perf record --call-graph dwarf as ldlat-top's command:
 * one run, so both see the same page faults, and cc1's samples can be
 * compared path by path.  98.4-98.7% of them take perf's exact user path
 * here (the cache of cc1's table filled first); of the rest, measured one
 * by one: perf's unwinder stopped partway through gcc's deep value-range
 * recursion where ldlat-top's path goes on to _start (59-72; perf with 64
 * KiB stack copies stops at the same frames, so not its 8 KiB copy),
 * perf found no frame at all (28: a fault on the page at SP leaves it
 * nothing to copy), perf naming the caller of a call that ends a function
 * (exit's) by the return address, past the function's end, and stopping
 * there (6), and a PLT entry perf names "@plt" (1).  It wants 97% (the
 * sanitized build, slower to load cc1's table and holding more samples
 * deferred, 90%).
 */
START_TEST(test_live_same_run_gcc)
{
	struct folds top_all = {}, perf_all = {}, top_tr = {}, perf_tr = {};
	char prog[8192], *out = NULL;
	long all, same;

	ck_assert_int_eq(sh(NULL, NULL,
			    "gcc -E -std=gnu11 -D_GNU_SOURCE -iquote . user/top/topreport.c -o %s",
			    tmp("gcc.i")),
			 0);
	snprintf(prog, sizeof(prog), "/usr/bin/gcc -O2 -c %s -o %s", tmp("gcc.i"), tmp("gcc.o"));
	setenv("LDLAT_UNWIND_CACHE", tmp("cache-same"), 1);
	/* cc1's table compiled and cached first, as test_live_depth's first run */
	top_folds("dwarf", prog, &top_all);
	folds_free(&top_all);
	snprintf(prog, sizeof(prog),
		 "perf record -q -m 8192 -o %s -e page-faults -c 1 --call-graph dwarf -- "
		 "/usr/bin/gcc -O2 -c %s -o %s",
		 tmp("perf.data"), tmp("gcc.i"), tmp("gcc.o"));
	top_folds("dwarf", prog, &top_all);
	ck_assert_int_eq(sh(&out, NULL, "perf script -i %s --no-inline -F comm,ip,sym 2>/dev/null",
			    tmp("perf.data")),
			 0);
	folds_of_perf(&perf_all, out);
	free(out);
	out = NULL;
	sh(&out, NULL, "perf report -i %s --stats 2>/dev/null | grep -i 'LOST' || true",
	   tmp("perf.data"));
	ck_assert_msg(!out || !*out, "perf record lost samples: %s", out);
	free(out);
	same = folds_agree(&top_all, &perf_all, "cc1", &all);
	fprintf(stderr, "gcc -c, one run: cc1's samples on perf's user path: %ld of %ld (%.2f%%)\n",
		same, all, all ? 100.0 * (double)same / (double)all : 0);
	ck_assert_int_gt(all, 1000);
	ck_assert_msg((double)same >= (sanitized ? 0.9 : 0.97) * (double)all,
		      "cc1: %ld of %ld samples on perf's path", same, all);
	/*
	 * every one through the lazy-binding trampoline (cc1 binds lazily:
	 * its first call of each library function), whose frame is found
	 * by RBX, exactly as perf's
	 */
	folds_with(&top_all, "_dl_runtime_resolve", &top_tr);
	folds_with(&perf_all, "_dl_runtime_resolve", &perf_tr);
	same = folds_agree(&top_tr, &perf_tr, "cc1", &all);
	fprintf(stderr, "gcc -c, one run: through the lazy-binding trampoline: %ld of %ld\n", same,
		all);
	ck_assert_int_gt(all, 0);
	ck_assert_int_eq(same, all);
	ck_assert_int_eq(folds_agree(&perf_tr, &top_tr, "cc1", &all), all);
	folds_free(&top_tr);
	folds_free(&perf_tr);
	folds_free(&top_all);
	folds_free(&perf_all);
	unlink(tmp("perf.data"));
	unlink(tmp("gcc.i"));
	unlink(tmp("gcc.o"));
	sh(NULL, NULL, "rm -rf %s", tmp("cache-same"));
	unsetenv("LDLAT_UNWIND_CACHE");
}
END_TEST

/* Whether the kernel's outer map holds a table at slot (an inner map's ID there). */
static bool slot_held(int files_fd, __u32 slot)
{
	__u32 id;

	if (!bpf_map_lookup_elem(files_fd, &slot, &id))
		return true;
	ck_assert_int_eq(errno, ENOENT);
	return false;
}

/* Whether /proc/self/maps maps the file named name. */
static bool self_maps(const char *name)
{
	char *out = NULL;
	bool found;

	sh(&out, NULL, "grep -c '/%s$' /proc/%d/maps || true", name, (int)getpid());
	found = out && atoi(out) > 0;
	free(out);
	return found;
}

/*
 * The tables follow a process: a library dlopen()ed gets a table when its
 * mappings are read again, and once dlclose() unmapped it (the kernel's
 * /proc says so) the next read frees the table and its slot in the
 * kernel's map, which the next file takes; a process forgotten frees all
 * of its own.  With fewer slots than files, those past them are counted.
 */
/* Whether pid's /proc maps show a file whose name ends in tail. */
static bool proc_maps_has(pid_t pid, const char *tail)
{
	char *out = NULL;
	bool found;

	sh(&out, NULL, "grep -c '%s$' /proc/%d/maps || true", tail, (int)pid);
	found = out && atoi(out) > 0;
	free(out);
	return found;
}

/* Whether pid's /proc maps show inode ino. */
static bool proc_maps_ino(pid_t pid, __u64 ino)
{
	char *out = NULL;
	bool found;

	sh(&out, NULL, "awk '$5 == %llu' /proc/%d/maps | wc -l", (unsigned long long)ino, (int)pid);
	found = out && atoi(out) > 0;
	free(out);
	return found;
}

START_TEST(test_tables_lifecycle)
{
	struct ldlat_config c = { .nranges = 1,
				  .max_lat = ~0ull,
				  .class_mask = LDLAT_ALL_CLASSES,
				  .need = LDLAT_HAS_ADDR,
				  .top = LDLAT_TOP_IP | LDLAT_TOP_STACK,
				  .top_shift = 6,
				  .top_entries = 64 };
	struct top_unwind uw = { .max_stack = 8, .files = 64, .procs = 4 };
	const char *lib = build_path("tests/libldlatunwind.so");
	struct session s = {};
	struct unwind_set u;
	struct err err = {};
	__u32 loaded, slot = ~0u, key = (__u32)getpid(), i;
	struct ldlat_unwind_proc *p = malloc(sizeof(*p));
	__u64 refused[4] = {};
	int nrefused = 0;
	struct stat st;
	pid_t child;
	void *h;
	int files_fd;
	size_t k;

	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(stat(lib, &st), 0);
	ck_assert_msg(top_session__open_unwind(&s, &c, 0, &uw, &err) == 0, "%s", err.msg);
	files_fd = bpf_map__fd(s.skel->maps.unwind_files);
	top_session__unwind_init(&s, &u);
	ck_assert_msg(unwind_set__add_process(&u, getpid(), &err) == 0, "%s", err.msg);
	loaded = u.loaded;
	ck_assert_uint_ge(loaded, 2);
	ck_assert_uint_eq(u.freed, 0);

	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	ck_assert_msg(h != NULL, "%s", dlerror());
	ck_assert(self_maps("libldlatunwind.so"));
	ck_assert_msg(unwind_set__add_process(&u, getpid(), &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(u.loaded, loaded + 1);
	for (k = 0; k < u.nfiles; k++)
		if (u.files[k].ino == st.st_ino && u.files[k].state == UNWIND_FILE_LOADED)
			slot = u.files[k].slot;
	ck_assert_uint_lt(slot, uw.files);
	ck_assert(slot_held(files_fd, slot));

	ck_assert_int_eq(dlclose(h), 0);
	ck_assert(!self_maps("libldlatunwind.so"));
	ck_assert_msg(unwind_set__add_process(&u, getpid(), &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(u.loaded, loaded);
	ck_assert_uint_eq(u.freed, 1);
	ck_assert(!slot_held(files_fd, slot));

	/* loaded again: a free slot (the one freed is the first free) */
	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	ck_assert_msg(h != NULL, "%s", dlerror());
	ck_assert_msg(unwind_set__add_process(&u, getpid(), &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(u.loaded, loaded + 1);
	ck_assert(slot_held(files_fd, slot));
	ck_assert_int_eq(dlclose(h), 0);

	/* forgotten: its mappings out of the kernel's map, every table freed */
	unwind_set__forget(&u, getpid());
	ck_assert_uint_eq(u.loaded, 0);
	ck_assert_uint_eq(u.bytes, 0);
	ck_assert_uint_eq(u.procs, 0);
	ck_assert_int_ne(bpf_map_lookup_elem(bpf_map__fd(s.skel->maps.unwind_procs), &key, p), 0);
	for (i = 0; i < uw.files; i++)
		ck_assert_msg(!slot_held(files_fd, i), "slot %u still holds a table", i);
	unwind_set__free(&u);

	/* two slots: the process's other files counted, frame pointers there */
	unwind_set__init(&u, files_fd, 2, bpf_map__fd(s.skel->maps.unwind_procs), uw.procs);
	ck_assert_msg(unwind_set__add_process(&u, getpid(), &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(u.loaded, 2);
	ck_assert_uint_eq(u.full, loaded - 2);
	unwind_set__forget(&u, getpid());
	ck_assert(!slot_held(files_fd, 0) && !slot_held(files_fd, 1));
	/*
	 * the slots free again: a file refused then (the C library, or the
	 * loader) is loaded when a process mapping it is read, here a child
	 * running sleep (its own file new, the C library's and the loader's
	 * entries refused above)
	 */
	child = fork();
	ck_assert_int_ge(child, 0);
	if (!child) {
		execl("/bin/sleep", "sleep", "60", (char *)NULL);
		_exit(127);
	}
	while (!proc_maps_has(child, "/libc.so.6"))
		usleep(1000);
	for (k = 0; k < u.nfiles; k++)
		if (u.files[k].state == UNWIND_FILE_FULL && proc_maps_ino(child, u.files[k].ino))
			refused[nrefused < 4 ? nrefused++ : 3] = u.files[k].ino;
	ck_assert_int_gt(nrefused, 0);
	ck_assert_msg(unwind_set__add_process(&u, child, &err) == 0, "%s", err.msg);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	ck_assert_uint_eq(u.loaded, 2);
	ck_assert(slot_held(files_fd, 0) && slot_held(files_fd, 1));
	for (k = 0, i = 0; k < u.nfiles; k++)
		if (u.files[k].state == UNWIND_FILE_LOADED &&
		    (u.files[k].ino == refused[0] || u.files[k].ino == refused[1] ||
		     u.files[k].ino == refused[2] || u.files[k].ino == refused[3]))
			i++;
	ck_assert_msg(i >= 1, "no file refused for want of a slot was loaded once one was free");
	unwind_set__forget(&u, child);
	unwind_set__free(&u);
	session__close(&s);
	free(p);
}
END_TEST

/* Bad input: one sentence naming it, exit 2. */
static const struct cli_case bad[] = {
	{ .cmd = "$TOP --call-graph=xyz -- true",
	  .rc = 2,
	  .err = { "--call-graph 'xyz': expected fp, dwarf or auto" },
	  .tool = "ldlat-top" },
	{ .cmd = "$TOP --call-graph dwarf -- true",
	  .rc = 2,
	  .err = { "--call-graph takes its mode after '=' (--call-graph=dwarf)" },
	  .tool = "ldlat-top" },
	{ .cmd = "$TOP --call-graph=dwarf --max-stack 0 -- true",
	  .rc = 2,
	  .err = { "--max-stack '0' is not a number of frames (1 to 127)" },
	  .tool = "ldlat-top" },
	{ .cmd = "$TOP --call-graph=auto --max-stack 128 -- true",
	  .rc = 2,
	  .err = { "--max-stack '128' is not a number of frames (1 to 127)" },
	  .tool = "ldlat-top" },
	{ .cmd = "$TOP --call-graph --max-stack 8 -- true",
	  .rc = 2,
	  .err = { "--max-stack 8 bounds the walk from unwind tables" },
	  .tool = "ldlat-top" },
	{ .cmd = "$TOP --input /dev/null --call-graph=dwarf",
	  .rc = 2,
	  .err = { "--call-graph=dwarf walks live stacks" },
	  .tool = "ldlat-top" },
};

START_TEST(test_bad_input)
{
	cli_case__check(&bad[_i]);
}
END_TEST

/*
 * A program whose file has no call frame information (objcopy removed
 * .eh_frame, .eh_frame_hdr): its frames by frame pointers, the file
 * counted in every format, and its library's and libc's tables used.
 */
START_TEST(test_live_no_cfi)
{
	char *out = NULL, *err = NULL;

	ck_assert_int_eq(sh(NULL, NULL,
			    "objcopy --remove-section=.eh_frame --remove-section=.eh_frame_hdr "
			    "%s %s && cp %s %s",
			    build_path("tests/ldlat-unwindprog"), tmp("nocfi"),
			    build_path("tests/libldlatunwind.so"), tmp("libldlatunwind.so")),
			 0);
	ck_assert_int_eq(sh(&out, NULL,
			    "%s --source page-faults --call-graph=dwarf --format json -- %s "
			    "2>/dev/null | jq -c '.call_paths.unwind | [.tables.no_cfi, "
			    ".tables.loaded >= 2, .frames_fp > 0, .walks > 0]'",
			    top(), tmp("nocfi")),
			 0);
	ck_assert_str_eq(out, "[1,true,true,true]\n");
	free(out);
	out = NULL;
	ck_assert_int_eq(sh(&out, NULL,
			    "%s --source page-faults --call-graph=dwarf --by ip -- %s 2>/dev/null",
			    top(), tmp("nocfi")),
			 0);
	ck_assert_msg(strstr(out, "not loaded: 1 files without CFI") != NULL, "%s", out);
	free(out);
	out = NULL;
	/* folded stacks alone: the warning at the end */
	ck_assert_int_eq(sh(&out, &err,
			    "%s --source page-faults --call-graph=dwarf --format folded -- %s",
			    top(), tmp("nocfi")),
			 0);
	ck_assert_msg(strstr(err, "not loaded: 1 files without CFI") != NULL, "%s", err);
	free(out);
	free(err);
	unlink(tmp("nocfi"));
	unlink(tmp("libldlatunwind.so"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("unwind");
	TCase *tc = tcase_create("tables");
	int failed;

	suite_dir_make("unwind");
	/* the tables ldlat-top caches: the suite's own, not the machine's */
	setenv("LDLAT_UNWIND_CACHE", tmp("cache"), 1);
	sanitized = getenv("LDLAT_SANITIZED") != NULL;
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_table_vs_readelf, 0, (int)ARRAY_SIZE(table_files));
	tcase_add_test(tc, test_table_kinds);
	tcase_add_test(tc, test_table_no_cfi);
	tcase_add_test(tc, test_table_cache);
	tcase_add_test(tc, test_proc_mappings);
	tcase_add_loop_test(tc, test_bad_input, 0, (int)ARRAY_SIZE(bad));
	suite_add_tcase(s, tc);
	if (need_root("check_unwind's walks (BPF)")) {
		tc = tcase_create("walk");
		tcase_set_timeout(tc, 120);
		tcase_add_test(tc, test_walk_calls);
		tcase_add_test(tc, test_walk_signal);
		tcase_add_test(tc, test_walk_thread);
		tcase_add_test(tc, test_walk_fp_fallback);
		tcase_add_test(tc, test_defer_record);
		tcase_add_test(tc, test_defer_pending_caller);
		tcase_add_test(tc, test_defer_refused);
		tcase_add_test(tc, test_defer_kept_only);
		tcase_add_test(tc, test_defer_queue_bound);
		tcase_add_test(tc, test_walk_deferred);
		tcase_add_test(tc, test_defer_stale_entry);
		tcase_add_loop_test(tc, test_walk_cost, 0, 2);
		tcase_add_test(tc, test_tables_lifecycle);
		suite_add_tcase(s, tc);
		tc = tcase_create("live");
		tcase_set_timeout(tc, 300);
		tcase_add_test(tc, test_live_vs_perf);
		tcase_add_test(tc, test_live_fp_collapses);
		tcase_add_test(tc, test_live_exec_no_user_frames);
		tcase_add_test(tc, test_live_same_run_gcc);
		tcase_add_loop_test(tc, test_live_depth, 0, (int)ARRAY_SIZE(depth_progs));
		tcase_add_test(tc, test_live_no_cfi);
		tcase_add_test(tc, test_live_intervals_deferred);
		tcase_add_test(tc, test_live_deferred_no_copy);
		suite_add_tcase(s, tc);
	}
	failed = run_suite(s);
	suite_dir_remove();
	return failed ? 1 : 0;
}
