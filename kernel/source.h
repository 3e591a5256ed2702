/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * source.h - what to sample: the load-latency event of this CPU, or page
 * faults where there is none, as evsels ready to open.
 */
#ifndef LDLAT_SOURCE_H
#define LDLAT_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "evlist.h"

enum source_kind {
	SOURCE_LDLAT,	    /* the CPU's load-latency event */
	SOURCE_PAGE_FAULTS, /* software page-fault event: address only */
	SOURCE_AUTO,	    /* ldlat where a load-latency PMU exists, else page faults */
};

struct source_opts {
	enum source_kind kind;
	__u64 ldlat;  /* hardware latency threshold in core cycles; 0: default */
	__u64 period; /* sample every Nth event; 0 with freq 0: the source's default */
	__u64 freq;   /* samples per second instead of a period */
	bool sample_ip; /* also PERF_SAMPLE_IP: the precise IP in perf_sample_data (ldlat-top) */
};

#define SOURCE_DEFAULT_LDLAT	30   /* perf mem's default threshold */
#define SOURCE_DEFAULT_LDLAT_HZ 4000 /* perf's default frequency */
#define SOURCE_DEFAULT_PF_PERIOD 1   /* every page fault */

/* What a resolved source gives the tools. */
struct source {
	enum source_kind kind; /* LDLAT or PAGE_FAULTS, never AUTO */
	__u32 fields;	       /* LDLAT_HAS_* its samples carry */
	bool weight_struct;    /* latency in weight.var1_dw */
	char why[256];	       /* how it was chosen ("sysfs alias cpu/events/mem-loads") */
};

/*
 * Resolves opts into evsels appended to evlist.  For SOURCE_AUTO, falls back
 * to page faults and says so in notice (empty when there was nothing to say).
 * Returns 0, or -errno with a sentence in err: -ENOENT when this machine has
 * no load-latency event, -EINVAL/-ERANGE for a bad threshold or term.
 */
int source__resolve(const struct source_opts *opts, struct source *src, struct evlist *evlist,
		    char *notice, size_t noticelen, char *err, size_t errlen);

const char *source__name(enum source_kind kind);

/* Whether /proc/cpuinfo has the hypervisor flag. */
bool host__is_vm(void);

#endif
