/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * evtable.h - tools.conf: the load-latency event of each CPU model and the
 * tools' defaults, a plain-text table a user can read and edit (its syntax
 * is documented at the top of tools.conf).  The kernel stays the validity
 * checker: an entry names an event in perf's syntax, and the PMU's sysfs
 * format fields encode it.
 */
#ifndef LDLAT_EVTABLE_H
#define LDLAT_EVTABLE_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "kernel/abi/cpu_id.h"
#include "kernel/lib/err.h"

#define EVTABLE_TEXT_MAX 512

struct evtable_entry {
	char name[64]; /* [name] */
	int line;      /* of [name] */
	char cpuid[256];
	bool has_cpuid;
	regex_t cpuid_re; /* anchored: the whole ID, an optional -STEPPING after */
	enum core_type core;
	char requires[128]; /* a glob under bus/event_source/devices that must exist */
	char event[EVTABLE_TEXT_MAX];
	int event_line;
	char leader[EVTABLE_TEXT_MAX];
	int leader_line;
	bool has_ldlat; /* a hardware threshold exists */
	__u64 ldlat_min, ldlat_max, ldlat_step;
	bool ldlat_default_off; /* no threshold unless -L */
	int ldlat_line;
	int precise; /* default precise level */
	char unsupported[EVTABLE_TEXT_MAX];
	char note[EVTABLE_TEXT_MAX];
	/* the counter model's numbers for this CPU (ldlat-stat), -1: not given */
	int counters, fixed_counters, offcore_registers;
};

struct evtable {
	char path[4096];
	__u64 ldlat;		  /* [defaults] ldlat */
	__u64 freq, period;	  /* [defaults] sampling rate of load-latency events: one is set */
	__u64 page_faults_period; /* [defaults] page-faults-period */
	int nentries;
	struct evtable_entry *entries;
};

/*
 * Reads and checks the table at path.  Returns 0; -ENOENT (or another
 * -errno) when it cannot be read; -EINVAL with "FILE:LINE: what is wrong"
 * in err.
 */
int evtable__load(struct evtable *t, const char *path, struct err *err);
/* The same from the text of a table (the built-in copy of tools.conf), named name. */
int evtable__load_text(struct evtable *t, const char *name, const char *text, struct err *err);
void evtable__free(struct evtable *t);

/*
 * The first entry for this CPU: its ID matches 'cpuid', the 'requires'
 * path exists, and its 'core' is the given type (CORE_TYPE_ANY: entries
 * without 'core').  NULL when none.
 */
const struct evtable_entry *evtable__lookup(const struct evtable *t, const struct cpu_id *id,
					    enum core_type core);

/* Whether the entry matches this CPU's ID (its cpuid regex, if any). */
bool evtable_entry__matches_id(const struct evtable_entry *e, const char *id);

#endif
