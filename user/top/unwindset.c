// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "user/top/unwindset.h"
#include "user/symbols/mapsline.h"
#include "user/symbols/unwind.h"

void unwind_set__init(struct unwind_set *u, int files_fd, __u32 max_files, int procs_fd,
		      __u32 max_procs)
{
	memset(u, 0, sizeof(*u));
	u->files_fd = files_fd;
	u->procs_fd = procs_fd;
	u->max_files = max_files;
	u->max_procs = max_procs;
}

void unwind_set__free(struct unwind_set *u)
{
	free(u->files);
	u->files = NULL;
	u->nfiles = u->cap = 0;
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
	if (!e && bpf_map_update_elem(u->files_fd, &slot, &fd, BPF_ANY))
		e = -errno;
	close(fd); /* the outer map holds it now */
	free(b);
	return e;
}

static struct unwind_file *file_find(struct unwind_set *u, __u64 dev, __u64 ino)
{
	size_t i;

	for (i = 0; i < u->nfiles; i++)
		if (u->files[i].dev == dev && u->files[i].ino == ino)
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

/* The file mapped at m in pid: known, or compiled and loaded now. */
static struct unwind_file *file_get(struct unwind_set *u, pid_t pid, const struct mapsline *m)
{
	struct unwind_file *f, *same;
	struct unwind_table t;
	struct err err = {};
	char path[96];
	struct stat st;
	int fd, e;

	f = file_find(u, makedev(m->maj, m->min), m->ino);
	if (f)
		return f;
	if (u->nfiles == u->cap) {
		size_t c = u->cap ? 2 * u->cap : 64;
		void *p = realloc(u->files, c * sizeof(*u->files));

		if (!p)
			return NULL;
		u->files = p;
		u->cap = c;
	}
	f = &u->files[u->nfiles];
	memset(f, 0, sizeof(*f));
	f->dev = makedev(m->maj, m->min);
	f->ino = m->ino;
	/* the kernel's link to the mapped file itself: no path a user controls */
	snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", (int)pid,
		 (unsigned long long)m->lo, (unsigned long long)m->hi);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) || st.st_dev != f->dev || st.st_ino != f->ino) {
		if (fd >= 0)
			close(fd);
		f->state = UNWIND_FILE_FAILED;
		u->failed++;
		u->nfiles++;
		return f;
	}
	e = unwind_table__compile_fd(&t, fd, path, &err);
	close(fd);
	if (e) {
		f->state = e == -ENODATA ? UNWIND_FILE_NO_CFI : UNWIND_FILE_FAILED;
		if (e == -ENODATA)
			u->no_cfi++;
		else
			u->failed++;
		u->nfiles++;
		return f;
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
	} else if (u->loaded >= u->max_files) {
		f->state = UNWIND_FILE_FULL;
		u->full++;
	} else if (table_store(u, &t, u->loaded)) {
		f->state = UNWIND_FILE_FAILED;
		u->failed++;
	} else {
		f->state = UNWIND_FILE_LOADED;
		f->slot = u->loaded++;
		f->bytes = unwind_table__bpf_bytes(&t);
		u->bytes += f->bytes;
	}
	unwind_table__free(&t);
	u->nfiles++;
	return f;
}

static bool file_base(const struct unwind_file *f, __u64 start, __u64 pgoff, __u64 *base)
{
	struct unwind_table t = { .base = f->tbase, .nseg = f->nseg };

	memcpy(t.seg, f->seg, sizeof(t.seg));
	return unwind_table__map_base(&t, start, pgoff, base);
}

int unwind_set__proc(struct unwind_set *u, pid_t pid, struct ldlat_unwind_proc *p, struct err *err)
{
	char path[64], *line = NULL;
	struct unwind_file *f;
	struct mapsline m;
	size_t cap = 0;
	FILE *in;

	memset(p, 0, sizeof(*p));
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
		f = file_get(u, pid, &m);
		if (f && f->state == UNWIND_FILE_LOADED && file_base(f, m.lo, m.pgoff, &um->base)) {
			um->kind = LDLAT_MAP_TABLE;
			um->file = f->slot;
		}
	}
	free(line);
	fclose(in);
	return 0;
}

int unwind_set__add_process(struct unwind_set *u, pid_t pid, struct err *err)
{
	struct ldlat_unwind_proc *p = malloc(sizeof(*p));
	__u32 key = (__u32)pid;
	int e;

	if (!p)
		return err__set(err, -ENOMEM, "out of memory");
	e = unwind_set__proc(u, pid, p, err);
	if (!e && bpf_map_update_elem(u->procs_fd, &key, p, BPF_ANY))
		e = err__set(err, -errno, "process %d: cannot store its mappings: %s", (int)pid,
			     strerror(errno));
	if (e)
		u->procs_failed++;
	else
		u->procs++;
	free(p);
	return e;
}
