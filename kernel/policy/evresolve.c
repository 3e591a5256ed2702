// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/abi/evnames.h"
#include "kernel/policy/evresolve.h"
#include "kernel/abi/evspec.h"

static int count_specs__grow(struct count_spec **specs, int n)
{
	struct count_spec *tmp = realloc(*specs, (n + 1) * sizeof(*tmp));

	if (!tmp)
		return -ENOMEM;
	*specs = tmp;
	memset(&tmp[n], 0, sizeof(tmp[n]));
	tmp[n].attr.size = sizeof(tmp[n].attr);
	tmp[n].user_group = -1;
	return 0;
}

/* The name a table shows: perf's canonical one for its own events, else as written. */
static void count_spec__name(struct count_spec *s, const struct evspec_event *e,
			     const struct evspec_attr *a)
{
	const char *mods = strchr(e->text, ':');

	if (e->kind == EVSPEC_LEGACY &&
	    evname__name(e->type, e->config, s->name, sizeof(s->name)) && mods)
		snprintf(s->name + strlen(s->name), sizeof(s->name) - strlen(s->name), "%s", mods);
	else if (e->kind != EVSPEC_LEGACY)
		snprintf(s->name, sizeof(s->name), "%s", a->name);
}

int count_specs__parse(const char *list, struct count_spec **specs, int *n, struct err *err)
{
	struct evspec spec;
	struct evspec_attr a;
	char notice[256];
	int n0 = *n, e, i, groups = 0;

	if (!*list || strspn(list, ", ") == strlen(list))
		return err__set(err, -EINVAL, "-e: empty event list");
	e = evspec__parse(&spec, list, err);
	if (e)
		return e;
	/* {group} numbers go on from the groups already in the list */
	for (i = 0; i < *n; i++)
		if ((*specs)[i].user_group >= groups)
			groups = (*specs)[i].user_group + 1;
	for (i = 0; i < spec.nevents && !e; i++) {
		e = count_specs__grow(specs, *n);
		if (e)
			break;
		e = evspec__encode(&spec.ev[i], &a, notice, sizeof(notice), err);
		if (!e) {
			struct count_spec *s = &(*specs)[*n];

			s->attr = a.attr;
			count_spec__name(s, &spec.ev[i], &a);
			snprintf(s->pfm, sizeof(s->pfm), "%s", a.pfm);
			if (evspec__group_size(&spec, i) > 1)
				s->user_group = groups + spec.ev[i].leader;
			(*n)++;
		}
		evspec_attr__free(&a);
	}
	evspec__free(&spec);
	if (e)
		*n = n0;
	return e == -ERANGE ? -EINVAL : e;
}

int count_specs__add_all_cache(struct count_spec **specs, int *n)
{
	__u64 configs[64];
	int i, e, k = evname__cache_all(configs, 64);

	for (i = 0; i < k; i++) {
		e = count_specs__grow(specs, *n);
		if (e)
			return e;
		(*specs)[*n].attr.type = PERF_TYPE_HW_CACHE;
		(*specs)[*n].attr.config = configs[i];
		evname__name(PERF_TYPE_HW_CACHE, configs[i], (*specs)[*n].name,
			     sizeof((*specs)[*n].name));
		(*n)++;
	}
	return 0;
}
