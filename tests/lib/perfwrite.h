/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * perfwrite.h - writing perf.data files for tests, the fuzzer's seeds and the
 * benchmark: a header, the events' attributes and IDs, records, and the
 * feature sections perf itself needs to read the file back (event names,
 * hostname, OS release, architecture, CPU count), in perf's file format or its
 * pipe format.  Written from the format's description (tools/perf's
 * perf.data-file-format.txt and the kernel's perf_output_sample()), not from
 * the reader in kernel/abi/perfdata.c, so that a test compares two readings:
 * perf script's and ours.
 */
#ifndef LDLAT_PERFWRITE_H
#define LDLAT_PERFWRITE_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include <linux/perf_event.h>

#define PW_MAX_IDS 8

struct pw_event {
	struct perf_event_attr attr;
	const char *name;
	__u64 ids[PW_MAX_IDS];
	int nids;
};

/* Every field a sample can carry; pw_sample() writes those its event's sample_type asks for. */
struct pw_sample {
	__u64 ip;
	__u32 pid, tid;
	__u64 time, addr, id, stream_id;
	__u32 cpu;
	__u64 period;
	__u64 read_value, time_enabled, time_running, read_lost; /* not grouped */
	int group_nr;						 /* PERF_FORMAT_GROUP members */
	__u64 group_value[4], group_lost[4]; /* their IDs are the events' first */
	__u64 callchain[16];
	int callchain_nr;
	unsigned char raw[40];
	__u32 raw_size; /* 4 + raw_size must be a multiple of 8 */
	int branch_nr;
	__u64 hw_idx;
	bool branch_no_hw_idx; /* the kernel's empty stack: nr only */
	struct perf_branch_entry branch[4];
	__u64 branch_cntr[4];
	__u64 regs_user_abi;
	__u64 regs_user[8]; /* the mask's registers in order; at most 8 */
	__u64 stack_size;
	unsigned char stack[64];
	__u64 stack_dyn_size;
	__u64 weight; /* the whole union */
	__u64 data_src, transaction;
	__u64 regs_intr_abi;
	__u64 regs_intr[8];
	__u64 phys_addr, cgroup, data_page_size, code_page_size;
	__u64 aux_size;
	unsigned char aux[32];
};

#define PW_MAX_BUILD_IDS 8

/* An entry of the HEADER_BUILD_ID section. */
struct pw_build_id {
	__u16 cpumode; /* PERF_RECORD_MISC_KERNEL or _USER */
	unsigned char id[20];
	int len;
	char file[256];
};

struct pw {
	FILE *f;
	const struct pw_event *events;
	int nevents;
	bool pipe;
	bool no_features;		  /* leave out the feature sections */
	const char *hostname, *osrelease; /* the features (NULL: "ldlat-test", "6.1.0-test") */
	struct pw_build_id build_ids[PW_MAX_BUILD_IDS];
	int nbuild_ids;
	/* HEADER_NUMA_TOPOLOGY (perf c2c needs it): the CPU list of each node ("0-1"); none when 0 */
	const char *node_cpus[4];
	int nnodes;
	__u64 attrs_offset, data_offset;
	__u64 nsamples;
	unsigned char buf[4096];
};

/* Opens path and writes what comes before the data (pipe: the attr records). Returns 0 or -errno. */
int pw_open(struct pw *w, const char *path, const struct pw_event *events, int nevents, bool pipe);

/* A record as is: header (type, misc, size computed) and body. */
void pw_record(struct pw *w, __u32 type, __u16 misc, const void *body, size_t len);

/* A sample of event ev. */
void pw_sample(struct pw *w, int ev, const struct pw_sample *s);

/* COMM, MMAP2, FORK, EXIT records of the first event, with its sample_id trailer. */
void pw_comm(struct pw *w, __u32 pid, __u32 tid, const char *comm, __u64 time);
void pw_mmap2(struct pw *w, __u32 pid, __u64 start, __u64 len, __u64 pgoff, const char *file,
	      __u64 time);
void pw_fork(struct pw *w, __u32 pid, __u32 ppid, __u64 time);

/*
 * A data mapping (PERF_RECORD_MISC_MMAP_DATA, read and write): MAP_SHARED or
 * MAP_PRIVATE, of a file (its device and inode) or anonymous ("//anon", 0, 0, 0).
 */
void pw_mmap2_data(struct pw *w, __u32 pid, __u64 start, __u64 len, __u64 pgoff, __u32 maj,
		   __u32 min, __u64 ino, bool shared, const char *file, __u64 time);

/* An MMAP2 that carries the file's build ID (perf record --buildid-mmap). */
void pw_mmap2_build_id(struct pw *w, __u32 pid, __u64 start, __u64 len, __u64 pgoff,
		       const unsigned char *id, int idlen, const char *file, __u64 time);

/* The kernel's MMAP as perf record writes it: [kernel.kallsyms]_text, pgoff the address of _text. */
void pw_kernel_mmap(struct pw *w, __u64 start, __u64 len, __u64 text, __u64 time);

/*
 * A build ID for the HEADER_BUILD_ID section (pipe format: a record), written
 * by pw_close; at most PW_MAX_BUILD_IDS.
 */
void pw_build_id(struct pw *w, __u16 cpumode, const unsigned char *id, int len, const char *file);
void pw_exit(struct pw *w, __u32 pid, __u32 ppid, __u64 time);

/* Writes the features and the final header, closes. Returns 0 or -errno. */
int pw_close(struct pw *w);

/* A load-latency event as perf mem record opens it on Intel (WEIGHT_STRUCT, DATA_SRC). */
void pw_mem_loads_event(struct pw_event *ev, __u64 first_id);

/*
 * Sample layouts that together cover every sample_type field and the
 * variants of its variable parts.  Layouts that read a group (PW_GROUP_READ)
 * need a second event, the group's other member (pw_layout_event with
 * PW_GROUP_MEMBER).
 */
enum pw_layout {
	PW_EVERY_FIELD,	    /* every bit but WEIGHT; READ with every read_format flag; branch
				stack with hw_idx; registers; a user stack; RAW; AUX */
	PW_BRANCH_COUNTERS, /* the same with a counter per branch entry (Linux 6.8) */
	PW_GROUP_READ,	    /* READ of a group; branch stack without hw_idx; register ABI NONE;
				empty user stack; WEIGHT; ID without IDENTIFIER */
	PW_EMPTY_BRANCH,    /* hw_idx asked for, empty stacks written without it (a kernel quirk) */
	PW_ADDR_ONLY,	    /* a page-fault event with ADDR only */
	PW_NLAYOUTS,
	PW_GROUP_MEMBER = PW_NLAYOUTS,
};

/* Layouts perf 6.1's perf script reads as the kernel writes them (not counters, not the quirk). */
#define PW_PERF_READS(layout) ((layout) != PW_BRANCH_COUNTERS && (layout) != PW_EMPTY_BRANCH)

/* The event of a layout.  Returns false for an unknown layout. */
bool pw_layout_event(struct pw_event *ev, int layout, __u64 first_id);

/* Sample i of a layout: every field set to a value derived from i. */
void pw_layout_sample(struct pw_sample *s, int layout, __u64 i);

/*
 * A file of n samples of a layout, from process 100 (COMM at time 500, its
 * MMAP2 of /usr/bin/layout-test at 600), with a FORK (700) and an EXIT (900)
 * of process 101 around them.  Returns 0 or -errno.
 */
int pw_write_layout(const char *path, int layout, __u64 n, bool pipe);

/*
 * Load and store samples as perf c2c record writes them on Intel
 * (cpu/mem-loads,ldlat=30/P and cpu/mem-stores/P, two NUMA nodes of CPUs 0-1
 * and 2-3): process 100's threads 100 and 101 false-share PW_C2C_FS (each
 * writes its own word and reads the other's: local and remote HITM) and
 * true-share PW_C2C_TS (100 writes, 101 reads); 100 alone touches PW_C2C_SOLO
 * (L1 hits); process 200 reads its own line at PW_C2C_FS's address; 100 writes
 * and 300 reads one line of a MAP_SHARED file that each maps at its own
 * address and file offset (PW_C2C_SHM_A from the file's second page,
 * PW_C2C_SHM_B from its start); then nrandom samples over 64 lines of process 100
 * from Intel's generic data sources.  The same file for the same nrandom.
 * Returns 0 or -errno.
 */
int pw_write_c2c(const char *path, int nrandom);

/* pw_write_c2c's: Intel's store data sources (arch/x86/events/intel/ds.c, precise_store_data) */
#define PW_C2C_ST_BASE	 (P(OP, STORE) | P(SNOOP, NA) | P(LVL, L1) | P(TLB, L2) | P(TLB, HIT))
#define PW_C2C_ST_L1HIT	 (PW_C2C_ST_BASE | P(LVL, HIT))
#define PW_C2C_ST_L1MISS (PW_C2C_ST_BASE | P(LVL, MISS))

#define PW_C2C_ANON  0x7f0000000000ull
#define PW_C2C_SHM_A 0x7e0000000000ull /* where process 100 maps the shared file */
#define PW_C2C_SHM_B 0x7d0000000000ull /* and process 300 */
#define PW_C2C_CODE  0x400000ull
#define PW_C2C_FS    (PW_C2C_ANON + 0x1000) /* false sharing: offsets 0 and 8, threads 100 and 101 */
#define PW_C2C_TS    (PW_C2C_ANON + 0x2040) /* true sharing: 100 writes offset 0x10, 101 reads it */
#define PW_C2C_SOLO  (PW_C2C_ANON + 0x3000) /* thread 100 alone, L1 hits */
#define PW_C2C_RAND  (PW_C2C_ANON + 0x10000)

#endif
