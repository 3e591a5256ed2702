// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/abi/perfdata.h"
#include "kernel/abi/sideband.h"
#include "kernel/lib/util.h"

/*
 * Bits the UAPI headers of this build may lack: kernels newer than the
 * headers write them, and the layout depends on them.
 */
#ifndef PERF_SAMPLE_BRANCH_COUNTERS
#define PERF_SAMPLE_BRANCH_COUNTERS (1u << 19) /* Linux 6.8: a u64 per branch entry */
#endif
#ifndef PERF_FORMAT_LOST
#define PERF_FORMAT_LOST (1u << 4)
#endif

#define SAMPLE_KNOWN ((__u64)PERF_SAMPLE_WEIGHT_STRUCT * 2 - 1)
#define READ_KNOWN                                                                                 \
	(PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID |        \
	 PERF_FORMAT_GROUP | PERF_FORMAT_LOST)
#define BRANCH_KNOWN ((__u64)PERF_SAMPLE_BRANCH_COUNTERS * 2 - 1)
#define ID_FIELDS                                                                                  \
	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |             \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

#define FILE_HEADER_SIZE 104 /* struct perf_file_header */
#define FILE_HEADER_V0	 72  /* the same without the feature bitmap (perf before 2.6.36) */
#define PIPE_HEADER_SIZE 16
#define MAX_EVENTS	 4096
#define MAX_IDS		 (1 << 20) /* events x CPUs or threads: far more than perf opens */
#define MAX_ATTR_SIZE	 4096

static const char magic_le[8] = { 'P', 'E', 'R', 'F', 'I', 'L', 'E', '2' };
static const char magic_be[8] = { '2', 'E', 'L', 'I', 'F', 'R', 'E', 'P' };
static const char magic_v1[8] = { 'P', 'E', 'R', 'F', 'F', 'I', 'L', 'E' };

static inline __u64 rd64(const unsigned char *p)
{
	__u64 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline __u32 rd32(const unsigned char *p)
{
	__u32 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline __u16 rd16(const unsigned char *p)
{
	__u16 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Whether [off, off + len) lies inside [0, size), without overflow. */
static inline bool inside(__u64 off, __u64 len, __u64 size)
{
	return off <= size && len <= size - off;
}

static const char *const record_names[] = {
	[PERF_RECORD_MMAP] = "MMAP",
	[PERF_RECORD_LOST] = "LOST",
	[PERF_RECORD_COMM] = "COMM",
	[PERF_RECORD_EXIT] = "EXIT",
	[PERF_RECORD_THROTTLE] = "THROTTLE",
	[PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE",
	[PERF_RECORD_FORK] = "FORK",
	[PERF_RECORD_READ] = "READ",
	[PERF_RECORD_SAMPLE] = "SAMPLE",
	[PERF_RECORD_MMAP2] = "MMAP2",
	[11] = "AUX",
	[12] = "ITRACE_START",
	[13] = "LOST_SAMPLES",
	[14] = "SWITCH",
	[15] = "SWITCH_CPU_WIDE",
	[16] = "NAMESPACES",
	[17] = "KSYMBOL",
	[18] = "BPF_EVENT",
	[19] = "CGROUP",
	[20] = "TEXT_POKE",
	[21] = "AUX_OUTPUT_HW_ID",
	[22] = "CALLCHAIN_DEFERRED",
	[PERF_RECORD_HEADER_ATTR] = "HEADER_ATTR",
	[PERF_RECORD_HEADER_EVENT_TYPE] = "HEADER_EVENT_TYPE",
	[PERF_RECORD_HEADER_TRACING_DATA] = "HEADER_TRACING_DATA",
	[PERF_RECORD_HEADER_BUILD_ID] = "HEADER_BUILD_ID",
	[PERF_RECORD_FINISHED_ROUND] = "FINISHED_ROUND",
	[PERF_RECORD_ID_INDEX] = "ID_INDEX",
	[PERF_RECORD_AUXTRACE_INFO] = "AUXTRACE_INFO",
	[PERF_RECORD_AUXTRACE] = "AUXTRACE",
	[PERF_RECORD_AUXTRACE_ERROR] = "AUXTRACE_ERROR",
	[PERF_RECORD_THREAD_MAP] = "THREAD_MAP",
	[PERF_RECORD_CPU_MAP] = "CPU_MAP",
	[PERF_RECORD_STAT_CONFIG] = "STAT_CONFIG",
	[PERF_RECORD_STAT] = "STAT",
	[PERF_RECORD_STAT_ROUND] = "STAT_ROUND",
	[PERF_RECORD_EVENT_UPDATE] = "EVENT_UPDATE",
	[PERF_RECORD_TIME_CONV] = "TIME_CONV",
	[PERF_RECORD_HEADER_FEATURE] = "HEADER_FEATURE",
	[PERF_RECORD_COMPRESSED] = "COMPRESSED",
	[PERF_RECORD_FINISHED_INIT] = "FINISHED_INIT",
	[PERF_RECORD_COMPRESSED2] = "COMPRESSED2",
};

const char *perf_record__type_name(__u32 type)
{
	return type < ARRAY_SIZE(record_names) ? record_names[type] : NULL;
}

bool perf_file__has_feature(const struct perf_file *f, int feat)
{
	return feat > 0 && feat < PERF_FEAT_BITS && (f->features[feat / 64] >> (feat % 64)) & 1;
}

/* ---- events ---------------------------------------------------------------- */

static int perf_file__add_event(struct perf_file *f, const unsigned char *attr, __u64 avail,
				struct err *err)
{
	struct perf_file_event *ev, *tmp;
	__u32 size;

	if (f->nevents >= MAX_EVENTS)
		return err__set(err, -EINVAL, "%s: more than %d events: the file is corrupted",
				f->path, MAX_EVENTS);
	if (avail < PERF_ATTR_SIZE_VER0)
		return err__set(err, -EINVAL, "%s: an event attribute is cut short (%llu bytes)",
				f->path, (unsigned long long)avail);
	/* attr.size 0 means the first ABI version */
	size = rd32(attr + offsetof(struct perf_event_attr, size));
	if (!size)
		size = PERF_ATTR_SIZE_VER0;
	if (size < PERF_ATTR_SIZE_VER0 || size > avail) {
		err__msg(
			err,
			"%s: event %d has an attribute of %u bytes where %llu are stored: the file "
			"is corrupted",
			f->path, f->nevents, size, (unsigned long long)avail);
		return -EINVAL;
	}
	tmp = realloc(f->events, (f->nevents + 1) * sizeof(*f->events));
	if (!tmp)
		return -ENOMEM;
	f->events = tmp;
	ev = &f->events[f->nevents];
	memset(ev, 0, sizeof(*ev));
	memcpy(&ev->attr, attr, size < sizeof(ev->attr) ? size : sizeof(ev->attr));
	ev->attr.size = size;
	ev->group_leader = f->nevents;
	f->nevents++;
	return 0;
}

static int perf_file__add_ids(struct perf_file *f, int event, const unsigned char *ids, __u64 n,
			      struct err *err)
{
	struct perf_file_id *tmp;
	__u64 i;

	if (!n)
		return 0;
	if (n > MAX_IDS || (__u64)f->nids + n > MAX_IDS)
		return err__set(err, -EINVAL, "%s: more than %d sample IDs: the file is corrupted",
				f->path, MAX_IDS);
	tmp = realloc(f->ids, (f->nids + n) * sizeof(*f->ids));
	if (!tmp)
		return -ENOMEM;
	f->ids = tmp;
	for (i = 0; i < n; i++) {
		f->ids[f->nids].id = rd64(ids + i * 8);
		f->ids[f->nids].event = event;
		f->nids++;
	}
	return 0;
}

static int id_cmp(const void *a, const void *b)
{
	const struct perf_file_id *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

int perf_file__event_of_id(const struct perf_file *f, __u64 id)
{
	int lo = 0, hi = f->nids, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (f->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < f->nids && f->ids[lo].id == id ? f->ids[lo].event : -1;
}

/* The position of the sample ID in a sample (u64 index after the header), or -1. */
static int sample_id_pos(__u64 type)
{
	if (type & PERF_SAMPLE_IDENTIFIER)
		return 0;
	if (!(type & PERF_SAMPLE_ID))
		return -1;
	return !!(type & PERF_SAMPLE_IP) + !!(type & PERF_SAMPLE_TID) +
	       !!(type & PERF_SAMPLE_TIME) + !!(type & PERF_SAMPLE_ADDR);
}

/* The position of the ID in the sample_id trailer, counted from its end (1: last), or -1. */
static int trailer_id_pos(__u64 type)
{
	if (type & PERF_SAMPLE_IDENTIFIER)
		return 1;
	if (!(type & PERF_SAMPLE_ID))
		return -1;
	return 1 + !!(type & PERF_SAMPLE_STREAM_ID) + !!(type & PERF_SAMPLE_CPU);
}

/* What the parser needs to know about an event, and whether it can parse it at all. */
static void event__layout(struct perf_file *f, struct perf_file_event *ev)
{
	const struct perf_event_attr *a = &ev->attr;
	const struct perf_file_event *leader = &f->events[ev->group_leader];

	ev->nregs_user = __builtin_popcountll(a->sample_regs_user);
	ev->nregs_intr = __builtin_popcountll(a->sample_regs_intr);
	ev->branch_hw_idx = a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX;
	/* the kernel appends counters for every member of a group whose leader asks */
	ev->branch_counters = (a->branch_sample_type | leader->attr.branch_sample_type) &
			      PERF_SAMPLE_BRANCH_COUNTERS;
	ev->id_fields = a->sample_id_all ? __builtin_popcountll(a->sample_type & ID_FIELDS) : 0;
	ev->unparseable[0] = '\0';
	if (a->sample_type & ~SAMPLE_KNOWN)
		snprintf(ev->unparseable, sizeof(ev->unparseable),
			 "sample_type 0x%llx has bits this build does not know (0x%llx)",
			 (unsigned long long)a->sample_type,
			 (unsigned long long)(a->sample_type & ~SAMPLE_KNOWN));
	else if ((a->sample_type & PERF_SAMPLE_WEIGHT_TYPE) == PERF_SAMPLE_WEIGHT_TYPE)
		snprintf(ev->unparseable, sizeof(ev->unparseable),
			 "sample_type has both WEIGHT and WEIGHT_STRUCT, which the kernel refuses");
	else if ((a->sample_type & PERF_SAMPLE_READ) && (a->read_format & ~READ_KNOWN))
		snprintf(ev->unparseable, sizeof(ev->unparseable),
			 "read_format 0x%llx has bits this build does not know",
			 (unsigned long long)a->read_format);
	else if ((a->sample_type & PERF_SAMPLE_BRANCH_STACK) &&
		 (a->branch_sample_type & ~BRANCH_KNOWN))
		snprintf(ev->unparseable, sizeof(ev->unparseable),
			 "branch_sample_type 0x%llx has bits this build does not know",
			 (unsigned long long)a->branch_sample_type);
}

static void event__default_name(struct perf_file_event *ev)
{
	static const char *const sw[] = { "cpu-clock",	      "task-clock",
					  "page-faults",      "context-switches",
					  "cpu-migrations",   "minor-faults",
					  "major-faults",     "alignment-faults",
					  "emulation-faults", "dummy" };

	if (ev->attr.type == PERF_TYPE_SOFTWARE && ev->attr.config < ARRAY_SIZE(sw))
		snprintf(ev->name, sizeof(ev->name), "%s", sw[ev->attr.config]);
	else
		snprintf(ev->name, sizeof(ev->name), "type %u config 0x%llx", ev->attr.type,
			 (unsigned long long)ev->attr.config);
}

/* ---- feature sections -------------------------------------------------------- */

/* A perf string (u32 len, then len bytes holding a NUL) at *off in [0, end); NULL if bad. */
static const char *feat_string(const unsigned char *base, __u64 *off, __u64 end)
{
	__u32 len;
	const char *s;

	if (!inside(*off, 4, end))
		return NULL;
	len = rd32(base + *off);
	if (!inside(*off + 4, len, end) || !len)
		return NULL;
	s = (const char *)base + *off + 4;
	if (!memchr(s, '\0', len))
		return NULL;
	*off += 4 + (__u64)len;
	return s;
}

/*
 * HEADER_EVENT_DESC: u32 nr, u32 attr_size, then per event its attribute,
 * u32 nr_ids, its name (a perf string) and nr_ids u64 IDs.  A name is given
 * to the event its first ID belongs to, or by position when there are none.
 * A malformed section leaves the rest unnamed; it is not an error.
 */
static void feat_event_desc(struct perf_file *f, __u64 off, __u64 end)
{
	const unsigned char *b = f->base;
	__u32 nr, asz, nids, i;
	const char *name;
	int ev;

	if (!inside(off, 8, end))
		return;
	nr = rd32(b + off);
	asz = rd32(b + off + 4);
	off += 8;
	for (i = 0; i < nr; i++) {
		if (!inside(off, (__u64)asz + 4, end))
			return;
		off += asz;
		nids = rd32(b + off);
		off += 4;
		name = feat_string(b, &off, end);
		if (!name || !inside(off, (__u64)nids * 8, end))
			return;
		ev = nids ? perf_file__event_of_id(f, rd64(b + off)) : -1;
		if (ev < 0 && (int)nr == f->nevents)
			ev = (int)i;
		if (ev >= 0 && ev < f->nevents) {
			snprintf(f->events[ev].name, sizeof(f->events[ev].name), "%s", name);
			f->events[ev].named = true;
		}
		off += (__u64)nids * 8;
	}
}

/* HEADER_GROUP_DESC: u32 nr, then per group its name, u32 leader index, u32 members. */
static void feat_group_desc(struct perf_file *f, __u64 off, __u64 end)
{
	const unsigned char *b = f->base;
	__u32 nr, i, leader, members, m;

	if (!inside(off, 4, end))
		return;
	nr = rd32(b + off);
	off += 4;
	for (i = 0; i < nr; i++) {
		if (!feat_string(b, &off, end) || !inside(off, 8, end))
			return;
		leader = rd32(b + off);
		members = rd32(b + off + 4);
		off += 8;
		for (m = 0;
		     m < members && leader < (__u32)f->nevents && m < (__u32)f->nevents - leader;
		     m++)
			f->events[leader + m].group_leader = (int)leader;
	}
}

/* A CPU list ("0-3,8") into f->cpu_node as node's; false when it is not one. */
static bool numa_cpus(struct perf_file *f, const char *list, int node)
{
	const char *p = list;

	while (*p) {
		char *e;
		unsigned long lo = strtoul(p, &e, 10), hi = lo, c;

		if (e == p || lo > 65535)
			return false;
		if (*e == '-') {
			p = e + 1;
			hi = strtoul(p, &e, 10);
			if (e == p || hi < lo || hi > 65535)
				return false;
		}
		if ((int)hi >= f->ncpu_node) {
			int *n = realloc(f->cpu_node, (hi + 1) * sizeof(*n));

			if (!n)
				return false;
			for (c = f->ncpu_node; c <= hi; c++)
				n[c] = -1;
			f->cpu_node = n;
			f->ncpu_node = (int)hi + 1;
		}
		for (c = lo; c <= hi; c++)
			f->cpu_node[c] = node;
		if (*e == '\0' || *e == '\n')
			break;
		if (*e != ',')
			return false;
		p = e + 1;
	}
	return true;
}

/*
 * HEADER_NUMA_TOPOLOGY: u32 nr, then per node u32 node, u64 mem_total,
 * u64 mem_free, its CPU list (a perf string).  A malformed section leaves
 * the file without nodes; it is not an error.
 */
static void feat_numa_topology(struct perf_file *f, __u64 off, __u64 end)
{
	const unsigned char *b = f->base;
	__u32 nr, i, node;
	const char *cpus;

	if (!inside(off, 4, end))
		return;
	nr = rd32(b + off);
	off += 4;
	for (i = 0; i < nr; i++) {
		if (!inside(off, 20, end))
			break;
		node = rd32(b + off);
		off += 20;
		cpus = feat_string(b, &off, end);
		if (!cpus || node > 4095 || !numa_cpus(f, cpus, (int)node))
			break;
		if ((int)node >= f->nnodes)
			f->nnodes = (int)node + 1;
	}
	if (i < nr) {
		free(f->cpu_node);
		f->cpu_node = NULL;
		f->ncpu_node = f->nnodes = 0;
	}
}

/* HEADER_NRCPUS: u32 online, u32 available (the possible CPUs); a bad one is left out. */
static void feat_nr_cpus(struct perf_file *f, __u64 off, __u64 end)
{
	__u32 avail;

	if (!inside(off, 8, end))
		return;
	avail = rd32(f->base + off + 4);
	f->nr_cpus = avail <= 65536 ? (int)avail : 0;
}

static void perf_file__features(struct perf_file *f, __u64 sections, __u64 end)
{
	const unsigned char *b = f->base;
	__u64 off, len;
	int feat, n = 0;

	for (feat = 1; feat < PERF_FEAT_BITS; feat++) {
		if (!perf_file__has_feature(f, feat))
			continue;
		if (!inside(sections + (__u64)n * 16, 16, end))
			return; /* the table is cut short: no more names */
		off = rd64(b + sections + (__u64)n * 16);
		len = rd64(b + sections + (__u64)n * 16 + 8);
		n++;
		if (!inside(off, len, end))
			continue;
		switch (feat) {
		case PERF_FEAT_EVENT_DESC:
			feat_event_desc(f, off, off + len);
			break;
		case PERF_FEAT_GROUP_DESC:
			feat_group_desc(f, off, off + len);
			break;
		case PERF_FEAT_HOSTNAME:
			f->hostname = feat_string(b, &off, off + len);
			break;
		case PERF_FEAT_OSRELEASE:
			f->osrelease = feat_string(b, &off, off + len);
			break;
		case PERF_FEAT_ARCH:
			f->arch = feat_string(b, &off, off + len);
			break;
		case PERF_FEAT_BUILD_ID:
			f->build_id_off = off;
			f->build_id_len = len;
			break;
		case PERF_FEAT_NUMA_TOPOLOGY:
			feat_numa_topology(f, off, off + len);
			break;
		case PERF_FEAT_NRCPUS:
			feat_nr_cpus(f, off, off + len);
			break;
		default:
			break;
		}
	}
}

/* ---- header ------------------------------------------------------------------ */

static int perf_file__file_header(struct perf_file *f, __u64 hsize, struct err *err)
{
	const unsigned char *b = f->base;
	__u64 attr_size, attrs_off, attrs_size, n, i, entry, ids_off, ids_size;
	int e;

	if (f->size < hsize)
		return err__set(err, -EINVAL, "%s: the file header is cut short (%zu bytes)",
				f->path, f->size);
	attr_size = rd64(b + 16);
	attrs_off = rd64(b + 24);
	attrs_size = rd64(b + 32);
	f->data_offset = rd64(b + 40);
	f->data_size = rd64(b + 48);
	if (hsize == FILE_HEADER_SIZE)
		memcpy(f->features, b + 72, sizeof(f->features));
	if (perf_file__has_feature(f, PERF_FEAT_COMPRESSED)) {
		err__msg(err,
			 "%s was recorded with perf record -z (compressed records), which this "
			 "tool does not read: record again without -z",
			 f->path);
		return -EINVAL;
	}
	if (perf_file__has_feature(f, PERF_FEAT_DIR_FORMAT)) {
		err__msg(
			err,
			"%s is the header of a directory-format recording (perf record --threads); "
			"give the directory's data as one file: record without --threads",
			f->path);
		return -EINVAL;
	}
	if (attr_size < PERF_ATTR_SIZE_VER0 + 16 || attr_size > MAX_ATTR_SIZE + 16 ||
	    !inside(attrs_off, attrs_size, f->size)) {
		err__msg(err,
			 "%s: the event attribute section (%llu bytes at offset %llu, entries of "
			 "%llu bytes) does not fit in the file: it is truncated or corrupted",
			 f->path, (unsigned long long)attrs_size, (unsigned long long)attrs_off,
			 (unsigned long long)attr_size);
		return -EINVAL;
	}
	n = attrs_size / attr_size;
	if (!n)
		return err__set(err, -EINVAL, "%s has no events in its attribute section", f->path);
	if (n > MAX_EVENTS)
		return err__set(err, -EINVAL, "%s: %llu events: the file is corrupted", f->path,
				(unsigned long long)n);
	for (i = 0; i < n; i++) {
		/* each entry: the attribute, then the file section of its IDs */
		entry = attrs_off + i * attr_size;
		e = perf_file__add_event(f, b + entry, attr_size - 16, err);
		if (e)
			return e;
		ids_off = rd64(b + entry + attr_size - 16);
		ids_size = rd64(b + entry + attr_size - 8);
		if (!inside(ids_off, ids_size, f->size)) {
			err__msg(
				err,
				"%s: the IDs of event %llu (%llu bytes at offset %llu) lie outside "
				"the file: it is truncated or corrupted",
				f->path, (unsigned long long)i, (unsigned long long)ids_size,
				(unsigned long long)ids_off);
			return -EINVAL;
		}
		e = perf_file__add_ids(f, (int)i, b + ids_off, ids_size / 8, err);
		if (e)
			return e;
	}
	if (!inside(f->data_offset, f->data_size, f->size)) {
		err__msg(err,
			 "%s is truncated: its data section ends at byte %llu, the file has %zu "
			 "bytes",
			 f->path, (unsigned long long)(f->data_offset + f->data_size), f->size);
		return -EINVAL;
	}
	if (!f->data_size && f->size > f->data_offset) {
		err__msg(err,
			 "%s was not finished by perf record (its header says the data section is "
			 "empty): perf was killed or still runs; record again and let it end",
			 f->path);
		return -EINVAL;
	}
	if (f->nids)
		qsort(f->ids, f->nids, sizeof(*f->ids), id_cmp);
	perf_file__features(f, f->data_offset + f->data_size, f->size);
	return 0;
}

/*
 * The pipe format has no attribute section: each event comes in a
 * HEADER_ATTR record (the attribute, then its IDs up to the record's end),
 * and features in HEADER_FEATURE records.  They precede the samples; one
 * pass over the record headers finds them.
 */
static int perf_file__pipe_header(struct perf_file *f, struct err *err)
{
	struct perf_cursor c;
	struct perf_record r;
	__u32 asz;
	int e;

	f->pipe = true;
	f->data_offset = PIPE_HEADER_SIZE;
	f->data_size = f->size - PIPE_HEADER_SIZE;
	perf_file__rewind(f, &c);
	/* a corrupted record ends the scan; reading the data reports it */
	while (perf_file__next(f, &c, &r, NULL, err) > 0) {
		if (r.type == PERF_RECORD_COMPRESSED || r.type == PERF_RECORD_COMPRESSED2) {
			err__msg(err,
				 "%s was recorded with perf record -z (compressed records), which "
				 "this tool does not read: record again without -z",
				 f->path);
			return -EINVAL;
		}
		if (r.type != PERF_RECORD_HEADER_ATTR)
			continue;
		e = perf_file__add_event(f, r.data + 8, r.size - 8u, err);
		if (e)
			return e;
		asz = f->events[f->nevents - 1].attr.size;
		e = perf_file__add_ids(f, f->nevents - 1, r.data + 8 + asz, (r.size - 8u - asz) / 8,
				       err);
		if (e)
			return e;
	}
	err->msg[0] = '\0';
	if (!f->nevents)
		return err__set(err, -EINVAL, "%s (pipe format) has no event attribute records",
				f->path);
	if (f->nids)
		qsort(f->ids, f->nids, sizeof(*f->ids), id_cmp);
	/*
	 * names and groups come in HEADER_FEATURE records (EVENT_DESC,
	 * GROUP_DESC), and so do the host, the kernel release and the arch
	 */
	perf_file__rewind(f, &c);
	while (perf_file__next(f, &c, &r, NULL, err) > 0) {
		__u64 off = r.offset + 16, end = r.offset + r.size;

		if (r.type != PERF_RECORD_HEADER_FEATURE || r.size < 16)
			continue;
		switch (rd64(r.data + 8)) {
		case PERF_FEAT_EVENT_DESC:
			feat_event_desc(f, off, end);
			break;
		case PERF_FEAT_GROUP_DESC:
			feat_group_desc(f, off, end);
			break;
		case PERF_FEAT_HOSTNAME:
			f->hostname = feat_string(f->base, &off, end);
			break;
		case PERF_FEAT_OSRELEASE:
			f->osrelease = feat_string(f->base, &off, end);
			break;
		case PERF_FEAT_ARCH:
			f->arch = feat_string(f->base, &off, end);
			break;
		case PERF_FEAT_NUMA_TOPOLOGY:
			feat_numa_topology(f, off, end);
			break;
		case PERF_FEAT_NRCPUS:
			feat_nr_cpus(f, off, end);
			break;
		default:
			break;
		}
	}
	err->msg[0] = '\0';
	return 0;
}

/* How samples and other records name their event; one rule for the whole file. */
static int perf_file__id_rules(struct perf_file *f, struct err *err)
{
	int i, pos, is;

	f->id_pos = f->is_pos = -1;
	if (f->nevents <= 1)
		return 0;
	for (i = 0; i < f->nevents; i++) {
		pos = sample_id_pos(f->events[i].attr.sample_type);
		is = trailer_id_pos(f->events[i].attr.sample_type);
		if (i == 0) {
			f->id_pos = pos;
			f->is_pos = is;
		}
		if (pos != f->id_pos)
			f->id_pos = -1;
		if (is != f->is_pos || !f->events[i].attr.sample_id_all)
			f->is_pos = -1;
	}
	if (f->id_pos < 0) {
		err__msg(err,
			 "%s has %d events whose samples do not say which event they belong to "
			 "(no sample ID at one position): perf cannot read it either",
			 f->path, f->nevents);
		return -EINVAL;
	}
	return 0;
}

static int perf_file__read_header(struct perf_file *f, struct err *err)
{
	__u64 hsize;
	int i, e;

	if (f->size < PIPE_HEADER_SIZE)
		return err__set(err, -EINVAL, "%s is not a perf.data file (%zu bytes: too short)",
				f->path, f->size);
	if (!memcmp(f->base, magic_be, 8)) {
		err__msg(err,
			 "%s was written on a big-endian machine; this tool reads little-endian "
			 "perf.data only: analyse it there, or with perf script",
			 f->path);
		return -EINVAL;
	}
	if (!memcmp(f->base, magic_v1, 8)) {
		err__msg(err,
			 "%s is in perf's first file format (before Linux 2.6.35), which this tool "
			 "does not read",
			 f->path);
		return -EINVAL;
	}
	if (memcmp(f->base, magic_le, 8))
		return err__set(err, -EINVAL,
				"%s is not a perf.data file (it does not start with PERFILE2)",
				f->path);
	hsize = rd64(f->base + 8);
	if (hsize == PIPE_HEADER_SIZE)
		e = perf_file__pipe_header(f, err);
	else if (hsize == FILE_HEADER_SIZE || hsize == FILE_HEADER_V0)
		e = perf_file__file_header(f, hsize, err);
	else {
		err__msg(
			err,
			"%s: header size %llu is neither a file's (%d) nor a pipe's (%d): the file "
			"is corrupted",
			f->path, (unsigned long long)hsize, FILE_HEADER_SIZE, PIPE_HEADER_SIZE);
		e = -EINVAL;
	}
	if (e)
		return e;
	for (i = 0; i < f->nevents; i++) {
		if (!f->events[i].named)
			event__default_name(&f->events[i]);
		event__layout(f, &f->events[i]);
	}
	return perf_file__id_rules(f, err);
}

int perf_file__open_mem(struct perf_file *f, const void *buf, size_t len, const char *name,
			struct err *err)
{
	int e;

	memset(f, 0, sizeof(*f));
	snprintf(f->path, sizeof(f->path), "%s", name);
	f->base = buf;
	f->size = len;
	e = perf_file__read_header(f, err);
	if (e)
		perf_file__close(f);
	return e;
}

int perf_file__open(struct perf_file *f, const char *path, struct err *err)
{
	struct stat st;
	void *map;
	int fd, e;

	memset(f, 0, sizeof(*f));
	/* O_NONBLOCK: a FIFO is refused below, not waited on */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		e = errno;
		return err__set(err, -EINVAL, "cannot open %s: %s", path, strerror(e));
	}
	if (fstat(fd, &st)) {
		e = -errno;
		err__msg(err, "cannot stat %s: %s", path, strerror(-e));
		close(fd);
		return e;
	}
	if (S_ISDIR(st.st_mode)) {
		err__msg(err,
			 "%s is a directory (perf record --threads writes one): this tool reads a "
			 "single perf.data file",
			 path);
		close(fd);
		return -EINVAL;
	}
	if (!S_ISREG(st.st_mode)) {
		err__msg(err, "%s is not a regular file: save the recording to a file first", path);
		close(fd);
		return -EINVAL;
	}
	if (st.st_size < PIPE_HEADER_SIZE) {
		err__msg(err, "%s is not a perf.data file (%lld bytes: too short)", path,
			 (long long)st.st_size);
		close(fd);
		return -EINVAL;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	e = map == MAP_FAILED ? -errno : 0;
	close(fd);
	if (e) {
		err__msg(err, "cannot map %s: %s", path, strerror(-e));
		return e;
	}
	/* read front to back, once */
	madvise(map, st.st_size, MADV_SEQUENTIAL);
	e = perf_file__open_mem(f, map, st.st_size, path, err);
	if (e) {
		munmap(map, st.st_size);
		return e;
	}
	f->mapped = true;
	return 0;
}

void perf_file__close(struct perf_file *f)
{
	if (f->mapped && f->base)
		munmap((void *)f->base, f->size);
	free(f->events);
	free(f->ids);
	free(f->cpu_node);
	memset(f, 0, sizeof(*f));
}

/* ---- records ----------------------------------------------------------------- */

void perf_file__rewind(const struct perf_file *f, struct perf_cursor *c)
{
	c->pos = f->data_offset;
	c->end = f->data_offset + f->data_size;
	c->from = c->pos;
}

/*
 * The mapped file's whole pages from c->from to the cursor given back to the
 * kernel.  A private, read-only file mapping: a page dropped faults in again
 * from the file, so a record read before stays readable.  A pipe's buffer
 * is not a mapping: nothing.
 */
static void cursor__release(const struct perf_file *f, struct perf_cursor *c)
{
	__u64 page = (__u64)sysconf(_SC_PAGESIZE);
	__u64 lo = (c->from + page - 1) & ~(page - 1), hi = c->pos & ~(page - 1);

	if (f->mapped && hi > lo && hi <= f->size)
		madvise((void *)(f->base + lo), (size_t)(hi - lo), MADV_DONTNEED);
	c->from = c->pos;
}

/* Bytes that follow a record of this type outside its header.size. */
static __u64 record_payload(const struct perf_record *r)
{
	if (r->type == PERF_RECORD_AUXTRACE && r->size >= 16)
		return rd64(r->data + 8);
	if (r->type == PERF_RECORD_HEADER_TRACING_DATA && r->size >= 12)
		return (rd32(r->data + 8) + 7ull) & ~7ull;
	return 0;
}

int perf_file__next(const struct perf_file *f, struct perf_cursor *c, struct perf_record *r,
		    struct perf_file_stats *stats, struct err *err)
{
	const unsigned char *h;
	__u64 payload;

	if (c->pos >= c->end)
		return 0;
	if (c->end - c->pos < sizeof(struct perf_event_header))
		return err__set(
			err, -EINVAL,
			"%s is truncated: %llu bytes at offset %llu are too few for a record",
			f->path, (unsigned long long)(c->end - c->pos), (unsigned long long)c->pos);
	h = f->base + c->pos;
	r->type = rd32(h);
	r->misc = rd16(h + 4);
	r->size = rd16(h + 6);
	r->offset = c->pos;
	r->data = h;
	if (r->size < sizeof(struct perf_event_header)) {
		err__msg(err,
			 "%s is corrupted at offset %llu: a record of %u bytes (type %u); nothing "
			 "after it can be read",
			 f->path, (unsigned long long)c->pos, r->size, r->type);
		return -EINVAL;
	}
	if (r->size > c->end - c->pos) {
		err__msg(err,
			 "%s is truncated or corrupted at offset %llu: a record of %u bytes (type "
			 "%u) runs past the end of the data section at %llu",
			 f->path, (unsigned long long)c->pos, r->size, r->type,
			 (unsigned long long)c->end);
		return -EINVAL;
	}
	payload = record_payload(r);
	if (payload > c->end - c->pos - r->size) {
		err__msg(err,
			 "%s is truncated or corrupted at offset %llu: the %s record's %llu bytes "
			 "of "
			 "data run past the end of the data section",
			 f->path, (unsigned long long)c->pos, perf_record__type_name(r->type),
			 (unsigned long long)payload);
		return -EINVAL;
	}
	c->pos += r->size + payload;
	if (c->pos - c->from >= PERF_FILE_WINDOW)
		cursor__release(f, c);
	if (stats) {
		stats->records++;
		if (!perf_record__type_name(r->type))
			stats->unknown_types++;
		else if (r->type == PERF_RECORD_LOST && r->size >= 24)
			stats->lost += rd64(h + 16);
		else if (r->type == 13 /* LOST_SAMPLES */ && r->size >= 16)
			stats->lost += rd64(h + 8);
		else if (r->type == PERF_RECORD_AUXTRACE)
			stats->auxtrace++;
	}
	return 1;
}

/* ---- samples ----------------------------------------------------------------- */

/* Bounds checks: p and end are cursors into one record. */
#define NEED(n)                                                                                    \
	do {                                                                                       \
		if ((__u64)(end - p) < (__u64)(n))                                                 \
			return -EINVAL;                                                            \
	} while (0)
#define TAKE64(dst)                                                                                \
	do {                                                                                       \
		NEED(8);                                                                           \
		(dst) = rd64(p);                                                                   \
		p += 8;                                                                            \
	} while (0)
/* n u64 words, n from the file: compared by division, so no product overflows */
#define NEED_WORDS(n)                                                                              \
	do {                                                                                       \
		if ((__u64)(n) > (__u64)(end - p) / 8)                                             \
			return -EINVAL;                                                            \
	} while (0)

/* A u64 field: read when the event has it, else 0 (no memset of the whole sample per record). */
#define FIELD64(bit, dst)                                                                          \
	do {                                                                                       \
		if (t & (bit))                                                                     \
			TAKE64(dst);                                                               \
		else                                                                               \
			(dst) = 0;                                                                 \
	} while (0)

/* The read_format block of a sample (PERF_SAMPLE_READ). */
static int parse_read(const struct perf_event_attr *a, const unsigned char **pp,
		      const unsigned char *end, struct perf_sample *s)
{
	const unsigned char *p = *pp;
	__u64 rf = a->read_format, nr, per;

	s->read = p;
	if (rf & PERF_FORMAT_GROUP) {
		/* nr, [time_enabled], [time_running], then nr of {value, [id], [lost]} */
		TAKE64(nr);
		per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
		NEED_WORDS(!!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			   !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING));
		p += 8 * (!!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			  !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING));
		if (nr > (__u64)(end - p) / 8 / per)
			return -EINVAL;
		p += nr * per * 8;
	} else {
		/* value, [time_enabled], [time_running], [id], [lost] */
		per = 1 + __builtin_popcountll(rf & (PERF_FORMAT_TOTAL_TIME_ENABLED |
						     PERF_FORMAT_TOTAL_TIME_RUNNING |
						     PERF_FORMAT_ID | PERF_FORMAT_LOST));
		NEED_WORDS(per);
		p += per * 8;
	}
	s->read_size = p - *pp;
	*pp = p;
	return 0;
}

/* A register block: abi, then one u64 per bit of the mask unless abi is NONE. */
static int parse_regs(const unsigned char **pp, const unsigned char *end, __u32 nregs, __u64 *abi,
		      const void **regs)
{
	const unsigned char *p = *pp;

	TAKE64(*abi);
	*regs = NULL;
	if (*abi != PERF_SAMPLE_REGS_ABI_NONE) {
		NEED_WORDS(nregs);
		*regs = p;
		p += (__u64)nregs * 8;
	}
	*pp = p;
	return 0;
}

/*
 * The branch stack: nr, hw_idx when the event asks for it, nr entries, and
 * nr counters when the group asks for them.  The kernel writes only nr (0)
 * when the PMU gave no stack, even with HW_INDEX: with_hw_idx is false on
 * the second try for that case.
 */
static int parse_branch(const struct perf_file_event *ev, bool with_hw_idx,
			const unsigned char **pp, const unsigned char *end, struct perf_sample *s)
{
	const unsigned char *p = *pp;
	const __u64 entry_words = sizeof(struct perf_branch_entry) / 8;

	TAKE64(s->branch_nr);
	s->branch_has_hw_idx = with_hw_idx;
	s->branch_hw_idx = 0;
	if (with_hw_idx)
		TAKE64(s->branch_hw_idx);
	if (s->branch_nr > (__u64)(end - p) / 8 / entry_words)
		return -EINVAL;
	s->branch_entries = p;
	p += s->branch_nr * entry_words * 8;
	s->branch_counters = NULL;
	if (ev->branch_counters) {
		NEED_WORDS(s->branch_nr);
		s->branch_counters = p;
		p += s->branch_nr * 8;
	}
	*pp = p;
	return 0;
}

/* Everything after the branch stack, in the kernel's order (perf_output_sample). */
static int parse_tail(const struct perf_file_event *ev, const unsigned char *p,
		      const unsigned char *end, struct perf_sample *s)
{
	__u64 t = s->type;

	s->regs_user_abi = s->regs_intr_abi = 0;
	s->regs_user = s->regs_intr = NULL;
	if (t & PERF_SAMPLE_REGS_USER) {
		if (parse_regs(&p, end, ev->nregs_user, &s->regs_user_abi, &s->regs_user))
			return -EINVAL;
	}
	s->stack_user_size = s->stack_user_dyn_size = 0;
	s->stack_user = NULL;
	if (t & PERF_SAMPLE_STACK_USER) {
		/* size, data[size], and dyn_size only when size is not 0 */
		TAKE64(s->stack_user_size);
		if (s->stack_user_size) {
			NEED(s->stack_user_size);
			s->stack_user = p;
			p += s->stack_user_size;
			TAKE64(s->stack_user_dyn_size);
		}
	}
	FIELD64(PERF_SAMPLE_WEIGHT_TYPE, s->weight);
	FIELD64(PERF_SAMPLE_DATA_SRC, s->data_src);
	FIELD64(PERF_SAMPLE_TRANSACTION, s->transaction);
	if (t & PERF_SAMPLE_REGS_INTR) {
		if (parse_regs(&p, end, ev->nregs_intr, &s->regs_intr_abi, &s->regs_intr))
			return -EINVAL;
	}
	FIELD64(PERF_SAMPLE_PHYS_ADDR, s->phys_addr);
	FIELD64(PERF_SAMPLE_CGROUP, s->cgroup);
	FIELD64(PERF_SAMPLE_DATA_PAGE_SIZE, s->data_page_size);
	FIELD64(PERF_SAMPLE_CODE_PAGE_SIZE, s->code_page_size);
	FIELD64(PERF_SAMPLE_AUX, s->aux_size);
	NEED(s->aux_size);
	s->aux = s->aux_size ? p : NULL;
	return 0;
}

int perf_file__parse_sample(const struct perf_file *f, const struct perf_record *r,
			    struct perf_sample *s)
{
	const unsigned char *p = r->data + sizeof(struct perf_event_header);
	const unsigned char *end = r->data + r->size;
	const struct perf_file_event *ev;
	const unsigned char *branch;
	__u64 t, v;
	int event = 0;

	if (f->nevents > 1) {
		/* id_rules made sure every event has its ID at id_pos */
		if ((__u64)(end - p) / 8 <= (__u64)f->id_pos)
			return -EINVAL;
		event = perf_file__event_of_id(f, rd64(p + 8 * f->id_pos));
		if (event < 0)
			return -ENOENT;
	}
	ev = &f->events[event];
	if (ev->unparseable[0])
		return -EOPNOTSUPP;
	s->event = event;
	s->type = t = ev->attr.sample_type;
	s->misc = r->misc;

	FIELD64(PERF_SAMPLE_IDENTIFIER, s->id);
	FIELD64(PERF_SAMPLE_IP, s->ip);
	FIELD64(PERF_SAMPLE_TID, v);
	s->pid = (__u32)v;
	s->tid = (__u32)(v >> 32);
	FIELD64(PERF_SAMPLE_TIME, s->time);
	FIELD64(PERF_SAMPLE_ADDR, s->addr);
	if (t & PERF_SAMPLE_ID)
		TAKE64(s->id);
	FIELD64(PERF_SAMPLE_STREAM_ID, s->stream_id);
	FIELD64(PERF_SAMPLE_CPU, v);
	s->cpu = (__u32)v;
	FIELD64(PERF_SAMPLE_PERIOD, s->period);
	s->read = NULL;
	s->read_size = 0;
	if (t & PERF_SAMPLE_READ) {
		if (parse_read(&ev->attr, &p, end, s))
			return -EINVAL;
	}
	FIELD64(PERF_SAMPLE_CALLCHAIN, s->callchain_nr);
	NEED_WORDS(s->callchain_nr);
	s->callchain = s->callchain_nr ? p : NULL;
	p += s->callchain_nr * 8;
	s->raw_size = 0;
	s->raw = NULL;
	if (t & PERF_SAMPLE_RAW) {
		/* u32 size, then size bytes; the kernel pads them so that u64s follow aligned */
		NEED(4);
		s->raw_size = rd32(p);
		p += 4;
		NEED(s->raw_size);
		s->raw = p;
		p += s->raw_size;
	}
	s->branch_nr = s->branch_hw_idx = 0;
	s->branch_has_hw_idx = false;
	s->branch_entries = s->branch_counters = NULL;
	if (!(t & PERF_SAMPLE_BRANCH_STACK))
		return parse_tail(ev, p, end, s);
	branch = p;
	if (parse_branch(ev, ev->branch_hw_idx, &p, end, s) == 0 && parse_tail(ev, p, end, s) == 0)
		return 0;
	/* an empty stack written without hw_idx (see parse_branch) */
	if (!ev->branch_hw_idx || end - branch < 8 || rd64(branch) != 0)
		return -EINVAL;
	p = branch;
	if (parse_branch(ev, false, &p, end, s))
		return -EINVAL;
	return parse_tail(ev, p, end, s);
}

/* ---- other records ------------------------------------------------------------ */

/* The event of a non-sample record: from its trailer's ID, or the only event. */
static int record_event(const struct perf_file *f, const struct perf_record *r)
{
	__u64 words = (r->size - sizeof(struct perf_event_header)) / 8;

	if (f->nevents == 1)
		return f->events[0].attr.sample_id_all ? 0 : -1;
	if (f->is_pos < 0 || words < (__u64)f->is_pos)
		return -1;
	return perf_file__event_of_id(f, rd64(r->data + r->size - 8 * f->is_pos));
}

void perf_file__parse_sample_id(const struct perf_file *f, const struct perf_record *r,
				struct perf_sample_id *sid)
{
	const unsigned char *p, *end = r->data + r->size;
	const struct perf_file_event *ev;
	__u64 t, v;

	memset(sid, 0, sizeof(*sid));
	sid->event = -1;
	if (r->type == PERF_RECORD_SAMPLE || r->type >= PERF_RECORD_HEADER_ATTR)
		return;
	sid->event = record_event(f, r);
	if (sid->event < 0)
		return;
	ev = &f->events[sid->event];
	if (!ev->id_fields ||
	    (__u64)(r->size - sizeof(struct perf_event_header)) / 8 < ev->id_fields) {
		sid->event = -1;
		return;
	}
	/* the trailer: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER, whichever are set */
	p = end - 8 * ev->id_fields;
	t = ev->attr.sample_type;
	sid->type = t & ID_FIELDS;
	if (t & PERF_SAMPLE_TID) {
		v = rd64(p);
		p += 8;
		sid->pid = (__u32)v;
		sid->tid = (__u32)(v >> 32);
	}
	if (t & PERF_SAMPLE_TIME) {
		sid->time = rd64(p);
		p += 8;
	}
	if (t & PERF_SAMPLE_ID) {
		sid->id = rd64(p);
		p += 8;
	}
	if (t & PERF_SAMPLE_STREAM_ID) {
		sid->stream_id = rd64(p);
		p += 8;
	}
	if (t & PERF_SAMPLE_CPU) {
		sid->cpu = (__u32)rd64(p);
		p += 8;
	}
	if (t & PERF_SAMPLE_IDENTIFIER)
		sid->id = rd64(p);
}

/* The body of a record without its trailer: [data + 8, data + size - trailer). */
static const unsigned char *record_body_end(const struct perf_file *f, const struct perf_record *r,
					    struct perf_sample_id *sid)
{
	perf_file__parse_sample_id(f, r, sid);
	if (sid->event < 0)
		return r->data + r->size;
	return r->data + r->size - 8 * f->events[sid->event].id_fields;
}

/* A NUL-terminated string in [p, end), or NULL. */
static const char *record_string(const unsigned char *p, const unsigned char *end)
{
	if (p >= end || !memchr(p, '\0', end - p))
		return NULL;
	return (const char *)p;
}

int perf_file__parse_mmap(const struct perf_file *f, const struct perf_record *r,
			  struct perf_mmap_event *m)
{
	const unsigned char *p = r->data + 8, *end;
	size_t fixed;

	memset(m, 0, sizeof(*m));
	if (r->type != PERF_RECORD_MMAP && r->type != PERF_RECORD_MMAP2)
		return -EINVAL;
	end = record_body_end(f, r, &m->sid);
	m->mmap2 = r->type == PERF_RECORD_MMAP2;
	/* pid, tid, addr, len, pgoff; MMAP2 adds 24 bytes of device or build ID, prot, flags */
	fixed = 32 + (m->mmap2 ? 32 : 0);
	if ((size_t)(end - p) < fixed)
		return -EINVAL;
	m->pid = rd32(p);
	m->tid = rd32(p + 4);
	m->start = rd64(p + 8);
	m->len = rd64(p + 16);
	m->pgoff = rd64(p + 24);
	m->cpumode = r->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	m->data = r->misc & PERF_RECORD_MISC_MMAP_DATA;
	p += 32;
	if (m->mmap2) {
		if (r->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			m->has_build_id = true;
			m->build_id_size = p[0] > 20 ? 20 : p[0];
			m->build_id = p + 4;
		} else {
			m->maj = rd32(p);
			m->min = rd32(p + 4);
			m->ino = rd64(p + 8);
			m->ino_generation = rd64(p + 16);
		}
		m->prot = rd32(p + 24);
		m->flags = rd32(p + 28);
		p += 32;
	}
	m->filename = record_string(p, end);
	return m->filename ? 0 : -EINVAL;
}

int perf_file__parse_comm(const struct perf_file *f, const struct perf_record *r,
			  struct perf_comm_event *c)
{
	const unsigned char *p = r->data + 8, *end;

	memset(c, 0, sizeof(*c));
	if (r->type != PERF_RECORD_COMM)
		return -EINVAL;
	end = record_body_end(f, r, &c->sid);
	if (end - p < 8)
		return -EINVAL;
	c->pid = rd32(p);
	c->tid = rd32(p + 4);
	c->exec = r->misc & PERF_RECORD_MISC_COMM_EXEC;
	c->comm = record_string(p + 8, end);
	return c->comm ? 0 : -EINVAL;
}

int perf_file__parse_task(const struct perf_file *f, const struct perf_record *r,
			  struct perf_task_event *t)
{
	const unsigned char *p = r->data + 8, *end;

	memset(t, 0, sizeof(*t));
	if (r->type != PERF_RECORD_FORK && r->type != PERF_RECORD_EXIT)
		return -EINVAL;
	end = record_body_end(f, r, &t->sid);
	if (end - p < 24)
		return -EINVAL;
	t->exit = r->type == PERF_RECORD_EXIT;
	t->pid = rd32(p);
	t->ppid = rd32(p + 4);
	t->tid = rd32(p + 8);
	t->ptid = rd32(p + 12);
	t->time = rd64(p + 16);
	return 0;
}

/* PERF_RECORD_CGROUP: u64 id, then the path, NUL-terminated in the record. */
static int perf_file__parse_cgroup(const struct perf_record *r, struct sideband_rec *rec)
{
	if (r->size < 8 + 8 + 1 || !memchr(r->data + 16, '\0', r->size - 16))
		return -EINVAL;
	memcpy(&rec->id, r->data + 8, 8);
	rec->str = (const char *)r->data + 16;
	return 0;
}

int perf_file__parse_sideband(const struct perf_file *f, const struct perf_record *r,
			      struct sideband_rec *rec)
{
	struct perf_mmap_event m;
	struct perf_comm_event c;
	struct perf_task_event t;
	const struct perf_sample_id *sid;

	memset(rec, 0, sizeof(*rec));
	rec->type = r->type;
	switch (r->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (perf_file__parse_mmap(f, r, &m))
			return -EINVAL;
		rec->pid = m.pid;
		rec->tid = m.tid;
		rec->addr = m.start;
		rec->len = m.len;
		rec->pgoff = m.pgoff;
		rec->kernel = m.cpumode == PERF_RECORD_MISC_KERNEL;
		rec->flags = m.flags;
		rec->maj = m.maj;
		rec->min = m.min;
		rec->ino = m.ino;
		rec->ino_generation = m.ino_generation;
		if (m.has_build_id) {
			rec->build_id_size = m.build_id_size;
			rec->build_id = m.build_id;
		}
		/* perf names anonymous memory //anon; the live side band, as /proc, leaves it nameless */
		rec->str = strcmp(m.filename, "//anon") ? m.filename : NULL;
		sid = &m.sid;
		break;
	case PERF_RECORD_COMM:
		if (perf_file__parse_comm(f, r, &c))
			return -EINVAL;
		rec->pid = c.pid;
		rec->tid = c.tid;
		rec->exec = c.exec;
		rec->str = c.comm;
		sid = &c.sid;
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (perf_file__parse_task(f, r, &t))
			return -EINVAL;
		rec->pid = t.pid;
		rec->ppid = t.ppid;
		rec->tid = t.tid;
		sid = &t.sid;
		break;
	case PERF_RECORD_CGROUP:
		return perf_file__parse_cgroup(r, rec);
	default:
		return -ENOENT;
	}
	rec->time = (sid->type & PERF_SAMPLE_TIME) ? sid->time : 0;
	return 0;
}

void perf_file__build_id_section(const struct perf_file *f, struct perf_cursor *c)
{
	c->pos = f->build_id_off;
	c->end = f->build_id_off + f->build_id_len;
	c->from = c->pos;
}

#ifndef PERF_RECORD_MISC_BUILD_ID_SIZE
#define PERF_RECORD_MISC_BUILD_ID_SIZE (1 << 15)
#endif

int perf_file__parse_build_id(const struct perf_record *r, struct perf_build_id *b)
{
	/* header, pid, 20 bytes of ID, its size, 3 reserved */
	const unsigned char *p = r->data + 8, *end = r->data + r->size;

	memset(b, 0, sizeof(*b));
	if (r->size < 8 + 4 + 24)
		return -EINVAL;
	b->cpumode = r->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	b->pid = (__s32)rd32(p);
	b->id = p + 4;
	b->size = (r->misc & PERF_RECORD_MISC_BUILD_ID_SIZE) ? p[24] : 20;
	if (b->size > 20)
		b->size = 20;
	b->filename = record_string(p + 28, end);
	return b->filename ? 0 : -EINVAL;
}
