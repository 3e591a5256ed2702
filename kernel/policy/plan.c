// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/abi/evnames.h"
#include "kernel/policy/plan.h"

/* What a group has taken so far. */
struct usage {
	int gp, offcore;
	unsigned int fixed_mask;
};

enum misfit {
	FITS,
	NO_GP,	    /* every general-purpose counter is taken */
	NO_OFFCORE, /* every offcore-response register is taken */
	NO_FIXED,   /* the only counter it can use (a fixed one) is taken */
	NMISFIT,
};

static enum misfit usage__add(struct usage *u, const struct ev_needs *n,
			      const struct counter_model *m)
{
	if (n->kind != EV_CORE)
		return FITS;
	if (n->offcore && u->offcore + 1 > m->offcore)
		return NO_OFFCORE;
	if (n->fixed >= 0 && !(u->fixed_mask & (1u << n->fixed))) {
		u->fixed_mask |= 1u << n->fixed;
		u->offcore += n->offcore;
		return FITS;
	}
	if (n->fixed_only)
		return NO_FIXED;
	if (u->gp + 1 > m->gp)
		return NO_GP;
	u->gp++;
	u->offcore += n->offcore;
	return FITS;
}

/* Events whose ratio is worth measuring over the same time share a key; -1: none. */
static int pair_key(const struct perf_event_attr *a)
{
	if (a->type == PERF_TYPE_HW_CACHE)
		return 0x10000 + (int)(a->config & 0xffff); /* cache and op: access with miss */
	if (a->type != PERF_TYPE_HARDWARE)
		return -1;
	switch (a->config) {
	case PERF_COUNT_HW_CACHE_REFERENCES:
	case PERF_COUNT_HW_CACHE_MISSES:
		return 1;
	case PERF_COUNT_HW_BRANCH_INSTRUCTIONS:
	case PERF_COUNT_HW_BRANCH_MISSES:
		return 2;
	case PERF_COUNT_HW_INSTRUCTIONS:
	case PERF_COUNT_HW_CPU_CYCLES:
		return 3;
	}
	return -1;
}

struct planner {
	struct plan *p;
	const struct counter_model *m;
	const struct plan_input *in;
	struct ev_needs *needs;
	struct usage *use; /* per group */
	int cap;
};

static int planner__new_group(struct planner *pl, enum ev_kind kind, bool user)
{
	struct plan *p = pl->p;
	struct plan_group *g;

	if (p->ngroups == pl->cap) {
		int cap = pl->cap ? pl->cap * 2 : 8;
		void *tmp = realloc(p->groups, cap * sizeof(*p->groups));

		if (!tmp)
			return -ENOMEM;
		p->groups = tmp;
		tmp = realloc(pl->use, cap * sizeof(*pl->use));
		if (!tmp)
			return -ENOMEM;
		pl->use = tmp;
		pl->cap = cap;
	}
	g = &p->groups[p->ngroups];
	memset(g, 0, sizeof(*g));
	g->kind = kind;
	g->user = user;
	memset(&pl->use[p->ngroups], 0, sizeof(pl->use[0]));
	return p->ngroups++;
}

static int planner__put(struct planner *pl, int gi, int ev)
{
	struct plan_group *g = &pl->p->groups[gi];
	int *tmp = realloc(g->ev, (g->n + 1) * sizeof(*tmp));

	if (!tmp)
		return -ENOMEM;
	g->ev = tmp;
	g->ev[g->n++] = ev;
	pl->p->group_of[ev] = gi;
	g->gp = pl->use[gi].gp;
	g->offcore = pl->use[gi].offcore;
	g->fixed_mask = pl->use[gi].fixed_mask;
	return 0;
}

/* Whether the unit (one or two events) fits group gi; the usage is updated only when it does. */
static enum misfit planner__try(struct planner *pl, int gi, const int *unit, int nunit)
{
	struct usage u = gi >= 0 ? pl->use[gi] : (struct usage){};
	enum misfit f;
	int i;

	for (i = 0; i < nunit; i++) {
		f = usage__add(&u, &pl->needs[unit[i]], pl->m);
		if (f != FITS)
			return f;
	}
	if (gi >= 0)
		pl->use[gi] = u;
	return FITS;
}

static const char *misfit_text(const struct counter_model *m, enum misfit f, char *buf, size_t len)
{
	switch (f) {
	case NO_GP:
		snprintf(buf, len, "all %d general-purpose counters taken", m->gp);
		break;
	case NO_OFFCORE:
		snprintf(buf, len, "%d of %d offcore-response registers taken", m->offcore,
			 m->offcore);
		break;
	case NO_FIXED:
		snprintf(buf, len, "its fixed counter taken");
		break;
	default:
		snprintf(buf, len, "fits");
		break;
	}
	return buf;
}

static void unit_names(const struct planner *pl, const int *unit, int nunit, char *buf, size_t len)
{
	if (nunit == 2)
		snprintf(buf, len, "%s and %s", pl->in[unit[0]].name, pl->in[unit[1]].name);
	else
		snprintf(buf, len, "%s", pl->in[unit[0]].name);
}

/* A {group} the user wrote: kept as written, or refused when it can never be scheduled. */
static int planner__user_group(struct planner *pl, int first, bool *done, struct err *err)
{
	const struct counter_model *m = pl->m;
	int gi, i, e, noff = 0, ngp = 0, members = 0;
	struct usage u = {};
	enum misfit f = FITS;
	char names[1024] = "";
	size_t off = 0;

	gi = planner__new_group(pl, EV_CORE, true);
	if (gi < 0)
		return gi;
	for (i = first; i < pl->p->n; i++) {
		if (pl->in[i].user_group != pl->in[first].user_group)
			continue;
		done[i] = true;
		members++;
		off += snprintf(names + off, off < sizeof(names) ? sizeof(names) - off : 0, "%s%s",
				off ? "," : "", pl->in[i].name);
		noff += pl->needs[i].kind == EV_CORE && pl->needs[i].offcore;
		if (pl->needs[i].kind == EV_CORE)
			ngp++;
		if (f == FITS)
			f = usage__add(&u, &pl->needs[i], m);
		e = planner__put(pl, gi, i);
		if (e)
			return e;
	}
	pl->use[gi] = u;
	pl->p->groups[gi].gp = u.gp;
	pl->p->groups[gi].offcore = u.offcore;
	pl->p->groups[gi].fixed_mask = u.fixed_mask;
	if (f != FITS && m->has_pmu) {
		if (f == NO_OFFCORE)
			err__msg(err,
				 "group {%s} can never be scheduled: %d of its events need an "
				 "offcore-response register (LLC and node cache events, "
				 "OFFCORE_RESPONSE/OCR events) and %s has %d. Split it into groups "
				 "of "
				 "at most %d such events",
				 names, noff, m->label, m->offcore, m->offcore);
		else if (f == NO_GP)
			err__msg(err,
				 "group {%s} can never be scheduled: its %d hardware events need "
				 "more "
				 "than the %d general-purpose counters %s gives a group%s. Split "
				 "it, "
				 "or leave the braces out and let ldlat-stat plan the groups",
				 names, ngp, m->gp, m->label,
				 m->watchdog ? " beside the NMI watchdog" : "");
		else
			err__msg(err,
				 "group {%s} can never be scheduled: two of its events can only "
				 "use the "
				 "same fixed counter. Put them in different groups",
				 names);
		return -EINVAL;
	}
	snprintf(pl->p->groups[gi].why, sizeof(pl->p->groups[gi].why), "as written (%d event%s)",
		 members, members == 1 ? "" : "s");
	return 0;
}

/* The partner of event i (same pair key, not yet placed, not in a user group), or -1. */
static int planner__partner(const struct planner *pl, int i, const bool *done)
{
	int k = pair_key(&pl->in[i].attr), j;

	if (k < 0)
		return -1;
	for (j = i + 1; j < pl->p->n; j++)
		if (!done[j] && pl->in[j].user_group < 0 && pl->needs[j].kind == EV_CORE &&
		    pair_key(&pl->in[j].attr) == k &&
		    pl->in[j].attr.config != pl->in[i].attr.config)
			return j;
	return -1;
}

static int planner__core_unit(struct planner *pl, const int *unit, int nunit)
{
	const struct counter_model *m = pl->m;
	int counts[NMISFIT] = { 0 }, tried = 0, gi, i, e;
	char names[600], a[96], b[96], c[96];
	enum misfit f;
	struct plan_group *g;

	for (gi = 0; gi < pl->p->ngroups; gi++) {
		if (pl->p->groups[gi].user || pl->p->groups[gi].kind != EV_CORE)
			continue;
		f = planner__try(pl, gi, unit, nunit);
		if (f == FITS)
			goto put;
		counts[f]++;
		tried++;
	}
	if (planner__try(pl, -1, unit, nunit) != FITS) {
		if (nunit == 2)
			return 1; /* the pair cannot share a group: place them one by one */
		gi = planner__new_group(pl, EV_CORE, false);
		if (gi < 0)
			return gi;
		g = &pl->p->groups[gi];
		f = planner__try(pl, -1, unit, 1);
		snprintf(g->why, sizeof(g->why),
			 "alone: %s fits no group on %s (%s); the kernel decides whether it opens",
			 pl->in[unit[0]].name, m->label, misfit_text(m, f, a, sizeof(a)));
		return planner__put(pl, gi, unit[0]);
	}
	gi = planner__new_group(pl, EV_CORE, false);
	if (gi < 0)
		return gi;
	planner__try(pl, gi, unit, nunit);
	g = &pl->p->groups[gi];
	unit_names(pl, unit, nunit, names, sizeof(names));
	if (!tried) {
		snprintf(g->why, sizeof(g->why), "first group of hardware events");
	} else {
		a[0] = b[0] = c[0] = '\0';
		struct usage alone = {};

		for (i = 0; i < nunit; i++)
			usage__add(&alone, &pl->needs[unit[i]], m);
		if (counts[NO_GP] && alone.gp <= 1)
			snprintf(a, sizeof(a), "%d with all %d general-purpose counters taken",
				 counts[NO_GP], m->gp);
		else if (counts[NO_GP])
			snprintf(a, sizeof(a),
				 "%d with fewer than %d of %d general-purpose counters free",
				 counts[NO_GP], alone.gp, m->gp);
		if (counts[NO_OFFCORE])
			snprintf(b, sizeof(b), "%s%d with all %d offcore-response registers taken",
				 a[0] ? "; " : "", counts[NO_OFFCORE], m->offcore);
		if (counts[NO_FIXED])
			snprintf(c, sizeof(c), "%s%d with its fixed counter taken",
				 a[0] || b[0] ? "; " : "", counts[NO_FIXED]);
		snprintf(g->why, sizeof(g->why), "%s fit%s no earlier group (%s%s%s)", names,
			 nunit == 2 ? "" : "s", a, b, c);
	}
put:
	for (i = 0; i < nunit; i++) {
		e = planner__put(pl, gi, unit[i]);
		if (e)
			return e;
	}
	return 0;
}

/* Puts event i into group *gi, created with why when *gi < 0. */
static int planner__join(struct planner *pl, int *gi, enum ev_kind kind, int i, const char *why)
{
	if (*gi < 0) {
		*gi = planner__new_group(pl, kind, false);
		if (*gi < 0)
			return *gi;
		snprintf(pl->p->groups[*gi].why, sizeof(pl->p->groups[*gi].why), "%s", why);
	}
	return planner__put(pl, *gi, i);
}

/* Places event i, with its partner when they fit one group. */
static int planner__place(struct planner *pl, int i, bool *placed)
{
	int unit[2] = { i, planner__partner(pl, i, placed) }, e;

	placed[i] = true;
	if (unit[1] >= 0) {
		e = planner__core_unit(pl, unit, 2);
		if (e != 1) {
			placed[unit[1]] = true;
			return e;
		}
		/* the pair does not fit one group: each on its own */
	}
	return planner__core_unit(pl, unit, 1);
}

int plan__build(struct plan *p, const struct counter_model *m, const struct plan_input *in, int n,
		struct err *err)
{
	struct planner pl = { .p = p, .m = m, .in = in };
	int i, k, e = 0, sw = -1, nopmu = -1, gi, ncore = 0, pass;
	char why[256];
	bool *done = NULL, *placed = NULL;
	int *core = NULL;

	memset(p, 0, sizeof(*p));
	p->n = n;
	p->group_of = calloc(n ? n : 1, sizeof(*p->group_of));
	pl.needs = calloc(n ? n : 1, sizeof(*pl.needs));
	done = calloc(n ? n : 1, sizeof(*done));
	placed = calloc(n ? n : 1, sizeof(*placed));
	core = calloc(n ? n : 1, sizeof(*core));
	if (!p->group_of || !pl.needs || !done || !placed || !core) {
		e = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++)
		counter_model__needs(m, &in[i].attr, &pl.needs[i]);

	for (i = 0; i < n && !e; i++) {
		if (done[i])
			continue;
		if (in[i].user_group >= 0) {
			e = planner__user_group(&pl, i, done, err);
			continue;
		}
		done[i] = true;
		switch (pl.needs[i].kind) {
		case EV_SOFTWARE:
			e = planner__join(
				&pl, &sw, EV_SOFTWARE, i,
				"software events take no counter: they count all the time");
			break;
		case EV_OTHER:
			snprintf(why, sizeof(why),
				 "alone: PMU type %u is not the core PMU, and its counters are not "
				 "modelled",
				 in[i].attr.type);
			gi = -1;
			e = planner__join(&pl, &gi, EV_OTHER, i, why);
			break;
		case EV_CORE:
			if (m->has_pmu)
				core[ncore++] = i;
			else
				e = planner__join(
					&pl, &nopmu, EV_CORE, i,
					"not planned: there is no hardware PMU here, so no "
					"hardware event will open");
			break;
		}
	}
	/*
	 * Hardware events, first fit, the ones that need an offcore register
	 * first: they are what limits the number of groups.
	 */
	for (pass = 0; pass < 2 && !e; pass++) {
		for (k = 0; k < ncore && !e; k++) {
			i = core[k];
			if (placed[i] || pl.needs[i].offcore != (pass == 0))
				continue;
			e = planner__place(&pl, i, placed);
		}
	}
	/* an offcore event's partner that needs none was left for the second pass */
	for (k = 0; k < ncore && !e; k++)
		if (!placed[core[k]])
			e = planner__place(&pl, core[k], placed);
out:
	free(pl.needs);
	free(pl.use);
	free(done);
	free(placed);
	free(core);
	if (e)
		plan__free(p);
	return e;
}

void plan__free(struct plan *p)
{
	int i;

	for (i = 0; i < p->ngroups; i++)
		free(p->groups[i].ev);
	free(p->groups);
	free(p->group_of);
	memset(p, 0, sizeof(*p));
}

void plan__group_spec(const struct plan *p, int g, const struct plan_input *in, char *buf,
		      size_t len)
{
	const struct plan_group *grp = &p->groups[g];
	size_t off = 0;
	int i;

	off += snprintf(buf, len, "{");
	for (i = 0; i < grp->n && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? "," : "", in[grp->ev[i]].name);
	if (off < len)
		snprintf(buf + off, len - off, "}");
}
