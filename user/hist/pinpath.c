// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "user/hist/pinpath.h"
#include "kernel/abi/flockholder.h"

#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC 0xcafe4a11
#endif

/* As the kernel's own path walk (MAXSYMLINKS). */
#define MAX_LINKS 40

bool pinpath__on_bpffs(int fd)
{
	struct statfs sfs;

	return !fstatfs(fd, &sfs) && sfs.f_type == BPF_FS_MAGIC;
}

static void where_push(char *where, size_t len, const char *name)
{
	size_t n = strlen(where);

	snprintf(where + n, len - n, "%s%s", n > 1 ? "/" : "", name);
}

static void where_pop(char *where)
{
	char *slash = strrchr(where, '/');

	if (slash == where)
		where[1] = '\0';
	else if (slash)
		*slash = '\0';
}

/* The path of name in where, for a sentence. */
static const char *path_of(const char *where, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", where, strcmp(where, "/") ? "/" : "", name);
	return buf;
}

/*
 * A directory on bpffs: owned by the caller or root, writable by no one
 * else (on the way: unless sticky, where others may not remove or rename
 * what they do not own).  final: DIR itself, whose objects a writer could
 * remove whatever its sticky bit says of the names.
 */
static int dir_check(int fd, const char *path, bool final, const char *opt, const char *arg,
		     struct err *err)
{
	struct stat st;
	char who[64];

	if (fstat(fd, &st))
		return err__set(err, -errno, "%s '%s': %s: %s", opt, arg, path, strerror(errno));
	if (st.st_uid != geteuid() && st.st_uid != 0) {
		user__name((long)st.st_uid, who, sizeof(who));
		return err__set(
			err, -EINVAL,
			"%s '%s': %s is owned by %s, not by you or root: that user could "
			"remove or replace what is pinned there; use a directory of your own "
			"(--pin creates one, mode 0700)",
			opt, arg, path, who);
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && (final || !(st.st_mode & S_ISVTX)))
		return err__set(err, -EINVAL,
				"%s '%s': %s (mode %04o) is writable by other users, who could "
				"remove or replace what is pinned there; make it writable by its "
				"owner only (chmod go-w)",
				opt, arg, path, (unsigned int)(st.st_mode & 07777));
	return 0;
}

/* --pin: creates name in cur, 0700, and records it as made. */
static int make_one(struct pinpath *pp, int cur, const char *name, const char *opt, const char *arg,
		    struct err *err)
{
	char path[PATH_MAX + NAME_MAX + 2];
	size_t n = strlen(pp->made);

	int e;

	if (mkdirat(cur, name, 0700)) {
		e = -errno;
		if (e == -EEXIST) /* made meanwhile: the walk checks it as it finds it */
			return 0;
		err__msg(err, "%s '%s': cannot create the directory %s: %s", opt, arg,
			 path_of(pp->where, name, path, sizeof(path)), strerror(-e));
		return e == -EACCES || e == -EPERM ? err__input(err, -EPERM) : e;
	}
	if (pp->made_fd < 0) {
		pp->made_fd = fcntl(cur, F_DUPFD_CLOEXEC, 0);
		if (pp->made_fd < 0) {
			unlinkat(cur, name, AT_REMOVEDIR);
			return err__set(err, -errno, "%s '%s': %s", opt, arg, strerror(errno));
		}
	}
	snprintf(pp->made + n, sizeof(pp->made) - n, "%s%s", n ? "/" : "", name);
	return 0;
}

/* A symbolic link: refused on bpffs; elsewhere followed when the caller or root owns it. */
static int follow(struct pinpath *pp, int *cur, int fd, const struct stat *st, bool bpffs,
		  const char *name, char *rest, size_t len, char **r, const char *opt,
		  const char *arg, struct err *err)
{
	char target[PATH_MAX], path[PATH_MAX + NAME_MAX + 2], who[64], tail[2 * PATH_MAX];
	ssize_t n = readlinkat(fd, "", target, sizeof(target) - 1);

	if (n < 0)
		return err__set(err, -errno, "%s '%s': %s: %s", opt, arg,
				path_of(pp->where, name, path, sizeof(path)), strerror(errno));
	target[n] = '\0';
	path_of(pp->where, name, path, sizeof(path));
	if (bpffs)
		return err__set(err, -EINVAL,
				"%s '%s': %s is a symbolic link (to '%s') on bpffs, which "
				"ldlat-hist does not follow there: name the directory itself",
				opt, arg, path, target);
	if (st->st_uid != geteuid() && st->st_uid != 0) {
		user__name((long)st->st_uid, who, sizeof(who));
		return err__set(err, -EINVAL,
				"%s '%s': %s is a symbolic link (to '%s') owned by %s, which "
				"ldlat-hist does not follow: name the directory itself",
				opt, arg, path, target, who);
	}
	/* what is left of the path now starts with the link's target */
	snprintf(tail, sizeof(tail), "%s", *r);
	*r = rest;
	if ((size_t)snprintf(rest, len, "%s/%s", target, tail) >= len)
		return err__set(err, -ENAMETOOLONG, "%s '%s': %s", opt, arg,
				strerror(ENAMETOOLONG));
	if (target[0] == '/') {
		close(*cur);
		*cur = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		snprintf(pp->where, sizeof(pp->where), "/");
		if (*cur < 0)
			return err__set(err, -errno, "%s '%s': /: %s", opt, arg, strerror(errno));
	}
	return 0;
}

/* The next component of *r into name; false at the end. */
static bool next_name(char **r, char *name, size_t len)
{
	size_t n;

	while (**r == '/')
		(*r)++;
	n = strcspn(*r, "/");
	if (!n)
		return false;
	snprintf(name, len, "%.*s", (int)n, *r);
	*r += n;
	return true;
}

int pinpath__walk(struct pinpath *pp, const char *opt, const char *arg, const char *dir, bool make,
		  struct err *err)
{
	char rest[2 * PATH_MAX], name[NAME_MAX + 2], path[PATH_MAX + NAME_MAX + 2], *r = rest;
	int cur, fd = -1, links = 0, e = 0;
	struct stat st;
	bool bpffs;

	pp->fd = pp->made_fd = -1;
	pp->made[0] = '\0';
	pp->on_bpffs = false;
	snprintf(pp->where, sizeof(pp->where), "/");
	if ((size_t)snprintf(rest, sizeof(rest), "%s", dir) >= PATH_MAX)
		return err__set(err, -EINVAL, "%s '%s': %s", opt, arg, strerror(ENAMETOOLONG));
	cur = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cur < 0)
		return err__set(err, -errno, "%s '%s': /: %s", opt, arg, strerror(errno));
	while (next_name(&r, name, sizeof(name))) {
		bpffs = pinpath__on_bpffs(cur);
		path_of(pp->where, name, path, sizeof(path));
		if (strlen(name) > NAME_MAX) {
			e = err__set(err, -EINVAL, "%s '%s': %s: %s", opt, arg, path,
				     strerror(ENAMETOOLONG));
			goto fail;
		}
		if (!strcmp(name, "."))
			continue;
		if (!strcmp(name, "..")) {
			/* the made directories are a chain downwards: a '..' below them breaks it */
			if (pp->made[0]) {
				e = err__set(err, -EINVAL,
					     "%s '%s': '..' after a directory --pin creates: name "
					     "DIR without '..'",
					     opt, arg);
				goto fail;
			}
			fd = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (fd < 0)
				goto sys;
			where_pop(pp->where);
			goto step;
		}
		fd = openat(cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT && make && bpffs) {
			e = make_one(pp, cur, name, opt, arg, err);
			if (e)
				goto fail;
			fd = openat(cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		}
		if (fd < 0 && (errno == ENOENT || errno == EACCES || errno == EPERM)) {
			e = -errno;
			pp->on_bpffs = bpffs;
			goto fail;
		}
		if (fd < 0 || fstat(fd, &st))
			goto sys;
		if (S_ISLNK(st.st_mode)) {
			if (++links > MAX_LINKS) {
				e = err__set(err, -EINVAL, "%s '%s': %s", opt, arg,
					     strerror(ELOOP));
				goto fail;
			}
			e = follow(pp, &cur, fd, &st, bpffs, name, rest, sizeof(rest), &r, opt, arg,
				   err);
			close(fd);
			fd = -1;
			if (e)
				goto fail;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			e = err__set(err, -EINVAL, "%s '%s': %s is not a directory", opt, arg,
				     path);
			goto fail;
		}
		where_push(pp->where, sizeof(pp->where), name);
	step:
		close(cur);
		cur = fd;
		fd = -1;
		if (pinpath__on_bpffs(cur) && (e = dir_check(cur, pp->where, false, opt, arg, err)))
			goto fail;
	}
	pp->on_bpffs = pinpath__on_bpffs(cur);
	if (pp->on_bpffs && (e = dir_check(cur, pp->where, true, opt, arg, err)))
		goto fail;
	pp->fd = cur;
	return 0;
sys:
	e = err__set(err, -errno, "%s '%s': %s: %s", opt, arg, path, strerror(errno));
fail:
	if (fd >= 0)
		close(fd);
	if (cur >= 0)
		close(cur);
	pinpath__unmake(&pp->made_fd, pp->made);
	return e;
}

int pinpath__open_dir(const struct pinpath *pp)
{
	/* the directory the walk reached, not a name that may have changed since */
	int fd = openat(pp->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

void pinpath__unmake(int *made_fd, char *made)
{
	char *slash;

	/*
	 * made names directories --pin created, 0700, in a directory the walk
	 * checked: no other user can have replaced one with a link since.
	 */
	while (*made_fd >= 0 && made[0] && !unlinkat(*made_fd, made, AT_REMOVEDIR)) {
		slash = strrchr(made, '/');
		if (!slash)
			break;
		*slash = '\0';
	}
	made[0] = '\0';
	if (*made_fd >= 0)
		close(*made_fd);
	*made_fd = -1;
}

void pinpath__close(struct pinpath *pp)
{
	if (pp->fd >= 0)
		close(pp->fd);
	pp->fd = -1;
}
