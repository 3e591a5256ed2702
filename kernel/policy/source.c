// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/policy/source.h"
#include "kernel/policy/ldlat_event.h"
#include "bpf/ldlat.h"
#include "kernel/lib/util.h"

const char *source__name(enum source_kind kind)
{
	switch (kind) {
	case SOURCE_LDLAT:
		return "ldlat";
	case SOURCE_PAGE_FAULTS:
		return "page-faults";
	default:
		return "auto";
	}
}

/*
 * The reason a fallback gives: the sentence of -ENOENT, which says why each
 * candidate was refused (the tools.conf entry, the kernel's alias), without
 * the advice auto has just followed.
 */
static void source__fallback_why(struct source *src, const char *msg)
{
	static const char *const advice[] = { " Use " LDLAT_EVENT_ADVICE,
					      ", or use " LDLAT_EVENT_ADVICE };
	size_t i, n = strlen(msg);
	const char *at;

	for (i = 0; i < ARRAY_SIZE(advice); i++) {
		at = strstr(msg, advice[i]);
		if (at && !at[strlen(advice[i])])
			n = (size_t)(at - msg);
	}
	snprintf(src->why, sizeof(src->why),
		 "software event page-faults, address only: --source auto fell back to it, as "
		 "there is %.*s",
		 (int)n, msg);
}

static int source__page_faults(const struct source_opts *o, struct source *src,
			       struct evlist *evlist)
{
	struct evsel ev = {};

	ev.attr.size = sizeof(ev.attr);
	ev.attr.type = PERF_TYPE_SOFTWARE;
	ev.attr.config = PERF_COUNT_SW_PAGE_FAULTS;
	ev.attr.sample_type = PERF_SAMPLE_ADDR | (o->sample_ip ? PERF_SAMPLE_IP : 0);
	if (o->freq) {
		ev.attr.freq = 1;
		ev.attr.sample_freq = o->freq;
		snprintf(ev.name, sizeof(ev.name), "page-faults (%llu Hz)",
			 (unsigned long long)ev.attr.sample_freq);
	} else {
		ev.attr.sample_period = o->period ? o->period : o->table->page_faults_period;
		snprintf(ev.name, sizeof(ev.name), "page-faults (period %llu)",
			 (unsigned long long)ev.attr.sample_period);
	}
	src->kind = SOURCE_PAGE_FAULTS;
	src->fields = LDLAT_HAS_ADDR;
	src->weight_struct = false;
	src->nevents = 0;
	snprintf(src->why, sizeof(src->why), "software event page-faults, address only");
	return evlist__add(evlist, &ev);
}

int source__resolve(const struct source_opts *opts, struct source *src, struct evlist *evlist,
		    char *notice, size_t noticelen, struct err *err)
{
	char why[1024];
	int e;

	memset(src, 0, sizeof(*src));
	if (noticelen)
		notice[0] = '\0';
	if (!opts->table)
		return err__set(err, -EINVAL,
				"no tools.conf: the event table and defaults are missing");
	e = cpu_id__read(&src->cpu, err);
	if (e)
		return e;
	if (opts->kind == SOURCE_PAGE_FAULTS)
		return source__page_faults(opts, src, evlist);
	e = ldlat_event__resolve(opts, src, evlist, notice, noticelen, err);
	if (e == -ENOENT && opts->kind == SOURCE_AUTO) {
		/* one line: what it samples and why; --list-events gives the whole reason */
		snprintf(why, sizeof(why), "%s", err->msg);
		if (strchr(why, ':'))
			*strchr(why, ':') = '\0';
		if (strstr(why, ". "))
			*strstr(why, ". ") = '\0';
		notice__add(
			notice, noticelen,
			"%s%s; sampling page faults instead (addresses only, no latency or data "
			"source; --list-events says why)",
			why,
			strstr(err->msg, "virtual machine") ? " (a virtual machine: hypervisors "
							      "rarely pass PEBS or IBS through)"
							    : "");
		/* a hybrid part's first core type may have been added before the second failed */
		evlist__free(evlist);
		src->nevents = 0;
		e = source__page_faults(opts, src, evlist);
		source__fallback_why(src, err->msg);
		return e;
	}
	return e;
}

void source__free(struct source *src)
{
	cpu_id__free(&src->cpu);
}
