/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * evspec.h - event specs in perf's syntax, parsed and then encoded into a
 * perf_event_attr through the PMU's sysfs format fields:
 *
 *   cpu/event=0xcd,umask=0x1,ldlat=30/pp     a PMU, its terms, modifiers
 *   cpu/mem-loads,ldlat=50/P                 an event alias of the PMU, a term on top
 *   ibs_op//                                 a PMU with no terms
 *   r1cd, r1cd:pp                            a raw event (PERF_TYPE_RAW)
 *   cycles:u, page-faults                    a generic hardware or software event
 *   L1-dcache-load-misses, LLC-loads         a hardware-cache event (kernel/abi/evnames.h)
 *   MEM_INST_RETIRED:ALL_LOADS               a vendor event, through libpfm4 (its own
 *                                            umasks and modifiers after the colons)
 *   {cpu/mem-loads-aux/,cpu/mem-loads/}:P    a group: the first event leads it
 *   a,b                                      several events
 *
 * Terms: the PMU's format fields (format/NAME: value put into those bits of
 * config, config1, ...), its event aliases (events/NAME, expanded first so
 * that the terms written next to one override it), and perf's own terms
 * config=, config1=, config2=, period=, freq=, name=.  A bare format term
 * means 1.
 *
 * Modifiers: u, k, h (count only user, kernel, hypervisor; any mix), G, H
 * (only guest, only host), I (not when idle), D (pinned), p, pp, ppp (precise
 * level), P (the PMU's highest, caps/max_precise).  After a group's closing
 * brace they apply to every member.
 *
 * Parsing only checks the syntax; encoding reads the PMU from sysfs and
 * fails, with a sentence naming the part, on an unknown PMU, an unknown term
 * or a value wider than its field.
 */
#ifndef LDLAT_EVSPEC_H
#define LDLAT_EVSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/perf_event.h>

#include "kernel/abi/pmu.h"
#include "kernel/lib/err.h"

#define EVSPEC_MAX_TERMS 32
#define EVSPEC_TEXT_MAX	 256

enum evspec_kind {
	EVSPEC_PMU,    /* pmu/terms/modifiers */
	EVSPEC_RAW,    /* rHEX: PERF_TYPE_RAW with that config */
	EVSPEC_LEGACY, /* a generic hardware, cache or software event by perf's name */
	EVSPEC_PFM,    /* a vendor event by name, encoded by libpfm4 (kernel/abi/pfm.h) */
};

struct evspec_term {
	char name[PMU_NAME_MAX];
	char value[64];
	bool has_value; /* false: a bare term */
};

struct evspec_mods {
	bool user, kernel, hv; /* u, k, h; none of them: count at every level */
	bool guest, host;      /* G, H */
	bool no_idle;	       /* I */
	bool pinned;	       /* D */
	int precise;	       /* number of p */
	bool precise_max;      /* P */
};

struct evspec_event {
	char text[EVSPEC_TEXT_MAX]; /* this event as written, without group modifiers */
	enum evspec_kind kind;
	char pmu[PMU_NAME_MAX]; /* EVSPEC_PMU */
	__u32 type;		/* EVSPEC_RAW, EVSPEC_LEGACY */
	__u64 config;		/* EVSPEC_RAW, EVSPEC_LEGACY */
	int nterms;
	struct evspec_term terms[EVSPEC_MAX_TERMS];
	struct evspec_mods mods; /* its own and its group's */
	int leader;		 /* index of its group's first event; its own when alone */
};

struct evspec {
	int nevents;
	struct evspec_event *ev;
};

/* Parses text.  Returns 0, or -EINVAL with a sentence in err naming the spot. */
int evspec__parse(struct evspec *spec, const char *text, struct err *err);
void evspec__free(struct evspec *spec);

/* The number of events in event i's group (1 when it is alone). */
int evspec__group_size(const struct evspec *spec, int i);

/* Whether the event sets the term itself (not through an alias). */
const struct evspec_term *evspec_event__term(const struct evspec_event *e, const char *name);

/* An event encoded for perf_event_open. */
struct evspec_attr {
	struct perf_event_attr attr;
	char name[EVSPEC_TEXT_MAX]; /* name= term, else the text */
	struct pmu pmu;		    /* the PMU it was encoded through (has_pmu) */
	bool has_pmu;
	bool rate_set; /* a period= or freq= term */
	char pfm[EVSPEC_TEXT_MAX *
		 2]; /* EVSPEC_PFM: libpfm4's full name, every umask spelled out */
};

/*
 * Encodes e.  A precise level above the PMU's caps/max_precise is lowered to
 * it, with a line in notice.  Returns 0, or -EINVAL/-ERANGE with a sentence
 * in err naming the PMU, term or value.  evspec_attr__free releases out
 * either way.
 */
int evspec__encode(const struct evspec_event *e, struct evspec_attr *out, char *notice,
		   size_t noticelen, struct err *err);
void evspec_attr__free(struct evspec_attr *a);

/*
 * Writes e back in perf's syntax with its terms, then extra_terms (may be
 * NULL), and the modifiers it was opened with (precise level from attr).
 */
void evspec__format(const struct evspec_event *e, const char *extra_terms,
		    const struct perf_event_attr *attr, char *buf, size_t len);

#endif
