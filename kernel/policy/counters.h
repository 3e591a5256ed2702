/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * counters.h - the counter model of a core PMU: how many events one group
 * can count at once, and what each event needs.
 *
 * Skylake-era Intel cores have 4 general-purpose counters per hardware
 * thread (8 when SMT is off in the firmware), 3 fixed counters (instructions,
 * cycles, reference cycles) and 2 offcore-response registers per core, which
 * the LLC and node cache events and OFFCORE_RESPONSE events need.  Ice Lake
 * and later have 8 per thread and a 4th fixed counter; AMD Zen cores have 6
 * general-purpose counters and neither fixed counters nor offcore registers.
 * A perf-based NMI watchdog holds a counter on every CPU.  The kernel checks a
 * group against the counters when it is opened, but not against the
 * watchdog: a group that does not fit beside it opens and never counts.
 *
 * The model is built from facts (the CPU, sysfs, /proc), each of which can be
 * replaced for tests: LDLAT_SYSFS for sysfs, LDLAT_PROCFS for /proc.
 */
#ifndef LDLAT_COUNTERS_H
#define LDLAT_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/perf_event.h>

enum cpu_vendor {
	CPU_VENDOR_UNKNOWN,
	CPU_VENDOR_INTEL,
	CPU_VENDOR_AMD,
};

/* What the model is built from; -1 (or "") where unknown. */
struct counter_facts {
	enum cpu_vendor vendor;
	int family, model;     /* from the CPU's identity */
	char ident_src[128];   /* where vendor, family and model came from */
	char core_pmu[64];     /* sysfs name of the core PMU: "cpu", "cpu_core"; "" none */
	__u32 core_type;       /* its perf_event_attr.type */
	char pmu_name[64];     /* its caps/pmu_name ("skylake"): Intel's kernels name the model */
	bool amd_event_format; /* its format/event is config:0-7,32-35, AMD's event select */
	bool zen4_ibs;	       /* ibs_op/caps/zen4_ibs_extensions: Zen 4 or later */
	int cpuid_gp, cpuid_fixed; /* CPUID leaf 0xA (Intel architectural perfmon) */
	int smt;		   /* devices/system/cpu/smt/active */
	char smt_control[32];	   /* devices/system/cpu/smt/control: "on", "off", "notsupported" */
	int watchdog;		   /* /proc/sys/kernel/nmi_watchdog */
	int gp_override, fixed_override, offcore_override; /* tools.conf */
	char override_src[512]; /* "[skylake-client] in /etc/ldlat/tools.conf" */
	bool hypervisor;	/* the CPU identity's hypervisor bit: a virtual machine */
};

#define COUNTER_MAX_OFFCORE_CODES 4
#define COUNTER_WHY_LINES	  6

struct counter_model {
	bool has_pmu; /* a core PMU exists; false on a VM without one */
	char core_pmu[64];
	__u32 core_type;
	enum cpu_vendor vendor;
	char label[64]; /* "Skylake", "AMD Zen 4", "unknown Intel core" */
	int gp_hw;	/* general-purpose counters per hardware thread */
	int gp;		/* what one group may use: gp_hw less the watchdog's */
	int fixed;	/* fixed counters */
	int offcore;	/* offcore-response (extra) registers, at most this many per group */
	int noffcore_codes;
	__u8 offcore_codes[COUNTER_MAX_OFFCORE_CODES]; /* event selects that need one */
	bool cache_offcore; /* the LLC and node cache events need one (Intel) */
	bool watchdog;
	int smt;	 /* 1, 0, -1 unknown */
	bool hypervisor; /* a virtual machine (for the sentence when there is no PMU) */
	int nwhy;
	char why[COUNTER_WHY_LINES][320]; /* where each number came from, for --plan */
};

/* What one event needs from the model. */
enum ev_kind {
	EV_SOFTWARE, /* no counter: software events and tracepoints */
	EV_CORE,     /* a core PMU counter */
	EV_OTHER,    /* another PMU (uncore, breakpoints): its counters are not modelled */
};

struct ev_needs {
	enum ev_kind kind;
	int fixed;	 /* the fixed counter it can use, -1 none */
	bool fixed_only; /* it counts only there (reference cycles) */
	bool offcore;	 /* it needs an offcore-response register */
};

/*
 * Reads the facts of this machine (or the fixtures): the core PMU and its
 * caps from sysfs, SMT, the NMI watchdog.  The CPU identity and CPUID leaf
 * 0xA are left unknown (-1) for the caller to fill.
 */
void counter_facts__probe(struct counter_facts *f);

/* Facts with everything unknown. */
void counter_facts__init(struct counter_facts *f);

/* Builds the model from facts, with a why line for each number. */
void counter_model__build(struct counter_model *m, const struct counter_facts *f);

/* What attr needs on model m. */
void counter_model__needs(const struct counter_model *m, const struct perf_event_attr *attr,
			  struct ev_needs *needs);

#endif
