/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * config.h - the per-sample logic's configuration (struct ldlat_config) from
 * the shared options, for samples that carry a given set of fields: the same
 * for the BPF program of a live run and for the native logic of offline
 * analysis.
 */
#ifndef LDLAT_CONFIG_H
#define LDLAT_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "bpf/ldlat.h"
#include "kernel/abi/evlist.h"
#include "kernel/lib/err.h"
#include "user/run/cli.h"

/*
 * Latency, class, op and bucket options need samples that carry latency
 * (LDLAT_HAS_LAT in fields).  When they do not, returns -EINVAL with a
 * sentence in err ending with 'lacking' ("page-fault samples do not carry").
 */
int config__check_fields(const struct cli *c, __u32 fields, __u32 linear_step, const char *lacking,
			 struct err *err);

/*
 * Fills cfg from the options and the resolved ranges, for samples carrying
 * fields (LDLAT_HAS_*; need), latency in weight.var1_dw when weight_struct.
 * No process set: a live run's events already are per process.
 */
void config__fill(struct ldlat_config *cfg, const struct cli *c, __u32 fields, bool weight_struct,
		  __u32 linear_step);

/*
 * The period every sampling event of evlist samples with (ldlat_config.fixed_period),
 * or 0: one samples by frequency, or two differ (the program must sum the periods).
 */
__u64 config__fixed_period(const struct evlist *evlist);

#endif
