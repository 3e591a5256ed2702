/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * c2cevents.h - the store event ldlat-c2c samples beside the loads: on an
 * Intel PMU whose sysfs names mem-stores (PMU/mem-stores/P, its samples'
 * fields as the loads'), next to each load-latency event of the run.  AMD's
 * IBS op samples stores with the loads already; a PMU without mem-stores
 * gets none.
 */
#ifndef LDLAT_C2CEVENTS_H
#define LDLAT_C2CEVENTS_H

#include "kernel/abi/evlist.h"
#include "kernel/lib/err.h"

/*
 * The stores' event beside loads: 1 with *out filled (free its cpumap with
 * cpumap__free), 0 when loads' PMU has no mem-stores (or loads is not a
 * PMU/event/ of sysfs), -errno with a sentence in err.
 */
int c2c_stores_evsel(const struct evsel *loads, struct evsel *out, struct err *err);

#endif
