/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * loads.h - every retired load counted next to the load-latency sampling
 * (--loads), so that a sampling tool can say what share of all loads were
 * at or above the threshold: samples x period / loads.  The counter is a
 * counting event (kernel/policy/counting.h) on the same target as the sampling
 * events, enabled before the command runs and read when sampling stops.
 */
#ifndef LDLAT_LOADS_H
#define LDLAT_LOADS_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

#include "kernel/lib/err.h"
#include "user/report/render.h"
#include "kernel/policy/counting.h"

struct loads {
	struct counting counting;
	bool active;
	struct count total; /* at the last read */
};

/*
 * Picks the event: spec (an event name, as ldlat-stat takes it), or NULL for
 * this CPU's retired-loads event, the first libpfm4 encodes of
 * MEM_INST_RETIRED:ALL_LOADS (Skylake and later), MEM_UOPS_RETIRED:ALL_LOADS
 * (Sandy Bridge to Broadwell), MEM_INST_RETIRED:LOADS (Nehalem, Westmere),
 * LS_DISPATCH:LD_DISPATCH (AMD Zen: dispatched, not retired).  config is
 * --config (tools.conf, for the counter model).  Returns 0, -EINVAL with a
 * sentence in err for a bad spec, -ENOENT when this CPU has no such event.
 */
int loads__init(struct loads *l, const char *spec, const char *config, struct err *err);

/*
 * Opens it on the target and enables it; with on_exec, the target's exec
 * enables it (a command waiting before its exec).  Returns 0 or -errno with a
 * sentence.
 */
int loads__start(struct loads *l, const struct target *target, bool on_exec, struct err *err);

/* Reads it into total (it goes on counting).  Returns 0 or -errno. */
int loads__read(struct loads *l);

/* Disables and reads it. */
int loads__stop(struct loads *l);

/* The event's name. */
const char *loads__event(const struct loads *l);

/*
 * The report of it (render.h): how many loads (c: its count over the span of
 * the report), and what share of them the sampling event counted (above: the
 * samples times the period, or the event's own count in frequency mode).
 */
void loads__share(const struct loads *l, const struct count *c, const char *what, double above,
		  const char *how, struct loads_share *out);

void loads__free(struct loads *l);

#endif
