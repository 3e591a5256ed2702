// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "kernel/abi/sideband.h"

#define CPU_RING_PAGES	32 /* data pages per CPU: hundreds of mmaps between drains */
#define TASK_RING_PAGES 8  /* per thread of a -p target, or per command */

/* The trailer of every record (sample_id_all with PERF_SAMPLE_TID | PERF_SAMPLE_TIME). */
struct sample_id {
	__u32 pid, tid;
	__u64 time;
};

static int sideband__map(struct sideband *sb, struct err *err)
{
	long page = sysconf(_SC_PAGESIZE);
	int i;

	sb->rings = calloc(sb->evlist.nfds, sizeof(*sb->rings));
	if (!sb->rings)
		return -ENOMEM;
	for (i = 0; i < sb->evlist.nfds; i++) {
		struct sideband_ring *r = &sb->rings[i];

		r->len = (size_t)page + sb->data_size;
		r->base = mmap(NULL, r->len, PROT_READ | PROT_WRITE, MAP_SHARED,
			       sb->evlist.fds[i].fd, 0);
		if (r->base == MAP_FAILED) {
			int e = errno;

			r->base = NULL;
			err__msg(err, "cannot map the side band's ring buffer (%zu KiB): %s%s",
				 r->len >> 10, strerror(e),
				 e == EPERM
					 ? " (raise /proc/sys/kernel/perf_event_mlock_kb, or run "
					   "as root)"
					 : "");
			return -e;
		}
		sb->nrings++;
	}
	return 0;
}

int sideband__open(struct sideband *sb, const struct target *target, struct err *err)
{
	struct target all = { .kind = TARGET_SYSTEM, .cgroup_fd = -1 };
	const struct target *t = target;
	struct evsel ev = {};
	int e;

	memset(sb, 0, sizeof(*sb));
	ev.attr.size = sizeof(ev.attr);
	ev.attr.type = PERF_TYPE_SOFTWARE;
	ev.attr.config = PERF_COUNT_SW_DUMMY;
	ev.attr.sample_period = 1;
	ev.attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	ev.attr.sample_id_all = 1;
	ev.attr.mmap = 1;
	ev.attr.mmap2 = 1;
	ev.attr.mmap_data = 1;
	ev.attr.comm = 1;
	ev.attr.comm_exec = 1;
	ev.attr.task = 1;
	ev.attr.use_clockid = 1;
	ev.attr.clockid = CLOCK_MONOTONIC;
	snprintf(ev.name, sizeof(ev.name), "the side band (dummy event: mmap, exec, fork, exit)");
	e = evlist__add(&sb->evlist, &ev);
	if (e)
		return e;
	if (target->kind == TARGET_CPUS || (target->kind == TARGET_TASKS && target->inherit)) {
		e = cpumap__online(&all.cpus, err);
		if (e)
			return e;
		if (target->kind == TARGET_TASKS) {
			/* the kernel maps an inherited task event's ring only per CPU */
			all.kind = TARGET_TASKS;
			all.tids = target->tids;
			all.tgids = target->tgids;
			all.ntids = target->ntids;
			all.inherit = true;
		}
		t = &all;
	}
	sb->data_size = (size_t)sysconf(_SC_PAGESIZE) *
			(t->kind == TARGET_TASKS ? TASK_RING_PAGES : CPU_RING_PAGES);
	/* a ring per (task, CPU): a handful of mmaps each between drains */
	e = evlist__open(&sb->evlist, t, err);
	cpumap__free(&all.cpus);
	if (!e)
		e = sideband__map(sb, err);
	if (!e && (e = evlist__enable(&sb->evlist)))
		err__msg(err, "cannot enable the side band: %s", strerror(-e));
	return e;
}

/* Appends len bytes from a ring that may wrap at size. */
static int sideband__copy(struct sideband *sb, const char *data, size_t size, __u64 off, size_t len)
{
	size_t at = off % size, first = len < size - at ? len : size - at;
	char *tmp;

	if (sb->buflen + len > sb->bufcap) {
		size_t cap = sb->bufcap ? sb->bufcap * 2 : 1 << 16;

		while (cap < sb->buflen + len)
			cap *= 2;
		tmp = realloc(sb->buf, cap);
		if (!tmp)
			return -ENOMEM;
		sb->buf = tmp;
		sb->bufcap = cap;
	}
	memcpy(sb->buf + sb->buflen, data + at, first);
	memcpy(sb->buf + sb->buflen + first, data, len - first);
	sb->buflen += len;
	return 0;
}

static int sideband__read_ring(struct sideband *sb, struct sideband_ring *r)
{
	struct perf_event_mmap_page *pg = r->base;
	const char *data = (const char *)r->base + (r->len - sb->data_size);
	__u64 head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE), tail = pg->data_tail;
	struct perf_event_header h;
	size_t start;
	int e = 0;

	while (tail + sizeof(h) <= head) {
		start = sb->buflen;
		e = sideband__copy(sb, data, sb->data_size, tail, sizeof(h));
		if (e)
			break;
		memcpy(&h, sb->buf + start, sizeof(h));
		sb->buflen = start;
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		e = sideband__copy(sb, data, sb->data_size, tail, h.size);
		if (e)
			break;
		tail += h.size;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	return e;
}

/* Fills r from a raw record; false for records of no interest. */
static bool sideband__parse(struct sideband *sb, const char *raw, struct sideband_rec *r)
{
	const struct perf_event_header *h = (const void *)raw;
	const struct sample_id *id = (const void *)(raw + h->size - sizeof(*id));
	const __u32 *u32 = (const void *)(raw + sizeof(*h));
	const __u64 *u64;

	memset(r, 0, sizeof(*r));
	r->type = h->type;
	if (h->size < sizeof(*h) + sizeof(*id))
		return false;
	r->time = id->time;
	switch (h->type) {
	case PERF_RECORD_MMAP2:
		/* pid, tid; addr, len, pgoff; maj/min/ino/gen or build ID (24); prot, flags; name */
		if (h->size < 72 + sizeof(*id))
			return false;
		r->pid = u32[0];
		r->tid = u32[1];
		u64 = (const void *)(raw + sizeof(*h) + 8);
		r->addr = u64[0];
		r->len = u64[1];
		r->pgoff = u64[2];
		r->str = raw + 72;
		if (!strcmp(r->str, "//anon"))
			r->str = NULL;
		return true;
	case PERF_RECORD_COMM:
		r->pid = u32[0];
		r->tid = u32[1];
		r->str = (const char *)&u32[2];
		r->exec = h->misc & PERF_RECORD_MISC_COMM_EXEC;
		return true;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		r->pid = u32[0];
		r->ppid = u32[1];
		r->tid = u32[2];
		return true;
	case PERF_RECORD_LOST:
		u64 = (const void *)(raw + sizeof(*h));
		sb->lost += u64[1];
		return false;
	default:
		return false;
	}
}

struct rec_ref {
	__u64 time;
	size_t off; /* into sb->buf */
	size_t seq; /* order of arrival, for equal times */
};

static int rec_ref__cmp(const void *a, const void *b)
{
	const struct rec_ref *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int sideband__drain(struct sideband *sb, void (*fn)(const struct sideband_rec *r, void *ctx),
		    void *ctx)
{
	struct perf_event_header h;
	struct sideband_rec rec;
	struct rec_ref *refs;
	size_t off, n = 0, i;
	int e = 0;

	sb->buflen = 0;
	for (i = 0; i < (size_t)sb->nrings && !e; i++)
		e = sideband__read_ring(sb, &sb->rings[i]);
	if (e)
		return e;
	for (off = 0; off < sb->buflen; off += h.size, n++)
		memcpy(&h, sb->buf + off, sizeof(h));
	refs = calloc(n ? n : 1, sizeof(*refs));
	if (!refs)
		return -ENOMEM;
	for (off = 0, i = 0; off < sb->buflen; off += h.size, i++) {
		const struct sample_id *id;

		memcpy(&h, sb->buf + off, sizeof(h));
		id = (const void *)(sb->buf + off + h.size - sizeof(*id));
		refs[i] = (struct rec_ref){ h.size >= sizeof(h) + sizeof(*id) ? id->time : 0, off,
					    i };
	}
	qsort(refs, n, sizeof(*refs), rec_ref__cmp);
	for (i = 0; i < n; i++)
		if (sideband__parse(sb, sb->buf + refs[i].off, &rec))
			fn(&rec, ctx);
	free(refs);
	return (int)n;
}

void sideband__close(struct sideband *sb)
{
	int i;

	for (i = 0; i < sb->nrings; i++)
		munmap(sb->rings[i].base, sb->rings[i].len);
	free(sb->rings);
	free(sb->buf);
	evlist__free(&sb->evlist);
	memset(sb, 0, sizeof(*sb));
}
