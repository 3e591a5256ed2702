// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "kernel/abi/sideband.h"

/*
 * Data pages per CPU (perf record's default, 512 KiB): thousands of mmaps
 * between two reads, as a command that starts many processes makes (a shell
 * shim that execs python maps about a hundred files each time).  Where the
 * locked-memory limit refuses it (perf_event_mlock_kb, without
 * CAP_IPC_LOCK), a quarter, then a sixteenth.
 */
#define CPU_RING_PAGES	128
#define TASK_RING_PAGES 32 /* per thread of a -p target */
#define MIN_RING_PAGES	8
/*
 * The reader holds at most this much that the tool has not drained: beyond
 * it the rings fill, and the kernel counts what it cannot write (lost).
 */
#define MAX_RAW	     (64u << 20)
#define SHRINK_ABOVE (1u << 20)

static void sideband__start_reader(struct sideband *sb);

/* The trailer of every record (sample_id_all with PERF_SAMPLE_TID | PERF_SAMPLE_TIME). */
struct sample_id {
	__u32 pid, tid;
	__u64 time;
};

static void sideband__unmap(struct sideband *sb)
{
	int i;

	for (i = 0; i < sb->nrings; i++)
		munmap(sb->rings[i].base, sb->rings[i].len);
	free(sb->rings);
	sb->rings = NULL;
	sb->nrings = 0;
}

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
			if (e == EPERM && sb->data_size > (size_t)page * MIN_RING_PAGES) {
				/* over the locked-memory limit: smaller rings, read as often */
				sideband__unmap(sb);
				sb->data_size /= 4;
				return sideband__map(sb, err);
			}
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
	sb->stop_fd = -1;
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
	/* an inherited task event's rings are per CPU, as a CPU list's */
	sb->data_size = (size_t)sysconf(_SC_PAGESIZE) *
			(t->kind == TARGET_TASKS && !t->inherit ? TASK_RING_PAGES : CPU_RING_PAGES);
	/*
	 * The reader wakes when a ring is a quarter full: of the ring this
	 * target gets (a -p thread's is a quarter of a CPU's; the kernel takes
	 * a watermark past the ring's end as the end, when nothing more fits).
	 */
	ev.attr.watermark = 1;
	ev.attr.wakeup_watermark = (__u32)(sb->data_size / 4);
	snprintf(ev.name, sizeof(ev.name), "the side band (dummy event: mmap, exec, fork, exit)");
	e = evlist__add(&sb->evlist, &ev);
	/* a ring per (task, CPU): a handful of mmaps each between drains */
	if (!e)
		e = evlist__open(&sb->evlist, t, err);
	cpumap__free(&all.cpus);
	if (!e)
		e = sideband__map(sb, err);
	if (!e && (e = evlist__enable(&sb->evlist)))
		err__msg(err, "cannot enable the side band: %s", strerror(-e));
	if (!e)
		sideband__start_reader(sb);
	return e;
}

/* Appends len bytes to b from a ring that may wrap at size. */
static int sideband__copy(struct sideband_bytes *b, const char *data, size_t size, __u64 off,
			  size_t len)
{
	size_t at = off % size, first = len < size - at ? len : size - at;
	char *tmp;

	if (b->len + len > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 1 << 16;

		while (cap < b->len + len)
			cap *= 2;
		tmp = realloc(b->p, cap);
		if (!tmp)
			return -ENOMEM;
		b->p = tmp;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data + at, first);
	memcpy(b->p + b->len + first, data, len - first);
	b->len += len;
	return 0;
}

/* Moves a ring's records to b (the caller holds sb->mu). */
static int sideband__read_ring(struct sideband *sb, struct sideband_ring *r,
			       struct sideband_bytes *b)
{
	struct perf_event_mmap_page *pg = r->base;
	const char *data = (const char *)r->base + (r->len - sb->data_size);
	__u64 head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE), tail = pg->data_tail;
	struct perf_event_header h;
	size_t start;
	int e = 0;

	while (tail + sizeof(h) <= head) {
		start = b->len;
		e = sideband__copy(b, data, sb->data_size, tail, sizeof(h));
		if (e)
			break;
		memcpy(&h, b->p + start, sizeof(h));
		b->len = start;
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		if (b == &sb->raw && b->len + h.size > MAX_RAW)
			break; /* left in the ring: the tool has not drained for long */
		e = sideband__copy(b, data, sb->data_size, tail, h.size);
		if (e)
			break;
		tail += h.size;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	return e;
}

/*
 * The reader: waits for a ring to pass its watermark (or to be told to
 * end), and moves every ring's records to raw.  A task's ring hangs up when
 * the task exits: it is read once more and no longer waited on.
 */
static void *sideband__reader(void *arg)
{
	struct sideband *sb = arg;
	struct pollfd *pfd = calloc(sb->nrings + 1, sizeof(*pfd));
	int i;

	if (!pfd)
		return NULL; /* the tool's own drains still read the rings */
	for (i = 0; i < sb->nrings; i++) {
		pfd[i].fd = sb->evlist.fds[i].fd;
		pfd[i].events = POLLIN;
	}
	pfd[sb->nrings].fd = sb->stop_fd;
	pfd[sb->nrings].events = POLLIN;
	for (;;) {
		if (poll(pfd, sb->nrings + 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[sb->nrings].revents)
			break;
		pthread_mutex_lock(&sb->mu);
		for (i = 0; i < sb->nrings; i++)
			sideband__read_ring(sb, &sb->rings[i], &sb->raw);
		pthread_mutex_unlock(&sb->mu);
		for (i = 0; i < sb->nrings; i++)
			if (pfd[i].revents & (POLLHUP | POLLERR | POLLNVAL))
				pfd[i].fd = -1; /* poll ignores negative fds */
	}
	free(pfd);
	return NULL;
}

/* Starts the reader; without one (no memory, no thread) the drains read alone. */
static void sideband__start_reader(struct sideband *sb)
{
	sb->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (sb->stop_fd < 0)
		return;
	if (pthread_mutex_init(&sb->mu, NULL)) {
		close(sb->stop_fd);
		sb->stop_fd = -1;
		return;
	}
	if (pthread_create(&sb->reader, NULL, sideband__reader, sb)) {
		pthread_mutex_destroy(&sb->mu);
		close(sb->stop_fd);
		sb->stop_fd = -1;
		return;
	}
	sb->reading = true;
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
		r->maj = u32[8];
		r->min = u32[9];
		r->ino = u64[4];
		r->ino_generation = u64[5];
		r->flags = u32[15];
		r->kernel = (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
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

	/*
	 * A buffer grown by a burst (up to MAX_RAW while the tool was busy) is
	 * given back once a drain uses less than a quarter of it: memory
	 * follows the rate of records, not its peak.
	 */
	if (sb->buf.cap > SHRINK_ABOVE && sb->buf.len < sb->buf.cap / 4) {
		free(sb->buf.p);
		sb->buf = (struct sideband_bytes){};
	}
	sb->buf.len = 0;
	if (sb->reading) { /* what the reader took, then the rest, in ring order */
		struct sideband_bytes t;

		pthread_mutex_lock(&sb->mu);
		for (i = 0; i < (size_t)sb->nrings && !e; i++)
			e = sideband__read_ring(sb, &sb->rings[i], &sb->raw);
		t = sb->buf;
		sb->buf = sb->raw;
		sb->raw = t;
		pthread_mutex_unlock(&sb->mu);
	} else {
		for (i = 0; i < (size_t)sb->nrings && !e; i++)
			e = sideband__read_ring(sb, &sb->rings[i], &sb->buf);
	}
	if (e)
		return e;
	for (off = 0; off < sb->buf.len; off += h.size, n++)
		memcpy(&h, sb->buf.p + off, sizeof(h));
	refs = calloc(n ? n : 1, sizeof(*refs));
	if (!refs)
		return -ENOMEM;
	for (off = 0, i = 0; off < sb->buf.len; off += h.size, i++) {
		const struct sample_id *id;

		memcpy(&h, sb->buf.p + off, sizeof(h));
		id = (const void *)(sb->buf.p + off + h.size - sizeof(*id));
		refs[i] = (struct rec_ref){ h.size >= sizeof(h) + sizeof(*id) ? id->time : 0, off,
					    i };
	}
	qsort(refs, n, sizeof(*refs), rec_ref__cmp);
	for (i = 0; i < n; i++)
		if (sideband__parse(sb, sb->buf.p + refs[i].off, &rec))
			fn(&rec, ctx);
	free(refs);
	return (int)n;
}

void sideband__close(struct sideband *sb)
{
	__u64 one = 1;

	if (sb->reading) {
		/* poll() is a cancellation point: the reader ends either way */
		if (write(sb->stop_fd, &one, sizeof(one)) != sizeof(one))
			pthread_cancel(sb->reader);
		pthread_join(sb->reader, NULL);
		pthread_mutex_destroy(&sb->mu);
		close(sb->stop_fd);
	}
	sideband__unmap(sb);
	free(sb->buf.p);
	free(sb->raw.p);
	evlist__free(&sb->evlist);
	memset(sb, 0, sizeof(*sb));
}
