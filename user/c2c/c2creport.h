/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * c2creport.h - ldlat-c2c's reports: perf c2c's Shared Data Cache Line Table
 * (the lines whose HITM are at least 0.1% of all, most HITM first) and its
 * per-line Pareto breakdown (each offset of a line by code address), in
 * text (table.h) and JSON (json.h); and what was not counted, in both.
 */
#ifndef LDLAT_C2CREPORT_H
#define LDLAT_C2CREPORT_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

#include "user/c2c/c2ctable.h"
#include "user/report/output.h"

enum c2c_by {
	C2C_BY_LINE,	/* the Shared Data Cache Line Table and its Pareto */
	C2C_BY_NODE,	/* local and remote accesses per NUMA node */
	C2C_BY_PROCESS, /* the same per process and node */
};

/* One report: the lines, and what it shows beside them. */
struct c2c_report {
	const struct c2c_table *t;
	const char *target; /* "file perf.data" */
	const char *events;
	enum c2c_by by;
	bool all;		    /* every line, not only the shared ones */
	int nrows;		    /* lines in the table (0: all) */
	__u64 kept;		    /* samples counted */
	__u64 filtered;		    /* dropped by the filters */
	__u64 lost;		    /* samples the kernel said it lost */
	__u64 malformed;	    /* records that did not parse */
	__u64 unknown_id;	    /* samples of no event of the file */
	__u64 other;		    /* samples of other events (no data fields) */
	bool live;		    /* the kernel's tables: full and failed say what they lost */
	const __u64 *full, *failed; /* per table (LDLAT_C2C_LINES...); live only */
};

/*
 * ldlat-c2c's formats: text and JSON, each given a struct c2c_report; not
 * the expositions.
 */
extern const struct output_formats c2c_formats;

#endif
