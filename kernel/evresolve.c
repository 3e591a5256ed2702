// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evnames.h"
#include "evresolve.h"
#include "pfm.h"

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

/* One event: perf's names first, then libpfm4. */
static int count_spec__resolve(struct count_spec *s, const char *text, char *err, size_t errlen)
{
	struct pfm_encoding enc;
	char pfm_err[1024];
	int e;

	e = evname__lookup(text, &s->attr, s->name, sizeof(s->name), err, errlen);
	if (e != -ENOENT)
		return e;
	e = pfm__encode(text, &enc, pfm_err, sizeof(pfm_err));
	if (e == -ENOENT) {
		snprintf(err, errlen,
			 "unknown event '%s': not one of perf's generic, cache or software events, "
			 "and %s",
			 text, pfm_err);
		return -EINVAL;
	}
	if (e) {
		snprintf(err, errlen, "%s", pfm_err);
		return -EINVAL;
	}
	s->attr.type = enc.type;
	s->attr.config = enc.config;
	s->attr.config1 = enc.config1;
	s->attr.config2 = enc.config2;
	s->attr.exclude_user = enc.exclude_user;
	s->attr.exclude_kernel = enc.exclude_kernel;
	s->attr.exclude_hv = enc.exclude_hv;
	snprintf(s->name, sizeof(s->name), "%s", text);
	snprintf(s->pfm, sizeof(s->pfm), "%s", enc.fqname);
	return 0;
}

int count_specs__parse(const char *list, struct count_spec **specs, int *n, char *err,
		       size_t errlen)
{
	char *copy, *tok, *save = NULL;
	int n0 = *n, e = 0;

	if (!*list || strspn(list, ", ") == strlen(list)) {
		snprintf(err, errlen, "-e: empty event list");
		return -EINVAL;
	}
	if (strpbrk(list, "{}/")) {
		snprintf(err, errlen,
			 "-e '%s': groups ({a,b}) and PMU event specs (pmu/terms/) need the event-spec "
			 "parser, which this build does not have yet",
			 list);
		return -EINVAL;
	}
	copy = strdup(list);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !e; tok = strtok_r(NULL, ",", &save)) {
		e = count_specs__grow(specs, *n);
		if (!e)
			e = count_spec__resolve(&(*specs)[*n], tok, err, errlen);
		if (!e)
			(*n)++;
	}
	free(copy);
	if (e)
		*n = n0;
	return e;
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
