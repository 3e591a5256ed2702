// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "kernel/lib/util.h"
#include "user/symbols/machine.h"

#define KERNEL_MMAP "[kernel.kallsyms]"

void machine__init(struct machine *m, enum machine_order order)
{
	memset(m, 0, sizeof(*m));
	procmaps__init(&m->pm);
	m->order = order;
	if (order != MACHINE_LIVE)
		m->pm.proc_root = NULL; /* a file's processes are not this machine's */
}

/* A timeline and its images (tdestroy's free). */
static void timeline__free(void *tl)
{
	free(((struct machine_timeline *)tl)->img);
	free(tl);
}

void machine__free(struct machine *m)
{
	free(m->fresh);
	free(m->shared);
	free(m->cgroups);
	tdestroy(m->timelines, timeline__free);
	procmaps__free(&m->pm);
	memset(m, 0, sizeof(*m));
}

void machine__keep_history(struct machine *m, struct procmaps *images)
{
	m->images = images;
	m->next_id = MACHINE_IMAGE_BASE;
}

/* ---- MAP_SHARED file mappings --------------------------------------------------- */

static int machine__add_shared(struct machine *m, const struct machine_shared *s)
{
	if (array__room(&m->shared, m->nshared, &m->capshared, sizeof(*s), 16))
		return -ENOMEM;
	m->shared[m->nshared++] = *s;
	return 0;
}

/* A line of /proc/PID/maps that procmaps__read learned: its shared files. */
static void machine__read_line(void *ctx, pid_t tgid, const struct mapsline *l)
{
	struct machine *m = ctx;
	struct machine_shared s = {
		tgid, l->lo, l->hi, l->pgoff, l->maj, l->min, l->ino, 0, NULL,
	};

	if (!l->shared)
		return;
	s.name = procmaps__intern(&m->pm, l->name);
	if (s.name)
		machine__add_shared(m, &s); /* else the line stays the process's own */
}

void machine__track_shared(struct machine *m)
{
	m->track_shared = true;
	m->pm.read_line = machine__read_line;
	m->pm.read_ctx = m;
}

const struct machine_shared *machine__shared(struct machine *m, pid_t tgid, __u64 addr)
{
	int i;

	if (m->pm.proc_root && !procmaps__find(&m->pm, tgid)) {
		procmaps__read(&m->pm, tgid);
		procmaps__get(&m->pm, tgid); /* read once, found or not */
	}
	for (i = m->nshared - 1; i >= 0; i--)
		if (m->shared[i].tgid == tgid && addr >= m->shared[i].start &&
		    addr < m->shared[i].end)
			return &m->shared[i];
	return NULL;
}

/* ---- cgroups and names ------------------------------------------------------------ */

static int machine__add_cgroup(struct machine *m, const struct sideband_rec *r)
{
	if (array__room(&m->cgroups, m->ncgroups, &m->capcgroups, sizeof(*m->cgroups), 16))
		return -ENOMEM;
	m->cgroups[m->ncgroups++] = (struct machine_cgroup){ r->id, r->str };
	return 0;
}

const char *machine__cgroup_path(const struct machine *m, __u64 id)
{
	int i;

	for (i = m->ncgroups - 1; i >= 0; i--)
		if (m->cgroups[i].id == id)
			return m->cgroups[i].path;
	return NULL;
}

/* <proc_root>/PID/what, open for reading; NULL when there is no such file or no /proc. */
static FILE *machine__proc_file(const struct machine *m, pid_t tgid, const char *what)
{
	char path[512];

	if (!m->pm.proc_root)
		return NULL;
	snprintf(path, sizeof(path), "%s/%d/%s", m->pm.proc_root, (int)tgid, what);
	return fopen(path, "re");
}

void machine__comm(struct machine *m, pid_t tgid, char *buf, size_t len)
{
	const struct proc *p = procmaps__find(&m->pm, tgid);
	char line[256];
	FILE *f;

	if (p && p->comm[0]) {
		snprintf(buf, len, "%s", p->comm);
		return;
	}
	f = machine__proc_file(m, tgid, "comm");
	if (!f)
		return;
	if (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		snprintf(buf, len, "%s", line);
	}
	fclose(f);
}

void machine__cgroup(const struct machine *m, pid_t tgid, char *buf, size_t len)
{
	char line[256];
	FILE *f = machine__proc_file(m, tgid, "cgroup");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(buf, len, "%s", line + 3);
		}
	fclose(f);
}

/* ---- history: the images of each process ---------------------------------------- */

static int timeline__cmp(const void *a, const void *b)
{
	const struct machine_timeline *x = a, *y = b;

	return x->tgid < y->tgid ? -1 : x->tgid > y->tgid;
}

static struct machine_timeline *machine__timeline(struct machine *m, pid_t tgid)
{
	struct machine_timeline key = { .tgid = tgid };
	void *node;

	if (m->last && m->last->tgid == tgid)
		return m->last;
	node = tfind(&key, &m->timelines, timeline__cmp);
	if (node)
		m->last = *(struct machine_timeline **)node;
	return node ? m->last : NULL;
}

/* Opens an image from time 'start' (0: the process's first). Returns 0 or -ENOMEM. */
static int timeline__open_image(struct machine *m, struct machine_timeline *tl, __u64 start,
				bool new_epoch)
{
	struct machine_image *img;

	if (m->next_id < MACHINE_IMAGE_BASE || m->next_id == 0x7fffffff)
		return -ENOMEM; /* 2^30 images: out of IDs */
	if (array__room(&tl->img, tl->n, &tl->cap, sizeof(*img), 4))
		return -ENOMEM;
	img = &tl->img[tl->n];
	*img = (struct machine_image){
		.start = start,
		.id = m->next_id++,
		.epoch = new_epoch || !tl->n ? tl->n : tl->img[tl->n - 1].epoch,
	};
	tl->n++;
	return 0;
}

/* The process's timeline, created with its first image when new; NULL when out of memory. */
static struct machine_timeline *machine__timeline_get(struct machine *m, pid_t tgid)
{
	struct machine_timeline *tl = machine__timeline(m, tgid);

	if (tl || !(tl = calloc(1, sizeof(*tl))))
		return tl;
	tl->tgid = tgid;
	if (timeline__open_image(m, tl, 0, true) || !tsearch(tl, &m->timelines, timeline__cmp)) {
		timeline__free(tl);
		return NULL;
	}
	return m->last = tl;
}

/* Freezes the current image: the process as the records have left it. */
static int timeline__freeze(struct machine *m, struct machine_timeline *tl)
{
	struct machine_image *img = &tl->img[tl->n - 1];

	if (img->proc)
		return 0;
	img->proc = procmaps__copy(m->images, img->id, &m->pm, tl->tgid);
	if (img->proc)
		m->image_mappings += (__u64)img->proc->nmaps;
	return img->proc ? 0 : -ENOMEM;
}

/*
 * A record at time 'at' changes names: the current image ends, a new one
 * starts.  Past MACHINE_MAX_IMAGE_MAPPINGS the process goes on in its
 * current image, named as a live run names it (the newest mapping wins).
 */
static int timeline__cut(struct machine *m, struct machine_timeline *tl, __u64 at, bool new_epoch)
{
	const struct proc *p = procmaps__find(&m->pm, tl->tgid);
	int e;

	if (m->image_mappings + (p ? (__u64)p->nmaps : 0) > MACHINE_MAX_IMAGE_MAPPINGS) {
		m->images_capped = true;
		return 0;
	}
	e = timeline__freeze(m, tl);
	return e ? e : timeline__open_image(m, tl, at, new_epoch);
}

/* The last image that starts at or before 'at' (the first when none does). */
static int timeline__at(const struct machine_timeline *tl, __u64 at)
{
	int i = 0, step = 1;

	/* the images start in time order: steps of halving powers of two, from the first */
	while (step < tl->n)
		step <<= 1;
	for (; step; step >>= 1)
		if (i + step < tl->n && tl->img[i + step].start <= at)
			i += step;
	return i;
}

__u32 machine__image(struct machine *m, __u32 tgid, __u64 at, __u64 a, bool kernel)
{
	const struct machine_timeline *tl = machine__timeline(m, (pid_t)tgid);
	const struct machine_image *img;
	const struct mapping *map;
	int k, j;

	if (!tl)
		return tgid;
	if (kernel)
		return (__u32)tl->img[0].id;
	k = timeline__at(tl, at);
	img = &tl->img[k];
	map = img->proc ? proc__find(img->proc, a) : NULL;
	if (!map)
		return (__u32)img->id;
	j = timeline__at(tl, map->time);
	if (j < img->epoch)
		j = img->epoch;
	if (j > k)
		j = k; /* learned at the instant this image began */
	return (__u32)tl->img[j].id;
}

struct freeze_ctx {
	struct machine *m;
	int e;
};

static void freeze_all(const void *node, VISIT which, void *ctx)
{
	struct freeze_ctx *c = ctx;

	if ((which == postorder || which == leaf) && !c->e)
		c->e = timeline__freeze(c->m, *(struct machine_timeline *const *)node);
}

int machine__freeze(struct machine *m)
{
	struct freeze_ctx fc = { m, 0 };

	twalk_r(m->timelines, freeze_all, &fc);
	return fc.e;
}

static void count_timelines(const void *node, VISIT which, void *ctx)
{
	const struct machine_timeline *tl = *(struct machine_timeline *const *)node;
	size_t *n = ctx;

	if (which == postorder || which == leaf) {
		n[0]++;
		n[1] += (size_t)tl->n;
	}
}

void machine__count_images(const struct machine *m, size_t *procs, size_t *images)
{
	size_t n[2] = { 0, 0 };

	twalk_r(m->timelines, count_timelines, n);
	*procs = n[0];
	*images = n[1];
}

/*
 * Whether mapping [lo, hi) of a file (name, elf, its first byte at file
 * offset pgoff) names an address that an older mapping of the process holds
 * differently: another file or copy, or the same file at another load bias.
 */
static bool machine__renames(struct machine *m, pid_t tgid, __u64 lo, __u64 hi, __u64 pgoff,
			     const char *name, const char *elf)
{
	const struct proc *p = procmaps__find(&m->pm, tgid);
	const struct mapping *map;

	if (!p || !p->nmaps)
		return false;
	name = procmaps__intern(&m->pm, name);
	elf = procmaps__intern(&m->pm, elf);
	for (map = &p->maps[proc__first_after(p, lo)]; map < p->maps + p->nmaps && map->start < hi;
	     map++) {
		if (map->name != name || map->elf != elf)
			return true;
		if (name && name[0] == '/' && map->start - map->pgoff != lo - pgoff)
			return true;
	}
	return false;
}

/* ---- applying the side band ------------------------------------------------------ */

/* The time a record is applied at: file order makes the later one win where two map. */
static __u64 machine__time(const struct machine *m, const struct sideband_rec *r)
{
	return m->order == MACHINE_FILE_ORDER ? 0 : r->time;
}

/* The kernel's MMAP: the address of the symbol it names ("[kernel.kallsyms]_text") when recorded. */
static void machine__kernel_mmap(struct machine *m, const struct sideband_rec *r)
{
	const char *sym;

	if (!r->str || strncmp(r->str, KERNEL_MMAP, strlen(KERNEL_MMAP)) || m->kernel.ref)
		return;
	sym = r->str + strlen(KERNEL_MMAP);
	if (!*sym)
		return;
	/* perf record --buildid-mmap: the kernel's build ID, where HEADER_BUILD_ID has none */
	if (r->build_id_size) {
		memcpy(m->kernel.build_id, r->build_id, r->build_id_size);
		m->kernel.build_id_len = r->build_id_size;
	}
	snprintf(m->kernel.sym, sizeof(m->kernel.sym), "%s", sym);
	m->kernel.ref = r->pgoff;
}

static int machine__mmap(struct machine *m, const struct sideband_rec *r)
{
	__u64 t = machine__time(m, r), end = r->addr + r->len;
	struct machine_timeline *tl;
	const char *elf = NULL;
	int e = 0;

	if (r->pid == (__u32)-1 || r->kernel) {
		machine__kernel_mmap(m, r);
		return 0;
	}
	if ((m->images && r->pid >= MACHINE_IMAGE_BASE) || !r->len || end < r->addr)
		return 0;
	if (m->track_shared && (r->flags & MAP_SHARED) && !r->build_id) {
		struct machine_shared s = {
			.tgid = (pid_t)r->pid,
			.start = r->addr,
			.end = end,
			.pgoff = r->pgoff,
			.maj = r->maj,
			.min = r->min,
			.ino = r->ino,
			.ino_generation = r->ino_generation,
			.name = procmaps__intern(&m->pm, r->str ? r->str : "//anon"),
		};

		if (!s.name || machine__add_shared(m, &s))
			return -ENOMEM;
	}
	if (m->elf_for && r->str) {
		elf = m->elf_for(m->elf_ctx, r, &e);
		if (e)
			return e;
	}
	if (m->images) {
		tl = machine__timeline_get(m, (pid_t)r->pid);
		if (!tl)
			return -ENOMEM;
		if (machine__renames(m, (pid_t)r->pid, r->addr, end, r->pgoff, r->str, elf)) {
			e = timeline__cut(m, tl, t, false);
			if (e)
				return e;
		}
	}
	return procmaps__add_elf(&m->pm, (pid_t)r->pid, r->addr, end, r->pgoff, r->str, elf, t);
}

/* Live: a process that exec'd is read again from /proc at the next refresh. */
static void machine__fresh(struct machine *m, pid_t pid)
{
	/* out of memory, its stack and vDSO stay unknown: no worse than without */
	if (!array__room(&m->fresh, m->nfresh, &m->capfresh, sizeof(pid), 16))
		m->fresh[m->nfresh++] = pid;
}

static int machine__comm_rec(struct machine *m, const struct sideband_rec *r)
{
	pid_t pid = (pid_t)r->pid;
	__u64 t = machine__time(m, r);
	struct machine_timeline *tl;
	int e;

	if (m->images && r->pid >= MACHINE_IMAGE_BASE)
		return 0;
	if (!r->exec) {
		procmaps__comm(&m->pm, pid, (pid_t)r->tid, r->str);
		return 0;
	}
	if (m->order == MACHINE_LIVE) {
		procmaps__exec(&m->pm, pid, r->str, t);
		machine__fresh(m, pid);
		return 0;
	}
	/* a new program: the old one's mappings are gone */
	if (m->images) {
		tl = machine__timeline_get(m, pid);
		if (!tl)
			return -ENOMEM;
		e = timeline__cut(m, tl, t, true);
		if (e)
			return e;
	}
	procmaps__forget(&m->pm, pid);
	procmaps__exec(&m->pm, pid, r->str, t);
	return procmaps__find(&m->pm, pid) ? 0 : -ENOMEM;
}

static int machine__fork(struct machine *m, const struct sideband_rec *r)
{
	pid_t pid = (pid_t)r->pid;
	__u64 t = machine__time(m, r);
	struct machine_timeline *tl;
	int e;

	if (m->order != MACHINE_LIVE) {
		/* a PID seen before starts over */
		if (m->images) {
			tl = machine__timeline(m, pid);
			if (tl && (e = timeline__cut(m, tl, t, true)))
				return e;
			if (!tl && !machine__timeline_get(m, pid))
				return -ENOMEM;
		}
		procmaps__forget(&m->pm, pid);
	}
	return procmaps__fork(&m->pm, pid, (pid_t)r->ppid, t);
}

int machine__process(struct machine *m, const struct sideband_rec *r)
{
	switch (r->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return machine__mmap(m, r);
	case PERF_RECORD_COMM:
		return machine__comm_rec(m, r);
	case PERF_RECORD_FORK:
		/* a new process, not a new thread of one */
		if (r->pid == r->tid && r->pid != r->ppid &&
		    !(m->images && r->pid >= MACHINE_IMAGE_BASE))
			return machine__fork(m, r);
		return 0;
	case PERF_RECORD_EXIT:
		if (r->pid == r->tid && !(m->images && r->pid >= MACHINE_IMAGE_BASE))
			procmaps__exit(&m->pm, (pid_t)r->pid);
		return 0;
	case PERF_RECORD_CGROUP:
		return machine__add_cgroup(m, r);
	default:
		return 0;
	}
}

void machine__refresh(struct machine *m)
{
	int i;

	for (i = 0; i < m->nfresh; i++)
		procmaps__read(&m->pm, m->fresh[i]);
	m->nfresh = 0;
}
