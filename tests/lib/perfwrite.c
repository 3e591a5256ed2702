// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/perfwrite.h"
#include "tests/lib/datasrc_cases.h"
#include "kernel/lib/util.h"

#ifndef PERF_SAMPLE_BRANCH_COUNTERS
#define PERF_SAMPLE_BRANCH_COUNTERS (1u << 19)
#endif
#ifndef PERF_FORMAT_LOST
#define PERF_FORMAT_LOST (1u << 4)
#endif

/* perf.data-file-format.txt */
#define HDR_SIZE	   104
#define FEAT_BUILD_ID	   2
#define FEAT_HOSTNAME	   3
#define FEAT_OSRELEASE	   4
#define FEAT_ARCH	   6
#define FEAT_NRCPUS	   7
#define FEAT_EVENT_DESC	   12
#define FEAT_NUMA_TOPOLOGY 14
#define REC_HEADER_ATTR	   64
#define REC_BUILD_ID	   67
#define REC_FEATURE	   80
#define MISC_BUILD_ID_SIZE (1 << 15) /* tools/perf: the size byte is valid */
#define NAME_ALIGN	   64

struct out {
	unsigned char *p;
	size_t len, cap;
};

static void out_put(struct out *o, const void *v, size_t n)
{
	if (o->len + n > o->cap) {
		o->cap = (o->len + n) * 2 + 256;
		o->p = realloc(o->p, o->cap);
		if (!o->p)
			abort();
	}
	memcpy(o->p + o->len, v, n);
	o->len += n;
}

static void out_u64(struct out *o, __u64 v)
{
	out_put(o, &v, 8);
}

static void out_u32(struct out *o, __u32 v)
{
	out_put(o, &v, 4);
}

/* perf's do_write_string: u32 length (padded to 64, NUL included), then the bytes */
static void out_string(struct out *o, const char *s)
{
	__u32 len = strlen(s) + 1, padded = (len + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
	static const char zero[NAME_ALIGN];

	out_u32(o, padded);
	out_put(o, s, len);
	out_put(o, zero, padded - len);
}

static void put_u64(unsigned char *b, size_t *n, __u64 v)
{
	memcpy(b + *n, &v, 8);
	*n += 8;
}

void pw_record(struct pw *w, __u32 type, __u16 misc, const void *body, size_t len)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = (__u16)(8 + len) };

	fwrite(&h, sizeof(h), 1, w->f);
	fwrite(body, len, 1, w->f);
}

/* The sample_id trailer of the first event: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER. */
static void put_trailer(struct pw *w, unsigned char *b, size_t *n, __u32 pid, __u32 tid, __u64 time)
{
	const struct pw_event *ev = &w->events[0];
	__u64 t = ev->attr.sample_type;

	if (!ev->attr.sample_id_all)
		return;
	if (t & PERF_SAMPLE_TID)
		put_u64(b, n, pid | (__u64)tid << 32);
	if (t & PERF_SAMPLE_TIME)
		put_u64(b, n, time);
	if (t & PERF_SAMPLE_ID)
		put_u64(b, n, ev->ids[0]);
	if (t & PERF_SAMPLE_STREAM_ID)
		put_u64(b, n, ev->ids[0]);
	if (t & PERF_SAMPLE_CPU)
		put_u64(b, n, 0);
	if (t & PERF_SAMPLE_IDENTIFIER)
		put_u64(b, n, ev->ids[0]);
}

/* A string field padded with NULs to a multiple of 8 bytes. */
static void put_string(unsigned char *b, size_t *n, const char *s)
{
	size_t len = strlen(s) + 1, padded = (len + 7) & ~(size_t)7;

	memset(b + *n, 0, padded);
	memcpy(b + *n, s, len);
	*n += padded;
}

void pw_comm(struct pw *w, __u32 pid, __u32 tid, const char *comm, __u64 time)
{
	size_t n = 0;

	memcpy(w->buf, &pid, 4);
	memcpy(w->buf + 4, &tid, 4);
	n = 8;
	put_string(w->buf, &n, comm);
	put_trailer(w, w->buf, &n, pid, tid, time);
	pw_record(w, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, w->buf, n);
}

void pw_mmap2(struct pw *w, __u32 pid, __u64 start, __u64 len, __u64 pgoff, const char *file,
	      __u64 time)
{
	size_t n = 0;
	__u32 prot = 5, flags = 2; /* PROT_READ|PROT_EXEC, MAP_PRIVATE */

	put_u64(w->buf, &n, pid | (__u64)pid << 32);
	put_u64(w->buf, &n, start);
	put_u64(w->buf, &n, len);
	put_u64(w->buf, &n, pgoff);
	put_u64(w->buf, &n, 8 | (__u64)1 << 32); /* maj 8, min 1 */
	put_u64(w->buf, &n, 4242);		 /* ino */
	put_u64(w->buf, &n, 0);			 /* ino_generation */
	memcpy(w->buf + n, &prot, 4);
	memcpy(w->buf + n + 4, &flags, 4);
	n += 8;
	put_string(w->buf, &n, file);
	put_trailer(w, w->buf, &n, pid, pid, time);
	pw_record(w, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, w->buf, n);
}

void pw_mmap2_data(struct pw *w, __u32 pid, __u64 start, __u64 len, __u64 pgoff, __u32 maj,
		   __u32 min, __u64 ino, bool shared, const char *file, __u64 time)
{
	size_t n = 0;
	__u32 prot = 3,
	      flags = shared ? 1 : 2; /* PROT_READ|PROT_WRITE; MAP_SHARED or MAP_PRIVATE */

	put_u64(w->buf, &n, pid | (__u64)pid << 32);
	put_u64(w->buf, &n, start);
	put_u64(w->buf, &n, len);
	put_u64(w->buf, &n, pgoff);
	put_u64(w->buf, &n, maj | (__u64)min << 32);
	put_u64(w->buf, &n, ino);
	put_u64(w->buf, &n, 0); /* ino_generation */
	memcpy(w->buf + n, &prot, 4);
	memcpy(w->buf + n + 4, &flags, 4);
	n += 8;
	put_string(w->buf, &n, file);
	put_trailer(w, w->buf, &n, pid, pid, time);
	pw_record(w, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_DATA, w->buf,
		  n);
}

void pw_mmap2_build_id(struct pw *w, __u32 pid, __u64 start, __u64 len, __u64 pgoff,
		       const unsigned char *id, int idlen, const char *file, __u64 time)
{
	size_t n = 0;
	__u32 prot = 5, flags = 2;

	put_u64(w->buf, &n, pid | (__u64)pid << 32);
	put_u64(w->buf, &n, start);
	put_u64(w->buf, &n, len);
	put_u64(w->buf, &n, pgoff);
	/* u8 size, 3 reserved bytes, 20 bytes of ID */
	memset(w->buf + n, 0, 24);
	w->buf[n] = (unsigned char)idlen;
	memcpy(w->buf + n + 4, id, idlen);
	n += 24;
	memcpy(w->buf + n, &prot, 4);
	memcpy(w->buf + n + 4, &flags, 4);
	n += 8;
	put_string(w->buf, &n, file);
	put_trailer(w, w->buf, &n, pid, pid, time);
	pw_record(w, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID,
		  w->buf, n);
}

void pw_kernel_mmap(struct pw *w, __u64 start, __u64 len, __u64 text, __u64 time)
{
	size_t n = 0;

	put_u64(w->buf, &n, (__u32)-1 | (__u64)0 << 32); /* pid -1, tid 0 */
	put_u64(w->buf, &n, start);
	put_u64(w->buf, &n, len);
	put_u64(w->buf, &n, text);
	put_string(w->buf, &n, "[kernel.kallsyms]_text");
	put_trailer(w, w->buf, &n, (__u32)-1, 0, time);
	pw_record(w, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL, w->buf, n);
}

void pw_build_id(struct pw *w, __u16 cpumode, const unsigned char *id, int len, const char *file)
{
	struct pw_build_id *b;

	if (w->nbuild_ids == PW_MAX_BUILD_IDS)
		abort();
	b = &w->build_ids[w->nbuild_ids++];
	b->cpumode = cpumode;
	memcpy(b->id, id, len);
	b->len = len;
	snprintf(b->file, sizeof(b->file), "%s", file);
}

/* perf's build_id event: header, pid, 20 bytes of ID, size, 3 reserved, the name padded to 64. */
static void out_build_id(struct out *o, const struct pw_build_id *b, __u32 type)
{
	size_t name = (strlen(b->file) + 1 + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
	struct perf_event_header h = { .type = type,
				       .misc = b->cpumode | MISC_BUILD_ID_SIZE,
				       .size = (__u16)(8 + 4 + 24 + name) };
	unsigned char id[24] = { 0 };
	char pad[NAME_ALIGN * 5] = { 0 };
	__s32 pid = -1;

	memcpy(id, b->id, b->len);
	id[20] = (unsigned char)b->len;
	snprintf(pad, sizeof(pad), "%s", b->file);
	out_put(o, &h, sizeof(h));
	out_put(o, &pid, 4);
	out_put(o, id, sizeof(id));
	out_put(o, pad, name);
}

static void pw_task(struct pw *w, __u32 type, __u32 pid, __u32 ppid, __u64 time)
{
	size_t n = 0;

	put_u64(w->buf, &n, pid | (__u64)ppid << 32);
	put_u64(w->buf, &n, pid | (__u64)ppid << 32); /* tid, ptid */
	put_u64(w->buf, &n, time);
	put_trailer(w, w->buf, &n, pid, pid, time);
	pw_record(w, type, 0, w->buf, n);
}

void pw_fork(struct pw *w, __u32 pid, __u32 ppid, __u64 time)
{
	pw_task(w, PERF_RECORD_FORK, pid, ppid, time);
}

void pw_exit(struct pw *w, __u32 pid, __u32 ppid, __u64 time)
{
	pw_task(w, PERF_RECORD_EXIT, pid, ppid, time);
}

/* A group reads every member, from the first event; IDs are each event's first. */
static void put_read(const struct pw *w, int evi, const struct pw_sample *s, unsigned char *b,
		     size_t *n)
{
	const struct pw_event *ev = &w->events[evi];
	__u64 rf = ev->attr.read_format;
	int i;

	if (rf & PERF_FORMAT_GROUP) {
		put_u64(b, n, s->group_nr);
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			put_u64(b, n, s->time_enabled);
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			put_u64(b, n, s->time_running);
		for (i = 0; i < s->group_nr; i++) {
			put_u64(b, n, s->group_value[i]);
			if (rf & PERF_FORMAT_ID)
				put_u64(b, n, w->events[i % w->nevents].ids[0]);
			if (rf & PERF_FORMAT_LOST)
				put_u64(b, n, s->group_lost[i]);
		}
		return;
	}
	put_u64(b, n, s->read_value);
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
		put_u64(b, n, s->time_enabled);
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
		put_u64(b, n, s->time_running);
	if (rf & PERF_FORMAT_ID)
		put_u64(b, n, ev->ids[0]);
	if (rf & PERF_FORMAT_LOST)
		put_u64(b, n, s->read_lost);
}

static void put_regs(unsigned char *b, size_t *n, __u64 abi, __u64 mask, const __u64 *regs)
{
	int i, nr = __builtin_popcountll(mask);

	put_u64(b, n, abi);
	if (abi == PERF_SAMPLE_REGS_ABI_NONE)
		return;
	for (i = 0; i < nr; i++)
		put_u64(b, n, regs[i]);
}

/* In the order of the kernel's perf_output_sample(). */
void pw_sample(struct pw *w, int evi, const struct pw_sample *s)
{
	const struct pw_event *ev = &w->events[evi];
	__u64 t = ev->attr.sample_type, id = ev->ids[0];
	unsigned char *b = w->buf;
	size_t n = 0;
	int i;

	if (t & PERF_SAMPLE_IDENTIFIER)
		put_u64(b, &n, id);
	if (t & PERF_SAMPLE_IP)
		put_u64(b, &n, s->ip);
	if (t & PERF_SAMPLE_TID)
		put_u64(b, &n, s->pid | (__u64)s->tid << 32);
	if (t & PERF_SAMPLE_TIME)
		put_u64(b, &n, s->time);
	if (t & PERF_SAMPLE_ADDR)
		put_u64(b, &n, s->addr);
	if (t & PERF_SAMPLE_ID)
		put_u64(b, &n, id);
	if (t & PERF_SAMPLE_STREAM_ID)
		put_u64(b, &n, s->stream_id);
	if (t & PERF_SAMPLE_CPU)
		put_u64(b, &n, s->cpu);
	if (t & PERF_SAMPLE_PERIOD)
		put_u64(b, &n, s->period);
	if (t & PERF_SAMPLE_READ)
		put_read(w, evi, s, b, &n);
	if (t & PERF_SAMPLE_CALLCHAIN) {
		put_u64(b, &n, s->callchain_nr);
		for (i = 0; i < s->callchain_nr; i++)
			put_u64(b, &n, s->callchain[i]);
	}
	if (t & PERF_SAMPLE_RAW) {
		memcpy(b + n, &s->raw_size, 4);
		memcpy(b + n + 4, s->raw, s->raw_size);
		n += 4 + s->raw_size;
	}
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		put_u64(b, &n, s->branch_nr);
		if ((ev->attr.branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) &&
		    !s->branch_no_hw_idx)
			put_u64(b, &n, s->hw_idx);
		memcpy(b + n, s->branch, s->branch_nr * sizeof(s->branch[0]));
		n += s->branch_nr * sizeof(s->branch[0]);
		if (ev->attr.branch_sample_type & PERF_SAMPLE_BRANCH_COUNTERS)
			for (i = 0; i < s->branch_nr; i++)
				put_u64(b, &n, s->branch_cntr[i]);
	}
	if (t & PERF_SAMPLE_REGS_USER)
		put_regs(b, &n, s->regs_user_abi, ev->attr.sample_regs_user, s->regs_user);
	if (t & PERF_SAMPLE_STACK_USER) {
		put_u64(b, &n, s->stack_size);
		if (s->stack_size) {
			memcpy(b + n, s->stack, s->stack_size);
			n += s->stack_size;
			put_u64(b, &n, s->stack_dyn_size);
		}
	}
	if (t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		put_u64(b, &n, s->weight);
	if (t & PERF_SAMPLE_DATA_SRC)
		put_u64(b, &n, s->data_src);
	if (t & PERF_SAMPLE_TRANSACTION)
		put_u64(b, &n, s->transaction);
	if (t & PERF_SAMPLE_REGS_INTR)
		put_regs(b, &n, s->regs_intr_abi, ev->attr.sample_regs_intr, s->regs_intr);
	if (t & PERF_SAMPLE_PHYS_ADDR)
		put_u64(b, &n, s->phys_addr);
	if (t & PERF_SAMPLE_CGROUP)
		put_u64(b, &n, s->cgroup);
	if (t & PERF_SAMPLE_DATA_PAGE_SIZE)
		put_u64(b, &n, s->data_page_size);
	if (t & PERF_SAMPLE_CODE_PAGE_SIZE)
		put_u64(b, &n, s->code_page_size);
	if (t & PERF_SAMPLE_AUX) {
		put_u64(b, &n, s->aux_size);
		memcpy(b + n, s->aux, s->aux_size);
		n += s->aux_size;
	}
	pw_record(w, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, b, n);
	w->nsamples++;
}

/* HEADER_EVENT_DESC: u32 nr, u32 attr size, then per event attr, u32 nr_ids, name, ids. */
static void feat_event_desc(struct pw *w, struct out *o)
{
	int i, k;

	out_u32(o, w->nevents);
	out_u32(o, sizeof(struct perf_event_attr));
	for (i = 0; i < w->nevents; i++) {
		out_put(o, &w->events[i].attr, sizeof(struct perf_event_attr));
		out_u32(o, w->events[i].nids);
		out_string(o, w->events[i].name);
		for (k = 0; k < w->events[i].nids; k++)
			out_u64(o, w->events[i].ids[k]);
	}
}

static void attr_with_size(const struct pw_event *ev, struct perf_event_attr *a)
{
	*a = ev->attr;
	a->size = sizeof(*a);
}

int pw_open(struct pw *w, const char *path, const struct pw_event *events, int nevents, bool pipe)
{
	struct perf_event_attr a;
	unsigned char zero[HDR_SIZE] = { 0 };
	__u64 v;
	int i;

	memset(w, 0, sizeof(*w));
	w->events = events;
	w->nevents = nevents;
	w->pipe = pipe;
	w->f = fopen(path, "w+e");
	if (!w->f)
		return -errno;
	setvbuf(w->f, NULL, _IOFBF, 1 << 20);
	if (pipe) {
		/* magic, header size 16, then an attr record per event: attr and its IDs */
		fwrite("PERFILE2", 8, 1, w->f);
		v = 16;
		fwrite(&v, 8, 1, w->f);
		for (i = 0; i < nevents; i++) {
			struct out o = {};

			attr_with_size(&events[i], &a);
			out_put(&o, &a, sizeof(a));
			out_put(&o, events[i].ids, events[i].nids * 8);
			pw_record(w, REC_HEADER_ATTR, 0, o.p, o.len);
			free(o.p);
		}
		return 0;
	}
	/* header placeholder, then each event's IDs, then the attr section, then the data */
	fwrite(zero, sizeof(zero), 1, w->f);
	for (i = 0; i < nevents; i++)
		fwrite(events[i].ids, 8, events[i].nids, w->f);
	w->attrs_offset = ftell(w->f);
	v = HDR_SIZE;
	for (i = 0; i < nevents; i++) {
		__u64 sec[2] = { v, events[i].nids * 8ull };

		attr_with_size(&events[i], &a);
		fwrite(&a, sizeof(a), 1, w->f);
		fwrite(sec, sizeof(sec), 1, w->f);
		v += events[i].nids * 8ull;
	}
	w->data_offset = ftell(w->f);
	return 0;
}

int pw_close(struct pw *w)
{
	/* in the order of their bits; the build IDs only when there are some */
	static const int all[] = { FEAT_BUILD_ID, FEAT_HOSTNAME,   FEAT_OSRELEASE,    FEAT_ARCH,
				   FEAT_NRCPUS,	  FEAT_EVENT_DESC, FEAT_NUMA_TOPOLOGY };
	const int *feats = w->nbuild_ids && !w->pipe ? all : all + 1;
	__u64 data_end, bitmap[4] = { 0 }, hdr[9], sec[2];
	struct out body[7] = {};
	unsigned int i, nf = w->no_features ? 0 : ARRAY_SIZE(all) - (feats != all) - !w->nnodes;
	int e = 0, k;

	if (w->pipe) /* build IDs come as records, at the end as perf writes them */
		for (k = 0; k < w->nbuild_ids; k++) {
			struct out o = {};

			out_build_id(&o, &w->build_ids[k], REC_BUILD_ID);
			fwrite(o.p, o.len, 1, w->f);
			free(o.p);
		}
	for (i = 0; i < nf; i++) {
		switch (feats[i]) {
		case FEAT_BUILD_ID:
			for (k = 0; k < w->nbuild_ids; k++)
				out_build_id(&body[i], &w->build_ids[k], 0);
			break;
		case FEAT_HOSTNAME:
			out_string(&body[i], w->hostname ? w->hostname : "ldlat-test");
			break;
		case FEAT_OSRELEASE:
			out_string(&body[i], w->osrelease ? w->osrelease : "6.1.0-test");
			break;
		case FEAT_ARCH:
			out_string(&body[i], "x86_64");
			break;
		case FEAT_NRCPUS:
			out_u32(&body[i], 4); /* online */
			out_u32(&body[i], 4); /* available */
			break;
		case FEAT_EVENT_DESC:
			feat_event_desc(w, &body[i]);
			break;
		case FEAT_NUMA_TOPOLOGY:
			/* u32 nr, then per node: u32 id, u64 total and free memory (kB), its CPUs */
			out_u32(&body[i], w->nnodes);
			for (k = 0; k < w->nnodes; k++) {
				out_u32(&body[i], k);
				out_u64(&body[i], 1 << 20);
				out_u64(&body[i], 1 << 19);
				out_string(&body[i], w->node_cpus[k]);
			}
			break;
		}
		bitmap[feats[i] / 64] |= 1ull << (feats[i] % 64);
	}
	if (w->pipe) {
		/* features as HEADER_FEATURE records: the feature's ID, then its body */
		for (i = 0; i < nf; i++) {
			struct out o = {};

			out_u64(&o, feats[i]);
			out_put(&o, body[i].p, body[i].len);
			pw_record(w, REC_FEATURE, 0, o.p, o.len);
			free(o.p);
		}
		goto out;
	}
	data_end = ftell(w->f);
	/* the section table, then the bodies it points to */
	sec[0] = data_end + nf * 16;
	for (i = 0; i < nf; i++) {
		sec[1] = body[i].len;
		fwrite(sec, sizeof(sec), 1, w->f);
		sec[0] += body[i].len;
	}
	for (i = 0; i < nf; i++)
		fwrite(body[i].p, body[i].len, 1, w->f);
	hdr[0] = 0;
	memcpy(&hdr[0], "PERFILE2", 8);
	hdr[1] = HDR_SIZE;
	hdr[2] = sizeof(struct perf_event_attr) + 16;
	hdr[3] = w->attrs_offset;
	hdr[4] = (sizeof(struct perf_event_attr) + 16) * w->nevents;
	hdr[5] = w->data_offset;
	hdr[6] = data_end - w->data_offset;
	hdr[7] = 0; /* event_types: unused */
	hdr[8] = 0;
	if (fseek(w->f, 0, SEEK_SET) || fwrite(hdr, sizeof(hdr), 1, w->f) != 1 ||
	    fwrite(bitmap, sizeof(bitmap), 1, w->f) != 1)
		e = -EIO;
out:
	for (i = 0; i < nf; i++)
		free(body[i].p);
	if (fclose(w->f) && !e)
		e = -errno;
	w->f = NULL;
	return e;
}

void pw_mem_loads_event(struct pw_event *ev, __u64 first_id)
{
	memset(ev, 0, sizeof(*ev));
	ev->attr.type = PERF_TYPE_RAW;
	ev->attr.size = sizeof(ev->attr);
	ev->attr.config = 0x1cd; /* mem-loads: event 0xcd, umask 0x1 */
	ev->attr.config1 = 30;	 /* ldlat */
	ev->attr.sample_freq = 4000;
	ev->attr.freq = 1;
	ev->attr.precise_ip = 3;
	ev->attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_CPU |
			       PERF_SAMPLE_PERIOD | PERF_SAMPLE_DATA_SRC |
			       PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_IDENTIFIER;
	ev->attr.read_format = PERF_FORMAT_ID;
	ev->attr.mmap = 1;
	ev->attr.comm = 1;
	ev->attr.task = 1;
	ev->attr.mmap_data = 1;
	ev->attr.mmap2 = 1;
	ev->attr.comm_exec = 1;
	ev->attr.sample_id_all = 1;
	ev->attr.exclude_guest = 1;
	ev->name = "cpu/mem-loads,ldlat=30/P";
	ev->ids[0] = first_id;
	ev->ids[1] = first_id + 1;
	ev->nids = 2;
}

bool pw_layout_event(struct pw_event *ev, int layout, __u64 first_id)
{
	struct perf_event_attr *a = &ev->attr;

	pw_mem_loads_event(ev, first_id);
	switch (layout) {
	case PW_EVERY_FIELD:
	case PW_BRANCH_COUNTERS:
		a->sample_type = (PERF_SAMPLE_WEIGHT_STRUCT * 2 - 1) & ~(__u64)PERF_SAMPLE_WEIGHT;
		a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
				 PERF_FORMAT_ID | PERF_FORMAT_LOST;
		a->branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER |
					PERF_SAMPLE_BRANCH_HW_INDEX;
		if (layout == PW_BRANCH_COUNTERS)
			a->branch_sample_type |= PERF_SAMPLE_BRANCH_COUNTERS;
		a->sample_regs_user = 0x7;   /* three registers */
		a->sample_regs_intr = 0x300; /* two */
		a->sample_stack_user = 64;
		a->aux_sample_size = 16;
		ev->name = layout == PW_EVERY_FIELD ? "every-field" : "branch-counters";
		return true;
	case PW_GROUP_READ:
	case PW_GROUP_MEMBER:
		a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_READ |
				 PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK |
				 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
				 PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_PHYS_ADDR;
		a->read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
				 PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_LOST;
		a->branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER;
		a->sample_regs_user = 0xff;
		a->sample_stack_user = 64;
		ev->name = layout == PW_GROUP_READ ? "group-read" : "group-member";
		return true;
	case PW_EMPTY_BRANCH:
		a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR |
				 PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_WEIGHT_STRUCT |
				 PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_PHYS_ADDR;
		a->branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER |
					PERF_SAMPLE_BRANCH_HW_INDEX;
		ev->name = "empty-branch";
		return true;
	case PW_ADDR_ONLY:
		a->type = PERF_TYPE_SOFTWARE;
		a->config = PERF_COUNT_SW_PAGE_FAULTS;
		a->config1 = 0;
		a->precise_ip = 0;
		a->freq = 0;
		a->sample_period = 1;
		a->sample_type = PERF_SAMPLE_ADDR;
		a->sample_id_all = 0;
		ev->name = "page-faults";
		return true;
	}
	return false;
}

void pw_layout_sample(struct pw_sample *s, int layout, __u64 i)
{
	int k;

	memset(s, 0, sizeof(*s));
	s->ip = 0x400000 + i * 4;
	s->pid = 100 + i % 3;
	s->tid = s->pid + 1000;
	s->time = 1000000 + i * 1000;
	s->addr = 0x7f0000000000ull + i * 4096 + i % 64;
	s->stream_id = 77;
	s->cpu = i % 4;
	s->period = 1000 + i;
	s->read_value = 5000 + i;
	s->time_enabled = 2 * i;
	s->time_running = i;
	s->read_lost = i % 2;
	s->group_nr = 2;
	s->group_value[0] = 10 + i;
	s->group_value[1] = 20 + i;
	s->callchain_nr = i % 5;
	for (k = 0; k < s->callchain_nr; k++)
		s->callchain[k] = 0x401000 + k;
	s->raw_size = 12; /* 4 + 12: u64-aligned, as the kernel pads it */
	memset(s->raw, 0xab, s->raw_size);
	/* empty stacks in one sample of three */
	s->branch_nr = i % 3 == 0 ? 0 : 1 + i % 4;
	s->branch_no_hw_idx = layout == PW_EMPTY_BRANCH && s->branch_nr == 0;
	s->hw_idx = i;
	for (k = 0; k < s->branch_nr; k++) {
		s->branch[k].from = 0x401000 + k;
		s->branch[k].to = 0x402000 + k;
		s->branch_cntr[k] = k;
	}
	s->regs_user_abi = layout == PW_GROUP_READ && i % 2 ? PERF_SAMPLE_REGS_ABI_NONE
							    : PERF_SAMPLE_REGS_ABI_64;
	for (k = 0; k < 8; k++)
		s->regs_user[k] = 0x1000 + k;
	s->stack_size = layout == PW_GROUP_READ ? 0 : 64;
	memset(s->stack, 0xcd, sizeof(s->stack));
	s->stack_dyn_size = 48;
	/* instruction latency in var2_w: only var1_dw is the cache latency */
	s->weight = (1ull << (i % 21)) + i % 7 + ((__u64)(i % 300) << 32);
	s->data_src = 0x68100142 + (i % 2) * 0x100000000ull;
	s->transaction = 3;
	s->regs_intr_abi = PERF_SAMPLE_REGS_ABI_64;
	s->regs_intr[0] = 0x2000;
	s->regs_intr[1] = 0x2001;
	s->phys_addr = 0x12345000 + i * 64;
	s->cgroup = 9;
	s->data_page_size = 4096;
	s->code_page_size = 4096;
	s->aux_size = 16;
	memset(s->aux, 0xef, s->aux_size);
}

int pw_write_layout(const char *path, int layout, __u64 n, bool pipe)
{
	struct pw_event ev[2];
	struct pw_sample s;
	struct pw w;
	__u64 i;
	int e;

	if (!pw_layout_event(&ev[0], layout, 100) || layout >= PW_NLAYOUTS)
		return -EINVAL;
	pw_layout_event(&ev[1], PW_GROUP_MEMBER, 200);
	e = pw_open(&w, path, ev, layout == PW_GROUP_READ ? 2 : 1, pipe);
	if (e)
		return e;
	pw_comm(&w, 100, 100, "layout-test", 500);
	pw_mmap2(&w, 100, 0x400000, 0x10000, 0x1000, "/usr/bin/layout-test", 600);
	pw_fork(&w, 101, 100, 700);
	for (i = 0; i < n; i++) {
		pw_layout_sample(&s, layout, i);
		pw_sample(&w, 0, &s);
	}
	pw_exit(&w, 101, 100, 900);
	return pw_close(&w);
}

/* ---- pw_write_c2c ---- */

struct gen {
	struct pw w;
	__u64 t;
	__u64 seed;
};

static __u64 rnd(struct gen *g)
{
	g->seed = g->seed * 6364136223846793005ull + 1442695040888963407ull;
	return g->seed >> 33;
}

static void sample(struct gen *g, int ev, __u32 pid, __u32 tid, __u32 cpu, __u64 addr, __u64 ip,
		   __u64 ds)
{
	struct pw_sample s = {};

	s.ip = ip;
	s.pid = pid;
	s.tid = tid;
	s.time = g->t++;
	s.addr = addr;
	s.id = ev ? 200 : 100;
	s.cpu = cpu;
	s.period = 1;
	s.weight = ev ? 0 : 50 + rnd(g) % 400;
	s.data_src = ds;
	pw_sample(&g->w, ev, &s);
}

static void load(struct gen *g, __u32 pid, __u32 tid, __u32 cpu, __u64 addr, __u64 ip, __u64 ds)
{
	sample(g, 0, pid, tid, cpu, addr, ip, ds);
}

static void store(struct gen *g, __u32 pid, __u32 tid, __u32 cpu, __u64 addr, __u64 ip, __u64 ds)
{
	sample(g, 1, pid, tid, cpu, addr, ip, ds);
}

/* The loads' data sources of the random part: the generic Intel table */
static const __u64 c2c_rand_loads[] = { GEN_01, GEN_02, GEN_03, GEN_04, GEN_05,
					GEN_06, GEN_07, GEN_08, GEN_09, GEN_0A,
					GEN_0B, GEN_0C, GEN_0D, GEN_07, GEN_09 };

int pw_write_c2c(const char *path, int nrandom)
{
	struct pw_event ev[2];
	struct gen g = { .t = 1000, .seed = 42 };
	int i, e;

	pw_mem_loads_event(&ev[0], 100);
	pw_mem_loads_event(&ev[1], 200);
	ev[1].attr.config = 0x82d0; /* mem-stores */
	ev[1].attr.config1 = 0;
	ev[1].name = "cpu/mem-stores/P";
	e = pw_open(&g.w, path, ev, 2, false);
	if (e)
		return e;
	g.w.nnodes = 2;
	g.w.node_cpus[0] = "0-1";
	g.w.node_cpus[1] = "2-3";
	pw_comm(&g.w, 100, 100, "fs", 10);
	pw_comm(&g.w, 200, 200, "priv", 11);
	pw_comm(&g.w, 300, 300, "peer", 12);
	for (i = 0; i < 3; i++) {
		__u32 pid = 100 * (i + 1);

		pw_mmap2(&g.w, pid, PW_C2C_CODE, 0x10000, 0, "/usr/bin/c2c-test", 20);
		pw_mmap2_data(&g.w, pid, PW_C2C_ANON, 0x100000, 0, 0, 0, 0, false, "//anon", 21);
	}
	/* 100 maps the file from its second page, 300 from its start */
	pw_mmap2_data(&g.w, 100, PW_C2C_SHM_A, 0x10000, 0x1000, 0, 25, 777, true,
		      "/dev/shm/c2c-test", 22);
	pw_mmap2_data(&g.w, 300, PW_C2C_SHM_B, 0x11000, 0, 0, 25, 777, true, "/dev/shm/c2c-test",
		      23);

	for (i = 0; i < 20; i++) {
		/* false sharing: each thread writes its own word, reads the other's (HITM) */
		store(&g, 100, 100, 0, PW_C2C_FS, PW_C2C_CODE + 0x100,
		      i % 4 ? PW_C2C_ST_L1HIT : PW_C2C_ST_L1MISS);
		store(&g, 100, 101, 2, PW_C2C_FS + 8, PW_C2C_CODE + 0x200, PW_C2C_ST_L1HIT);
		load(&g, 100, 101, 2, PW_C2C_FS, PW_C2C_CODE + 0x210, GEN_07);
		load(&g, 100, 100, 0, PW_C2C_FS + 8, PW_C2C_CODE + 0x110, GEN_09);
	}
	for (i = 0; i < 10; i++) {
		/* true sharing: 100 writes a counter, 101 reads it */
		store(&g, 100, 100, 1, PW_C2C_TS + 0x10, PW_C2C_CODE + 0x300, PW_C2C_ST_L1HIT);
		load(&g, 100, 101, 3, PW_C2C_TS + 0x10, PW_C2C_CODE + 0x310, GEN_07);
		/* one thread alone, L1 hits */
		load(&g, 100, 100, 0, PW_C2C_SOLO + 0x20, PW_C2C_CODE + 0x400, GEN_01);
		store(&g, 100, 100, 0, PW_C2C_SOLO + 0x20, PW_C2C_CODE + 0x410, PW_C2C_ST_L1HIT);
	}
	for (i = 0; i < 5; i++) {
		/* process 200's own line at the address of 100's false sharing */
		load(&g, 200, 200, 1, PW_C2C_FS, PW_C2C_CODE + 0x500, GEN_07);
		/* the shared file: 100 writes at its offset 0x1100, 300 reads it at its own address */
		store(&g, 100, 100, 0, PW_C2C_SHM_A + 0x100, PW_C2C_CODE + 0x600, PW_C2C_ST_L1HIT);
		load(&g, 300, 300, 3, PW_C2C_SHM_B + 0x1104, PW_C2C_CODE + 0x610, GEN_09);
	}
	for (i = 0; i < nrandom; i++) {
		__u64 addr = PW_C2C_RAND + (rnd(&g) % 64) * 64 + (rnd(&g) % 8) * 8;
		__u32 tid = 100 + rnd(&g) % 2, cpu = rnd(&g) % 4;
		__u64 ip = PW_C2C_CODE + 0x1000 + (rnd(&g) % 16) * 4;

		if (rnd(&g) % 3 == 0)
			store(&g, 100, tid, cpu, addr, ip,
			      rnd(&g) % 5 ? PW_C2C_ST_L1HIT : PW_C2C_ST_L1MISS);
		else
			load(&g, 100, tid, cpu, addr, ip,
			     c2c_rand_loads[rnd(&g) % ARRAY_SIZE(c2c_rand_loads)]);
	}
	return pw_close(&g.w);
}
