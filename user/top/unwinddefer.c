// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "user/top/unwinddefer.h"

void unwind_native__init(struct unwind_native *n, int files_fd, __u32 max_files)
{
	memset(n, 0, sizeof(*n));
	n->files_fd = files_fd;
	n->nslots = max_files;
}

static void slot_clear(struct unwind_native *n, __u32 slot)
{
	free((void *)n->tables[slot].blocks);
	n->tables[slot].blocks = NULL;
	n->tables[slot].nblocks = 0;
	n->ids[slot] = 0;
}

/* slot's table, read block by block from its inner map (id). */
static int slot_read(struct unwind_native *n, __u32 slot, __u32 id)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), k;
	union ldlat_unwind_block *b;
	int fd, e = 0;

	fd = bpf_map_get_fd_by_id(id);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno; /* freed meanwhile */
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		e = -errno;
		goto out;
	}
	if (info.value_size != sizeof(*b) || !info.max_entries ||
	    info.max_entries > LDLAT_UNWIND_CHUNKS + 1) {
		e = -EINVAL;
		goto out;
	}
	b = malloc((size_t)info.max_entries * sizeof(*b));
	if (!b) {
		e = -ENOMEM;
		goto out;
	}
	for (k = 0; k < info.max_entries; k++)
		if (bpf_map_lookup_elem(fd, &k, &b[k])) {
			e = -errno;
			free(b);
			goto out;
		}
	n->tables[slot].blocks = b;
	n->tables[slot].nblocks = info.max_entries;
	n->ids[slot] = id;
out:
	close(fd);
	return e;
}

int unwind_native__tables(struct unwind_native *n, const struct ldlat_unwind_proc *p)
{
	__u32 i, slot, id;
	int e;

	if (!n->tables && n->nslots) {
		n->tables = calloc(n->nslots, sizeof(*n->tables));
		n->ids = calloc(n->nslots, sizeof(*n->ids));
		if (!n->tables || !n->ids)
			return -ENOMEM;
	}
	for (i = 0; p && i < p->n && i < LDLAT_UNWIND_MAPS; i++) {
		if (p->maps[i].kind != LDLAT_MAP_TABLE || (slot = p->maps[i].file) >= n->nslots)
			continue;
		/* the outer map gives user space the inner map's ID */
		if (bpf_map_lookup_elem(n->files_fd, &slot, &id)) {
			if (errno != ENOENT)
				return -errno;
			slot_clear(n, slot);
			continue;
		}
		if (n->ids[slot] == id)
			continue;
		slot_clear(n, slot);
		e = slot_read(n, slot, id);
		if (e)
			return e;
	}
	return 0;
}

__u32 unwind_native__walk(struct unwind_native *n, const struct ldlat_unwind_proc *p,
			  const struct ldlat_unwind_defer *d, __u32 max, __u64 *ips, __u32 *nr,
			  __u64 *frames_fp)
{
	struct ldlat_unwind_native env = {
		.tables = n->tables,
		.ntables = n->tables ? n->nslots : 0,
		.len = d->len <= sizeof(d->stack) ? d->len : 0,
		.at = d->sp,
		.copy = d->stack,
	};
	struct ldlat_unwind_state s = { .pc = d->pc,
					.sp = d->sp,
					.fp = d->fp,
					.bx = d->bx,
					.bx_known = d->bx_known,
					.tgid = d->tgid };
	__u32 i, stop = LDLAT_STOP_MAX;

	*nr = 0;
	for (i = 0; i < max && i < LDLAT_UNWIND_MAX_STACK; i++) {
		ips[i] = s.pc;
		*nr = i + 1;
		stop = ldlat_unwind_frame(&s, p, &env);
		if (stop < LDLAT_NSTOPS)
			break;
		stop = LDLAT_STOP_MAX;
	}
	*frames_fp = s.frames_fp;
	return stop;
}

void unwind_native__release(struct unwind_native *n)
{
	__u32 i;

	for (i = 0; n->tables && i < n->nslots; i++)
		slot_clear(n, i);
}

void unwind_native__free(struct unwind_native *n)
{
	__u32 i;

	for (i = 0; n->tables && i < n->nslots; i++)
		free((void *)n->tables[i].blocks);
	free(n->tables);
	free(n->ids);
	n->tables = NULL;
	n->ids = NULL;
}

/* The bytes a kept record takes: its header and the copy's bytes read. */
static size_t rec_size(const struct ldlat_unwind_defer *r)
{
	return offsetof(struct ldlat_unwind_defer, stack) +
	       (r->len <= sizeof(r->stack) ? r->len : 0);
}

/* A kept copy freed (walked, or its sample done with). */
static void rec_free(struct unwind_defer_queue *d, struct ldlat_unwind_defer *r)
{
	if (!r)
		return;
	d->held -= rec_size(r);
	free(r);
}

static int defer_got(void *ctx, void *data, size_t size)
{
	struct unwind_defer_queue *d = ctx;
	struct unwind_deferred *e;
	const struct ldlat_unwind_defer *r = data;

	if (size < sizeof(*r))
		return 0;
	if (d->n == d->cap) {
		size_t c = d->cap ? 2 * d->cap : 256;
		void *q = realloc(d->q, c * sizeof(*d->q));

		if (!q) {
			d->nomem++;
			return 0;
		}
		d->q = q;
		d->cap = c;
	}
	/* the copies kept at once are bounded as the ring is: one over that keeps its frame pointers' path */
	if (d->held + rec_size(r) > d->max_held) {
		d->nomem++;
		return 0;
	}
	e = &d->q[d->n];
	memset(e, 0, sizeof(*e));
	/* the copy's bytes read, no more */
	e->rec = malloc(rec_size(r));
	if (!e->rec) {
		d->nomem++;
		return 0;
	}
	memcpy(e->rec, r, rec_size(r));
	if (r->len > sizeof(r->stack))
		e->rec->len = 0;
	d->held += rec_size(e->rec);
	e->tgid = r->tgid;
	e->gen = r->gen;
	e->cls = r->cls;
	e->key = r->key;
	e->lat = r->lat;
	d->n++;
	return 0;
}

int unwind_defer__open(struct unwind_defer_queue *d, int ring_fd, int files_fd, __u32 max_files,
		       int procs_fd, __u32 max_stack, size_t max_held)
{
	memset(d, 0, sizeof(*d));
	d->max_held = max_held;
	unwind_native__init(&d->native, files_fd, max_files);
	d->procs_fd = procs_fd;
	d->max_stack = max_stack;
	d->rb = ring_buffer__new(ring_fd, defer_got, d, NULL);
	return d->rb ? 0 : -errno;
}

/* Whether every table p names is in (no mapping still pending). */
static bool proc_ready(const struct ldlat_unwind_proc *p)
{
	__u32 i;

	for (i = 0; i < p->n && i < LDLAT_UNWIND_MAPS; i++)
		if (p->maps[i].kind == LDLAT_MAP_PENDING)
			return false;
	return true;
}

/*
 * tgid's mappings into p when all its tables are in (none pending), and
 * those tables read; false when not (yet).
 */
static bool proc_get(struct unwind_defer_queue *d, __u32 tgid, struct ldlat_unwind_proc *p)
{
	return !bpf_map_lookup_elem(d->procs_fd, &tgid, p) && proc_ready(p) &&
	       !unwind_native__tables(&d->native, p);
}

/*
 * Whether the walk of r with p found p older than the sample: its PC, code
 * that ran so was mapped, in no mapping of p, or a walk by the tables'
 * rules alone (no frame pointer taken: those lead anywhere) ending at a
 * return address in none (a library mapped since the side band was read).
 */
static bool walk_stale(const struct ldlat_unwind_proc *p, const struct ldlat_unwind_defer *r,
		       __u32 stop, __u64 frames_fp)
{
	/* a full entry leaves mappings out: one more read finds no room for them either */
	if (p->n >= LDLAT_UNWIND_MAPS)
		return false;
	return ldlat_unwind_map_find(p, r->pc) < 0 || (stop == LDLAT_STOP_NO_MAPPING && !frames_fp);
}

enum walk_result { WALK_DONE, WALK_NOT, WALK_STALE };

/*
 * e walked with p, its process's mappings, if they are of the program it
 * ran (else WALK_NOT); WALK_STALE, e not walked, when p is older than the
 * sample and fresh says to read it again first.
 */
static enum walk_result walk_with(struct unwind_defer_queue *d, struct unwind_deferred *e,
				  const struct ldlat_unwind_proc *p, bool fresh)
{
	__u64 ips[LDLAT_UNWIND_MAX_STACK], ffp;

	if (p->exe_ino && e->rec->exe_ino && p->exe_ino != e->rec->exe_ino)
		return WALK_NOT;
	e->stop = unwind_native__walk(&d->native, p, e->rec, d->max_stack, ips, &e->nr, &ffp);
	if (fresh && d->reread && walk_stale(p, e->rec, e->stop, ffp))
		return WALK_STALE;
	e->ips = malloc((e->nr ?: 1) * sizeof(*e->ips));
	if (!e->ips)
		return WALK_NOT;
	memcpy(e->ips, ips, e->nr * sizeof(*e->ips));
	d->held += e->nr * sizeof(*e->ips);
	rec_free(d, e->rec);
	e->rec = NULL;
	return WALK_DONE;
}

/*
 * e walked with its process's entry, in p; *reread: whether that entry was
 * read from /proc again in this pass (then taken as it is).  An entry older
 * than the sample is read again once (d->reread), into p, and e walked with
 * it when its tables are in; *ready false when they are not.
 */
static bool walk_fresh(struct unwind_defer_queue *d, struct unwind_deferred *e,
		       struct ldlat_unwind_proc *p, bool *reread, bool *ready)
{
	enum walk_result w = walk_with(d, e, p, !*reread);

	if (w != WALK_STALE)
		return w == WALK_DONE;
	*reread = true;
	d->rereads++;
	*ready = !d->reread(d->reread_ctx, e->tgid) && proc_get(d, e->tgid, p);
	return *ready && walk_with(d, e, p, false) == WALK_DONE;
}

bool unwind_defer__walk(struct unwind_defer_queue *d, struct unwind_deferred *e)
{
	struct ldlat_unwind_proc *p;
	bool ok, ready, reread = false;

	if (e->ips)
		return true;
	if (!e->rec)
		return false;
	p = malloc(sizeof(*p));
	ready = p && proc_get(d, e->tgid, p);
	ok = ready && walk_fresh(d, e, p, &reread, &ready);
	free(p);
	return ok;
}

/* Queue positions by process, then by position: each process's records in one run. */
static int pos_cmp(const void *a, const void *b, void *arg)
{
	const struct unwind_deferred *q = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (q[x].tgid != q[y].tgid)
		return q[x].tgid < q[y].tgid ? -1 : 1;
	return x < y ? -1 : x > y;
}

int unwind_defer__poll(struct unwind_defer_queue *d)
{
	struct ldlat_unwind_proc *p;
	size_t i, n = 0, *pos;
	__u32 tgid = 0;
	bool ready = false, have = false, reread = false;
	int e = ring_buffer__consume(d->rb);

	if (e < 0)
		return e;
	p = malloc(sizeof(*p));
	pos = malloc((d->n ? d->n : 1) * sizeof(*pos));
	if (!p || !pos) {
		free(p);
		free(pos);
		return -ENOMEM;
	}
	for (i = 0; i < d->n; i++)
		if (!d->q[i].ips && d->q[i].rec)
			pos[n++] = i;
	/*
	 * the CPUs' records interleave in the ring: sorted by process, each
	 * process's mappings and tables are read once a poll, not once for
	 * every change of process in the queue
	 */
	qsort_r(pos, n, sizeof(*pos), pos_cmp, d->q);
	for (i = 0; i < n; i++) {
		struct unwind_deferred *q = &d->q[pos[i]];

		if (!have || q->tgid != tgid) {
			have = true;
			tgid = q->tgid;
			ready = proc_get(d, tgid, p);
			reread = false;
			d->proc_reads++;
		}
		/* an entry read again for one record is newer than the others polled after it */
		if (ready)
			walk_fresh(d, q, p, &reread, &ready);
	}
	free(pos);
	free(p);
	return 0;
}

void unwind_defer__remove_if(struct unwind_defer_queue *d,
			     bool (*done)(struct unwind_deferred *e, void *ctx), void *ctx)
{
	size_t i, k = 0;

	for (i = 0; i < d->n; i++) {
		if (done(&d->q[i], ctx)) {
			if (d->q[i].ips)
				d->held -= d->q[i].nr * sizeof(*d->q[i].ips);
			free(d->q[i].ips);
			rec_free(d, d->q[i].rec);
			continue;
		}
		d->q[k++] = d->q[i];
	}
	d->n = k;
	/* none waits: the tables read back for them go too, read again when needed */
	if (!k)
		unwind_native__release(&d->native);
}

void unwind_defer__close(struct unwind_defer_queue *d)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		free(d->q[i].ips);
		free(d->q[i].rec);
	}
	free(d->q);
	ring_buffer__free(d->rb);
	unwind_native__free(&d->native);
	memset(d, 0, sizeof(*d));
}
