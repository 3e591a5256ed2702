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

#include "targets.h"
#include "../kernel/err.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

int target__parse_pids(const char *list, pid_t **out, int *n, char *err, size_t errlen)
{
	const char *p = list;
	pid_t *pids = NULL, *tmp;
	unsigned long v;
	char *end;

	*n = 0;
	while (*p) {
		errno = 0;
		v = isdigit((unsigned char)*p) ? strtoul(p, &end, 10) : 0;
		if (errno || !v || v > INT_MAX || (*end && *end != ',') || (*end == ',' && !end[1])) {
			snprintf(err, errlen, "-p '%s': '%.*s' is not a process ID", list,
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
	if (!*n) {
		snprintf(err, errlen, "-p: empty process list");
		return -EINVAL;
	}
	*out = pids;
	return 0;
}

int target_opts__check(const struct target_opts *o, char *err, size_t errlen)
{
	struct cpumap map;
	pid_t *pids;
	int n, e, given = !!o->pids + !!o->cgroup + !!o->argv;

	if (given > 1) {
		snprintf(err, errlen, "conflicting targets: %s%s%s name different things to watch; "
			 "give one",
			 o->pids ? "-p " : "", o->cgroup ? "-G " : "", o->argv ? "a command" : "");
		return -EINVAL;
	}
	if (o->cpus && (o->pids || o->argv)) {
		snprintf(err, errlen,
			 "-C cannot be combined with %s: task events follow the task on every CPU",
			 o->pids ? "-p" : "a command");
		return -EINVAL;
	}
	if (o->inherit && !o->pids && !o->argv) {
		snprintf(err, errlen, "--inherit needs -p or a command");
		return -EINVAL;
	}
	if (o->cpus) {
		e = cpumap__parse(&map, o->cpus, err, errlen);
		if (e)
			return e;
		cpumap__free(&map);
	}
	if (o->pids) {
		e = target__parse_pids(o->pids, &pids, &n, err, errlen);
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

static int cgroup__open(const char *arg, char *err, size_t errlen)
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
		snprintf(err, errlen, "-G '%s' is not a cgroup v2 directory (%s%s%s)", arg,
			 fd < 0 ? strerror(errno) : "another file system",
			 mnt ? "; cgroup v2 is mounted at " : "; cgroup v2 is not mounted",
			 mnt ? mnt : "");
		if (fd >= 0)
			close(fd);
		return -EINVAL;
	}
	return fd;
}

/* Appends the threads of pid (from /proc/PID/task) to t->tids. */
static int tids__add_threads(struct target *t, pid_t pid)
{
	char path[64];
	struct dirent *de;
	pid_t *tmp;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		tmp = realloc(t->tids, (t->ntids + 1) * sizeof(*tmp));
		if (!tmp) {
			closedir(d);
			return -ENOMEM;
		}
		t->tids = tmp;
		t->tids[t->ntids++] = (pid_t)atoi(de->d_name);
	}
	closedir(d);
	return 0;
}

static int target__online(struct target *t, char *err, size_t errlen)
{
	int e = cpumap__online(&t->cpus);

	if (e)
		snprintf(err, errlen, "cannot read the online CPUs: %s", strerror(-e));
	return e;
}

int target__build(struct target *t, const struct target_opts *o, pid_t cmd_pid, pid_t **procs,
		  int *nprocs, char *err, size_t errlen)
{
	struct cpumap online = {};
	pid_t *pids = NULL;
	int i, n = 0, e;

	memset(t, 0, sizeof(*t));
	t->cgroup_fd = -1;
	*procs = NULL;
	*nprocs = 0;
	e = target_opts__check(o, err, errlen);
	if (e)
		return e;
	t->inherit = o->inherit;
	if (cmd_pid > 0) {
		t->kind = TARGET_TASKS;
		t->inherit = true; /* like perf: the command's children count */
		t->tids = malloc(sizeof(*t->tids));
		if (!t->tids)
			return -ENOMEM;
		t->tids[t->ntids++] = cmd_pid;
		return 0;
	}
	if (o->pids) {
		t->kind = TARGET_TASKS;
		e = target__parse_pids(o->pids, &pids, &n, err, errlen);
		for (i = 0; i < n && !e; i++) {
			if (kill(pids[i], 0) && errno == ESRCH) {
				snprintf(err, errlen, "-p %d: no such process", (int)pids[i]);
				e = -EINVAL;
				break;
			}
			e = tids__add_threads(t, pids[i]);
			if (e == -ENOENT) {
				snprintf(err, errlen, "process %d exited before sampling started",
					 (int)pids[i]);
				e = err__system(-ESRCH);
			} else if (e) {
				snprintf(err, errlen, "-p %d: cannot list its threads: %s",
					 (int)pids[i], strerror(-e));
			}
		}
		if (e) {
			free(pids);
			target__free(t);
			return e;
		}
		*procs = pids;
		*nprocs = n;
		return 0;
	}
	if (o->cgroup) {
		t->kind = TARGET_CGROUP;
		t->cgroup_fd = cgroup__open(o->cgroup, err, errlen);
		if (t->cgroup_fd < 0) {
			e = t->cgroup_fd;
			t->cgroup_fd = -1;
			return e;
		}
		e = target__online(t, err, errlen);
		if (e)
			target__free(t);
		return e;
	}
	if (o->cpus) {
		t->kind = TARGET_CPUS;
		e = cpumap__parse(&t->cpus, o->cpus, err, errlen);
		if (!e)
			e = cpumap__online(&online);
		for (i = 0; !e && i < t->cpus.nr; i++) {
			if (cpumap__has(&online, t->cpus.cpu[i]))
				continue;
			snprintf(err, errlen, "-C %s: CPU %d is not online", o->cpus, t->cpus.cpu[i]);
			e = -EINVAL;
		}
		cpumap__free(&online);
		if (e)
			target__free(t);
		return e;
	}
	/* system-wide: offline CPUs cannot be opened, and are skipped */
	t->kind = TARGET_SYSTEM;
	return target__online(t, err, errlen);
}

void target__describe(const struct target *t, const struct target_opts *o, char *buf, size_t len)
{
	char cpus[256];

	switch (t->kind) {
	case TARGET_SYSTEM:
		snprintf(buf, len, "system-wide (%d CPUs)", t->cpus.nr);
		break;
	case TARGET_CPUS:
		cpumap__snprint(&t->cpus, cpus, sizeof(cpus));
		snprintf(buf, len, "CPUs %s", cpus);
		break;
	case TARGET_CGROUP:
		snprintf(buf, len, "cgroup %s", o->cgroup);
		break;
	case TARGET_TASKS:
		if (o->argv)
			snprintf(buf, len, "command '%s' (PID %d)", o->argv[0], (int)t->tids[0]);
		else
			snprintf(buf, len, "PID %s (%d thread%s%s)", o->pids, t->ntids,
				 t->ntids == 1 ? "" : "s", t->inherit ? ", and its children" : "");
		break;
	}
}
