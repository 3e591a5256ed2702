// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "user/hist/pinset.h"
#include "user/hist/pinpath.h"
#include "kernel/abi/flockholder.h"
#include "bpf/ldlat.skel.h"
#include "kernel/lib/err.h"
#include "kernel/lib/util.h"
#include "user/run/targets.h"

#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC 0xcafe4a11
#endif

#define BPFFS_DEFAULT "/sys/fs/bpf"

/*
 * The maps of a set, meta first: it is pinned first and removed last.  The
 * last SPLIT_MAPS only in a set with --by's split: its keys and their rows.
 */
static const char *const set_maps[] = { "meta",	   "counters",	  "hists",
					"shown",   "shown_hists", "event_counts",
					"by_rows", "by_owner",	  "by_next" };
#define SPLIT_MAPS 3
#define SET_PROG   "prog"
#define SET_LINK   "link_"

enum obj_kind {
	OBJ_NONE,
	OBJ_MAP,
	OBJ_PROG,
	OBJ_LINK,
};

static bool on_bpffs(const char *path)
{
	struct statfs sfs;

	return !statfs(path, &sfs) && sfs.f_type == BPF_FS_MAGIC;
}

/* The kind of object a name of ours must be, OBJ_NONE for a name not of a set. */
static enum obj_kind set_kind(const char *name)
{
	unsigned int i;

	if (!strcmp(name, SET_PROG))
		return OBJ_PROG;
	if (!strncmp(name, SET_LINK, strlen(SET_LINK)))
		return OBJ_LINK;
	for (i = 0; i < ARRAY_SIZE(set_maps); i++)
		if (!strcmp(name, set_maps[i]))
			return OBJ_MAP;
	return OBJ_NONE;
}

/* What a BPF fd is, from its anonymous inode's name. */
static enum obj_kind obj_kind_of(int fd)
{
	char link[64], target[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return OBJ_NONE;
	target[n] = '\0';
	if (!strcmp(target, "anon_inode:bpf-map"))
		return OBJ_MAP;
	if (!strcmp(target, "anon_inode:bpf-prog"))
		return OBJ_PROG;
	if (!strcmp(target, "anon_inode:bpf-link"))
		return OBJ_LINK;
	return OBJ_NONE;
}

/* The path of name in the directory dir_fd holds (the one checked, whatever its name now). */
static void fd_path(int dir_fd, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "/proc/self/fd/%d/%s", dir_fd, name);
}

static int obj_get(int dir_fd, const char *name)
{
	char path[PATH_MAX];

	fd_path(dir_fd, name, path, sizeof(path));
	return bpf_obj_get(path);
}

/*
 * Reads the meta value of a map that may come from another layout: the
 * header (magic, layout) is the same in every layout.  0, -ENOMSG (not
 * ours), -EPROTO (another layout, in *layout) or -errno.
 */
static int meta_read(int fd, struct ldlat_pin_meta *meta, __u32 *layout)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), zero = 0;
	void *buf;
	int e = 0;

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	if (info.type != BPF_MAP_TYPE_ARRAY || info.key_size != 4 ||
	    info.value_size < offsetof(struct ldlat_pin_meta, nlinks))
		return -ENOMSG;
	buf = calloc(1, info.value_size);
	if (!buf)
		return -ENOMEM;
	if (bpf_map_lookup_elem(fd, &zero, buf)) {
		e = -errno;
		goto out;
	}
	memcpy(layout, (char *)buf + offsetof(struct ldlat_pin_meta, layout), sizeof(*layout));
	if (memcmp(buf, LDLAT_PIN_MAGIC, sizeof(LDLAT_PIN_MAGIC)))
		e = -ENOMSG;
	else if (*layout != LDLAT_PIN_LAYOUT || info.value_size != sizeof(*meta))
		e = -EPROTO;
	else
		memcpy(meta, buf, sizeof(*meta));
out:
	free(buf);
	return e;
}

/* What a directory holds. */
struct scan {
	int entries;
	bool foreign;	 /* something that is not part of a set */
	char what[300];	 /* the first such thing, for messages */
	bool meta_found; /* a meta map of ours (any layout) */
	__u32 layout;
	struct ldlat_pin_meta meta; /* when meta_found and the layout is ours */
};

static void scan__foreign(struct scan *sc, const char *name, const char *why)
{
	if (!sc->foreign)
		snprintf(sc->what, sizeof(sc->what), "'%s' (%s)", name, why);
	sc->foreign = true;
}

static int dir__scan(int dir_fd, struct scan *sc)
{
	struct dirent *de;
	enum obj_kind want;
	DIR *d;
	int fd, e, dup_fd = dup(dir_fd);

	memset(sc, 0, sizeof(*sc));
	if (dup_fd < 0)
		return -errno;
	d = fdopendir(dup_fd);
	if (!d) {
		close(dup_fd);
		return -errno;
	}
	rewinddir(d);
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		sc->entries++;
		want = set_kind(de->d_name);
		if (want == OBJ_NONE || de->d_type == DT_DIR || de->d_type == DT_LNK) {
			scan__foreign(sc, de->d_name,
				      de->d_type == DT_DIR   ? "a directory"
				      : de->d_type == DT_LNK ? "a symbolic link"
							     : "not a name ldlat pins");
			continue;
		}
		fd = obj_get(dir_fd, de->d_name);
		if (fd < 0) {
			scan__foreign(sc, de->d_name, strerror(errno));
			continue;
		}
		if (obj_kind_of(fd) != want) {
			scan__foreign(sc, de->d_name,
				      "not the kind of BPF object ldlat pins there");
		} else if (!strcmp(de->d_name, "meta")) {
			e = meta_read(fd, &sc->meta, &sc->layout);
			if (e == -ENOMSG)
				scan__foreign(sc, de->d_name, "not an ldlat set's meta map");
			else if (e && e != -EPROTO)
				scan__foreign(sc, de->d_name, strerror(-e));
			else
				sc->meta_found = true;
		}
		close(fd);
	}
	closedir(d);
	if (sc->entries && !sc->foreign && !sc->meta_found)
		scan__foreign(sc, "meta", "missing");
	return 0;
}

enum holder {
	HOLDER_NONE,  /* /proc/locks names no one (let go meanwhile) */
	HOLDER_LDLAT, /* an ldlat-hist of the caller's or root's: worth waiting for */
	HOLDER_OTHER, /* anything else: another program, or another user's */
};

/*
 * Who holds the flock on DIR, in words for a sentence.  Any user who may
 * open DIR may flock it: the holder is named by its program and its user,
 * never taken for an ldlat-hist on trust.
 */
static enum holder lock_holder(int dir_fd, char *buf, size_t len)
{
	int pid = flock__holder(dir_fd);
	struct proc_who who;
	char user[64];

	if (pid <= 0 || proc__who(pid, &who))
		return HOLDER_NONE;
	user__name(who.uid, user, sizeof(user));
	if (proc_who__is(&who, "ldlat-hist")) {
		snprintf(buf, len, "the set is in use by a running ldlat-hist (PID %d, user %s)",
			 pid, user);
		return who.uid == (long)geteuid() || who.uid == 0 ? HOLDER_LDLAT : HOLDER_OTHER;
	}
	snprintf(buf, len,
		 "the directory is locked (flock) by PID %d ('%s', %s, user %s), which is not an "
		 "ldlat-hist",
		 pid, who.comm, who.exe[0] ? who.exe : "its program unknown", user);
	return HOLDER_OTHER;
}

static void in_use(enum holder h, const char *who, const char *opt, const char *dir,
		   struct err *err)
{
	if (h == HOLDER_NONE)
		err__msg(err,
			 "%s '%s': the directory is locked (flock) by a process /proc/locks does "
			 "not name; try again",
			 opt, dir);
	else if (h == HOLDER_LDLAT)
		err__msg(err, "%s '%s': %s; stop it, or wait for its --show to end, and try again",
			 opt, dir, who);
	else
		err__msg(err,
			 "%s '%s': %s; nothing was done: stop it, or take the directory's read "
			 "permission from that user (chmod go-rx), and try again",
			 opt, dir, who);
}

/*
 * The flock on DIR.  Exclusive (--pin, --unpin): refused at once while
 * anyone holds it.  Shared (--show): waits for an ldlat-hist of the
 * caller's or root's that pins or unpins, refuses anyone else, who could
 * make it wait for ever.  0, or -EINVAL with a sentence naming the holder.
 */
static int dir_lock(int fd, int how, const char *opt, const char *dir, struct err *err)
{
	char who[PATH_MAX + 192] = "";
	enum holder h = HOLDER_NONE;
	int tries;

	/* a holder /proc/locks no longer names has just let go: try again */
	for (tries = 0; tries < 3; tries++) {
		if (!flock(fd, how | LOCK_NB))
			return 0;
		if (errno != EWOULDBLOCK)
			return err__set(err, -errno, "%s '%s': cannot lock it: %s", opt, dir,
					strerror(errno));
		h = lock_holder(fd, who, sizeof(who));
		if (h == HOLDER_LDLAT && how == LOCK_SH)
			return flock(fd, how) ? err__set(err, -errno, "%s '%s': cannot lock it: %s",
							 opt, dir, strerror(errno))
					      : 0;
		if (h != HOLDER_NONE)
			break;
	}
	in_use(h, who, opt, dir, err);
	return -EINVAL;
}

static void not_bpffs(const char *opt, const char *dir, const char *where, struct err *err)
{
	err__msg(err,
		 "%s '%s': %s is not on a BPF file system (bpffs); name a directory "
		 "under " BPFFS_DEFAULT,
		 opt, dir, where);
}

/* Whether dir is under /sys/fs/bpf and nothing is mounted there. */
static bool bpffs_missing(const char *dir)
{
	size_t n = strlen(BPFFS_DEFAULT);

	return !strncmp(dir, BPFFS_DEFAULT, n) && (!dir[n] || dir[n] == '/') &&
	       !on_bpffs(BPFFS_DEFAULT);
}

static int bpffs_mount(struct err *err)
{
	if (mount("bpf", BPFFS_DEFAULT, "bpf", 0, "mode=0700")) {
		int e = -errno;

		err__msg(err,
			 "cannot mount a BPF file system on " BPFFS_DEFAULT ": %s (mount it: mount "
			 "-t bpf bpf " BPFFS_DEFAULT ")",
			 strerror(-e));
		return e;
	}
	return 0;
}

/* Removes the directories --pin created, deepest first. */
static void pinset__unmake(struct pinset *p)
{
	pinpath__unmake(&p->made_fd, p->made);
}

/* An absolute path without trailing slashes: what the set is known by. */
static void absolute(const char *dir, char *buf, size_t len)
{
	char cwd[PATH_MAX];
	size_t n;

	if (dir[0] != '/' && getcwd(cwd, sizeof(cwd)))
		snprintf(buf, len, "%s/%s", strcmp(cwd, "/") ? cwd : "", dir);
	else
		snprintf(buf, len, "%s", dir);
	n = strlen(buf);
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = '\0';
}

static void pinset__init(struct pinset *p)
{
	memset(p, 0, sizeof(*p));
	p->dir_fd = p->meta_fd = p->counters_fd = p->hists_fd = -1;
	p->shown_fd = p->shown_hists_fd = p->prog_fd = p->shown_lock_fd = -1;
	p->by_rows_fd = p->made_fd = p->counts_fd = -1;
}

/* The bpffs this process mounted goes, once nothing is pinned in it. */
static void bpffs_unmount(struct pinset *p)
{
	DIR *d;
	struct dirent *de;
	bool empty = true;

	if (!p->mounted)
		return;
	pinset__close(p); /* DIR's fd would keep the mount busy */
	d = opendir(BPFFS_DEFAULT);
	/* every mount has bpf_preload's maps.debug and progs.debug, when it is loaded */
	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    strcmp(de->d_name, "maps.debug") && strcmp(de->d_name, "progs.debug"))
			empty = false;
	if (d)
		closedir(d);
	if (empty)
		umount2(BPFFS_DEFAULT, UMOUNT_NOFOLLOW);
	p->mounted = false;
}

/* DIR on a mounted bpffs: reached safely (pinpath.h), created, locked, and empty. */
static int pinset__ready(struct pinset *p, struct err *err)
{
	const char *dir = p->arg;
	struct pinpath pp;
	struct scan sc;
	int e;

	e = pinpath__walk(&pp, "--pin", dir, p->dir, true, err);
	if (e == -ENOENT || (!e && !pp.on_bpffs)) {
		pinpath__close(&pp);
		not_bpffs("--pin", dir, pp.where, err);
		return -EINVAL;
	}
	if (e == -EACCES || e == -EPERM)
		return err__set(err, err__input(err, -EPERM), "--pin '%s': cannot reach it: %s",
				dir, strerror(-e));
	if (e)
		return e;
	p->made_fd = pp.made_fd;
	snprintf(p->made, sizeof(p->made), "%s", pp.made);
	p->dir_fd = pinpath__open_dir(&pp);
	pinpath__close(&pp);
	if (p->dir_fd < 0) {
		e = p->dir_fd;
		err__msg(err, "--pin '%s': %s", dir, strerror(-e));
		goto fail;
	}
	e = dir_lock(p->dir_fd, LOCK_EX, "--pin", dir, err);
	if (e)
		goto fail;
	e = dir__scan(p->dir_fd, &sc);
	if (e) {
		err__msg(err, "--pin '%s': cannot list it: %s", dir, strerror(-e));
		goto fail;
	}
	if (sc.entries) {
		if (!sc.foreign)
			err__msg(err,
				 "--pin '%s' already holds a pinned set (ldlat-hist --show %s says "
				 "what it samples): unpin it with ldlat-hist --unpin %s, or pin "
				 "into another directory",
				 dir, dir, dir);
		else
			err__msg(err,
				 "--pin '%s' holds something else, %s: pin into an empty or new "
				 "directory",
				 dir, sc.what);
		e = -EINVAL;
		goto fail;
	}
	return 0;
fail:
	pinset__unmake(p);
	pinset__close(p);
	return e;
}

int pinset__prepare(struct pinset *p, const char *dir, struct err *err)
{
	pinset__init(p);
	p->arg = dir;
	absolute(dir, p->dir, sizeof(p->dir));
	/* a fresh bpffs holds nothing: DIR will do, and the mount waits for pinset__mount */
	if (bpffs_missing(p->dir)) {
		p->mount_pending = true;
		return 0;
	}
	return pinset__ready(p, err);
}

int pinset__mount(struct pinset *p, struct err *err)
{
	int e;

	if (!p->mount_pending)
		return 0;
	p->mount_pending = false;
	if (!bpffs_missing(p->dir)) /* mounted meanwhile */
		return pinset__ready(p, err);
	e = bpffs_mount(err);
	if (e)
		return e;
	p->mounted = true;
	e = pinset__ready(p, err);
	if (e)
		bpffs_unmount(p);
	return e;
}

static int pin_one(struct pinset *p, int fd, const char *name, struct err *err)
{
	char path[PATH_MAX];

	fd_path(p->dir_fd, name, path, sizeof(path));
	if (bpf_obj_pin(fd, path)) {
		int e = -errno;

		err__msg(err, "cannot pin %s/%s: %s", p->dir, name, strerror(-e));
		return e;
	}
	p->pinned = true;
	return 0;
}

/* The rows of a set's histograms: --by's keys and the others, or the one row of no split. */
static __u32 pin_rows(const struct ldlat_config *cfg)
{
	return cfg->by ? cfg->by_keys + 1 : 1;
}

/* shown_hists carries the (range, class) labels too, so that bpftool's dump reads alone. */
static int pinset__label_shown(int fd, __u32 nranges, __u32 nrows)
{
	struct ldlat_hist h = {};
	__u32 idx;

	for (idx = 0; idx < nrows * nranges * LDLAT_NCLASS; idx++) {
		h.range = idx / LDLAT_NCLASS % nranges;
		h.class = idx % LDLAT_NCLASS;
		if (bpf_map_update_elem(fd, &idx, &h, BPF_ANY))
			return -errno;
	}
	return 0;
}

static void link_name(const struct evfd *f, char *buf, size_t len)
{
	if (f->cpu >= 0)
		snprintf(buf, len, SET_LINK "cpu%d", f->cpu);
	else
		snprintf(buf, len, SET_LINK "tid%d", (int)f->tid);
	if (f->evsel > 0)
		snprintf(buf + strlen(buf), len - strlen(buf), "_%d", f->evsel);
}

int pinset__pin(struct pinset *p, struct session *s, const struct prog *prog,
		const struct evlist *evlist, struct ldlat_pin_meta *meta, struct err *err)
{
	struct ldlat_bpf *skel = s->skel;
	const struct bpf_map *maps[] = { skel->maps.meta,	 skel->maps.counters,
					 skel->maps.hists,	 skel->maps.shown,
					 skel->maps.shown_hists, skel->maps.event_counts,
					 skel->maps.by_rows,	 skel->maps.by_owner,
					 skel->maps.by_next };
	unsigned int nmaps = ARRAY_SIZE(maps) - (s->by ? 0 : SPLIT_MAPS);
	__u32 zero = 0;
	char name[64];
	unsigned int i;
	int e;

	_Static_assert(ARRAY_SIZE(maps) == ARRAY_SIZE(set_maps), "one pin name per map");
	/*
	 * Only a --detach'ed set pins its links.  A foreground set's links stay
	 * this process's alone: however it ends (SIGKILL, the OOM killer), the
	 * kernel releases them with its last fd, which detaches the program and
	 * closes the perf events; its program and maps stay pinned for readers.
	 */
	meta->nlinks = meta->detached && prog ? prog->nlinks : 0;
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.meta), &zero, meta, BPF_ANY) ||
	    bpf_map_freeze(bpf_map__fd(skel->maps.meta))) {
		e = -errno;
		err__msg(err, "cannot write the set's meta map: %s", strerror(-e));
		return e;
	}
	e = pinset__label_shown(bpf_map__fd(skel->maps.shown_hists), s->nranges, s->nrows);
	if (e) {
		err__msg(err, "cannot initialise the shown_hists map: %s", strerror(-e));
		return e;
	}
	for (i = 0; i < nmaps; i++) {
		e = pin_one(p, bpf_map__fd(maps[i]), set_maps[i], err);
		if (e)
			goto fail;
	}
	e = pin_one(p, session__prog_fd(s), SET_PROG, err);
	for (i = 0; !e && i < meta->nlinks; i++) {
		link_name(&evlist->fds[i], name, sizeof(name));
		e = pin_one(p, bpf_link__fd(prog->links[i]), name, err);
	}
	if (e)
		goto fail;
	p->meta = *meta;
	/* from here on, readers may share the set while this process samples */
	flock(p->dir_fd, LOCK_SH);
	return 0;
fail:
	pinset__remove(p);
	return e;
}

void pinset__detach(struct pinset *p, struct prog *prog, struct evlist *evlist)
{
	int i, fd;

	(void)p;
	for (i = 0; i < prog->nlinks; i++) {
		fd = bpf_link__fd(prog->links[i]);
		bpf_link__disconnect(prog->links[i]);
		bpf_link__destroy(prog->links[i]);
		close(fd);
		evlist->fds[i].owned_elsewhere = false;
	}
	free(prog->links);
	prog->links = NULL;
	prog->nlinks = 0;
}

/* Links first (they hold the perf events and the program), then the rest, meta last. */
static int dir__remove_set(int dir_fd, int *removed, int *links)
{
	struct dirent *de;
	int pass, e = 0, dup_fd;
	unsigned int i;
	DIR *d;

	*removed = 0;
	for (pass = 0; pass < 2; pass++) {
		dup_fd = dup(dir_fd);
		d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
		if (!d) {
			if (dup_fd >= 0)
				close(dup_fd);
			return -errno;
		}
		rewinddir(d);
		while ((de = readdir(d))) {
			if (set_kind(de->d_name) != (pass ? OBJ_PROG : OBJ_LINK))
				continue;
			if (unlinkat(dir_fd, de->d_name, 0))
				e = e ? e : -errno;
			else
				(*removed)++;
		}
		closedir(d);
		if (!pass)
			*links = *removed;
	}
	for (i = ARRAY_SIZE(set_maps); i-- > 0;) {
		if (unlinkat(dir_fd, set_maps[i], 0)) {
			if (errno != ENOENT)
				e = e ? e : -errno;
		} else {
			(*removed)++;
		}
	}
	return e;
}

void pinset__remove(struct pinset *p)
{
	int removed, links;

	if (p->pinned && p->dir_fd >= 0)
		dir__remove_set(p->dir_fd, &removed, &links);
	p->pinned = false;
	pinset__unmake(p);
	bpffs_unmount(p);
}

/*
 * A set the user may not read or remove: a privilege the user lacks, exit
 * status 2, with what it takes.
 */
static int no_access(const char *opt, const char *dir, int e, struct err *err)
{
	err__msg(err,
		 "%s '%s': %s: a pinned set is read and removed as root (or with CAP_BPF and "
		 "access to the directory)",
		 opt, dir, strerror(-e));
	return err__input(err, -EPERM);
}

static int open_obj(struct pinset *p, const char *name, int *fd, struct err *err)
{
	*fd = obj_get(p->dir_fd, name);
	if (*fd >= 0)
		return 0;
	if (errno == EACCES || errno == EPERM)
		return no_access("--show", p->dir, -errno, err);
	err__msg(err,
		 "--show '%s': the set has no '%s' (%s): it is incomplete; ldlat-hist --unpin %s "
		 "removes it",
		 p->dir, name, strerror(errno), p->dir);
	return -EINVAL;
}

/* The hists maps (and a split's by_rows) must be what meta says, or a read would overrun. */
static int check_hists(struct pinset *p, struct err *err)
{
	const struct ldlat_config *cfg = &p->meta.cfg;
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), n;
	int fds[] = { p->hists_fd, p->shown_hists_fd };
	unsigned int i;

	if (!cfg->nranges || cfg->nranges > LDLAT_MAX_RANGES || cfg->by > LDLAT_BY_REGION ||
	    (cfg->by && (!cfg->by_keys || cfg->by_keys > LDLAT_BY_MAX_KEYS)))
		goto bad;
	n = pin_rows(cfg) * cfg->nranges * LDLAT_NCLASS;
	for (i = 0; i < 2; i++) {
		len = sizeof(info);
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(fds[i], &info, &len) ||
		    info.value_size != sizeof(struct ldlat_hist) || info.max_entries != n)
			goto bad;
	}
	if (p->by_rows_fd < 0)
		return 0;
	len = sizeof(info);
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(p->by_rows_fd, &info, &len) || info.type != BPF_MAP_TYPE_HASH ||
	    info.key_size != sizeof(__u64) || info.value_size != sizeof(__u32) ||
	    info.max_entries != cfg->by_keys)
		goto bad;
	return 0;
bad:
	return err__set(err, -EINVAL,
			"--show '%s': the histogram maps do not match the set's meta map", p->dir);
}

/* event_counts, where the set keeps its events' counts: our values, as many as meta says. */
static int pinset__open_counts(struct pinset *p, struct err *err)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	int e;

	if (p->meta.unseen != LDLAT_PIN_UNSEEN_COUNTED)
		return 0;
	e = open_obj(p, "event_counts", &p->counts_fd, err);
	if (e)
		return e;
	if (bpf_obj_get_info_by_fd(p->counts_fd, &info, &len) || info.type != BPF_MAP_TYPE_ARRAY ||
	    info.key_size != sizeof(__u32) || info.value_size != sizeof(struct ldlat_event_count) ||
	    info.max_entries < p->meta.nevents)
		return err__set(
			err, -EINVAL,
			"--show '%s': the event_counts map does not match the set's meta map",
			p->dir);
	return 0;
}

int pinset__open(struct pinset *p, const char *dir, struct err *err)
{
	struct pinpath pp;
	struct scan sc;
	int e;

	pinset__init(p);
	absolute(dir, p->dir, sizeof(p->dir));
	e = pinpath__walk(&pp, "--show", dir, p->dir, false, err);
	if (e == -ENOENT) {
		p->absent = true;
		return err__set(err, -EINVAL, "--show '%s': no such directory", dir);
	}
	if (e == -EACCES || e == -EPERM)
		return no_access("--show", dir, e, err);
	if (e)
		return e;
	if (!pp.on_bpffs) {
		pinpath__close(&pp);
		not_bpffs("--show", dir, "it", err);
		return -EINVAL;
	}
	p->dir_fd = pinpath__open_dir(&pp);
	pinpath__close(&pp);
	if (p->dir_fd < 0) {
		e = p->dir_fd;
		if (e == -EACCES || e == -EPERM)
			e = no_access("--show", dir, e, err);
		else
			err__msg(err, "--show '%s': %s", dir, strerror(-e));
		goto fail;
	}
	e = dir_lock(p->dir_fd, LOCK_SH, "--show", dir, err);
	if (e)
		goto fail;
	e = dir__scan(p->dir_fd, &sc);
	if (e == -EACCES || e == -EPERM) {
		e = no_access("--show", dir, e, err);
		goto fail;
	}
	if (e) {
		err__msg(err, "--show '%s': cannot list it: %s", dir, strerror(-e));
		goto fail;
	}
	e = -EINVAL;
	if (!sc.entries) {
		p->absent = true;
		err__msg(err, "--show '%s' holds no pinned set (it is empty)", dir);
		goto fail;
	}
	if (sc.foreign) {
		err__msg(err, "--show '%s' is not an ldlat pinned set: it holds %s", dir, sc.what);
		goto fail;
	}
	if (sc.layout != LDLAT_PIN_LAYOUT) {
		err__msg(err,
			 "--show '%s': the set was pinned by another version of ldlat-hist (layout "
			 "%u; this one reads layout %u): show it with the ldlat-hist that pinned "
			 "it, or remove it with ldlat-hist --unpin %s",
			 dir, sc.layout, LDLAT_PIN_LAYOUT, dir);
		goto fail;
	}
	p->meta = sc.meta;
	if ((e = open_obj(p, "meta", &p->meta_fd, err)) ||
	    (e = open_obj(p, "counters", &p->counters_fd, err)) ||
	    (e = open_obj(p, "hists", &p->hists_fd, err)) ||
	    (e = open_obj(p, "shown", &p->shown_fd, err)) ||
	    (e = open_obj(p, "shown_hists", &p->shown_hists_fd, err)) ||
	    (e = open_obj(p, SET_PROG, &p->prog_fd, err)))
		goto fail;
	/* a split by pid, tid or cgroup: which key holds each row */
	if (session__by_keyed(p->meta.cfg.by) && (e = open_obj(p, "by_rows", &p->by_rows_fd, err)))
		goto fail;
	e = check_hists(p, err);
	if (!e)
		e = pinset__open_counts(p, err);
	if (e)
		goto fail;
	p->ncpus = libbpf_num_possible_cpus();
	if (p->ncpus <= 0) {
		e = p->ncpus ? p->ncpus : -EINVAL;
		err__msg(err, "cannot count the possible CPUs: %s", strerror(-e));
		goto fail;
	}
	return 0;
fail:
	pinset__close(p);
	return e;
}

/* Why a set does not know what its events produced, NULL when it does or has no events. */
static const char *unseen_why(enum ldlat_pin_unseen how)
{
	switch (how) {
	case LDLAT_PIN_UNSEEN_NO_COOKIE:
		return "this kernel has no bpf_get_attach_cookie (Linux 5.15), which tells the "
		       "program which event a sample came from";
	case LDLAT_PIN_UNSEEN_INHERIT:
		return "the events are inherited (a command, --inherit), and the program cannot "
		       "read an inherited event's count";
	default:
		return NULL;
	}
}

/*
 * What the events produced, as the program last read their counts (the
 * events' fds are not reachable from bpffs): a lower bound, seen and
 * seen_period left to fill.
 */
static int pinset__read_counts(const struct pinset *p, struct unseen *u)
{
	struct ldlat_event_count c;
	struct perf_event_attr a;
	__u32 i;

	memset(u, 0, sizeof(*u));
	u->why = unseen_why(p->meta.unseen);
	if (p->counts_fd < 0)
		return 0;
	for (i = 0; i < p->meta.nevents; i++) {
		if (bpf_map_lookup_elem(p->counts_fd, &i, &c))
			return -errno;
		if (c.error) {
			memset(u, 0, sizeof(*u));
			u->why = "the program could not read an event's count "
				 "(bpf_perf_prog_read_value failed)";
			return 0;
		}
		memset(&a, 0, sizeof(a));
		a.freq = !c.period;
		a.sample_period = c.period;
		unseen__add_count(u, &a, c.count);
	}
	u->lower_bound = true;
	return 0;
}

int pinset__read(const struct pinset *p, struct snapshot *snap)
{
	struct unseen u;
	int e;

	/* the counts first, then the maps, as a live run reads them (tool__read_maps) */
	e = pinset__read_counts(p, &u);
	if (e)
		return e;
	snap->linear_step = p->meta.cfg.linear_step;
	e = session__read_fds(p->counters_fd, p->hists_fd, p->ncpus, p->meta.cfg.nranges,
			      p->meta.cfg.fixed_period, snap);
	if (!e && p->meta.cfg.by)
		e = session__read_rows(p->by_rows_fd, p->meta.cfg.by, snap);
	u.seen = snap->counters.seen;
	u.seen_period = snap->counters.seen_period;
	snap->unseen = u;
	return e;
}

int pinset__links(const struct pinset *p)
{
	struct dirent *de;
	int n = 0, fd = dup(p->dir_fd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	rewinddir(d);
	while ((de = readdir(d)))
		if (set_kind(de->d_name) == OBJ_LINK)
			n++;
	closedir(d);
	return n;
}

int pinset__read_shown(const struct pinset *p, struct snapshot *snap)
{
	struct ldlat_pin_shown shown;
	struct ldlat_hist h;
	__u32 zero = 0, idx;

	if (bpf_map_lookup_elem(p->shown_fd, &zero, &shown))
		return -errno;
	snap->counters = shown.counters;
	/* a baseline: only what a delta subtracts */
	memset(&snap->unseen, 0, sizeof(snap->unseen));
	snap->unseen.counted = shown.unseen_counted;
	snap->unseen.seen = shown.counters.seen;
	snap->unseen.seen_period = shown.counters.seen_period;
	snap->linear_step = p->meta.cfg.linear_step;
	snap->taken = ts__from_ns(shown.taken_ns);
	for (idx = 0; idx < pin_rows(&p->meta.cfg) * p->meta.cfg.nranges * LDLAT_NCLASS; idx++) {
		struct cell *c = &snap->cells[idx];

		if (bpf_map_lookup_elem(p->shown_hists_fd, &idx, &h))
			return -errno;
		memset(c, 0, sizeof(*c));
		cell__add_hist(c, &h);
	}
	return 0;
}

int pinset__record_shown(const struct pinset *p, const struct snapshot *snap)
{
	struct ldlat_pin_shown shown = {
		.taken_ns = ts__ns(&snap->taken),
		.counters = snap->counters,
		.unseen_counted = snap->unseen.counted,
	};
	struct ldlat_hist h;
	__u32 zero = 0, idx;

	for (idx = 0; idx < pin_rows(&p->meta.cfg) * p->meta.cfg.nranges * LDLAT_NCLASS; idx++) {
		memset(&h, 0, sizeof(h));
		h.range = idx / LDLAT_NCLASS % p->meta.cfg.nranges;
		h.class = idx % LDLAT_NCLASS;
		cell__to_hist(&snap->cells[idx], &h);
		if (bpf_map_update_elem(p->shown_hists_fd, &idx, &h, BPF_ANY))
			return -errno;
	}
	return bpf_map_update_elem(p->shown_fd, &zero, &shown, BPF_ANY) ? -errno : 0;
}

int pinset__lock_shown(struct pinset *p, struct err *err)
{
	char path[PATH_MAX + 8];
	int e;

	if (p->shown_lock_fd >= 0)
		return 0;
	/* a map with BTF (bpf/ldlat_pin.h) opens as a file on bpffs */
	snprintf(path, sizeof(path), "%s/shown", p->dir);
	p->shown_lock_fd = openat(p->dir_fd, "shown", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (p->shown_lock_fd >= 0 && !flock(p->shown_lock_fd, LOCK_EX))
		return 0;
	e = -errno;
	err__msg(err, "--show '%s' --delta: cannot lock %s: %s", p->dir, path, strerror(-e));
	pinset__unlock_shown(p);
	return e;
}

void pinset__unlock_shown(struct pinset *p)
{
	if (p->shown_lock_fd >= 0)
		close(p->shown_lock_fd);
	p->shown_lock_fd = -1;
}

int pinset__unpin(const char *arg, int *removed, int *links, struct err *err)
{
	char dir[PATH_MAX];
	struct pinpath pp;
	struct scan sc;
	int fd = -1, e;

	*removed = *links = 0;
	absolute(arg, dir, sizeof(dir));
	e = pinpath__walk(&pp, "--unpin", dir, dir, false, err);
	/* no such directory: nothing pinned there, even under an unmounted /sys/fs/bpf */
	if (e == -ENOENT && (pp.on_bpffs || bpffs_missing(dir)))
		return 0;
	if (e == -ENOENT || (!e && !pp.on_bpffs)) {
		pinpath__close(&pp);
		not_bpffs("--unpin", dir, pp.where, err);
		return -EINVAL;
	}
	if (e == -EACCES || e == -EPERM)
		return no_access("--unpin", dir, e, err);
	if (e)
		return e;
	fd = pinpath__open_dir(&pp);
	pinpath__close(&pp);
	if (fd < 0) {
		e = fd;
		if (e == -EACCES || e == -EPERM)
			return no_access("--unpin", dir, e, err);
		err__msg(err, "--unpin '%s': %s", dir, strerror(-e));
		return e;
	}
	e = dir_lock(fd, LOCK_EX, "--unpin", dir, err);
	if (e)
		goto out;
	e = dir__scan(fd, &sc);
	if (e) {
		err__msg(err, "--unpin '%s': cannot list it: %s", dir, strerror(-e));
		goto out;
	}
	if (sc.foreign) {
		err__msg(
			err,
			"--unpin '%s' is not an ldlat pinned set: it holds %s; nothing was removed",
			dir, sc.what);
		e = -EINVAL;
		goto out;
	}
	e = dir__remove_set(fd, removed, links);
	if (e)
		err__msg(err, "--unpin '%s': cannot remove every object: %s", dir, strerror(-e));
out:
	close(fd);
	return e;
}

void pinset__close(struct pinset *p)
{
	int *fds[] = { &p->meta_fd,	   &p->counters_fd, &p->hists_fd,      &p->shown_fd,
		       &p->shown_hists_fd, &p->prog_fd,	    &p->shown_lock_fd, &p->dir_fd,
		       &p->by_rows_fd,	   &p->made_fd,	    &p->counts_fd };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fds); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

__u64 pinset__cgroup_id(int cgroup_fd, char *path, size_t len)
{
	char link[64];
	struct stat st;
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", cgroup_fd);
	n = readlink(link, path, len - 1);
	path[n > 0 ? n : 0] = '\0';
	return fstat(cgroup_fd, &st) ? 0 : st.st_ino;
}

/*
 * A cgroup v2 directory opened by its id (systemd's cg_cgroupid_open): the
 * kernfs file handle is the 64-bit id.  -errno: -ESTALE when no cgroup has
 * it, -EPERM without CAP_DAC_READ_SEARCH.
 */
static int cgroup__open_id(__u64 id)
{
	struct {
		struct file_handle fh;
		__u64 id; /* fh.f_handle */
	} h = { .fh = { .handle_bytes = sizeof(__u64), .handle_type = 0xfe /* FILEID_KERNFS */ },
		.id = id };
	const char *mnt = cgroup2__mount();
	int mfd, fd, e;

	_Static_assert(sizeof(struct file_handle) == 8, "f_handle right after the header");
	if (!mnt)
		return -ENOENT;
	mfd = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mfd < 0)
		return -errno;
	fd = open_by_handle_at(mfd, &h.fh, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	e = fd < 0 ? -errno : fd;
	close(mfd);
	return e;
}

bool pinset__cgroup_removed(const struct ldlat_pin_meta *meta)
{
	struct stat st;
	int fd;

	if (meta->target != LDLAT_PIN_TARGET_CGROUP)
		return false;
	fd = cgroup__open_id(meta->cgroup_id);
	if (fd >= 0) {
		close(fd);
		return false;
	}
	if (fd == -ESTALE)
		return true;
	/* not by id: the path, whole since layout 6 */
	return stat(meta->cgroup_path, &st) || (__u64)st.st_ino != meta->cgroup_id;
}
