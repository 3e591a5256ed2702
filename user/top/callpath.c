// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <ctype.h>
#include <errno.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>

#include "user/top/callpath.h"
#include "user/top/toptable.h"
#include "user/report/table.h"
#include "kernel/abi/datasrc.h"
#include "kernel/lib/unctrl.h"

#define FOLDED_MAX 16384
#define FRAME_MAX  512 /* a frame: a name of folded__stack (300 bytes) and its suffix */

void callpaths__init(struct callpaths *c)
{
	memset(c, 0, sizeof(*c));
}

/*
 * The memo: an open-addressing hash from a sample's stack, as words (the
 * process key, each stack's count and error, its IPs and their keys), to
 * the path it was named into.  It grows at half full.
 */
struct memo_entry {
	__u64 hash;
	__u64 *words; /* NULL: a free slot */
	size_t nwords;
	char *comm;
	struct callpath *cp;
};

struct callpath_memo {
	struct memo_entry *e;
	size_t cap, n; /* cap a power of two */
};

int callpaths__memoize(struct callpaths *c)
{
	if (c->memo)
		return 0;
	c->memo = calloc(1, sizeof(*c->memo));
	return c->memo ? 0 : -ENOMEM;
}

static void memo__empty(struct callpath_memo *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++) {
		free(m->e[i].words);
		free(m->e[i].comm);
	}
	free(m->e);
	m->e = NULL;
	m->cap = m->n = 0;
}

static __u64 memo__hash(const __u64 *w, size_t n, const char *comm)
{
	__u64 h = 0x9e3779b97f4a7c15ull ^ n;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= w[i];
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	for (; comm && *comm; comm++)
		h = (h ^ (unsigned char)*comm) * 0x100000001b3ull;
	return h | 1; /* never 0 */
}

static struct memo_entry *memo__slot(struct callpath_memo *m, __u64 hash, const __u64 *w, size_t n,
				     const char *comm)
{
	size_t i = hash & (m->cap - 1);

	for (;; i = (i + 1) & (m->cap - 1)) {
		struct memo_entry *e = &m->e[i];

		if (!e->words)
			return e;
		if (e->hash == hash && e->nwords == n && !memcmp(e->words, w, n * sizeof(*w)) &&
		    !strcmp(e->comm, comm ? comm : ""))
			return e;
	}
}

static int memo__grow(struct callpath_memo *m)
{
	struct callpath_memo old = *m;
	size_t i;

	m->cap = old.cap ? old.cap * 2 : 1024;
	m->e = calloc(m->cap, sizeof(*m->e));
	if (!m->e) {
		*m = old;
		return -ENOMEM;
	}
	for (i = 0; i < old.cap; i++)
		if (old.e[i].words)
			*memo__slot(m, old.e[i].hash, old.e[i].words, old.e[i].nwords,
				    old.e[i].comm) = old.e[i];
	free(old.e);
	return 0;
}

/*
 * A stack's words: its count and error, the key of its first IP, then its
 * IPs, then (only when they differ from the first's) the key of each IP.
 */
static size_t memo__stack_words(__u64 *w, const struct callpath_stack *st, __u32 key)
{
	__u32 first = st->keys && st->n ? st->keys[0] : key;
	bool one_key = true;
	size_t n = 2;
	int i;

	for (i = 0; i < st->n; i++) {
		w[n++] = st->ips[i];
		one_key = one_key && (!st->keys || st->keys[i] == first);
	}
	for (i = 0; !one_key && i < st->n; i++)
		w[n++] = st->keys[i];
	w[0] = (__u64)(__u32)st->n | (__u64)(__u32)st->err << 32;
	w[1] = (__u64)first | (__u64)!one_key << 32;
	return n;
}

static int callpath__cmp(const void *a, const void *b)
{
	return strcmp(((const struct callpath *)a)->folded, ((const struct callpath *)b)->folded);
}

static void callpath__free(void *p)
{
	struct callpath *cp = p;

	free(cp->folded);
	free(cp);
}

void callpaths__free(struct callpaths *c)
{
	tdestroy(c->index, callpath__free);
	if (c->memo) {
		memo__empty(c->memo);
		free(c->memo);
	}
	memset(c, 0, sizeof(*c));
}

void callpaths__reset(struct callpaths *c)
{
	struct callpath_memo *memo = c->memo;

	c->memo = NULL;
	callpaths__free(c);
	if (memo) {
		memo__empty(memo);
		c->memo = memo;
	}
}

static struct callpath *callpaths__get(struct callpaths *c, const char *folded)
{
	struct callpath key = { .folded = (char *)folded }, *cp, **found;

	found = tfind(&key, &c->index, callpath__cmp);
	if (!found) {
		cp = calloc(1, sizeof(*cp));
		if (!cp || !(cp->folded = strdup(folded))) {
			free(cp);
			return NULL;
		}
		found = tsearch(cp, &c->index, callpath__cmp);
		if (!found) {
			callpath__free(cp);
			return NULL;
		}
		c->npaths++;
	}
	return *found;
}

int callpaths__add_folded(struct callpaths *c, const char *folded, const struct ldlat_top_val *v)
{
	struct callpath *cp = callpaths__get(c, folded);

	if (!cp)
		return -ENOMEM;
	top_val__add(&cp->v, v);
	c->samples += v->count;
	return 0;
}

/*
 * Appends one frame; ';' would split it, so it becomes ':' (as
 * stackcollapse-perf.pl writes it).  Anything else is kept as the name has
 * it: the text writers escape it (callpaths__render_folded, the table),
 * and JSON carries it.
 */
static void folded__push(char *buf, size_t *len, const char *frame, const char *suffix)
{
	size_t i;

	if (*len && *len < FOLDED_MAX - 1)
		buf[(*len)++] = ';';
	for (i = 0; frame[i] && *len < FOLDED_MAX - 1; i++)
		buf[(*len)++] = frame[i] == ';' ? ':' : frame[i];
	for (i = 0; suffix[i] && *len < FOLDED_MAX - 1; i++)
		buf[(*len)++] = suffix[i];
	buf[*len] = '\0';
}

static const char *const loss_frame[CALLPATH_NLOSS] = {
	"[call path lost: stack map full]",
	"[call path lost: stack map update failed]",
	"[user stack lost]",
	"[kernel stack lost]",
};

const char *callpath_loss__frame(enum callpath_loss l)
{
	return l < CALLPATH_NLOSS ? loss_frame[l] : "[call path lost]";
}

void callpath__frame(struct symbolizer *z, __u32 key, __u64 ip, bool kernel, struct sym *sym,
		     char *frame, size_t len)
{
	char name[300];
	size_t i;

	symbolizer__ip(z, key, ip, sym);
	if (sym->kind == SYM_RESOLVED) {
		snprintf(name, sizeof(name), "%s", sym->name);
	} else if (sym->kind == SYM_MAPPING && sym->where[0] == '[') {
		/* [anon], [stack], [heap]: bracketed once, as stackcollapse-perf.pl gives //anon */
		snprintf(name, sizeof(name), "%s", sym->where);
	} else if (sym->kind == SYM_MAPPING && sym->where[0]) {
		/* a file without a symbol there: [its name], as stackcollapse-perf.pl writes it */
		const char *base = strrchr(sym->where, '/');

		snprintf(name, sizeof(name), "[%s]", base ? base + 1 : sym->where);
	} else {
		snprintf(name, sizeof(name), "[unknown]");
	}
	/* ';' would split the frame: ':' (as stackcollapse-perf.pl writes it) */
	for (i = 0; name[i]; i++)
		if (name[i] == ';')
			name[i] = ':';
	snprintf(frame, len, "%s%s", name, kernel ? "_[k]" : "");
}

/* A stack's frames, outermost first; one it could not take as one frame that says so. */
static void folded__stack(char *buf, size_t *len, struct symbolizer *z, __u32 key,
			  const struct callpath_stack *st, int kernel)
{
	struct sym sym;
	char frame[FRAME_MAX];
	int i;

	if (st->err < 0) {
		folded__push(buf, len,
			     loss_frame[kernel ? CALLPATH_LOST_KERNEL : CALLPATH_LOST_USER], "");
		return;
	}
	for (i = st->n - 1; i >= 0; i--) {
		callpath__frame(z, st->keys ? st->keys[i] : key, callpath_stack__ip(st, i), kernel,
				&sym, frame, sizeof(frame));
		folded__push(buf, len, frame, "");
	}
}

const char *callpath__root(__u32 key, const char *comm, char *name, size_t len)
{
	if (comm && *comm)
		return comm;
	snprintf(name, len, "[pid %u]", key);
	return name;
}

/*
 * Adds v under the folded line of its process's frame, then either the
 * frame that says why its path was lost (lost: not NULL) or its user and
 * kernel stacks.
 */
static struct callpath *callpaths__name(struct callpaths *c, struct symbolizer *z, __u32 key,
					const char *comm, const struct callpath_stack *user,
					const struct callpath_stack *kernel, const char *lost)
{
	char *buf = malloc(FOLDED_MAX), name[32];
	struct callpath *cp;
	size_t len = 0;

	if (!buf)
		return NULL;
	buf[0] = '\0';
	folded__push(buf, &len, callpath__root(key, comm, name, sizeof(name)), "");
	if (lost) {
		folded__push(buf, &len, lost, "");
	} else {
		folded__stack(buf, &len, z, key, user, 0);
		folded__stack(buf, &len, z, key, kernel, 1);
	}
	cp = callpaths__get(c, buf);
	free(buf);
	return cp;
}

/* The path of a stack the memo has seen, named and remembered when new; NULL: no memory. */
static struct callpath *callpaths__memo_name(struct callpaths *c, struct symbolizer *z, __u32 key,
					     const char *comm, const struct callpath_stack *user,
					     const struct callpath_stack *kernel)
{
	struct callpath_memo *m = c->memo;
	__u64 w[1 + 2 * (2 + 2 * LDLAT_STACK_DEPTH)], hash;
	struct memo_entry *e;
	size_t n = 0;

	w[n++] = key;
	n += memo__stack_words(w + n, user, key);
	n += memo__stack_words(w + n, kernel, key);
	hash = memo__hash(w, n, comm);
	if ((m->n + 1) * 2 > m->cap && memo__grow(m))
		return NULL;
	e = memo__slot(m, hash, w, n, comm);
	if (e->words)
		return e->cp;
	e->cp = callpaths__name(c, z, key, comm, user, kernel, NULL);
	if (!e->cp)
		return NULL;
	e->words = malloc(n * sizeof(*w));
	e->comm = strdup(comm ? comm : "");
	if (!e->words || !e->comm) {
		free(e->words);
		free(e->comm);
		e->words = NULL;
		e->comm = NULL;
		return NULL;
	}
	memcpy(e->words, w, n * sizeof(*w));
	e->nwords = n;
	e->hash = hash;
	m->n++;
	return e->cp;
}

static int callpaths__add_line(struct callpaths *c, struct symbolizer *z, __u32 key,
			       const char *comm, const struct callpath_stack *user,
			       const struct callpath_stack *kernel, const char *lost,
			       const struct ldlat_top_val *v)
{
	bool memo =
		!lost && c->memo && user->n <= LDLAT_STACK_DEPTH && kernel->n <= LDLAT_STACK_DEPTH;
	struct callpath *cp = memo ? callpaths__memo_name(c, z, key, comm, user, kernel)
				   : callpaths__name(c, z, key, comm, user, kernel, lost);

	if (!cp)
		return -ENOMEM;
	top_val__add(&cp->v, v);
	c->samples += v->count;
	return 0;
}

int callpaths__add(struct callpaths *c, struct symbolizer *z, __u32 key, const char *comm,
		   const struct callpath_stack *user, const struct callpath_stack *kernel,
		   const struct ldlat_top_val *v)
{
	int e = callpaths__add_line(c, z, key, comm, user, kernel, NULL, v);

	if (!e && user->err < 0)
		c->lost[CALLPATH_LOST_USER] += v->count;
	if (!e && kernel->err < 0)
		c->lost[CALLPATH_LOST_KERNEL] += v->count;
	if (!e && (user->err < 0 || kernel->err < 0))
		c->lost_samples += v->count;
	return e;
}

int callpaths__add_lost(struct callpaths *c, __u32 key, const char *comm, enum callpath_loss why,
			const struct ldlat_top_val *v)
{
	int e = callpaths__add_line(c, NULL, key, comm, NULL, NULL, callpath_loss__frame(why), v);

	if (!e && why < CALLPATH_NLOSS) {
		c->lost[why] += v->count;
		c->lost_samples += v->count;
	}
	return e;
}

void callpaths__add_losses(struct callpaths *acc, const struct callpaths *c)
{
	int l;

	const __u64 *from = (const __u64 *)&c->walks.c;
	__u64 *to = (__u64 *)&acc->walks.c;
	struct ldlat_unwind_counters sum;
	__u64 sum_walked, sum_fp;
	size_t w;

	for (l = 0; l < CALLPATH_NLOSS; l++)
		acc->lost[l] += c->lost[l];
	acc->lost_samples += c->lost_samples;
	/* the walks summed; the tables as they were last */
	for (w = 0; w < sizeof(sum) / sizeof(__u64); w++)
		((__u64 *)&sum)[w] = to[w] + from[w];
	sum_walked = acc->walks.defer_walked + c->walks.defer_walked;
	sum_fp = acc->walks.defer_fp + c->walks.defer_fp;
	acc->walks = c->walks;
	acc->walks.c = sum;
	acc->walks.defer_walked = sum_walked;
	acc->walks.defer_fp = sum_fp;
}

/* Why a walk ended, as the text says it (enum ldlat_unwind_stop). */
static const char *const walk_stop[LDLAT_NSTOPS] = {
	"outermost frame",
	"--max-stack",
	"stack unreadable",
	"no table nor frame pointer",
	"no mapping",
	"unsupported rule",
	"stack pointer did not grow",
	"no user registers",
};

void callpaths__render_walks(FILE *out, const struct callpath_walks *w)
{
	int k;

	if (!w->on)
		return;
	fprintf(out,
		"user stacks walked from unwind tables: %llu, %llu frames (%llu by frame pointers)",
		(unsigned long long)w->c.walks, (unsigned long long)w->c.frames,
		(unsigned long long)w->c.frames_fp);
	for (k = 0; k < LDLAT_NSTOPS; k++)
		if (w->c.stop[k])
			fprintf(out, "; %llu ended: %s", (unsigned long long)w->c.stop[k],
				walk_stop[k]);
	if (w->c.no_process)
		fprintf(out, "; %llu of processes without tables (frame pointers)",
			(unsigned long long)w->c.no_process);
	if (w->c.deferred || w->c.defer_full || w->c.defer_budget || w->defer_walked || w->defer_fp)
		fprintf(out,
			"; %llu deferred before their tables were in (%llu walked again in user "
			"space, %llu left to frame pointers), %llu not: the ring full, %llu past "
			"the budget",
			(unsigned long long)w->c.deferred, (unsigned long long)w->defer_walked,
			(unsigned long long)w->defer_fp, (unsigned long long)w->c.defer_full,
			(unsigned long long)w->c.defer_budget);
	fprintf(out, "\n");
	fprintf(out,
		"unwind tables: %llu files now (%llu KiB in BPF) for %llu processes, %llu loaded "
		"and "
		"%llu freed in all; not loaded: %llu files without CFI, %llu failed, %llu past the "
		"%llu slots (frame pointers there); %llu processes past the %llu places, %llu "
		"unreadable; %llu mappings past %u in a process\n",
		(unsigned long long)w->files, (unsigned long long)(w->bytes / 1024),
		(unsigned long long)w->procs, (unsigned long long)w->loads,
		(unsigned long long)w->freed, (unsigned long long)w->no_cfi,
		(unsigned long long)w->failed, (unsigned long long)w->full,
		(unsigned long long)w->max_files, (unsigned long long)w->procs_full,
		(unsigned long long)w->max_procs, (unsigned long long)w->procs_failed,
		(unsigned long long)w->maps_dropped, LDLAT_UNWIND_MAPS);
}

struct collect {
	const struct callpath **p;
	size_t n;
};

static __thread struct collect *collecting;

static void callpath__collect(const void *node, VISIT which, int depth)
{
	(void)depth;
	if (which == postorder || which == leaf)
		collecting->p[collecting->n++] = *(const struct callpath *const *)node;
}

const struct callpath **callpaths__sorted(const struct callpaths *c, size_t *n)
{
	struct collect col = { .p = calloc(c->npaths + 1, sizeof(*col.p)) };

	*n = 0;
	if (!col.p)
		return NULL;
	collecting = &col;
	twalk(c->index, callpath__collect);
	collecting = NULL;
	*n = col.n; /* twalk visits in order: sorted by folded */
	return col.p;
}

/*
 * One frame of a folded line: its control characters escaped (a newline
 * would end the line, an ESC reach a terminal), and a space that would
 * leave it ending in a number written '_': flamegraph.pl and inferno read a
 * line's count after its last space, and a second number before it as the
 * first count of a differential pair.
 */
static void folded__frame(FILE *out, const char *f, size_t len)
{
	char raw[FRAME_MAX], esc[4 * FRAME_MAX], *sp;

	snprintf(raw, sizeof(raw), "%.*s", (int)len, f);
	unctrl__str(esc, sizeof(esc), raw);
	sp = strrchr(esc, ' ');
	if (sp && sp[1] && strspn(sp + 1, "0123456789.") == strlen(sp + 1) &&
	    isdigit((unsigned char)sp[1]))
		*sp = '_';
	fputs(esc, out);
}

void callpaths__render_folded(FILE *out, const struct callpaths *c, enum callpath_weight w)
{
	size_t n, i;
	const struct callpath **p = callpaths__sorted(c, &n);

	for (i = 0; i < n; i++) {
		const char *f = p[i]->folded, *end;

		while (*f) {
			end = f + strcspn(f, ";");
			folded__frame(out, f, (size_t)(end - f));
			if (*end)
				fputc(';', out);
			f = *end ? end + 1 : end;
		}
		fprintf(out, " %llu\n", (unsigned long long)callpath__weight(&p[i]->v, w));
	}
	if (callpaths__unattributed(c) && w == CALLPATH_WEIGHT_SAMPLES)
		fprintf(out, CALLPATH_UNATTRIBUTED " %llu\n",
			(unsigned long long)callpaths__unattributed(c));
	free(p);
}

/* The child of n named [name, name + len), added when missing; NULL when out of memory. */
static struct callnode *callnode__child(struct callnode *n, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < n->nchild; i++)
		if (n->child[i].len == len && !memcmp(n->child[i].name, name, len))
			return &n->child[i];
	if (n->nchild == n->cap) {
		size_t cap = n->cap ? n->cap * 2 : 4;
		struct callnode *ch = realloc(n->child, cap * sizeof(*ch));

		if (!ch)
			return NULL;
		n->child = ch;
		n->cap = cap;
	}
	memset(&n->child[n->nchild], 0, sizeof(*n->child));
	n->child[n->nchild].name = name;
	n->child[n->nchild].len = len;
	return &n->child[n->nchild++];
}

static void callnode__free_children(struct callnode *n)
{
	size_t i;

	for (i = 0; i < n->nchild; i++)
		callnode__free_children(&n->child[i]);
	free(n->child);
}

void callnode__free(struct callnode *n)
{
	if (!n)
		return;
	callnode__free_children(n);
	free(n);
}

struct callnode *callpaths__tree(const struct callpaths *c, const char *root, bool unattributed)
{
	size_t n, i;
	const struct callpath **p = callpaths__sorted(c, &n);
	struct callnode *top = calloc(1, sizeof(*top));

	if (!top || (!p && c->npaths)) {
		free(p);
		free(top);
		return NULL;
	}
	top->name = root;
	top->len = strlen(root);
	for (i = 0; i < n; i++) {
		const char *f = p[i]->folded, *end;
		struct callnode *at = top;

		top_val__add(&top->v, &p[i]->v);
		while (at && *f) {
			end = strchr(f, ';');
			if (!end)
				end = f + strlen(f);
			at = callnode__child(at, f, (size_t)(end - f));
			if (at)
				top_val__add(&at->v, &p[i]->v);
			f = *end ? end + 1 : end;
		}
		if (!at) {
			free(p);
			callnode__free(top);
			return NULL;
		}
	}
	free(p);
	if (unattributed && callpaths__unattributed(c)) {
		struct callnode *na =
			callnode__child(top, CALLPATH_UNATTRIBUTED, strlen(CALLPATH_UNATTRIBUTED));

		if (!na) {
			callnode__free(top);
			return NULL;
		}
		na->v.count = callpaths__unattributed(c);
		top->v.count += na->v.count;
	}
	return top;
}

static int callnode__cmp_count(const void *a, const void *b)
{
	const struct callnode *x = a, *y = b;

	if (x->v.count != y->v.count)
		return x->v.count > y->v.count ? -1 : 1;
	return strncmp(x->name, y->name, x->len < y->len ? x->len : y->len)
		       ?: (x->len == y->len  ? 0
			   : x->len < y->len ? -1
					     : 1);
}

/*
 * One frame's line, then its callees', most samples first: a frame with one
 * callee continues its column (as perf report -g caller prints a chain).
 */
static const struct table_column tree_cols[] = {
	{ "samples", 10, TABLE_RIGHT, NULL, 0 }, { "percent", 8, TABLE_RIGHT, " ", 0 },
	{ "mean", 8, TABLE_RIGHT, " ", 0 },	 { "source", 12, TABLE_LEFT, "  ", 0 },
	{ "call path", 0, TABLE_LEFT, "  ", 0 },
};
static const struct table_column tree_cols_counts[] = {
	{ "samples", 10, TABLE_RIGHT, NULL, 0 },
	{ "percent", 8, TABLE_RIGHT, " ", 0 },
	{ "call path", 0, TABLE_LEFT, "  ", 0 },
};
static const struct table tree_table = { tree_cols, 5 };
static const struct table tree_table_counts = { tree_cols_counts, 3 };

/*
 * One frame's line, then its callees', most samples first: a frame with one
 * callee continues its column (as perf report -g caller prints a chain).
 */
static void callnode__print(FILE *out, struct callnode *n, __u64 total, bool has_latency,
			    const char *prefix, const char *glyph)
{
	struct table_row r;
	char next[1100];
	size_t i;

	table__row_begin(&r, out, has_latency ? &tree_table : &tree_table_counts);
	table__cell(&r, "%llu", (unsigned long long)n->v.count);
	table__cell(&r, "%.2f%%", total ? 100.0 * n->v.count / total : 0.0);
	if (has_latency && n->v.count) {
		table__cell(&r, "%.1f", (double)n->v.lat_sum / n->v.count);
		table__cell(&r, "%s", class__name(top_val__dominant(&n->v)));
	} else if (has_latency) {
		table__cell(&r, "-");
		table__cell(&r, "-");
	}
	table__cell(&r, "%s%s%.*s", prefix, glyph, (int)n->len, n->name);
	table__row_end(&r);
	if (n->nchild > 1)
		qsort(n->child, n->nchild, sizeof(*n->child), callnode__cmp_count);
	snprintf(next, sizeof(next), "%s%s", strlen(prefix) < 1000 ? prefix : "",
		 !*glyph	 ? ""
		 : *glyph == '`' ? "    "
				 : "|   ");
	for (i = 0; i < n->nchild; i++)
		callnode__print(out, &n->child[i], total, has_latency, next,
				n->nchild == 1	     ? ""
				: i + 1 == n->nchild ? "`-- "
						     : "|-- ");
}

void callpaths__render_tree(FILE *out, const struct callpaths *c, __u64 total, bool has_latency)
{
	struct callnode *t = callpaths__tree(c, "", false);
	size_t i;

	fprintf(out, "Call paths, callers first: %llu samples in %llu paths\n",
		(unsigned long long)c->samples, (unsigned long long)c->npaths);
	if (!t) {
		fprintf(out, "  (out of memory)\n");
		return;
	}
	table__header(out, has_latency ? &tree_table : &tree_table_counts);
	if (t->nchild > 1)
		qsort(t->child, t->nchild, sizeof(*t->child), callnode__cmp_count);
	for (i = 0; i < t->nchild; i++)
		callnode__print(out, &t->child[i], total, has_latency, "", "");
	callpaths__render_losses(out, c);
	callnode__free(t);
}

void callpaths__render_losses(FILE *out, const struct callpaths *c)
{
	int l;

	callpaths__render_walks(out, &c->walks);
	for (l = 0; l < CALLPATH_NLOSS; l++)
		if (c->lost[l])
			fprintf(out, "%llu samples: %s%s\n", (unsigned long long)c->lost[l],
				loss_frame[l], l == CALLPATH_LOST_FULL ? " (raise --entries)" : "");
	if (callpaths__unattributed(c))
		fprintf(out,
			"%llu samples not attributed: the call-path table was full (raise "
			"--entries)\n",
			(unsigned long long)callpaths__unattributed(c));
}

static void callpaths__json_walks(struct json *j, const struct callpath_walks *w)
{
	static const char *const stop_key[LDLAT_NSTOPS] = {
		"end",	      "max_stack",   "read",	  "no_table",
		"no_mapping", "unsupported", "bad_frame", "no_regs",
	};
	int k;

	json__object_begin(j, "unwind");
	json__u64(j, "walks", w->c.walks);
	json__u64(j, "frames", w->c.frames);
	json__u64(j, "frames_fp", w->c.frames_fp);
	json__u64(j, "no_process", w->c.no_process);
	json__object_begin(j, "deferred");
	json__u64(j, "sent", w->c.deferred);
	json__u64(j, "walked", w->defer_walked);
	json__u64(j, "frame_pointers", w->defer_fp);
	json__u64(j, "ring_full", w->c.defer_full);
	json__u64(j, "budget", w->c.defer_budget);
	json__object_end(j);
	json__object_begin(j, "stopped");
	for (k = 0; k < LDLAT_NSTOPS; k++)
		json__u64(j, stop_key[k], w->c.stop[k]);
	json__object_end(j);
	json__object_begin(j, "tables");
	json__u64(j, "files", w->files);
	json__u64(j, "bytes", w->bytes);
	json__u64(j, "processes", w->procs);
	json__u64(j, "no_cfi", w->no_cfi);
	json__u64(j, "failed", w->failed);
	json__u64(j, "slots_full", w->full);
	json__u64(j, "loaded", w->loads);
	json__u64(j, "freed", w->freed);
	json__u64(j, "processes_full", w->procs_full);
	json__u64(j, "processes_failed", w->procs_failed);
	json__u64(j, "mappings_dropped", w->maps_dropped);
	json__u64(j, "max_files", w->max_files);
	json__u64(j, "max_processes", w->max_procs);
	json__object_end(j);
	json__object_end(j);
}

void callpaths__json(struct json *j, const struct callpaths *c)
{
	static const char *const loss_key[CALLPATH_NLOSS] = { "map_full", "update_failed", "user",
							      "kernel" };
	size_t n, i;
	const struct callpath **p = callpaths__sorted(c, &n);
	unsigned int cls;
	int l;

	json__object_begin(j, "call_paths");
	json__u64(j, "samples", c->samples);
	json__u64(j, "paths", c->npaths);
	json__object_begin(j, "stacks_lost");
	json__u64(j, "samples", c->lost_samples);
	for (l = 0; l < CALLPATH_NLOSS; l++)
		json__u64(j, loss_key[l], c->lost[l]);
	json__object_end(j);
	json__object_begin(j, "not_attributed");
	json__u64(j, "table_full", c->full);
	json__u64(j, "update_failed", c->failed);
	json__object_end(j);
	json__u64(j, "spilled", c->spilled);
	if (c->walks.on)
		callpaths__json_walks(j, &c->walks);
	json__array_begin(j, "rows");
	for (i = 0; i < n; i++) {
		const char *f = p[i]->folded, *end;
		char frame[FOLDED_MAX];

		json__object_begin(j, NULL);
		json__array_begin(j, "frames");
		while (*f) {
			end = strchr(f, ';');
			if (!end)
				end = f + strlen(f);
			snprintf(frame, sizeof(frame), "%.*s", (int)(end - f), f);
			json__string(j, NULL, frame);
			f = *end ? end + 1 : end;
		}
		json__array_end(j);
		json__u64(j, "samples", p[i]->v.count);
		json__u64(j, "latency_sum", p[i]->v.lat_sum);
		json__object_begin(j, "sources");
		for (cls = 0; cls < LDLAT_NCLASS; cls++)
			if (p[i]->v.cls[cls])
				json__u64(j, class__token(cls), p[i]->v.cls[cls]);
		json__object_end(j);
		json__object_end(j);
	}
	json__array_end(j);
	json__object_end(j);
	free(p);
}
