// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernel/lib/bigmem.h"
#include "user/top/flamegraph.h"
#include "user/top/topreport.h"
#include "user/report/json.h"
#include "user/report/render.h"
#include "user/report/table.h"
#include "user/report/typedata.h"
#include "kernel/abi/datasrc.h"
#include "kernel/lib/unctrl.h"
#include "kernel/lib/util.h"

/*
 * Strings stored once each: an open-addressing set of pointers into chunks
 * that are freed together.  Rows are named by the hundred thousand from a
 * few functions and mappings; a strdup each was two allocations per row,
 * and a fifth of a large report's memory.
 */
#define POOL_CHUNK (64 * 1024)

struct pool_chunk {
	struct pool_chunk *next;
	size_t used, size;
	char s[];
};

struct top_strpool {
	const char **set; /* nset, a power of two, at most half full */
	size_t nset, n;
	struct pool_chunk *chunk;
};

static size_t pool__hash(const char *s)
{
	size_t h = 14695981039346656037ull; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static const char **pool__slot(const struct top_strpool *p, const char *s)
{
	size_t i = pool__hash(s) & (p->nset - 1);

	while (p->set[i] && strcmp(p->set[i], s))
		i = (i + 1) & (p->nset - 1);
	return &p->set[i];
}

static int pool__grow(struct top_strpool *p)
{
	size_t nold = p->nset, i;
	const char **old = p->set, **set;

	if ((p->n + 1) * 2 <= p->nset)
		return 0;
	set = calloc(nold ? nold * 2 : 64, sizeof(*set));
	if (!set)
		return -ENOMEM;
	p->set = set;
	p->nset = nold ? nold * 2 : 64;
	for (i = 0; i < nold; i++)
		if (old[i])
			*pool__slot(p, old[i]) = old[i];
	free(old);
	return 0;
}

/* The pool's copy of s, made when it has none; NULL when out of memory. */
static char *pool__get(struct top_strpool **pp, const char *s)
{
	struct top_strpool *p = *pp;
	struct pool_chunk *c;
	size_t len = strlen(s) + 1;
	const char **slot;
	char *d;

	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return NULL;
		*pp = p;
	}
	if (pool__grow(p))
		return NULL;
	slot = pool__slot(p, s);
	if (*slot)
		return (char *)*slot;
	c = p->chunk;
	if (!c || c->size - c->used < len) {
		size_t size = len > POOL_CHUNK ? len : POOL_CHUNK;

		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->next = p->chunk;
		c->used = 0;
		c->size = size;
		p->chunk = c;
	}
	d = memcpy(c->s + c->used, s, len);
	c->used += len;
	*slot = d;
	p->n++;
	return d;
}

static void pool__free(struct top_strpool *p)
{
	struct pool_chunk *c, *next;

	if (!p)
		return;
	for (c = p->chunk; c; c = next) {
		next = c->next;
		free(c);
	}
	free(p->set);
	free(p);
}

static void top_row__free(struct top_row *r)
{
	if (r->pooled)
		return;
	free(r->name);
	free(r->where);
}

void top_rows__free(struct top_rows *rows)
{
	size_t i;

	for (i = 0; i < rows->n; i++)
		top_row__free(&rows->r[i]);
	free(rows->r);
	pool__free(rows->pool);
	free(rows->file);
	free(rows->insns);
	for (i = 0; i < rows->ntypes; i++) {
		free(rows->types[i].file);
		datatype__layout_free(rows->types[i].m, rows->types[i].n);
		free(rows->types[i].v);
	}
	free(rows->types);
	free(rows->blk);
	memset(rows, 0, sizeof(*rows));
}

/*
 * Which block of its object a data row is: its offset into the variable or
 * file (the same field of a variable in two processes is one block), but
 * for a mapping of no file ([anon], [heap], [stack]) its address: [anon]
 * is every anonymous mapping of a process, and two of them at the same
 * offset are two blocks.
 */
static __u64 row__block(const struct top_row *r)
{
	if (r->kind == SYM_MAPPING && r->name[0] == '[')
		return r->start + (__u64)r->offset;
	return (__u64)r->offset;
}

/* strcmp, but a string of a pool is equal to itself without a read */
static int row__strcmp(const char *a, const char *b)
{
	return a == b ? 0 : strcmp(a, b);
}

static int row__cmp_key(const struct top_row *a, const struct top_row *b, bool offset)
{
	int c = row__strcmp(a->name, b->name);

	if (!c)
		c = row__strcmp(a->where, b->where);
	if (!c && a->kernel != b->kernel)
		c = a->kernel ? 1 : -1;
	if (!c && offset && row__block(a) != row__block(b))
		c = (__s64)row__block(a) < (__s64)row__block(b) ? -1 : 1;
	return c;
}

static int row__cmp_block(const void *a, const void *b)
{
	return row__cmp_key(a, b, true);
}

static int row__cmp_object(const void *a, const void *b)
{
	return row__cmp_key(a, b, false);
}

/*
 * Folds block row b into object row dst: its counts, and where it is.  The
 * row's address is the start of the object (variable or mapping) that holds
 * its hottest block and its offset that block's, so that address + offset
 * is a block that was touched even where the row folds several objects (the
 * anonymous mappings of a process, one [anon] row as perf's anon is one
 * DSO; a variable in several processes); of equal blocks, the lowest.
 */
static void top_row__fold_block(struct top_row *dst, const struct top_row *b)
{
	top_val__add(&dst->v, &b->v);
	dst->blocks++;
	if (b->hot > dst->hot ||
	    (b->hot == dst->hot && b->start + (__u64)b->offset < dst->start + (__u64)dst->offset)) {
		dst->hot = b->hot;
		dst->start = b->start;
		dst->offset = b->offset;
	}
}

/*
 * Sorts by key and folds equal keys into one row; with blocks, a row counts
 * the rows it folds and is where the one with most samples is.
 */
static void top_rows__fold(struct top_rows *rows, bool offset, bool blocks)
{
	size_t i, k = 0;
	struct top_row *dst;

	if (rows->n) /* no rows: r may be NULL, which qsort may not be given */
		qsort(rows->r, rows->n, sizeof(*rows->r),
		      offset ? row__cmp_block : row__cmp_object);
	for (i = 0; i < rows->n; i++) {
		struct top_row *r = &rows->r[i];

		if (blocks) {
			r->blocks = 1;
			r->hot = r->v.count;
		}
		if (k && !row__cmp_key(&rows->r[k - 1], r, offset)) {
			dst = &rows->r[k - 1];
			if (blocks) {
				top_row__fold_block(dst, r);
			} else {
				top_val__add(&dst->v, &r->v);
				/* the lowest: the same whatever order the rows came in */
				if (r->start < dst->start)
					dst->start = r->start;
			}
			top_row__free(r);
			continue;
		}
		rows->r[k++] = *r;
	}
	rows->n = k;
}

/* A row's key (row__cmp_key) as a hash; pooled names: a string is its pointer. */
static size_t row__hash(const struct top_row *r, bool offset)
{
	__u64 h = (__u64)(uintptr_t)r->name * 0x9e3779b97f4a7c15ull;

	h = (h ^ (h >> 29) ^ (__u64)(uintptr_t)r->where) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ (h >> 31) ^ (r->kernel ? 1 : 0) ^ (offset ? row__block(r) : 0)) *
	    0x94d049bb133111ebull;
	return (size_t)(h ^ (h >> 32));
}

static bool row__same(const struct top_row *a, const struct top_row *b, bool offset)
{
	return a->name == b->name && a->where == b->where && a->kernel == b->kernel &&
	       (!offset || row__block(a) == row__block(b));
}

static void fold__into(struct top_row *dst, struct top_row *r, bool blocks)
{
	if (blocks) {
		top_row__fold_block(dst, r);
	} else {
		top_val__add(&dst->v, &r->v);
		/* the lowest: the same whatever order the rows came in */
		if (r->start < dst->start)
			dst->start = r->start;
	}
	top_row__free(r);
}

/*
 * top_rows__fold's rows, in an order of their own, for rows whose names are
 * all of the pool (equal strings, one pointer): equal keys are found by a
 * hash of the key, not by sorting the rows, and each group folds into the
 * row a stable sort would have put first: the first, where the rows from
 * index later on come before those under it (rows appended to the rows
 * kept earlier), or with lowest (rows the fold by block left in block
 * order) the lowest block; so that every row is the same as
 * top_rows__fold's.  In place; for callers that order the rows afterwards
 * or fold them again.  -ENOMEM: rows untouched.
 */
struct fold_slot {
	__u32 hash;
	__u32 group; /* (__u32)-1: empty */
};

static int top_rows__fold_hashed(struct top_rows *rows, bool offset, bool blocks, bool lowest,
				 size_t later)
{
	size_t nslot = 64, i, k = 0, n = rows->n, *rep;
	struct fold_slot *slot;
	__u32 *group, g;

	if (n >= (__u32)-1)
		return -ENOMEM;
	while (nslot < n * 2)
		nslot *= 2;
	slot = malloc(nslot * sizeof(*slot));
	group = malloc((n + 1) * sizeof(*group));
	rep = malloc((n + 1) * sizeof(*rep));
	if (!slot || !group || !rep) {
		free(slot);
		free(group);
		free(rep);
		return -ENOMEM;
	}
	bigmem__advise(slot);
	bigmem__advise(group);
	bigmem__advise(rep);
	memset(slot, 0xff, nslot * sizeof(*slot));
	/* each row's group, and the row it folds into */
	for (i = 0; i < n; i++) {
		struct top_row *r = &rows->r[i];
		__u32 hash = (__u32)row__hash(r, offset);
		size_t h = hash & (nslot - 1), j;

		if (blocks) {
			r->blocks = 1;
			r->hot = r->v.count;
		}
		while (slot[h].group != (__u32)-1 &&
		       (slot[h].hash != hash ||
			!row__same(&rows->r[rep[slot[h].group]], r, offset)))
			h = (h + 1) & (nslot - 1);
		if (slot[h].group == (__u32)-1) {
			slot[h].hash = hash;
			slot[h].group = (__u32)k;
			rep[k++] = i;
			group[i] = slot[h].group;
			continue;
		}
		g = slot[h].group;
		group[i] = g;
		j = rep[g];
		if (lowest && row__block(r) != row__block(&rows->r[j])) {
			if ((__s64)row__block(r) < (__s64)row__block(&rows->r[j]))
				rep[g] = i;
		} else if (i >= later && j < later) {
			rep[g] = i; /* the first of the rows that come first */
		}
	}
	free(slot);
	for (i = 0; i < n; i++)
		if (rep[group[i]] != i)
			fold__into(&rows->r[rep[group[i]]], &rows->r[i], blocks);
	for (i = 0, k = 0; i < n; i++)
		if (rep[group[i]] == i)
			rows->r[k++] = rows->r[i];
	free(group);
	free(rep);
	rows->n = k;
	return 0;
}

/* top_rows__fold_hashed where every name is the pool's, else top_rows__fold. */
static int top_rows__fold_unordered(struct top_rows *rows, bool offset, bool blocks, bool lowest,
				    size_t later)
{
	size_t i;

	for (i = 0; i < rows->n; i++)
		if (!rows->r[i].pooled)
			break;
	if (i < rows->n) {
		top_rows__fold(rows, offset, blocks);
		return 0;
	}
	return top_rows__fold_hashed(rows, offset, blocks, lowest, later);
}

static int row__cmp_sort(const void *a, const void *b, void *arg);

/* Names a table entry into out; what a row keeps besides its name, into row. */
typedef void (*resolve_fn)(struct symbolizer *z, __u32 tgid, __u64 addr, __u64 len,
			   const char *func, struct sym *out, struct top_row *row);

static void resolve_ip(struct symbolizer *z, __u32 tgid, __u64 addr, __u64 len, const char *func,
		       struct sym *out, struct top_row *row)
{
	(void)len;
	(void)func;
	(void)row;
	symbolizer__ip(z, tgid, addr, out);
}

static void resolve_data(struct symbolizer *z, __u32 tgid, __u64 addr, __u64 len, const char *func,
			 struct sym *out, struct top_row *row)
{
	(void)func;
	(void)row;
	symbolizer__data(z, tgid, addr, len, out);
}

/* A type row: its label names it alone, whatever process or DSO touched it. */
static void resolve_type(struct symbolizer *z, __u32 tgid, __u64 addr, __u64 len, const char *func,
			 struct sym *out, struct top_row *row)
{
	const struct datatype *d = symbolizer__datatype(z, tgid, addr);

	(void)len;
	(void)func;
	memset(out, 0, sizeof(*out));
	datatype__label(d, out->name, sizeof(out->name));
	out->kind = d->why == DATATYPE_TYPED ? SYM_RESOLVED : SYM_UNKNOWN;
	out->kernel = d->why == DATATYPE_KERNEL;
	row->dt = d;
}

/*
 * A source-line row: the file (as the DWARF names it) and line, and the
 * function its code belongs to, "func (inlined)" when that was inlined;
 * without a line, "??:0" (perf's) and the function the symbols name.
 */
static void resolve_srcline(struct symbolizer *z, __u32 tgid, __u64 addr, __u64 len,
			    const char *func, struct sym *out, struct top_row *row)
{
	const struct srcline *l = symbolizer__srcline(z, tgid, addr);
	struct sym fn;

	(void)len;
	(void)func;
	symbolizer__ip(z, tgid, addr, &fn);
	memset(out, 0, sizeof(*out));
	out->kernel = fn.kernel;
	if (!l->n) {
		snprintf(out->name, sizeof(out->name), "??:0");
		snprintf(out->where, sizeof(out->where), "%s", fn.name);
		out->kind = SYM_UNKNOWN;
		return;
	}
	snprintf(out->name, sizeof(out->name), "%s:%u", l->frames[0].file, l->frames[0].line);
	snprintf(out->where, sizeof(out->where), "%s%s",
		 l->frames[0].func ? l->frames[0].func : fn.name, l->n > 1 ? " (inlined)" : "");
	out->kind = SYM_RESOLVED;
	row->sl = l;
}

/*
 * An annotation's row: an instruction of function func, keyed by its file
 * and file address (every process running that code folds into one row);
 * the code of any other function folds into one row named "" (counted
 * beside the annotation, not shown).
 */
static void resolve_annotate(struct symbolizer *z, __u32 tgid, __u64 addr, __u64 len,
			     const char *func, struct sym *out, struct top_row *row)
{
	struct symbolizer_func fn;
	__u64 vaddr;
	char file[sizeof(out->where)];

	(void)len;
	symbolizer__ip(z, tgid, addr, out);
	if (strcmp(out->name, func) ||
	    symbolizer__code_func(z, tgid, addr, file, sizeof(file), &vaddr, &fn) ||
	    fn.lo >= fn.hi) {
		memset(out, 0, sizeof(*out));
		return;
	}
	snprintf(out->name, sizeof(out->name), "0x%llx", (unsigned long long)vaddr);
	snprintf(out->where, sizeof(out->where), "%s", file);
	out->kind = SYM_RESOLVED;
	/* the row's start (the entry's address less this) is the file address */
	out->offset = (__s64)(addr - vaddr);
	row->lo = fn.lo;
	row->hi = fn.hi;
	row->dt = symbolizer__datatype_at(z, file, vaddr);
}

/*
 * A type annotation's row: an instruction that touches data of type type,
 * keyed by its file and file address; every other instruction folds into
 * one row named "".
 */
static void resolve_annotype(struct symbolizer *z, __u32 tgid, __u64 addr, __u64 len,
			     const char *type, struct sym *out, struct top_row *row)
{
	const struct datatype *d;
	__u64 vaddr;
	char file[sizeof(out->where)];

	(void)len;
	memset(out, 0, sizeof(*out));
	if (symbolizer__code(z, tgid, addr, file, sizeof(file), &vaddr) != DATATYPE_TYPED)
		return;
	d = symbolizer__datatype_at(z, file, vaddr);
	if (d->why != DATATYPE_TYPED || !d->type || strcmp(d->type, type))
		return;
	snprintf(out->name, sizeof(out->name), "0x%llx", (unsigned long long)vaddr);
	snprintf(out->where, sizeof(out->where), "%s", file);
	out->kind = SYM_RESOLVED;
	out->offset = (__s64)(addr - vaddr);
	row->dt = d;
}

static resolve_fn resolve__of(unsigned int by)
{
	switch (by) {
	case TOP_BY_ANNOTYPE:
		return resolve_annotype;
	case TOP_BY_ANNOTATE:
		return resolve_annotate;
	case TOP_BY_TYPE:
		return resolve_type;
	case TOP_BY_SRCLINE:
		return resolve_srcline;
	case TOP_BY_DATA:
		return resolve_data;
	default:
		return resolve_ip;
	}
}

/* Room for more rows. */
static int rows__reserve(struct top_rows *rows, size_t more)
{
	struct top_row *r = realloc(rows->r, (rows->n + more + 1) * sizeof(*r));

	if (!r)
		return -ENOMEM;
	rows->r = r;
	bigmem__advise(r);
	return 0;
}

/* One row per table entry that keep accepts (every one without keep), named, appended. */
static int top_rows__resolve(struct top_rows *rows, const struct top_table *t, struct symbolizer *z,
			     resolve_fn resolve, const char *func, __u64 len,
			     bool (*keep)(const struct top_entry *e, void *ctx), void *ctx)
{
	char *name = NULL, *where = NULL;
	struct sym s;
	size_t i;

	if (rows__reserve(rows, t->n))
		return -ENOMEM;
	symbolizer__begin(z);
	for (i = 0; i < t->n; i++) {
		struct top_row *r = &rows->r[rows->n];

		if (keep && !keep(&t->e[i], ctx))
			continue;
		memset(r, 0, sizeof(*r));
		resolve(z, t->e[i].tgid, t->e[i].addr, len, func, &s, r);
		/* the lines of one mapping or variable follow each other: one look-up per run */
		if (!name || strcmp(name, s.name))
			name = pool__get(&rows->pool, s.name);
		if (!where || strcmp(where, s.where))
			where = pool__get(&rows->pool, s.where);
		r->name = name;
		r->where = where;
		r->pooled = true;
		if (!r->name || !r->where)
			return -ENOMEM;
		r->kind = s.kind;
		r->kernel = s.kernel;
		r->offset = s.offset;
		r->start = t->e[i].addr - (__u64)s.offset;
		top_table__val(t, &t->e[i], &r->v);
		rows->n++;
		rows->total += r->v.count;
	}
	return 0;
}

/* Copies of the rows named early (top_rows__take_exited), appended. */
static int top_rows__append(struct top_rows *rows, const struct top_rows *early)
{
	size_t i;

	if (!early || !early->n)
		return 0;
	if (rows__reserve(rows, early->n))
		return -ENOMEM;
	for (i = 0; i < early->n; i++) {
		struct top_row *r = &rows->r[rows->n];

		*r = early->r[i];
		r->name = pool__get(&rows->pool, early->r[i].name);
		r->where = pool__get(&rows->pool, early->r[i].where);
		r->pooled = true;
		if (!r->name || !r->where)
			return -ENOMEM;
		rows->n++;
		rows->total += r->v.count;
	}
	return 0;
}

/* The table's samples not in its rows (full, failed, past --max-keys) and its spill count. */
static void top_rows__count_losses(struct top_rows *rows, const struct top_table *t)
{
	rows->full = t->full;
	rows->failed = t->failed;
	rows->capped = t->capped;
	rows->spilled = t->spilled;
	rows->total += t->full + t->failed + t->capped;
}

/* The table's rows, the early ones, and what was not attributed. */
static int top_rows__build(struct top_rows *rows, const struct top_table *t, struct symbolizer *z,
			   resolve_fn resolve, const char *func, __u64 len,
			   const struct top_rows *early)
{
	int e;

	memset(rows, 0, sizeof(*rows));
	e = top_rows__resolve(rows, t, z, resolve, func, len, NULL, NULL)
		    ?: top_rows__append(rows, early);
	if (e) {
		top_rows__free(rows);
		return e;
	}
	top_rows__count_losses(rows, t);
	return 0;
}

int top_rows__ip(struct top_rows *rows, const struct top_table *t, struct symbolizer *z,
		 const struct top_rows *early)
{
	return top_rows__code(rows, t, z, TOP_BY_IP, early);
}

int top_rows__code(struct top_rows *rows, const struct top_table *t, struct symbolizer *z,
		   unsigned int by, const struct top_rows *early)
{
	int e = top_rows__build(rows, t, z, resolve__of(by), NULL, 1, early);

	if (!e)
		top_rows__fold(rows, false, false);
	return e;
}

/* The file whose rows of the function have the most samples (rows named "" are other code's). */
static const char *annotate__file(const struct top_rows *rows)
{
	const char *best = NULL;
	__u64 most = 0, n;
	size_t i, k;

	for (i = 0; i < rows->n; i++) {
		if (!rows->r[i].name[0] || (best && !strcmp(best, rows->r[i].where)))
			continue;
		for (n = 0, k = 0; k < rows->n; k++)
			if (rows->r[k].name[0] && !strcmp(rows->r[k].where, rows->r[i].where))
				n += rows->r[k].v.count;
		if (n > most) {
			most = n;
			best = rows->r[i].where;
		}
	}
	return best;
}

static int row__cmp_start(const void *a, const void *b)
{
	const struct top_row *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int top_rows__annotate(struct top_rows *rows, const struct top_table *t, struct symbolizer *z,
		       const char *func, const struct top_rows *early)
{
	struct top_rows in;
	const char *file;
	struct top_row *r;
	ssize_t ni;
	size_t i, k, n = 0;
	int e = top_rows__build(&in, t, z, resolve_annotate, func, 1, early);

	memset(rows, 0, sizeof(*rows));
	if (e)
		return e;
	top_rows__fold(&in, false, false);
	rows->full = in.full;
	rows->failed = in.failed;
	rows->capped = in.capped;
	rows->spilled = in.spilled;
	file = annotate__file(&in);
	for (i = 0; i < in.n; i++)
		if (!file || strcmp(in.r[i].where, file) || !in.r[i].name[0])
			rows->outside += in.r[i].v.count;
	if (!file)
		goto out;
	for (i = 0; i < in.n && strcmp(in.r[i].where, file); i++)
		;
	rows->lo = in.r[i].lo;
	rows->hi = in.r[i].hi;
	rows->file = strdup(file);
	ni = symbolizer__disasm(z, file, rows->lo, rows->hi, &rows->insns);
	e = !rows->file ? -ENOMEM : ni == -ENOMEM ? -ENOMEM : 0;
	if (e)
		goto out;
	if (ni < 0)
		ni = 0; /* the code cannot be read: its sampled addresses alone */
	/* every instruction, and any sampled address that starts none */
	rows->r = calloc((size_t)ni + in.n, sizeof(*rows->r));
	if (!rows->r) {
		e = -ENOMEM;
		goto out;
	}
	for (k = 0; k < (size_t)ni; k++) {
		r = &rows->r[n++];
		r->start = rows->insns[k].addr;
		r->insn = rows->insns[k].text;
		r->dt = symbolizer__datatype_at(z, file, r->start);
	}
	for (i = 0; i < in.n; i++) {
		struct top_row *s = &in.r[i];

		if (!s->name[0] || strcmp(s->where, file))
			continue;
		for (k = 0; k < (size_t)ni && rows->insns[k].addr != s->start; k++)
			;
		r = k < (size_t)ni ? &rows->r[k] : &rows->r[n++];
		r->start = s->start;
		r->v = s->v;
		r->dt = s->dt;
		rows->total += s->v.count;
	}
	for (k = 0; k < n; k++) {
		char name[64];

		snprintf(name, sizeof(name), "0x%llx", (unsigned long long)rows->r[k].start);
		rows->r[k].name = strdup(name);
		rows->r[k].where = strdup(file);
		rows->r[k].kind = SYM_RESOLVED;
		rows->n++;
		if (!rows->r[k].name || !rows->r[k].where) {
			e = -ENOMEM;
			goto out;
		}
	}
	qsort(rows->r, rows->n, sizeof(*rows->r), row__cmp_start);
out:
	top_rows__free(&in);
	if (e)
		top_rows__free(rows);
	return e;
}

/* The block of file, added (its layout read from the code at vaddr) when new; NULL: no memory. */
static struct top_typeblock *typeblocks__get(struct top_rows *rows, struct symbolizer *z,
					     const char *file, __u64 vaddr, const char *type)
{
	struct top_typeblock *b;
	ssize_t n;
	size_t i;

	for (i = 0; i < rows->ntypes; i++)
		if (!strcmp(rows->types[i].file, file))
			return &rows->types[i];
	b = realloc(rows->types, (rows->ntypes + 1) * sizeof(*b));
	if (!b)
		return NULL;
	rows->types = b;
	b = &rows->types[rows->ntypes];
	memset(b, 0, sizeof(*b));
	b->file = strdup(file);
	if (!b->file)
		return NULL;
	rows->ntypes++;
	n = symbolizer__layout(z, file, vaddr, type, &b->m);
	if (n == -ENOMEM)
		return NULL;
	b->n = n > 0 ? (size_t)n : 0;
	b->v = calloc(b->n + 1, sizeof(*b->v));
	return b->v ? b : NULL;
}

/* A sample of the type at offset off: every member whose bytes hold it. */
static void typeblock__add(struct top_typeblock *b, const struct datatype *d,
			   const struct ldlat_top_val *v)
{
	bool placed = false;
	size_t k;

	b->samples += v->count;
	if (b->n && d->offset_known && d->offset >= 0 && (__u64)d->offset < b->m[0].size) {
		for (k = 0; k < b->n; k++)
			if ((__u64)d->offset >= b->m[k].offset &&
			    (__u64)d->offset - b->m[k].offset < b->m[k].size) {
				top_val__add(&b->v[k], v);
				placed = true;
			}
	}
	if (!placed)
		b->unplaced += v->count;
}

static int typeblock__cmp(const void *a, const void *b)
{
	const struct top_typeblock *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(x->file, y->file);
}

int top_rows__annotate_type(struct top_rows *rows, const struct top_table *t, struct symbolizer *z,
			    const char *type, const struct top_rows *early)
{
	struct top_rows in;
	struct top_typeblock *b;
	size_t i;
	int e = top_rows__build(&in, t, z, resolve_annotype, type, 1, early);

	memset(rows, 0, sizeof(*rows));
	if (e)
		return e;
	top_rows__fold(&in, false, false);
	rows->full = in.full;
	rows->failed = in.failed;
	rows->spilled = in.spilled;
	rows->total = in.total;
	for (i = 0; i < in.n; i++) {
		const struct top_row *s = &in.r[i];

		if (!s->name[0] || !s->dt) {
			rows->outside += s->v.count;
			continue;
		}
		b = typeblocks__get(rows, z, s->where, s->start, type);
		if (!b) {
			e = -ENOMEM;
			break;
		}
		typeblock__add(b, s->dt, &s->v);
	}
	rows->outside += in.full + in.failed;
	if (!e && rows->ntypes)
		qsort(rows->types, rows->ntypes, sizeof(*rows->types), typeblock__cmp);
	top_rows__free(&in);
	if (e)
		top_rows__free(rows);
	return e;
}

/*
 * top_rows__build's rows, the early ones taken rather than copied (early
 * is left empty): they are the most of a report whose processes exited,
 * and no one reads them after it.  *later: where the table's rows begin.
 */
static int top_rows__build_taking(struct top_rows *rows, const struct top_table *t,
				  struct symbolizer *z, __u64 len, struct top_rows *early,
				  size_t *later)
{
	int e;

	*later = 0;
	if (!early || !early->n)
		return top_rows__build(rows, t, z, resolve_data, NULL, len, early);
	*rows = *early;
	memset(early, 0, sizeof(*early));
	*later = rows->n;
	e = top_rows__resolve(rows, t, z, resolve_data, NULL, len, NULL, NULL);
	if (e) {
		top_rows__free(rows);
		return e;
	}
	top_rows__count_losses(rows, t);
	return 0;
}

/*
 * A block of the data table as the object rows need it, 48 bytes where a
 * row is 232: for a table whose values are counts alone (top_table's
 * 'uniform'), whose 300,000 first-touched pages would otherwise be as
 * many rows at once.
 */
struct top_slim_block {
	const char *name, *where; /* the rows' pool's */
	__s64 offset;
	__u64 start;
	__u64 count;
	enum sym_kind kind;
	bool kernel;
};

/* row__block, row__same and row__hash of a slim block. */
static __u64 slim__block(const struct top_slim_block *b)
{
	if (b->kind == SYM_MAPPING && b->name[0] == '[')
		return b->start + (__u64)b->offset;
	return (__u64)b->offset;
}

static size_t slim__hash(const struct top_slim_block *b, bool offset)
{
	struct top_row r = { .name = (char *)b->name,
			     .where = (char *)b->where,
			     .kind = b->kind,
			     .kernel = b->kernel,
			     .offset = b->offset,
			     .start = b->start };

	return row__hash(&r, offset);
}

static bool slim__same(const struct top_slim_block *a, const struct top_slim_block *b, bool offset)
{
	return a->name == b->name && a->where == b->where && a->kernel == b->kernel &&
	       (!offset || slim__block(a) == slim__block(b));
}

/*
 * Blocks a partition of slim__group holds about: its index (8 bytes a slot,
 * at most half full) stays in the CPU's cache.  One index for all of
 * 300,000 blocks (8 MB) cost a cache and TLB miss per block, and a fifth of
 * live ldlat-top's own time on that many first-touched pages.
 */
#define SLIM_PART_BLOCKS 4096

/* A partition of slim__group: the top bits of the hash (the index takes the low ones). */
static size_t slim__part(__u32 hash, unsigned int bits)
{
	return bits ? hash >> (32 - bits) : 0;
}

/* A block of a partition of slim__group: its hash (read in order, not by index) and index. */
struct slim_member {
	__u32 hash, i;
};

/*
 * Makes slot the empty index of nslot slots (a power of two) of a
 * partition, with its groups first..k-1 in (ghash: each one's hash).
 * 0 or -ENOMEM.
 */
static int slim__index(struct fold_slot **slot, size_t *cap, size_t nslot, const __u32 *ghash,
		       size_t first, size_t k)
{
	size_t g, h;

	if (nslot > *cap) {
		struct fold_slot *s = realloc(*slot, nslot * sizeof(*s));

		if (!s)
			return -ENOMEM;
		*slot = s;
		*cap = nslot;
	}
	memset(*slot, 0xff, nslot * sizeof(**slot));
	for (g = first; g < k; g++) {
		for (h = ghash[g] & (nslot - 1); (*slot)[h].group != (__u32)-1;)
			h = (h + 1) & (nslot - 1);
		(*slot)[h].hash = ghash[g];
		(*slot)[h].group = (__u32)g;
	}
	return 0;
}

/*
 * Each block's group (equal keys, by block with offset, else by object) and
 * the block each group folds into, as top_rows__fold_hashed chooses it (the
 * same rules, on the same order).  Equal keys have one hash, so the blocks
 * are split by hash into partitions first (each in block order), grouped a
 * partition at a time.  Returns the groups, or -ENOMEM.
 */
static ssize_t slim__group(const struct top_slim_block *b, size_t n, bool offset, bool lowest,
			   size_t later, __u32 *group, size_t *rep)
{
	__u32 *hash = malloc((n + 1) * sizeof(*hash)), *ghash = malloc((n + 1) * sizeof(*ghash));
	struct slim_member *order = malloc((n + 1) * sizeof(*order));
	size_t npart, nslot, cap = 0, p, q, i, first, k = 0, *at = NULL;
	struct fold_slot *slot = NULL;
	unsigned int bits = 0;
	ssize_t ret = -ENOMEM;

	while (bits < 16 && (n >> bits) > SLIM_PART_BLOCKS)
		bits++;
	npart = (size_t)1 << bits;
	at = calloc(npart + 1, sizeof(*at));
	if (!hash || !ghash || !order || !at)
		goto out;
	bigmem__advise(hash);
	bigmem__advise(ghash);
	bigmem__advise(order);
	for (i = 0; i < n; i++) {
		hash[i] = (__u32)slim__hash(&b[i], offset);
		at[slim__part(hash[i], bits) + 1]++;
	}
	for (p = 0; p < npart; p++)
		at[p + 1] += at[p];
	/* at[p]: where partition p starts in order; at[p + 1] once its blocks are in */
	for (i = 0; i < n; i++)
		order[at[slim__part(hash[i], bits)]++] = (struct slim_member){ hash[i], (__u32)i };
	for (p = 0, q = 0; p < npart; q = at[p++]) {
		first = k;
		/* a slot a block, up to a partition's expected: doubled when half full */
		for (nslot = 64; nslot < at[p] - q && nslot < SLIM_PART_BLOCKS;)
			nslot *= 2;
		if (q < at[p] && slim__index(&slot, &cap, nslot, ghash, first, k))
			goto out;
		for (; q < at[p]; q++) {
			__u32 g, hi = order[q].hash;
			size_t h, j;

			i = order[q].i;
			if ((k - first + 1) * 2 > nslot) {
				nslot *= 2;
				if (slim__index(&slot, &cap, nslot, ghash, first, k))
					goto out;
			}
			h = hi & (nslot - 1);
			while (slot[h].group != (__u32)-1 &&
			       (slot[h].hash != hi ||
				!slim__same(&b[rep[slot[h].group]], &b[i], offset)))
				h = (h + 1) & (nslot - 1);
			if (slot[h].group == (__u32)-1) {
				slot[h].hash = hi;
				slot[h].group = (__u32)k;
				ghash[k] = hi;
				rep[k++] = i;
				group[i] = slot[h].group;
				continue;
			}
			g = slot[h].group;
			group[i] = g;
			j = rep[g];
			if (lowest && slim__block(&b[i]) != slim__block(&b[j])) {
				if ((__s64)slim__block(&b[i]) < (__s64)slim__block(&b[j]))
					rep[g] = i;
			} else if (i >= later && j < later) {
				rep[g] = i;
			}
		}
	}
	ret = (ssize_t)k;
out:
	free(slot);
	free(at);
	free(order);
	free(ghash);
	free(hash);
	return ret;
}

/*
 * top_rows__fold_hashed by block (offset, not blocks, not lowest) of n
 * blocks, in place: a group's count into the block it folds into, the
 * lowest start.  Returns the blocks left, or -ENOMEM.
 */
static ssize_t slim__fold_blocks(struct top_slim_block *b, size_t n, size_t later)
{
	__u32 *group = malloc((n + 1) * sizeof(*group));
	size_t *rep = malloc((n + 1) * sizeof(*rep)), i, k;
	ssize_t ng = -ENOMEM;

	if (n >= (__u32)-1 || !group || !rep)
		goto out;
	bigmem__advise(group);
	bigmem__advise(rep);
	ng = slim__group(b, n, true, false, later, group, rep);
	if (ng < 0)
		goto out;
	for (i = 0; i < n; i++) {
		struct top_slim_block *dst = &b[rep[group[i]]];

		if (dst == &b[i])
			continue;
		dst->count += b[i].count;
		if (b[i].start < dst->start)
			dst->start = b[i].start;
	}
	for (i = 0, k = 0; i < n; i++)
		if (rep[group[i]] == i)
			b[k++] = b[i];
	ng = (ssize_t)k;
out:
	free(group);
	free(rep);
	return ng;
}

/*
 * top_rows__resolve's naming of the entries keep accepts (every one without
 * keep), into blocks from b[at], their names into rows' pool, their counts
 * into rows->total.  Returns the blocks, or -ENOMEM.
 */
static ssize_t slim__resolve(struct top_rows *rows, const struct top_table *t, struct symbolizer *z,
			     __u32 shift, struct top_slim_block *b,
			     bool (*keep)(const struct top_entry *e, void *ctx), void *ctx)
{
	const char *name = NULL, *where = NULL;
	struct sym_span span = { 0 };
	size_t k, n = 0;
	struct sym s;

	symbolizer__begin(z);
	for (k = 0; k < t->n; k++) {
		__u64 addr = t->e[k].addr;

		if (keep && !keep(&t->e[k], ctx))
			continue;
		/* a block of the mapping the last one named (no symbols in it): named once */
		if (t->e[k].tgid == span.tgid && addr >= span.lo && addr < span.hi) {
			b[n++] = (struct top_slim_block){ .name = name,
							  .where = where,
							  .offset = (__s64)(addr - span.base),
							  .start = span.base,
							  .count = t->e[k].count,
							  .kind = SYM_MAPPING };
			rows->total += t->e[k].count;
			continue;
		}
		symbolizer__data_span(z, t->e[k].tgid, addr, 1ull << shift, &s, &span);
		if (!name || strcmp(name, s.name))
			name = pool__get(&rows->pool, s.name);
		if (!where || strcmp(where, s.where))
			where = pool__get(&rows->pool, s.where);
		if (!name || !where)
			return -ENOMEM;
		b[n++] = (struct top_slim_block){ .name = name,
						  .where = where,
						  .offset = s.offset,
						  .start = t->e[k].addr - (__u64)s.offset,
						  .count = t->e[k].count,
						  .kind = s.kind,
						  .kernel = s.kernel };
		rows->total += t->e[k].count;
	}
	return (ssize_t)n;
}

/* The class of both of two uniform classes (top_val__uniform's), or TOP_UNIFORM_WIDE. */
static __u32 uniform__join(__u32 a, __u32 b)
{
	if (a == TOP_UNIFORM_NONE)
		return b;
	if (b == TOP_UNIFORM_NONE || a == b)
		return a;
	return TOP_UNIFORM_WIDE;
}

/*
 * Early blocks back into rows (each the row top_rows__resolve would have
 * made of it, its samples of class blk_uniform), for the ways that fold
 * rows.  Returns 0 or -ENOMEM.
 */
static int top_rows__expand(struct top_rows *rows)
{
	size_t i;

	if (!rows || !rows->nblk)
		return 0;
	if (rows__reserve(rows, rows->nblk))
		return -ENOMEM;
	for (i = 0; i < rows->nblk; i++) {
		const struct top_slim_block *b = &rows->blk[i];
		struct top_row *r = &rows->r[rows->n++];

		memset(r, 0, sizeof(*r));
		r->name = (char *)b->name;
		r->where = (char *)b->where;
		r->kind = b->kind;
		r->kernel = b->kernel;
		r->pooled = true;
		r->offset = b->offset;
		r->start = b->start;
		r->v.count = b->count;
		if (rows->blk_uniform < LDLAT_NCLASS)
			r->v.cls[rows->blk_uniform] = (__u32)b->count;
	}
	free(rows->blk);
	rows->blk = NULL;
	rows->nblk = 0;
	return 0;
}

size_t top_rows__held(const struct top_rows *rows)
{
	return rows->n + rows->nblk;
}

/*
 * top_rows__data's object rows (TOP_DATA_OBJECT) through slim blocks, when
 * every value is a count of one class, u (top_val__uniform's: the table's
 * and the early rows' or blocks'): the same rows in the same order, each
 * row made once per object.  1: done; 0: not such a table (nothing done);
 * -ENOMEM.
 */
static int top_rows__data_slim(struct top_rows *rows, const struct top_table *t,
			       struct symbolizer *z, __u32 shift, struct top_rows *early)
{
	__u32 u = t->uniform, *group = NULL;
	struct top_slim_block *b = NULL;
	size_t n = t->n, i, later = 0, *rep = NULL, *row_of = NULL;
	ssize_t ng;
	int e = -ENOMEM;

	if (t->wide)
		return 0;
	if (early && early->nblk)
		u = uniform__join(u, early->blk_uniform);
	for (i = 0; early && i < early->n; i++) {
		if (!early->r[i].pooled)
			return 0;
		u = uniform__join(u, top_val__uniform(&early->r[i].v));
	}
	if (u == TOP_UNIFORM_WIDE)
		return 0;
	/* the early rows (or blocks: never both) taken, as top_rows__build_taking takes them */
	memset(rows, 0, sizeof(*rows));
	if (early && (early->n || early->nblk)) {
		*rows = *early;
		memset(early, 0, sizeof(*early));
		later = rows->n + rows->nblk;
	}
	n += later;
	if (n >= (__u32)-1)
		goto out;
	b = rows->blk ? realloc(rows->blk, (n + 1) * sizeof(*b)) : malloc((n + 1) * sizeof(*b));
	if (!b)
		goto out;
	bigmem__advise(b);
	rows->blk = NULL;
	rows->nblk = 0;
	for (i = 0; i < rows->n; i++) {
		const struct top_row *r = &rows->r[i];

		b[i] = (struct top_slim_block){ .name = r->name,
						.where = r->where,
						.offset = r->offset,
						.start = r->start,
						.count = r->v.count,
						.kind = r->kind,
						.kernel = r->kernel };
	}
	/* the early rows are blocks now (their names stay in the pool) */
	free(rows->r);
	rows->r = NULL;
	rows->n = 0;
	if (slim__resolve(rows, t, z, shift, b + later, NULL, NULL) < 0)
		goto out;
	top_rows__count_losses(rows, t);
	ng = slim__fold_blocks(b, n, later);
	if (ng < 0)
		goto out;
	n = (size_t)ng;
	/* by object: a row per object, its blocks folded in as top_row__fold_block folds them */
	group = malloc((n + 1) * sizeof(*group));
	rep = malloc((n + 1) * sizeof(*rep));
	if (!group || !rep)
		goto out;
	bigmem__advise(group);
	bigmem__advise(rep);
	ng = slim__group(b, n, false, true, 0, group, rep);
	if (ng < 0)
		goto out;
	row_of = malloc(((size_t)ng + 1) * sizeof(*row_of));
	rows->r = calloc((size_t)ng + 1, sizeof(*rows->r));
	if (!row_of || !rows->r)
		goto out;
	bigmem__advise(row_of);
	bigmem__advise(rows->r);
	for (i = 0; i < n; i++) {
		struct top_row *r = &rows->r[rows->n];

		if (rep[group[i]] != i)
			continue;
		r->name = (char *)b[i].name;
		r->where = (char *)b[i].where;
		r->kind = b[i].kind;
		r->kernel = b[i].kernel;
		r->pooled = true;
		r->offset = b[i].offset;
		r->start = b[i].start;
		r->blocks = 1;
		r->hot = r->v.count = b[i].count;
		row_of[group[i]] = rows->n++;
	}
	for (i = 0; i < n; i++) {
		struct top_row blk = { .offset = b[i].offset,
				       .start = b[i].start,
				       .hot = b[i].count };

		if (rep[group[i]] == i)
			continue;
		blk.v.count = b[i].count;
		top_row__fold_block(&rows->r[row_of[group[i]]], &blk);
	}
	/* every sample of an object is of class u */
	for (i = 0; i < rows->n && u < LDLAT_NCLASS; i++)
		rows->r[i].v.cls[u] = (__u32)rows->r[i].v.count;
	e = 1;
out:
	free(b);
	free(group);
	free(rep);
	free(row_of);
	if (e < 0)
		top_rows__free(rows);
	return e;
}

int top_rows__data(struct top_rows *rows, const struct top_table *t, struct symbolizer *z,
		   __u32 shift, enum top_data_by by, struct top_rows *early)
{
	int e = by == TOP_DATA_OBJECT ? top_rows__data_slim(rows, t, z, shift, early) : 0;

	if (e)
		return e < 0 ? e : 0;
	return top_rows__data_each(rows, t, z, shift, by, early);
}

int top_rows__data_each(struct top_rows *rows, const struct top_table *t, struct symbolizer *z,
			__u32 shift, enum top_data_by by, struct top_rows *early)
{
	size_t later;
	int e = top_rows__expand(early)
			?: top_rows__build_taking(rows, t, z, 1ull << shift, early, &later);

	if (e)
		return e;
	/*
	 * the same block of two processes of one program is one block; the
	 * caller sorts the rows
	 */
	e = top_rows__fold_unordered(rows, true, false, false, later);
	if (!e && by == TOP_DATA_OBJECT)
		e = top_rows__fold_unordered(rows, false, true, true, 0);
	else
		for (size_t i = 0; i < rows->n; i++)
			rows->r[i].blocks = 1;
	if (e)
		top_rows__free(rows);
	return e;
}

/* ---- a data table in runs ------------------------------------------------ */

/* A block row as a run holds it, its name and DSO after it. */
struct run_rec {
	__s64 offset;
	__u64 start;
	struct ldlat_top_val v;
	__u32 kind;
	__u32 kernel;
	__u32 name_len, where_len;
};

static int run__write(FILE *f, const struct top_row *r)
{
	struct run_rec h = {
		.offset = r->offset,
		.start = r->start,
		.v = r->v,
		.kind = (__u32)r->kind,
		.kernel = r->kernel,
		.name_len = (__u32)strlen(r->name),
		.where_len = (__u32)strlen(r->where),
	};

	if (fwrite(&h, sizeof(h), 1, f) != 1 || fwrite(r->name, 1, h.name_len, f) != h.name_len ||
	    fwrite(r->where, 1, h.where_len, f) != h.where_len)
		return -EIO;
	return 0;
}

/* The next row of a run: 1, 0 at its end, or -errno. */
static int run__read(FILE *f, struct top_row *r)
{
	struct run_rec h;

	memset(r, 0, sizeof(*r));
	if (fread(&h, sizeof(h), 1, f) != 1)
		return ferror(f) ? -EIO : 0;
	r->name = malloc(h.name_len + 1);
	r->where = malloc(h.where_len + 1);
	if (!r->name || !r->where) {
		top_row__free(r);
		return -ENOMEM;
	}
	if (fread(r->name, 1, h.name_len, f) != h.name_len ||
	    fread(r->where, 1, h.where_len, f) != h.where_len) {
		top_row__free(r);
		return -EIO;
	}
	r->name[h.name_len] = r->where[h.where_len] = '\0';
	r->offset = h.offset;
	r->start = h.start;
	r->v = h.v;
	r->kind = (enum sym_kind)h.kind;
	r->kernel = h.kernel;
	return 1;
}

int top_runs__spill(struct top_runs *runs, struct top_table *t, struct symbolizer *z, __u32 shift)
{
	__u64 full = t->full, failed = t->failed, spilled = t->spilled, resident = t->resident,
	      capped = t->capped;
	struct top_rows rows;
	FILE **grown, *f;
	size_t i;
	int e;

	grown = realloc(runs->f, (runs->n + 1) * sizeof(*runs->f));
	if (!grown)
		return -ENOMEM;
	runs->f = grown;
	e = top_rows__build(&rows, t, z, resolve_data, NULL, 1ull << shift, NULL);
	if (e)
		return e;
	top_rows__fold(&rows, true, false);
	f = tmpfile();
	if (!f) {
		e = -errno;
		top_rows__free(&rows);
		return e;
	}
	for (i = 0; i < rows.n && !e; i++)
		e = run__write(f, &rows.r[i]);
	if (!e && fflush(f))
		e = -errno;
	runs->rows += rows.n;
	top_rows__free(&rows);
	if (e) {
		fclose(f);
		return e;
	}
	runs->f[runs->n++] = f;
	top_table__reset(t);
	t->full = full;
	t->failed = failed;
	t->spilled = spilled;
	t->resident = resident;
	t->capped = capped;
	return 0;
}

void top_runs__free(struct top_runs *runs)
{
	size_t i;

	for (i = 0; i < runs->n; i++)
		fclose(runs->f[i]);
	free(runs->f);
	memset(runs, 0, sizeof(*runs));
}

struct merge {
	struct top_rows *rows;
	size_t cap;
	enum top_data_by by;
	size_t keep;
	enum top_sort sort;
};

static int merge__append(struct merge *m, struct top_row *b)
{
	struct top_rows *rows = m->rows;

	if (rows->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 1024;
		struct top_row *r = realloc(rows->r, cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		rows->r = r;
		m->cap = cap;
	}
	rows->r[rows->n++] = *b;
	return 0;
}

/* Keeps the keep first rows in sort order; counts the others. */
static void merge__prune(struct merge *m, size_t keep)
{
	struct top_rows *rows = m->rows;
	size_t i;

	if (rows->n <= keep)
		return;
	qsort_r(rows->r, rows->n, sizeof(*rows->r), row__cmp_sort, &m->sort);
	for (i = keep; i < rows->n; i++) {
		rows->pruned++;
		rows->pruned_count += rows->r[i].v.count;
		top_row__free(&rows->r[i]);
	}
	rows->n = keep;
}

/* One block, every count of it merged: into its object's row, or a row of its own. */
static int merge__block(struct merge *m, struct top_row *b)
{
	struct top_rows *rows = m->rows;
	struct top_row *dst;
	int e;

	rows->total += b->v.count;
	b->blocks = 1;
	b->hot = b->v.count;
	if (m->by == TOP_DATA_OBJECT) {
		dst = rows->n ? &rows->r[rows->n - 1] : NULL;
		if (dst && !row__cmp_key(dst, b, false)) {
			top_row__fold_block(dst, b);
			top_row__free(b);
			return 0;
		}
		e = merge__append(m, b);
	} else {
		e = merge__append(m, b);
		if (!e && m->keep && rows->n >= 2 * m->keep)
			merge__prune(m, m->keep);
	}
	if (e)
		top_row__free(b);
	return e;
}

/* A binary heap of run indices, by their head rows' block keys. */
static bool heap__less(const size_t *h, size_t a, size_t b, const struct top_row *heads)
{
	return row__cmp_key(&heads[h[a]], &heads[h[b]], true) < 0;
}

static void heap__swap(size_t *h, size_t a, size_t b)
{
	size_t t = h[a];

	h[a] = h[b];
	h[b] = t;
}

static void heap__up(size_t *h, size_t i, const struct top_row *heads)
{
	while (i && heap__less(h, i, (i - 1) / 2, heads)) {
		heap__swap(h, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static void heap__down(size_t *h, size_t n, const struct top_row *heads)
{
	size_t i = 0, c;

	while ((c = 2 * i + 1) < n) {
		if (c + 1 < n && heap__less(h, c + 1, c, heads))
			c++;
		if (!heap__less(h, c, i, heads))
			break;
		heap__swap(h, i, c);
		i = c;
	}
}

int top_rows__data_runs(struct top_rows *rows, const struct top_table *t, struct symbolizer *z,
			__u32 shift, enum top_data_by by, struct top_rows *early,
			const struct top_runs *runs, size_t keep, enum top_sort sort)
{
	struct merge m = { .rows = rows, .by = by, .keep = keep, .sort = sort };
	struct top_rows mem;
	struct top_row *heads = NULL, cur, b;
	bool *has = NULL, have = false;
	size_t i, mi = 0, n, hn = 0, *heap = NULL;
	int e, which;

	if (!runs || !runs->n)
		return top_rows__data(rows, t, z, shift, by, early);
	e = top_rows__expand(early)
		    ?: top_rows__build(&mem, t, z, resolve_data, NULL, 1ull << shift, early);
	if (e)
		return e;
	top_rows__fold(&mem, true, false);
	memset(rows, 0, sizeof(*rows));
	/* mem's rows move into rows: their names with them */
	rows->pool = mem.pool;
	mem.pool = NULL;
	rows->full = mem.full;
	rows->failed = mem.failed;
	rows->capped = mem.capped;
	rows->spilled = mem.spilled;
	rows->total = mem.full + mem.failed + mem.capped;
	n = runs->n;
	heads = calloc(n, sizeof(*heads));
	has = calloc(n, sizeof(*has));
	heap = calloc(n, sizeof(*heap));
	if (!heads || !has || !heap)
		e = -ENOMEM;
	for (i = 0; i < n && !e; i++) {
		rewind(runs->f[i]);
		e = run__read(runs->f[i], &heads[i]);
		has[i] = e > 0;
		e = e < 0 ? e : 0;
	}
	/* the runs' heads in a heap, least first */
	for (i = 0; i < n && !e; i++)
		if (has[i]) {
			heap[hn] = i;
			heap__up(heap, hn++, heads);
		}
	/* every source is sorted by block key: take the least, fold equal keys */
	while (!e) {
		struct top_row *min = mi < mem.n ? &mem.r[mi] : NULL;

		which = -1;
		if (hn && (!min || row__cmp_key(&heads[heap[0]], min, true) < 0)) {
			which = (int)heap[0];
			min = &heads[which];
		}
		if (!min)
			break;
		b = *min;
		if (which < 0) {
			mi++;
		} else {
			e = run__read(runs->f[which], &heads[which]);
			has[which] = e > 0;
			e = e < 0 ? e : 0;
			if (!has[which])
				heap[0] = heap[--hn];
			heap__down(heap, hn, heads);
		}
		if (have && !row__cmp_key(&cur, &b, true)) {
			top_val__add(&cur.v, &b.v);
			if (b.start < cur.start)
				cur.start = b.start;
			top_row__free(&b);
			continue;
		}
		if (have)
			e = e ?: merge__block(&m, &cur);
		cur = b;
		have = true;
	}
	if (have) {
		if (!e)
			e = merge__block(&m, &cur);
		else
			top_row__free(&cur);
	}
	if (!e && by == TOP_DATA_BLOCK && keep)
		merge__prune(&m, keep);
	for (i = 0; i < n && has; i++)
		if (has[i])
			top_row__free(&heads[i]);
	for (; mi < mem.n; mi++)
		top_row__free(&mem.r[mi]);
	free(mem.r);
	free(heads);
	free(has);
	free(heap);
	if (e)
		top_rows__free(rows);
	return e;
}

static bool entry__exited(const struct top_entry *e, void *ctx)
{
	const struct proc *p = procmaps__find(ctx, (pid_t)e->tgid);

	return p && p->exited;
}

/*
 * top_rows__take_exited of a data table of counts alone, into early's
 * blocks: 1: done; 0: not such a table or early rows (nothing done);
 * -ENOMEM.
 */
static int top_rows__take_exited_slim(struct top_rows *early, struct top_table *t,
				      struct symbolizer *z, __u32 shift)
{
	__u32 u = uniform__join(early->nblk ? early->blk_uniform : TOP_UNIFORM_NONE, t->uniform);
	struct top_slim_block *b;
	ssize_t n;

	if (t->wide || early->n || u == TOP_UNIFORM_WIDE)
		return 0;
	b = realloc(early->blk, (early->nblk + t->n + 1) * sizeof(*b));
	if (!b)
		return -ENOMEM;
	early->blk = b;
	bigmem__advise(b);
	n = slim__resolve(early, t, z, shift, b + early->nblk, entry__exited, z->pm);
	if (n < 0)
		return (int)n;
	early->nblk += (size_t)n;
	early->blk_uniform = u;
	top_table__remove_if(t, entry__exited, z->pm);
	/* blocks in no order, folded again with the table's at each report */
	n = slim__fold_blocks(early->blk, early->nblk, 0);
	if (n < 0)
		return (int)n;
	early->nblk = (size_t)n;
	return 1;
}

int top_rows__take_exited(struct top_rows *early, struct top_table *t, struct symbolizer *z,
			  unsigned int by, const char *func, __u32 shift)
{
	bool data = by == TOP_BY_DATA;
	int e = data ? top_rows__take_exited_slim(early, t, z, shift) : 0;

	if (e)
		return e < 0 ? e : 0;
	return top_rows__take_exited_each(early, t, z, by, func, shift);
}

int top_rows__take_exited_each(struct top_rows *early, struct top_table *t, struct symbolizer *z,
			       unsigned int by, const char *func, __u32 shift)
{
	bool data = by == TOP_BY_DATA;
	int e = top_rows__expand(early)
			?: top_rows__resolve(early, t, z, resolve__of(by), func,
					     data ? 1ull << shift : 1, entry__exited, z->pm);

	if (e)
		return e;
	top_table__remove_if(t, entry__exited, z->pm);
	/*
	 * a block (data) or a function (code) per row: bounded by what the
	 * programs hold; folded again with the table's rows at each report,
	 * so in no order
	 */
	return top_rows__fold_unordered(early, data, false, false, 0);
}

static double row__mean(const struct top_row *r)
{
	return r->v.count ? (double)r->v.lat_sum / (double)r->v.count : 0;
}

static int row__cmp_sort(const void *a, const void *b, void *arg)
{
	const struct top_row *x = a, *y = b;
	enum top_sort sort = *(const enum top_sort *)arg;
	double mx = row__mean(x), my = row__mean(y);

	if (sort == TOP_SORT_LATENCY && mx != my)
		return mx > my ? -1 : 1;
	if (sort == TOP_SORT_TOTAL && x->v.lat_sum != y->v.lat_sum)
		return x->v.lat_sum > y->v.lat_sum ? -1 : 1;
	if (x->v.count != y->v.count)
		return x->v.count > y->v.count ? -1 : 1;
	return row__cmp_key(x, y, true);
}

void top_rows__sort(struct top_rows *rows, enum top_sort sort)
{
	if (rows->n) /* no rows: r may be NULL, which qsort_r may not be given */
		qsort_r(rows->r, rows->n, sizeof(*rows->r), row__cmp_sort, &sort);
}

/* ---- text ---------------------------------------------------------------- */

static double percent(__u64 n, __u64 total)
{
	return total ? 100.0 * (double)n / (double)total : 0;
}

/* "L3 hit", or "L3 hit 62%" when other classes share the row. */
static void row__source(const struct top_view *r, const struct top_row *row, char *buf, size_t len)
{
	unsigned int c = top_val__dominant(&row->v);

	if (!r->has_latency) {
		snprintf(buf, len, "-");
		return;
	}
	if (row->v.cls[c] == row->v.count)
		snprintf(buf, len, "%s", class__name(c));
	else
		snprintf(buf, len, "%s %.0f%%", class__name(c),
			 percent(row->v.cls[c], row->v.count));
}

static void row__latency(const struct top_view *r, const struct top_row *row, char *mean, char *max,
			 size_t len)
{
	if (!r->has_latency) {
		snprintf(mean, len, "-");
		snprintf(max, len, "-");
		return;
	}
	snprintf(mean, len, "%.0f", row__mean(row));
	snprintf(max, len, "%llu", (unsigned long long)row->v.lat_max);
}

static void offset__text(__s64 off, char *buf, size_t len)
{
	if (off < 0)
		snprintf(buf, len, "-0x%llx", (unsigned long long)-off);
	else
		snprintf(buf, len, "+0x%llx", (unsigned long long)off);
}

static void rows__not_attributed(FILE *out, const struct top_rows *rows)
{
	if (rows->full)
		fprintf(out,
			"%llu samples not attributed: table and spill ring full, raise --entries\n",
			(unsigned long long)rows->full);
	if (rows->failed)
		fprintf(out,
			"%llu samples not attributed: the kernel could not update the table "
			"(bucket busy in NMI)\n",
			(unsigned long long)rows->failed);
	if (rows->capped)
		fprintf(out, "%llu samples not attributed: their keys were past --max-keys\n",
			(unsigned long long)rows->capped);
}

/*
 * The text tables.  Each column has a place in the order columns are
 * dropped when the rows would be wider than a terminal (report.width):
 * the data table's address first, then max latency, mean latency, source
 * (all three first when the samples carry no latency: they print '-'), the
 * data table's blocks and offset, and percent; then the name and where
 * columns are shortened ("..." ends what was cut).  Into a file or a pipe
 * (width 0) every column is printed, and no name is cut.
 */
enum top_col_id {
	COL_SAMPLES,
	COL_PERCENT,
	COL_MEAN,
	COL_MAX,
	COL_SOURCE,
	COL_BLOCKS,
	COL_OFFSET,
	COL_ADDRESS,
	COL_NAME,
	COL_WHERE,
	COL_N,
};

/* Dropped first to last; samples, name and where stay. */
static const enum top_col_id drop_order[] = { COL_ADDRESS, COL_MAX,    COL_MEAN,   COL_SOURCE,
					      COL_BLOCKS,  COL_OFFSET, COL_PERCENT };

#define NAME_MIN  16 /* a name column is never shortened below this */
#define WHERE_MIN 10

struct top_layout {
	struct table_column col[COL_N];
	bool on[COL_N];
	struct table t;
	struct table_column kept[COL_N];
	int name_max, where_max; /* a cell longer is shortened; 0: never */
};

static int layout__width(const struct top_layout *l, int name_w, int where_w)
{
	int w = 0, i;

	for (i = 0; i < COL_N; i++) {
		if (!l->on[i])
			continue;
		w += l->col[i].sep ? (int)strlen(l->col[i].sep) : 0;
		w += i == COL_NAME ? name_w : i == COL_WHERE ? where_w : l->col[i].width;
	}
	return w;
}

/*
 * Drops and shortens columns to fit width (0: nothing), then builds the
 * table; samples without latency ('-' in those columns) lose them first.
 */
static void layout__fit(struct top_layout *l, int width, bool has_latency)
{
	size_t d;
	int k = 0, i, rest;

	l->name_max = l->where_max = 0;
	if (width > 0 && !has_latency && layout__width(l, 40, 20) > width)
		l->on[COL_MEAN] = l->on[COL_MAX] = l->on[COL_SOURCE] = false;
	for (d = 0; width > 0 && d < ARRAY_SIZE(drop_order) &&
		    layout__width(l, NAME_MIN, WHERE_MIN) > width;
	     d++)
		l->on[drop_order[d]] = false;
	if (width > 0) {
		/* what is left goes to the name, up to 40, then to where */
		rest = width - layout__width(l, 0, 0);
		l->name_max = rest - WHERE_MIN > 40 ? 40 : rest - WHERE_MIN;
		if (l->name_max < NAME_MIN)
			l->name_max = NAME_MIN;
		l->where_max = rest - l->name_max;
		if (l->where_max < WHERE_MIN)
			l->where_max = WHERE_MIN;
		l->col[COL_NAME].width = l->name_max;
	}
	for (i = 0; i < COL_N; i++)
		if (l->on[i]) {
			l->kept[k] = l->col[i];
			if (!k)
				l->kept[k].sep = NULL;
			k++;
		}
	l->t = (struct table){ l->kept, k };
}

static void layout__common(struct top_layout *l)
{
	memset(l, 0, sizeof(*l));
	l->col[COL_SAMPLES] = (struct table_column){ .header = "samples", .width = 10 };
	l->col[COL_PERCENT] = (struct table_column){ .header = "percent", .width = 7, .sep = "  " };
	l->col[COL_MEAN] = (struct table_column){ .header = "mean lat", .width = 8, .sep = "  " };
	l->col[COL_MAX] = (struct table_column){ .header = "max lat", .width = 8, .sep = "  " };
	l->col[COL_SOURCE] = (struct table_column){
		.header = "source", .width = 22, .align = TABLE_LEFT, .sep = "  "
	};
	for (int i = COL_SAMPLES; i <= COL_SOURCE; i++)
		l->on[i] = true;
}

/* A cell of column id, when it is printed; longer than max (> 0): cut, "..." at its end. */
static void layout__cell(const struct top_layout *l, struct table_row *tr, enum top_col_id id,
			 int max, const char *text)
{
	char cut[512];
	size_t n = strlen(text);

	if (!l->on[id])
		return;
	if (max > 3 && n > (size_t)max && (size_t)max < sizeof(cut)) {
		memcpy(cut, text, (size_t)max - 3);
		memcpy(cut + max - 3, "...", 4);
		text = cut;
	}
	table__cell(tr, "%s", text);
}

/* samples, percent, mean and max latency, source */
static void row__cells(const struct top_layout *l, struct table_row *tr, const struct top_view *r,
		       const struct top_row *row, const struct top_rows *rows)
{
	char mean[32], max[32], src[64], n[32], pct[32];

	row__latency(r, row, mean, max, sizeof(mean));
	row__source(r, row, src, sizeof(src));
	snprintf(n, sizeof(n), "%llu", (unsigned long long)row->v.count);
	snprintf(pct, sizeof(pct), "%.2f%%", percent(row->v.count, rows->total));
	layout__cell(l, tr, COL_SAMPLES, 0, n);
	layout__cell(l, tr, COL_PERCENT, 0, pct);
	layout__cell(l, tr, COL_MEAN, 0, mean);
	layout__cell(l, tr, COL_MAX, 0, max);
	layout__cell(l, tr, COL_SOURCE, 0, src);
}

/* The rows past --rows, summed: their samples and share, then how many. */
static void rows__more(FILE *out, const struct top_layout *l, const struct top_rows *rows,
		       size_t shown)
{
	struct table_row tr;
	char n[32], pct[32], more[64];
	__u64 rest = 0;
	size_t i;

	if (shown >= rows->n + rows->pruned)
		return;
	for (i = shown; i < rows->n; i++)
		rest += rows->r[i].v.count;
	rest += rows->pruned_count;
	snprintf(n, sizeof(n), "%llu", (unsigned long long)rest);
	snprintf(pct, sizeof(pct), "%.2f%%", percent(rest, rows->total));
	snprintf(more, sizeof(more), "... %zu more rows",
		 (shown < rows->n ? rows->n - shown : 0) + rows->pruned);
	table__row_begin(&tr, out, &l->t);
	table__cell(&tr, "%s", n);
	if (l->on[COL_PERCENT])
		table__cell(&tr, "%s", pct);
	table__cell(&tr, "%s", more);
	table__row_end(&tr);
}

/* The code key of a view: what the IP table's rows are by. */
static unsigned int view__code(const struct top_view *r)
{
	if (r->by & TOP_BY_TYPE)
		return TOP_BY_TYPE;
	if (r->by & TOP_BY_SRCLINE)
		return TOP_BY_SRCLINE;
	return TOP_BY_IP;
}

/* The samples of the type rows that are typed, and of the others by reason. */
static __u64 rows__typed(const struct top_rows *rows, __u64 why[DATATYPE_NWHY])
{
	size_t i;

	memset(why, 0, DATATYPE_NWHY * sizeof(*why));
	for (i = 0; i < rows->n; i++)
		if (rows->r[i].dt)
			why[rows->r[i].dt->why] += rows->r[i].v.count;
	return why[DATATYPE_TYPED];
}

/* "typed: 180 of 392 samples (45.9%); untyped: 200 kernel code, 12 no debug info" */
static void rows__typed_text(FILE *out, const struct top_rows *rows)
{
	__u64 why[DATATYPE_NWHY];

	rows__typed(rows, why);
	typedata__text(out, why, rows->total);
}

/*
 * An annotation: the function's instructions in address order, each with
 * its samples (blank: none), latency and source class, and the type and
 * member a memory access touches (perf annotate --data-type's question,
 * asked of each instruction).
 */
static void render_annotate_text(FILE *out, const struct top_view *r, const struct top_rows *rows)
{
	char insn[256], label[512], func[1024], file[1024];
	struct top_layout l;
	struct table_row tr;
	size_t i;

	/* the name asked for and the file mapped: text from elsewhere, escaped */
	unctrl__str(func, sizeof(func), r->annotate);
	if (!rows->n) {
		fprintf(out,
			"annotate: no sample in a function named %s (%llu samples elsewhere)\n",
			func, (unsigned long long)rows->outside);
		rows__not_attributed(out, rows);
		return;
	}
	layout__common(&l);
	l.col[COL_NAME] = (struct table_column){
		.header = "instruction", .width = 40, .align = TABLE_LEFT, .sep = " "
	};
	l.col[COL_WHERE] = (struct table_column){ .header = "type and member",
						  .align = TABLE_LEFT,
						  .sep = " " };
	l.on[COL_NAME] = l.on[COL_WHERE] = true;
	layout__fit(&l, r->width, r->has_latency);
	unctrl__str(file, sizeof(file), dso__short_name(rows->file));
	fprintf(out, "annotate: %s in %s [0x%llx, 0x%llx): %llu samples; %llu in other code\n",
		func, file, (unsigned long long)rows->lo, (unsigned long long)rows->hi,
		(unsigned long long)rows->total, (unsigned long long)rows->outside);
	table__header(out, &l.t);
	for (i = 0; i < rows->n; i++) {
		const struct top_row *row = &rows->r[i];

		snprintf(insn, sizeof(insn), "%llx: %s", (unsigned long long)row->start,
			 row->insn ? row->insn : "(not an instruction's start)");
		label[0] = '\0';
		if (row->dt && row->dt->why != DATATYPE_NO_MEMOP)
			datatype__label(row->dt, label, sizeof(label));
		table__row_begin(&tr, out, &l.t);
		if (row->v.count) {
			row__cells(&l, &tr, r, row, rows);
		} else {
			for (int c = COL_SAMPLES; c <= COL_SOURCE; c++)
				layout__cell(&l, &tr, c, 0, "");
		}
		layout__cell(&l, &tr, COL_NAME, 0, insn);
		layout__cell(&l, &tr, COL_WHERE, l.where_max, label);
		table__row_end(&tr);
	}
	rows__not_attributed(out, rows);
}

static void render_ip_text(FILE *out, const struct top_view *r, const struct top_rows *rows)
{
	unsigned int by = view__code(r);
	char func[600];
	size_t i, n = r->nrows < 0 || (size_t)r->nrows > rows->n ? rows->n : (size_t)r->nrows;
	struct top_layout l;
	struct table_row tr;

	layout__common(&l);
	l.col[COL_NAME] = (struct table_column){ .header = by == TOP_BY_TYPE ? "type and member"
							   : by == TOP_BY_SRCLINE ? "source line"
										  : "function",
						 .width = 40,
						 .align = TABLE_LEFT,
						 .sep = " " };
	l.col[COL_WHERE] = (struct table_column){
		.header = by == TOP_BY_SRCLINE ? "function" : "DSO", .align = TABLE_LEFT, .sep = " "
	};
	l.on[COL_NAME] = true;
	l.on[COL_WHERE] = by != TOP_BY_TYPE;
	layout__fit(&l, r->width, r->has_latency);
	if (by == TOP_BY_TYPE)
		fprintf(out, "data types: %llu samples, by the type and member each load touches\n",
			(unsigned long long)rows->total);
	else
		fprintf(out, "code: %llu samples, by %s\n", (unsigned long long)rows->total,
			by == TOP_BY_SRCLINE ? "source line" : "function");
	table__header(out, &l.t);
	for (i = 0; i < n; i++) {
		const struct top_row *row = &rows->r[i];

		if (by == TOP_BY_IP)
			snprintf(func, sizeof(func), "[%c] %s", row->kernel ? 'k' : '.', row->name);
		else if (by == TOP_BY_SRCLINE && row->sl)
			snprintf(func, sizeof(func), "%s:%u",
				 srcline__base(row->sl->frames[0].file), row->sl->frames[0].line);
		else
			snprintf(func, sizeof(func), "%s", row->name);
		table__row_begin(&tr, out, &l.t);
		row__cells(&l, &tr, r, row, rows);
		layout__cell(&l, &tr, COL_NAME, l.name_max, func);
		if (by == TOP_BY_SRCLINE)
			snprintf(func, sizeof(func), "[%c] %s", row->kernel ? 'k' : '.',
				 row->where);
		else
			snprintf(func, sizeof(func), "%s", dso__short_name(row->where));
		layout__cell(&l, &tr, COL_WHERE, l.where_max, func);
		table__row_end(&tr);
	}
	rows__more(out, &l, rows, n);
	rows__not_attributed(out, rows);
	if (by == TOP_BY_TYPE)
		rows__typed_text(out, rows);
}

/* The address a data row starts at: its block's, or its object's (the hottest block's offset beside it). */
static __u64 row__address(const struct top_view *r, const struct top_row *row)
{
	if (row->kind != SYM_RESOLVED && row->kind != SYM_MAPPING)
		return row->start + (__u64)row->offset;
	return r->data_by == TOP_DATA_BLOCK ? row->start + (__u64)row->offset : row->start;
}

static void render_data_text(FILE *out, const struct top_view *r, const struct top_rows *rows)
{
	const char *unit = r->shift == 12 ? "pages" : r->shift == 6 ? "lines" : "blocks";
	char off[32], blocks[32], addr[32];
	size_t i, n = r->nrows < 0 || (size_t)r->nrows > rows->n ? rows->n : (size_t)r->nrows;
	bool by_object = r->data_by == TOP_DATA_OBJECT;
	struct top_layout l;
	struct table_row tr;

	layout__common(&l);
	/* by object: how many blocks the object's samples touched, and the hottest */
	l.col[COL_BLOCKS] =
		(struct table_column){ .header = by_object ? unit : "", .width = 6, .sep = " " };
	l.col[COL_OFFSET] = (struct table_column){ .header = by_object ? "hottest" : "offset",
						   .width = 10,
						   .align = TABLE_LEFT,
						   .sep = " " };
	l.col[COL_ADDRESS] = (struct table_column){
		.header = "address", .width = 14, .align = TABLE_LEFT, .sep = " "
	};
	l.col[COL_NAME] = (struct table_column){
		.header = "variable or mapping", .width = 32, .align = TABLE_LEFT, .sep = " "
	};
	l.col[COL_WHERE] = (struct table_column){ .header = "in", .align = TABLE_LEFT, .sep = " " };
	for (int c = COL_BLOCKS; c <= COL_WHERE; c++)
		l.on[c] = true;
	layout__fit(&l, r->width, r->has_latency);
	fprintf(out, "data: %llu samples, by %s (%llu-byte %s)\n", (unsigned long long)rows->total,
		by_object ? "variable or mapping" : "block", 1ull << r->shift, unit);
	table__header(out, &l.t);
	for (i = 0; i < n; i++) {
		const struct top_row *row = &rows->r[i];

		if (row->kind == SYM_UNKNOWN || row->kind == SYM_EXITED)
			snprintf(off, sizeof(off), "-");
		else
			offset__text(row->offset, off, sizeof(off));
		snprintf(blocks, sizeof(blocks), "%llu", (unsigned long long)row->blocks);
		snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)row__address(r, row));
		table__row_begin(&tr, out, &l.t);
		row__cells(&l, &tr, r, row, rows);
		layout__cell(&l, &tr, COL_BLOCKS, 0, by_object ? blocks : "");
		layout__cell(&l, &tr, COL_OFFSET, 0, off);
		layout__cell(&l, &tr, COL_ADDRESS, 0, addr);
		layout__cell(&l, &tr, COL_NAME, l.name_max, row->name);
		layout__cell(&l, &tr, COL_WHERE, l.where_max, dso__short_name(row->where));
		table__row_end(&tr);
	}
	rows__more(out, &l, rows, n);
	rows__not_attributed(out, rows);
}

/* A type annotation's columns: perf annotate --data-type's, with ldlat's latency. */
static const struct table_column annotype_cols[] = {
	{ .header = "samples", .width = 10, .align = TABLE_RIGHT },
	{ .header = "percent", .width = 8, .align = TABLE_RIGHT, .sep = " " },
	{ .header = "mean lat", .width = 9, .align = TABLE_RIGHT, .sep = " " },
	{ .header = "max lat", .width = 9, .align = TABLE_RIGHT, .sep = " " },
	{ .header = "offset", .width = 10, .align = TABLE_RIGHT, .sep = " " },
	{ .header = "size", .width = 10, .align = TABLE_RIGHT, .sep = " " },
	{ .header = "field", .align = TABLE_LEFT, .sep = "  " },
};

static const struct table annotype_table = {
	.col = annotype_cols,
	.ncol = sizeof(annotype_cols) / sizeof(annotype_cols[0]),
};

/* The closing "};" of the parents at depths [upto, depth): after their last member. */
static void typeblock__close(FILE *out, int depth, int upto)
{
	struct table_row tr;
	int d, c;

	for (d = depth - 1; d >= upto; d--) {
		table__row_begin(&tr, out, &annotype_table);
		for (c = 0; c < annotype_table.ncol - 1; c++)
			table__cell(&tr, "%s", "");
		table__cell(&tr, "%*s};", 4 * d, "");
		table__row_end(&tr);
	}
}

/*
 * A type's annotation, in perf annotate --data-type's layout: per file a
 * header, then the type and each member indented under its parent with
 * its offset, size, type and name and the samples that touched it (a
 * parent's hold its members').
 */
static void render_annotype_text(FILE *out, const struct top_view *r, const struct top_rows *rows)
{
	char type[1024], file[1024], mean[32], max[32];
	struct table_row tr;
	size_t i, k;

	/* the name asked for and the file mapped: text from elsewhere, escaped */
	unctrl__str(type, sizeof(type), r->annotate);
	if (!rows->ntypes) {
		fprintf(out,
			"annotate-type: no sample touched a type named '%s' (%llu samples of other "
			"types or untyped)\n",
			type, (unsigned long long)rows->outside);
		rows__not_attributed(out, rows);
		return;
	}
	for (i = 0; i < rows->ntypes; i++) {
		const struct top_typeblock *b = &rows->types[i];

		unctrl__str(file, sizeof(file), dso__short_name(b->file));
		if (i)
			fputc('\n', out);
		fprintf(out, "Annotate type: '%s' in %s (%llu samples", type, file,
			(unsigned long long)b->samples);
		if (b->unplaced)
			fprintf(out, "; %llu at no known offset in it",
				(unsigned long long)b->unplaced);
		fprintf(out, "):\n");
		if (!b->n) {
			fprintf(out, "(the debug info of %s describes no members of it)\n", file);
			continue;
		}
		fprintf(out, "%s\n",
			"=========================================================================="
			"==");
		table__header(out, &annotype_table);
		for (k = 0; k < b->n; k++) {
			const struct datatype_member *m = &b->m[k];
			struct top_row row = { .v = b->v[k] };
			bool parent = k + 1 < b->n && b->m[k + 1].depth > m->depth;
			const char *name = m->name ? m->name : m->base ? "<ancestor>" : "";

			row__latency(r, &row, mean, max, sizeof(mean));
			table__row_begin(&tr, out, &annotype_table);
			table__cell(&tr, "%llu", (unsigned long long)b->v[k].count);
			table__cell(&tr, "%.2f%%", percent(b->v[k].count, b->samples));
			table__cell(&tr, "%s", mean);
			table__cell(&tr, "%s", max);
			table__cell(&tr, "%llu", (unsigned long long)m->offset);
			table__cell(&tr, "%llu", (unsigned long long)m->size);
			table__cell(&tr, "%*s%s%s%s%s", 4 * m->depth, "", m->type,
				    name[0] ? " " : "", name, parent ? " {" : ";");
			table__row_end(&tr);
			if (!parent)
				typeblock__close(out, m->depth,
						 k + 1 < b->n ? b->m[k + 1].depth : 0);
		}
	}
	rows__not_attributed(out, rows);
	fprintf(out, "samples of other types or untyped: %llu\n",
		(unsigned long long)rows->outside);
}

void top_render_text(FILE *out, const struct top_view *r, const struct top_rows *ip,
		     const struct top_rows *data, const struct snapshot *s)
{
	char when[32];
	struct tm tm;

	if (r->clear)
		fputs("\033[H\033[2J", out);
	if (r->intervals) {
		localtime_r(&s->taken.tv_sec, &tm);
		strftime(when, sizeof(when), "%H:%M:%S", &tm);
		fprintf(out, "%s\n", when);
	}
	if (r->by & TOP_BY_ANNOTATE)
		render_annotate_text(out, r, ip);
	else if (r->by & TOP_BY_ANNOTYPE)
		render_annotype_text(out, r, ip);
	else if (r->by & TOP_BY_CODE)
		render_ip_text(out, r, ip);
	if (r->by == TOP_BY_BOTH)
		fputc('\n', out);
	if (r->by & TOP_BY_DATA)
		render_data_text(out, r, data);
	if (r->paths) {
		fputc('\n', out);
		callpaths__render_tree(out, r->paths, s->counters.kept, r->has_latency);
	}
	if (!r->has_latency)
		fprintf(out, "%s samples carry no latency or data source: counts only.\n",
			r->src && r->src->kind == SOURCE_PAGE_FAULTS ? "page-fault" : "these");
	render_counters(out, s, r->run ? r->run->cfg : NULL);
}

/* ---- JSON ---------------------------------------------------------------- */

static void row__json_common(struct json *j, const struct top_view *r, const struct top_row *row,
			     const struct top_rows *rows)
{
	unsigned int c;

	json__u64(j, "samples", row->v.count);
	json__double(j, "percent", percent(row->v.count, rows->total));
	if (r->has_latency) {
		json__double(j, "mean_latency", row__mean(row));
		json__u64(j, "max_latency", row->v.lat_max);
		json__u64(j, "latency_sum", row->v.lat_sum);
		json__string(j, "source", class__token(top_val__dominant(&row->v)));
		json__object_begin(j, "sources");
		for (c = 0; c < LDLAT_NCLASS; c++)
			if (row->v.cls[c])
				json__u64(j, class__token(c), row->v.cls[c]);
		json__object_end(j);
	} else {
		json__null(j, "mean_latency");
		json__null(j, "max_latency");
		json__null(j, "source");
	}
}

static const char *kind__name(enum sym_kind k, bool data)
{
	switch (k) {
	case SYM_RESOLVED:
		return data ? "variable" : "function";
	case SYM_MAPPING:
		return data ? "mapping" : "no symbol";
	case SYM_EXITED:
		return "exited";
	default:
		return "unknown";
	}
}

/* A type row's type, member and offset; or why it has none. */
static void row__json_type(struct json *j, const struct top_row *row)
{
	static const struct datatype none = { .why = DATATYPE_NO_FILE };

	typedata__json(j, row->dt ? row->dt : &none, row->dt ? NULL : row->name);
}

/* A source-line row's file, line and function, and the functions it was inlined into. */
static void row__json_srcline(struct json *j, const struct top_row *row)
{
	const struct srcline *l = row->sl;
	unsigned int i;

	json__string(j, "srcline", row->name);
	if (!l) {
		json__null(j, "file");
		json__null(j, "line");
		json__string(j, "function", row->where);
		return;
	}
	json__string(j, "file", l->frames[0].file);
	json__u64(j, "line", l->frames[0].line);
	json__string(j, "function", row->where);
	json__array_begin(j, "inlined_into");
	for (i = 1; i < l->n; i++) {
		json__object_begin(j, NULL);
		if (l->frames[i].func)
			json__string(j, "function", l->frames[i].func);
		else
			json__null(j, "function");
		json__string(j, "file", l->frames[i].file);
		json__u64(j, "line", l->frames[i].line);
		json__object_end(j);
	}
	json__array_end(j);
}

static void rows__json(struct json *j, const char *key, const struct top_view *r,
		       const struct top_rows *rows, bool data)
{
	unsigned int by = data ? TOP_BY_DATA : view__code(r);
	__u64 why[DATATYPE_NWHY];

	size_t i, n = r->nrows < 0 || (size_t)r->nrows > rows->n ? rows->n : (size_t)r->nrows;

	json__object_begin(j, key);
	json__u64(j, "samples", rows->total);
	json__object_begin(j, "not_attributed");
	json__u64(j, "table_full", rows->full);
	json__u64(j, "update_failed", rows->failed);
	json__u64(j, "max_keys", rows->capped);
	json__object_end(j);
	json__u64(j, "spilled", rows->spilled);
	if (by == TOP_BY_TYPE) {
		rows__typed(rows, why);
		typedata__why_json(j, why);
	}
	json__u64(j, "rows_total", rows->n + rows->pruned);
	json__array_begin(j, "rows");
	for (i = 0; i < n; i++) {
		const struct top_row *row = &rows->r[i];

		json__object_begin(j, NULL);
		row__json_common(j, r, row, rows);
		if (by == TOP_BY_TYPE) {
			row__json_type(j, row);
			json__object_end(j);
			continue;
		}
		if (by == TOP_BY_SRCLINE) {
			row__json_srcline(j, row);
			json__bool(j, "kernel", row->kernel);
			json__object_end(j);
			continue;
		}
		json__string(j, data ? "object" : "function", row->name);
		json__string(j, "kind", kind__name(row->kind, data));
		json__bool(j, "kernel", row->kernel);
		if (data) {
			if (row->kind == SYM_RESOLVED || row->kind == SYM_MAPPING)
				json__i64(j,
					  r->data_by == TOP_DATA_OBJECT ? "hottest_offset"
									: "offset",
					  row->offset);
			json__u64(j, "blocks", row->blocks);
			char a[32];

			snprintf(a, sizeof(a), "0x%llx", (unsigned long long)row__address(r, row));
			json__string(j, "address", a);
			json__string(j, "in", row->where);
		} else {
			json__string(j, "dso", row->where);
		}
		json__object_end(j);
	}
	json__array_end(j);
	json__object_end(j);
}

/* An annotation: the function, its file and range, and a row per instruction. */
static void annotate__json(struct json *j, const struct top_view *r, const struct top_rows *rows)
{
	char addr[32];
	size_t i;

	json__object_begin(j, "annotate");
	json__string(j, "function", r->annotate);
	if (rows->file)
		json__string(j, "dso", rows->file);
	else
		json__null(j, "dso");
	snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)rows->lo);
	json__string(j, "start", addr);
	snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)rows->hi);
	json__string(j, "end", addr);
	json__u64(j, "samples", rows->total);
	json__u64(j, "outside_samples", rows->outside);
	json__object_begin(j, "not_attributed");
	json__u64(j, "table_full", rows->full);
	json__u64(j, "update_failed", rows->failed);
	json__u64(j, "max_keys", rows->capped);
	json__object_end(j);
	json__array_begin(j, "rows");
	for (i = 0; i < rows->n; i++) {
		const struct top_row *row = &rows->r[i];

		json__object_begin(j, NULL);
		snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)row->start);
		json__string(j, "address", addr);
		if (row->insn)
			json__string(j, "instruction", row->insn);
		else
			json__null(j, "instruction");
		row__json_common(j, r, row, rows);
		row__json_type(j, row);
		json__object_end(j);
	}
	json__array_end(j);
	json__object_end(j);
}

/* Member k of b and its members (as "children"), as a JSON object; returns the next sibling's index. */
static size_t typeblock__json(struct json *j, const struct top_view *r,
			      const struct top_typeblock *b, size_t k)
{
	const struct datatype_member *m = &b->m[k];
	struct top_row row = { .v = b->v[k] };
	size_t c = k + 1;

	json__object_begin(j, NULL);
	json__u64(j, "offset", m->offset);
	json__u64(j, "size", m->size);
	json__string(j, "type", m->type);
	if (m->name)
		json__string(j, "name", m->name);
	else
		json__null(j, "name");
	json__u64(j, "depth", (__u64)m->depth);
	json__bool(j, "base_class", m->base);
	json__u64(j, "samples", b->v[k].count);
	json__double(j, "percent", percent(b->v[k].count, b->samples));
	if (r->has_latency) {
		json__double(j, "mean_latency", row__mean(&row));
		json__u64(j, "max_latency", b->v[k].lat_max);
	} else {
		json__null(j, "mean_latency");
		json__null(j, "max_latency");
	}
	json__array_begin(j, "children");
	while (c < b->n && b->m[c].depth > m->depth)
		c = typeblock__json(j, r, b, c);
	json__array_end(j);
	json__object_end(j);
	return c;
}

/* A type's annotation: a block per file, its members as a tree. */
static void annotype__json(struct json *j, const struct top_view *r, const struct top_rows *rows)
{
	size_t i;

	json__object_begin(j, "annotate_type");
	json__string(j, "type", r->annotate);
	json__u64(j, "samples", rows->total);
	json__u64(j, "outside_samples", rows->outside);
	json__object_begin(j, "not_attributed");
	json__u64(j, "table_full", rows->full);
	json__u64(j, "update_failed", rows->failed);
	json__object_end(j);
	json__array_begin(j, "blocks");
	for (i = 0; i < rows->ntypes; i++) {
		const struct top_typeblock *b = &rows->types[i];

		json__object_begin(j, NULL);
		json__string(j, "dso", b->file);
		json__u64(j, "samples", b->samples);
		json__u64(j, "unplaced_samples", b->unplaced);
		if (b->n) {
			json__array_begin(j, "members");
			typeblock__json(j, r, b, 0);
			json__array_end(j);
		} else {
			json__null(j, "members");
		}
		json__object_end(j);
	}
	json__array_end(j);
	json__object_end(j);
}

void top_render_json(FILE *out, const struct top_view *r, const struct top_rows *ip,
		     const struct top_rows *data, const struct snapshot *s)
{
	struct json j;

	json__init(&j, out);
	json__object_begin(&j, NULL);
	render_json_run(&j, r->run, r->src, s);
	json__bool(&j, "latency", r->has_latency);
	json__u64(&j, "block_bytes", 1ull << r->shift);
	if (r->by & TOP_BY_ANNOTATE)
		annotate__json(&j, r, ip);
	else if (r->by & TOP_BY_ANNOTYPE)
		annotype__json(&j, r, ip);
	else if (r->by & TOP_BY_CODE)
		rows__json(&j,
			   view__code(r) == TOP_BY_TYPE	     ? "types"
			   : view__code(r) == TOP_BY_SRCLINE ? "srclines"
							     : "code",
			   r, ip, false);
	if (r->by & TOP_BY_DATA)
		rows__json(&j, "data", r, data, true);
	if (r->paths)
		callpaths__json(&j, r->paths);
	render_json_counters(&j, s);
	json__object_end(&j);
	json__end_line(&j);
}

static void top_text(FILE *f, const void *report)
{
	const struct top_report *r = report;

	top_render_text(f, r->view, r->ip, r->data, r->delta);
	if (r->heat)
		heatmap__render_grid(f, r->heat, r->view->width ? r->view->width : 100);
}

static void top_json(FILE *f, const void *report)
{
	const struct top_report *r = report;

	top_render_json(f, r->view, r->ip, r->data, r->delta);
}

static void top_folded(FILE *f, const void *report)
{
	const struct top_report *r = report;

	callpaths__render_folded(f, r->paths, r->weight);
}

static void top_svg(FILE *f, const void *report)
{
	const struct top_report *r = report;

	flamegraph__render(f, &(struct flamegraph){ .paths = r->paths,
						    .weight = r->weight,
						    .has_latency = r->view->has_latency,
						    .run = r->view->run,
						    .kept = r->delta->counters.kept });
}

/* The profile as it was packed: bytes, written whole (output.c checks the stream). */
static void top_pprof(FILE *f, const void *report)
{
	const struct top_report *r = report;

	if (r->profile_len)
		fwrite(r->profile, 1, r->profile_len, f);
}

#define TOP_NO_TOTALS                                                                              \
	"its tables rank functions and data per report, they are not totals Prometheus can rate. " \
	"Use --format text or json, or ldlat-hist --format %s for the histograms"

const struct output_formats top_formats = { .tool = "ldlat-top",
					    .text = top_text,
					    .json = top_json,
					    .folded = top_folded,
					    .svg = top_svg,
					    .pprof = top_pprof,
					    .lacks = OUTPUT_TOTALS,
					    .why_not = TOP_NO_TOTALS };

static void top_heatmap(FILE *f, const void *report)
{
	const struct top_report *r = report;
	const struct run_info *run = r->view->run;
	char title[512];

	snprintf(title, sizeof(title), "%s on %s", run && run->event ? run->event : "",
		 run && run->target ? run->target : "");
	heatmap__render_svg(f, r->heat, title);
}

static const struct output_formats heatmap_formats = { "ldlat-top", .svg = top_heatmap };

struct output_opts top_heatmap_file(const char *path)
{
	return (struct output_opts){ .formats = &heatmap_formats,
				     .format = OUTPUT_SVG,
				     .path = path };
}
