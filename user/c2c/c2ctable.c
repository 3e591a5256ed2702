// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/lib/util.h"
#include "user/c2c/c2ctable.h"

void c2c_table__init(struct c2c_table *t, __u32 line_shift)
{
	memset(t, 0, sizeof(*t));
	t->line_shift = line_shift;
}

static void line_free(struct c2c_line *l)
{
	int i;

	for (i = 0; i < l->nent; i++) {
		c2c_set__free(&l->ent[i].cpus);
		free(l->ent[i].symbol);
		free(l->ent[i].object);
	}
	free(l->ent);
	free(l->eslot);
	c2c_set__free(&l->tids);
	c2c_set__free(&l->tgids);
	c2c_set__free(&l->cpus);
	free(l);
}

void c2c_table__free(struct c2c_table *t)
{
	int i;

	free(t->slot);
	for (i = 0; i < t->nlines; i++)
		line_free(t->lines[i]);
	free(t->lines);
	free(t->spaces);
	for (i = 0; i < t->nstrings; i++)
		free(t->strings[i]);
	free(t->strings);
	free(t->numa);
	memset(t, 0, sizeof(*t));
}

__u64 c2c_table__space(struct c2c_table *t, const struct c2c_space *s)
{
	struct c2c_space *n;
	int i;

	for (i = 0; i < t->nspaces; i++)
		if (!memcmp(&t->spaces[i], s, sizeof(*s)))
			return (__u64)(i + 1) << 32;
	n = realloc(t->spaces, (t->nspaces + 1) * sizeof(*n));
	if (!n)
		return 0;
	t->spaces = n;
	n[t->nspaces++] = *s;
	return (__u64)t->nspaces << 32;
}

struct c2c_numa *c2c_table__numa(struct c2c_table *t, __u32 tgid, int node)
{
	struct c2c_numa *n;
	int i;

	for (i = t->nnuma - 1; i >= 0; i--)
		if (t->numa[i].tgid == tgid && t->numa[i].node == node)
			return &t->numa[i];
	if (array__room(&t->numa, t->nnuma, &t->capnuma, sizeof(*n), 16))
		return NULL;
	n = &t->numa[t->nnuma++];
	memset(n, 0, sizeof(*n));
	n->tgid = tgid;
	n->node = node;
	return n;
}

const char *c2c_table__intern(struct c2c_table *t, const char *s)
{
	char **n;
	int i;

	for (i = 0; i < t->nstrings; i++)
		if (!strcmp(t->strings[i], s))
			return t->strings[i];
	n = realloc(t->strings, (t->nstrings + 1) * sizeof(*n));
	if (!n)
		return NULL;
	t->strings = n;
	n[t->nstrings] = strdup(s);
	return n[t->nstrings] ? n[t->nstrings++] : NULL;
}

bool c2c_set__add(struct c2c_set *s, __u32 v)
{
	__u32 *vs = s->cap ? s->v : s->in;
	int lo = 0, hi = s->n;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (vs[mid] == v)
			return true;
		if (vs[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (s->n == (s->cap ? s->cap : (int)ARRAY_SIZE(s->in))) {
		int cap = s->cap ? s->cap * 2 : 8;
		__u32 *n = s->cap ? realloc(s->v, cap * sizeof(*n)) : malloc(cap * sizeof(*n));

		if (!n)
			return false;
		if (!s->cap)
			memcpy(n, s->in, sizeof(s->in));
		s->v = vs = n;
		s->cap = cap;
	}
	memmove(vs + lo + 1, vs + lo, (s->n - lo) * sizeof(*vs));
	vs[lo] = v;
	s->n++;
	return true;
}

void c2c_set__free(struct c2c_set *s)
{
	if (s->cap)
		free(s->v);
	memset(s, 0, sizeof(*s));
}

/* The slot of (space, addr) in t->slot: its line's, or the empty one where it would go. */
static __u32 *line_slot(const struct c2c_table *t, __u64 space, __u64 addr)
{
	/* a multiply-xorshift of both words: line addresses differ in their middle bits */
	__u64 h = (addr ^ (space * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
	__u32 mask = t->nslots - 1, i = (__u32)(h ^ (h >> 32)) & mask;

	for (;; i = (i + 1) & mask) {
		__u32 *s = &t->slot[i];
		const struct c2c_line *l;

		if (!*s)
			return s;
		l = t->lines[*s - 1];
		if (l->addr == addr && l->space == space)
			return s;
	}
}

/* Room for one line more: the slots at most half full.  0 or -ENOMEM. */
static int lines_grow(struct c2c_table *t)
{
	__u32 *old = t->slot, n = t->nslots;
	int i;

	if ((__u64)(t->nlines + 1) * 2 <= t->nslots)
		return 0;
	t->nslots = n ? n * 2 : 256;
	t->slot = calloc(t->nslots, sizeof(*t->slot));
	if (!t->slot) {
		t->slot = old;
		t->nslots = n;
		return -ENOMEM;
	}
	free(old);
	for (i = 0; i < t->nlines; i++)
		*line_slot(t, t->lines[i]->space, t->lines[i]->addr) = (__u32)i + 1;
	return 0;
}

struct c2c_line *c2c_table__find(struct c2c_table *t, __u64 space, __u64 addr)
{
	__u32 *s = t->nslots ? line_slot(t, space, addr) : NULL;

	return s && *s ? t->lines[*s - 1] : NULL;
}

struct c2c_line *c2c_table__line(struct c2c_table *t, __u64 space, __u64 addr)
{
	struct c2c_line *l = c2c_table__find(t, space, addr);

	if (l)
		return l;
	if (lines_grow(t) || array__room(&t->lines, t->nlines, &t->cap, sizeof(*t->lines), 64))
		return NULL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->space = space;
	l->addr = addr;
	*line_slot(t, space, addr) = (__u32)t->nlines + 1;
	t->lines[t->nlines++] = l;
	return l;
}

/* The slot of (offset, tgid, ip) in l->eslot: its entry's, or the empty one where it would go. */
static __u32 *entry_slot(const struct c2c_line *l, __u32 offset, __u32 tgid, __u64 ip)
{
	__u64 h =
		(ip ^ ((__u64)tgid << 32 | offset) * 0x9e3779b97f4a7c15ull) * 0xff51afd7ed558ccdull;
	__u32 mask = l->neslots - 1, i = (__u32)(h ^ (h >> 32)) & mask;

	for (;; i = (i + 1) & mask) {
		__u32 *s = &l->eslot[i];
		const struct c2c_entry *e;

		if (!*s)
			return s;
		e = &l->ent[*s - 1];
		if (e->ip == ip && e->offset == offset && e->tgid == tgid)
			return s;
	}
}

/* The slots of l's entries, at most half full with one entry more.  0 or -ENOMEM. */
static int entry_slots(struct c2c_line *l)
{
	__u32 n = l->neslots ? l->neslots : 32;
	int i;

	if (l->neslots && (__u64)(l->nent + 1) * 2 <= l->neslots)
		return 0;
	while ((__u64)(l->nent + 1) * 2 > n)
		n *= 2;
	free(l->eslot);
	l->neslots = 0;
	l->eslot = calloc(n, sizeof(*l->eslot));
	if (!l->eslot)
		return -ENOMEM;
	l->neslots = n;
	for (i = 0; i < l->nent; i++)
		*entry_slot(l, l->ent[i].offset, l->ent[i].tgid, l->ent[i].ip) = (__u32)i + 1;
	return 0;
}

struct c2c_entry *c2c_line__entry(struct c2c_line *l, __u32 offset, __u32 tgid, __u64 ip)
{
	struct c2c_entry *e;
	__u32 *slot = NULL;
	int i;

	if (l->nent >= C2C_ENTRY_SLOTS_FROM) {
		/* a line of many entries: a hash, so that a sample's cost does not grow with them */
		if (entry_slots(l))
			return NULL;
		slot = entry_slot(l, offset, tgid, ip);
		if (*slot)
			return &l->ent[*slot - 1];
	} else {
		/* from the last: a line's samples come in runs from one place */
		for (i = l->nent - 1; i >= 0; i--) {
			e = &l->ent[i];
			if (e->offset == offset && e->ip == ip && e->tgid == tgid)
				return e;
		}
	}
	if (array__room(&l->ent, l->nent, &l->cap, sizeof(*e), 1))
		return NULL;
	e = &l->ent[l->nent++];
	memset(e, 0, sizeof(*e));
	e->offset = offset;
	e->tgid = tgid;
	e->ip = ip;
	if (slot)
		*slot = (__u32)l->nent;
	return e;
}

struct c2c_entry *c2c_table__add(struct c2c_table *t, __u64 space, __u64 addr, __u64 vaddr,
				 const char *object, __u64 ip, __u32 tgid, __u32 tid, __u32 cpu,
				 int node, __u64 ds, __u64 lat)
{
	__u64 mask = (1ull << t->line_shift) - 1;
	struct c2c_line *l;
	struct c2c_entry *e;
	struct c2c_numa *n;

	ldlat_c2c_account(&t->total, ds, lat);
	if (!ldlat_c2c_op(ds)) {
		t->other++;
		return NULL;
	}
	if (!vaddr) {
		t->no_addr++;
		return NULL;
	}
	if (!space)
		space = tgid;
	l = c2c_table__line(t, space, addr & ~mask);
	e = l ? c2c_line__entry(l, addr & mask, tgid, ip) : NULL;
	if (!e || !c2c_set__add(&l->tids, tid) || !c2c_set__add(&l->tgids, tgid) ||
	    !c2c_set__add(&l->cpus, cpu) || !c2c_set__add(&e->cpus, cpu)) {
		t->nomem++;
		return NULL;
	}
	if (!l->c.records) {
		l->vaddr = vaddr & ~mask;
		l->tgid = tgid;
		l->object = object;
	}
	n = c2c_table__numa(t, tgid, node);
	if (!n) {
		t->nomem++;
		return NULL;
	}
	ldlat_c2c_account(&n->c, ds, lat);
	ldlat_c2c_account(&l->c, ds, lat);
	ldlat_c2c_account(&e->c, ds, lat);
	if (node >= 0) {
		l->nodes |= 1ull << (node & 63);
		e->nodes |= 1ull << (node & 63);
	}
	return e;
}

bool c2c_line__shared(const struct c2c_line *l, __u64 total_hitm)
{
	/* perf c2c's DISPLAY_LINE_LIMIT: 0.1% of the HITM of every line */
	return total_hitm && ldlat_c2c_hitm(&l->c) * 1000 >= total_hitm;
}

static int by_hitm(const void *a, const void *b)
{
	const struct c2c_line *x = *(struct c2c_line *const *)a, *y = *(struct c2c_line *const *)b;
	__u64 hx = ldlat_c2c_hitm(&x->c), hy = ldlat_c2c_hitm(&y->c);

	if (hx != hy)
		return hx > hy ? -1 : 1;
	if (x->c.records != y->c.records)
		return x->c.records > y->c.records ? -1 : 1;
	if (x->vaddr != y->vaddr)
		return x->vaddr < y->vaddr ? -1 : 1;
	if (x->space != y->space)
		return x->space < y->space ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int entry_cmp(const void *a, const void *b);

void c2c_table__sort(struct c2c_table *t)
{
	int i;

	if (t->nlines)
		qsort(t->lines, t->nlines, sizeof(*t->lines), by_hitm);
	/* the slots name lines by index: each again at its new one */
	if (t->nslots)
		memset(t->slot, 0, t->nslots * sizeof(*t->slot));
	for (i = 0; i < t->nlines; i++) {
		c2c_line__sort(t->lines[i]);
		*line_slot(t, t->lines[i]->space, t->lines[i]->addr) = (__u32)i + 1;
	}
}

static int entry_cmp(const void *a, const void *b)
{
	const struct c2c_entry *x = a, *y = b;
	__u64 hx = ldlat_c2c_hitm(&x->c), hy = ldlat_c2c_hitm(&y->c);

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	if (hx != hy)
		return hx > hy ? -1 : 1;
	if (x->c.records != y->c.records)
		return x->c.records > y->c.records ? -1 : 1;
	if (x->ip != y->ip)
		return x->ip < y->ip ? -1 : 1;
	return x->tgid < y->tgid ? -1 : x->tgid > y->tgid;
}

void c2c_line__sort(struct c2c_line *l)
{
	if (l->nent)
		qsort(l->ent, l->nent, sizeof(*l->ent), entry_cmp);
	/* the slots name entries by index: made again when next needed */
	free(l->eslot);
	l->eslot = NULL;
	l->neslots = 0;
}

void c2c_counts__add(struct ldlat_c2c_counts *dst, const struct ldlat_c2c_counts *src)
{
	const __u64 *s = (const __u64 *)src;
	__u64 *d = (__u64 *)dst;
	size_t i;

	for (i = 0; i < sizeof(*dst) / sizeof(__u64); i++)
		d[i] += s[i];
}
