// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mntent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>

#include "user/run/targets.h"
#include "kernel/lib/err.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

static int pid__cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return x < y ? -1 : x > y;
}

/* Sorts v and drops repeats; returns the new count. */
static int pids__sort_unique(pid_t *v, int n)
{
	int i, m = 0;

	qsort(v, n, sizeof(*v), pid__cmp);
	for (i = 0; i < n; i++)
		if (!m || v[m - 1] != v[i])
			v[m++] = v[i];
	return m;
}

int target__parse_pids(const char *list, pid_t **out, int *n, struct err *err)
{
	const char *p = list;
	pid_t *pids = NULL, *tmp;
	unsigned long v;
	char *end;

	*n = 0;
	while (*p) {
		errno = 0;
		v = isdigit((unsigned char)*p) ? strtoul(p, &end, 10) : 0;
		if (errno || !v || v > INT_MAX || (*end && *end != ',') ||
		    (*end == ',' && !end[1])) {
			err__msg(err, "-p '%s': '%.*s' is not a process ID", list,
				 (int)strcspn(p, ","), p);
			free(pids);
			return -EINVAL;
		}
		tmp = realloc(pids, (*n + 1) * sizeof(*pids));
		if (!tmp) {
			free(pids);
			return -ENOMEM;
		}
		pids = tmp;
		pids[(*n)++] = (pid_t)v;
		p = *end ? end + 1 : end;
	}
	if (!*n)
		return err__set(err, -EINVAL, "-p: empty process list");
	*n = pids__sort_unique(pids, *n);
	*out = pids;
	return 0;
}

int target_opts__check(const struct target_opts *o, struct err *err)
{
	struct cpumap map;
	pid_t *pids;
	int n, e, given = !!o->pids + !!o->cgroup + !!o->argv;

	if (given > 1) {
		err__msg(err,
			 "conflicting targets: %s%s%s name different things to watch; "
			 "give one",
			 o->pids ? "-p " : "", o->cgroup ? "-G " : "", o->argv ? "a command" : "");
		return -EINVAL;
	}
	if (o->cpus && (o->pids || o->argv)) {
		err__msg(err,
			 "-C cannot be combined with %s: task events follow the task on every CPU",
			 o->pids ? "-p" : "a command");
		return -EINVAL;
	}
	if (o->inherit && !o->pids && !o->argv)
		return err__set(err, -EINVAL, "--inherit needs -p or a command");
	if (o->cpus) {
		e = cpumap__parse(&map, o->cpus, err);
		if (e)
			return e;
		cpumap__free(&map);
	}
	if (o->pids) {
		e = target__parse_pids(o->pids, &pids, &n, err);
		if (e)
			return e;
		free(pids);
	}
	return 0;
}

const char *cgroup2__mount(void)
{
	static char path[PATH_MAX];
	struct mntent *m;
	FILE *f;

	if (path[0])
		return path;
	f = setmntent("/proc/self/mounts", "re");
	if (!f)
		return NULL;
	while ((m = getmntent(f)))
		if (!strcmp(m->mnt_type, "cgroup2")) {
			snprintf(path, sizeof(path), "%s", m->mnt_dir);
			break;
		}
	endmntent(f);
	return path[0] ? path : NULL;
}

static int cgroup__open(const char *arg, struct err *err)
{
	const char *mnt = cgroup2__mount();
	char path[PATH_MAX];
	struct statfs sfs;
	int fd;

	if (arg[0] == '/' || !mnt)
		snprintf(path, sizeof(path), "%s", arg);
	else
		snprintf(path, sizeof(path), "%s/%s", mnt, arg);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstatfs(fd, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC) {
		err__msg(err, "-G '%s' is not a cgroup v2 directory (%s%s%s)", arg,
			 fd < 0 ? strerror(errno) : "another file system",
			 mnt ? "; cgroup v2 is mounted at " : "; cgroup v2 is not mounted",
			 mnt ? mnt : "");
		if (fd >= 0)
			close(fd);
		return -EINVAL;
	}
	return fd;
}

/* The process (thread group) of a PID or TID, from /proc/ID/status; -errno if none. */
static pid_t pid__tgid(pid_t id)
{
	char path[64], line[256];
	pid_t tgid = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)id);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

/* Appends the threads of process tgid (from /proc/TGID/task) to t->tids, and tgid to t->tgids. */
static int tids__add_threads(struct target *t, pid_t tgid)
{
	char path[64];
	struct dirent *de;
	pid_t *tids, *tgids;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)tgid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		tids = realloc(t->tids, (t->ntids + 1) * sizeof(*tids));
		if (tids)
			t->tids = tids;
		tgids = tids ? realloc(t->tgids, (t->ntids + 1) * sizeof(*tgids)) : NULL;
		if (!tgids) {
			closedir(d);
			return -ENOMEM;
		}
		t->tgids = tgids;
		t->tids[t->ntids] = (pid_t)atoi(de->d_name);
		t->tgids[t->ntids++] = tgid;
	}
	closedir(d);
	return 0;
}

/*
 * Orders the threads by process, each process's leader first (the one
 * thread that lasts as long as the process), and drops a thread listed
 * twice: one event per thread, or its samples count twice.
 */
static void tids__sort_unique(struct target *t)
{
	int i, j, m = 0;
	pid_t tid, tgid;

	/* insertion sort on (tgid, not leader, tid): /proc lists them nearly sorted */
	for (i = 1; i < t->ntids; i++) {
		tid = t->tids[i];
		tgid = t->tgids[i];
		for (j = i; j > 0; j--) {
			pid_t pt = t->tids[j - 1], pg = t->tgids[j - 1];

			if (pg < tgid || (pg == tgid && (pt == pg || (tid != tgid && pt < tid))))
				break;
			t->tids[j] = pt;
			t->tgids[j] = pg;
		}
		t->tids[j] = tid;
		t->tgids[j] = tgid;
	}
	for (i = 0; i < t->ntids; i++) {
		if (m && t->tids[m - 1] == t->tids[i])
			continue;
		t->tids[m] = t->tids[i];
		t->tgids[m++] = t->tgids[i];
	}
	t->ntids = m;
}

/*
 * The -p list as processes: a TID stands for its process, as in perf, and
 * each process once.  A PID that is not there is bad input; one that
 * vanishes while this runs, a race (the system's).
 */
static int target__add_pids(struct target *t, const struct target_opts *o, pid_t **procs,
			    int *nprocs, struct err *err)
{
	pid_t *pids = NULL, tgid;
	int i, n = 0, e;

	e = target__parse_pids(o->pids, &pids, &n, err);
	for (i = 0; i < n && !e; i++) {
		if (kill(pids[i], 0) && errno == ESRCH) {
			e = err__set(err, -EINVAL, "-p %d: no such process", (int)pids[i]);

			break;
		}
		tgid = pid__tgid(pids[i]);
		if (tgid < 0) {
			err__msg(err, "process %d exited before sampling started", (int)pids[i]);
			e = err__system(err, -ESRCH);
			break;
		}
		pids[i] = tgid;
	}
	if (!e)
		n = pids__sort_unique(pids, n);
	for (i = 0; i < n && !e; i++) {
		e = tids__add_threads(t, pids[i]);
		if (e == -ENOENT) {
			err__msg(err, "process %d exited before sampling started", (int)pids[i]);
			e = err__system(err, -ESRCH);
		} else if (e) {
			err__msg(err, "-p %d: cannot list its threads: %s", (int)pids[i],
				 strerror(-e));
		}
	}
	if (e) {
		free(pids);
		return e;
	}
	tids__sort_unique(t);
	*procs = pids;
	*nprocs = n;
	return 0;
}

static int target__online(struct target *t, struct err *err)
{
	return cpumap__online(&t->cpus, err);
}

/* -C's CPUs into t->cpus, each of them online: an offline CPU cannot be opened. */
static int target__cpus(struct target *t, const struct target_opts *o, struct err *err)
{
	struct cpumap online = {};
	int i, e = cpumap__parse(&t->cpus, o->cpus, err);

	if (!e)
		e = cpumap__online(&online, err);
	for (i = 0; !e && i < t->cpus.nr; i++) {
		if (cpumap__has(&online, t->cpus.cpu[i]))
			continue;
		e = err__set(err, -EINVAL, "-C %s: CPU %d is not online", o->cpus, t->cpus.cpu[i]);
	}
	cpumap__free(&online);
	return e;
}

int target__build(struct target *t, const struct target_opts *o, pid_t cmd_pid, pid_t **procs,
		  int *nprocs, struct err *err)
{
	int e;

	memset(t, 0, sizeof(*t));
	t->cgroup_fd = -1;
	*procs = NULL;
	*nprocs = 0;
	e = target_opts__check(o, err);
	if (e)
		return e;
	t->inherit = o->inherit;
	if (cmd_pid > 0) {
		t->kind = TARGET_TASKS;
		t->inherit = true; /* like perf: the command's children count */
		t->tids = malloc(sizeof(*t->tids));
		t->tgids = malloc(sizeof(*t->tgids));
		if (!t->tids || !t->tgids) {
			target__free(t);
			return -ENOMEM;
		}
		t->tids[t->ntids] = cmd_pid;
		t->tgids[t->ntids++] = cmd_pid;
		return 0;
	}
	if (o->pids) {
		t->kind = TARGET_TASKS;
		e = target__add_pids(t, o, procs, nprocs, err);
		if (e)
			target__free(t);
		return e;
	}
	if (o->cgroup) {
		t->kind = TARGET_CGROUP;
		t->cgroup_fd = cgroup__open(o->cgroup, err);
		if (t->cgroup_fd < 0) {
			e = t->cgroup_fd;
			t->cgroup_fd = -1;
			return e;
		}
		/* with -C, as perf: the cgroup's tasks only while they run on those CPUs */
		e = o->cpus ? target__cpus(t, o, err) : target__online(t, err);
		if (e)
			target__free(t);
		return e;
	}
	if (o->cpus) {
		t->kind = TARGET_CPUS;
		e = target__cpus(t, o, err);
		if (e)
			target__free(t);
		return e;
	}
	/* system-wide: offline CPUs cannot be opened, and are skipped */
	t->kind = TARGET_SYSTEM;
	return target__online(t, err);
}

/* "42,97": the processes of a TASKS target, each once. */
static const char *target__pids(const struct target *t, char *buf, size_t len)
{
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < t->ntids && off < len; i++) {
		pid_t tgid = t->tgids ? t->tgids[i] : t->tids[i];

		if (i && tgid == (t->tgids ? t->tgids[i - 1] : t->tids[i - 1]))
			continue;
		off += snprintf(buf + off, len - off, "%s%d", off ? "," : "", (int)tgid);
	}
	return buf;
}

void target__describe(const struct target *t, const struct target_opts *o, char *buf, size_t len)
{
	char cpus[256], pids[200];

	switch (t->kind) {
	case TARGET_SYSTEM:
		snprintf(buf, len, "system-wide (%d CPUs)", t->cpus.nr);
		break;
	case TARGET_CPUS:
		cpumap__snprint(&t->cpus, cpus, sizeof(cpus));
		snprintf(buf, len, "CPUs %s", cpus);
		break;
	case TARGET_CGROUP:
		cpumap__snprint(&t->cpus, cpus, sizeof(cpus));
		snprintf(buf, len, "cgroup %s%s%s", o->cgroup, o->cpus ? " on CPUs " : "",
			 o->cpus ? cpus : "");
		break;
	case TARGET_TASKS:
		if (o->argv)
			snprintf(buf, len, "command '%s' (PID %d)", o->argv[0], (int)t->tids[0]);
		else
			snprintf(buf, len, "PID %s (%d thread%s%s)",
				 target__pids(t, pids, sizeof(pids)), t->ntids,
				 t->ntids == 1 ? "" : "s", t->inherit ? ", and its children" : "");
		break;
	}
}
