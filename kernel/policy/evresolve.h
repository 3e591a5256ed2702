/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * evresolve.h - events to count, as a user writes them on the command line
 * in perf's syntax (evspec.h: perf's generic hardware, cache and software
 * names, pmu/terms/, rNNN, {groups}, and vendor names through libpfm4),
 * resolved into perf_event_attrs.
 */
#ifndef LDLAT_EVRESOLVE_H
#define LDLAT_EVRESOLVE_H

#include <stddef.h>
#include <linux/perf_event.h>

#include "kernel/lib/err.h"

struct count_spec {
	char name[256]; /* canonical: perf's name, or libpfm4's event as written */
	char pfm[512];	/* libpfm4's fully qualified name, "" for other events */
	struct perf_event_attr attr;
	int user_group; /* the {group} it was written in (numbered across lists), -1: none */
};

/*
 * Appends the events of a comma-separated list to *specs.  Returns 0, or
 * -EINVAL with a sentence in err naming the event that is unknown or
 * malformed (the list is left as it was), -ENOMEM.
 */
int count_specs__parse(const char *list, struct count_spec **specs, int *n, struct err *err);

/* Appends every hardware-cache event the kernel defines (32). */
int count_specs__add_all_cache(struct count_spec **specs, int *n);

#endif
