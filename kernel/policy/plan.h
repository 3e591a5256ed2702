/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * plan.h - splitting a list of events into groups that each fit the
 * counters at once (struct counter_model), so that a run either counts a
 * group for the whole time (--per-group) or the kernel rotates whole groups
 * (--multiplex), and no group is one that can never be scheduled.
 *
 * A cache event's access and miss counts (L1-dcache-loads and
 * L1-dcache-load-misses), cache-references and cache-misses, branches and
 * branch-misses, instructions and cycles are kept in one group where they
 * fit, so their ratio is measured over the same time.  Groups the user
 * wrote ({a,b}) are kept as written, and refused when they can never fit.
 */
#ifndef LDLAT_PLAN_H
#define LDLAT_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/perf_event.h>

#include "kernel/lib/err.h"
#include "kernel/policy/counters.h"

struct plan_input {
	const char *name;
	struct perf_event_attr attr; /* type and config: what the event is */
	int user_group;		     /* the {group} it was written in, -1: none */
};

struct plan_group {
	int n;
	int *ev; /* indexes into the input */
	enum ev_kind kind;
	bool user;	 /* written by the user as {a,b} */
	int gp, offcore; /* counters it takes */
	unsigned int fixed_mask;
	char why[512]; /* why this group exists (why the events before did not take it in) */
};

struct plan {
	int ngroups;
	struct plan_group *groups;
	int *group_of; /* per input: its group */
	int n;
};

/*
 * Plans n events on model m.  Returns 0, -EINVAL when a {group} the user
 * wrote can never be scheduled on m (err names it and says why), or -ENOMEM.
 */
int plan__build(struct plan *p, const struct counter_model *m, const struct plan_input *in, int n,
		struct err *err);

void plan__free(struct plan *p);

/* "{a,b,c}" (perf's syntax) into buf. */
void plan__group_spec(const struct plan *p, int g, const struct plan_input *in, char *buf,
		      size_t len);

#endif
