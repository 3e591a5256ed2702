// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "user/symbols/procmaps.h"
#include "kernel/lib/util.h"

__u64 procmaps__now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts__ns(&ts);
}

static int proc__cmp(const void *a, const void *b)
{
	const struct proc *x = a, *y = b;

	return x->tgid < y->tgid ? -1 : x->tgid > y->tgid;
}

static int str__cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

void procmaps__init(struct procmaps *pm)
{
	memset(pm, 0, sizeof(*pm));
	pm->proc_root = "/proc";
}

static void proc__free(void *p)
{
	free(((struct proc *)p)->maps);
	free(p);
}

void procmaps__free(struct procmaps *pm)
{
	tdestroy(pm->procs, proc__free);
	tdestroy(pm->strings, free);
	pm->procs = pm->strings = NULL;
}

struct proc *procmaps__find(struct procmaps *pm, pid_t tgid)
{
	struct proc key = { .tgid = tgid };
	void *node = tfind(&key, &pm->procs, proc__cmp);

	return node ? *(struct proc **)node : NULL;
}

struct proc *procmaps__get(struct procmaps *pm, pid_t tgid)
{
	struct proc *p = procmaps__find(pm, tgid);
	void *node;

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->tgid = tgid;
	node = tsearch(p, &pm->procs, proc__cmp);
	if (!node) {
		free(p);
		return NULL;
	}
	return p;
}

const char *procmaps__intern(struct procmaps *pm, const char *name)
{
	void *node;
	char *copy;

	if (!name)
		return NULL;
	node = tfind(name, &pm->strings, str__cmp);
	if (node)
		return *(const char **)node;
	copy = strdup(name);
	if (!copy)
		return NULL;
	node = tsearch(copy, &pm->strings, str__cmp);
	if (!node) {
		free(copy);
		return NULL;
	}
	pm->nstrings++;
	return copy;
}

static int mapping__cmp(const void *a, const void *b)
{
	const struct mapping *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int procmaps__add(struct procmaps *pm, pid_t tgid, __u64 start, __u64 end, __u64 pgoff,
		  const char *name, __u64 t)
{
	return procmaps__add_elf(pm, tgid, start, end, pgoff, name, NULL, t);
}

int proc__first_after(const struct proc *p, __u64 addr)
{
	int lo = 0, hi = p->nmaps, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (p->maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Room for n mappings; false when out of memory. */
static bool proc__reserve(struct proc *p, int n)
{
	struct mapping *tmp;
	int cap;

	if (n <= p->cap)
		return true;
	cap = p->cap ? p->cap : 16;
	while (cap < n)
		cap *= 2;
	tmp = realloc(p->maps, (size_t)cap * sizeof(*tmp));
	if (!tmp)
		return false;
	p->maps = tmp;
	p->cap = cap;
	return true;
}

/*
 * Only the mappings the new one overlaps change: they are rebuilt in a small
 * array and put back in their place, so that a process of a thousand
 * mappings learns one more in a binary search and a move, not a sort.
 */
int procmaps__add_elf(struct procmaps *pm, pid_t tgid, __u64 start, __u64 end, __u64 pgoff,
		      const char *name, const char *elf, __u64 t)
{
	struct proc *p = procmaps__get(pm, tgid);
	struct mapping *out, *m, piece;
	__u64 cur = start;
	int i, n = 0, lo, hi;

	if (!p)
		return -ENOMEM;
	if (start >= end)
		return 0;
	name = procmaps__intern(pm, name && *name ? name : NULL);
	elf = procmaps__intern(pm, elf);
	piece = (struct mapping){ .pgoff = pgoff, .time = t, .name = name, .elf = elf };
	lo = proc__first_after(p, start);
	for (hi = lo; hi < p->nmaps && p->maps[hi].start < end; hi++)
		;
	/* each old mapping may leave a head and a tail; the new one fills the gaps */
	out = malloc((3 * (size_t)(hi - lo) + 2) * sizeof(*out));
	if (!out)
		return -ENOMEM;
	for (i = lo; i < hi; i++) {
		m = &p->maps[i];
		if (m->time > t) { /* newer: it stays, the new mapping goes around it */
			if (cur < m->start) {
				piece.start = cur;
				piece.end = m->start;
				piece.pgoff = pgoff + (cur - start);
				out[n++] = piece;
			}
			out[n++] = *m;
			if (m->end > cur)
				cur = m->end;
			continue;
		}
		if (m->start < start) {
			out[n] = *m;
			out[n++].end = start;
		}
		if (m->end > end) {
			out[n] = *m;
			out[n].start = end;
			out[n++].pgoff = m->pgoff + (end - m->start);
		}
	}
	if (cur < end) {
		piece.start = cur;
		piece.end = end;
		piece.pgoff = pgoff + (cur - start);
		out[n++] = piece;
	}
	if (n > 1)
		qsort(out, n, sizeof(*out), mapping__cmp);
	if (!proc__reserve(p, p->nmaps - (hi - lo) + n)) {
		free(out);
		return -ENOMEM;
	}
	memmove(&p->maps[lo + n], &p->maps[hi], (size_t)(p->nmaps - hi) * sizeof(*out));
	memcpy(&p->maps[lo], out, (size_t)n * sizeof(*out));
	p->nmaps += n - (hi - lo);
	p->known = true;
	free(out);
	return 0;
}

/*
 * What p learned before time t belongs to an earlier process of its PID
 * (one that exited, its EXIT not yet pruned or lost): forgotten.  What it
 * learned since (a /proc read of the new process, before its FORK record
 * was applied) stays.  Nothing left: nothing is known of it, name included.
 */
static void proc__forget_before(struct proc *p, __u64 t)
{
	int i, n = 0;

	for (i = 0; i < p->nmaps; i++)
		if (p->maps[i].time >= t)
			p->maps[n++] = p->maps[i];
	p->nmaps = n;
	if (!n) {
		p->known = false;
		p->comm[0] = '\0';
		p->exec_time = 0;
	}
}

void procmaps__exec(struct procmaps *pm, pid_t tgid, const char *comm, __u64 t)
{
	struct proc *p = procmaps__get(pm, tgid);

	if (!p)
		return;
	/* an exec in a process that has exited: a new process of the same PID */
	if (p->exited)
		proc__forget_before(p, t);
	p->exec_time = t;
	p->exited = false;
	p->sealed = false;
	if (comm)
		snprintf(p->comm, sizeof(p->comm), "%s", comm);
}

void procmaps__comm(struct procmaps *pm, pid_t pid, pid_t tid, const char *comm)
{
	struct proc *p;

	/* a thread's name is not its process's */
	if (pid == tid && (p = procmaps__get(pm, pid)))
		snprintf(p->comm, sizeof(p->comm), "%s", comm);
}

int procmaps__fork(struct procmaps *pm, pid_t child, pid_t parent, __u64 t)
{
	struct proc *pp = procmaps__find(pm, parent), *c = procmaps__get(pm, child);
	struct mapping *copy;
	int i, e = 0;

	if (!c)
		return -ENOMEM;
	/* a new process: whatever its PID held before is another's */
	proc__forget_before(c, t);
	c->exited = false;
	c->sealed = false;
	if (!pp || !pp->nmaps)
		return 0;
	if (!c->comm[0])
		memcpy(c->comm, pp->comm, sizeof(c->comm));
	if (!c->nmaps) { /* the common case: the child has learned nothing yet */
		if (!proc__reserve(c, pp->nmaps))
			return -ENOMEM;
		memcpy(c->maps, pp->maps, (size_t)pp->nmaps * sizeof(*c->maps));
		c->nmaps = pp->nmaps;
		c->known = true;
		return 0;
	}
	copy = malloc(pp->nmaps * sizeof(*copy)); /* adding to c may move pp's array */
	if (!copy)
		return -ENOMEM;
	memcpy(copy, pp->maps, pp->nmaps * sizeof(*copy));
	for (i = 0; i < pp->nmaps && !e; i++)
		e = procmaps__add_elf(pm, child, copy[i].start, copy[i].end, copy[i].pgoff,
				      copy[i].name, copy[i].elf, copy[i].time);
	free(copy);
	return e;
}

void procmaps__gone(struct procmaps *pm, struct proc *p)
{
	if (!p->exited) {
		p->exited = true;
		p->exited_epoch = pm->epoch;
	}
}

void procmaps__exit(struct procmaps *pm, pid_t tgid)
{
	struct proc *p = procmaps__find(pm, tgid);

	if (p)
		procmaps__gone(pm, p);
}

void procmaps__next_epoch(struct procmaps *pm)
{
	pm->epoch++;
}

void procmaps__forget(struct procmaps *pm, pid_t tgid)
{
	struct proc *p = procmaps__find(pm, tgid);

	if (!p)
		return;
	tdelete(p, &pm->procs, proc__cmp);
	proc__free(p);
}

struct proc *procmaps__copy(struct procmaps *pm, pid_t dst, struct procmaps *pm_src, pid_t src)
{
	struct proc *sp = procmaps__find(pm_src, src), *p;
	int i;

	if (procmaps__find(pm, dst))
		return NULL; /* a copy is new */
	p = procmaps__get(pm, dst);
	if (!p || !sp)
		return p;
	p->maps = malloc((sp->nmaps ? sp->nmaps : 1) * sizeof(*p->maps));
	if (!p->maps)
		return NULL;
	for (i = 0; i < sp->nmaps; i++) {
		p->maps[i] = sp->maps[i];
		p->maps[i].name = procmaps__intern(pm, sp->maps[i].name);
		p->maps[i].elf = procmaps__intern(pm, sp->maps[i].elf);
		if ((sp->maps[i].name && !p->maps[i].name) || (sp->maps[i].elf && !p->maps[i].elf))
			return NULL;
	}
	p->nmaps = p->cap = sp->nmaps;
	p->known = sp->known;
	p->exited = sp->exited;
	p->sealed = sp->sealed;
	p->exec_time = sp->exec_time;
	memcpy(p->comm, sp->comm, sizeof(p->comm));
	return p;
}

static void collect_exited(struct proc *p, void *ctx)
{
	struct proc ***list = ctx;

	if (p->exited && p->sealed)
		*(*list)++ = p;
}

static void seal_exited(struct proc *p, void *ctx)
{
	const struct procmaps *pm = ctx;

	if (p->exited && p->exited_epoch < pm->epoch)
		p->sealed = true;
}

void procmaps__seal_exited(struct procmaps *pm)
{
	procmaps__foreach(pm, seal_exited, pm);
}

static void count_procs(struct proc *p, void *ctx)
{
	(void)p;
	(*(size_t *)ctx)++;
}

static int ptr__cmp(const void *a, const void *b)
{
	return a < b ? -1 : a > b;
}

struct sweep {
	void *used; /* tree of the names mappings hold, by pointer */
	bool failed;
	const char **unused;
	size_t n, cap;
};

/* The names the processes' mappings and cgroups hold, into s->used. */
static void mark_names(struct proc *p, void *ctx)
{
	struct sweep *s = ctx;
	int i;

	if (p->cgroup && !tsearch(p->cgroup, &s->used, ptr__cmp))
		s->failed = true;
	for (i = 0; i < p->nmaps && !s->failed; i++) {
		if (p->maps[i].name && !tsearch(p->maps[i].name, &s->used, ptr__cmp))
			s->failed = true;
		if (p->maps[i].elf && !tsearch(p->maps[i].elf, &s->used, ptr__cmp))
			s->failed = true;
	}
}

static void sweep__visit(const void *node, VISIT which, void *closure)
{
	struct sweep *s = closure;
	const char *str = *(const char *const *)node;

	if ((which == postorder || which == leaf) && s->n < s->cap &&
	    !tfind(str, &s->used, ptr__cmp))
		s->unused[s->n++] = str;
}

static void nofree(void *p)
{
	(void)p;
}

/* Frees the interned names no mapping holds. */
static void procmaps__sweep_strings(struct procmaps *pm)
{
	struct sweep s = { .cap = pm->nstrings };
	size_t i;

	procmaps__foreach(pm, mark_names, &s);
	s.unused = calloc(s.cap ? s.cap : 1, sizeof(*s.unused));
	if (!s.failed && s.unused) {
		twalk_r(pm->strings, sweep__visit, &s);
		for (i = 0; i < s.n; i++) {
			tdelete(s.unused[i], &pm->strings, str__cmp);
			free((char *)s.unused[i]);
		}
		pm->nstrings -= s.n;
	}
	free(s.unused);
	tdestroy(s.used, nofree);
	pm->swept = pm->nstrings;
}

void procmaps__prune_exited(struct procmaps *pm)
{
	struct proc **gone, **end;
	size_t n = 0;

	procmaps__foreach(pm, count_procs, &n);
	gone = calloc(n ? n : 1, sizeof(*gone));
	if (!gone)
		return; /* kept: more memory, same answers */
	end = gone;
	procmaps__foreach(pm, collect_exited, &end);
	for (struct proc **p = gone; p < end; p++) {
		tdelete(*p, &pm->procs, proc__cmp);
		proc__free(*p);
	}
	free(gone);
	if (pm->nstrings > 2 * pm->swept + 256)
		procmaps__sweep_strings(pm);
}

/*
 * The process's cgroup v2 path (/proc/PID/cgroup's "0::" line), read with
 * its maps while it lives: a report comes after many have exited.
 */
static int procmaps__read_cgroup(struct procmaps *pm, struct proc *p)
{
	char path[512], line[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/cgroup", pm->proc_root, (int)p->tgid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = '\0';
		p->cgroup = procmaps__intern(pm, line + 3);
		if (!p->cgroup) {
			fclose(f);
			return -ENOMEM;
		}
	}
	fclose(f);
	return 0;
}

int procmaps__read(struct procmaps *pm, pid_t tgid)
{
	char path[512], line[4096];
	struct mapsline m;
	struct proc *p;
	__u64 t = procmaps__now();
	int e = 0;
	FILE *f;

	if (!pm->proc_root) { /* the processes of a file: gone, as far as we can know */
		procmaps__exit(pm, tgid);
		return -ESRCH;
	}
	snprintf(path, sizeof(path), "%s/%d/maps", pm->proc_root, (int)tgid);
	f = fopen(path, "re");
	if (!f) {
		e = errno == ENOENT ? -ESRCH : -errno;
		if (e == -ESRCH)
			procmaps__exit(pm, tgid);
		return e;
	}
	p = procmaps__get(pm, tgid);
	if (!p) {
		fclose(f);
		return -ENOMEM;
	}
	p->known = true;
	while (!e && fgets(line, sizeof(line), f)) {
		if (!mapsline__parse(line, &m))
			continue;
		e = procmaps__add(pm, tgid, m.lo, m.hi, m.pgoff, m.name, t);
		if (!e && pm->read_line)
			pm->read_line(pm->read_ctx, tgid, &m);
	}
	fclose(f);
	snprintf(path, sizeof(path), "%s/%d/comm", pm->proc_root, (int)tgid);
	f = fopen(path, "re");
	if (f) {
		/* the kernel ends the name with a newline, and the name may hold one of its own */
		size_t n = fread(line, 1, sizeof(line) - 1, f);

		if (n && line[n - 1] == '\n')
			n--;
		line[n] = '\0';
		if (n)
			snprintf(p->comm, sizeof(p->comm), "%s", line);
		fclose(f);
	}
	if (!e && pm->want_cgroup)
		e = procmaps__read_cgroup(pm, p);
	return e;
}

int procmaps__read_all(struct procmaps *pm)
{
	struct dirent *de;
	int n = 0;
	DIR *d = pm->proc_root ? opendir(pm->proc_root) : NULL;

	if (!pm->proc_root)
		return 0;
	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (isdigit((unsigned char)de->d_name[0]) && !procmaps__read(pm, atoi(de->d_name)))
			n++;
	closedir(d);
	return n;
}

const struct mapping *proc__find(const struct proc *p, __u64 addr)
{
	int i = proc__first_after(p, addr);

	/* the only mapping that may hold addr: the first that ends after it */
	return i < p->nmaps && p->maps[i].start <= addr ? &p->maps[i] : NULL;
}

struct foreach_ctx {
	void (*fn)(struct proc *p, void *ctx);
	void *ctx;
};

static void foreach__visit(const void *node, VISIT which, void *closure)
{
	struct foreach_ctx *c = closure;

	if (which == postorder || which == leaf)
		c->fn(*(struct proc **)node, c->ctx);
}

void procmaps__foreach(struct procmaps *pm, void (*fn)(struct proc *p, void *ctx), void *ctx)
{
	struct foreach_ctx c = { fn, ctx };

	twalk_r(pm->procs, foreach__visit, &c);
}
