// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <search.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "user/top/unwindset.h"
#include "user/symbols/mapsline.h"
#include "user/symbols/procmaps.h"
#include "user/symbols/unwind.h"
#include "user/symbols/unwindcache.h"

void unwind_set__init(struct unwind_set *u, int files_fd, __u32 max_files, int procs_fd,
		      __u32 max_procs)
{
	memset(u, 0, sizeof(*u));
	u->files_fd = files_fd;
	u->procs_fd = procs_fd;
	u->max_files = max_files;
	u->max_procs = max_procs;
}

/* A process given mappings: which tables they use, and what its model looked like. */
struct unwind_pid {
	pid_t pid;
	__u64 sig;   /* unwind_sig of its struct proc when read */
	bool stored; /* its mappings are in the map (else the map was full) */
	__u32 nslots;
	__u32 slots[LDLAT_UNWIND_MAPS];
};

static int pid_cmp(const void *a, const void *b)
{
	pid_t x = ((const struct unwind_pid *)a)->pid, y = ((const struct unwind_pid *)b)->pid;

	return x < y ? -1 : x > y;
}

void unwind_set__free(struct unwind_set *u)
{
	tdestroy(u->procs_tree, free);
	u->procs_tree = NULL;
	free(u->files);
	free(u->slot_refs);
	u->files = NULL;
	u->slot_refs = NULL;
	u->nfiles = u->cap = 0;
}

/* Whether a file's table is at slot (loaded, whether or not a process uses it yet). */
static bool slot_taken(const struct unwind_set *u, __u32 slot)
{
	size_t i;

	for (i = 0; i < u->nfiles; i++)
		if (u->files[i].state == UNWIND_FILE_LOADED && u->files[i].slot == slot)
			return true;
	return false;
}

/* A free slot, or -1 (every one holds a table). */
static int slot_free(struct unwind_set *u)
{
	__u32 i;

	if (!u->slot_refs && u->max_files)
		u->slot_refs = calloc(u->max_files, sizeof(*u->slot_refs));
	if (!u->slot_refs)
		return -1;
	for (i = 0; i < u->max_files; i++)
		if (!u->slot_refs[i] && !slot_taken(u, i))
			return (int)i;
	return -1;
}

/*
 * The table into a new inner map at the next slot: block 0 the index,
 * then the rows, LDLAT_UNWIND_CHUNK_ROWS a block.
 */
static int table_store(struct unwind_set *u, const struct unwind_table *t, __u32 slot)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_INNER_MAP);
	__u32 chunks = (t->nrows + LDLAT_UNWIND_CHUNK_ROWS - 1) / LDLAT_UNWIND_CHUNK_ROWS, k, n;
	union ldlat_unwind_block *b = calloc(1, sizeof(*b));
	int fd, e = 0;

	if (!b)
		return -ENOMEM;
	if (chunks > LDLAT_UNWIND_CHUNKS) {
		free(b);
		return -EFBIG;
	}
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "ldlat_unwind_t", sizeof(__u32), sizeof(*b),
			    chunks + 1, &opts);
	if (fd < 0) {
		free(b);
		return -errno;
	}
	b->index.nchunks = chunks;
	b->index.nrows = t->nrows;
	for (k = 0; k < chunks; k++)
		b->index.first[k] = t->rows[k * LDLAT_UNWIND_CHUNK_ROWS].pc;
	k = 0;
	if (bpf_map_update_elem(fd, &k, b, BPF_ANY))
		e = -errno;
	for (k = 0; !e && k < chunks; k++) {
		__u32 key = k + 1;

		n = t->nrows - k * LDLAT_UNWIND_CHUNK_ROWS;
		if (n > LDLAT_UNWIND_CHUNK_ROWS)
			n = LDLAT_UNWIND_CHUNK_ROWS;
		memset(b, 0, sizeof(*b));
		memcpy(b->rows, t->rows + (size_t)k * LDLAT_UNWIND_CHUNK_ROWS,
		       n * sizeof(*t->rows));
		if (bpf_map_update_elem(fd, &key, b, BPF_ANY))
			e = -errno;
	}
	free(b);
	/* into the outer map with the process's others (pending_flush) */
	if (e || u->npending == LDLAT_UNWIND_MAPS) {
		close(fd);
		return e ?: -ENOSPC;
	}
	u->pending_slot[u->npending] = slot;
	u->pending_fd[u->npending++] = fd;
	return 0;
}

/* A table the outer map refused: its file counted failed, its slot free again. */
static void pending_failed(struct unwind_set *u, __u32 slot)
{
	size_t i;

	for (i = 0; i < u->nfiles; i++) {
		struct unwind_file *f = &u->files[i];

		if (f->state != UNWIND_FILE_LOADED || f->slot != slot)
			continue;
		if (f->bytes) { /* the one loaded; the others its copies by build ID */
			u->bytes -= f->bytes;
			u->loaded--;
			u->loads--;
			u->failed++;
		}
		f->state = UNWIND_FILE_FAILED;
	}
}

/*
 * The tables made for a process into 'unwind_files', all in one update
 * where the kernel batches a map of maps, else one by one; p's mappings
 * of a table refused lose it (frame pointers there).
 */
static void pending_flush(struct unwind_set *u, struct ldlat_unwind_proc *p)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u32 n = u->npending, i, k;

	if (!n)
		return;
	if (bpf_map_update_batch(u->files_fd, u->pending_slot, u->pending_fd, &n, &opts))
		n = 0;
	for (i = n; i < u->npending; i++) {
		if (!bpf_map_update_elem(u->files_fd, &u->pending_slot[i], &u->pending_fd[i],
					 BPF_ANY))
			continue;
		pending_failed(u, u->pending_slot[i]);
		for (k = 0; p && k < p->n; k++)
			if (p->maps[k].kind == LDLAT_MAP_TABLE &&
			    p->maps[k].file == u->pending_slot[i])
				p->maps[k].kind = LDLAT_MAP_NO_TABLE;
	}
	/* the outer map holds them now */
	for (i = 0; i < u->npending; i++)
		close(u->pending_fd[i]);
	u->npending = 0;
}

static struct unwind_file *file_find(struct unwind_set *u, __u64 dev, __u64 ino)
{
	size_t i;

	for (i = 0; i < u->nfiles; i++)
		if (u->files[i].state != UNWIND_FILE_FREED && u->files[i].dev == dev &&
		    u->files[i].ino == ino)
			return &u->files[i];
	return NULL;
}

static struct unwind_file *file_by_build_id(struct unwind_set *u, const struct unwind_table *t)
{
	size_t i;

	if (!t->build_id_len)
		return NULL;
	for (i = 0; i < u->nfiles; i++)
		if (u->files[i].state == UNWIND_FILE_LOADED &&
		    u->files[i].build_id_len == t->build_id_len &&
		    !memcmp(u->files[i].build_id, t->build_id, t->build_id_len))
			return &u->files[i];
	return NULL;
}

/*
 * Compiles and loads the file mapped at m in pid into entry f.  Returns 0
 * (the outcome in f->state, counted), or -ENOMEM.
 */
static int file_load(struct unwind_set *u, struct unwind_file *f, pid_t pid,
		     const struct mapsline *m)
{
	struct unwind_file *same;
	struct unwind_table t;
	struct err err = {};
	char path[96];
	struct stat st;
	int fd, e, slot;

	memset(f, 0, sizeof(*f));
	/* not LOADED (0) while it loads: a reused entry would find itself by its build ID */
	f->state = UNWIND_FILE_FAILED;
	f->dev = makedev(m->maj, m->min);
	f->ino = m->ino;
	/* the kernel's link to the mapped file itself: no path a user controls */
	snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", (int)pid,
		 (unsigned long long)m->lo, (unsigned long long)m->hi);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) || st.st_dev != f->dev || st.st_ino != f->ino) {
		if (fd >= 0)
			close(fd);
		/* not kept: the process may have gone meanwhile, another may open it */
		f->state = UNWIND_FILE_FREED;
		u->failed++;
		return 0;
	}
	e = u->cache ? unwind_cache__table_fd(u->cache, &t, fd, path, &err)
		     : unwind_table__compile_fd(&t, fd, path, &err);
	close(fd);
	if (e) {
		f->state = e == -ENODATA ? UNWIND_FILE_NO_CFI : UNWIND_FILE_FAILED;
		if (e == -ENODATA)
			u->no_cfi++;
		else
			u->failed++;
		return 0;
	}
	f->build_id_len = t.build_id_len;
	memcpy(f->build_id, t.build_id, sizeof(f->build_id));
	f->tbase = t.base;
	f->nseg = t.nseg;
	memcpy(f->seg, t.seg, sizeof(f->seg));
	f->rows = t.nrows;
	same = file_by_build_id(u, &t);
	if (same) {
		/* the same file under another inode (a copy): its table */
		f->state = UNWIND_FILE_LOADED;
		f->slot = same->slot;
	} else if ((slot = slot_free(u)) < 0) {
		f->state = UNWIND_FILE_FULL;
		u->full++;
	} else if (table_store(u, &t, (__u32)slot)) {
		f->state = UNWIND_FILE_FAILED;
		u->failed++;
	} else {
		f->state = UNWIND_FILE_LOADED;
		f->slot = (__u32)slot;
		u->loaded++;
		u->loads++;
		f->bytes = unwind_table__bpf_bytes(&t);
		u->bytes += f->bytes;
	}
	unwind_table__free(&t);
	return 0;
}

/* The file mapped at m in pid: known, or compiled and loaded now; NULL when out of memory. */
static struct unwind_file *file_get(struct unwind_set *u, pid_t pid, const struct mapsline *m)
{
	struct unwind_file *f;
	int e;

	f = file_find(u, makedev(m->maj, m->min), m->ino);
	/* refused for want of a slot: loaded now that one is free */
	if (f && f->state == UNWIND_FILE_FULL && slot_free(u) >= 0) {
		u->full--;
		e = file_load(u, f, pid, m);
		return e ? NULL : f;
	}
	if (f)
		return f;
	/* an entry whose table was freed, else a new one */
	for (f = u->files; f && f < u->files + u->nfiles; f++)
		if (f->state == UNWIND_FILE_FREED)
			break;
	if (f && f < u->files + u->nfiles) {
		e = file_load(u, f, pid, m);
		return e ? NULL : f;
	}
	if (u->nfiles == u->cap) {
		size_t c = u->cap ? 2 * u->cap : 64;
		void *p = realloc(u->files, c * sizeof(*u->files));

		if (!p)
			return NULL;
		u->files = p;
		u->cap = c;
	}
	f = &u->files[u->nfiles];
	e = file_load(u, f, pid, m);
	if (e)
		return NULL;
	u->nfiles++;
	return f;
}

static bool file_base(const struct unwind_file *f, __u64 start, __u64 pgoff, __u64 *base)
{
	struct unwind_table t = { .base = f->tbase, .nseg = f->nseg };

	memcpy(t.seg, f->seg, sizeof(t.seg));
	return unwind_table__map_base(&t, start, pgoff, base);
}

/*
 * pid's executable mappings into p: with load, each file's table compiled
 * and loaded when not yet; without, only the tables in already, *unknown
 * the mappings of files that would be loaded.
 */
static int proc_read(struct unwind_set *u, pid_t pid, struct ldlat_unwind_proc *p, bool load,
		     __u32 *unknown, struct err *err)
{
	char path[64], *line = NULL;
	struct unwind_file *f;
	struct mapsline m;
	struct stat st;
	size_t cap = 0;
	FILE *in;

	memset(p, 0, sizeof(*p));
	/* the program the mappings are of: the walker knows them for it alone */
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (!stat(path, &st))
		p->exe_ino = st.st_ino;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	in = fopen(path, "re");
	if (!in)
		return err__set(err, -errno, "%s: %s", path, strerror(errno));
	while (getline(&line, &cap, in) > 0) {
		struct ldlat_unwind_map *um;

		/*
		 * user addresses only: [vsyscall] sits above 2^63, where the
		 * walker's searches, which compare by the sign of a difference,
		 * would take it for the highest mapping of any address
		 */
		if (!mapsline__parse(line, &m) || !m.exec || m.lo >= (1ull << 63))
			continue;
		if (p->n == LDLAT_UNWIND_MAPS) {
			u->maps_dropped++;
			continue;
		}
		um = &p->maps[p->n++];
		um->start = m.lo;
		um->end = m.hi;
		um->kind = LDLAT_MAP_NO_TABLE;
		if (!m.ino) {
			/* anonymous executable memory: JIT code, or [vdso] (no file to read) */
			um->kind = m.name[0] == '[' ? LDLAT_MAP_NO_TABLE : LDLAT_MAP_JIT;
			continue;
		}
		f = load ? file_get(u, pid, &m) : file_find(u, makedev(m.maj, m.min), m.ino);
		if (!f && !load) {
			/* its table comes next: a sample there is deferred (ldlat_unwind_defer) */
			um->kind = LDLAT_MAP_PENDING;
			(*unknown)++;
		}
		if (f && f->state == UNWIND_FILE_LOADED && file_base(f, m.lo, m.pgoff, &um->base)) {
			um->kind = LDLAT_MAP_TABLE;
			um->file = f->slot;
		}
	}
	free(line);
	fclose(in);
	pending_flush(u, p);
	return 0;
}

int unwind_set__proc(struct unwind_set *u, pid_t pid, struct ldlat_unwind_proc *p, struct err *err)
{
	return proc_read(u, pid, p, true, NULL, err);
}

/* slot's table freed, and its slot, when no process holds it. */
static void slot_unused(struct unwind_set *u, __u32 slot)
{
	size_t i;

	if (!u->slot_refs || slot >= u->max_files || u->slot_refs[slot] || !slot_taken(u, slot))
		return;
	bpf_map_delete_elem(u->files_fd, &slot);
	for (i = 0; i < u->nfiles; i++) {
		struct unwind_file *f = &u->files[i];

		if (f->state != UNWIND_FILE_LOADED || f->slot != slot)
			continue;
		u->bytes -= f->bytes;
		f->state = UNWIND_FILE_FREED;
	}
	u->loaded--;
	u->freed++;
	/* the files refused for want of it: their processes read again */
	if (u->full)
		u->retry = true;
}

/* One reference less on slot's table; the last frees it. */
static void slot_put(struct unwind_set *u, __u32 slot)
{
	if (u->slot_refs && slot < u->max_files && u->slot_refs[slot] && !--u->slot_refs[slot])
		slot_unused(u, slot);
}

/* The distinct slots of p's tables into w. */
static void pid_slots(struct unwind_pid *w, const struct ldlat_unwind_proc *p)
{
	__u32 i, k;

	w->nslots = 0;
	for (i = 0; i < p->n && i < LDLAT_UNWIND_MAPS; i++) {
		if (p->maps[i].kind != LDLAT_MAP_TABLE)
			continue;
		for (k = 0; k < w->nslots && w->slots[k] != p->maps[i].file; k++)
			;
		if (k == w->nslots)
			w->slots[w->nslots++] = p->maps[i].file;
	}
}

static struct unwind_pid *pid_find(struct unwind_set *u, pid_t pid)
{
	struct unwind_pid key = { .pid = pid };
	void **n = tfind(&key, &u->procs_tree, pid_cmp);

	return n ? *n : NULL;
}

/*
 * p, pid's mappings, into the map and its tables referenced in w; quiet: a
 * first store (add_process), its failure neither said nor counted.
 */
static int proc_store(struct unwind_set *u, struct unwind_pid *w, const struct ldlat_unwind_proc *p,
		      bool quiet, struct err *err)
{
	__u32 key = (__u32)w->pid, i;
	struct unwind_pid old;
	int e;

	if (bpf_map_update_elem(u->procs_fd, &key, p, BPF_ANY)) {
		e = -errno;
		if (quiet)
			return e;
		/* the map keeps what it had: the tables it names stay held */
		err__set(err, e, "process %d: cannot store its mappings: %s", (int)w->pid,
			 strerror(-e));
		if (e == -E2BIG)
			u->procs_full++;
		else
			u->procs_failed++;
		/* the next process would be refused too: its samples are not deferred */
		if (u->refused)
			__atomic_store_n(u->refused, 1, __ATOMIC_RELAXED);
		/* the tables loaded for it alone go again */
		old = *w;
		pid_slots(&old, p);
		for (i = 0; i < old.nslots; i++)
			slot_unused(u, old.slots[i]);
		return e;
	}
	if (!w->stored)
		u->procs++;
	w->stored = true;
	/* the new tables held before the old ones are let go: none freed to be loaded again */
	old = *w;
	pid_slots(w, p);
	for (i = 0; i < w->nslots; i++)
		u->slot_refs[w->slots[i]]++;
	for (i = 0; i < old.nslots; i++)
		slot_put(u, old.slots[i]);
	return 0;
}

/*
 * pid's mappings into the map, its tables referenced (sig: its model's,
 * unwind_sig); gone_ok: a process gone meanwhile is no failure to count.
 */
static int add_process(struct unwind_set *u, pid_t pid, __u64 sig, bool gone_ok, struct err *err)
{
	struct ldlat_unwind_proc *p = malloc(sizeof(*p));
	struct err quiet = {};
	struct unwind_pid *w;
	__u32 unknown = 0;
	int e;

	if (!p)
		return err__set(err, -ENOMEM, "out of memory");
	w = pid_find(u, pid);
	if (!w) {
		w = calloc(1, sizeof(*w));
		if (!w || !tsearch(w, &u->procs_tree, pid_cmp)) {
			free(w);
			free(p);
			return err__set(err, -ENOMEM, "out of memory");
		}
		w->pid = pid;
	}
	/*
	 * A process with tables to compile or load (a program just exec'd)
	 * gets those already in first: its first page faults are the
	 * loader's, whose table its parent's brought, and loading its own
	 * takes tens of milliseconds, from the cache, to seconds
	 */
	if (!proc_read(u, pid, p, false, &unknown, &quiet) && unknown && u->slot_refs)
		proc_store(u, w, p, true, &quiet);
	e = proc_read(u, pid, p, true, NULL, err);
	if (e) {
		if (!gone_ok || e != -ENOENT)
			u->procs_failed++;
		goto out;
	}
	w->sig = sig;
	e = proc_store(u, w, p, false, err);
out:
	free(p);
	return e;
}

int unwind_set__add_process(struct unwind_set *u, pid_t pid, struct err *err)
{
	return add_process(u, pid, 0, false, err);
}

int unwind_set__reread(struct unwind_set *u, pid_t pid, struct err *err)
{
	struct unwind_pid *w = pid_find(u, pid);

	/* a process the set does not follow (gone, forgotten) stays so */
	if (!w)
		return -ESRCH;
	/* the model's signature kept: a change the side band brings later reads it again */
	return add_process(u, pid, w->sig, true, err);
}

void unwind_set__forget(struct unwind_set *u, pid_t pid)
{
	struct unwind_pid *w = pid_find(u, pid);
	__u32 key = (__u32)pid, i;

	if (!w)
		return;
	/* out of the map first: no walk reaches a table through it once it is freed */
	if (w->stored) {
		bpf_map_delete_elem(u->procs_fd, &key);
		u->procs--;
		/* room for the next process: its samples are deferred again */
		if (u->refused)
			__atomic_store_n(u->refused, 0, __ATOMIC_RELAXED);
	}
	for (i = 0; i < w->nslots; i++)
		slot_put(u, w->slots[i]);
	tdelete(w, &u->procs_tree, pid_cmp);
	free(w);
}

/*
 * What a process's model looked like, to tell when to read its mappings
 * again: its exec and each mapping's start and when it was learned.
 */
static __u64 unwind_sig(const struct proc *p)
{
	__u64 h = p->exec_time ^ ((__u64)p->nmaps << 48);
	int i;

	for (i = 0; i < p->nmaps; i++)
		h = (h ^ p->maps[i].start ^ p->maps[i].time) * 0x100000001b3ull;
	return h | 1; /* never 0: add_process's "not read from a model" */
}

struct refresh {
	struct unwind_set *u;
	bool retry; /* a slot was freed while files waited for one: every process read again */
	int e;
};

static void refresh_one(struct proc *p, void *ctx)
{
	struct refresh *r = ctx;
	struct unwind_set *u = r->u;
	struct unwind_pid *w;
	struct err err = {};
	__u64 sig;
	int e;

	if (r->e || p->tgid <= 0)
		return;
	w = pid_find(u, p->tgid);
	if (p->exited) {
		unwind_set__forget(u, p->tgid);
		return;
	}
	sig = unwind_sig(p);
	if (w && w->sig == sig && !r->retry)
		return;
	/* a process refused for want of room is tried again only when its mappings change */
	e = add_process(u, p->tgid, sig, false, &err);
	if (e == -ENOMEM)
		r->e = e;
}

int unwind_set__refresh(struct unwind_set *u, struct procmaps *pm)
{
	struct refresh r = { .u = u, .retry = u->retry };

	u->retry = false;

	procmaps__foreach(pm, refresh_one, &r);
	return r.e;
}
