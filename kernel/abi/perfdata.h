/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * perfdata.h - reading perf.data, the file perf record writes: the header,
 * the events (attributes, IDs, names from HEADER_EVENT_DESC), and the
 * records of the data section, each sample parsed by its event's
 * sample_type.
 *
 * The file is memory-mapped and read in place: a record, a sample and the
 * strings and arrays in them point into the mapping (valid until
 * perf_file__close), and nothing is allocated per record.  Every length read
 * from the file is checked against what holds it before it is used: a bad
 * file gives an error or a record that is skipped, never a read outside the
 * mapping.
 *
 * Both layouts perf writes are read: the seekable file (perf record -o FILE)
 * and the pipe format (perf record -o -, saved to a file), whose events come
 * in PERF_RECORD_HEADER_ATTR records.  Little-endian files only: a file from
 * a big-endian machine is recognised and refused.
 *
 * Quirks of the format the parser follows (kernel/events/core.c,
 * perf_output_sample, and tools/perf):
 * - READ: the block's layout is the event's read_format; with
 *   PERF_FORMAT_GROUP it holds every member (nr, the times once, then value,
 *   id, lost per member), and perf script prints such a sample once per
 *   member.  PERF_FORMAT_LOST (Linux 6.0) adds a word per value.
 * - BRANCH_STACK: hw_idx follows nr only when branch_sample_type has
 *   HW_INDEX, and the kernel writes nr alone (0, no hw_idx) when the PMU gave
 *   no stack; a counter per entry follows the entries when the event's group
 *   leader asks for PERF_SAMPLE_BRANCH_COUNTERS (Linux 6.8).
 * - REGS_USER/REGS_INTR: the registers follow only when abi is not NONE;
 *   STACK_USER: dyn_size follows only when size is not 0.
 * - RAW: u32 size then the bytes, padded by the kernel so u64s stay aligned.
 * - AUX: the PERF_SAMPLE_AUX field is a u64 size and the data; the
 *   PERF_RECORD_AUXTRACE record (and pipe mode's HEADER_TRACING_DATA) carry
 *   a payload after header.size that the walk skips.
 * - Events: one event needs no sample ID; several need one at the same
 *   position in every sample (IDENTIFIER, or ID after the same fields), as
 *   perf requires.  Non-sample records carry a sample_id trailer when the
 *   event has sample_id_all.
 */
#ifndef LDLAT_PERFDATA_H
#define LDLAT_PERFDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include <linux/perf_event.h>

#include "kernel/lib/err.h"

/* perf's own record types (tools/perf/util/event.h), after the kernel's. */
enum perf_user_record {
	PERF_RECORD_HEADER_ATTR = 64,
	PERF_RECORD_HEADER_EVENT_TYPE = 65,
	PERF_RECORD_HEADER_TRACING_DATA = 66, /* its payload follows the record */
	PERF_RECORD_HEADER_BUILD_ID = 67,
	PERF_RECORD_FINISHED_ROUND = 68,
	PERF_RECORD_ID_INDEX = 69,
	PERF_RECORD_AUXTRACE_INFO = 70,
	PERF_RECORD_AUXTRACE = 71, /* its payload follows the record */
	PERF_RECORD_AUXTRACE_ERROR = 72,
	PERF_RECORD_THREAD_MAP = 73,
	PERF_RECORD_CPU_MAP = 74,
	PERF_RECORD_STAT_CONFIG = 75,
	PERF_RECORD_STAT = 76,
	PERF_RECORD_STAT_ROUND = 77,
	PERF_RECORD_EVENT_UPDATE = 78,
	PERF_RECORD_TIME_CONV = 79,
	PERF_RECORD_HEADER_FEATURE = 80,
	PERF_RECORD_COMPRESSED = 81,
	PERF_RECORD_FINISHED_INIT = 82,
	PERF_RECORD_COMPRESSED2 = 83,
};

/* Feature sections (tools/perf/util/header.h): bits of the header's feature bitmap. */
enum perf_feature {
	PERF_FEAT_TRACING_DATA = 1,
	PERF_FEAT_BUILD_ID = 2,
	PERF_FEAT_HOSTNAME = 3,
	PERF_FEAT_OSRELEASE = 4,
	PERF_FEAT_VERSION = 5,
	PERF_FEAT_ARCH = 6,
	PERF_FEAT_NRCPUS = 7,
	PERF_FEAT_CPUDESC = 8,
	PERF_FEAT_CPUID = 9,
	PERF_FEAT_TOTAL_MEM = 10,
	PERF_FEAT_CMDLINE = 11,
	PERF_FEAT_EVENT_DESC = 12,
	PERF_FEAT_NUMA_TOPOLOGY = 14,
	PERF_FEAT_GROUP_DESC = 17,
	PERF_FEAT_AUXTRACE = 18,
	PERF_FEAT_DIR_FORMAT = 24,
	PERF_FEAT_COMPRESSED = 27,
	PERF_FEAT_BITS = 256,
};

/* One event of the file: its attribute, as perf record opened it. */
struct perf_file_event {
	struct perf_event_attr attr; /* zero-extended when the file's is shorter */
	char name[128];		     /* from HEADER_EVENT_DESC, else "type T config 0xC" */
	bool named;		     /* name came from the file */
	int group_leader; /* index of the leader from HEADER_GROUP_DESC; itself if none */
	/*
	 * Why samples of this event cannot be parsed (a sample_type, read_format
	 * or branch_sample_type bit this build does not know); empty when they can.
	 */
	char unparseable[160];
	/* layout, computed once */
	bool branch_hw_idx;   /* branch stacks carry hw_idx (PERF_SAMPLE_BRANCH_HW_INDEX) */
	bool branch_counters; /* and a counter per entry (the group's PERF_SAMPLE_BRANCH_COUNTERS) */
	__u32 nregs_user, nregs_intr; /* registers in a REGS_USER / REGS_INTR block */
	__u32 id_fields; /* u64 words of the sample_id trailer of other records (0: none) */
};

/* Where a record lies, as perf_file__next hands it out. */
struct perf_record {
	__u32 type; /* PERF_RECORD_* */
	__u16 misc;
	__u16 size;		   /* header included */
	__u64 offset;		   /* in the file, for messages */
	const unsigned char *data; /* the record, header included: size bytes */
};

/*
 * A position in the data section.  perf_file__next gives back to the kernel
 * the mapped file's pages the cursor has passed (from: the first it has not
 * given back), a window of PERF_FILE_WINDOW bytes at a time: a pass over a
 * file much larger than memory stays within a window of it, whichever tool
 * reads it.  Touched again, those pages are read again from the file.
 */
struct perf_cursor {
	__u64 pos, end;
	__u64 from;
};

#define PERF_FILE_WINDOW (8ull << 20)

struct perf_file_stats {
	__u64 records;
	__u64 unknown_types; /* records of types this build does not know, skipped */
	__u64 lost;	     /* samples the kernel said it lost (PERF_RECORD_LOST, LOST_SAMPLES) */
	__u64 auxtrace;	     /* AUXTRACE records: an AUX area trace (ARM SPE, Intel PT) */
};

struct perf_file_id {
	__u64 id;
	int event;
};

struct perf_file {
	char path[256];
	const unsigned char *base; /* the whole file */
	size_t size;
	bool mapped; /* base is an mmap of path (else the caller's buffer) */
	bool pipe;   /* pipe format: events came from HEADER_ATTR records */
	__u64 data_offset, data_size;
	__u64 features[PERF_FEAT_BITS / 64];
	int nevents;
	struct perf_file_event *events;
	int nids;
	struct perf_file_id *ids; /* sample ID -> event, sorted by id */
	/*
	 * How a record names its event, when there is more than one: the
	 * u64 index of the ID in a sample (id_pos), and its index from the end
	 * of other records' sample_id trailer (is_pos); -1 when it has none.
	 */
	int id_pos, is_pos;
	const char *hostname, *osrelease, *arch; /* features; NULL when absent */
	__u64 build_id_off, build_id_len;	 /* the HEADER_BUILD_ID section; 0, 0 when absent */
	/*
	 * HEADER_NUMA_TOPOLOGY: the node of each CPU below ncpu_node (-1: none
	 * listed it); NULL, 0 when the file has no such section (perf c2c
	 * record writes it)
	 */
	int *cpu_node;
	int ncpu_node, nnodes;
	int nr_cpus; /* HEADER_NRCPUS: the CPUs the recording machine had (available); 0: absent */
};

/*
 * Opens and maps path, reads the header, the events and the features.
 * Returns 0, or -EINVAL with a sentence in err naming the file for a file
 * that cannot be read as perf.data (missing, truncated, corrupted, big-endian,
 * compressed, a directory), or another -errno when the system fails.
 */
int perf_file__open(struct perf_file *f, const char *path, struct err *err);

/* The same on a buffer the caller owns (and keeps until close); name is for messages. */
int perf_file__open_mem(struct perf_file *f, const void *buf, size_t len, const char *name,
			struct err *err);

void perf_file__close(struct perf_file *f);

/* A cursor at the start of the data section. */
void perf_file__rewind(const struct perf_file *f, struct perf_cursor *c);

/*
 * The next record.  Returns 1 and fills r, 0 at the end of the data section,
 * or -EINVAL with a sentence in err when the data section is corrupted at the
 * cursor (a record of size zero, or one that runs past the end): nothing
 * after that point can be read, and the cursor stays at the bad record.
 * Counts records, unknown types and lost samples into stats (may be NULL).
 */
int perf_file__next(const struct perf_file *f, struct perf_cursor *c, struct perf_record *r,
		    struct perf_file_stats *stats, struct err *err);

/* Whether the file has feature section 'feat'. */
bool perf_file__has_feature(const struct perf_file *f, int feat);

/* The event a sample ID belongs to, or -1. */
int perf_file__event_of_id(const struct perf_file *f, __u64 id);

/*
 * A sample, every field its event's sample_type asks for.  Variable parts
 * point into the file and may be unaligned: read them with perf_u64().
 */
struct perf_sample {
	int event;  /* index in f->events */
	__u64 type; /* the event's sample_type: which fields below are set */
	__u16 misc; /* the record's misc (cpumode, exact IP) */
	__u64 id;   /* IDENTIFIER or ID */
	__u64 ip;
	__u32 pid, tid;
	__u64 time;
	__u64 addr;
	__u64 stream_id;
	__u32 cpu;
	__u64 period;
	const void *read; /* the read_format block as written */
	__u64 read_size;  /* in bytes */
	__u64 callchain_nr;
	const void *callchain; /* callchain_nr u64 */
	__u32 raw_size;
	const void *raw;
	__u64 branch_nr;
	__u64 branch_hw_idx; /* when the kernel wrote one */
	bool branch_has_hw_idx;
	const void *branch_entries;  /* branch_nr struct perf_branch_entry */
	const void *branch_counters; /* branch_nr u64, or NULL */
	__u64 regs_user_abi;	     /* PERF_SAMPLE_REGS_ABI_*; NONE: no registers */
	const void *regs_user;	     /* nregs_user u64 of the event */
	__u64 stack_user_size;
	const void *stack_user;
	__u64 stack_user_dyn_size;
	__u64 weight; /* the raw union perf_sample_weight */
	__u64 data_src;
	__u64 transaction;
	__u64 regs_intr_abi;
	const void *regs_intr;
	__u64 phys_addr;
	__u64 cgroup;
	__u64 data_page_size;
	__u64 code_page_size;
	__u64 aux_size;
	const void *aux;
};

/*
 * Parses a PERF_RECORD_SAMPLE.  Returns 0; -ENOENT when the sample's ID
 * names no event of the file; -EOPNOTSUPP when its event is unparseable;
 * -EINVAL when the fields do not fit in the record (a corrupted record: skip
 * it).
 */
int perf_file__parse_sample(const struct perf_file *f, const struct perf_record *r,
			    struct perf_sample *s);

/* The latency of a sample: weight.var1_dw with WEIGHT_STRUCT, else weight.full. */
static inline __u64 perf_sample__latency(const struct perf_sample *s)
{
	return (s->type & PERF_SAMPLE_WEIGHT_STRUCT) ? (__u32)s->weight : s->weight;
}

/* Reads the i-th u64 of an array in the file (callchain, registers, branch words). */
static inline __u64 perf_u64(const void *array, __u64 i)
{
	__u64 v;

	__builtin_memcpy(&v, (const unsigned char *)array + i * 8, 8);
	return v;
}

/*
 * The sample_id trailer of a record other than a sample (the event's
 * sample_id_all): which event wrote it, and when, where, by whom.
 */
struct perf_sample_id {
	int event;  /* -1 when the record carries no trailer or names no event */
	__u64 type; /* the fields set below (PERF_SAMPLE_TID, TIME, ID, STREAM_ID, CPU) */
	__u32 pid, tid;
	__u64 time;
	__u64 id;
	__u64 stream_id;
	__u32 cpu;
};

/* PERF_RECORD_MMAP and PERF_RECORD_MMAP2. */
struct perf_mmap_event {
	__u32 pid, tid;
	__u64 start, len, pgoff;
	bool mmap2;
	bool data;	   /* a data mapping (PERF_RECORD_MISC_MMAP_DATA) */
	__u16 cpumode;	   /* PERF_RECORD_MISC_CPUMODE_MASK of misc */
	bool has_build_id; /* MMAP2 with PERF_RECORD_MISC_MMAP_BUILD_ID */
	__u8 build_id_size;
	const __u8 *build_id; /* build_id_size bytes (at most 20) */
	__u32 maj, min;	      /* MMAP2 without build ID */
	__u64 ino, ino_generation;
	__u32 prot, flags;    /* MMAP2 */
	const char *filename; /* NUL-terminated, in the file */
	struct perf_sample_id sid;
};

/* PERF_RECORD_COMM. */
struct perf_comm_event {
	__u32 pid, tid;
	bool exec; /* PERF_RECORD_MISC_COMM_EXEC: the name changed at exec */
	const char *comm;
	struct perf_sample_id sid;
};

/* PERF_RECORD_FORK and PERF_RECORD_EXIT. */
struct perf_task_event {
	bool exit;
	__u32 pid, ppid, tid, ptid;
	__u64 time;
	struct perf_sample_id sid;
};

/*
 * Parse the record kinds symbolization needs.  Each returns 0, or -EINVAL
 * for a record too short for its type or a string not terminated inside it.
 */
int perf_file__parse_mmap(const struct perf_file *f, const struct perf_record *r,
			  struct perf_mmap_event *m);
int perf_file__parse_comm(const struct perf_file *f, const struct perf_record *r,
			  struct perf_comm_event *c);
int perf_file__parse_task(const struct perf_file *f, const struct perf_record *r,
			  struct perf_task_event *t);

struct sideband_rec;

/*
 * A side-band record (MMAP, MMAP2, COMM, FORK, EXIT, CGROUP) as the live
 * side band gives it (kernel/abi/sideband.h), so that the process model
 * applies a file's records and the live ring's alike: its time is the
 * sample_id trailer's (0 without one), "//anon" a NULL name.  Pointers
 * point into the file.  0; -ENOENT for a record of another type; -EINVAL
 * for one that does not parse.
 */
int perf_file__parse_sideband(const struct perf_file *f, const struct perf_record *r,
			      struct sideband_rec *rec);

/* The sample_id trailer of any record but a sample; sid->event -1 when there is none. */
void perf_file__parse_sample_id(const struct perf_file *f, const struct perf_record *r,
				struct perf_sample_id *sid);

/*
 * A build ID perf recorded for a file it saw samples in: the entries of the
 * HEADER_BUILD_ID feature section (perf record writes them at its end, for
 * the DSOs with samples, or every DSO with --buildid-all), or, in the pipe
 * format, HEADER_BUILD_ID records.  Both have the same layout: a record
 * header whose misc holds the cpumode (and PERF_RECORD_MISC_BUILD_ID_SIZE
 * when the size byte is valid; older perf wrote 20 bytes), the process ID,
 * 24 bytes of ID and size, and the file's name.
 */
struct perf_build_id {
	__u16 cpumode; /* PERF_RECORD_MISC_KERNEL, _USER, guest modes */
	__s32 pid;     /* -1: the host */
	__u8 size;     /* bytes of id, at most 20 */
	const __u8 *id;
	const char *filename; /* "[kernel.kallsyms]", a path, "[vdso]", a module */
};

/* A cursor over the HEADER_BUILD_ID section, for perf_file__next (at its end when absent). */
void perf_file__build_id_section(const struct perf_file *f, struct perf_cursor *c);

/*
 * An entry of that section, or a HEADER_BUILD_ID record of a pipe-format
 * file.  Returns 0, or -EINVAL for one too short or whose name is not
 * terminated inside it.
 */
int perf_file__parse_build_id(const struct perf_record *r, struct perf_build_id *b);

/* "MMAP2", "SAMPLE", "FINISHED_ROUND", or NULL for a type this build does not know. */
const char *perf_record__type_name(__u32 type);

#endif
