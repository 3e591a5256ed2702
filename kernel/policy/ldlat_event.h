/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * ldlat_event.h - the load-latency event of this CPU, in this order:
 *
 *   1. --event SPEC, opened as written (-L sets its ldlat term);
 *   2. the tools.conf entry for this CPU (on a hybrid part, one per core
 *      type, each opened on the CPUs of its type);
 *   3. the kernel's own alias, PMU/events/mem-loads (led by
 *      PMU/events/mem-loads-aux where the kernel exports one);
 *   4. none: -ENOENT with a sentence that says why.
 *
 * Each event is checked before perf_event_open: the threshold against the
 * table's range and the format field's width, the precise level against
 * caps/max_precise.
 */
#ifndef LDLAT_LDLAT_EVENT_H
#define LDLAT_LDLAT_EVENT_H

#include <stddef.h>

#include "kernel/abi/evlist.h"
#include "kernel/lib/err.h"
#include "kernel/policy/source_types.h"

int ldlat_event__resolve(const struct source_opts *o, struct source *src, struct evlist *evlist,
			 char *notice, size_t noticelen, struct err *err);

/*
 * What a sentence of -ENOENT ends with ("... Use " or ", or use " before
 * it): the advice --source auto has followed when it falls back, and
 * leaves out of the reason it gives.
 */
#define LDLAT_EVENT_ADVICE                                                                         \
	"--source page-faults to sample page faults by address instead, or --source auto"

#endif
