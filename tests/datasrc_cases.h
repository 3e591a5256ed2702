/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * datasrc_cases.h - the load data_src values Linux emits, per platform table
 * (arch/x86/events/intel/ds.c, arch/x86/events/amd/ibs.c), written with the
 * kernel's own shorthands, and the class each must land in.  Shared by the
 * native tests and the BPF test_run tests.
 */
#ifndef LDLAT_DATASRC_CASES_H
#define LDLAT_DATASRC_CASES_H

#include "ldlat.h"

/* The kernel's own shorthands (arch/x86/events/intel/ds.c, amd/ibs.c). */
#define P(a, b)		PERF_MEM_S(a, b)
#define OP_LH		(P(OP, LOAD) | P(LVL, HIT))
#define LEVEL(x)	P(LVLNUM, x)
#define REM		P(REMOTE, REMOTE)
#define HOPS(x)		P(HOPS, x)
#define SNOOP_NONE_MISS (P(SNOOP, NONE) | P(SNOOP, MISS))
#define L(x)		(P(LVL, x) | P(LVL, HIT))
#define LN(x)		P(LVLNUM, x)
/* bits every Intel sample also carries: STLB hit, not locked, blocked N/A */
#define TLB_HIT		(P(TLB, HIT) | P(TLB, L1) | P(TLB, L2) | P(BLK, NA))
/* include/linux/perf_event.h */
#define MEM_NA                                                                                     \
	(P(OP, NA) | P(LVL, NA) | P(SNOOP, NA) | P(LOCK, NA) | P(TLB, NA) | P(LVLNUM, NA))

struct ds_case {
	const char *what;
	__u64 ds;
	enum ldlat_class cls;
};

/* Every load data_src value the kernel emits, per platform table, and its class. */
static const struct ds_case kernel_cases[] __attribute__((unused)) = {
	/* pebs_data_source[], Sandy Bridge to Broadwell (and the base of all others) */
	{ "generic 0x00 unknown L3 miss", P(OP, LOAD) | P(LVL, MISS) | LEVEL(L3) | P(SNOOP, NA),
	  LDLAT_CLASS_MISS },
	{ "generic 0x01 L1", OP_LH | P(LVL, L1) | LEVEL(L1) | P(SNOOP, NONE), LDLAT_CLASS_L1 },
	{ "generic 0x02 LFB", OP_LH | P(LVL, LFB) | LEVEL(LFB) | P(SNOOP, NONE), LDLAT_CLASS_LFB },
	{ "generic 0x03 L2", OP_LH | P(LVL, L2) | LEVEL(L2) | P(SNOOP, NONE), LDLAT_CLASS_L2 },
	{ "generic 0x04 L3", OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, NONE), LDLAT_CLASS_L3 },
	{ "generic 0x05 L3 snoop miss", OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, MISS),
	  LDLAT_CLASS_L3 },
	{ "generic 0x06 L3 snoop hit", OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, HIT),
	  LDLAT_CLASS_L3 },
	{ "generic 0x07 L3 HITM", OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, HITM),
	  LDLAT_CLASS_LOCAL_HITM },
	{ "generic 0x08 remote cache", OP_LH | P(LVL, REM_CCE1) | REM | LEVEL(L3) | P(SNOOP, HIT),
	  LDLAT_CLASS_REMOTE_CACHE_1HOP },
	{ "generic 0x09 remote HITM", OP_LH | P(LVL, REM_CCE1) | REM | LEVEL(L3) | P(SNOOP, HITM),
	  LDLAT_CLASS_REMOTE_HITM },
	{ "generic 0x0a local DRAM shared", OP_LH | P(LVL, LOC_RAM) | LEVEL(RAM) | P(SNOOP, HIT),
	  LDLAT_CLASS_LOCAL_RAM },
	{ "generic 0x0b remote DRAM shared (lvl_num L3)",
	  OP_LH | P(LVL, REM_RAM1) | REM | LEVEL(L3) | P(SNOOP, HIT), LDLAT_CLASS_REMOTE_RAM_1HOP },
	{ "generic 0x0c local DRAM exclusive", OP_LH | P(LVL, LOC_RAM) | LEVEL(RAM) | SNOOP_NONE_MISS,
	  LDLAT_CLASS_LOCAL_RAM },
	{ "generic 0x0d remote DRAM exclusive",
	  OP_LH | P(LVL, REM_RAM1) | LEVEL(RAM) | REM | SNOOP_NONE_MISS,
	  LDLAT_CLASS_REMOTE_RAM_1HOP },
	{ "generic 0x0e I/O", OP_LH | P(LVL, IO) | LEVEL(NA) | P(SNOOP, NONE), LDLAT_CLASS_IO },
	{ "generic 0x0f uncached", OP_LH | P(LVL, UNC) | LEVEL(NA) | P(SNOOP, NONE),
	  LDLAT_CLASS_UNCACHED },
	/* intel_pmu_pebs_data_source_nhm(): Nehalem, Westmere */
	{ "nhm 0x05 L3 snoop hit", OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, HIT) | P(TLB, NA) |
					   P(LOCK, NA),
	  LDLAT_CLASS_L3 },
	{ "nhm 0x06 L3 HITM", OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, HITM) | P(TLB, NA) |
				      P(LOCK, NA),
	  LDLAT_CLASS_LOCAL_HITM },
	/* __intel_pmu_pebs_data_source_skl(): Skylake and later big cores */
	{ "skl client 0x08 L4", OP_LH | LEVEL(L4) | P(SNOOP, HIT), LDLAT_CLASS_L4 },
	{ "skl server 0x08 PMEM", OP_LH | LEVEL(PMEM) | P(SNOOP, HIT), LDLAT_CLASS_PMEM },
	{ "skl client 0x09 remote L4", OP_LH | LEVEL(L4) | REM | P(SNOOP, HIT),
	  LDLAT_CLASS_REMOTE_CACHE },
	{ "skl server 0x09 remote PMEM", OP_LH | LEVEL(PMEM) | REM | P(SNOOP, HIT),
	  LDLAT_CLASS_PMEM },
	{ "skl 0x0b remote DRAM", OP_LH | LEVEL(RAM) | REM | P(SNOOP, NONE), LDLAT_CLASS_REMOTE_RAM },
	{ "skl 0x0c remote cache forward", OP_LH | LEVEL(ANY_CACHE) | REM | P(SNOOPX, FWD),
	  LDLAT_CLASS_REMOTE_CACHE },
	{ "skl 0x0d remote HITM", OP_LH | LEVEL(ANY_CACHE) | REM | P(SNOOP, HITM) | TLB_HIT,
	  LDLAT_CLASS_REMOTE_HITM },
	/* Gracemont (Alder Lake E-cores) */
	{ "grt 0x06 L3 HITM", OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, HITM),
	  LDLAT_CLASS_LOCAL_HITM },
	{ "grt 0x08 L3 forward", OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOPX, FWD), LDLAT_CLASS_L3 },
	/* Crestmont (Meteor Lake E-cores, Sierra Forest) */
	{ "cmt 0x07 L3 forward", OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOPX, FWD), LDLAT_CLASS_L3 },
	{ "cmt 0x08 L3 HITM", OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, HITM),
	  LDLAT_CLASS_LOCAL_HITM },
	{ "cmt 0x0a local DRAM", OP_LH | P(LVL, LOC_RAM) | LEVEL(RAM) | P(SNOOP, NONE),
	  LDLAT_CLASS_LOCAL_RAM },
	{ "cmt 0x0b remote DRAM", OP_LH | LEVEL(RAM) | REM | P(SNOOP, NONE), LDLAT_CLASS_REMOTE_RAM },
	{ "cmt 0x0c remote forward", OP_LH | LEVEL(RAM) | REM | P(SNOOPX, FWD),
	  LDLAT_CLASS_REMOTE_CACHE },
	{ "cmt 0x0d remote HITM", OP_LH | LEVEL(RAM) | REM | P(SNOOP, HITM), LDLAT_CLASS_REMOTE_HITM },
	/* lnc_pebs_data_source[]: Lion Cove (Lunar Lake, Arrow Lake P-cores) */
	{ "lnc 0x06 L2 MHB", OP_LH | LEVEL(L2_MHB) | P(SNOOP, NONE), LDLAT_CLASS_LFB },
	{ "lnc 0x0f L3 miss HITM", P(OP, LOAD) | P(LVL, MISS) | P(LVL, L3) | LEVEL(L3) | P(SNOOP, HITM),
	  LDLAT_CLASS_LOCAL_HITM },
	{ "lnc 0x10 memory-side cache", OP_LH | LEVEL(MSC) | P(SNOOP, NONE), LDLAT_CLASS_MSC },
	{ "lnc 0x11 local memory", OP_LH | P(LVL, LOC_RAM) | LEVEL(RAM) | P(SNOOP, NONE),
	  LDLAT_CLASS_LOCAL_RAM },
	{ "lnc fallback", P(OP, LOAD) | LEVEL(NA) | P(SNOOP, NA), LDLAT_CLASS_UNKNOWN },
	/* events without a load-latency source */
	{ "precise_datala_hsw", (MEM_NA & ~P(OP, NA)) | P(OP, LOAD), LDLAT_CLASS_UNKNOWN },
	{ "PERF_MEM_NA", MEM_NA, LDLAT_CLASS_UNKNOWN },
	{ "zero", 0, LDLAT_CLASS_UNKNOWN },
	/* AMD IBS (perf_ibs_get_mem_lvl) */
	{ "ibs uncached", P(OP, LOAD) | L(UNC) | LN(UNC), LDLAT_CLASS_UNCACHED },
	{ "ibs L1", P(OP, LOAD) | L(L1) | LN(L1), LDLAT_CLASS_L1 },
	{ "ibs L2", P(OP, LOAD) | L(L2) | LN(L2), LDLAT_CLASS_L2 },
	{ "ibs MAB", P(OP, LOAD) | L(LFB) | LN(LFB), LDLAT_CLASS_LFB },
	{ "ibs N/A", P(OP, LOAD) | P(LVL, NA) | LN(NA) | P(SNOOP, NA), LDLAT_CLASS_UNKNOWN },
	{ "zen4 local cache", P(OP, LOAD) | L(L3) | LN(L3) | P(SNOOP, NA), LDLAT_CLASS_L3 },
	{ "zen4 local cache HITM", P(OP, LOAD) | L(L3) | LN(L3) | P(SNOOP, HITM),
	  LDLAT_CLASS_LOCAL_HITM },
	{ "zen4 near CCX", P(OP, LOAD) | L(REM_CCE1) | LN(ANY_CACHE) | REM | HOPS(0),
	  LDLAT_CLASS_PEER_CACHE },
	{ "zen4 near CCX HITM", P(OP, LOAD) | L(REM_CCE1) | LN(ANY_CACHE) | REM | HOPS(0) |
					P(SNOOP, HITM),
	  LDLAT_CLASS_REMOTE_HITM },
	{ "zen4 DRAM", P(OP, LOAD) | L(LOC_RAM) | LN(RAM), LDLAT_CLASS_LOCAL_RAM },
	{ "zen4 remote DRAM", P(OP, LOAD) | L(REM_RAM1) | LN(RAM) | REM | HOPS(1),
	  LDLAT_CLASS_REMOTE_RAM_1HOP },
	{ "zen4 far CCX", P(OP, LOAD) | L(REM_CCE2) | LN(ANY_CACHE) | REM | HOPS(1),
	  LDLAT_CLASS_REMOTE_CACHE_1HOP },
	{ "zen4 far CCX HITM", P(OP, LOAD) | L(REM_CCE2) | LN(ANY_CACHE) | REM | HOPS(1) |
				       P(SNOOP, HITM),
	  LDLAT_CLASS_REMOTE_HITM },
	{ "zen4 PMEM", P(OP, LOAD) | LN(PMEM), LDLAT_CLASS_PMEM },
	{ "zen4 remote PMEM", P(OP, LOAD) | LN(PMEM) | REM | HOPS(1), LDLAT_CLASS_PMEM },
	{ "zen4 I/O", P(OP, LOAD) | L(IO) | LN(IO), LDLAT_CLASS_IO },
	{ "zen4 extension memory", P(OP, LOAD) | LN(CXL), LDLAT_CLASS_CXL },
	{ "zen4 remote extension memory", P(OP, LOAD) | LN(CXL) | REM | HOPS(1), LDLAT_CLASS_CXL },
	{ "zen3 local cache", P(OP, LOAD) | L(L3) | L(REM_CCE1) | LN(ANY_CACHE) | HOPS(0),
	  LDLAT_CLASS_L3 },
	{ "zen3 local cache HITM", P(OP, LOAD) | L(L3) | L(REM_CCE1) | LN(ANY_CACHE) | HOPS(0) |
					   P(SNOOP, HITM),
	  LDLAT_CLASS_LOCAL_HITM },
	{ "zen3 remote cache", P(OP, LOAD) | L(REM_CCE2) | LN(ANY_CACHE) | REM | HOPS(1),
	  LDLAT_CLASS_REMOTE_CACHE_1HOP },
};

#define NKERNEL_CASES (sizeof(kernel_cases) / sizeof(kernel_cases[0]))

#endif
