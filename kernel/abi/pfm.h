/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * pfm.h - vendor event names ("MEM_INST_RETIRED:ALL_LOADS",
 * "LONGEST_LAT_CACHE:MISS", "skl::OFFCORE_RESPONSE_0:DMND_DATA_RD:L3_MISS")
 * encoded for this CPU by libpfm4, the perfmon project's user-space event
 * tables.  libpfm4 picks the tables from the CPU it runs on;
 * LIBPFM_FORCE_PMU=skl (or spr, amd64_fam19h_zen4, ...) in the environment
 * makes it encode for another model, which is how tests run here.
 *
 * libpfm4 brings its own perf_event.h, which cannot be included next to
 * <linux/perf_event.h>: the encoding comes back as plain fields.
 */
#ifndef LDLAT_PFM_H
#define LDLAT_PFM_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "kernel/lib/err.h"

struct pfm_encoding {
	__u32 type; /* perf_event_attr.type: PERF_TYPE_RAW, or a PMU's type */
	__u64 config, config1, config2;
	bool exclude_user, exclude_kernel, exclude_hv;
	char fqname[512]; /* libpfm4's fully qualified name, every umask and modifier spelled out */
	char pmu[64];	  /* libpfm4's name of the PMU whose table has the event ("skl") */
	int pmu_counters; /* that table's general-purpose and fixed counters */
	int pmu_fixed;
	bool core; /* a core PMU (not uncore, not the OS's generic one) */
};

/*
 * Encodes name.  Returns 0; -ENOENT when libpfm4 has no such event for the
 * PMUs it found here (err lists them and says how to force another model);
 * -EINVAL when the event is known but a umask or modifier is not (err says
 * which, in libpfm4's words); -EIO when libpfm4 cannot start.
 */
int pfm__encode(const char *name, struct pfm_encoding *enc, struct err *err);

/*
 * Encodes name for libpfm4's model (LIBPFM_FORCE_PMU=model for this call
 * only: "skl", "amd64_fam19h_zen4"), whatever this machine is.  Returns as
 * pfm__encode.
 */
int pfm__encode_for(const char *model, const char *name, struct pfm_encoding *enc, struct err *err);

/* The PMUs libpfm4 found on this machine (or was forced to), "skl, perf, perf_raw". */
void pfm__pmus(char *buf, size_t len);

#endif
