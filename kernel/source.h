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

#include "cpu_id.h"
#include "evlist.h"
#include "evtable.h"

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
	const char *event;	    /* --event SPEC: the load-latency event as written */
	const struct evtable *table; /* tools.conf: events per CPU and the defaults */
	bool sample_ip; /* also PERF_SAMPLE_IP: the precise IP in perf_sample_data (ldlat-top) */
};

#define SOURCE_MAX_EVENTS 4

/* One load-latency event of a resolved source, and why it was chosen. */
struct source_event {
	char why[512];	    /* "tools.conf:88 [sapphire-rapids] for GenuineIntel-6-8F" */
	char note[EVTABLE_TEXT_MAX]; /* the table entry's note */
	enum core_type core;	    /* the core type it samples (hybrid parts) */
	bool has_ldlat;		    /* a hardware threshold is set */
	__u64 ldlat;
	bool has_range; /* the table knows the threshold's range */
	__u64 ldlat_min, ldlat_max, ldlat_step;
};

/* What a resolved source gives the tools. */
struct source {
	enum source_kind kind; /* LDLAT or PAGE_FAULTS, never AUTO */
	__u32 fields;	       /* LDLAT_HAS_* its samples carry */
	bool weight_struct;    /* latency in weight.var1_dw (x86), else weight.full */
	char why[512];	       /* how it was chosen, for -v */
	struct cpu_id cpu;     /* the CPU it was chosen for */
	int nevents;	       /* load-latency events: one per evsel of the evlist */
	struct source_event ev[SOURCE_MAX_EVENTS];
};

/*
 * Resolves opts into evsels appended to evlist.  For SOURCE_AUTO, falls back
 * to page faults.  Notices (a threshold raised to the hardware's minimum, a
 * precise level lowered, the fallback) go into notice, one per line (empty
 * when there was nothing to say).  Returns 0, or -errno with a sentence in
 * err: -ENOENT when this machine has no usable load-latency event,
 * -EINVAL/-ERANGE for bad input (an event spec, a threshold, tools.conf).
 * source__free releases src either way.
 */
int source__resolve(const struct source_opts *opts, struct source *src, struct evlist *evlist,
		    char *notice, size_t noticelen, char *err, size_t errlen);
void source__free(struct source *src);

/* Appends a line to a notice buffer. */
__attribute__((format(printf, 3, 4))) void notice__add(char *buf, size_t len, const char *fmt,
							...);

const char *source__name(enum source_kind kind);

#endif
