/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * ldlat.h - what the BPF program and user space share: the layout of the maps
 * and of the configuration, and the per-sample logic (filter, classify, bucket).
 *
 * The logic is LDLAT_INLINE so that it is compiled twice: into the BPF object,
 * where the verifier checks it and it runs once per sample, and natively, where
 * the tests and offline analysis run the very same code.  One fact, one place:
 * the class of a data_src value is decided here and nowhere else.
 */
#ifndef LDLAT_H
#define LDLAT_H

#ifdef __bpf__
/*
 * vmlinux.h (already included by the BPF program) gives the kernel's types but
 * not the UAPI's #defines, and cannot be combined with <linux/perf_event.h>.
 * The Makefile extracts the PERF_MEM_* macros from that UAPI header into
 * perf_mem_defs.h, so both builds use the same definitions.
 */
#include "bpf/perf_mem_defs.h"
#else
#include <linux/types.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#endif

/* The logic runs once per sample in NMI context: no calls, in either build. */
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#define LDLAT_INLINE static __always_inline

/*
 * Added to the UAPI after Linux 6.1, whose headers Debian 12 ships.  Kernels
 * newer than the headers emit them, so the decoder must know them.
 */
#ifndef PERF_MEM_LVLNUM_L2_MHB
#define PERF_MEM_LVLNUM_L2_MHB 0x05 /* L2 miss handling buffer (Linux 6.11) */
#endif
#ifndef PERF_MEM_LVLNUM_MSC
#define PERF_MEM_LVLNUM_MSC 0x06 /* memory-side cache (Linux 6.11) */
#endif
#ifndef PERF_MEM_LVLNUM_L0
#define PERF_MEM_LVLNUM_L0 0x07 /* L0 (after Linux 6.18) */
#endif
#ifndef PERF_MEM_LVLNUM_UNC
#define PERF_MEM_LVLNUM_UNC 0x08 /* uncached (Linux 6.6) */
#endif
/*
 * mem_region, bits 46-50 (Linux 7.0): where a load that missed the L2 was
 * served on Panther Cove / Arctic Wolf cores (Diamond Rapids, Nova Lake),
 * from the Off-Module Response encoding of arch/x86/events/intel/ds.c.
 */
#ifndef PERF_MEM_REGION_SHIFT
#define PERF_MEM_REGION_NA	    0x00 /* not given */
#define PERF_MEM_REGION_RSVD	    0x01 /* reserved */
#define PERF_MEM_REGION_L_SHARE	    0x02 /* this caching agent's shared cache */
#define PERF_MEM_REGION_L_NON_SHARE 0x03 /* this caching agent's non-shared cache */
#define PERF_MEM_REGION_O_IO	    0x04 /* another caching agent's I/O agent */
#define PERF_MEM_REGION_O_SHARE	    0x05 /* another caching agent's shared cache */
#define PERF_MEM_REGION_O_NON_SHARE 0x06 /* another caching agent's non-shared cache */
#define PERF_MEM_REGION_MMIO	    0x07 /* memory-mapped I/O */
#define PERF_MEM_REGION_MEM0	    0x08 /* memory region 0 (MEM1-7 follow) */
#define PERF_MEM_REGION_SHIFT	    46
#endif

#define LDLAT_MAX_RANGES 16 /* address ranges a user can name (-a) */
#define LDLAT_MAX_SPANS	 32 /* [lo, hi) intervals they resolve to (a file may map twice) */
#define LDLAT_SPAN_STEPS 6  /* binary search steps over LDLAT_MAX_SPANS: ceil(log2(33)) */
#define LDLAT_MAX_TGIDS	 16
/*
 * Latency buckets, log-linear (as HdrHistogram and DDSketch): values below
 * 2 * LDLAT_SUB have a bucket each; above, every power of two [2^e, 2^(e+1))
 * is cut into LDLAT_SUB buckets of width 2^(e - LDLAT_SUB_BITS).  A bucket is
 * then never wider than 1/LDLAT_SUB of its lower bound, and its midpoint is
 * within 1/(2 * LDLAT_SUB + 1) of any value in it: with 32 sub-buckets every
 * percentile read from them is within LDLAT_REL_ERROR of the exact one
 * (tests/suites/check_unit.c checks every bucket and value).  The buckets
 * cover [0, 2^LDLAT_LAT_BITS) cycles; the last, open, holds what is above.
 * Hardware latency fields are 16 bits wide (Intel's PEBS_LATENCY_MASK, AMD's
 * IbsDcMissLat), so 2^20 leaves room and keeps a histogram at 4 KiB.
 */
#define LDLAT_SUB_BITS 5
#define LDLAT_SUB      (1u << LDLAT_SUB_BITS)
#define LDLAT_LAT_BITS 20
#define LDLAT_NLOG     ((LDLAT_LAT_BITS - LDLAT_SUB_BITS + 1) << LDLAT_SUB_BITS) /* 512 */
#define LDLAT_NBUCKETS (LDLAT_NLOG + 1) /* the last: LDLAT_LAT_BITS and above */
#define LDLAT_NLINEAR  65		/* --linear: 64 buckets of the width, then the open last */
/* The relative error of a percentile from log-linear buckets: 1/64, as text for the reports. */
#define LDLAT_REL_ERROR	     (1.0 / (2 * LDLAT_SUB))
#define LDLAT_REL_ERROR_TEXT "1.6%"

/* Data-source classes: where a load's data came from, as a user asks about it. */
enum ldlat_class {
	LDLAT_CLASS_UNKNOWN,	       /* no data source, or one the kernel left N/A */
	LDLAT_CLASS_L1,		       /* L1 (or L0) data cache hit */
	LDLAT_CLASS_LFB,	       /* hit an outstanding L1 miss: fill buffer (AMD: MAB) */
	LDLAT_CLASS_L2,		       /* L2 hit */
	LDLAT_CLASS_L3,		       /* L3 (LLC) hit, clean or shared */
	LDLAT_CLASS_L4,		       /* L4 (eDRAM) hit */
	LDLAT_CLASS_MSC,	       /* memory-side cache hit */
	LDLAT_CLASS_ANY_CACHE,	       /* a local cache the hardware does not name */
	LDLAT_CLASS_LOCAL_HITM,	       /* modified in another core's cache, same node */
	LDLAT_CLASS_PEER_CACHE,	       /* another core complex's cache, same node */
	LDLAT_CLASS_REMOTE_CACHE,      /* a remote cache, distance unknown */
	LDLAT_CLASS_REMOTE_CACHE_1HOP, /* remote cache, another node of this socket */
	LDLAT_CLASS_REMOTE_CACHE_2HOP, /* remote cache, another socket */
	LDLAT_CLASS_REMOTE_CACHE_3HOP, /* remote cache, another board */
	LDLAT_CLASS_REMOTE_HITM,       /* modified in a remote cache */
	LDLAT_CLASS_LOCAL_RAM,	       /* local DRAM */
	LDLAT_CLASS_REMOTE_RAM,	       /* remote DRAM, distance unknown */
	LDLAT_CLASS_REMOTE_RAM_1HOP,   /* remote DRAM, another node of this socket */
	LDLAT_CLASS_REMOTE_RAM_2HOP,   /* remote DRAM, another socket */
	LDLAT_CLASS_REMOTE_RAM_3HOP,   /* remote DRAM, another board */
	LDLAT_CLASS_PMEM,	       /* persistent memory */
	LDLAT_CLASS_CXL,	       /* CXL-attached memory */
	LDLAT_CLASS_IO,		       /* memory-mapped I/O */
	LDLAT_CLASS_UNCACHED,	       /* uncached memory */
	LDLAT_CLASS_MISS,	       /* missed a level, source not known ("L3 miss") */
	LDLAT_CLASS_L2_MHB,	       /* L2 miss-handling buffer: an outstanding L2 miss */
	LDLAT_NCLASS,
};

#define LDLAT_ALL_CLASSES ((1u << LDLAT_NCLASS) - 1)

/*
 * What became of a sample.  The order is the order of the checks; each value
 * indexes a counter in struct ldlat_counters, starting at 'kept'.
 */
enum ldlat_verdict {
	LDLAT_KEPT,
	LDLAT_DROP_MISSING,   /* a field the filters need was not in the sample */
	LDLAT_DROP_TGID,      /* from a process not in the TGID set */
	LDLAT_DROP_OP,	      /* not a memory op asked for (loads, by default) */
	LDLAT_DROP_NO_ADDR,   /* ranges were given and the sample had address 0 */
	LDLAT_DROP_NO_RANGE,  /* the address is outside every range */
	LDLAT_DROP_BELOW_MIN, /* latency under --min-lat */
	LDLAT_DROP_ABOVE_MAX, /* latency over --max-lat */
	LDLAT_DROP_CLASS,     /* data-source class not asked for */
	LDLAT_NVERDICTS,
};

/* Per-CPU counters, one set per program; user space sums the CPUs. */
struct ldlat_counters {
	/*
	 * The samples the program ran on.  The program leaves it 0 in the map:
	 * every sample is counted once, in its verdict's counter, so user
	 * space (session__read_fds) makes it their sum, one add fewer per sample.
	 */
	__u64 seen;
	__u64 kept; /* indexed by enum ldlat_verdict from here on */
	__u64 fields_missing;
	__u64 tgid_filtered;
	__u64 op_filtered;
	__u64 no_address;
	__u64 outside_ranges;
	__u64 below_min;
	__u64 above_max;
	__u64 class_filtered;
	/*
	 * Sum of the periods of the samples seen: the events they stand for.
	 * Against the events' own counts it tells what the program did not see.
	 */
	__u64 seen_period;
};

/*
 * One histogram: a (range, class) cell of the per-CPU 'hists' array, at index
 * range * LDLAT_NCLASS + class.  range and class are written once by user space
 * before sampling starts, so a dump of the map reads without a key to decode.
 */
struct ldlat_hist {
	__u32 range;
	enum ldlat_class class;
	__u64 sum; /* sum of the measured latencies (the samples in slot[]) */
	/*
	 * ~(least measured latency): a zero-filled map reads as "none yet", so
	 * nothing needs setting before the program runs, and the program keeps
	 * it with one comparison as it keeps max.
	 */
	__u64 nmin;
	__u64 max;	  /* greatest measured latency */
	__u64 unmeasured; /* kept samples that carry no measured latency (not in slot[]) */
	__u64 period;	  /* sum of the kept samples' periods: the events they stand for */
	__u64 slot[LDLAT_NBUCKETS];
};

/* Which fields a sample carries (struct ldlat_sample.flags, ldlat_config.need). */
#ifndef __bpf__
#include <stddef.h>
_Static_assert(offsetof(struct ldlat_counters, class_filtered) ==
		       offsetof(struct ldlat_counters, kept) + LDLAT_DROP_CLASS * sizeof(__u64),
	       "counters follow enum ldlat_verdict");
_Static_assert(LDLAT_NCLASS <= 32, "class_mask is 32 bits");
#endif

#define LDLAT_HAS_ADDR (1u << 0)
#define LDLAT_HAS_LAT  (1u << 1)
#define LDLAT_HAS_DSRC (1u << 2)

/*
 * One sample, as the logic sees it.  The perf_event program fills it from the
 * kernel's perf_sample_data; the test entry takes it as its ctx (u64 words, in
 * this order), and offline analysis fills it from a perf.data record.
 */
struct ldlat_sample {
	__u64 addr;
	__u64 lat; /* 0: not measured (ldlat_lat_measured) */
	__u64 data_src;
	__u64 ip;
	__u32 tgid;
	__u32 flags;  /* LDLAT_HAS_* */
	__u64 period; /* the events this sample stands for (perf_sample_data.period) */
};

#ifndef __bpf__
_Static_assert(sizeof(struct ldlat_sample) == 6 * sizeof(__u64) &&
		       offsetof(struct ldlat_sample, tgid) == 4 * sizeof(__u64) &&
		       offsetof(struct ldlat_sample, period) == 5 * sizeof(__u64),
	       "the test entry reads struct ldlat_sample as six u64 words");
#endif

/*
 * Everything the program is told, set before load (read-only data: the
 * verifier sees the values and drops the code of filters that are off).
 * Spans are sorted by lo and do not overlap.
 */
struct ldlat_config {
	__u64 span_lo[LDLAT_MAX_SPANS];
	__u64 span_hi[LDLAT_MAX_SPANS]; /* exclusive */
	__u32 span_range[LDLAT_MAX_SPANS];
	__u32 nspans;  /* 0: no address filter, one range */
	__u32 nranges; /* rows of 'hists' (at least 1) */
	__u32 ntgids;  /* 0: any process */
	__u32 tgid[LDLAT_MAX_TGIDS];
	/*
	 * linear_step is 1 << (linear_shift - 1): buckets by a shift; 0: by a
	 * division (ldlat_linear_shift; here, where the struct had a hole: the
	 * pinned layout is unchanged)
	 */
	__u32 linear_shift;
	__u64 min_lat;
	__u64 max_lat;	     /* inclusive */
	__u32 class_mask;    /* bit (1 << class) set: kept */
	__u32 op_mask;	     /* PERF_MEM_OP_* bits kept; 0: any op */
	__u32 need;	     /* LDLAT_HAS_* every kept sample must carry */
	__u32 linear_step;   /* 0: log2 buckets, else width of linear ones */
	__u32 weight_struct; /* latency is weight.var1_dw (WEIGHT_STRUCT), else weight.full */
	__u32 top;	     /* LDLAT_TOP_*: ldlat-top's tables; 0 (ldlat-hist): no code for them */
	__u32 top_shift;     /* data addresses are rounded down to 1 << top_shift bytes */
	__u32 top_entries;   /* entries of each table (user space sizes the maps from it) */
	/*
	 * The samples' period when every sampling event has the same fixed one:
	 * the program then sums no period, and user space computes the sums as
	 * count x fixed_period (session__read_fds).  0: periods vary (frequency
	 * mode), or are not known: the program sums them per sample.
	 */
	__u64 fixed_period;
	__u32 by;      /* enum ldlat_by: histograms per process, thread, CPU, node or cgroup */
	__u32 by_keys; /* rows of the split (the last row, by_keys, holds the others) */
};

/*
 * --by: the histograms split by a key the program takes from the kernel.
 * Each key gets a row of nranges * LDLAT_NCLASS histograms in 'hists'; a
 * CPU or node is its own row number, a process, thread or cgroup the next
 * free row ('by_rows' maps the key to it).  The rows are by_keys, fixed
 * before load; a sample whose key finds none left goes to one more row, at
 * by_keys, the others, so every kept sample is in some row.
 */
enum ldlat_by {
	LDLAT_BY_NONE,
	LDLAT_BY_PID,	 /* the process (thread group) */
	LDLAT_BY_TID,	 /* the thread */
	LDLAT_BY_CPU,	 /* the CPU the sample was taken on */
	LDLAT_BY_NODE,	 /* that CPU's NUMA node */
	LDLAT_BY_CGROUP, /* the task's cgroup (v2): its id, the inode of its directory */
	LDLAT_BY_REGION, /* the data source's memory region MEM0-MEM7 (mem_region); others: none */
};

/* --by region: rows for MEM0 to MEM7, then the others (no memory region given). */
#define LDLAT_BY_REGIONS 8

#define LDLAT_BY_MAX_KEYS 256 /* --by-keys: the most rows a split may have */

/* The first histogram of a split's row: rows follow one another. */
LDLAT_INLINE __u32 ldlat_by_base(__u32 row, __u32 nranges)
{
	return row * nranges * LDLAT_NCLASS;
}

/* data_src fields, by the UAPI's shifts (union perf_mem_data_src). */
#define LDLAT_DS(ds, field, bits)                                                                  \
	((__u32)(((ds) >> PERF_MEM_##field##_SHIFT) & ((1u << (bits)) - 1)))

LDLAT_INLINE __u32 ldlat_ds_op(__u64 ds)
{
	return LDLAT_DS(ds, OP, 5);
}

/* A data source's row of --by region: its memory region's number, else LDLAT_BY_REGIONS. */
LDLAT_INLINE __u32 ldlat_by_region(__u64 ds)
{
	__u32 r = LDLAT_DS(ds, REGION, 5);

	return r >= PERF_MEM_REGION_MEM0 && r < PERF_MEM_REGION_MEM0 + LDLAT_BY_REGIONS
		       ? r - PERF_MEM_REGION_MEM0
		       : LDLAT_BY_REGIONS;
}

/* A remote source at a known distance (mem_hops, or the legacy 1/2-hop bits). */
LDLAT_INLINE enum ldlat_class ldlat_class_remote(__u32 hops, bool ram)
{
	switch (hops) {
	case PERF_MEM_HOPS_0: /* another core of this node: not remote in NUMA terms */
		return ram ? LDLAT_CLASS_LOCAL_RAM : LDLAT_CLASS_PEER_CACHE;
	case PERF_MEM_HOPS_1:
		return ram ? LDLAT_CLASS_REMOTE_RAM_1HOP : LDLAT_CLASS_REMOTE_CACHE_1HOP;
	case PERF_MEM_HOPS_2:
		return ram ? LDLAT_CLASS_REMOTE_RAM_2HOP : LDLAT_CLASS_REMOTE_CACHE_2HOP;
	case PERF_MEM_HOPS_3:
		return ram ? LDLAT_CLASS_REMOTE_RAM_3HOP : LDLAT_CLASS_REMOTE_CACHE_3HOP;
	default:
		return ram ? LDLAT_CLASS_REMOTE_RAM : LDLAT_CLASS_REMOTE_CACHE;
	}
}

/*
 * A remote source (mem_remote set).  Intel's tables are not consistent about
 * which field carries what: generic entry 0x0b is remote DRAM with mem_lvl_num
 * L3 and the legacy REM_RAM1 bit; Crestmont's 0x0c is a line forwarded from a
 * remote cache with mem_lvl_num RAM.  Legacy bits and snoopx settle it, and
 * give the distance when mem_hops is 0.
 */
LDLAT_INLINE enum ldlat_class ldlat_class_remote_src(__u32 lnum, __u32 lvl, __u32 hops,
						     __u32 snoopx)
{
	bool ram = lnum == PERF_MEM_LVLNUM_RAM ||
		   (lvl & (PERF_MEM_LVL_REM_RAM1 | PERF_MEM_LVL_REM_RAM2));

	if (lnum == PERF_MEM_LVLNUM_RAM && (snoopx & PERF_MEM_SNOOPX_FWD))
		ram = false;
	if (!hops) {
		if (lvl & (PERF_MEM_LVL_REM_RAM1 | PERF_MEM_LVL_REM_CCE1))
			hops = PERF_MEM_HOPS_1;
		else if (lvl & (PERF_MEM_LVL_REM_RAM2 | PERF_MEM_LVL_REM_CCE2))
			hops = PERF_MEM_HOPS_2;
	}
	return ldlat_class_remote(hops, ram);
}

/* The class from mem_lvl_num (with mem_remote, mem_hops); UNKNOWN when not filled. */
/*
 * The class each mem_lvl_num names, a load where a chain of tests would
 * be: the levels of this host (L0 is an L1 hit), and those that name the
 * memory whatever the distance (LDLAT_LNUM_ANY_DISTANCE).  0 and N/A are
 * never looked up; ANY_CACHE is L3 here, as pre-Zen 4 IBS's legacy L3 bit
 * says (ldlat_class_lvlnum decides the other case).  volatile keeps it in
 * .rodata: a plain const array goes to a merged-constants section
 * (.rodata.cst16) whose variable libbpf cannot place in the object's BTF,
 * and the kernel then refuses the BTF (maps without it: no bpftool dump by
 * field names).
 */
static const volatile __u8 ldlat_lnum_class[16] = {
	[PERF_MEM_LVLNUM_L1] = LDLAT_CLASS_L1,	       [PERF_MEM_LVLNUM_L2] = LDLAT_CLASS_L2,
	[PERF_MEM_LVLNUM_L3] = LDLAT_CLASS_L3,	       [PERF_MEM_LVLNUM_L4] = LDLAT_CLASS_L4,
	[PERF_MEM_LVLNUM_L2_MHB] = LDLAT_CLASS_L2_MHB, [PERF_MEM_LVLNUM_MSC] = LDLAT_CLASS_MSC,
	[PERF_MEM_LVLNUM_L0] = LDLAT_CLASS_L1,	       [PERF_MEM_LVLNUM_UNC] = LDLAT_CLASS_UNCACHED,
	[PERF_MEM_LVLNUM_CXL] = LDLAT_CLASS_CXL,       [PERF_MEM_LVLNUM_IO] = LDLAT_CLASS_IO,
	[PERF_MEM_LVLNUM_ANY_CACHE] = LDLAT_CLASS_L3,  [PERF_MEM_LVLNUM_LFB] = LDLAT_CLASS_LFB,
	[PERF_MEM_LVLNUM_RAM] = LDLAT_CLASS_LOCAL_RAM, [PERF_MEM_LVLNUM_PMEM] = LDLAT_CLASS_PMEM,
};

#define LDLAT_LNUM_ANY_DISTANCE                                                                    \
	(1u << PERF_MEM_LVLNUM_PMEM | 1u << PERF_MEM_LVLNUM_CXL | 1u << PERF_MEM_LVLNUM_IO |       \
	 1u << PERF_MEM_LVLNUM_UNC)

LDLAT_INLINE enum ldlat_class ldlat_class_lvlnum(__u64 ds, bool hitm)
{
	__u32 lnum = LDLAT_DS(ds, LVLNUM, 4);
	__u32 lvl = LDLAT_DS(ds, LVL, 14);
	__u32 remote = LDLAT_DS(ds, REMOTE, 1);
	__u32 hops = LDLAT_DS(ds, HOPS, 3);

	__u32 region = LDLAT_DS(ds, REGION, 5);

	if (!lnum || lnum == PERF_MEM_LVLNUM_NA)
		return LDLAT_CLASS_UNKNOWN;
	/*
	 * Panther Cove's MMIO region comes with mem_lvl_num RAM: it is I/O, not
	 * DRAM.  O_IO, O_SHARE, O_NON_SHARE and MMIO are 4 to 7: one test for
	 * the data sources of every other CPU, which give no region.
	 */
	if (region - PERF_MEM_REGION_O_IO < 4 &&
	    (region == PERF_MEM_REGION_MMIO || region == PERF_MEM_REGION_O_IO))
		return LDLAT_CLASS_IO;
	/* these name the memory whatever the distance */
	if ((LDLAT_LNUM_ANY_DISTANCE >> lnum) & 1)
		return ldlat_lnum_class[lnum & 15];
	/* "L3 miss" (Intel's 0x00): the level it missed, not where the data came from */
	if ((lvl & PERF_MEM_LVL_MISS) && !(lvl & PERF_MEM_LVL_HIT))
		return hitm ? (remote ? LDLAT_CLASS_REMOTE_HITM : LDLAT_CLASS_LOCAL_HITM)
			    : LDLAT_CLASS_MISS;
	if (remote)
		return hitm ? LDLAT_CLASS_REMOTE_HITM
			    : ldlat_class_remote_src(lnum, lvl, hops, LDLAT_DS(ds, SNOOPX, 2));
	if (hitm && lnum != PERF_MEM_LVLNUM_L1 && lnum != PERF_MEM_LVLNUM_L0)
		return LDLAT_CLASS_LOCAL_HITM;
	/* another caching agent of this node (Panther Cove's L3 entries carry it) */
	if (region - PERF_MEM_REGION_O_SHARE < 2)
		return LDLAT_CLASS_PEER_CACHE;
	/* pre-Zen 4 IBS: "local L3 or another CCX" carries the legacy L3 bit */
	if (lnum == PERF_MEM_LVLNUM_ANY_CACHE && !(lvl & PERF_MEM_LVL_L3))
		return hops == PERF_MEM_HOPS_0 ? LDLAT_CLASS_PEER_CACHE : LDLAT_CLASS_ANY_CACHE;
	return ldlat_lnum_class[lnum & 15];
}

/* The class from the legacy mem_lvl bits alone; UNKNOWN when none names a source. */
LDLAT_INLINE enum ldlat_class ldlat_class_legacy(__u64 ds, bool hitm)
{
	__u32 lvl = LDLAT_DS(ds, LVL, 14);

	if ((lvl & PERF_MEM_LVL_MISS) && !(lvl & PERF_MEM_LVL_HIT)) {
		if (hitm)
			return LDLAT_CLASS_LOCAL_HITM;
		return lvl & ~(PERF_MEM_LVL_MISS | PERF_MEM_LVL_NA) ? LDLAT_CLASS_MISS
								    : LDLAT_CLASS_UNKNOWN;
	}
	if (lvl & PERF_MEM_LVL_L1)
		return LDLAT_CLASS_L1;
	if (lvl & PERF_MEM_LVL_LFB)
		return LDLAT_CLASS_LFB;
	if (lvl & (PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_REM_CCE2))
		return hitm			       ? LDLAT_CLASS_REMOTE_HITM
		       : (lvl & PERF_MEM_LVL_REM_CCE1) ? LDLAT_CLASS_REMOTE_CACHE_1HOP
						       : LDLAT_CLASS_REMOTE_CACHE_2HOP;
	if (hitm && (lvl & (PERF_MEM_LVL_L2 | PERF_MEM_LVL_L3 | PERF_MEM_LVL_LOC_RAM)))
		return LDLAT_CLASS_LOCAL_HITM;
	if (lvl & PERF_MEM_LVL_L2)
		return LDLAT_CLASS_L2;
	if (lvl & PERF_MEM_LVL_L3)
		return LDLAT_CLASS_L3;
	if (lvl & PERF_MEM_LVL_LOC_RAM)
		return LDLAT_CLASS_LOCAL_RAM;
	if (lvl & PERF_MEM_LVL_REM_RAM1)
		return LDLAT_CLASS_REMOTE_RAM_1HOP;
	if (lvl & PERF_MEM_LVL_REM_RAM2)
		return LDLAT_CLASS_REMOTE_RAM_2HOP;
	if (lvl & PERF_MEM_LVL_IO)
		return LDLAT_CLASS_IO;
	if (lvl & PERF_MEM_LVL_UNC)
		return LDLAT_CLASS_UNCACHED;
	return LDLAT_CLASS_UNKNOWN;
}

/*
 * The class of a data_src value.  Kernels fill the legacy mem_lvl bits, or
 * mem_lvl_num + mem_remote + mem_hops, or both (Intel's I/O and uncached
 * entries leave mem_lvl_num N/A): the newer fields decide when they are set,
 * the legacy bits otherwise.  HITM (a snoop found the line modified in
 * another core's cache) is a class of its own, local or remote, as perf c2c
 * counts it.
 */
LDLAT_INLINE enum ldlat_class ldlat_classify(__u64 ds)
{
	bool hitm = LDLAT_DS(ds, SNOOP, 5) & PERF_MEM_SNOOP_HITM;
	enum ldlat_class c = ldlat_class_lvlnum(ds, hitm);

	if (c != LDLAT_CLASS_UNKNOWN)
		return c;
	return ldlat_class_legacy(ds, hitm);
}

/*
 * floor(log2(v)) + 1, and 0 for 0: bucket k holds [2^(k-1), 2^k - 1].
 * Shifts, not __builtin_clzll: clang 14 crashes on the builtin for BPF.
 */
LDLAT_INLINE __u32 ldlat_log2_bucket(__u64 v)
{
	__u32 r = 0;

	if (v >> 32) {
		v >>= 32;
		r += 32;
	}
	if (v >> 16) {
		v >>= 16;
		r += 16;
	}
	if (v >> 8) {
		v >>= 8;
		r += 8;
	}
	if (v >> 4) {
		v >>= 4;
		r += 4;
	}
	if (v >> 2) {
		v >>= 2;
		r += 2;
	}
	if (v >> 1) {
		v >>= 1;
		r += 1;
	}
	return r + (__u32)v; /* v is now 1, or 0 when it started at 0 */
}

/* linear_shift for a bucket width: log2 + 1 for a power of two, else 0 (divide). */
LDLAT_INLINE __u32 ldlat_linear_shift(__u32 linear_step)
{
	return linear_step && !(linear_step & (linear_step - 1)) ? ldlat_log2_bucket(linear_step)
								 : 0;
}

/*
 * 1 when v >= 2^k, v below 2^32: the carry out of the low 32 bits of a
 * 64-bit add, so no branch (BPF has no conditional move: a comparison is a
 * jump, and a latency's bits are not predictable).  The barrier keeps the
 * compiler from turning the add back into a comparison.
 */
LDLAT_INLINE __u64 ldlat_ge_pow2(__u64 v, __u32 k)
{
	__u64 t = v + ((1ull << 32) - (1ull << k));

#ifdef __bpf__
	asm volatile("" : "+r"(t));
#endif
	t >>= 32;
#ifdef __bpf__
	asm volatile("" : "+r"(t)); /* and from folding the shift into the caller's */
#endif
	return t;
}

/*
 * The log-linear bucket of a latency: the shift that brings it into
 * [LDLAT_SUB, 2 * LDLAT_SUB), and the bits left.  The shift is the log2 of
 * lat >> (LDLAT_SUB_BITS + 1), under 2^(LDLAT_LAT_BITS - LDLAT_SUB_BITS - 1):
 * four shift steps where a 64-bit log2 takes six, each without a branch.
 */
LDLAT_INLINE __u32 ldlat_loglin_bucket(__u64 lat)
{
	__u64 v, r, t;

	if (lat >> LDLAT_LAT_BITS)
		return LDLAT_NLOG;
	v = lat >> (LDLAT_SUB_BITS + 1);
	r = t = ldlat_ge_pow2(v, 8) << 3;
	v >>= t;
	t = ldlat_ge_pow2(v, 4) << 2;
	v >>= t;
	r += t;
	t = ldlat_ge_pow2(v, 2) << 1;
	v >>= t;
	r += t;
	t = ldlat_ge_pow2(v, 1);
	v >>= t;
	r += t;
	r += v; /* the shift: floor(log2) + 1 of lat >> 6, 0 below 64 */
	return (__u32)((r << LDLAT_SUB_BITS) + (lat >> r));
}

/*
 * The sample's bucket.  With linear_shift (rodata: the verifier keeps one of
 * the two) a shift, else a 64-bit division.
 */
LDLAT_INLINE __u32 ldlat_bucket_shift(__u64 lat, __u32 linear_step, __u32 linear_shift)
{
	__u64 b;

	if (!linear_step)
		return ldlat_loglin_bucket(lat);
	if (linear_shift)
		b = lat >> ((linear_shift - 1) & 63);
	else
		b = lat / linear_step;
	return b < LDLAT_NLINEAR - 1 ? (__u32)b : LDLAT_NLINEAR - 1; /* last: overflow */
}

LDLAT_INLINE __u32 ldlat_bucket(__u64 lat, __u32 linear_step)
{
	return ldlat_bucket_shift(lat, linear_step, 0);
}

/* Buckets in use: LDLAT_NBUCKETS, or LDLAT_NLINEAR with --linear. */
LDLAT_INLINE __u32 ldlat_nbuckets(__u32 linear_step)
{
	return linear_step ? LDLAT_NLINEAR : LDLAT_NBUCKETS;
}

/* Inclusive bounds of a bucket, for printing and percentiles. */
LDLAT_INLINE __u64 ldlat_bucket_lo(__u32 b, __u32 linear_step)
{
	if (linear_step)
		return (__u64)b * linear_step;
	if (b < 2 * LDLAT_SUB)
		return b;
	if (b >= LDLAT_NLOG)
		return 1ull << LDLAT_LAT_BITS;
	return (__u64)((b & (LDLAT_SUB - 1)) + LDLAT_SUB) << ((b >> LDLAT_SUB_BITS) - 1);
}

LDLAT_INLINE __u64 ldlat_bucket_hi(__u32 b, __u32 linear_step)
{
	if (linear_step)
		return b >= LDLAT_NLINEAR - 1 ? ~0ull : (__u64)(b + 1) * linear_step - 1;
	if (b < 2 * LDLAT_SUB)
		return b;
	if (b >= LDLAT_NLOG)
		return ~0ull;
	return ldlat_bucket_lo(b, 0) + (1ull << ((b >> LDLAT_SUB_BITS) - 1)) - 1;
}

/*
 * Whether a sample's latency was measured.  Since Linux 6.3
 * perf_prepare_sample() runs before the program and flags every field the
 * event asked for: one the driver did not fill is zeroed (weight 0), so the
 * flag alone cannot tell.  A measured load latency is never 0: Intel's PEBS
 * reports loads at or above the ldlat threshold (at least 3 cycles), and AMD
 * IBS gives a latency only for loads that missed the data cache (an L1 hit
 * has none, and the kernel leaves the weight unset).  So 0 means "not
 * measured", on every path (BPF, offline, tests) alike.
 */
LDLAT_INLINE bool ldlat_lat_measured(const struct ldlat_sample *s)
{
	return (s->flags & LDLAT_HAS_LAT) && s->lat;
}

/* The range a data address falls in, or -1: binary search of the sorted spans. */
LDLAT_INLINE int ldlat_range_of(const volatile struct ldlat_config *c, __u64 addr)
{
	__u32 lo = 0, hi = c->nspans, i, mid;

	for (i = 0; i < LDLAT_SPAN_STEPS; i++) {
		if (lo >= hi)
			break;
		mid = (lo + hi) / 2;
		if (c->span_lo[mid & (LDLAT_MAX_SPANS - 1)] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* lo spans start at or below addr; the last of them is the only candidate */
	if (lo == 0)
		return -1;
	i = (lo - 1) & (LDLAT_MAX_SPANS - 1);
	return addr < c->span_hi[i] ? (int)c->span_range[i] : -1;
}

LDLAT_INLINE bool ldlat_tgid_wanted(const volatile struct ldlat_config *c, __u32 tgid)
{
	__u32 i;

	for (i = 0; i < LDLAT_MAX_TGIDS; i++) {
		if (i >= c->ntgids)
			break;
		if (c->tgid[i] == tgid)
			return true;
	}
	return false;
}

/*
 * The whole per-sample decision.  On LDLAT_KEPT, *range and *cls say which
 * histogram the sample belongs to.
 */
LDLAT_INLINE enum ldlat_verdict ldlat_judge(const volatile struct ldlat_config *c,
					    const struct ldlat_sample *s, __u32 *range, __u32 *cls)
{
	int r = 0;
	__u32 k = LDLAT_CLASS_UNKNOWN, need = c->need & ~LDLAT_HAS_LAT;

	if ((s->flags & need) != need)
		return LDLAT_DROP_MISSING;
	/*
	 * A sample without a measured latency is kept (and counted apart from
	 * the latency buckets) unless a latency window must judge it: it has
	 * nothing to be judged by, and is dropped as missing that field.  The
	 * window is asked last: a measured sample goes by without reading it.
	 */
	if ((c->need & LDLAT_HAS_LAT) && !ldlat_lat_measured(s) &&
	    (c->min_lat || c->max_lat != ~0ull))
		return LDLAT_DROP_MISSING;
	if (c->ntgids && !ldlat_tgid_wanted(c, s->tgid))
		return LDLAT_DROP_TGID;
	if (c->op_mask && (c->need & LDLAT_HAS_DSRC) && !(ldlat_ds_op(s->data_src) & c->op_mask))
		return LDLAT_DROP_OP;
	if (c->nspans) {
		if (!s->addr)
			return LDLAT_DROP_NO_ADDR;
		r = ldlat_range_of(c, s->addr);
		if (r < 0)
			return LDLAT_DROP_NO_RANGE;
	}
	/*
	 * Without a window (min 0, max all ones) neither test can drop; with
	 * one, a sample that reaches them was measured (or its latency is not
	 * asked for)
	 */
	if (s->lat < c->min_lat)
		return LDLAT_DROP_BELOW_MIN;
	if (s->lat > c->max_lat)
		return LDLAT_DROP_ABOVE_MAX;
	if (c->need & LDLAT_HAS_DSRC)
		k = ldlat_classify(s->data_src);
	if (!(c->class_mask & (1u << k)))
		return LDLAT_DROP_CLASS;
	*range = (__u32)r;
	*cls = k;
	return LDLAT_KEPT;
}

LDLAT_INLINE __u32 ldlat_hist_index(__u32 range, __u32 cls)
{
	return range * LDLAT_NCLASS + cls;
}

/*
 * A kept sample into its histogram (the BPF program's per-CPU copy, or a
 * native one): its period when sum_period (periods vary); its latency into
 * a bucket, the sum, min and max when it was measured, else the count of
 * those without.
 */
LDLAT_INLINE void ldlat_hist_account(struct ldlat_hist *h, const struct ldlat_sample *s,
				     __u32 linear_step, __u32 linear_shift, bool sum_period)
{
	__u64 b;

	if (sum_period)
		h->period += s->period;
	if (!ldlat_lat_measured(s)) {
		h->unmeasured++;
		return;
	}
	b = ldlat_bucket_shift(s->lat, linear_step, linear_shift);
#ifdef __bpf__
	/* the compiler knows b is in range and would drop the check the verifier needs */
	asm volatile("" : "+r"(b));
#endif
	if (b >= LDLAT_NBUCKETS)
		return;
	h->slot[b]++;
	h->sum += s->lat;
	if (~s->lat > h->nmin)
		h->nmin = ~s->lat;
	if (s->lat > h->max)
		h->max = s->lat;
}

/*
 * ldlat-top's tables: the kept samples by (process, instruction pointer) and
 * by (process, data block: a cache line or a page).  Per-CPU hash maps,
 * preallocated, one entry per key; a sample whose key is new when the table
 * is full is counted in struct ldlat_top_counters, never dropped silently.
 */
#define LDLAT_TOP_IP	(1u << 0)
#define LDLAT_TOP_DATA	(1u << 1)
#define LDLAT_TOP_STACK (1u << 2)
/*
 * With LDLAT_TOP_DATA: every kept sample's data key goes through the spill
 * ring, none into the kernel's data table (one entry then).  For a source
 * whose data keys do not come back within a drain (page faults: a page
 * faults once while it is mapped): the door would spill each sample
 * anyway, after a look at the key's hint word, a cache miss a sample.
 */
#define LDLAT_TOP_DATA_RING  (1u << 3)
#define LDLAT_TOP_TABLES     3 /* index 0: the IP table, 1: the data table, 2: the call paths */
#define LDLAT_TOP_DATA_TABLE 1 /* the data table's index */
#define LDLAT_TOP_DOOR_TABLE 1 /* the table with a door (ldlat_top_door) */
/*
 * Tables with a front (top_front): the IP table.  The data table has none:
 * on a first touch of many pages each sample's slot is another line, a
 * cache miss (25 ns a sample more, measured), and its keys are many.
 */
#define LDLAT_TOP_FRONTS     1
#define LDLAT_TOP_FRONT_BITS 6 /* log2 of a front's slots at most, per CPU and parity */

/*
 * Call paths (--call-graph): the kept samples by (process, call path), a
 * path being the sample's user and kernel stacks as bpf_get_stack takes
 * them (struct ldlat_top_stack).  The program stores each path once per
 * drain generation in the 'top_stacks' hash map, keyed by a 64-bit hash of
 * it with the generation's parity in bit 0 (ldlat_top_stack_key), and counts
 * the sample in the call-path table under that key.  A hash map chains its
 * buckets: two paths never take each other's place, as they do in a
 * BPF_MAP_TYPE_STACK_TRACE map (a hash table without chains, which lost
 * paths by the percent on a compile: docs/callpaths.md).  User space names
 * a generation's paths when it drains it, then deletes them, so the map
 * holds the paths of about one drain period.  A path the map cannot take
 * is counted under LDLAT_TOP_STACK_FULL or _FAILED: the report counts and
 * names it lost.
 */
#define LDLAT_STACK_DEPTH      127 /* PERF_MAX_STACK_DEPTH: IPs kept per stack */
#define LDLAT_STACKS_PER_ENTRY 2   /* paths the stack map holds per table entry (--entries) */
#define LDLAT_STACKS_MIN       1024
#define LDLAT_STACKS_MAX       (1u << 19)

/* One call path: the value of the 'top_stacks' map. */
struct ldlat_top_stack {
	__s16 err[2]; /* [0] the user stack, [1] the kernel stack: bpf_get_stack's error, or 0 */
	/*
	 * [0]: the user stack walked from unwind tables (--call-graph dwarf):
	 * why the walk ended (enum ldlat_unwind_stop, bpf/unwind.h) plus one;
	 * 0: bpf_get_stack took it.  [1]: 0.
	 */
	__u16 stop[2];
	__u32 nr[2]; /* their frames (0: none, as a user-mode fault has no kernel stack) */
	__u64 ips[2][LDLAT_STACK_DEPTH]; /* innermost first */
};

/*
 * The key of a sample whose path the map could not take: full (-E2BIG), or
 * refused otherwise (a bucket busy in NMI).  A stored path's key has bit 1
 * set, so it is never one of these.
 */
#define LDLAT_TOP_STACK_FULL   0ull
#define LDLAT_TOP_STACK_FAILED 4ull

#ifndef __bpf__
_Static_assert(sizeof(struct ldlat_top_stack) == 2048, "a path is 2 KiB");

/* The stack map's paths for tables of 'entries' keys. */
static inline __u32 ldlat_top_stacks_for(__u32 entries)
{
	__u64 n = (__u64)entries * LDLAT_STACKS_PER_ENTRY;

	return n < LDLAT_STACKS_MIN   ? LDLAT_STACKS_MIN
	       : n > LDLAT_STACKS_MAX ? LDLAT_STACKS_MAX
				      : n;
}
#endif

/* One word into the hash (a multiply-xorshift round: each bit moves the high half). */
LDLAT_INLINE __u64 ldlat_top_stack_mix(__u64 h, __u64 w)
{
	h ^= w;
	h *= 0xff51afd7ed558ccdull;
	return h ^ (h >> 33);
}

LDLAT_INLINE __u64 ldlat_top_stack_ips(__u64 h, const __u64 *ips, __u32 nr)
{
	__u32 i;

	for (i = 0; i < LDLAT_STACK_DEPTH; i++) {
		if (i >= nr)
			break;
		h = ldlat_top_stack_mix(h, ips[i]);
	}
	return h;
}

/*
 * The key of path st in generation gen: a hash of its frames, counts,
 * errors and how its walk ended, bit 1 set, the generation's parity in bit 0 (what user space
 * deletes by).  Two paths share a key with a chance of about n^2 / 2^63 for
 * n paths in the map: 1 in 10^11 for 10^4.
 */
LDLAT_INLINE __u64 ldlat_top_stack_key(const struct ldlat_top_stack *st, __u32 gen)
{
	__u64 h = ldlat_top_stack_mix(0, ((__u64)st->nr[0] << 32) | st->nr[1]);

	h = ldlat_top_stack_mix(h, ((__u64)(__u16)st->err[0] << 48) |
					   ((__u64)(__u16)st->err[1] << 32) |
					   ((__u32)st->stop[0] << 16) | st->stop[1]);
	h = ldlat_top_stack_ips(h, st->ips[0], st->nr[0]);
	h = ldlat_top_stack_ips(h, st->ips[1], st->nr[1]);
	return (h & ~3ull) | 2 | (gen & 1);
}

struct ldlat_top_key {
	__u32 tgid;
	__u32 gen;  /* drain generation: user space moves on to the next to empty the tables */
	__u64 addr; /* the instruction pointer, or the data address rounded down to its block */
};

struct ldlat_top_val {
	__u64 count;
	__u64 lat_sum;
	__u64 lat_max;
	__u32 cls[LDLAT_NCLASS]; /* samples per data-source class */
	__u32 pad;
};

/*
 * A slot of a table's front (the 'top_front' per-CPU array): a key the
 * slot took in a generation, and its samples there.  A CPU counts a key in
 * its slot without the table's hash look-up; a key not in the table takes
 * its slot when the slot is free this generation, in place of an insert
 * into the table.  The drain adds the slots of its generation to the
 * table's entries.  v is the count alone where ldlat_top_slim (a slot of
 * 24 bytes, user space sets the size).
 */
struct ldlat_top_front {
	__u32 tgid;
	__u32 gen1; /* the generation that took the slot, plus one; any other: the slot is free */
	__u64 addr;
	struct ldlat_top_val v;
};

/*
 * Counters of one drain generation: the 'top_counters' per-CPU array has two,
 * at index gen & 1, so that a drain reads exactly its generation's (the other
 * is being written) and then zeroes it for generation gen + 2.  ldlat-top's
 * program counts every sample's verdict and period here (c), not in
 * 'counters': a report's counters and its tables are of the same samples.
 */
struct ldlat_top_counters {
	struct ldlat_counters c; /* this generation's samples; c.kept: what the tables sum to */
	__u64 full[LDLAT_TOP_TABLES]; /* not attributed: the table and the spill ring were full */
	__u64 failed
		[LDLAT_TOP_TABLES]; /* not attributed: the update failed otherwise (bucket busy in NMI) */
	__u64 spilled
		[LDLAT_TOP_TABLES]; /* attributed through the spill ring (the table was full) */
};

/*
 * Which tables this CPU found full, per table: the generation then plus one
 * (0: none).  A new key of a table found full in the running generation
 * goes to the spill ring without the insert that would fail: an insert into
 * a full preallocated hash map takes its bucket lock and walks every CPU's
 * free list before it fails.  It is a hint, not a count: the sample is
 * accounted the same either way.  The drain clears it once it has emptied
 * the tables of the generation before (whose entries may be what filled
 * them), so the running generation tries its inserts again.
 */
struct ldlat_top_full {
	__u32 gen[LDLAT_TOP_TABLES];
	__u32 pad;
};

/*
 * A sample whose key finds its table full goes to the spill ring (a BPF ring
 * buffer shared by all CPUs) as one record, and user space adds it to the
 * same table: a full table costs a record, not the sample.  The records
 * gather per CPU in a batch of the generation (struct ldlat_top_batch) and
 * go to the ring LDLAT_TOP_BATCH at a time, as one ring record: one
 * reservation of the ring's lock per batch, not per sample.
 */
struct ldlat_top_spill {
	__u32 tgid;
	__u16 gen; /* the generation's low bits: it is told from the next one only */
	__u8 table;
	__u8 cls;
	__u64 addr; /* as the table's key */
	__u64 lat;
};

#define LDLAT_TOP_SPILL_PER_ENTRY 1024	     /* bytes of spill ring per table entry (--entries) */
#define LDLAT_TOP_SPILL_MIN	  (1u << 20) /* 1351 batches: 43232 records, whatever --entries */
#define LDLAT_TOP_SPILL_MAX	  (256u << 20)
#define LDLAT_TOP_BATCH		  32 /* records a CPU gathers before it sends them */

/*
 * One CPU's records of one generation not sent yet: the 'top_batch' per-CPU
 * array has two, at gen & 1.  Full, its records go to the ring as one
 * record of LDLAT_TOP_BATCH; a drain takes what a quiescent generation's
 * batches still hold and empties them for generation gen + 2.  A batch the
 * ring has no room for is counted, per table, in full.
 */
struct ldlat_top_batch {
	__u32 n;			/* records held */
	__u32 tables[LDLAT_TOP_TABLES]; /* of them, per table */
	struct ldlat_top_spill r[LDLAT_TOP_BATCH];
};

/* A full batch in the ring: its records and the ring's 8-byte header. */
#define LDLAT_TOP_BATCH_RECORD (LDLAT_TOP_BATCH * 24 + 8)

#ifndef __bpf__
/* The spill ring's bytes for tables of 'entries' keys: a power of two, 1 MiB to 256 MiB. */
static inline __u32 ldlat_top_spill_bytes(__u32 entries)
{
	__u64 want = (__u64)entries * LDLAT_TOP_SPILL_PER_ENTRY;
	__u32 b = LDLAT_TOP_SPILL_MIN;

	while (b < want && b < LDLAT_TOP_SPILL_MAX)
		b <<= 1;
	return b;
}
#endif

#ifndef __bpf__
_Static_assert(sizeof(struct ldlat_top_val) % 8 == 0 && sizeof(struct ldlat_top_key) == 16,
	       "per-CPU values are 8-byte multiples; the key has no hole");
_Static_assert(sizeof(struct ldlat_top_spill) == 24, "a spill record has no hole");
_Static_assert(sizeof(struct ldlat_top_batch) % 8 == 0 &&
		       sizeof(((struct ldlat_top_batch *)0)->r) + 8 == LDLAT_TOP_BATCH_RECORD,
	       "a batch is whole records; its ring record is 8-byte aligned");
_Static_assert(sizeof(struct ldlat_top_full) == 16, "per-CPU values are 8-byte multiples");
_Static_assert(sizeof(struct ldlat_top_front) == 16 + sizeof(struct ldlat_top_val),
	       "a front slot is its key, then a table's value");
#endif

/*
 * Whether ldlat-top's kernel tables keep a sample count alone per key (a
 * value of 8 bytes a CPU, not struct ldlat_top_val's 136): a source without
 * latency or data source (page faults).  The programs read neither field
 * then (LDLAT_READ_DATA), so every sample they keep has latency 0 and class
 * unknown, which is what the drain gives the count (the test entry's
 * samples are the caller's to make so).
 */
LDLAT_INLINE bool ldlat_top_slim(const volatile struct ldlat_config *c)
{
	return !(c->need & (LDLAT_HAS_LAT | LDLAT_HAS_DSRC));
}

/* Adds one kept sample to a table entry (the BPF program and native tables alike). */
LDLAT_INLINE void ldlat_top_account(struct ldlat_top_val *v, __u64 lat, __u32 cls)
{
	v->count++;
	v->lat_sum += lat;
	if (lat > v->lat_max)
		v->lat_max = lat;
	if (cls < LDLAT_NCLASS)
		v->cls[cls]++;
}

/*
 * The hash of a key in ldlat-top's hint of the keys a table holds
 * (top_seen): its high bits pick the word, its low ten the two bits.
 */
LDLAT_INLINE __u64 ldlat_top_seen_hash(__u32 tgid, __u64 addr)
{
	__u64 h = addr ^ ((__u64)tgid << 40) ^ tgid;

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 33);
}

/*
 * A key's slot in its table's front of 1 << bits slots: the high bits of a
 * multiplicative hash (the instructions of a loop, or the lines of an
 * object, spread over the slots).
 */
LDLAT_INLINE __u32 ldlat_top_front_slot(__u32 tgid, __u64 addr, __u32 bits)
{
	__u64 h = (addr ^ ((__u64)tgid << 32 | tgid)) * 0x9e3779b97f4a7c15ull;

	return bits && bits < 32 ? (__u32)(h >> (64 - bits)) : 0;
}

/* Whether a hint word of generation gen may hold the key of the two bits. */
LDLAT_INLINE bool ldlat_top_seen_holds(__u64 word, __u32 gen, __u64 bits)
{
	return (__u32)(word >> 32) == gen && (word & bits) == bits;
}

/*
 * A key's word in one region of a hint of 1 << seen_bits words (its high
 * bits) and the two bits in it it sets (its low ten); h: its
 * ldlat_top_seen_hash.
 */
LDLAT_INLINE __u32 ldlat_top_seen_word(__u64 h, __u32 seen_bits, __u64 *bits)
{
	*bits = 1ull << (h & 31) | 1ull << ((h >> 5) & 31);
	return seen_bits ? (__u32)(h >> (64 - seen_bits)) : 0;
}

/* The word of a key of hash h in the data table's door in generation gen (never 0). */
LDLAT_INLINE __u64 ldlat_top_door_tag(__u64 h, __u32 gen)
{
	return (h ^ ((__u64)gen * 0x9e3779b97f4a7c15ull)) | 1;
}

/* A hint word with the key of the two bits added, in generation gen. */
LDLAT_INLINE __u64 ldlat_top_seen_add(__u64 word, __u32 gen, __u64 bits)
{
	if ((__u32)(word >> 32) != gen)
		word = (__u64)gen << 32;
	return word | bits;
}

/* log2 of a table's hint words: one per entry, a power of two, from 2 to 2^20. */
static inline __u32 ldlat_top_seen_bits(__u32 entries)
{
	__u32 b = 1;

	while (b < 20 && (1u << b) < entries)
		b++;
	return b;
}

/*
 * log2 of the front's slots (per CPU and generation parity) for tables of
 * 'entries' keys: one slot per 64 entries, at most 1 << LDLAT_TOP_FRONT_BITS;
 * 0 (no front) under 128 entries.  A front holds keys besides the table's,
 * so a small table (--entries) keeps a small one.
 */
static inline __u32 ldlat_top_front_bits(__u32 entries)
{
	__u32 b = 0;

	while (b < LDLAT_TOP_FRONT_BITS && (128u << b) <= entries)
		b++;
	return b;
}

/* The block a data address belongs to: the address rounded down to 1 << shift. */
LDLAT_INLINE __u64 ldlat_top_block(__u64 addr, __u32 shift)
{
	return shift < 64 ? (addr >> shift) << shift : 0;
}

#endif /* LDLAT_H */
