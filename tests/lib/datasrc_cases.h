/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * datasrc_cases.h - the load data_src values Linux emits, per platform, and
 * the class each must land in.  A platform is the table its kernel uses
 * (arch/x86/events/intel/ds.c: the generic table and the _nhm, _skl, _grt,
 * _cmt patches, lnc_pebs_data_source[]; arch/x86/events/amd/ibs.c:
 * g_data_src[], g_zen4_data_src[] and the fixed outcomes), written with the
 * kernel's own shorthands, times every combination of the per-sample bits
 * the kernel ORs onto each entry on that platform (TLB, lock, blocked).
 * Shared by the native tests and the BPF test_run tests.
 */
#ifndef LDLAT_DATASRC_CASES_H
#define LDLAT_DATASRC_CASES_H

#include "bpf/ldlat.h"
#include "kernel/lib/util.h"

/* The kernel's own shorthands (arch/x86/events/intel/ds.c, amd/ibs.c). */
#define P(a, b)		PERF_MEM_S(a, b)
#define OP_LH		(P(OP, LOAD) | P(LVL, HIT))
#define LEVEL(x)	P(LVLNUM, x)
#define REM		P(REMOTE, REMOTE)
#define HOPS(x)		P(HOPS, x)
#define SNOOP_NONE_MISS (P(SNOOP, NONE) | P(SNOOP, MISS))
#define L(x)		(P(LVL, x) | P(LVL, HIT))
#define LN(x)		P(LVLNUM, x)
/* include/linux/perf_event.h */
#define MEM_NA (P(OP, NA) | P(LVL, NA) | P(SNOOP, NA) | P(LOCK, NA) | P(TLB, NA) | P(LVLNUM, NA))

struct ds_case {
	const char *what;
	__u64 ds;
	enum ldlat_class cls;
	/*
	 * perf's own words for it, "LEVEL / SNOOP" as perf mem report prints
	 * them (tools/perf/util/mem-events.c, perf_mem__lvl_scnprintf and
	 * perf_mem__snp_scnprintf, level-number form; datasrc__perf_lvl/_snoop)
	 */
	const char *perf;
};

/* pebs_data_source[]: "Version for Sandy Bridge and later", the base of every Intel table. */
#define GEN_00 (P(OP, LOAD) | P(LVL, MISS) | LEVEL(L3) | P(SNOOP, NA))
#define GEN_01 (OP_LH | P(LVL, L1) | LEVEL(L1) | P(SNOOP, NONE))
#define GEN_02 (OP_LH | P(LVL, LFB) | LEVEL(LFB) | P(SNOOP, NONE))
#define GEN_03 (OP_LH | P(LVL, L2) | LEVEL(L2) | P(SNOOP, NONE))
#define GEN_04 (OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, NONE))
#define GEN_05 (OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, MISS))
#define GEN_06 (OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, HIT))
#define GEN_07 (OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, HITM))
#define GEN_08 (OP_LH | P(LVL, REM_CCE1) | REM | LEVEL(L3) | P(SNOOP, HIT))
#define GEN_09 (OP_LH | P(LVL, REM_CCE1) | REM | LEVEL(L3) | P(SNOOP, HITM))
#define GEN_0A (OP_LH | P(LVL, LOC_RAM) | LEVEL(RAM) | P(SNOOP, HIT))
#define GEN_0B (OP_LH | P(LVL, REM_RAM1) | REM | LEVEL(L3) | P(SNOOP, HIT))
#define GEN_0C (OP_LH | P(LVL, LOC_RAM) | LEVEL(RAM) | SNOOP_NONE_MISS)
#define GEN_0D (OP_LH | P(LVL, REM_RAM1) | LEVEL(RAM) | REM | SNOOP_NONE_MISS)
#define GEN_0E (OP_LH | P(LVL, IO) | LEVEL(NA) | P(SNOOP, NONE))
#define GEN_0F (OP_LH | P(LVL, UNC) | LEVEL(NA) | P(SNOOP, NONE))

#define C_GEN_00                                                                                   \
	{                                                                                          \
		"0x00 unknown L3 miss", GEN_00, LDLAT_CLASS_MISS, "L3 miss / N/A"                  \
	}
#define C_GEN_01                                                                                   \
	{                                                                                          \
		"0x01 L1", GEN_01, LDLAT_CLASS_L1, "L1 hit / None"                                 \
	}
#define C_GEN_02                                                                                   \
	{                                                                                          \
		"0x02 LFB", GEN_02, LDLAT_CLASS_LFB, "LFB/MAB hit / None"                          \
	}
#define C_GEN_03                                                                                   \
	{                                                                                          \
		"0x03 L2", GEN_03, LDLAT_CLASS_L2, "L2 hit / None"                                 \
	}
#define C_GEN_04                                                                                   \
	{                                                                                          \
		"0x04 L3", GEN_04, LDLAT_CLASS_L3, "L3 hit / None"                                 \
	}
#define C_GEN_05                                                                                   \
	{                                                                                          \
		"0x05 L3 snoop miss", GEN_05, LDLAT_CLASS_L3, "L3 hit / Miss"                      \
	}
#define C_GEN_06                                                                                   \
	{                                                                                          \
		"0x06 L3 snoop hit", GEN_06, LDLAT_CLASS_L3, "L3 hit / Hit"                        \
	}
#define C_GEN_07                                                                                   \
	{                                                                                          \
		"0x07 L3 HITM", GEN_07, LDLAT_CLASS_LOCAL_HITM, "L3 hit / HitM"                    \
	}
#define C_GEN_08                                                                                   \
	{                                                                                          \
		"0x08 remote cache", GEN_08, LDLAT_CLASS_REMOTE_CACHE_1HOP, "Remote L3 hit / Hit"  \
	}
#define C_GEN_09                                                                                   \
	{                                                                                          \
		"0x09 remote HITM", GEN_09, LDLAT_CLASS_REMOTE_HITM, "Remote L3 hit / HitM"        \
	}
#define C_GEN_0A                                                                                   \
	{                                                                                          \
		"0x0a local DRAM shared", GEN_0A, LDLAT_CLASS_LOCAL_RAM, "RAM hit / Hit"           \
	}
#define C_GEN_0B                                                                                   \
	{                                                                                          \
		"0x0b remote DRAM shared (lvl_num L3)", GEN_0B, LDLAT_CLASS_REMOTE_RAM_1HOP,       \
			"Remote L3 hit / Hit"                                                      \
	}
#define C_GEN_0C                                                                                   \
	{                                                                                          \
		"0x0c local DRAM exclusive", GEN_0C, LDLAT_CLASS_LOCAL_RAM,                        \
			"RAM hit / None or Miss"                                                   \
	}
#define C_GEN_0D                                                                                   \
	{                                                                                          \
		"0x0d remote DRAM exclusive", GEN_0D, LDLAT_CLASS_REMOTE_RAM_1HOP,                 \
			"Remote RAM hit / None or Miss"                                            \
	}
#define C_GEN_0E                                                                                   \
	{                                                                                          \
		"0x0e I/O", GEN_0E, LDLAT_CLASS_IO, "I/O hit / None"                               \
	}
#define C_GEN_0F                                                                                   \
	{                                                                                          \
		"0x0f uncached", GEN_0F, LDLAT_CLASS_UNCACHED, "Uncached hit / None"               \
	}

/* __intel_pmu_pebs_data_source_skl(pmem): Skylake and later big cores */
#define C_SKL_0B                                                                                   \
	{                                                                                          \
		"0x0b remote DRAM", OP_LH | LEVEL(RAM) | REM | P(SNOOP, NONE),                     \
			LDLAT_CLASS_REMOTE_RAM, "Remote RAM hit / None"                            \
	}
#define C_SKL_0C                                                                                   \
	{                                                                                          \
		"0x0c remote cache forward", OP_LH | LEVEL(ANY_CACHE) | REM | P(SNOOPX, FWD),      \
			LDLAT_CLASS_REMOTE_CACHE, "Remote Any cache hit / Fwd"                     \
	}
#define C_SKL_0D                                                                                   \
	{                                                                                          \
		"0x0d remote HITM", OP_LH | LEVEL(ANY_CACHE) | REM | P(SNOOP, HITM),               \
			LDLAT_CLASS_REMOTE_HITM, "Remote Any cache hit / HitM"                     \
	}

/* intel_pmu_pebs_data_source_nhm(): Nehalem, Westmere */
static const struct ds_case nhm_cases[] = {
	C_GEN_00,
	C_GEN_01,
	C_GEN_02,
	C_GEN_03,
	C_GEN_04,
	{ "0x05 L3 snoop hit", OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, HIT), LDLAT_CLASS_L3,
	  "L3 hit / Hit" },
	{ "0x06 L3 HITM", OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, HITM), LDLAT_CLASS_LOCAL_HITM,
	  "L3 hit / HitM" },
	{ "0x07 L3 HITM", OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, HITM), LDLAT_CLASS_LOCAL_HITM,
	  "L3 hit / HitM" },
	C_GEN_08,
	C_GEN_09,
	C_GEN_0A,
	C_GEN_0B,
	C_GEN_0C,
	C_GEN_0D,
	C_GEN_0E,
	C_GEN_0F,
};

/* Sandy Bridge to Broadwell: the generic table as it is */
static const struct ds_case snb_cases[] = {
	C_GEN_00, C_GEN_01, C_GEN_02, C_GEN_03, C_GEN_04, C_GEN_05, C_GEN_06, C_GEN_07,
	C_GEN_08, C_GEN_09, C_GEN_0A, C_GEN_0B, C_GEN_0C, C_GEN_0D, C_GEN_0E, C_GEN_0F,
};

/* _skl(false): Skylake to Comet Lake clients, Ice/Tiger Lake, Alder/Raptor Lake P-cores */
static const struct ds_case skl_client_cases[] = {
	C_GEN_00,
	C_GEN_01,
	C_GEN_02,
	C_GEN_03,
	C_GEN_04,
	C_GEN_05,
	C_GEN_06,
	C_GEN_07,
	{ "0x08 L4", OP_LH | LEVEL(L4) | P(SNOOP, HIT), LDLAT_CLASS_L4, "L4 hit / Hit" },
	{ "0x09 remote L4", OP_LH | LEVEL(L4) | REM | P(SNOOP, HIT), LDLAT_CLASS_REMOTE_CACHE,
	  "Remote L4 hit / Hit" },
	C_GEN_0A,
	C_SKL_0B,
	C_SKL_0C,
	C_SKL_0D,
	C_GEN_0E,
	C_GEN_0F,
};

/* _skl(true): Skylake-SP/Cascade Lake, Ice Lake-SP, Sapphire/Emerald/Granite Rapids */
static const struct ds_case skl_server_cases[] = {
	C_GEN_00,
	C_GEN_01,
	C_GEN_02,
	C_GEN_03,
	C_GEN_04,
	C_GEN_05,
	C_GEN_06,
	C_GEN_07,
	{ "0x08 PMEM", OP_LH | LEVEL(PMEM) | P(SNOOP, HIT), LDLAT_CLASS_PMEM, "PMEM hit / Hit" },
	{ "0x09 remote PMEM", OP_LH | LEVEL(PMEM) | REM | P(SNOOP, HIT), LDLAT_CLASS_PMEM,
	  "Remote PMEM hit / Hit" },
	C_GEN_0A,
	C_SKL_0B,
	C_SKL_0C,
	C_SKL_0D,
	C_GEN_0E,
	C_GEN_0F,
};

/* __intel_pmu_pebs_data_source_grt(): Gracemont (Alder/Raptor Lake E-cores, Alder Lake-N) */
static const struct ds_case grt_cases[] = {
	C_GEN_00,
	C_GEN_01,
	C_GEN_02,
	C_GEN_03,
	C_GEN_04,
	{ "0x05 L3 snoop hit", OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, HIT), LDLAT_CLASS_L3,
	  "L3 hit / Hit" },
	{ "0x06 L3 HITM", OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, HITM), LDLAT_CLASS_LOCAL_HITM,
	  "L3 hit / HitM" },
	C_GEN_07,
	{ "0x08 L3 forward", OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOPX, FWD), LDLAT_CLASS_L3,
	  "L3 hit / Fwd" },
	C_GEN_09,
	C_GEN_0A,
	C_GEN_0B,
	C_GEN_0C,
	C_GEN_0D,
	C_GEN_0E,
	C_GEN_0F,
};

/* __intel_pmu_pebs_data_source_cmt(): Crestmont (Meteor Lake E-cores, Sierra Forest) */
static const struct ds_case cmt_cases[] = {
	C_GEN_00,
	C_GEN_01,
	C_GEN_02,
	C_GEN_03,
	C_GEN_04,
	C_GEN_05,
	C_GEN_06,
	{ "0x07 L3 forward", OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOPX, FWD), LDLAT_CLASS_L3,
	  "L3 hit / Fwd" },
	{ "0x08 L3 HITM", OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, HITM), LDLAT_CLASS_LOCAL_HITM,
	  "L3 hit / HitM" },
	C_GEN_09,
	{ "0x0a local DRAM", OP_LH | P(LVL, LOC_RAM) | LEVEL(RAM) | P(SNOOP, NONE),
	  LDLAT_CLASS_LOCAL_RAM, "RAM hit / None" },
	{ "0x0b remote DRAM", OP_LH | LEVEL(RAM) | REM | P(SNOOP, NONE), LDLAT_CLASS_REMOTE_RAM,
	  "Remote RAM hit / None" },
	{ "0x0c remote forward", OP_LH | LEVEL(RAM) | REM | P(SNOOPX, FWD),
	  LDLAT_CLASS_REMOTE_CACHE, "Remote RAM hit / Fwd" },
	{ "0x0d remote HITM", OP_LH | LEVEL(RAM) | REM | P(SNOOP, HITM), LDLAT_CLASS_REMOTE_HITM,
	  "Remote RAM hit / HitM" },
	C_GEN_0E,
	C_GEN_0F,
};

/* lnc_pebs_data_source[]: Lion Cove (Lunar Lake, Arrow Lake P-cores); empty entries fall back */
static const struct ds_case lnc_cases[] = {
	C_GEN_00,
	{ "0x01 L1", OP_LH | P(LVL, L1) | LEVEL(L1) | P(SNOOP, NONE), LDLAT_CLASS_L1,
	  "L1 hit / None" },
	{ "0x02 L1", OP_LH | P(LVL, L1) | LEVEL(L1) | P(SNOOP, NONE), LDLAT_CLASS_L1,
	  "L1 hit / None" },
	{ "0x03 LFB", OP_LH | P(LVL, LFB) | LEVEL(LFB) | P(SNOOP, NONE), LDLAT_CLASS_LFB,
	  "LFB/MAB hit / None" },
	{ "0x05 L2", OP_LH | P(LVL, L2) | LEVEL(L2) | P(SNOOP, NONE), LDLAT_CLASS_L2,
	  "L2 hit / None" },
	{ "0x06 L2 MHB", OP_LH | LEVEL(L2_MHB) | P(SNOOP, NONE), LDLAT_CLASS_L2_MHB,
	  "L2 MHB hit / None" },
	{ "0x08 L3", OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, NONE), LDLAT_CLASS_L3,
	  "L3 hit / None" },
	{ "0x0c L3 forward", OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOPX, FWD), LDLAT_CLASS_L3,
	  "L3 hit / Fwd" },
	{ "0x0d L3 HITM", OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, HITM), LDLAT_CLASS_LOCAL_HITM,
	  "L3 hit / HitM" },
	{ "0x0f L3 miss HITM", P(OP, LOAD) | P(LVL, MISS) | P(LVL, L3) | LEVEL(L3) | P(SNOOP, HITM),
	  LDLAT_CLASS_LOCAL_HITM, "L3 miss / HitM" },
	{ "0x10 memory-side cache", OP_LH | LEVEL(MSC) | P(SNOOP, NONE), LDLAT_CLASS_MSC,
	  "Memory-side Cache hit / None" },
	{ "0x11 local memory", OP_LH | P(LVL, LOC_RAM) | LEVEL(RAM) | P(SNOOP, NONE),
	  LDLAT_CLASS_LOCAL_RAM, "RAM hit / None" },
	{ "fallback (an empty entry)", P(OP, LOAD) | LEVEL(NA) | P(SNOOP, NA), LDLAT_CLASS_UNKNOWN,
	  "N/A / N/A" },
};

/*
 * Panther Cove (Diamond Rapids, Nova Lake P-cores) and Arctic Wolf (Nova Lake
 * E-cores): bit 8 of the PEBS memory info says whether the load missed the
 * L2.  A hit is looked up in pnc_pebs_l2_hit_data_source[] or
 * arw_pebs_l2_hit_data_source[] (reserved entries are 0 and fall back to
 * "load, level N/A"); a miss is an Off-Module Response, decoded by
 * parse_omr_data_source() into omr_data_source[source] with the memory
 * region, plus the remote, HITM and snoop bits.  The snoop state of source 2
 * (snoop and promoted bits) is each of N/A, miss, hit, none here: the kernel
 * has read those bits two ways.
 */
#define FALLBACK_NA (P(OP, LOAD) | LEVEL(NA) | P(SNOOP, NA))
#define REG(x)	    P(REGION, x)
#define MEMREG(n)   ((__u64)(PERF_MEM_REGION_MEM0 + (n)) << PERF_MEM_REGION_SHIFT)
#define SN(x)	    P(SNOOP, x)

#define C_FALLBACK(what)                                                                           \
	{                                                                                          \
		what, FALLBACK_NA, LDLAT_CLASS_UNKNOWN, "N/A / N/A"                                \
	}

/* pnc_pebs_l2_hit_data_source[] */
#define PNC_L2_HIT_CASES                                                                           \
	{ "pnc 0x00 non-cache access", P(OP, LOAD) | P(LVL, NA) | LEVEL(NA) | SN(NA),              \
	  LDLAT_CLASS_UNKNOWN, "N/A / N/A" },                                                      \
		{ "pnc 0x01 L0", OP_LH | LEVEL(L0) | SN(NONE), LDLAT_CLASS_L1, "L0 hit / None" },  \
		{ "pnc 0x02 L1", OP_LH | P(LVL, L1) | LEVEL(L1) | SN(NONE), LDLAT_CLASS_L1,        \
		  "L1 hit / None" },                                                               \
		{ "pnc 0x03 L1 miss-handling buffer", OP_LH | P(LVL, LFB) | LEVEL(LFB) | SN(NONE), \
		  LDLAT_CLASS_LFB, "LFB/MAB hit / None" },                                         \
		{ "pnc 0x04 L2 clean", OP_LH | P(LVL, L2) | LEVEL(L2) | SN(NONE), LDLAT_CLASS_L2,  \
		  "L2 hit / None" },                                                               \
		C_FALLBACK("pnc 0x05, 0x06, 0x0b-0x0e reserved"),                                  \
		{ "pnc 0x07 L2 snoop hit", OP_LH | P(LVL, L2) | LEVEL(L2) | SN(HIT),               \
		  LDLAT_CLASS_L2, "L2 hit / Hit" },                                                \
		{ "pnc 0x08 L2 snoop HITM", OP_LH | P(LVL, L2) | LEVEL(L2) | SN(HITM),             \
		  LDLAT_CLASS_LOCAL_HITM, "L2 hit / HitM" },                                       \
		{ "pnc 0x09/0x0a L2 prefetch promotion",                                           \
		  OP_LH | P(LVL, L2) | LEVEL(L2) | SN(MISS), LDLAT_CLASS_L2, "L2 hit / Miss" },    \
	{                                                                                          \
		"pnc 0x0f uncached", OP_LH | P(LVL, UNC) | LEVEL(NA) | SN(NONE),                   \
			LDLAT_CLASS_UNCACHED, "Uncached hit / None"                                \
	}

/* arw_pebs_l2_hit_data_source[] */
#define ARW_L2_HIT_CASES                                                                           \
	{ "arw 0x00 non-cache access", P(OP, LOAD) | P(LVL, NA) | LEVEL(NA) | SN(NA),              \
	  LDLAT_CLASS_UNKNOWN, "N/A / N/A" },                                                      \
		{ "arw 0x01 L1", OP_LH | P(LVL, L1) | LEVEL(L1) | SN(NONE), LDLAT_CLASS_L1,        \
		  "L1 hit / None" },                                                               \
		{ "arw 0x02 write-combining buffer", OP_LH | P(LVL, LFB) | LEVEL(LFB) | SN(NONE),  \
		  LDLAT_CLASS_LFB, "LFB/MAB hit / None" },                                         \
		{ "arw 0x03 L2 clean", OP_LH | P(LVL, L2) | LEVEL(L2) | SN(NONE), LDLAT_CLASS_L2,  \
		  "L2 hit / None" },                                                               \
		{ "arw 0x04 L2 snoop hit", OP_LH | P(LVL, L2) | LEVEL(L2) | SN(HIT),               \
		  LDLAT_CLASS_L2, "L2 hit / Hit" },                                                \
		{ "arw 0x05 L2 snoop HITM", OP_LH | P(LVL, L2) | LEVEL(L2) | SN(HITM),             \
		  LDLAT_CLASS_LOCAL_HITM, "L2 hit / HitM" },                                       \
		{ "arw 0x06 uncached", OP_LH | P(LVL, UNC) | LEVEL(NA) | SN(NONE),                 \
		  LDLAT_CLASS_UNCACHED, "Uncached hit / None" },                                   \
		C_FALLBACK("arw 0x07-0x0f reserved")

/*
 * One OMR source, local and remote, with and without HITM: the value each
 * way, its class each way, perf's level local and remote, and perf's snoop
 * with HIT and with HITM.
 */
#define OMR4(what, local, remote, c, chitm, crem, cremhitm, lvl, rlvl, sh, shm)                    \
	{ what " local", (local) | SN(HIT), c, lvl " / " sh },                                     \
		{ what " local HITM", (local) | SN(HITM), chitm, lvl " / " shm },                  \
		{ what " remote", (remote) | REM | SN(HIT), crem, rlvl " / " sh },                 \
	{                                                                                          \
		what " remote HITM", (remote) | REM | SN(HITM), cremhitm, rlvl " / " shm           \
	}

#define OMR_L3(x) (OP_LH | P(LVL, L3) | LEVEL(L3) | REG(x))
/* an L3 region: extra snoop bits x, perf's snoop words with HIT and HITM */
#define OMR_L3_CASES(what, r, x, c, sh, shm)                                                       \
	OMR4(what, OMR_L3(r) | (x), OMR_L3(r) | P(LVL, REM_CCE1) | (x), c,                         \
	     (c) == LDLAT_CLASS_IO ? LDLAT_CLASS_IO : LDLAT_CLASS_LOCAL_HITM,                      \
	     (c) == LDLAT_CLASS_IO ? LDLAT_CLASS_IO : LDLAT_CLASS_REMOTE_CACHE_1HOP,               \
	     (c) == LDLAT_CLASS_IO ? LDLAT_CLASS_IO : LDLAT_CLASS_REMOTE_HITM, "L3 hit",           \
	     "Remote L3 hit", sh, shm)
#define OMR_MEM(n)                                                                                 \
	OMR4("omr 0x" #n " + 8 memory region " #n,                                                 \
	     OP_LH | LEVEL(RAM) | MEMREG(n) | P(LVL, LOC_RAM),                                     \
	     OP_LH | LEVEL(RAM) | MEMREG(n) | P(LVL, REM_RAM1), LDLAT_CLASS_LOCAL_RAM,             \
	     LDLAT_CLASS_LOCAL_HITM, LDLAT_CLASS_REMOTE_RAM_1HOP, LDLAT_CLASS_REMOTE_HITM,         \
	     "RAM hit", "Remote RAM hit", "Hit", "HitM")

/* omr_data_source[] through parse_omr_data_source() */
#define OMR_CASES                                                                                    \
	OMR4("omr 0x0 invalid", P(OP, LOAD) | P(LVL, NA) | LEVEL(NA) | SN(NA),                       \
	     P(OP, LOAD) | P(LVL, NA) | LEVEL(NA) | SN(NA), LDLAT_CLASS_UNKNOWN,                     \
	     LDLAT_CLASS_UNKNOWN, LDLAT_CLASS_UNKNOWN, LDLAT_CLASS_UNKNOWN, "N/A", "N/A",            \
	     "N/A or Hit",                                                                           \
	     "N/A or HitM"), /* reserved: 0, then only the remote and snoop bits: no op, no level */ \
		OMR4("omr 0x1 reserved", 0, 0, LDLAT_CLASS_UNKNOWN, LDLAT_CLASS_UNKNOWN,             \
		     LDLAT_CLASS_UNKNOWN, LDLAT_CLASS_UNKNOWN, "N/A", "N/A", "Hit", "HitM"),         \
		OMR_L3_CASES("omr 0x2 local CA shared cache, snoop N/A", L_SHARE, SN(NA),            \
			     LDLAT_CLASS_L3, "N/A or Hit", "N/A or HitM"),                           \
		OMR_L3_CASES("omr 0x2 local CA shared cache, snoop miss", L_SHARE, SN(MISS),         \
			     LDLAT_CLASS_L3, "Hit or Miss", "Miss or HitM"),                         \
		OMR_L3_CASES("omr 0x2 local CA shared cache, snoop hit", L_SHARE, SN(HIT),           \
			     LDLAT_CLASS_L3, "Hit", "Hit or HitM"),                                  \
		OMR_L3_CASES("omr 0x2 local CA shared cache, snoop none", L_SHARE, SN(NONE),         \
			     LDLAT_CLASS_L3, "None or Hit", "None or HitM"),                         \
		OMR_L3_CASES("omr 0x3 local CA non-shared cache", L_NON_SHARE, 0, LDLAT_CLASS_L3,    \
			     "Hit", "HitM"),                                                         \
		OMR_L3_CASES("omr 0x3 local CA non-shared cache, forward", L_NON_SHARE,              \
			     P(SNOOPX, FWD), LDLAT_CLASS_L3, "Hit or Fwd", "HitM or Fwd"),           \
		OMR_L3_CASES("omr 0x4 other CA I/O agent", O_IO, 0, LDLAT_CLASS_IO, "Hit",           \
			     "HitM"),                                                                \
		OMR_L3_CASES("omr 0x4 other CA I/O agent, forward", O_IO, P(SNOOPX, FWD),            \
			     LDLAT_CLASS_IO, "Hit or Fwd", "HitM or Fwd"),                           \
		OMR_L3_CASES("omr 0x5 other CA shared cache", O_SHARE, 0, LDLAT_CLASS_PEER_CACHE,    \
			     "Hit", "HitM"),                                                         \
		OMR_L3_CASES("omr 0x5 other CA shared cache, forward", O_SHARE, P(SNOOPX, FWD),      \
			     LDLAT_CLASS_PEER_CACHE, "Hit or Fwd", "HitM or Fwd"),                   \
		OMR_L3_CASES("omr 0x6 other CA non-shared cache", O_NON_SHARE, 0,                    \
			     LDLAT_CLASS_PEER_CACHE, "Hit", "HitM"),                                 \
		OMR_L3_CASES("omr 0x6 other CA non-shared cache, forward", O_NON_SHARE,              \
			     P(SNOOPX, FWD), LDLAT_CLASS_PEER_CACHE, "Hit or Fwd", "HitM or Fwd"),   \
		OMR4("omr 0x7 MMIO", OP_LH | LEVEL(RAM) | REG(MMIO),                                 \
		     OP_LH | LEVEL(RAM) | REG(MMIO), LDLAT_CLASS_IO, LDLAT_CLASS_IO,                 \
		     LDLAT_CLASS_IO, LDLAT_CLASS_IO, "RAM hit", "Remote RAM hit", "Hit", "HitM"),    \
		OMR_MEM(0), OMR_MEM(1), OMR_MEM(2), OMR_MEM(3), OMR_MEM(4), OMR_MEM(5),              \
		OMR_MEM(6), OMR_MEM(7)

static const struct ds_case pnc_cases[] = { PNC_L2_HIT_CASES, OMR_CASES };
static const struct ds_case arw_cases[] = { ARW_L2_HIT_CASES, OMR_CASES };

/* AMD IBS, perf_ibs_get_mem_lvl() before the table: every family */
#define C_IBS_COMMON                                                                               \
	{ "uncached", P(OP, LOAD) | L(UNC) | LN(UNC) | P(SNOOP, NA), LDLAT_CLASS_UNCACHED,         \
	  "Uncached hit / N/A" },                                                                  \
		{ "L1", P(OP, LOAD) | L(L1) | LN(L1) | P(SNOOP, NA), LDLAT_CLASS_L1,               \
		  "L1 hit / N/A" },                                                                \
		{ "L2", P(OP, LOAD) | L(L2) | LN(L2) | P(SNOOP, NA), LDLAT_CLASS_L2,               \
		  "L2 hit / N/A" },                                                                \
		{ "MAB", P(OP, LOAD) | L(LFB) | LN(LFB) | P(SNOOP, NA), LDLAT_CLASS_LFB,           \
		  "LFB/MAB hit / N/A" },                                                           \
	{                                                                                          \
		"no data source", P(OP, LOAD) | P(LVL, NA) | LN(NA) | P(SNOOP, NA),                \
			LDLAT_CLASS_UNKNOWN, "N/A / N/A"                                           \
	}

/* g_data_src[]: Zen 1 to 3 (Zen 1/2 report HITM; Zen 3's CacheHitSt is not valid) */
static const struct ds_case zen3_cases[] = {
	C_IBS_COMMON,
	{ "2 local cache",
	  P(OP, LOAD) | L(L3) | L(REM_CCE1) | LN(ANY_CACHE) | HOPS(0) | P(SNOOP, NA),
	  LDLAT_CLASS_L3, "core, same node Any cache hit / N/A" },
	{ "2 local cache HITM",
	  P(OP, LOAD) | L(L3) | L(REM_CCE1) | LN(ANY_CACHE) | HOPS(0) | P(SNOOP, HITM),
	  LDLAT_CLASS_LOCAL_HITM, "core, same node Any cache hit / HitM" },
	{ "3 DRAM", P(OP, LOAD) | L(LOC_RAM) | LN(RAM) | P(SNOOP, NA), LDLAT_CLASS_LOCAL_RAM,
	  "RAM hit / N/A" },
	{ "3 remote DRAM", P(OP, LOAD) | L(REM_RAM1) | LN(RAM) | REM | HOPS(1) | P(SNOOP, NA),
	  LDLAT_CLASS_REMOTE_RAM_1HOP, "Remote node, same socket RAM hit / N/A" },
	{ "4 remote cache",
	  P(OP, LOAD) | L(REM_CCE2) | LN(ANY_CACHE) | REM | HOPS(1) | P(SNOOP, NA),
	  LDLAT_CLASS_REMOTE_CACHE_1HOP, "Remote node, same socket Any cache hit / N/A" },
	{ "7 I/O", P(OP, LOAD) | L(IO) | LN(IO) | P(SNOOP, NA), LDLAT_CLASS_IO, "I/O hit / N/A" },
};

/* g_zen4_data_src[]: Zen 4 and 5 (CacheHitSt = 0 on a cache source: HITM) */
static const struct ds_case zen4_cases[] = {
	C_IBS_COMMON,
	{ "1 local cache", P(OP, LOAD) | L(L3) | LN(L3) | P(SNOOP, NA), LDLAT_CLASS_L3,
	  "L3 hit / N/A" },
	{ "1 local cache HITM", P(OP, LOAD) | L(L3) | LN(L3) | P(SNOOP, HITM),
	  LDLAT_CLASS_LOCAL_HITM, "L3 hit / HitM" },
	{ "2 near CCX", P(OP, LOAD) | L(REM_CCE1) | LN(ANY_CACHE) | REM | HOPS(0) | P(SNOOP, NA),
	  LDLAT_CLASS_PEER_CACHE, "Remote core, same node Any cache hit / N/A" },
	{ "2 near CCX HITM",
	  P(OP, LOAD) | L(REM_CCE1) | LN(ANY_CACHE) | REM | HOPS(0) | P(SNOOP, HITM),
	  LDLAT_CLASS_REMOTE_HITM, "Remote core, same node Any cache hit / HitM" },
	{ "3 DRAM", P(OP, LOAD) | L(LOC_RAM) | LN(RAM) | P(SNOOP, NA), LDLAT_CLASS_LOCAL_RAM,
	  "RAM hit / N/A" },
	{ "3 remote DRAM", P(OP, LOAD) | L(REM_RAM1) | LN(RAM) | REM | HOPS(1) | P(SNOOP, NA),
	  LDLAT_CLASS_REMOTE_RAM_1HOP, "Remote node, same socket RAM hit / N/A" },
	{ "5 far CCX", P(OP, LOAD) | L(REM_CCE2) | LN(ANY_CACHE) | REM | HOPS(1) | P(SNOOP, NA),
	  LDLAT_CLASS_REMOTE_CACHE_1HOP, "Remote node, same socket Any cache hit / N/A" },
	{ "5 far CCX HITM",
	  P(OP, LOAD) | L(REM_CCE2) | LN(ANY_CACHE) | REM | HOPS(1) | P(SNOOP, HITM),
	  LDLAT_CLASS_REMOTE_HITM, "Remote node, same socket Any cache hit / HitM" },
	{ "6 PMEM", P(OP, LOAD) | LN(PMEM) | P(SNOOP, NA), LDLAT_CLASS_PMEM, "PMEM  / N/A" },
	{ "6 remote PMEM", P(OP, LOAD) | LN(PMEM) | REM | HOPS(1) | P(SNOOP, NA), LDLAT_CLASS_PMEM,
	  "Remote node, same socket PMEM  / N/A" },
	{ "7 I/O", P(OP, LOAD) | L(IO) | LN(IO) | P(SNOOP, NA), LDLAT_CLASS_IO, "I/O hit / N/A" },
	{ "8 extension memory", P(OP, LOAD) | LN(CXL) | P(SNOOP, NA), LDLAT_CLASS_CXL,
	  "CXL  / N/A" },
	{ "8 remote extension memory", P(OP, LOAD) | LN(CXL) | REM | HOPS(1) | P(SNOOP, NA),
	  LDLAT_CLASS_CXL, "Remote node, same socket CXL  / N/A" },
};

/* Samples of events without a load-latency source. */
static const struct ds_case no_source_cases[] = {
	{ "precise_datala_hsw", (MEM_NA & ~P(OP, NA)) | P(OP, LOAD), LDLAT_CLASS_UNKNOWN,
	  "N/A / N/A" },
	{ "PERF_MEM_NA", MEM_NA, LDLAT_CLASS_UNKNOWN, "N/A / N/A" },
	{ "zero", 0, LDLAT_CLASS_UNKNOWN, "N/A / N/A" },
};

/* ---- the per-sample bits each platform ORs onto its table entries ---------- */

#define TLB_HIT	  (P(TLB, HIT) | P(TLB, L1) | P(TLB, L2)) /* pebs_set_tlb_lock(): STLB hit */
#define TLB_MISS  (P(TLB, MISS) | P(TLB, L2))
#define IS_LOCKED P(LOCK, LOCKED)

/* x86_pmu.pebs_no_tlb (Nehalem): TLB and lock not known, no blocked bits */
static const __u64 nhm_bits[] = { P(TLB, NA) | P(LOCK, NA) };

/* STLB hit or miss, locked or not; no pebs_block: blocked N/A (Westmere to Ice Lake) */
static const __u64 tlb_lock_bits[] = {
	TLB_HIT | P(BLK, NA),
	TLB_MISS | P(BLK, NA),
	TLB_HIT | IS_LOCKED | P(BLK, NA),
	TLB_MISS | IS_LOCKED | P(BLK, NA),
};

/* pebs_block (Golden Cove and later big cores, Lion Cove): data and address blocked */
#define TLB_LOCK_X(blk)                                                                            \
	TLB_HIT | (blk), TLB_MISS | (blk), TLB_HIT | IS_LOCKED | (blk), TLB_MISS | IS_LOCKED | (blk)
static const __u64 blk_bits[] = {
	TLB_LOCK_X(P(BLK, NA)),
	TLB_LOCK_X(P(BLK, DATA)),
	TLB_LOCK_X(P(BLK, ADDR)),
	TLB_LOCK_X(P(BLK, DATA) | P(BLK, ADDR)),
};

/* __grt_latency_data() (Gracemont, Crestmont): data blocked or N/A */
static const __u64 atom_bits[] = {
	TLB_LOCK_X(P(BLK, NA)),
	TLB_LOCK_X(P(BLK, DATA)),
};

/* IBS: DTLB N/A, L1 hit, L2 hit, L2 miss; lock N/A or locked; no blocked bits */
#define IBS_TLB_X(lock)                                                                            \
	P(TLB, NA) | (lock), P(TLB, L1) | P(TLB, HIT) | (lock), P(TLB, L2) | P(TLB, HIT) | (lock), \
		P(TLB, L2) | P(TLB, MISS) | (lock)
static const __u64 ibs_bits[] = {
	IBS_TLB_X(P(LOCK, NA)),
	IBS_TLB_X(P(LOCK, LOCKED)),
};

static const __u64 no_bits[] = { 0 };

struct ds_platform {
	const char *name;
	const struct ds_case *cases;
	unsigned int ncases;
	const __u64 *bits; /* each case is emitted with each of these ORed in */
	unsigned int nbits;
};

#define DS_PLATFORM(name, c, b)                                                                    \
	{                                                                                          \
		name, c, ARRAY_SIZE(c), b, ARRAY_SIZE(b)                                           \
	}

static const struct ds_platform ds_platforms[] __attribute__((unused)) = {
	DS_PLATFORM("nehalem", nhm_cases, nhm_bits),
	DS_PLATFORM("westmere", nhm_cases, tlb_lock_bits),
	DS_PLATFORM("sandybridge-broadwell", snb_cases, tlb_lock_bits),
	DS_PLATFORM("skylake", skl_client_cases, tlb_lock_bits),
	DS_PLATFORM("skylake-sp", skl_server_cases, tlb_lock_bits),
	DS_PLATFORM("sapphire-rapids", skl_server_cases, blk_bits),
	DS_PLATFORM("alderlake-core", skl_client_cases, blk_bits),
	DS_PLATFORM("alderlake-atom", grt_cases, atom_bits),
	DS_PLATFORM("crestmont", cmt_cases, atom_bits),
	DS_PLATFORM("lion-cove", lnc_cases, blk_bits),
	DS_PLATFORM("panther-cove", pnc_cases, blk_bits),
	DS_PLATFORM("arctic-wolf", arw_cases, blk_bits),
	DS_PLATFORM("zen1-3", zen3_cases, ibs_bits),
	DS_PLATFORM("zen4", zen4_cases, ibs_bits),
	DS_PLATFORM("no-source", no_source_cases, no_bits),
};

#define NDS_PLATFORMS ARRAY_SIZE(ds_platforms)

static inline unsigned int ds_platform__nvalues(const struct ds_platform *p)
{
	return p->ncases * p->nbits;
}

/* The platform's i-th value, its case (for messages) and its class. */
static inline __u64 ds_platform__value(const struct ds_platform *p, unsigned int i,
				       const struct ds_case **c)
{
	*c = &p->cases[i / p->nbits];
	return (*c)->ds | p->bits[i % p->nbits];
}

/* All platforms' values as one list: the i-th (i < ds_nvalues()). */
static inline unsigned int ds_nvalues(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < NDS_PLATFORMS; i++)
		n += ds_platform__nvalues(&ds_platforms[i]);
	return n;
}

static inline __u64 ds_value(unsigned int i, const struct ds_case **c)
{
	unsigned int p;

	for (p = 0; i >= ds_platform__nvalues(&ds_platforms[p]); p++)
		i -= ds_platform__nvalues(&ds_platforms[p]);
	return ds_platform__value(&ds_platforms[p], i, c);
}

#endif
