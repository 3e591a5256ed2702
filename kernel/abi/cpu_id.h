/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * cpu_id.h - which CPU this is: vendor, family, model and stepping from the
 * CPUID instruction (the MIDR register on arm64), and on hybrid parts the
 * core type of every CPU (CPUID leaf 0x1A, read on each CPU in turn).
 *
 * LDLAT_CPU=ID overrides it for tests, in perf's mapfile form:
 *   GenuineIntel-6-8F, GenuineIntel-6-55-4 (with a stepping),
 *   AuthenticAMD-26-11, 0x00000000410fd0c0 (an arm64 MIDR),
 * optionally followed by ",hypervisor" (the CPUID hypervisor bit).  With
 * LDLAT_CPU the core types of a hybrid part come from the 'cpus' files of
 * the cpu_core and cpu_atom PMUs under LDLAT_SYSFS.
 */
#ifndef LDLAT_CPU_ID_H
#define LDLAT_CPU_ID_H

#include <stdbool.h>
#include <stddef.h>

#include "kernel/abi/cpumap.h"
#include "kernel/lib/err.h"

/* CPUID leaf 0x1A EAX[31:24]. */
enum core_type {
	CORE_TYPE_ANY = 0,     /* not hybrid, or not known */
	CORE_TYPE_ATOM = 0x20, /* efficiency cores (cpu_atom PMU) */
	CORE_TYPE_CORE = 0x40, /* performance cores (cpu_core PMU) */
	/*
	 * low-power efficiency cores with a PMU of their own (cpu_lowpower,
	 * Arrow Lake H): CPUID calls them atoms too, the kernel tells them
	 * apart by their native model; their CPUs are the cpu_lowpower PMU's
	 */
	CORE_TYPE_LOWPOWER = 0x21,
};

struct cpu_id {
	char vendor[16];     /* GenuineIntel, AuthenticAMD, HygonGenuine, or "" (arm64) */
	unsigned int family; /* display family, as /proc/cpuinfo prints it */
	unsigned int model;  /* display model */
	int stepping;	     /* -1: not known */
	char id[64];	     /* "GenuineIntel-6-8F-8", or the MIDR on arm64 */
	bool x86;
	bool hypervisor;    /* CPUID.1:ECX[31]: running in a virtual machine */
	bool overridden;    /* from LDLAT_CPU */
	bool hybrid;	    /* performance and efficiency cores */
	struct cpumap core; /* hybrid: the CPUs of each type */
	struct cpumap atom;
	char types_from[64]; /* where the core types came from (for --list-events) */
};

/*
 * Identifies this CPU, or the one LDLAT_CPU names.  Returns 0, or -EINVAL
 * with a sentence in err when LDLAT_CPU is malformed, or -errno.
 */
int cpu_id__read(struct cpu_id *id, struct err *err);

/* Parses an ID in LDLAT_CPU's form into id (no core types). */
int cpu_id__parse(struct cpu_id *id, const char *text, struct err *err);

void cpu_id__free(struct cpu_id *id);

/*
 * The counters of Intel's architectural performance monitoring, CPUID leaf
 * 0xA: general-purpose counters per logical processor (EAX[15:8]) and fixed
 * counters (EDX[4:0]).  Returns 0, or -EOPNOTSUPP when id is not this CPU
 * (LDLAT_CPU), not Intel, or the leaf reports no architectural PMU (a
 * virtual machine without one).
 */
int cpu_id__perfmon(const struct cpu_id *id, int *gp, int *fixed);

/*
 * The CPUs of a core type (NULL for CORE_TYPE_ANY, CORE_TYPE_LOWPOWER, whose
 * PMU names them, or a part that is not hybrid).
 */
const struct cpumap *cpu_id__cpus(const struct cpu_id *id, enum core_type type);

/* "core", "atom", "any". */
const char *core_type__name(enum core_type type);

/* Parses "core" or "atom". Returns 0 or -EINVAL. */
int core_type__parse(const char *name, enum core_type *type);

/*
 * Runs CPUID leaf 0x1A on each CPU of cpus (moving this thread there and
 * back) and sorts them into core and atom.  Returns 0, -EOPNOTSUPP off x86,
 * or -errno when this thread may not run on one of them (a cpuset).
 */
int cpu_id__core_types_by_cpuid(const struct cpumap *cpus, struct cpumap *core,
				struct cpumap *atom);

#endif
