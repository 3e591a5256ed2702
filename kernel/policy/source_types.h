/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * source_types.h - what to sample, as types: the options, and a resolved
 * source with its load-latency events.  source.h resolves them (the
 * load-latency event or page faults); ldlat_event.h resolves the
 * load-latency case it calls.
 */
#ifndef LDLAT_SOURCE_TYPES_H
#define LDLAT_SOURCE_TYPES_H

#include <stdbool.h>
#include <linux/types.h>

#include "kernel/abi/cpu_id.h"
#include "kernel/policy/evtable.h"

enum source_kind {
	SOURCE_LDLAT,	    /* the CPU's load-latency event */
	SOURCE_PAGE_FAULTS, /* software page-fault event: address only */
	SOURCE_AUTO,	    /* ldlat where a load-latency PMU exists, else page faults */
};

struct source_opts {
	enum source_kind kind;
	__u64 ldlat;	   /* hardware latency threshold in core cycles; 0: default */
	__u64 period;	   /* sample every Nth event; 0 with freq 0: the source's default */
	__u64 freq;	   /* samples per second instead of a period */
	const char *event; /* --event SPEC: the load-latency event as written */
	const struct evtable *table; /* tools.conf: events per CPU and the defaults */
	bool sample_ip; /* also PERF_SAMPLE_IP: the precise IP in perf_sample_data (ldlat-top) */
	/*
	 * also PERF_SAMPLE_CALLCHAIN (ldlat-top --call-graph): a precise event
	 * whose program calls bpf_get_stackid needs it, or attach fails (EPROTO)
	 */
	bool callchain;
};

#define SOURCE_MAX_EVENTS 4

/* One load-latency event of a resolved source, and why it was chosen. */
struct source_event {
	char why[512];		     /* "tools.conf:88 [sapphire-rapids] for GenuineIntel-6-8F" */
	char note[EVTABLE_TEXT_MAX]; /* the table entry's note */
	enum core_type core;	     /* the core type it samples (hybrid parts) */
	bool has_ldlat;		     /* a hardware threshold is set */
	__u64 ldlat;
	bool has_range; /* the table knows the threshold's range */
	__u64 ldlat_min, ldlat_max, ldlat_step;
};

/* What a resolved source gives the tools. */
struct source {
	enum source_kind kind; /* LDLAT or PAGE_FAULTS, never AUTO */
	__u32 fields;	       /* LDLAT_HAS_* its samples carry */
	bool weight_struct;    /* latency in weight.var1_dw (x86), else weight.full */
	char why[2560];	       /* how it was chosen (auto's fallback: why), for -v, --list-events */
	struct cpu_id cpu;     /* the CPU it was chosen for */
	int nevents;	       /* load-latency events: one per evsel of the evlist */
	struct source_event ev[SOURCE_MAX_EVENTS];
};

#endif
