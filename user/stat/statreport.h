/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * statreport.h - what a counting run found, one row per event, ready for a
 * renderer: the count (scaled when the kernel multiplexed it), the fraction
 * of the time it ran, the error of the scaled estimate, a derived ratio
 * (miss rate, instructions per cycle, rate per second), or why it was not
 * counted.
 */
#ifndef LDLAT_STATREPORT_H
#define LDLAT_STATREPORT_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

#include "kernel/policy/counting.h"
#include "user/report/output.h"

enum stat_mode {
	STAT_MULTIPLEX, /* every group in one run, rotated by the kernel, scaled */
	STAT_PER_GROUP, /* one run per group, nothing scaled */
};

/* One report of the counts: the whole run's, or one interval's of -i. */
struct stat_report {
	const struct counting *c;
	enum stat_mode mode;
	const char *target_desc;
	double elapsed;	  /* seconds of the run (multiplex) or of all runs (per group) */
	int mux_ms;	  /* the rotation interval in force, -1 when not known */
	bool interrupted; /* Ctrl-C before every group ran (per group) */
	bool interval;	  /* an interval of -i: counts are that interval's */
	double t;	  /* seconds since the start, for an interval */
};

enum stat_row_state {
	ROW_COUNTED,
	ROW_UNSUPPORTED, /* the kernel would not open it: reason */
	ROW_NOT_COUNTED, /* opened, but never on a counter (or its run never came): reason */
};

struct stat_row {
	const char *name;
	const char *pfm; /* libpfm4's full name, or "" */
	enum stat_row_state state;
	char reason[512];
	int group;    /* 1-based, 0 when not in a group */
	double value; /* scaled (multiplex), raw (per group) */
	__u64 raw;
	double running;	     /* fraction of the enabled time it was on a counter */
	bool scaled;	     /* value = raw * enabled / running */
	double error;	     /* standard error of value in events; < 0: unknown */
	bool msec;	     /* a clock: value in ns, shown as msec */
	bool idle;	     /* -i: the target did not run in this interval: a count of 0 */
	double ratio;	     /* derived; valid when ratio_unit[0] */
	char ratio_unit[96]; /* "of L1-dcache-loads", "insn per cycle", "/sec", "CPUs utilized" */
	bool ratio_pct;	     /* ratio is a percentage */
	bool ratio_apart;    /* its two events were counted in different groups */
};

/* Fills rows[c->nev] from the counts. */
void stat_report__rows(const struct stat_report *r, struct stat_row *rows);

/* perf stat's table. */
void render_stat_text(FILE *out, const struct stat_report *r);

/* One JSON object on one line (the schema is in README.md, "ldlat-stat"). */
void render_stat_json(FILE *out, const struct stat_report *r);

/*
 * ldlat-stat's formats: text, JSON, and the expositions (OpenMetrics, the
 * Prometheus text format), each given a struct stat_report.
 */
extern const struct output_formats stat_formats;

/* The groups and the counter model behind them, one group per line with why. */
void render_stat_plan(FILE *out, const struct counting *c);

#endif
