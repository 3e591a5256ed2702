// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "user/symbols/unwindcache.h"

#define ENTRY_MAGIC   "LDLATUW"
#define ENTRY_VERSION 2 /* 2: rows carry RBX's rule (an entry of 1 is compiled again) */

/* An entry: this header, then nrows struct ldlat_unwind_row. */
struct entry_head {
	char magic[8];
	__u32 version, row_size;
	__u64 file_size; /* the ELF file's */
	__u64 base;
	__u32 nrows;
	__u32 build_id_len;
	unsigned char build_id[20];
	__u32 nseg;
	struct {
		__u64 offset, vaddr, filesz;
	} seg[UNWIND_TABLE_SEGS];
};

/* mkdir -p dir, each directory it creates 0700. */
static int dir_make(const char *dir)
{
	char *p = strdup(dir), *s;
	int e = 0;

	if (!p)
		return -ENOMEM;
	for (s = p + 1; !e; s++) {
		if (*s && *s != '/')
			continue;
		char was = *s;

		*s = '\0';
		if (mkdir(p, 0700) && errno != EEXIST)
			e = -errno;
		*s = was;
		if (!was)
			break;
	}
	free(p);
	return e;
}

int unwind_cache__open(struct unwind_cache *c, const char *dir, struct err *err)
{
	struct stat st;
	int fd, e;

	memset(c, 0, sizeof(*c));
	c->dirfd = -1;
	if (!dir)
		dir = secure_getenv("LDLAT_UNWIND_CACHE") ?: UNWIND_CACHE_DIR;
	if (!*dir)
		return 0;
	if (dir[0] != '/')
		return err__set(err, -EINVAL, "the unwind table cache %s: not an absolute path",
				dir);
	e = dir_make(dir);
	if (e)
		return err__set(err, e, "cannot create the unwind table cache %s: %s", dir,
				strerror(-e));
	/* the last component no link; the rest is the administrator's path */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return err__set(err, -errno, "cannot open the unwind table cache %s: %s", dir,
				strerror(errno));
	if (fstat(fd, &st) || st.st_uid != geteuid() || (st.st_mode & 077)) {
		close(fd);
		return err__set(err, -EPERM,
				"the unwind table cache %s is not a directory of this user's alone "
				"(mode 0700): not used",
				dir);
	}
	c->dirfd = fd;
	return 0;
}

void unwind_cache__close(struct unwind_cache *c)
{
	if (c->dirfd >= 0)
		close(c->dirfd);
	c->dirfd = -1;
}

/* The entry's name: the build ID in hex. */
static void entry_name(char name[48], const struct unwind_table *id)
{
	int i;

	for (i = 0; i < id->build_id_len; i++)
		snprintf(name + 2 * i, 3, "%02x", id->build_id[i]);
	name[2 * id->build_id_len] = '\0';
}

static int read_all(int fd, void *buf, size_t n)
{
	size_t got = 0;
	ssize_t r;

	while (got < n) {
		r = read(fd, (char *)buf + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -EIO;
		got += (size_t)r;
	}
	return 0;
}

static int write_all(int fd, const void *buf, size_t n)
{
	size_t put = 0;
	ssize_t r;

	while (put < n) {
		r = write(fd, (const char *)buf + put, n - put);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		put += (size_t)r;
	}
	return 0;
}

/* Whether rows are what the compiler writes: from 0, in order, of kinds the walker knows. */
static bool rows_valid(const struct ldlat_unwind_row *r, __u32 n)
{
	__u32 i;

	if (!n || r[0].pc)
		return false;
	for (i = 0; i < n; i++) {
		if (LDLAT_UNWIND_ROW_CFA(&r[i]) >= LDLAT_CFA_KINDS ||
		    LDLAT_UNWIND_ROW_FP(&r[i]) >= LDLAT_FP_KINDS)
			return false;
		if (i && r[i].pc <= r[i - 1].pc)
			return false;
	}
	return true;
}

/*
 * The entry for id's build ID into t: 0, -ENOENT (none), -EBADMSG (one
 * not valid for this file, or not ours: counted).
 */
static int entry_get(struct unwind_cache *c, struct unwind_table *t, const struct unwind_table *id,
		     __u64 file_size)
{
	struct entry_head h;
	char name[48];
	struct stat st;
	int fd, e = -EBADMSG;

	entry_name(name, id);
	fd = openat(c->dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ENOENT : -EBADMSG;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077) || st.st_size < (off_t)sizeof(h) || read_all(fd, &h, sizeof(h)))
		goto out;
	if (memcmp(h.magic, ENTRY_MAGIC, sizeof(ENTRY_MAGIC)) || h.version != ENTRY_VERSION ||
	    h.row_size != sizeof(*t->rows) || h.file_size != file_size || !h.nrows ||
	    h.nrows > LDLAT_UNWIND_MAX_ROWS ||
	    (__u64)st.st_size != sizeof(h) + (__u64)h.nrows * sizeof(*t->rows) ||
	    h.build_id_len != (__u32)id->build_id_len ||
	    memcmp(h.build_id, id->build_id, id->build_id_len) || h.nseg != (__u32)id->nseg ||
	    memcmp(h.seg, id->seg, sizeof(h.seg[0]) * (size_t)id->nseg))
		goto out;
	*t = *id;
	t->rows = malloc((size_t)h.nrows * sizeof(*t->rows));
	if (!t->rows) {
		e = -ENOMEM;
		goto out;
	}
	if (read_all(fd, t->rows, (size_t)h.nrows * sizeof(*t->rows)) ||
	    !rows_valid(t->rows, h.nrows)) {
		unwind_table__free(t);
		goto out;
	}
	t->nrows = h.nrows;
	t->base = h.base;
	/* its time the last use: the least recently used go first */
	futimens(fd, NULL);
	e = 0;
out:
	close(fd);
	return e;
}

/* Entries removed, least recently used first, until need more bytes fit. */
static void entries_trim(struct unwind_cache *c, __u64 need)
{
	for (;;) {
		int fd = openat(c->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
		struct dirent *de;
		char oldest[256] = "";
		struct timespec old = {};
		__u64 total = need;
		struct stat st;

		if (!d) {
			if (fd >= 0)
				close(fd);
			return;
		}
		while ((de = readdir(d))) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
			    fstatat(c->dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
			    !S_ISREG(st.st_mode))
				continue;
			total += (__u64)st.st_size;
			if (!oldest[0] || st.st_mtim.tv_sec < old.tv_sec ||
			    (st.st_mtim.tv_sec == old.tv_sec && st.st_mtim.tv_nsec < old.tv_nsec)) {
				snprintf(oldest, sizeof(oldest), "%s", de->d_name);
				old = st.st_mtim;
			}
		}
		closedir(d);
		if (total <= UNWIND_CACHE_MAX_BYTES || !oldest[0] || unlinkat(c->dirfd, oldest, 0))
			return;
	}
}

/* t kept under its build ID: written whole under a temporary name, then renamed. */
static void entry_put(struct unwind_cache *c, const struct unwind_table *t, __u64 file_size)
{
	struct entry_head h = { .magic = ENTRY_MAGIC,
				.version = ENTRY_VERSION,
				.row_size = sizeof(*t->rows),
				.file_size = file_size,
				.base = t->base,
				.nrows = t->nrows,
				.build_id_len = (__u32)t->build_id_len,
				.nseg = (__u32)t->nseg };
	__u64 bytes = sizeof(h) + (__u64)t->nrows * sizeof(*t->rows);
	char name[48], tmp[64];
	int fd, e;

	memcpy(h.build_id, t->build_id, sizeof(h.build_id));
	memcpy(h.seg, t->seg, sizeof(h.seg));
	entry_name(name, t);
	snprintf(tmp, sizeof(tmp), ".tmp.%d", (int)getpid());
	entries_trim(c, bytes);
	unlinkat(c->dirfd, tmp, 0);
	fd = openat(c->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	e = write_all(fd, &h, sizeof(h))
		    ?: write_all(fd, t->rows, (size_t)t->nrows * sizeof(*t->rows));
	if (close(fd))
		e = e ?: -errno;
	if (e || renameat(c->dirfd, tmp, c->dirfd, name)) {
		unlinkat(c->dirfd, tmp, 0);
		return;
	}
	c->stored++;
}

int unwind_cache__table_fd(struct unwind_cache *c, struct unwind_table *t, int fd, const char *name,
			   struct err *err)
{
	struct unwind_table id;
	struct stat st;
	int e;

	if (c->dirfd < 0 || fstat(fd, &st) || unwind_table__identify_fd(&id, fd, name, err) ||
	    !id.build_id_len)
		return unwind_table__compile_fd(t, fd, name, err);
	e = entry_get(c, t, &id, (__u64)st.st_size);
	if (!e) {
		c->hits++;
		return 0;
	}
	if (e == -EBADMSG)
		c->refused++;
	e = unwind_table__compile_fd(t, fd, name, err);
	/*
	 * kept only for a file no other user can change: a build ID is a
	 * note any file can carry, and another user's file kept under a
	 * system file's ID would give that file's processes its rows
	 */
	if (!e && t->nrows >= UNWIND_CACHE_MIN_ROWS && (!st.st_uid || st.st_uid == geteuid()) &&
	    !(st.st_mode & (S_IWGRP | S_IWOTH)))
		entry_put(c, t, (__u64)st.st_size);
	return e;
}
