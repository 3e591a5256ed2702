// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * check_unit - native tests of the shared logic and the user-space modules:
 * no root, no BPF.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bpf/ldlat.h"
#include "kernel/abi/cpumap.h"
#include "kernel/abi/datasrc.h"
#include "kernel/abi/pmu.h"
#include "kernel/policy/source.h"
#include "user/symbols/ranges.h"
#include "user/run/session.h"
#include "user/run/kbtf.h"
#include "user/report/snapshot.h"
#include "tests/lib/testutil.h"

/* ---- data-source classes ------------------------------------------------ */

#include "tests/lib/datasrc_cases.h"
#include "kernel/lib/bigmem.h"
#include "kernel/lib/util.h"

#define KBTF_INFO(kind, kflag, vlen) ((__u32)(kind) << 24 | (__u32)(kflag) << 31 | (vlen))

/* A small BTF: int, struct s { int m; }, enum e { A, B }; bent by `bend` (0: as it is). */
static size_t kbtf_sample(char *buf, int bend)
{
	static const char strs[] = "\0int\0s\0m\0e\0A\0B";
	__u32 types[] = {
		1, KBTF_INFO(BTF_KIND_INT, 0, 0),    4, 32,	      /* int */
		5, KBTF_INFO(BTF_KIND_STRUCT, 0, 1), 4, 7,  1, 0,     /* struct s */
		9, KBTF_INFO(BTF_KIND_ENUM, 0, 2),   4, 11, 0, 13, 1, /* enum e */
	};
	struct btf_header h = {
		.magic = BTF_MAGIC,
		.version = BTF_VERSION,
		.hdr_len = sizeof(h),
		.type_len = sizeof(types),
		.str_off = sizeof(types),
		.str_len = sizeof(strs),
	};

	if (bend == 1) { /* a kind past libbpf 1.1's, last, with nothing after it */
		types[11] = KBTF_INFO(NR_BTF_KINDS, 0, 0);
		h.type_len -= 4 * sizeof(__u32);
	}
	if (bend == 2) /* the enum's values run past the type section */
		types[11] = KBTF_INFO(BTF_KIND_ENUM, 0, 3);
	if (bend == 3) /* the other byte order */
		h.magic = 0x9feb;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), types, sizeof(types));
	memcpy(buf + sizeof(h) + sizeof(types), strs, sizeof(strs));
	/* 4: the strings cut short of their end */
	return sizeof(h) + sizeof(types) + sizeof(strs) - (bend == 4 ? 2 : 0);
}

/*
 * The kernel's BTF walked in place: types found as libbpf finds them; a
 * file it cannot walk declined (session__probe asks libbpf then), as
 * libbpf declines those it cannot parse.
 */
/*
 * The mapping of /proc/self/smaps that holds addr: its bounds and whether
 * its VmFlags carry "hg" (MADV_HUGEPAGE).  False when none holds it.
 */
static bool smaps_mapping(uintptr_t addr, uintptr_t *lo, uintptr_t *hi, bool *hg)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	char line[512];
	bool in = false, found = false;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long a, b;

		if (sscanf(line, "%lx-%lx ", &a, &b) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			in = addr >= a && addr < b;
			if (in) {
				*lo = a;
				*hi = b;
			}
			continue;
		}
		if (in && !strncmp(line, "VmFlags:", 8)) {
			*hg = strstr(line, " hg") != NULL;
			found = true;
			break;
		}
	}
	fclose(f);
	return found;
}

/*
 * bigmem__advise against the kernel's own account (/proc/self/smaps): a
 * block of BIGMEM_MIN or more is one mapping advised MADV_HUGEPAGE, still
 * one after realloc grows it and the advice is given again (mremap, which
 * glibc's realloc moves it with, takes a single mapping); a smaller block
 * is left alone.  Where the kernel has no transparent huge pages the
 * advice is declined.
 */
START_TEST(test_bigmem_advise)
{
	bool thp = access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) == 0, hg = false;
	size_t small = BIGMEM_MIN / 4, big = BIGMEM_MIN * 2;
	uintptr_t lo = 0, hi = 0;
	char *p = malloc(small), *q;

	ck_assert_ptr_nonnull(p);
	ck_assert(!bigmem__advise(p));
	ck_assert(!bigmem__advise(NULL));
	free(p);
	p = malloc(big);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(bigmem__advise(p), thp);
	if (!thp) {
		free(p);
		return;
	}
	memset(p, 1, big);
	ck_assert(smaps_mapping((uintptr_t)p, &lo, &hi, &hg));
	ck_assert_msg(hg, "the block at %p is not advised MADV_HUGEPAGE", (void *)p);
	ck_assert_msg(lo <= (uintptr_t)p && hi >= (uintptr_t)p + big,
		      "the block [%p, +%zu) is split: its mapping is %#lx-%#lx", (void *)p, big,
		      (unsigned long)lo, (unsigned long)hi);
	q = realloc(p, big * 2);
	ck_assert_ptr_nonnull(q);
	ck_assert(bigmem__advise(q));
	memset(q + big, 2, big);
	ck_assert(smaps_mapping((uintptr_t)q + big * 2 - 1, &lo, &hi, &hg));
	ck_assert(hg);
	ck_assert_msg(lo <= (uintptr_t)q && hi >= (uintptr_t)q + big * 2,
		      "the grown block [%p, +%zu) is split: its mapping is %#lx-%#lx", (void *)q,
		      big * 2, (unsigned long)lo, (unsigned long)hi);
	ck_assert_int_eq(q[0], 1);
	ck_assert_int_eq(q[big - 1], 1);
	free(q);
}
END_TEST

START_TEST(test_kbtf_walk)
{
	static const struct {
		const char *name;
		int kind;
	} asked[] = { { "int", BTF_KIND_INT },	  { "s", BTF_KIND_STRUCT }, { "e", BTF_KIND_ENUM },
		      { "s", BTF_KIND_UNION },	  { "m", BTF_KIND_STRUCT }, { "", BTF_KIND_INT },
		      { "none", BTF_KIND_STRUCT } };
	char buf[256], path[] = "/tmp/ldlat-kbtf-XXXXXX";
	const struct btf_type *t;
	struct kbtf k;
	libbpf_print_fn_t old;
	struct btf *lib;
	size_t len;
	int bend, fd;
	unsigned int i;
	__s32 id;

	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	old = libbpf_set_print(NULL); /* its words on the bent samples are expected */
	for (bend = 0; bend <= 4; bend++) {
		FILE *f = fopen(path, "w");

		len = kbtf_sample(buf, bend);
		ck_assert_ptr_nonnull(f);
		ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
		ck_assert_int_eq(fclose(f), 0);
		lib = btf__new(buf, (__u32)len);
		if (bend) {
			ck_assert_msg(kbtf__open(&k, path) == -EINVAL, "sample %d walked", bend);
			/* the other byte order is libbpf's to read */
			ck_assert_msg(bend == 3 || !lib, "sample %d: libbpf parses it", bend);
			btf__free(lib);
			continue;
		}
		ck_assert_ptr_nonnull(lib);
		ck_assert_int_eq(kbtf__open(&k, path), 0);
		for (i = 0; i < ARRAY_SIZE(asked); i++) {
			__s32 want = btf__find_by_name_kind(lib, asked[i].name, asked[i].kind);

			id = -1;
			t = kbtf__find(&k, asked[i].name, asked[i].kind, &id);
			ck_assert_msg(want > 0 ? t && id == want : !t, "%s: libbpf %d, the walk %d",
				      asked[i].name, want, t ? id : 0);
		}
		t = kbtf__find(&k, "s", BTF_KIND_STRUCT, NULL);
		ck_assert_str_eq(kbtf__name(&k, btf_members(t)[0].name_off), "m");
		t = kbtf__find(&k, "e", BTF_KIND_ENUM, NULL);
		ck_assert_str_eq(kbtf__name(&k, btf_enum(t)[1].name_off), "B");
		ck_assert_str_eq(kbtf__name(&k, 1000), "");
		kbtf__close(&k);
		btf__free(lib);
	}
	libbpf_set_print(old);
	unlink(path);
}
END_TEST

/* Every value each platform's kernel emits lands in its class, whatever the per-sample bits. */
/* Whether the program can read latency and data source, by release and override. */
START_TEST(test_read_path_by_facts)
{
	/* btf, cast_kfunc, kern_ctx, probe_read, sample_flags, confidentiality */
	static const struct session_facts k618 = { true, true, true, true, true, false },
					  k61 = { true, false, true, true, true, false },
					  k510 = { true, false, true, true, false, false },
					  k61_locked = { true, false, true, true, true, true },
					  k618_locked = { true, true, true, true, true, true },
					  k44 = { true, false, true, false, false, false },
					  nobtf = { false, false, false, false, false, false };
	static const struct {
		const struct session_facts *f;
		const char *force;
		enum session_path path;
		const char *why;
	} cases[] = {
		{ &k618, NULL, SESSION_PATH_KERN_CTX, "bpf_cast_to_kern_ctx" },
		{ &k618_locked, NULL, SESSION_PATH_KERN_CTX, "bpf_cast_to_kern_ctx" },
		{ &k61, NULL, SESSION_PATH_PROBE_READ, "sample_flags marks" },
		{ &k510, NULL, SESSION_PATH_PROBE_READ, "no sample_flags" },
		{ &k61_locked, NULL, SESSION_PATH_ADDR_ONLY, "locked down (confidentiality)" },
		{ &k61_locked, "0", SESSION_PATH_PROBE_READ,
		  "LDLAT_FORCE_ADDR_ONLY=0; no bpf_cast" },
		{ &k44, NULL, SESSION_PATH_ADDR_ONLY, "neither" },
		{ &nobtf, NULL, SESSION_PATH_ADDR_ONLY, "no BTF" },
		{ &k618, "1", SESSION_PATH_ADDR_ONLY, "LDLAT_FORCE_ADDR_ONLY=1" },
		{ &k61, "1", SESSION_PATH_ADDR_ONLY, "LDLAT_FORCE_ADDR_ONLY=1" },
		{ &k61, "2", SESSION_PATH_PROBE_READ, "sample_flags marks" },
	};
	char why[512];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		why[0] = 0;
		ck_assert_msg(session__path_for(cases[i].f, cases[i].force, why, sizeof(why)) ==
				      cases[i].path,
			      "case %u: %s", i, why);
		ck_assert_msg(strstr(why, cases[i].why), "case %u: %s", i, why);
	}
	ck_assert_str_eq(session__path_name(SESSION_PATH_PROBE_READ), "probe-read");
	ck_assert_uint_eq(session__path_flag(SESSION_PATH_KERN_CTX), SESSION_KERN_CTX);
}
END_TEST

START_TEST(test_classify_kernel_tables)
{
	const struct ds_platform *p = &ds_platforms[_i];
	const struct ds_case *c;
	unsigned int i;
	__u64 ds;

	for (i = 0; i < ds_platform__nvalues(p); i++) {
		ds = ds_platform__value(p, i, &c);
		ck_assert_msg(ldlat_classify(ds) == c->cls, "%s %s (0x%llx): got %s, want %s",
			      p->name, c->what, (unsigned long long)ds,
			      class__name(ldlat_classify(ds)), class__name(c->cls));
	}
}
END_TEST

/* perf's words for each table value: the ones the table gives next to its class. */
START_TEST(test_perf_names_kernel_tables)
{
	const struct ds_platform *p = &ds_platforms[_i];
	const struct ds_case *c;
	char lvl[128], snp[64], got[200];
	unsigned int i;
	__u64 ds;

	for (i = 0; i < ds_platform__nvalues(p); i++) {
		ds = ds_platform__value(p, i, &c);
		ck_assert_msg(c->perf != NULL, "%s %s: perf's words missing", p->name, c->what);
		snprintf(got, sizeof(got), "%s / %s", datasrc__perf_lvl(ds, lvl, sizeof(lvl)),
			 datasrc__perf_snoop(ds, snp, sizeof(snp)));
		ck_assert_msg(!strcmp(got, c->perf), "%s %s (0x%llx): perf says '%s', table '%s'",
			      p->name, c->what, (unsigned long long)ds, got, c->perf);
	}
}
END_TEST

/*
 * mem_region: MMIO and another agent's I/O agent are I/O whatever the level
 * says; another caching agent's cache is a peer cache; memory regions are
 * RAM, and each has a name.
 */
START_TEST(test_classify_regions)
{
	static const struct {
		unsigned int region;
		__u64 lvl;
		enum ldlat_class cls;
		const char *name;
	} want[] = {
		{ PERF_MEM_REGION_NA, P(LVLNUM, RAM), LDLAT_CLASS_LOCAL_RAM, NULL },
		{ PERF_MEM_REGION_L_SHARE, P(LVLNUM, L3), LDLAT_CLASS_L3, "local shared cache" },
		{ PERF_MEM_REGION_L_NON_SHARE, P(LVLNUM, L3), LDLAT_CLASS_L3,
		  "local non-shared cache" },
		{ PERF_MEM_REGION_O_IO, P(LVLNUM, L3), LDLAT_CLASS_IO,
		  "another agent's I/O agent" },
		{ PERF_MEM_REGION_O_SHARE, P(LVLNUM, L3), LDLAT_CLASS_PEER_CACHE,
		  "another agent's shared cache" },
		{ PERF_MEM_REGION_O_NON_SHARE, P(LVLNUM, L3), LDLAT_CLASS_PEER_CACHE,
		  "another agent's non-shared cache" },
		{ PERF_MEM_REGION_MMIO, P(LVLNUM, RAM), LDLAT_CLASS_IO, "MMIO" },
		{ PERF_MEM_REGION_MEM0, P(LVLNUM, RAM), LDLAT_CLASS_LOCAL_RAM, "memory region 0" },
		{ PERF_MEM_REGION_MEM0 + 7, P(LVLNUM, RAM), LDLAT_CLASS_LOCAL_RAM,
		  "memory region 7" },
		{ PERF_MEM_REGION_RSVD, P(LVLNUM, RAM), LDLAT_CLASS_LOCAL_RAM, "reserved region" },
		{ 31, P(LVLNUM, RAM), LDLAT_CLASS_LOCAL_RAM, "reserved region" },
	};
	unsigned int i;
	__u64 ds;

	for (i = 0; i < ARRAY_SIZE(want); i++) {
		ds = P(OP, LOAD) | P(LVL, HIT) | want[i].lvl |
		     ((__u64)want[i].region << PERF_MEM_REGION_SHIFT);
		ck_assert_msg(ldlat_classify(ds) == want[i].cls, "region %u: got %s, want %s",
			      want[i].region, class__name(ldlat_classify(ds)),
			      class__name(want[i].cls));
		if (want[i].name)
			ck_assert_str_eq(datasrc__region(ds), want[i].name);
		else
			ck_assert_ptr_null(datasrc__region(ds));
	}
	/* bit 51 and above are not the region */
	ck_assert_ptr_null(datasrc__region(1ull << 51));
}
END_TEST

/* Every mem_lvl_num value, local, with only the HIT bit of the legacy field. */
START_TEST(test_classify_every_lvlnum)
{
	static const enum ldlat_class want[16] = {
		[0] = LDLAT_CLASS_UNKNOWN,
		[PERF_MEM_LVLNUM_L1] = LDLAT_CLASS_L1,
		[PERF_MEM_LVLNUM_L2] = LDLAT_CLASS_L2,
		[PERF_MEM_LVLNUM_L3] = LDLAT_CLASS_L3,
		[PERF_MEM_LVLNUM_L4] = LDLAT_CLASS_L4,
		[PERF_MEM_LVLNUM_L2_MHB] = LDLAT_CLASS_L2_MHB,
		[PERF_MEM_LVLNUM_MSC] = LDLAT_CLASS_MSC,
		[PERF_MEM_LVLNUM_L0] = LDLAT_CLASS_L1,
		[PERF_MEM_LVLNUM_UNC] = LDLAT_CLASS_UNCACHED,
		[PERF_MEM_LVLNUM_CXL] = LDLAT_CLASS_CXL,
		[PERF_MEM_LVLNUM_IO] = LDLAT_CLASS_IO,
		[PERF_MEM_LVLNUM_ANY_CACHE] = LDLAT_CLASS_ANY_CACHE,
		[PERF_MEM_LVLNUM_LFB] = LDLAT_CLASS_LFB,
		[PERF_MEM_LVLNUM_RAM] = LDLAT_CLASS_LOCAL_RAM,
		[PERF_MEM_LVLNUM_PMEM] = LDLAT_CLASS_PMEM,
		[PERF_MEM_LVLNUM_NA] = LDLAT_CLASS_UNKNOWN,
	};
	__u64 ds = P(OP, LOAD) | P(LVL, HIT) | ((__u64)_i << PERF_MEM_LVLNUM_SHIFT);

	ck_assert_msg(ldlat_classify(ds) == want[_i], "lvl_num %d: got %s, want %s", _i,
		      class__name(ldlat_classify(ds)), class__name(want[_i]));
	/* HITM in the core's own L1 or L0 is an L1 hit; in L2 or L3, another core's modified line */
	if (_i == PERF_MEM_LVLNUM_L0 || _i == PERF_MEM_LVLNUM_L1)
		ck_assert_int_eq(ldlat_classify(ds | P(SNOOP, HITM)), LDLAT_CLASS_L1);
	if (_i == PERF_MEM_LVLNUM_L2 || _i == PERF_MEM_LVLNUM_L3)
		ck_assert_int_eq(ldlat_classify(ds | P(SNOOP, HITM)), LDLAT_CLASS_LOCAL_HITM);
}
END_TEST

/* Remote caches and RAM at every mem_hops distance. */
START_TEST(test_classify_hops)
{
	static const struct {
		__u64 hops;
		enum ldlat_class cache, ram;
	} want[] = {
		{ 0, LDLAT_CLASS_REMOTE_CACHE, LDLAT_CLASS_REMOTE_RAM },
		{ PERF_MEM_HOPS_0, LDLAT_CLASS_PEER_CACHE, LDLAT_CLASS_LOCAL_RAM },
		{ PERF_MEM_HOPS_1, LDLAT_CLASS_REMOTE_CACHE_1HOP, LDLAT_CLASS_REMOTE_RAM_1HOP },
		{ PERF_MEM_HOPS_2, LDLAT_CLASS_REMOTE_CACHE_2HOP, LDLAT_CLASS_REMOTE_RAM_2HOP },
		{ PERF_MEM_HOPS_3, LDLAT_CLASS_REMOTE_CACHE_3HOP, LDLAT_CLASS_REMOTE_RAM_3HOP },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(want); i++) {
		__u64 h = want[i].hops << PERF_MEM_HOPS_SHIFT;

		ck_assert_int_eq(ldlat_classify(OP_LH | LEVEL(L3) | REM | h), want[i].cache);
		ck_assert_int_eq(ldlat_classify(OP_LH | LEVEL(ANY_CACHE) | REM | h), want[i].cache);
		ck_assert_int_eq(ldlat_classify(OP_LH | LEVEL(RAM) | REM | h), want[i].ram);
		ck_assert_int_eq(ldlat_classify(OP_LH | LEVEL(L3) | REM | h | P(SNOOP, HITM)),
				 LDLAT_CLASS_REMOTE_HITM);
	}
}
END_TEST

/* Each legacy mem_lvl bit alone (kernels that fill no mem_lvl_num). */
START_TEST(test_classify_legacy)
{
	static const struct {
		__u64 lvl;
		enum ldlat_class hit, hitm;
	} want[] = {
		{ PERF_MEM_LVL_L1, LDLAT_CLASS_L1, LDLAT_CLASS_L1 },
		{ PERF_MEM_LVL_LFB, LDLAT_CLASS_LFB, LDLAT_CLASS_LFB },
		{ PERF_MEM_LVL_L2, LDLAT_CLASS_L2, LDLAT_CLASS_LOCAL_HITM },
		{ PERF_MEM_LVL_L3, LDLAT_CLASS_L3, LDLAT_CLASS_LOCAL_HITM },
		{ PERF_MEM_LVL_LOC_RAM, LDLAT_CLASS_LOCAL_RAM, LDLAT_CLASS_LOCAL_HITM },
		{ PERF_MEM_LVL_REM_RAM1, LDLAT_CLASS_REMOTE_RAM_1HOP, LDLAT_CLASS_REMOTE_RAM_1HOP },
		{ PERF_MEM_LVL_REM_RAM2, LDLAT_CLASS_REMOTE_RAM_2HOP, LDLAT_CLASS_REMOTE_RAM_2HOP },
		{ PERF_MEM_LVL_REM_CCE1, LDLAT_CLASS_REMOTE_CACHE_1HOP, LDLAT_CLASS_REMOTE_HITM },
		{ PERF_MEM_LVL_REM_CCE2, LDLAT_CLASS_REMOTE_CACHE_2HOP, LDLAT_CLASS_REMOTE_HITM },
		{ PERF_MEM_LVL_IO, LDLAT_CLASS_IO, LDLAT_CLASS_IO },
		{ PERF_MEM_LVL_UNC, LDLAT_CLASS_UNCACHED, LDLAT_CLASS_UNCACHED },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(want); i++) {
		__u64 ds = P(OP, LOAD) | ((want[i].lvl | PERF_MEM_LVL_HIT) << PERF_MEM_LVL_SHIFT);

		ck_assert_msg(ldlat_classify(ds) == want[i].hit, "legacy 0x%llx",
			      (unsigned long long)want[i].lvl);
		ck_assert_msg(ldlat_classify(ds | P(SNOOP, HITM)) == want[i].hitm,
			      "legacy 0x%llx HITM: got %s", (unsigned long long)want[i].lvl,
			      class__name(ldlat_classify(ds | P(SNOOP, HITM))));
	}
	ck_assert_int_eq(ldlat_classify(P(OP, LOAD) | P(LVL, MISS) | P(LVL, L2)), LDLAT_CLASS_MISS);
	ck_assert_int_eq(ldlat_classify(P(OP, LOAD) | P(LVL, MISS)), LDLAT_CLASS_UNKNOWN);
	ck_assert_int_eq(ldlat_classify(P(OP, LOAD) | P(LVL, NA)), LDLAT_CLASS_UNKNOWN);
}
END_TEST

START_TEST(test_class_names)
{
	unsigned int c, d;
	__u32 mask;
	struct err err = {};

	for (c = 0; c < LDLAT_NCLASS; c++) {
		ck_assert_str_ne(class__name(c), "?");
		ck_assert_int_eq(class__parse_list(class__token(c), &mask, &err), 0);
		ck_assert_uint_eq(mask, 1u << c);
		for (d = 0; d < c; d++)
			ck_assert_str_ne(class__token(c), class__token(d));
	}
	ck_assert_int_eq(class__parse_list("l3,hitm", &mask, &err), 0);
	ck_assert_uint_eq(mask, (1u << LDLAT_CLASS_L3) | (1u << LDLAT_CLASS_LOCAL_HITM) |
					(1u << LDLAT_CLASS_REMOTE_HITM));
	ck_assert_int_eq(class__parse_list("L3,nosuch", &mask, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "unknown class 'nosuch'"));
	ck_assert_int_eq(class__parse_list(",", &mask, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "empty class list"));
}
END_TEST

/* Each group is its members, and each class its name, written out by hand (README). */
START_TEST(test_class_groups)
{
	static const char *const groups[][2] = {
		{ "hitm", "local-hitm,remote-hitm" },
		{ "remote-cache",
		  "remote-cache-any,remote-cache-1hop,remote-cache-2hop,remote-cache-3hop" },
		{ "remote-ram", "remote-ram-any,remote-ram-1hop,remote-ram-2hop,remote-ram-3hop" },
		{ "ram",
		  "local-ram,remote-ram-any,remote-ram-1hop,remote-ram-2hop,remote-ram-3hop" },
		{ "cache",
		  "l1,lfb,l2-mhb,l2,l3,l4,msc,any-cache,local-hitm,peer-cache,remote-cache-any,"
		  "remote-cache-1hop,remote-cache-2hop,remote-cache-3hop,remote-hitm" },
		{ "all", "unknown,l1,lfb,l2,l3,l4,msc,any-cache,local-hitm,peer-cache,"
			 "remote-cache-any,remote-cache-1hop,remote-cache-2hop,remote-cache-3hop,"
			 "remote-hitm,local-ram,remote-ram-any,remote-ram-1hop,remote-ram-2hop,"
			 "remote-ram-3hop,pmem,cxl,io,uncached,miss,l2-mhb" },
	};
	static const char *const names[LDLAT_NCLASS] = {
		"unknown source",
		"L1 hit",
		"L1 fill buffer hit",
		"L2 hit",
		"L3 hit",
		"L4 hit",
		"memory-side cache hit",
		"cache hit (level unknown)",
		"another core's modified line (local HITM)",
		"peer cache (same node)",
		"remote cache",
		"remote cache (1 hop)",
		"remote cache (2 hops)",
		"remote cache (3 hops)",
		"remote modified line (remote HITM)",
		"local RAM",
		"remote RAM",
		"remote RAM (1 hop)",
		"remote RAM (2 hops)",
		"remote RAM (3 hops)",
		"persistent memory",
		"CXL memory",
		"I/O memory",
		"uncached memory",
		"cache miss, source unknown",
		"L2 miss-handling buffer hit",
	};
	__u32 group, members;
	struct err err = {};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(groups); i++) {
		ck_assert_int_eq(class__parse_list(groups[i][0], &group, &err), 0);
		ck_assert_int_eq(class__parse_list(groups[i][1], &members, &err), 0);
		ck_assert_msg(group == members, "%s: mask 0x%x, its members 0x%x", groups[i][0],
			      group, members);
	}
	/* what the tools print for each class, in the enum's order */
	for (i = 0; i < LDLAT_NCLASS; i++)
		ck_assert_str_eq(class__name(i), names[i]);
	/* and the bits are the classes' own: remote-ram-any is LDLAT_CLASS_REMOTE_RAM */
	ck_assert_int_eq(class__parse_list("remote-ram-any", &group, &err), 0);
	ck_assert_uint_eq(group, 1u << LDLAT_CLASS_REMOTE_RAM);
	ck_assert_uint_eq(LDLAT_CLASS_REMOTE_RAM, 16);
}
END_TEST

/* ---- buckets and percentiles -------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

START_TEST(test_log2_bucket_edges)
{
	__u64 v;
	int k;

	ck_assert_uint_eq(ldlat_log2_bucket(0), 0);
	ck_assert_uint_eq(ldlat_log2_bucket(1), 1);
	ck_assert_uint_eq(ldlat_log2_bucket(2), 2);
	ck_assert_uint_eq(ldlat_log2_bucket(3), 2);
	ck_assert_uint_eq(ldlat_log2_bucket(~0ull), 64);
	for (k = 1; k < 64; k++) {
		__u64 p = 1ull << k;

		ck_assert_uint_eq(ldlat_log2_bucket(p - 1), (unsigned)k);
		ck_assert_uint_eq(ldlat_log2_bucket(p), (unsigned)k + 1);
	}
	/* every bucket's bounds land in it, and the buckets tile 0..UINT64_MAX */
	for (k = 0; k < LDLAT_NBUCKETS; k++) {
		ck_assert_uint_eq(ldlat_bucket(ldlat_bucket_lo(k, 0), 0), (unsigned)k);
		ck_assert_uint_eq(ldlat_bucket(ldlat_bucket_hi(k, 0), 0), (unsigned)k);
		if (k)
			ck_assert_uint_eq(ldlat_bucket_lo(k, 0), ldlat_bucket_hi(k - 1, 0) + 1);
		/* and none wider than 1/LDLAT_SUB of its lower bound */
		if (k >= 2 * (int)LDLAT_SUB && k < (int)LDLAT_NLOG)
			ck_assert_uint_le((ldlat_bucket_hi(k, 0) - ldlat_bucket_lo(k, 0) + 1) *
						  LDLAT_SUB,
					  ldlat_bucket_lo(k, 0));
	}
	ck_assert_uint_eq(ldlat_bucket_lo(0, 0), 0);
	ck_assert_uint_eq(ldlat_bucket(63, 0), 63);
	ck_assert_uint_eq(ldlat_bucket(77, 0), ldlat_bucket(76, 0));
	ck_assert_uint_eq(ldlat_bucket((1u << LDLAT_LAT_BITS) - 1, 0), LDLAT_NLOG - 1);
	ck_assert_uint_eq(ldlat_bucket(1u << LDLAT_LAT_BITS, 0), LDLAT_NLOG);
	ck_assert_uint_eq(ldlat_bucket(~0ull, 0), LDLAT_NBUCKETS - 1);
	ck_assert_uint_eq(ldlat_bucket_hi(LDLAT_NBUCKETS - 1, 0), ~0ull);
	/* the log-linear index against a plain computation of it, at every value */
	for (v = 1; v < (1u << LDLAT_LAT_BITS); v++) {
		__u32 e = ldlat_log2_bucket(v) - 1,
		      sh = e > LDLAT_SUB_BITS ? e - LDLAT_SUB_BITS : 0;

		ck_assert_uint_eq(ldlat_bucket(v, 0), (sh << LDLAT_SUB_BITS) + (__u32)(v >> sh));
	}
}
END_TEST

START_TEST(test_linear_bucket_edges)
{
	int k;

	ck_assert_uint_eq(ldlat_bucket(0, 10), 0);
	ck_assert_uint_eq(ldlat_bucket(9, 10), 0);
	ck_assert_uint_eq(ldlat_bucket(10, 10), 1);
	ck_assert_uint_eq(ldlat_bucket(639, 10), 63);
	ck_assert_uint_eq(ldlat_bucket(640, 10), 64);
	ck_assert_uint_eq(ldlat_bucket(~0ull, 10), 64);
	ck_assert_uint_eq(ldlat_bucket(~0ull, 0xffffffffu), 64);
	for (k = 0; k < LDLAT_NLINEAR; k++) {
		ck_assert_uint_eq(ldlat_bucket(ldlat_bucket_lo(k, 7), 7), (unsigned)k);
		ck_assert_uint_eq(ldlat_bucket(ldlat_bucket_hi(k, 7), 7), (unsigned)k);
	}
	ck_assert_uint_eq(ldlat_bucket_hi(LDLAT_NLINEAR - 1, 7), ~0ull);
	/* a power of two shifts; the shift and the division agree at every edge */
	ck_assert_uint_eq(ldlat_linear_shift(0), 0);
	ck_assert_uint_eq(ldlat_linear_shift(7), 0);
	ck_assert_uint_eq(ldlat_linear_shift(0xffffffffu), 0);
	for (k = 0; k < 32; k++) {
		__u32 step = 1u << k, sh = ldlat_linear_shift(step);
		int b;

		ck_assert_uint_eq(sh, (unsigned)k + 1);
		for (b = 0; b < LDLAT_NLINEAR; b++) {
			ck_assert_uint_eq(ldlat_bucket_shift(ldlat_bucket_lo(b, step), step, sh),
					  (unsigned)b);
			ck_assert_uint_eq(ldlat_bucket_shift(ldlat_bucket_hi(b, step), step, sh),
					  (unsigned)b);
		}
		ck_assert_uint_eq(ldlat_bucket_shift(~0ull, step, sh), LDLAT_NLINEAR - 1);
	}
}
END_TEST

/* A cell of samples through the native build of the program's accounting. */
static void cell_of(struct snapshot *snap, const __u64 *lat, int n, __u32 linear_step)
{
	struct ldlat_config cfg = { .nranges = 1,
				    .max_lat = ~0ull,
				    .class_mask = LDLAT_ALL_CLASSES,
				    .need = LDLAT_HAS_LAT,
				    .linear_step = linear_step };
	struct ldlat_sample s = { .flags = LDLAT_HAS_LAT, .period = 1 };
	int i;

	ck_assert_int_eq(snapshot__init(snap, 1), 0);
	for (i = 0; i < n; i++) {
		s.lat = lat[i];
		snapshot__account(snap, &cfg, &s);
	}
}

/*
 * The latency window through the native accounting, counts written by hand:
 * samples at --min-lat 64 and --max-lat 1424 are kept, one under and two
 * over are dropped, each counted as what it is; the sum is of the latencies.
 */
START_TEST(test_window_counts)
{
	static const __u64 lat[] = { 10, 64, 1424, 1425, 9000 };
	struct ldlat_config cfg = { .nranges = 1,
				    .min_lat = 64,
				    .max_lat = 1424,
				    .class_mask = LDLAT_ALL_CLASSES,
				    .need = LDLAT_HAS_LAT };
	struct ldlat_sample s = { .flags = LDLAT_HAS_LAT, .period = 1 };
	struct snapshot snap;
	unsigned int i;

	ck_assert_int_eq(snapshot__init(&snap, 1), 0);
	for (i = 0; i < ARRAY_SIZE(lat); i++) {
		s.lat = lat[i];
		snapshot__account(&snap, &cfg, &s);
	}
	ck_assert_uint_eq(snap.counters.seen, 5);
	ck_assert_uint_eq(snap.counters.kept, 2);
	ck_assert_uint_eq(snap.counters.below_min, 1);
	ck_assert_uint_eq(snap.counters.above_max, 2);
	ck_assert_uint_eq(snap.cells[0].count, 2);
	ck_assert_uint_eq(snap.cells[0].sum, 64 + 1424);
	ck_assert_uint_eq(snap.cells[0].min, 64);
	ck_assert_uint_eq(snap.cells[0].max, 1424);
	snapshot__free(&snap);
}
END_TEST

START_TEST(test_percentiles)
{
	struct snapshot snap;
	struct cell c = {};
	const struct cell *k;
	__u64 lat[100];
	bool at_least = false;
	int i;

	ck_assert_double_eq(cell__percentile(&c, 50, 0), 0);
	/* one sample of 77 cycles: every percentile is 77 (log2 buckets said 96) */
	lat[0] = 77;
	cell_of(&snap, lat, 1, 0);
	k = &snap.cells[0];
	ck_assert_uint_eq(k->min, 77);
	ck_assert_uint_eq(k->max, 77);
	ck_assert_double_eq(cell__percentile(k, 50, 0), 77);
	ck_assert_double_eq(cell__percentile(k, 90, 0), 77);
	ck_assert_double_eq(cell__percentile(k, 99, 0), 77);
	snapshot__free(&snap);
	/* 90 fast and 10 slow: p50 and p90 are fast, p99 slow, none above the maximum */
	for (i = 0; i < 100; i++)
		lat[i] = i < 90 ? 5 : 300 + i;
	cell_of(&snap, lat, 100, 0);
	k = &snap.cells[0];
	ck_assert_double_eq(cell__percentile(k, 50, 0), 5);
	ck_assert_double_eq(cell__percentile(k, 90, 0), 5);
	ck_assert(fabs(cell__percentile(k, 99, 0) - 398) <= 398 * LDLAT_REL_ERROR);
	ck_assert_double_eq(cell__percentile(k, 100, 0), 399);
	snapshot__free(&snap);
	/* linear buckets of 10: 1..99 measured (0 is not) gives p50 within 5 of 50 */
	for (i = 0; i < 100; i++)
		lat[i] = i;
	cell_of(&snap, lat, 100, 10);
	k = &snap.cells[0];
	ck_assert(fabs(cell__percentile(k, 50, 10) - 50) <= 5);
	ck_assert_uint_eq(k->unmeasured, 1); /* the 0: not measured */
	snapshot__free(&snap);
	/* the open last bucket: its lower bound, a floor, never above the maximum */
	lat[0] = 5;
	lat[1] = 700;
	lat[2] = 900;
	cell_of(&snap, lat, 3, 10);
	k = &snap.cells[0];
	ck_assert_double_eq(cell__percentile_floor(k, 60, 10, &at_least), 640);
	ck_assert(at_least);
	ck_assert_double_eq(cell__percentile(k, 99, 10), 900); /* the greatest: max, exact */
	snapshot__free(&snap);
	for (i = 0; i < 5; i++)
		lat[i] = 700 + 100 * i;
	cell_of(&snap, lat, 5, 10);
	/* all above 640: the floor is the least of them */
	ck_assert_double_eq(cell__percentile_floor(&snap.cells[0], 50, 10, &at_least), 700);
	ck_assert(at_least);
	snapshot__free(&snap);
}
END_TEST

/*
 * The bound the reports state: for every bucket below the open one and every
 * value in it, the estimate cell__percentile gives for the bucket is within
 * LDLAT_REL_ERROR of that value, whatever the bucket's other samples.
 */
START_TEST(test_percentile_error_bound)
{
	struct cell c = {};
	double est, worst = 0;
	__u64 lo, hi, v;
	__u32 b;

	for (b = 1; b < LDLAT_NLOG; b++) {
		lo = ldlat_bucket_lo(b, 0);
		hi = ldlat_bucket_hi(b, 0);
		memset(&c, 0, sizeof(c));
		c.slot[0] = 1; /* p50 of 3 samples: the one in bucket b */
		c.slot[b] = 1;
		c.slot[LDLAT_NLOG] = 1;
		c.count = 3;
		c.min = 0;
		c.max = ~0ull;
		est = cell__percentile(&c, 50, 0);
		ck_assert(est >= (double)lo && est <= (double)hi);
		for (v = lo; v <= hi; v++)
			if (fabs(est - (double)v) / (double)v > worst)
				worst = fabs(est - (double)v) / (double)v;
	}
	ck_assert_msg(worst <= LDLAT_REL_ERROR, "worst relative error %.5f%%", worst * 100);
	ck_assert_msg(worst <= 0.03, "over the 3%% the reports promise");
}
END_TEST

/* Random latency sets against their exact sorted percentiles, natively. */
START_TEST(test_percentiles_random)
{
	static const double ps[] = { 1, 10, 50, 90, 99, 99.9, 100 };
	__u64 lat[2000], sorted[2000];
	__u64 state = 0x2545f4914f6cdd1dull;
	struct snapshot snap;
	double got, want;
	bool at_least;
	int set, i, n;
	unsigned int j;
	size_t rank;

	for (set = 0; set < 200; set++) {
		n = 1 + set * 10 % 2000;
		for (i = 0; i < n; i++) {
			state ^= state << 13;
			state ^= state >> 7;
			state ^= state << 17;
			/* from 1 to 2^(set % 22): some above the log-linear buckets */
			lat[i] = 1 + (state >> 3) % (2ull << (set % 22));
		}
		cell_of(&snap, lat, n, 0);
		memcpy(sorted, lat, n * sizeof(*lat));
		qsort(sorted, n, sizeof(*sorted), cmp_u64);
		for (j = 0; j < ARRAY_SIZE(ps); j++) {
			rank = (size_t)ceil(ps[j] / 100.0 * n);
			want = (double)sorted[(rank ? rank : 1) - 1];
			got = cell__percentile_floor(&snap.cells[0], ps[j], 0, &at_least);
			ck_assert(got >= (double)sorted[0] && got <= (double)sorted[n - 1]);
			if (at_least)
				ck_assert(got <= want && got >= (double)(1u << LDLAT_LAT_BITS));
			else
				ck_assert_msg(fabs(got - want) <= LDLAT_REL_ERROR * want,
					      "set %d p%g: %.0f, exact %.0f", set, ps[j], got,
					      want);
		}
		snapshot__free(&snap);
	}
}
END_TEST

/* What the program did not see, from the events' counts. */
START_TEST(test_unseen_arithmetic)
{
	struct perf_event_attr fixed = { .sample_period = 1000 },
			       freq = { .freq = 1, .sample_freq = 4000 }, counting = {};
	struct unseen u = {};

	/* fixed period: floor(count / period) per event, against 'seen' */
	unseen__add_count(&u, &fixed, 10999); /* 10 samples */
	unseen__add_count(&u, &fixed, 5000);  /* 5 */
	unseen__add_count(&u, &counting, 1u << 30);
	ck_assert(u.known && !u.freq);
	ck_assert_uint_eq(u.nevents, 2);
	ck_assert_uint_eq(u.counted, 15);
	u.seen = 15;
	ck_assert_uint_eq(unseen__samples(&u), 0);
	u.seen = 12;
	ck_assert_uint_eq(unseen__samples(&u), 3);
	u.seen = 16; /* seen read after the counts: a sample in between */
	ck_assert_uint_eq(unseen__samples(&u), 0);
	/* frequency mode: events against the periods seen, one mean period per event spared */
	memset(&u, 0, sizeof(u));
	unseen__add_count(&u, &freq, 100000);
	unseen__add_count(&u, &freq, 100000);
	ck_assert(u.known && u.freq);
	u.seen = 190;
	u.seen_period = 190000; /* mean 1000: 10000 events unaccounted, 2000 of them trailing */
	ck_assert_uint_eq(unseen__samples(&u), 8);
	u.seen = 199;
	u.seen_period = 199000; /* 1000 unaccounted: within the trailing periods */
	ck_assert_uint_eq(unseen__samples(&u), 0);
	/*
	 * a pinned set's lower bound: each count ends at a sample the program
	 * ran on, no trailing period to spare: the same 1000 events are a sample
	 */
	u.lower_bound = true;
	ck_assert_uint_eq(unseen__samples(&u), 1);
	u.seen = 190;
	u.seen_period = 190000;
	ck_assert_uint_eq(unseen__samples(&u), 10);
	/* not measured: nothing to say */
	memset(&u, 0, sizeof(u));
	ck_assert(!u.known);
	ck_assert_uint_eq(unseen__samples(&u), 0);
}
END_TEST

/*
 * An interval's unseen figure: what the events produced in the interval
 * against what the program saw in it, both differences of the run's
 * counts (an interval's loss is not the run's so far).
 */
START_TEST(test_unseen_interval)
{
	struct snapshot a, b, d;

	ck_assert_int_eq(snapshot__init(&a, 1), 0);
	ck_assert_int_eq(snapshot__init(&b, 1), 0);
	ck_assert_int_eq(snapshot__init(&d, 1), 0);
	a.unseen = (struct unseen){ .known = true, .nevents = 2, .counted = 15, .seen = 12 };
	b.unseen = (struct unseen){ .known = true, .nevents = 2, .counted = 40, .seen = 35 };
	snapshot__delta(&d, &b, &a);
	ck_assert(d.unseen.known && !d.unseen.freq);
	ck_assert_uint_eq(d.unseen.counted, 25);
	ck_assert_uint_eq(d.unseen.seen, 23);
	ck_assert_uint_eq(unseen__samples(&d.unseen), 2);
	snapshot__free(&a);
	snapshot__free(&b);
	snapshot__free(&d);
}
END_TEST

/* Interval reports: min and max of what is new, exact where a new extreme, else bounded. */
START_TEST(test_delta_bounds)
{
	struct snapshot a, b, d;
	__u64 first[] = { 50, 5000 }, both[] = { 50, 5000, 300, 310 };

	cell_of(&a, first, 2, 0);
	cell_of(&b, both, 4, 0);
	ck_assert_int_eq(snapshot__init(&d, 1), 0);
	snapshot__delta(&d, &b, &a);
	ck_assert_uint_eq(cell__measured(&d.cells[0]), 2);
	ck_assert_uint_le(d.cells[0].min, 300);
	ck_assert_uint_ge(d.cells[0].min, 300 - 300 / 32);
	ck_assert_uint_ge(d.cells[0].max, 310);
	ck_assert_uint_le(d.cells[0].max, 310 + 310 / 32);
	ck_assert(cell__percentile(&d.cells[0], 99, 0) <= d.cells[0].max);
	snapshot__free(&a);
	snapshot__free(&b);
	snapshot__free(&d);
}
END_TEST

/* ---- the filter ---------------------------------------------------------- */

START_TEST(test_judge_order)
{
	struct ldlat_config c = { .nspans = 2,
				  .span_lo = { 0x1000, 0x3000 },
				  .span_hi = { 0x2000, 0x4000 },
				  .span_range = { 0, 1 },
				  .nranges = 2,
				  .min_lat = 10,
				  .max_lat = 100,
				  .class_mask = 1u << LDLAT_CLASS_L3,
				  .op_mask = PERF_MEM_OP_LOAD,
				  .need = LDLAT_HAS_ADDR | LDLAT_HAS_LAT | LDLAT_HAS_DSRC,
				  .ntgids = 1,
				  .tgid = { 42 } };
	__u64 l3 = OP_LH | P(LVL, L3) | LEVEL(L3);
	struct ldlat_sample s = {
		.addr = 0x3800, .lat = 50, .data_src = l3, .tgid = 42, .flags = c.need
	};
	__u32 r = 99, k = 99;

	ck_assert_int_eq(ldlat_judge(&c, &s, &r, &k), LDLAT_KEPT);
	ck_assert_uint_eq(r, 1);
	ck_assert_uint_eq(k, LDLAT_CLASS_L3);
	s.flags = LDLAT_HAS_ADDR;
	ck_assert_int_eq(ldlat_judge(&c, &s, &r, &k), LDLAT_DROP_MISSING);
	s.flags = c.need;
	s.tgid = 7;
	ck_assert_int_eq(ldlat_judge(&c, &s, &r, &k), LDLAT_DROP_TGID);
	/* -p with 16 processes: the 16th is as wanted as the first */
	c.ntgids = 16;
	for (int i = 0; i < 16; i++)
		c.tgid[i] = 100 + i;
	s.tgid = 115;
	ck_assert_int_eq(ldlat_judge(&c, &s, &r, &k), LDLAT_KEPT);
	s.tgid = 100;
	ck_assert_int_eq(ldlat_judge(&c, &s, &r, &k), LDLAT_KEPT);
	s.tgid = 116;
	ck_assert_int_eq(ldlat_judge(&c, &s, &r, &k), LDLAT_DROP_TGID);
	c.ntgids = 1;
	c.tgid[0] = 42;
	s.tgid = 42;
	s.data_src = (l3 & ~P(OP, LOAD)) | P(OP, STORE);
	ck_assert_int_eq(ldlat_judge(&c, &s, &r, &k), LDLAT_DROP_OP);
	s.data_src = l3;
	s.addr = 0;
	ck_assert_int_eq(ldlat_judge(&c, &s, &r, &k), LDLAT_DROP_NO_ADDR);
	s.addr = 0x2000; /* ranges are half-open */
	ck_assert_int_eq(ldlat_judge(&c, &s, &r, &k), LDLAT_DROP_NO_RANGE);
	s.addr = 0xfff;
	ck_assert_int_eq(ldlat_judge(&c, &s, &r, &k), LDLAT_DROP_NO_RANGE);
	s.addr = 0x1000;
	s.lat = 9;
	ck_assert_int_eq(ldlat_judge(&c, &s, &r, &k), LDLAT_DROP_BELOW_MIN);
	s.lat = 101;
	ck_assert_int_eq(ldlat_judge(&c, &s, &r, &k), LDLAT_DROP_ABOVE_MAX);
	s.lat = 100;
	s.data_src = OP_LH | P(LVL, L1) | LEVEL(L1);
	ck_assert_int_eq(ldlat_judge(&c, &s, &r, &k), LDLAT_DROP_CLASS);
	s.data_src = P(OP, LOAD) | P(LVL, HIT); /* no level: the unknown class, not in the set */
	ck_assert_int_eq(ldlat_judge(&c, &s, &r, &k), LDLAT_DROP_CLASS);
	s.data_src = l3;
	ck_assert_int_eq(ldlat_judge(&c, &s, &r, &k), LDLAT_KEPT);
	ck_assert_uint_eq(r, 0);
}
END_TEST

/* The binary search against a linear scan, on every boundary of 32 spans. */
START_TEST(test_range_search)
{
	struct ldlat_config c = {};
	int i, want, n;
	__u64 a;

	for (n = 0; n <= LDLAT_MAX_SPANS; n++) {
		c.nspans = n;
		for (i = 0; i < n; i++) {
			c.span_lo[i] = 0x10000 + i * 0x1000;
			c.span_hi[i] = c.span_lo[i] + 0x800;
			c.span_range[i] = i % LDLAT_MAX_RANGES;
		}
		for (a = 0xf000; a < 0x10000 + (__u64)(n + 1) * 0x1000; a += 0x200) {
			/* each address, and the one before it: every edge of every span */
			want = -1;
			for (i = 0; i < n; i++)
				if (a >= c.span_lo[i] && a < c.span_hi[i])
					want = c.span_range[i];
			ck_assert_int_eq(ldlat_range_of(&c, a), want);
			want = -1;
			for (i = 0; i < n; i++)
				if (a - 1 >= c.span_lo[i] && a - 1 < c.span_hi[i])
					want = c.span_range[i];
			ck_assert_int_eq(ldlat_range_of(&c, a - 1), want);
		}
	}
}
END_TEST

/* ---- ranges -------------------------------------------------------------- */

START_TEST(test_range_parse)
{
	struct range_spec r;
	struct err err = {};

	ck_assert_int_eq(range__parse(&r, "0x1000-0x2000", &err), 0);
	ck_assert_uint_eq(r.lo, 0x1000);
	ck_assert_uint_eq(r.hi, 0x2000);
	ck_assert_int_eq(range__parse(&r, "0x7f0000000000+1G", &err), 0);
	ck_assert_uint_eq(r.hi - r.lo, 1ull << 30);
	/* addresses are hex with or without 0x, as /proc/PID/maps prints them: never octal */
	ck_assert_int_eq(range__parse(&r, "4096+4K", &err), 0);
	ck_assert_uint_eq(r.lo, 0x4096);
	ck_assert_uint_eq(r.hi, 0x4096 + 4096);
	ck_assert_int_eq(range__parse(&r, "010-020", &err), 0);
	ck_assert_uint_eq(r.lo, 0x10);
	ck_assert_uint_eq(r.hi, 0x20);
	ck_assert_int_eq(range__parse(&r, "00400000-00452000", &err), 0);
	ck_assert_uint_eq(r.lo, 0x400000);
	ck_assert_uint_eq(r.hi, 0x452000);
	ck_assert_int_eq(range__parse(&r, "ffffffff81000000-ffffffff82000000", &err), 0);
	ck_assert(!r.mapping);
	ck_assert_uint_eq(r.lo, 0xffffffff81000000ull);
	ck_assert_int_eq(range__parse(&r, "7f00+0x10", &err), 0);
	ck_assert_uint_eq(r.lo, 0x7f00);
	ck_assert_uint_eq(r.hi, 0x7f10);
	/* a size is decimal unless it says 0x: 010 is ten bytes */
	ck_assert_int_eq(range__parse(&r, "0x1000+010", &err), 0);
	ck_assert_uint_eq(r.hi, 0x1000 + 10);
	ck_assert_int_eq(range__parse(&r, "0x1000+0x10", &err), 0);
	ck_assert_uint_eq(r.hi, 0x1010);
	/* a name that is not a range is a mapping, even one made of hex letters */
	ck_assert_int_eq(range__parse(&r, "cafe", &err), 0);
	ck_assert(r.mapping);
	ck_assert_int_eq(range__parse(&r, "0x1000+2MiB", &err), 0);
	ck_assert_uint_eq(r.hi, 0x1000 + (2u << 20));
	ck_assert_int_eq(range__parse(&r, "[heap]", &err), 0);
	ck_assert(r.mapping);
	ck_assert_int_eq(range__parse(&r, "/usr/lib/libc.so.6", &err), 0);
	ck_assert(r.mapping);
}
END_TEST

static const char *const bad_ranges[][2] = {
	{ "", "empty address range" },
	{ "0x2000-0x1000", "is empty" },
	{ "0x1000-0x1000", "is empty" },
	{ "0x1000+0", "is empty" },
	{ "0x1000", "cannot parse" },
	{ "0x1000-", "cannot parse" },
	{ "0x1000-0xzz", "cannot parse" },
	{ "0x1000+4Q", "cannot parse" },
	{ "0x1000+-4", "cannot parse" },
	{ "1-2-3", "cannot parse" },
	{ "0xffffffffffffff00+1K", "wraps" },
	{ "0x10+99999999999999999999", "cannot parse" },
	{ "0x1000+0x10K", "cannot parse" },
	{ "0x1000+0x", "cannot parse" },
	{ "0xg000-0x1000", "cannot parse" },
	{ "1000-2000x", "cannot parse" },
	{ "10000000000000000-10000000000000001", "cannot parse" },
};

START_TEST(test_range_parse_errors)
{
	struct range_spec r;
	struct err err = {};

	ck_assert_int_eq(range__parse(&r, bad_ranges[_i][0], &err), -EINVAL);
	ck_assert_msg(strstr(err.msg, bad_ranges[_i][1]), "'%s': got '%s'", bad_ranges[_i][0],
		      err.msg);
	if (bad_ranges[_i][0][0])
		ck_assert_ptr_nonnull(strstr(err.msg, bad_ranges[_i][0]));
}
END_TEST

START_TEST(test_range_limits_and_overlap)
{
	struct range_set set = {};
	struct err err = {};
	char spec[64];
	int i;

	for (i = 0; i < LDLAT_MAX_RANGES; i++) {
		snprintf(spec, sizeof(spec), "0x%x+4K", 0x10000 * (i + 1));
		ck_assert_int_eq(range_set__add(&set, spec, &err), 0);
	}
	ck_assert_int_eq(range_set__add(&set, "0x1+1", &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "too many address ranges"));
	ck_assert_int_eq(range_set__resolve(&set, 0, &err), 0);
	ck_assert_int_eq(set.nspans, LDLAT_MAX_RANGES);

	memset(&set, 0, sizeof(set));
	range_set__add(&set, "0x3000-0x5000", &err);
	range_set__add(&set, "0x1000-0x3001", &err);
	ck_assert_int_eq(range_set__resolve(&set, 0, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "'0x1000-0x3001' and '0x3000-0x5000' overlap"));

	/* touching is not overlapping; spans come out sorted */
	memset(&set, 0, sizeof(set));
	range_set__add(&set, "0x3000-0x5000", &err);
	range_set__add(&set, "0x1000-0x3000", &err);
	ck_assert_int_eq(range_set__resolve(&set, 0, &err), 0);
	ck_assert_uint_eq(set.span[0].lo, 0x1000);
	ck_assert_uint_eq(set.span[0].range, 1);
	/* two ranges that touch, in address order: two spans, each its own range's */
	memset(&set, 0, sizeof(set));
	range_set__add(&set, "0x1000-0x3000", &err);
	range_set__add(&set, "0x3000-0x5000", &err);
	ck_assert_int_eq(range_set__resolve(&set, 0, &err), 0);
	ck_assert_int_eq(set.nspans, 2);
	ck_assert_uint_eq(set.span[0].hi, 0x3000);
	ck_assert_uint_eq(set.span[0].range, 0);
	ck_assert_uint_eq(set.span[1].lo, 0x3000);
	ck_assert_uint_eq(set.span[1].hi, 0x5000);
	ck_assert_uint_eq(set.span[1].range, 1);

	/* a mapping name needs a process */
	memset(&set, 0, sizeof(set));
	range_set__add(&set, "[heap]", &err);
	ck_assert_int_eq(range_set__resolve(&set, 0, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "needs a process"));
}
END_TEST

static const char *fixture(const char *rel)
{
	static char buf[4096];
	const char *dir = getenv("LDLAT_FIXTURES");

	snprintf(buf, sizeof(buf), "%s/%s", dir ? dir : "tests/fixtures", rel);
	return buf;
}

START_TEST(test_range_mappings)
{
	struct vm_bounds b = { .start_brk = 0x55555555a000,
			       .heap_room = 1ull << 30,
			       .stack_limit = 8 << 20 };
	struct range_set set = {};
	struct err err = {};
	char desc[512], c;
	unsigned long long lo, hi;

	range_set__add(&set, "[heap]", &err);
	range_set__add(&set, "[stack]", &err);
	range_set__add(&set, "ldlat-workload", &err);
	range_set__add(&set, "/usr/lib/x86_64-linux-gnu/libc.so.6", &err);
	range_set__add(&set, "ld-linux-x86-64.so.2", &err);
	ck_assert_int_eq(range_set__resolve_maps(&set, fixture("maps/workload.maps"), &b, &err), 0);
	range_set__describe(&set, 0, desc, sizeof(desc));
	/* heap: its end (0x55555557b000) plus the room, 1 GiB */
	ck_assert_str_eq(desc, "0x55555555a000-0x55559557b000");
	range_set__describe(&set, 1, desc, sizeof(desc));
	ck_assert_str_eq(desc, "0x7fffff7ff000-0x7ffffffff000"); /* stack: room for 8 MiB */
	range_set__describe(&set, 2, desc, sizeof(desc));
	/* by base name; no .bss: the file is not here to say where its segments end */
	ck_assert_str_eq(desc, "0x555555554000-0x555555558000");
	range_set__describe(&set, 3, desc, sizeof(desc));
	/* this machine's libc.so.6 says how much of the anonymous mapping is its .bss */
	ck_assert_int_eq(sscanf(desc, "0x%llx-0x%llx%c", &lo, &hi, &c), 2);
	ck_assert_uint_eq(lo, 0x7ffff7d80000);
	ck_assert_msg(hi >= 0x7ffff7f9b000 && hi <= 0x7ffff7fa8000, "%s", desc);
	range_set__describe(&set, 4, desc, sizeof(desc)); /* a hole: two spans */
	ck_assert_str_eq(desc, "0x7ffff7fc9000-0x7ffff7ffa000,0x7ffff7ffb000-0x7ffff7fff000");

	/* more room than the gap above the heap: it stops at the next mapping */
	memset(&set, 0, sizeof(set));
	range_set__add(&set, "[heap]", &err);
	b.heap_room = 1ull << 46;
	ck_assert_int_eq(range_set__resolve_maps(&set, fixture("maps/workload.maps"), &b, &err), 0);
	range_set__describe(&set, 0, desc, sizeof(desc));
	ck_assert_str_eq(desc, "0x55555555a000-0x7ffff7d80000");
	/* before the heap exists (a command stopped at exec): from start_brk, plus the room */
	memset(&set, 0, sizeof(set));
	range_set__add(&set, "[heap]", &err);
	b.start_brk = 0x55555555a000;
	b.heap_room = 64 << 20;
	ck_assert_int_eq(range_set__resolve_maps(&set, fixture("maps/nolibs.maps"), &b, &err), 0);
	range_set__describe(&set, 0, desc, sizeof(desc));
	ck_assert_str_eq(desc, "0x55555555a000-0x55555955a000");
	/* a stack limit larger than the gap below the stack stops at the mapping below */
	memset(&set, 0, sizeof(set));
	range_set__add(&set, "[stack]", &err);
	b = (struct vm_bounds){ .stack_limit = 1ull << 40 };
	ck_assert_int_eq(range_set__resolve_maps(&set, fixture("maps/workload.maps"), &b, &err), 0);
	range_set__describe(&set, 0, desc, sizeof(desc));
	ck_assert_str_eq(desc, "0x7ffff7fff000-0x7ffffffff000");

	b = (struct vm_bounds){};
	memset(&set, 0, sizeof(set));
	range_set__add(&set, "libnosuch.so", &err);
	ck_assert_int_eq(range_set__resolve_maps(&set, fixture("maps/workload.maps"), &b, &err),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "no mapping 'libnosuch.so'"));

	memset(&set, 0, sizeof(set));
	range_set__add(&set, "[heap]", &err);
	range_set__add(&set, "0x555555560000+4K", &err);
	ck_assert_int_eq(range_set__resolve_maps(&set, fixture("maps/workload.maps"), &b, &err),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "overlap"));
}
END_TEST

/* ---- CPU lists, PMUs, sources -------------------------------------------- */

START_TEST(test_cpumap)
{
	struct cpumap m;
	struct err err = {};
	char buf[256];

	ck_assert_int_eq(cpumap__parse(&m, "0-3,8,10-11,2", &err), 0);
	ck_assert_int_eq(m.nr, 7);
	ck_assert(cpumap__has(&m, 8) && !cpumap__has(&m, 9) && cpumap__has(&m, 11));
	cpumap__snprint(&m, buf, sizeof(buf));
	ck_assert_str_eq(buf, "0-3,8,10-11");
	cpumap__free(&m);
	ck_assert_int_eq(cpumap__parse(&m, "3-1", &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "'3-1'"));
	ck_assert_int_eq(cpumap__parse(&m, "0,,1", &err), -EINVAL);
	ck_assert_int_eq(cpumap__parse(&m, "a", &err), -EINVAL);
	ck_assert_int_eq(cpumap__parse(&m, "1,", &err), -EINVAL);
	ck_assert_int_eq(cpumap__parse(&m, "", &err), -EINVAL);
	ck_assert_int_eq(cpumap__parse(&m, "99999", &err), -EINVAL);
}
END_TEST

START_TEST(test_pmu_format)
{
	struct pmu_format f;
	struct perf_event_attr a = {};

	ck_assert_int_eq(pmu_format__parse(&f, "config:0-7,32-35"), 0);
	ck_assert_int_eq(f.word, 0);
	ck_assert_uint_eq(f.mask, 0xf000000ffull);
	ck_assert_int_eq(pmu_format__encode(&f, 0xabc, &a), 0);
	ck_assert_uint_eq(a.config, 0xa000000bcull);
	ck_assert_uint_eq(pmu_format__decode(&f, &a), 0xabc);
	ck_assert_int_eq(pmu_format__encode(&f, 0x1000, &a), -ERANGE);
	ck_assert_int_eq(pmu_format__parse(&f, "config1:0-15"), 0);
	ck_assert_int_eq(f.word, 1);
	ck_assert_int_eq(pmu_format__parse(&f, "config:21"), 0);
	ck_assert_uint_eq(f.mask, 1ull << 21);
	ck_assert_int_eq(pmu_format__parse(&f, "config2:0-63"), 0);
	ck_assert_uint_eq(f.mask, ~0ull);
	ck_assert_int_eq(pmu_format__parse(&f, "config4:0"), -EINVAL);
	ck_assert_int_eq(pmu_format__parse(&f, "config:7-3"), -EINVAL);
	ck_assert_int_eq(pmu_format__parse(&f, "config:0-64"), -EINVAL);
	ck_assert_int_eq(pmu_format__parse(&f, "config:"), -EINVAL);
	ck_assert_int_eq(pmu_format__parse(&f, "config:1,"), -EINVAL);
}
END_TEST

/* ---- option errors (no privilege needed: argp checks them first) ---------- */

static const char *const usage_errors[][3] = {
	{ "-a", "0x2000-0x1000", "is empty" },
	{ "-a", "0x1000-0xzz", "cannot parse address range '0x1000-0xzz'" },
	{ "--min-lat", "x", "--min-lat 'x' is not a number" },
	{ "-s", "l3,bogus", "unknown class 'bogus'" },
	{ "--op", "jump", "unknown memory op 'jump'" },
	{ "--source", "magic", "expected ldlat, page-faults or auto" },
	{ "-C", "3-1", "'3-1' in CPU list" },
	{ "-p", "12x", "is not a process ID" },
	{ "-i", "0", "--interval '0'" },
	{ "-d", "-1", "--duration '-1'" },
	{ "--by", "color", "--by 'color'" },
	{ "--linear", "0", "--linear '0'" },
	{ "-L", "0", "--ldlat '0'" },
};

START_TEST(test_usage_errors)
{
	char *argv[] = { (char *)build_path("ldlat-hist"), (char *)usage_errors[_i][0],
			 (char *)usage_errors[_i][1], NULL };
	char *out, *err;
	int rc = run(argv, 10, &out, &err);

	ck_assert_msg(rc == 2, "%s %s: exit %d, stderr: %s", argv[1], argv[2], rc, err);
	ck_assert_msg(strstr(err, usage_errors[_i][2]), "%s %s: stderr: %s", argv[1], argv[2], err);
	ck_assert_msg(strlen(usage_errors[_i][1]) < 3 || strstr(err, usage_errors[_i][1]),
		      "the message names the input: %s", err);
	free(out);
	free(err);
}
END_TEST

START_TEST(test_usage_conflicts)
{
	static const char *const cases[][6] = {
		{ "-p", "1", "-G", "/sys/fs/cgroup",
		  "-p and -G name different things to watch; give one of them" },
		{ "-C", "0", "-p", "1", "-C cannot be combined with -p" },
		{ "--min-lat", "20", "--max-lat", "10", "--min-lat 20 is above --max-lat 10" },
		{ "-c", "10", "-F", "10", "--period and --freq" },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		char *argv[] = { (char *)build_path("ldlat-hist"),
				 (char *)cases[i][0],
				 (char *)cases[i][1],
				 (char *)cases[i][2],
				 (char *)cases[i][3],
				 NULL };
		char *out, *err;

		ck_assert_int_eq(run(argv, 10, &out, &err), 2);
		ck_assert_msg(strstr(err, cases[i][4]), "stderr: %s", err);
		free(out);
		free(err);
	}
	{
		char *argv[] = { (char *)build_path("ldlat-hist"),
				 "-a",
				 "0x1",
				 "-a",
				 "0x2",
				 "-a",
				 "0x3",
				 NULL };
		char *spec[20], *out, *err, *av[40];
		int i2, n = 0;

		av[n++] = (char *)build_path("ldlat-hist");
		for (i2 = 0; i2 < 17; i2++) {
			spec[i2] = malloc(32);
			snprintf(spec[i2], 32, "0x%x+4K", (i2 + 1) << 16);
			av[n++] = "-a";
			av[n++] = spec[i2];
		}
		av[n] = NULL;
		ck_assert_int_eq(run(av, 10, &out, &err), 2);
		ck_assert_ptr_nonnull(strstr(err, "too many address ranges: at most 16"));
		free(out);
		free(err);
		for (i2 = 0; i2 < 17; i2++)
			free(spec[i2]);
		(void)argv;
	}
}
END_TEST

START_TEST(test_help)
{
	char *argv[] = { (char *)build_path("ldlat-hist"), "--help", NULL };
	char *out, *err;

	ck_assert_int_eq(run(argv, 10, &out, &err), 0);
	ck_assert_ptr_nonnull(strstr(out, "Examples:"));
	ck_assert_ptr_nonnull(strstr(out, "remote-hitm")); /* classes listed from their table */
	ck_assert_ptr_nonnull(strstr(out, "--source"));
	free(out);
	free(err);
}
END_TEST

/*
 * The top-level --help lists the modes; a mode's --help lists its options
 * only (show: --delta and -i, no --pin, no filter).
 */
START_TEST(test_help_modes)
{
	char *top[] = { (char *)build_path("ldlat-hist"), "--help", NULL };
	char *show[] = { (char *)build_path("ldlat-hist"), "show", "--help", NULL };
	char *report[] = { (char *)build_path("ldlat-hist"), "--input", "x.data", "--help", NULL };
	char *out, *err;

	ck_assert_int_eq(run(top, 10, &out, &err), 0);
	ck_assert_msg(strstr(out, "Commands ('ldlat-hist COMMAND --help'"), "%.3000s", out);
	ck_assert_msg(strstr(out, "  show DIR ") && strstr(out, "(or --show DIR)"), "%.3000s", out);
	ck_assert_msg(strstr(out, "  report FILE ") && strstr(out, "(or --input FILE)"), "%.3000s",
		      out);
	ck_assert_msg(strstr(out, "\n      --pin=DIR") && !strstr(out, "\n      --delta "),
		      "%.3000s", out);
	free(out);
	free(err);
	ck_assert_int_eq(run(show, 10, &out, &err), 0);
	ck_assert_msg(strstr(out, "Usage: ldlat-hist show [OPTION...] DIR"), "%.3000s", out);
	ck_assert_msg(strstr(out, "--delta") && strstr(out, "--interval"), "%.3000s", out);
	ck_assert_msg(!strstr(out, "--pin=") && !strstr(out, "--class") &&
			      !strstr(out, "Commands ("),
		      "%.3000s", out);
	free(out);
	free(err);
	ck_assert_int_eq(run(report, 10, &out, &err), 0);
	ck_assert_msg(strstr(out, "--class") && strstr(out, "--input=FILE"), "%.3000s", out);
	ck_assert_msg(!strstr(out, "--interval") && !strstr(out, "--cgroup"), "%.3000s", out);
	free(out);
	free(err);
}
END_TEST

/* ldlat-top's entry update and data block, shared by the BPF program and the native tables. */
START_TEST(test_top_account)
{
	struct ldlat_top_val v = {};

	ldlat_top_account(&v, 400, LDLAT_CLASS_L3);
	ldlat_top_account(&v, 500, LDLAT_CLASS_LOCAL_RAM);
	ldlat_top_account(&v, 100, LDLAT_CLASS_L3);
	ck_assert_uint_eq(v.count, 3);
	ck_assert_uint_eq(v.lat_sum, 1000);
	ck_assert_uint_eq(v.lat_max, 500);
	ck_assert_uint_eq(v.cls[LDLAT_CLASS_L3], 2);
	ck_assert_uint_eq(v.cls[LDLAT_CLASS_LOCAL_RAM], 1);
	ck_assert_uint_eq(ldlat_top_block(0x7f00000012ffull, 6), 0x7f00000012c0ull);
	ck_assert_uint_eq(ldlat_top_block(0x7f00000012ffull, 12), 0x7f0000001000ull);
	ck_assert_uint_eq(ldlat_top_block(0x7f00000012ffull, 0), 0x7f00000012ffull);
	ck_assert_uint_eq(ldlat_top_block(0x7f00000012ffull, 64), 0);
}
END_TEST

static Suite *unit_suite(void)
{
	Suite *s = suite_create("unit");
	TCase *tc;

	tc = tcase_create("classes");
	tcase_add_loop_test(tc, test_classify_kernel_tables, 0, NDS_PLATFORMS);
	tcase_add_loop_test(tc, test_perf_names_kernel_tables, 0, NDS_PLATFORMS);
	tcase_add_test(tc, test_classify_regions);
	tcase_add_loop_test(tc, test_classify_every_lvlnum, 0, 16);
	tcase_add_test(tc, test_classify_hops);
	tcase_add_test(tc, test_classify_legacy);
	tcase_add_test(tc, test_class_names);
	tcase_add_test(tc, test_class_groups);
	suite_add_tcase(s, tc);

	tc = tcase_create("buckets");
	tcase_add_test(tc, test_log2_bucket_edges);
	tcase_add_test(tc, test_linear_bucket_edges);
	tcase_add_test(tc, test_window_counts);
	tcase_add_test(tc, test_percentiles);
	tcase_add_test(tc, test_percentile_error_bound);
	tcase_add_test(tc, test_percentiles_random);
	tcase_add_test(tc, test_unseen_arithmetic);
	tcase_add_test(tc, test_unseen_interval);
	tcase_add_test(tc, test_delta_bounds);
	suite_add_tcase(s, tc);

	tc = tcase_create("filter");
	tcase_add_test(tc, test_judge_order);
	tcase_add_test(tc, test_range_search);
	tcase_add_test(tc, test_top_account);
	suite_add_tcase(s, tc);

	tc = tcase_create("ranges");
	tcase_add_test(tc, test_range_parse);
	tcase_add_loop_test(tc, test_range_parse_errors, 0, ARRAY_SIZE(bad_ranges));
	tcase_add_test(tc, test_range_limits_and_overlap);
	tcase_add_test(tc, test_range_mappings);
	suite_add_tcase(s, tc);

	tc = tcase_create("kernel");
	tcase_add_test(tc, test_cpumap);
	tcase_add_test(tc, test_pmu_format);
	tcase_add_test(tc, test_kbtf_walk);
	tcase_add_test(tc, test_bigmem_advise);
	suite_add_tcase(s, tc);

	tc = tcase_create("options");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_usage_errors, 0, ARRAY_SIZE(usage_errors));
	tcase_add_test(tc, test_usage_conflicts);
	tcase_add_test(tc, test_help);
	tcase_add_test(tc, test_help_modes);
	tcase_add_test(tc, test_read_path_by_facts);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(unit_suite());
}
