/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * evlist.h - perf events to open, where to open them, and the fds once open.
 *
 * An evsel is one event (a perf_event_attr and the CPUs its PMU covers); a
 * target says where to count (system-wide, some CPUs, some tasks, a cgroup);
 * an evlist opens every evsel on every place of the target.
 */
#ifndef LDLAT_EVLIST_H
#define LDLAT_EVLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include "kernel/abi/cpumap.h"
#include "kernel/lib/err.h"

struct evsel {
	struct perf_event_attr attr;
	char name[256];	    /* as a user would write it: "cpu/mem-loads,ldlat=30/P" */
	struct cpumap cpus; /* the PMU's CPUs (hybrid parts); nr 0: any */
	bool has_leader;    /* open 'leader' first and this event in its group */
	struct perf_event_attr leader;
	char leader_name[128];
};

enum target_kind {
	TARGET_SYSTEM, /* every online CPU */
	TARGET_CPUS,   /* the CPUs in 'cpus' */
	TARGET_TASKS,  /* the threads in 'tids', on any CPU */
	TARGET_CGROUP, /* the cgroup v2 directory 'cgroup_fd', on every online CPU */
};

struct target {
	enum target_kind kind;
	/*
	 * SYSTEM, CGROUP: online CPUs; CPUS: the list; TASKS: empty (any CPU),
	 * or an event per task and CPU (inherited task events can only be
	 * mmap'd per CPU)
	 */
	struct cpumap cpus;
	int ntids;
	pid_t *tids;
	pid_t *tgids; /* TASKS: each thread's process, its threads adjacent (NULL: each its own) */
	int cgroup_fd;
	bool inherit; /* TASKS: children and threads created later count too */
};

struct evfd {
	int fd;
	int leader_fd; /* -1 when the event has no group leader */
	int evsel;
	int cpu;	      /* -1 for a task event */
	pid_t tid;	      /* -1 for a CPU or cgroup event */
	bool owned_elsewhere; /* a BPF link closes fd, not the evlist */
};

struct evlist {
	int nevsel;
	struct evsel *evsel;
	int nfds;
	struct evfd *fds;
	bool group;	  /* all evsels are one group on each CPU or task, led by evsel 0 */
	int failed_evsel; /* after a failed evlist__open: the evsel that failed, and why */
	int failed_errno;
};

/* Appends a copy of ev (its cpumap is moved). Returns 0 or -ENOMEM. */
int evlist__add(struct evlist *evlist, struct evsel *ev);

/*
 * Opens every evsel on every place of the target, disabled.  A thread that
 * has exited since the target listed it is skipped (ESRCH), as long as each
 * process keeps one thread open.  On failure closes what it opened and
 * returns -errno with a sentence in err that says what to change
 * (failed_evsel and failed_errno say which event and why); whose fault it is
 * (kernel/lib/err.h): the user's for a missing privilege, the system's for
 * everything else the kernel refused.
 */
int evlist__open(struct evlist *evlist, const struct target *target, struct err *err);

/* The most fds evlist__open opens for target: an event on every place of it. */
int evlist__max_fds(const struct evlist *evlist, const struct target *target);

/* PERF_EVENT_IOC_ENABLE / DISABLE on every fd. Returns 0 or -errno. */
int evlist__enable(struct evlist *evlist);
int evlist__disable(struct evlist *evlist);

/* Closes the fds the evlist owns. */
void evlist__close(struct evlist *evlist);

/* Closes and frees everything. */
void evlist__free(struct evlist *evlist);

/*
 * Explains a failed perf_event_open: which event, where, and what to change
 * (privilege, perf_event_paranoid, an event this CPU lacks, a busy counter).
 */
void evsel__strerror(const struct evsel *ev, int errnum, int cpu, pid_t tid, struct err *err);

void target__free(struct target *target);

/* perf_event_open(2); there is no glibc wrapper. */
int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			unsigned long flags);

#endif
