/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * pmu.h - a PMU as sysfs describes it (bus/event_source/devices/NAME): its
 * type for perf_event_attr, its format fields (which bits of config, config1,
 * config2 or config3 a term sets), its event aliases and its caps.  Bit
 * positions are never hard-coded: they come from format/.
 */
#ifndef LDLAT_PMU_H
#define LDLAT_PMU_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/perf_event.h>

#include "kernel/abi/cpumap.h"

#define PMU_NAME_MAX 64

struct pmu_format {
	char name[PMU_NAME_MAX];
	int word;   /* 0: config, 1: config1, 2: config2, 3: config3 */
	__u64 mask; /* the bits of that word, filled from the value's low bits up */
};

struct pmu_alias {
	char name[PMU_NAME_MAX];
	char *terms; /* "event=0xcd,umask=0x1,ldlat=3" */
};

struct pmu {
	char name[PMU_NAME_MAX];
	__u32 type;
	int nformats;
	struct pmu_format *formats;
	int naliases;
	struct pmu_alias *aliases;
	int max_precise;	     /* caps/max_precise, -1 when absent */
	char cap_name[PMU_NAME_MAX]; /* caps/pmu_name ("skylake"), "" when absent */
	int cap_ldlat;		     /* caps/ldlat (AMD IBS), -1 when absent */
	struct cpumap cpus;	     /* cpus or cpumask; nr 0: not restricted */
};

/* Names of the PMUs in sysfs, sorted.  Returns the count or -errno. */
int pmu__list(char ***names);
void pmu__list_free(char **names, int n);

/* "breakpoint, msr, software" into buf (for error messages). */
void pmu__list_snprint(char *buf, size_t len);

/* Reads the PMU whose type is type. Returns 0, -ENOENT when there is none, or -errno. */
int pmu__load_by_type(struct pmu *pmu, __u32 type);

/* Whether sysfs has a PMU of that name. */
bool pmu__exists(const char *name);

/* Reads a PMU from sysfs.  Returns 0, -ENOENT when there is none, or -errno. */
int pmu__load(struct pmu *pmu, const char *name);
void pmu__free(struct pmu *pmu);

const struct pmu_format *pmu__format(const struct pmu *pmu, const char *name);
const char *pmu__alias(const struct pmu *pmu, const char *name);

/* Parses a format file's content ("config:0-7,32-35"). Returns 0 or -EINVAL. */
int pmu_format__parse(struct pmu_format *f, const char *spec);

/*
 * Puts value into the format's bits of attr.  -ERANGE when the value is wider
 * than the field.
 */
int pmu_format__encode(const struct pmu_format *f, __u64 value, struct perf_event_attr *attr);

/* The value the format's bits hold in attr (the inverse of encode). */
__u64 pmu_format__decode(const struct pmu_format *f, const struct perf_event_attr *attr);

/* The format as sysfs writes it ("config:0-7,32-35") into buf. */
void pmu_format__snprint(const struct pmu_format *f, char *buf, size_t len);

/* The format's terms, comma-separated ("cmask, edge, event"), into buf. */
void pmu__format_names(const struct pmu *pmu, char *buf, size_t len);

#endif
