// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/lib/bigmem.h"
#include "user/top/toptable.h"

#define EMPTY ((__u32)-1)

void top_table__init(struct top_table *t)
{
	memset(t, 0, sizeof(*t));
	t->uniform = TOP_UNIFORM_NONE;
}

void top_table__free(struct top_table *t)
{
	free(t->e);
	free(t->slot);
	free(t->wide);
	free(t->door);
	free(t->front);
	top_table__init(t);
}

void top_table__reset(struct top_table *t)
{
	size_t max = t->max;
	__u32 front_bits = t->front_bits;

	/*
	 * A table a burst grew gives its memory back once what it held is under
	 * a quarter of it: memory follows the machine's activity, not its peak.
	 */
	if (t->cap > TOP_TABLE_KEEP && t->n < t->cap / 4) {
		top_table__free(t);
		t->max = max;
		t->front_bits = front_bits;
		return;
	}
	t->n = 0;
	if (!t->wide)
		t->uniform = TOP_UNIFORM_NONE; /* empty: the next values may be of any class */
	t->full = t->failed = t->spilled = t->resident = t->capped = 0;
	t->found_full = false;
	t->held = 0;
	if (t->slot)
		memset(t->slot, 0xff, t->nslot * sizeof(*t->slot));
	if (t->door) /* a generation's keys met once */
		memset(t->door, 0, sizeof(*t->door) << t->door_bits);
	if (t->front) /* a generation's slots */
		memset(t->front, 0, sizeof(*t->front) << t->front_bits);
}

static size_t top_hash(__u32 tgid, __u64 addr)
{
	__u64 h = (addr ^ ((__u64)tgid << 32 | tgid)) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h ^ (h >> 29));
}

static __u32 slot__tag(size_t h)
{
	return (__u32)((__u64)h >> 32);
}

/*
 * The home slot of a key: the high bits of its tag (nslot is a power of
 * two, at most 2^32), so that the index is built again from the tags alone.
 */
static size_t slot__home(__u32 tag, size_t nslot)
{
	return nslot > 1 ? (size_t)tag >> (32 - __builtin_ctzl(nslot)) : 0;
}

/* The slot of (tgid, addr): its entry's, or the empty one where it goes. */
static struct top_slot *top_table__find_slot(const struct top_table *t, __u32 tgid, __u64 addr)
{
	__u32 tag = slot__tag(top_hash(tgid, addr));
	size_t i = slot__home(tag, t->nslot);

	for (;; i = (i + 1) & (t->nslot - 1)) {
		struct top_slot *s = &t->slot[i];

		if (s->i == EMPTY ||
		    (s->tag == tag && t->e[s->i].tgid == tgid && t->e[s->i].addr == addr))
			return s;
	}
}

/* Indexes entry i (its key is in no slot). */
static void top_table__place(struct top_table *t, size_t i)
{
	struct top_slot *s = top_table__find_slot(t, t->e[i].tgid, t->e[i].addr);

	s->i = (__u32)i;
	s->tag = slot__tag(top_hash(t->e[i].tgid, t->e[i].addr));
}

void top_table__prefetch(const struct top_table *t, __u32 tgid, __u64 addr)
{
	if (t->nslot)
		__builtin_prefetch(&t->slot[slot__home(slot__tag(top_hash(tgid, addr)), t->nslot)]);
}

const struct top_entry *top_table__find(const struct top_table *t, __u32 tgid, __u64 addr)
{
	const struct top_slot *slot;

	if (!t->nslot)
		return NULL;
	slot = top_table__find_slot(t, tgid, addr);
	return slot->i == EMPTY ? NULL : &t->e[slot->i];
}

/* Keeps the index at most half full. */
static int top_table__grow(struct top_table *t)
{
	size_t nslot = t->nslot ? t->nslot * 2 : 256, i;
	struct top_slot *old = t->slot;

	if ((t->n + 1) * 2 <= t->nslot)
		return 0;
	t->slot = malloc(nslot * sizeof(*t->slot));
	if (!t->slot) {
		t->slot = old;
		return -ENOMEM;
	}
	bigmem__advise(t->slot);
	memset(t->slot, 0xff, nslot * sizeof(*t->slot));
	/*
	 * from the old index, in its order: a key's new home is twice its old
	 * one or one more, so the new index is written nearly in order and no
	 * entry is read (placing the entries one by one wrote it at random, a
	 * cache miss each once the index outgrows the caches)
	 */
	for (i = 0; old && i < t->nslot; i++) {
		size_t j = slot__home(old[i].tag, nslot);

		if (old[i].i == EMPTY)
			continue;
		while (t->slot[j].i != EMPTY)
			j = (j + 1) & (nslot - 1);
		t->slot[j] = old[i];
	}
	t->nslot = nslot;
	free(old);
	return 0;
}

/*
 * The entry of (tgid, addr), created when new; NULL with *capped set when
 * the key is new and the table holds its max, NULL alone when out of memory.
 */
static struct top_entry *top_table__get(struct top_table *t, __u32 tgid, __u64 addr, bool *capped)
{
	struct top_entry *e;
	struct top_slot *slot = NULL;

	*capped = false;
	if (t->nslot) {
		slot = top_table__find_slot(t, tgid, addr);
		if (slot->i != EMPTY)
			return &t->e[slot->i];
	}
	if (t->max && t->n + t->held >= t->max) {
		*capped = true;
		return NULL;
	}
	if (t->n >= EMPTY - 1)
		return NULL; /* the index holds 32-bit indices */
	if (!t->nslot || (t->n + 1) * 2 > t->nslot) {
		if (top_table__grow(t))
			return NULL;
		slot = top_table__find_slot(t, tgid, addr);
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 128;

		/* a bounded table never takes room for more than its max (n < max here) */
		if (t->max && cap > t->max)
			cap = t->max;
		/* the wide part first: left larger than cap, it is only room to spare */
		if (t->wide) {
			struct top_wide *w = realloc(t->wide, cap * sizeof(*w));

			if (!w)
				return NULL;
			t->wide = w;
			bigmem__advise(w);
		}
		e = realloc(t->e, cap * sizeof(*e));
		if (!e)
			return NULL;
		t->e = e;
		t->cap = cap;
		bigmem__advise(e);
	}
	if (t->wide)
		memset(&t->wide[t->n], 0, sizeof(*t->wide));
	e = &t->e[t->n];
	memset(e, 0, sizeof(*e));
	e->tgid = tgid;
	e->addr = addr;
	slot->i = (__u32)t->n++;
	slot->tag = slot__tag(top_hash(tgid, addr));
	return e;
}

__u32 top_val__uniform(const struct ldlat_top_val *v)
{
	__u32 c, u = LDLAT_NCLASS;

	if (v->lat_sum || v->lat_max)
		return TOP_UNIFORM_WIDE;
	for (c = 0; c < LDLAT_NCLASS; c++) {
		if (!v->cls[c])
			continue;
		if (u != LDLAT_NCLASS || v->cls[c] != (__u32)v->count)
			return TOP_UNIFORM_WIDE;
		u = c;
	}
	return !v->count && u == LDLAT_NCLASS ? TOP_UNIFORM_NONE : u;
}

/*
 * Makes the wide part (the table holds an entry, so cap > 0): each entry's
 * value as its count said it, every sample of class 'uniform'.
 */
static int top_table__widen(struct top_table *t)
{
	size_t i;

	t->wide = calloc(t->cap, sizeof(*t->wide));
	if (!t->wide)
		return -ENOMEM;
	bigmem__advise(t->wide);
	if (t->uniform < LDLAT_NCLASS)
		for (i = 0; i < t->n; i++)
			t->wide[i].cls[t->uniform] = (__u32)t->e[i].count;
	return 0;
}

/* Makes room for a value of class u (val__uniform's): the wide part where u is not the table's. */
static int top_table__fit(struct top_table *t, __u32 u)
{
	if (t->wide || u == TOP_UNIFORM_NONE || u == t->uniform)
		return 0;
	if (t->uniform == TOP_UNIFORM_NONE && u != TOP_UNIFORM_WIDE) {
		t->uniform = u;
		return 0;
	}
	return top_table__widen(t);
}

void top_table__unaccount(struct top_table *t, struct top_entry *e, __u64 lat, __u32 cls)
{
	struct top_wide *w;

	if (!e->count)
		return;
	e->count--; /* slim: a count alone (no latency, every sample of one class) */
	if (!t->wide)
		return;
	w = &t->wide[e - t->e];
	w->lat_sum -= lat;
	if (cls < LDLAT_NCLASS && w->cls[cls])
		w->cls[cls]--;
}

void top_table__val(const struct top_table *t, const struct top_entry *e, struct ldlat_top_val *v)
{
	memset(v, 0, sizeof(*v));
	v->count = e->count;
	if (t->wide) {
		const struct top_wide *w = &t->wide[e - t->e];

		v->lat_sum = w->lat_sum;
		v->lat_max = w->lat_max;
		memcpy(v->cls, w->cls, sizeof(v->cls));
	} else if (t->uniform < LDLAT_NCLASS) {
		v->cls[t->uniform] = (__u32)e->count;
	}
}

/* One sample into entry e, as ldlat_top_account adds it. */
static int top_table__account(struct top_table *t, struct top_entry *e, __u64 lat, __u32 cls)
{
	struct top_wide *w;
	int err = top_table__fit(t, lat			 ? TOP_UNIFORM_WIDE
				    : cls < LDLAT_NCLASS ? cls
							 : LDLAT_NCLASS);

	if (err)
		return err;
	e->count++;
	if (!t->wide)
		return 0;
	w = &t->wide[e - t->e];
	w->lat_sum += lat;
	if (lat > w->lat_max)
		w->lat_max = lat;
	if (cls < LDLAT_NCLASS)
		w->cls[cls]++;
	return 0;
}

void top_val__add(struct ldlat_top_val *acc, const struct ldlat_top_val *v)
{
	int c;

	acc->count += v->count;
	acc->lat_sum += v->lat_sum;
	if (v->lat_max > acc->lat_max)
		acc->lat_max = v->lat_max;
	for (c = 0; c < LDLAT_NCLASS; c++)
		acc->cls[c] += v->cls[c];
}

int top_table__merge(struct top_table *t, __u32 tgid, __u64 addr, const struct ldlat_top_val *v)
{
	bool capped;
	struct top_entry *e = top_table__get(t, tgid, addr, &capped);
	struct top_wide *w;
	int c, err;

	if (capped) {
		t->capped += v->count;
		return 0;
	}
	if (!e)
		return -ENOMEM;
	err = top_table__fit(t, top_val__uniform(v));
	if (err)
		return err;
	e->count += v->count;
	if (!t->wide)
		return 0;
	w = &t->wide[e - t->e];
	w->lat_sum += v->lat_sum;
	if (v->lat_max > w->lat_max)
		w->lat_max = v->lat_max;
	for (c = 0; c < LDLAT_NCLASS; c++)
		w->cls[c] += v->cls[c];
	return 0;
}

int top_table__add_sample(struct top_table *t, __u32 tgid, __u64 addr, __u64 lat, __u32 cls)
{
	bool capped;
	struct top_entry *e = top_table__get(t, tgid, addr, &capped);

	if (capped) {
		t->capped++;
		return 0;
	}
	if (!e)
		return -ENOMEM;
	return top_table__account(t, e, lat, cls);
}

/*
 * The door of the kernel's data table (ldlat_top_door), as the program
 * keeps it: whether this is the first sample of key (tgid, addr) of two in
 * a row its slot has met (the key then written in it), by the same hash and
 * slots, 1 << ldlat_top_seen_bits(entries) of them, of a generation (0:
 * the table's words are the generation's own).  -ENOMEM: no memory.
 */
static int top_table__door(struct top_table *t, __u32 entries, __u32 tgid, __u64 addr)
{
	__u64 h = ldlat_top_seen_hash(tgid, addr), tag = ldlat_top_door_tag(h, 0), bits;
	__u32 i;

	if (!t->door) {
		t->door_bits = ldlat_top_seen_bits(entries);
		t->door = calloc((size_t)1 << t->door_bits, sizeof(*t->door));
		if (!t->door)
			return -ENOMEM;
	}
	i = ldlat_top_seen_word(h, t->door_bits, &bits);
	if (t->door[i] == tag)
		return 0;
	t->door[i] = tag;
	return 1;
}

/*
 * The slot of key (tgid, addr) in the table's front when the key holds it
 * (*mine) or it is free; NULL when another key holds it, or there is no
 * front.  -ENOMEM in *err: no memory.
 */
static struct top_front_slot *top_table__front(struct top_table *t, __u32 tgid, __u64 addr,
					       bool *mine, int *err)
{
	struct top_front_slot *fs;

	*mine = false;
	if (!t->front_bits)
		return NULL;
	if (!t->front) {
		t->front = calloc((size_t)1 << t->front_bits, sizeof(*t->front));
		if (!t->front) {
			*err = -ENOMEM;
			return NULL;
		}
	}
	fs = &t->front[ldlat_top_front_slot(tgid, addr, t->front_bits)];
	if (!fs->taken)
		return fs;
	*mine = fs->tgid == tgid && fs->addr == addr;
	return *mine ? fs : NULL;
}

/*
 * One table as the kernel's, on one CPU: the key's front slot while the
 * key holds it, the entry while the key is resident, a free front slot or
 * an entry for a new key while room is left (the data table's on its
 * second sample, its door), else a spill record while the ring (room
 * records, shared) has room, else 'full'.  With ring (the data table's
 * LDLAT_TOP_DATA_RING), a spill record for every sample.
 */
static int top_table__add_bounded(struct top_table *t, __u32 bound, bool door, bool ring,
				  __u64 room, __u32 tgid, __u64 addr, __u64 lat, __u32 cls)
{
	struct top_front_slot *fs;
	const struct top_entry *f;
	struct top_entry *e;
	bool capped, mine;
	int first, err = 0;

	if (!bound)
		return top_table__add_sample(t, tgid, addr, lat, cls);
	if (ring)
		goto spill;
	fs = top_table__front(t, tgid, addr, &mine, &err);
	if (err)
		return err;
	f = top_table__find(t, tgid, addr);
	if (mine || (f && f->resident))
		return top_table__add_sample(t, tgid, addr, lat, cls);
	/* a new key: a data key is taken on its second sample, while the table has room */
	if (door && !t->found_full) {
		first = top_table__door(t, bound, tgid, addr);
		if (first < 0)
			return first;
		if (first)
			goto spill;
	}
	if (fs) { /* its free slot in the front takes it, not the table */
		fs->tgid = tgid;
		fs->addr = addr;
		fs->taken = 1;
		return top_table__add_sample(t, tgid, addr, lat, cls);
	}
	if (t->found_full || t->resident >= bound) {
		t->found_full = true;
		goto spill;
	}
	e = top_table__get(t, tgid, addr, &capped);
	if (capped) {
		t->capped++;
		return 0;
	}
	if (!e)
		return -ENOMEM;
	e->resident = 1;
	t->resident++;
	return top_table__account(t, e, lat, cls);
spill:
	if (!room) {
		t->full++;
		return 0;
	}
	t->spilled++;
	return top_table__add_sample(t, tgid, addr, lat, cls);
}

/*
 * Spill records the ring has room for before the next drain: the kernel
 * keeps its producer less than the ring's size ahead of its consumer, and
 * the records go in batches of LDLAT_TOP_BATCH (one CPU's, as here).  The
 * records of a batch that has not filled by the drain come with the drain
 * whatever the ring holds: the model counts them full past the ring's room.
 */
static __u64 top_tables__room(const struct top_table *ip, const struct top_table *data,
			      __u32 entries)
{
	__u64 cap = (__u64)(ldlat_top_spill_bytes(entries) - 1) / LDLAT_TOP_BATCH_RECORD *
		    LDLAT_TOP_BATCH,
	      used = 0;

	used += ip ? ip->spilled : 0;
	used += data ? data->spilled : 0;
	return used < cap ? cap - used : 0;
}

int top_tables__add(struct top_table *ip, struct top_table *data, const struct ldlat_config *cfg,
		    const struct ldlat_sample *s, __u32 cls)
{
	__u32 n = cfg->top_entries;
	int e = 0;

	if (ip && (cfg->top & LDLAT_TOP_IP))
		e = top_table__add_bounded(ip, n, false, false,
					   n ? top_tables__room(ip, data, n) : 0, s->tgid, s->ip,
					   s->lat, cls);
	if (!e && data && (cfg->top & LDLAT_TOP_DATA))
		e = top_table__add_bounded(data, n, true, cfg->top & LDLAT_TOP_DATA_RING,
					   n ? top_tables__room(ip, data, n) : 0, s->tgid,
					   ldlat_top_block(s->addr, cfg->top_shift), s->lat, cls);
	return e;
}

void top_table__remove_if(struct top_table *t, bool (*drop)(const struct top_entry *e, void *ctx),
			  void *ctx)
{
	size_t i, k = 0;

	for (i = 0; i < t->n; i++) {
		if (drop(&t->e[i], ctx))
			continue;
		if (t->wide)
			t->wide[k] = t->wide[i];
		t->e[k++] = t->e[i];
	}
	if (k == t->n)
		return;
	t->n = k;
	/*
	 * what exited processes held is named and gone: give back the room
	 * of a table that held far more (the report that follows needs it)
	 */
	if (t->cap > TOP_TABLE_KEEP && k < t->cap / 4) {
		size_t cap = k * 2 > TOP_TABLE_KEEP ? k * 2 : TOP_TABLE_KEEP, nslot = 256;
		struct top_slot *slot;
		struct top_entry *e = realloc(t->e, cap * sizeof(*e));

		while (nslot < (k + 1) * 2)
			nslot *= 2;
		slot = malloc(nslot * sizeof(*slot));
		if (e) {
			t->e = e;
			t->cap = cap;
		}
		/* the wide part after: left larger than cap, it is only room to spare */
		if (e && t->wide) {
			struct top_wide *w = realloc(t->wide, cap * sizeof(*w));

			if (w)
				t->wide = w;
		}
		if (slot) {
			free(t->slot);
			t->slot = slot;
			t->nslot = nslot;
		}
	}
	memset(t->slot, 0xff, t->nslot * sizeof(*t->slot));
	for (i = 0; i < t->n; i++)
		top_table__place(t, i);
}

__u64 top_table__samples(const struct top_table *t)
{
	__u64 n = 0;
	size_t i;

	for (i = 0; i < t->n; i++)
		n += t->e[i].count;
	return n;
}

unsigned int top_val__dominant(const struct ldlat_top_val *v)
{
	unsigned int c, best = LDLAT_CLASS_UNKNOWN;

	for (c = 0; c < LDLAT_NCLASS; c++)
		if (v->cls[c] > v->cls[best])
			best = c;
	return best;
}
