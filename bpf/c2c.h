/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * c2c.h - ldlat-c2c's per-sample logic: what a load or store sample adds to
 * the counts of its cache line (perf c2c's per-line statistics).  Loads are
 * counted by ldlat_classify()'s class (HITM, local and remote, and peer-cache
 * hits are classes); stores by their L1 outcome, as perf c2c reads it.  Used
 * by the native tables of ldlat-c2c (user/c2c/) and meant for a BPF program
 * to share, as ldlat.h is.
 */
#ifndef LDLAT_C2C_H
#define LDLAT_C2C_H

#include "bpf/ldlat.h"

#define LDLAT_C2C_LINE_SHIFT 6 /* 64-byte lines unless the machine says otherwise */

enum ldlat_c2c_store {
	LDLAT_C2C_ST_L1HIT,  /* the store hit L1 */
	LDLAT_C2C_ST_L1MISS, /* it missed L1 */
	LDLAT_C2C_ST_NA,     /* the hardware did not say */
	LDLAT_C2C_NST,
};

/* What a sample adds to a line, an offset or a code address of a line. */
struct ldlat_c2c_counts {
	__u64 records; /* load and store samples */
	__u64 loads;
	__u64 stores;
	__u64 load_cls[LDLAT_NCLASS]; /* loads by data-source class */
	__u64 store[LDLAT_C2C_NST];   /* stores by L1 outcome */
	__u64 lat_load;		      /* latency sums: every measured load, */
	__u64 lat_lcl_hitm;	      /* local HITM loads, */
	__u64 lat_rmt_hitm;	      /* remote HITM loads */
	__u64 lat_n;		      /* loads with a measured latency */
};

/*
 * A store's L1 outcome: the legacy mem_lvl bits as perf c2c reads them
 * (HIT with L1: hit; MISS with L1: miss; NA: not said), else mem_lvl_num L1
 * (a store-latency data source): a hit.  Anything else: not said.
 */
LDLAT_INLINE enum ldlat_c2c_store ldlat_c2c_store_kind(__u64 ds)
{
	__u32 lvl = LDLAT_DS(ds, LVL, 14), num = LDLAT_DS(ds, LVLNUM, 4);

	if ((lvl & PERF_MEM_LVL_HIT) && (lvl & PERF_MEM_LVL_L1))
		return LDLAT_C2C_ST_L1HIT;
	if ((lvl & PERF_MEM_LVL_MISS) && (lvl & PERF_MEM_LVL_L1))
		return LDLAT_C2C_ST_L1MISS;
	if (!(lvl & ~PERF_MEM_LVL_NA) && num == PERF_MEM_LVLNUM_L1)
		return LDLAT_C2C_ST_L1HIT;
	return LDLAT_C2C_ST_NA;
}

/* Whether a data source is a load (1), a store (2), or neither (0): perf c2c's order. */
LDLAT_INLINE int ldlat_c2c_op(__u64 ds)
{
	__u32 op = ldlat_ds_op(ds);

	if (op & PERF_MEM_OP_LOAD)
		return 1;
	if (op & PERF_MEM_OP_STORE)
		return 2;
	return 0;
}

/* A load or store sample into counts; lat 0: not measured. */
LDLAT_INLINE void ldlat_c2c_account(struct ldlat_c2c_counts *c, __u64 ds, __u64 lat)
{
	int op = ldlat_c2c_op(ds);
	__u32 cls;

	c->records++;
	if (op == 2) {
		c->stores++;
		c->store[ldlat_c2c_store_kind(ds) % LDLAT_C2C_NST]++;
		return;
	}
	if (op != 1)
		return;
	c->loads++;
	cls = ldlat_classify(ds);
#ifdef __bpf__
	/* the compiler knows cls is in range and would drop the check the verifier needs */
	asm volatile("" : "+r"(cls));
#endif
	if (cls < LDLAT_NCLASS)
		c->load_cls[cls]++;
	if (!lat)
		return;
	c->lat_load += lat;
	c->lat_n++;
	if (cls == LDLAT_CLASS_LOCAL_HITM)
		c->lat_lcl_hitm += lat;
	else if (cls == LDLAT_CLASS_REMOTE_HITM)
		c->lat_rmt_hitm += lat;
}

LDLAT_INLINE __u64 ldlat_c2c_hitm(const struct ldlat_c2c_counts *c)
{
	return c->load_cls[LDLAT_CLASS_LOCAL_HITM] + c->load_cls[LDLAT_CLASS_REMOTE_HITM];
}

/*
 * The kernel's tables (bpf/c2c.bpf.c): per-CPU hash maps, preallocated, one
 * entry per key: the lines by (process, line address), their entries by
 * (process, line, offset, code address), and their threads by (process,
 * line, thread).  The CPUs that touched a line are those whose per-CPU
 * value of it counts samples.  A sample whose key is new when its table is
 * full is counted in struct ldlat_c2c_counters, never dropped silently.
 */
#define LDLAT_C2C_LINES	 0
#define LDLAT_C2C_ENTS	 1
#define LDLAT_C2C_TIDS	 2
#define LDLAT_C2C_TABLES 3

struct ldlat_c2c_line_key {
	__u32 tgid;
	__u32 pad;
	__u64 line; /* the data address rounded down to its line */
};

struct ldlat_c2c_ent_key {
	__u32 tgid;
	__u32 offset; /* in the line */
	__u64 line;
	__u64 ip;
};

struct ldlat_c2c_tid_key {
	__u32 tgid;
	__u32 tid;
	__u64 line;
};

struct ldlat_c2c_counters {
	__u64 seen;			/* samples the program ran on */
	__u64 kept;			/* kept by the filters: what the lines sum to */
	__u64 dropped;			/* dropped by the filters (-p, -a...) */
	__u64 no_addr;			/* kept, but without a data address: in no line */
	__u64 full[LDLAT_C2C_TABLES];	/* not counted there: the table was full */
	__u64 failed[LDLAT_C2C_TABLES]; /* not counted there: the update failed otherwise */
};

/*
 * The test entry's ctx (BPF_PROG_TEST_RUN): struct ldlat_sample's six u64
 * words, then the thread ID.  The CPU is the one the test runs it on.
 */
struct ldlat_c2c_test_ctx {
	struct ldlat_sample s;
	__u64 tid;
};

#ifndef __bpf__
_Static_assert(sizeof(struct ldlat_c2c_line_key) == 16 && sizeof(struct ldlat_c2c_ent_key) == 24 &&
		       sizeof(struct ldlat_c2c_tid_key) == 16,
	       "the keys have no hole");
_Static_assert(sizeof(struct ldlat_c2c_counts) % 8 == 0, "per-CPU values are 8-byte multiples");
#endif

/*
 * The data source of a sample whose event gives none (page faults): a load
 * of unknown source, so that the lines show the addresses touched.
 */
LDLAT_INLINE __u64 ldlat_c2c_ds(const struct ldlat_sample *s)
{
	if (s->flags & LDLAT_HAS_DSRC)
		return s->data_src;
	return (__u64)PERF_MEM_OP_LOAD << PERF_MEM_OP_SHIFT;
}

#endif /* LDLAT_C2C_H */
