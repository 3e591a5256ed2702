/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * ldlat_pin.h - the maps a pinned set adds to the program's own: what the set
 * was started with (meta) and what the last --show --delta saw (shown, shown_hists).
 *
 * A bpffs directory holds BPF objects only, no regular files, so this state
 * lives in BPF maps.  The BPF object declares them (the program never touches
 * them, and cannot write them: BPF_F_RDONLY_PROG) so that they carry its BTF:
 * bpftool prints every field by name, enums as names and strings as strings.
 * User space creates them only when it pins.
 */
#ifndef LDLAT_PIN_H
#define LDLAT_PIN_H

#include "bpf/ldlat.h"

/* Bumped when a struct below changes: --show refuses a layout it cannot read. */
/*
 * 2: log-linear buckets, min, max, unmeasured and period; 3: cfg.fixed_period;
 * 4: counters.seen left 0 by the program (the sum of the verdicts' counters);
 * 5: a foreground set pins no link (nlinks 0): its sampling ends with its owner
 * 6: the events' counts (event_counts, meta.unseen), nevents, a whole cgroup path
 */
#define LDLAT_PIN_LAYOUT 6
#define LDLAT_PIN_MAGIC	 "ldlat"
#define LDLAT_PIN_TEXT	 256
#define LDLAT_PIN_PATH	 4096 /* PATH_MAX: a cgroup's path, whole */

/* The sample source (kernel/policy/source.h's enum source_kind, as BTF names). */
enum ldlat_pin_source {
	LDLAT_PIN_SOURCE_LDLAT,
	LDLAT_PIN_SOURCE_PAGE_FAULTS,
};

/* What the events watch (kernel/abi/evlist.h's enum target_kind, as BTF names). */
enum ldlat_pin_target {
	LDLAT_PIN_TARGET_SYSTEM,
	LDLAT_PIN_TARGET_CPUS,
	LDLAT_PIN_TARGET_TASKS,
	LDLAT_PIN_TARGET_CGROUP,
};

/* Which program is pinned as DIR/prog. */
enum ldlat_pin_program {
	LDLAT_PIN_PROG_SAMPLE,	    /* ldlat_sample: address, latency, data source */
	LDLAT_PIN_PROG_ADDR_ONLY,   /* ldlat_sample_addr: the address alone */
	LDLAT_PIN_PROG_SAMPLE_KERN, /* ldlat_sample_kern: the same as ldlat_sample, before 6.2 */
};

/*
 * How a set knows what its events produced that the program did not see
 * (meta.unseen): each event's count, kept by the program in 'event_counts',
 * or why not.
 */
enum ldlat_pin_unseen {
	LDLAT_PIN_UNSEEN_NO_EVENTS, /* no perf event (a set filled by the test entry) */
	LDLAT_PIN_UNSEEN_COUNTED,   /* event_counts holds each event's count */
	LDLAT_PIN_UNSEEN_NO_COOKIE, /* no bpf_get_attach_cookie (Linux 5.15) to tell events apart */
	LDLAT_PIN_UNSEEN_INHERIT,   /* inherited events: the program cannot read their count */
};

/*
 * A value of the 'event_counts' map, at the bpf_cookie of an event's link:
 * what the event produced, as the program last read it.
 */
struct ldlat_event_count {
	__u64 count;  /* the event's count when the program last ran on it */
	__u64 period; /* its fixed sample period, written at --pin; 0: frequency mode */
	__s64 error;  /* the last failure of that read (-errno), 0: none */
};

/* The single value of the 'meta' map, written once by --pin, then frozen. */
struct ldlat_pin_meta {
	char magic[8]; /* LDLAT_PIN_MAGIC */
	__u32 layout;  /* LDLAT_PIN_LAYOUT */
	__u32 nlinks;  /* perf-event links pinned as DIR/link_* (--detach only, else 0) */
	__u32 nevents; /* perf events the program is attached to (event_counts' entries) */
	enum ldlat_pin_unseen unseen;
	__u64 started_ns; /* CLOCK_REALTIME when sampling started */
	__u32 pid;	  /* the ldlat-hist that pinned it */
	__u32 detached;	  /* 1: --detach, sampling outlives that process */
	enum ldlat_pin_source source;
	enum ldlat_pin_target target;
	enum ldlat_pin_program program;
	__u32 fields;		    /* LDLAT_HAS_* the samples carry */
	__u64 cgroup_id;	    /* -G: the cgroup's id (the inode of its directory) */
	char event[LDLAT_PIN_TEXT]; /* "page-faults (period 1)", "cpu/mem-loads,ldlat=30/P" */
	char target_desc[LDLAT_PIN_PATH + 512]; /* "cgroup system.slice/db.service" */
	char cgroup_path[LDLAT_PIN_PATH];	/* -G: the absolute path at --pin */
	__u32 nranges;				/* ranges given with -a (0: every address) */
	__u32 range_mapping;			/* bit i: range i named a mapping */
	char range_text[LDLAT_MAX_RANGES][LDLAT_PIN_TEXT]; /* each -a as written */
	struct ldlat_config cfg; /* the program's configuration: spans, latency, classes, ops */
	__u32 freq;		 /* 1: frequency mode, the samples' periods vary */
	__u32 unused;
};

/* The single value of the 'shown' map: the totals the last --show --delta printed. */
struct ldlat_pin_shown {
	__u64 taken_ns; /* CLOCK_REALTIME of that --show; 0: never shown */
	struct ldlat_counters counters;
	__u64 unseen_counted; /* struct unseen's 'counted' then (the events' counts) */
};

#endif /* LDLAT_PIN_H */
