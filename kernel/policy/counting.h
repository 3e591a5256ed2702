/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * counting.h - counting events (read(), not sampling) on a target, in the
 * groups a plan made: each group one evlist whose events the kernel
 * schedules together.  Events this CPU cannot count are found by opening
 * each alone first, and kept with the kernel's reason instead of being
 * dropped.  ldlat-stat counts through it; ldlat-hist --loads counts the
 * retired loads next to its sampling events with it.
 */
#ifndef LDLAT_COUNTING_H
#define LDLAT_COUNTING_H

#include <stdbool.h>
#include <stddef.h>

#include "kernel/lib/err.h"
#include "kernel/policy/counters.h"
#include "kernel/abi/counts.h"
#include "kernel/abi/evlist.h"
#include "kernel/policy/evresolve.h"
#include "kernel/policy/plan.h"

struct counting_event {
	struct count_spec spec;
	bool user_only; /* opened with :u, as perf does, when the kernel refused to count kernel space */
	bool unsupported;
	char reason[512]; /* why it cannot be counted here */
	int group;	  /* in the plan, -1 while unsupported */
	struct count total;
	struct count_series series;
};

struct counting_group {
	struct evlist evlist; /* evsel i is the group's i-th event */
	bool open;
	bool counted;	/* read at least once */
	double elapsed; /* seconds of its own run (one run per group) */
};

struct counting {
	int nev;
	struct counting_event *ev;
	struct counter_model model;
	struct plan plan;
	struct plan_input *pin;
	int *pin_ev;		       /* plan input -> event */
	struct counting_group *groups; /* plan.ngroups of them */
};

/* Takes a copy of the n specs. Returns 0 or -ENOMEM. */
int counting__init(struct counting *c, const struct count_spec *specs, int n,
		   const struct counter_model *model);

/*
 * Opens every event alone, disabled, on the first CPU or task of the target,
 * and marks those the kernel refuses as unsupported, with a sentence.  An
 * event on tasks that may not count kernel space (perf_event_paranoid 2,
 * no CAP_PERFMON) is counted in user space only, like perf, and renamed
 * NAME:u.  Returns 0, or -errno with a sentence in err when the refusal is
 * not the event's but the caller's (no privilege: -EPERM).
 */
int counting__probe(struct counting *c, const struct target *target, struct err *err);

/*
 * Plans the supported events into groups.  Returns 0, -EINVAL when a group
 * the user wrote can never be scheduled (err says which), -ENOMEM.
 */
int counting__plan(struct counting *c, struct err *err);

/* The number of supported events. */
int counting__nsupported(const struct counting *c);

/*
 * Opens group g (-1: every group) on the target, disabled.  Returns 0 or
 * -errno with a sentence in err; nothing is left open on failure.
 */
int counting__open(struct counting *c, int g, const struct target *target, struct err *err);

/* Enables, disables group g (-1: every open group). Returns 0 or -errno. */
int counting__enable(struct counting *c, int g);
int counting__disable(struct counting *c, int g);

/*
 * Reads group g (-1: every open group) into the events' totals, and adds a
 * tick to their series.  Returns 0 or -errno.
 */
int counting__read(struct counting *c, int g);

/* Closes group g (-1: every group). */
void counting__close(struct counting *c, int g);

void counting__free(struct counting *c);

/* Sorted, deduplicated names of the sysfs PMUs the counted events belong to. */
int counting__pmus(const struct counting *c, char names[][64], int max);

/* The event of this config and type, -1 when not counted. */
int counting__find(const struct counting *c, __u32 type, __u64 config);

#endif
