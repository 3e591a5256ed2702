// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/policy/counting.h"
#include "kernel/lib/err.h"
#include "kernel/abi/pmu.h"

int counting__init(struct counting *c, const struct count_spec *specs, int n,
		   const struct counter_model *model)
{
	int i;

	memset(c, 0, sizeof(*c));
	c->model = *model;
	c->ev = calloc(n ? n : 1, sizeof(*c->ev));
	if (!c->ev)
		return -ENOMEM;
	c->nev = n;
	for (i = 0; i < n; i++) {
		c->ev[i].spec = specs[i];
		c->ev[i].group = -1;
	}
	return 0;
}

static void counting__evsel(const struct counting_event *ev, struct evsel *out)
{
	memset(out, 0, sizeof(*out));
	out->attr = ev->spec.attr;
	out->attr.size = sizeof(out->attr);
	out->attr.read_format = COUNTS_READ_FORMAT;
	out->attr.sample_period = 0;
	out->attr.freq = 0;
	out->attr.sample_type = 0;
	snprintf(out->name, sizeof(out->name), "%s", ev->spec.name);
}

/* Why the kernel would not open ev, in a sentence for the "not supported" line. */
static void counting__reason(const struct counting *c, const struct counting_event *ev, int err,
			     char *buf, size_t len)
{
	const struct perf_event_attr *a = &ev->spec.attr;
	bool hw = a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE ||
		  a->type == PERF_TYPE_RAW;
	char pmus[512];

	if (hw && !c->model.has_pmu && (err == ENOENT || err == EOPNOTSUPP || err == ENODEV)) {
		pmu__list_snprint(pmus, sizeof(pmus));
		snprintf(buf, len,
			 "no hardware PMU on this %s (PMUs: %s): only software events can be "
			 "counted here",
			 c->model.hypervisor ? "virtual machine" : "machine", pmus);
		return;
	}
	switch (err) {
	case ENOENT:
		snprintf(
			buf, len,
			"the kernel has no encoding for it on this CPU (%s): its event table marks "
			"it absent",
			strerror(err));
		break;
	case EINVAL:
		snprintf(buf, len,
			 "the kernel refused its encoding (%s): an operation this CPU does not "
			 "define, or bits its PMU does not accept",
			 strerror(err));
		break;
	case EOPNOTSUPP:
		snprintf(buf, len, "the PMU cannot count it (%s)", strerror(err));
		break;
	case ENODEV:
		snprintf(buf, len, "no PMU of it covers the target's CPUs (%s)", strerror(err));
		break;
	case EBUSY:
		snprintf(buf, len,
			 "its counter is held by someone else (%s): another tool, or the NMI "
			 "watchdog (sysctl kernel.nmi_watchdog=0)",
			 strerror(err));
		break;
	default:
		snprintf(buf, len, "the kernel refused it: %s", strerror(err));
		break;
	}
}

/* The target cut down to its first CPU or task (shares the arrays, frees nothing). */
static struct target target__first(const struct target *t)
{
	struct target one = *t;

	if (one.kind == TARGET_TASKS)
		one.ntids = one.ntids ? 1 : 0;
	else
		one.cpus.nr = one.cpus.nr ? 1 : 0;
	return one;
}

/* Opens ev alone on the place one, and closes it. */
static int counting__probe_one(const struct counting_event *ev, const struct target *one,
			       struct err *err)
{
	struct evlist probe = {};
	struct evsel es;
	int e;

	counting__evsel(ev, &es);
	e = evlist__add(&probe, &es);
	if (!e)
		e = evlist__open(&probe, one, err);
	evlist__free(&probe);
	return e;
}

int counting__probe(struct counting *c, const struct target *target, struct err *err)
{
	struct target one = target__first(target);
	struct err why = {};
	int i, e;

	for (i = 0; i < c->nev; i++) {
		e = counting__probe_one(&c->ev[i], &one, &why);
		if ((e == -EACCES || e == -EPERM) && target->kind == TARGET_TASKS &&
		    !c->ev[i].spec.attr.exclude_kernel) {
			struct perf_event_attr was = c->ev[i].spec.attr;

			c->ev[i].spec.attr.exclude_kernel = 1;
			c->ev[i].spec.attr.exclude_hv = 1;
			e = counting__probe_one(&c->ev[i], &one, &why);
			if (e) {
				c->ev[i].spec.attr = was;
			} else {
				c->ev[i].user_only = true;
				if (!strchr(c->ev[i].spec.name, ':'))
					strncat(c->ev[i].spec.name, ":u",
						sizeof(c->ev[i].spec.name) -
							strlen(c->ev[i].spec.name) - 1);
			}
		}
		if (!e)
			continue;
		/* evlist__open said whose fault (a missing privilege, or the system) */
		if (e == -EACCES || e == -EPERM || e == -ESRCH || e == -EMFILE || e == -ENFILE ||
		    e == -ENOMEM) {
			*err = why;
			return e;
		}
		c->ev[i].unsupported = true;
		counting__reason(c, &c->ev[i], -e, c->ev[i].reason, sizeof(c->ev[i].reason));
	}
	return 0;
}

int counting__nsupported(const struct counting *c)
{
	int i, n = 0;

	for (i = 0; i < c->nev; i++)
		n += !c->ev[i].unsupported;
	return n;
}

int counting__plan(struct counting *c, struct err *err)
{
	int i, n = 0, e;

	plan__free(&c->plan);
	free(c->pin);
	free(c->pin_ev);
	c->pin = calloc(c->nev ? c->nev : 1, sizeof(*c->pin));
	c->pin_ev = calloc(c->nev ? c->nev : 1, sizeof(*c->pin_ev));
	if (!c->pin || !c->pin_ev)
		return -ENOMEM;
	for (i = 0; i < c->nev; i++) {
		c->ev[i].group = -1;
		if (c->ev[i].unsupported)
			continue;
		c->pin[n].name = c->ev[i].spec.name;
		c->pin[n].attr = c->ev[i].spec.attr;
		c->pin[n].user_group = c->ev[i].spec.user_group;
		c->pin_ev[n++] = i;
	}
	e = plan__build(&c->plan, &c->model, c->pin, n, err);
	if (e)
		return e;
	for (i = 0; i < n; i++)
		c->ev[c->pin_ev[i]].group = c->plan.group_of[i];
	free(c->groups);
	c->groups = calloc(c->plan.ngroups ? c->plan.ngroups : 1, sizeof(*c->groups));
	return c->groups ? 0 : -ENOMEM;
}

static int counting__open_one(struct counting *c, int g, const struct target *target,
			      struct err *err)
{
	struct counting_group *grp = &c->groups[g];
	const struct plan_group *pg = &c->plan.groups[g];
	struct evsel ev;
	int i, e;

	memset(&grp->evlist, 0, sizeof(grp->evlist));
	grp->evlist.group = pg->n > 1;
	for (i = 0; i < pg->n; i++) {
		counting__evsel(&c->ev[c->pin_ev[pg->ev[i]]], &ev);
		e = evlist__add(&grp->evlist, &ev);
		if (e) {
			evlist__free(&grp->evlist);
			return e;
		}
	}
	e = evlist__open(&grp->evlist, target, err);
	if (e) {
		char spec[1024];

		plan__group_spec(&c->plan, g, c->pin, spec, sizeof(spec));
		if (e == -EINVAL && pg->n > 1)
			err__msg(err,
				 "the kernel refused group %s (%s): it does not fit this CPU's "
				 "counters, so the counter model (%s) is wrong here; give "
				 "smaller groups with -e '{a,b},{c,d}'",
				 spec, strerror(EINVAL), c->model.label);
		evlist__free(&grp->evlist);
		return e;
	}
	grp->open = true;
	return 0;
}

int counting__open(struct counting *c, int g, const struct target *target, struct err *err)
{
	int i, e;

	if (g >= 0)
		return counting__open_one(c, g, target, err);
	for (i = 0; i < c->plan.ngroups; i++) {
		e = counting__open_one(c, i, target, err);
		if (e) {
			counting__close(c, -1);
			return e;
		}
	}
	return 0;
}

static int counting__each(struct counting *c, int g, int (*fn)(struct evlist *))
{
	int i, e, first = 0;

	for (i = 0; i < c->plan.ngroups; i++) {
		if ((g >= 0 && i != g) || !c->groups[i].open)
			continue;
		e = fn(&c->groups[i].evlist);
		if (e && !first)
			first = e;
	}
	return first;
}

int counting__enable(struct counting *c, int g)
{
	return counting__each(c, g, evlist__enable);
}

int counting__disable(struct counting *c, int g)
{
	return counting__each(c, g, evlist__disable);
}

int counting__read(struct counting *c, int g)
{
	struct count counts[64], *cs;
	const struct plan_group *pg;
	struct counting_event *ev;
	int i, j, e;

	for (i = 0; i < c->plan.ngroups; i++) {
		if ((g >= 0 && i != g) || !c->groups[i].open)
			continue;
		pg = &c->plan.groups[i];
		cs = pg->n <= 64 ? counts : calloc(pg->n, sizeof(*cs));
		if (!cs)
			return -ENOMEM;
		e = counts__read_evlist(&c->groups[i].evlist, cs);
		for (j = 0; !e && j < pg->n; j++) {
			ev = &c->ev[c->pin_ev[pg->ev[j]]];
			ev->total = cs[j];
			count_series__tick(&ev->series, &cs[j]);
		}
		if (cs != counts)
			free(cs);
		if (e)
			return e;
		c->groups[i].counted = true;
	}
	return 0;
}

void counting__close(struct counting *c, int g)
{
	int i;

	for (i = 0; i < c->plan.ngroups && c->groups; i++) {
		if ((g >= 0 && i != g) || !c->groups[i].open)
			continue;
		evlist__free(&c->groups[i].evlist);
		c->groups[i].open = false;
	}
}

void counting__free(struct counting *c)
{
	counting__close(c, -1);
	plan__free(&c->plan);
	free(c->groups);
	free(c->pin);
	free(c->pin_ev);
	free(c->ev);
	memset(c, 0, sizeof(*c));
}

int counting__pmus(const struct counting *c, char names[][64], int max)
{
	struct pmu pmu;
	char name[64];
	__u32 type;
	int i, j, n = 0;

	for (i = 0; i < c->nev; i++) {
		if (c->ev[i].unsupported)
			continue;
		type = c->ev[i].spec.attr.type;
		if (type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE ||
		    type == PERF_TYPE_RAW)
			snprintf(name, sizeof(name), "%s",
				 c->model.core_pmu[0] ? c->model.core_pmu : "cpu");
		else if (pmu__load_by_type(&pmu, type))
			continue;
		else {
			snprintf(name, sizeof(name), "%s", pmu.name);
			pmu__free(&pmu);
		}
		for (j = 0; j < n && strcmp(names[j], name); j++)
			;
		if (j == n && n < max)
			snprintf(names[n++], 64, "%s", name);
	}
	return n;
}

int counting__find(const struct counting *c, __u32 type, __u64 config)
{
	int i;

	for (i = 0; i < c->nev; i++)
		if (!c->ev[i].unsupported && c->ev[i].spec.attr.type == type &&
		    c->ev[i].spec.attr.config == config)
			return i;
	return -1;
}
