/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * datasrc.h - names for data-source classes (the class itself is decided by
 * ldlat_classify() in bpf/ldlat.h) and a perf-like text decode of a whole
 * perf_mem_data_src value.
 */
#ifndef LDLAT_DATASRC_H
#define LDLAT_DATASRC_H

#include <stddef.h>
#include <linux/types.h>

#include "kernel/lib/err.h"

/* "L3 hit", "remote cache (1 hop)": what the tools print. */
const char *class__name(unsigned int cls);

/* "l3", "remote-cache-1hop": what -s/--class takes, and metric labels. */
const char *class__token(unsigned int cls);

/*
 * Parses a comma-separated class list into a mask.  Besides every token,
 * groups are accepted: "hitm" (local and remote), "remote-cache" (all
 * distances), "remote-ram", "ram" (local and remote), "cache" (every cache
 * level and peer/remote cache).  Returns 0, or -EINVAL naming the bad item in
 * err.
 */
int class__parse_list(const char *list, __u32 *mask, struct err *err);

/* The tokens and groups class__parse_list accepts, for --help and errors. */
const char *class__list_help(void);

/*
 * perf's own words for a data source, as perf mem report and perf script
 * print them (tools/perf/util/mem-events.c, perf_mem__lvl_scnprintf and
 * perf_mem__snp_scnprintf, with the level names of Linux 6.12 and later):
 * "Remote node, same socket RAM hit", "L3 hit"; "HitM", "Hit or Miss", "Fwd".
 * For comparing with perf's reports and for tests; the class is what the
 * tools count by.  Each returns buf.
 */
char *datasrc__perf_lvl(__u64 ds, char *buf, size_t len);
char *datasrc__perf_snoop(__u64 ds, char *buf, size_t len);

/*
 * The memory region (mem_region, Panther Cove and Arctic Wolf cores):
 * "local shared cache", "MMIO", "memory region 3"; NULL when the kernel gave
 * none.
 */
const char *datasrc__region(__u64 ds);

#endif
