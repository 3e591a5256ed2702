/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * countermodel.h - this machine's counter model (kernel/policy/counters.h) for the
 * tools that count: the CPU's identity (CPUID, or LDLAT_CPU), CPUID leaf 0xA,
 * the counters keys of this CPU's tools.conf entry, the core PMU in sysfs
 * (or LDLAT_SYSFS), SMT, and the NMI watchdog (or LDLAT_PROCFS).
 */
#ifndef LDLAT_COUNTERMODEL_H
#define LDLAT_COUNTERMODEL_H

#include <stddef.h>

#include "kernel/lib/err.h"
#include "kernel/policy/counters.h"

/*
 * Builds it; config is --config FILE or NULL.  A missing tools.conf is no
 * error (there is nothing to override); a malformed one, or a malformed
 * LDLAT_CPU, is: -EINVAL with a sentence in err.
 */
int countermodel__build(struct counter_model *m, const char *config, struct err *err);

#endif
