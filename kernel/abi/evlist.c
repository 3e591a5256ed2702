// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kernel/abi/caps.h"
#include "kernel/lib/err.h"
#include "kernel/abi/evlist.h"
#include "kernel/abi/sysfs.h"

int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

int evlist__add(struct evlist *evlist, struct evsel *ev)
{
	struct evsel *tmp = realloc(evlist->evsel, (evlist->nevsel + 1) * sizeof(*tmp));

	if (!tmp)
		return -ENOMEM;
	evlist->evsel = tmp;
	evlist->evsel[evlist->nevsel++] = *ev;
	ev->cpus.cpu = NULL;
	ev->cpus.nr = 0;
	return 0;
}

static int read_paranoid(void)
{
	char buf[32];

	if (file__read("/proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf)) <= 0)
		return 2;
	return atoi(buf);
}

void evsel__strerror(const struct evsel *ev, int errnum, int cpu, pid_t tid, struct err *err)
{
	const struct perf_event_attr *a = &ev->attr;
	bool ibs = !strncmp(ev->name, "ibs_", 4);
	char where[64];

	if (tid >= 0)
		snprintf(where, sizeof(where), "task %d", (int)tid);
	else
		snprintf(where, sizeof(where), "CPU %d", cpu);

	switch (errnum) {
	case EACCES:
	case EPERM:
		if (caps__perfmon()) {
			err__msg(err,
				 "cannot open %s on %s: %s, though this process holds CAP_PERFMON "
				 "or CAP_SYS_ADMIN: a security policy refused it (an LSM such as "
				 "SELinux or AppArmor, a seccomp filter, or kernel lockdown); its "
				 "log says why",
				 ev->name, where, strerror(errnum));
			break;
		}
		err__msg(err,
			 "cannot open %s on %s: %s. Run as root, or give the tool CAP_PERFMON and "
			 "CAP_BPF (kernel.perf_event_paranoid is %d; at 2 and above an "
			 "unprivileged user may only watch its own tasks in user space)",
			 ev->name, where, strerror(errnum), read_paranoid());
		break;
	case ENOENT:
		err__msg(err,
			 "cannot open %s on %s: this kernel knows no PMU of type %u with config "
			 "0x%llx (%s). The event is not for this CPU: check it with --list-events, "
			 "fix the tools.conf entry or --event, or use --source page-faults",
			 ev->name, where, a->type, (unsigned long long)a->config, strerror(errnum));
		break;
	case ENODEV:
	case EOPNOTSUPP:
		if (a->precise_ip)
			err__msg(err,
				 "cannot open %s on %s: %s. The PMU cannot sample this event at "
				 "precise level %u (precise_ip): lower it (fewer p in --event, or "
				 "'precise =' in tools.conf); a virtual machine often hides PEBS "
				 "and "
				 "IBS altogether (use --source page-faults there)",
				 ev->name, where, strerror(errnum), a->precise_ip);
		else
			err__msg(err,
				 "cannot open %s on %s: %s. The PMU cannot sample this way on this "
				 "CPU (a virtual machine often hides PEBS/IBS); use --source "
				 "page-faults",
				 ev->name, where, strerror(errnum));
		break;
	case ENODATA:
		err__msg(err,
			 "cannot open %s on %s: %s. This CPU wants the load-latency event in a "
			 "group led by mem-loads-aux (Sapphire Rapids, Emerald Rapids, Alder and "
			 "Raptor Lake P-cores): add 'leader = PMU/event=0x03,umask=0x82/' to the "
			 "tools.conf entry, or write --event '{PMU/mem-loads-aux/,PMU/mem-loads/}'",
			 ev->name, where, strerror(errnum));
		break;
	case EBUSY:
		err__msg(err,
			 "cannot open %s on %s: the counter is busy (another tool, or the NMI "
			 "watchdog: sysctl kernel.nmi_watchdog=0 frees one)",
			 ev->name, where);
		break;
	case ESRCH:
		err__msg(err, "cannot open %s on %s: no such task (it exited?)", ev->name, where);
		break;
	case EMFILE:
	case ENFILE:
		err__msg(err,
			 "cannot open %s on %s: out of file descriptors (one per CPU or thread); "
			 "raise 'ulimit -n'",
			 ev->name, where);
		break;
	case EINVAL:
		if (ibs && (a->exclude_user || a->exclude_kernel || a->exclude_hv ||
			    a->exclude_guest || a->exclude_host || a->exclude_idle))
			err__msg(
				err,
				"cannot open %s on %s: %s. AMD IBS samples every privilege level, "
				"host and guest alike: remove the u, k, h, G, H and I modifiers (u "
				"and k work with the swfilt term on Linux 6.14 and later)",
				ev->name, where, strerror(errnum));
		else if (a->precise_ip == 3)
			err__msg(
				err,
				"cannot open %s on %s: %s. Precise level 3 (ppp) keeps an event on "
				"counter 0 on Golden Cove and later cores, where the load-latency "
				"event cannot run: ask for pp",
				ev->name, where, strerror(errnum));
		else
			err__msg(
				err,
				"cannot open %s on %s: the kernel rejected its settings (%s): "
				"check "
				"the threshold (config1 0x%llx), the precise level (%u) and the "
				"sampling period or frequency with --list-events, and that the CPU "
				"is online",
				ev->name, where, strerror(errnum), (unsigned long long)a->config1,
				a->precise_ip);
		break;
	default:
		err__msg(err, "cannot open %s on %s: %s", ev->name, where, strerror(errnum));
		break;
	}
}

/* The group leader's fd on this CPU or task (evlist->group). */
static int evlist__group_fd(const struct evlist *evlist, int cpu, pid_t tid)
{
	int i;

	for (i = 0; i < evlist->nfds; i++)
		if (evlist->fds[i].evsel == 0 && evlist->fds[i].cpu == cpu &&
		    evlist->fds[i].tid == tid)
			return evlist->fds[i].fd;
	return -1;
}

/*
 * Whose fault a failed perf_event_open is: a missing privilege is the
 * user's to grant; whatever else the kernel refuses, the system's (the
 * caller knows better when the user wrote the event).
 */
static int evsel__fault(int e, struct err *err)
{
	if ((e == EACCES || e == EPERM) && !caps__perfmon())
		return err__input(err, -e);
	return err__system(err, -e);
}

static int evlist__open_one(struct evlist *evlist, int idx, pid_t pid, int cpu, unsigned long flags,
			    pid_t tid, struct err *err)
{
	struct evsel *ev = &evlist->evsel[idx];
	struct evfd *fds, *f;
	struct perf_event_attr leader;
	int lfd = -1, gfd = -1, fd, e;

	fds = realloc(evlist->fds, (evlist->nfds + 1) * sizeof(*fds));
	if (!fds)
		return -ENOMEM;
	evlist->fds = fds;
	if (evlist->group && idx > 0) {
		gfd = evlist__group_fd(evlist, cpu, tid);
		if (gfd < 0) {
			err__msg(err, "cannot open %s: its group leader %s is not open on %s %d",
				 ev->name, evlist->evsel[0].name, tid >= 0 ? "task" : "CPU",
				 tid >= 0 ? (int)tid : cpu);
			return err__system(err, -EINVAL);
		}
	}
	if (ev->has_leader) {
		leader = ev->leader;
		leader.disabled = 1;
		lfd = sys_perf_event_open(&leader, pid, cpu, -1, flags | PERF_FLAG_FD_CLOEXEC);
		if (lfd < 0) {
			struct evsel lev = { .attr = leader };

			e = errno;
			snprintf(lev.name, sizeof(lev.name), "%s (the group leader of %s)",
				 ev->leader_name, ev->name);
			evsel__strerror(&lev, e, cpu, tid, err);
			return evsel__fault(e, err);
		}
	}
	/* a group member is enabled with its leader; the leader starts disabled */
	ev->attr.disabled = ev->has_leader || gfd >= 0 ? 0 : 1;
	fd = sys_perf_event_open(&ev->attr, pid, cpu, lfd >= 0 ? lfd : gfd,
				 flags | PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		e = errno;
		evsel__strerror(ev, e, cpu, tid, err);
		if (lfd >= 0)
			close(lfd);
		return evsel__fault(e, err);
	}
	f = &evlist->fds[evlist->nfds++];
	f->fd = fd;
	f->leader_fd = lfd;
	f->evsel = idx;
	f->cpu = cpu;
	f->tid = tid;
	f->owned_elsewhere = false;
	return 0;
}

/* Opens evsel idx on thread j of a TASKS target: on any CPU, or on each of target->cpus. */
static int evlist__open_task(struct evlist *evlist, int idx, const struct target *target, int j,
			     struct err *err)
{
	pid_t tid = target->tids[j];
	int k, e = 0;

	if (!target->cpus.nr)
		return evlist__open_one(evlist, idx, tid, -1, 0, tid, err);
	for (k = 0; k < target->cpus.nr && !e; k++)
		e = evlist__open_one(evlist, idx, tid, target->cpus.cpu[k], 0, tid, err);
	return e;
}

/*
 * Whether thread tid has exited or is exiting (PF_EXITING in the flags of
 * /proc/TID/stat): the kernel refuses an event on an exiting thread with
 * ESRCH, or, for a group member whose leader it had opened a moment
 * before, ENODEV.
 */
static bool task__exiting(pid_t tid)
{
	char path[64], buf[512], *p;
	unsigned int flags;
	ssize_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return true;
	n = (ssize_t)fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n > 0 ? n : 0] = '\0';
	/* "TID (COMM) S PPID PGRP SID TTY TPGID FLAGS": COMM may hold ')' */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %u", &flags) != 1)
		return true;
	return flags & 0x4; /* PF_EXITING */
}

/*
 * Threads come and go between the listing of /proc/PID/task and the opens
 * (perf skips them too); a process none of whose threads could be opened
 * has exited.
 */
static int evlist__tasks_gone(const struct target *target, const bool *gone, struct err *err)
{
	int i, j;
	pid_t tgid;
	bool open;

	for (i = 0; i < target->ntids; i = j) {
		tgid = target->tgids ? target->tgids[i] : target->tids[i];
		open = false;
		for (j = i; j < target->ntids &&
			    (target->tgids ? target->tgids[j] : target->tids[j]) == tgid;
		     j++)
			open |= !gone[j];
		if (!open) {
			err__msg(err, "process %d exited before sampling started", (int)tgid);
			return err__system(err, -ESRCH);
		}
	}
	return 0;
}

int evlist__max_fds(const struct evlist *evlist, const struct target *target)
{
	if (target->kind == TARGET_TASKS)
		return evlist->nevsel * target->ntids * (target->cpus.nr ? target->cpus.nr : 1);
	return evlist->nevsel * target->cpus.nr;
}

int evlist__open(struct evlist *evlist, const struct target *target, struct err *err)
{
	bool *gone = NULL;
	int i, j, e = 0;
	struct evsel *ev;

	evlist->failed_evsel = -1;
	evlist->failed_errno = 0;
	if (target->kind == TARGET_TASKS) {
		gone = calloc(target->ntids ? target->ntids : 1, sizeof(*gone));
		if (!gone)
			return -ENOMEM;
	}
	for (i = 0; i < evlist->nevsel && !e; i++) {
		ev = &evlist->evsel[i];
		ev->attr.inherit = target->kind == TARGET_TASKS && target->inherit;
		switch (target->kind) {
		case TARGET_TASKS:
			for (j = 0; j < target->ntids && !e; j++) {
				if (gone[j])
					continue;
				e = evlist__open_task(evlist, i, target, j, err);
				if (e && (e == -ESRCH || task__exiting(target->tids[j]))) {
					/* a thread that exited meanwhile: no error, and no mark left */
					gone[j] = true;
					err__clear(err);
					e = 0;
				}
			}
			if (!e && i == 0)
				e = evlist__tasks_gone(target, gone, err);
			break;
		case TARGET_CGROUP:
		case TARGET_SYSTEM:
		case TARGET_CPUS:
			for (j = 0; j < target->cpus.nr && !e; j++) {
				int cpu = target->cpus.cpu[j];

				/* a hybrid PMU counts only on its own CPUs */
				if (ev->cpus.nr && !cpumap__has(&ev->cpus, cpu))
					continue;
				if (target->kind == TARGET_CGROUP)
					e = evlist__open_one(evlist, i, target->cgroup_fd, cpu,
							     PERF_FLAG_PID_CGROUP, -1, err);
				else
					e = evlist__open_one(evlist, i, -1, cpu, 0, -1, err);
			}
			break;
		}
		if (e) {
			evlist->failed_evsel = i;
			evlist->failed_errno = -e;
		}
	}
	free(gone);
	if (!e && !evlist->nfds)
		e = err__set(err, -ENODEV,
			     "no event to open: none of the target's CPUs is covered by %s",
			     evlist->nevsel ? evlist->evsel[0].name : "any event");
	if (e)
		evlist__close(evlist);
	return e;
}

static int evlist__ioctl(struct evlist *evlist, unsigned long req)
{
	int i, fd;

	for (i = 0; i < evlist->nfds; i++) {
		fd = evlist->fds[i].leader_fd >= 0 ? evlist->fds[i].leader_fd : evlist->fds[i].fd;
		if (ioctl(fd, req, 0))
			return -errno;
	}
	return 0;
}

int evlist__enable(struct evlist *evlist)
{
	return evlist__ioctl(evlist, PERF_EVENT_IOC_ENABLE);
}

int evlist__disable(struct evlist *evlist)
{
	return evlist__ioctl(evlist, PERF_EVENT_IOC_DISABLE);
}

void evlist__close(struct evlist *evlist)
{
	int i;

	for (i = 0; i < evlist->nfds; i++) {
		if (!evlist->fds[i].owned_elsewhere)
			close(evlist->fds[i].fd);
		if (evlist->fds[i].leader_fd >= 0)
			close(evlist->fds[i].leader_fd);
	}
	free(evlist->fds);
	evlist->fds = NULL;
	evlist->nfds = 0;
}

void evlist__free(struct evlist *evlist)
{
	int i;

	evlist__close(evlist);
	for (i = 0; i < evlist->nevsel; i++)
		cpumap__free(&evlist->evsel[i].cpus);
	free(evlist->evsel);
	evlist->evsel = NULL;
	evlist->nevsel = 0;
}

void target__free(struct target *target)
{
	cpumap__free(&target->cpus);
	free(target->tids);
	target->tids = NULL;
	free(target->tgids);
	target->tgids = NULL;
	target->ntids = 0;
	if (target->kind == TARGET_CGROUP && target->cgroup_fd >= 0)
		close(target->cgroup_fd);
	target->cgroup_fd = -1;
}
