/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * topreport.h - ldlat-top's report: table entries symbolized and gathered
 * into rows (a function and its DSO; a variable or mapping and where it
 * lives), sorted, and printed in perf top's shape (samples, percent,
 * function, DSO) with latency and data source, as text or JSON; its call
 * paths as folded stacks or a flame graph; its formats, declared once.
 */
#ifndef LDLAT_TOPREPORT_H
#define LDLAT_TOPREPORT_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

#include "user/report/heatmap.h"
#include "user/report/output.h"
#include "user/report/render.h"
#include "user/report/snapshot.h"
#include "user/symbols/symbolize.h"
#include "user/top/callpath.h"
#include "user/top/toptable.h"

enum top_by {
	TOP_BY_IP = 1 << 0,
	TOP_BY_DATA = 1 << 1,
	TOP_BY_BOTH = TOP_BY_IP | TOP_BY_DATA,
	TOP_BY_TYPE = 1 << 2,	  /* the IP table's rows by data type and member */
	TOP_BY_SRCLINE = 1 << 3,  /* the IP table's rows by source line */
	TOP_BY_ANNOTATE = 1 << 4, /* one function's instructions (--annotate) */
	TOP_BY_ANNOTYPE = 1 << 5, /* one data type's members (--annotate-type) */
};

/* The views whose rows come from the kernel's IP table. */
#define TOP_BY_CODE (TOP_BY_IP | TOP_BY_TYPE | TOP_BY_SRCLINE | TOP_BY_ANNOTATE | TOP_BY_ANNOTYPE)

enum top_sort {
	TOP_SORT_SAMPLES, /* most samples first */
	TOP_SORT_LATENCY, /* highest mean latency first */
	TOP_SORT_TOTAL,	  /* highest latency sum (samples x mean) first */
};

enum top_data_by {
	TOP_DATA_OBJECT, /* a row per variable or mapping */
	TOP_DATA_BLOCK,	 /* a row per cache line or page of it */
};

struct top_row {
	char *name;  /* function, variable, mapping; type and member; source line */
	char *where; /* DSO; for a mapping, the process name; for a source line, the function */
	enum sym_kind kind;
	bool kernel;
	bool pooled;  /* name and where are in a struct top_rows' pool, not the row's own */
	__s64 offset; /* data: of the block (block rows) or of the hottest block (object rows) */
	__u64 start; /* data: the variable's or mapping's start (else the block's) in the first process */
	__u64 blocks; /* data: lines or pages touched */
	__u64 hot;    /* data: samples of the hottest block */
	struct ldlat_top_val v;
	const struct datatype *dt; /* type rows: what the name says (the symbolizer's) */
	const struct srcline *sl;  /* source-line rows: the line and the inlined frames */
	__u64 lo, hi;		   /* annotation rows: the function's file addresses */
	const char *insn;	   /* annotation rows: the instruction, as objdump writes it */
};

struct top_strpool;
struct top_slim_block;
/*
 * A data type's members in one file with the samples that touched each
 * (--annotate-type): a member's count holds its members' (every member
 * whose bytes hold the access's offset counts it, as perf annotate
 * --data-type counts).
 */
struct top_typeblock {
	char *file;		   /* where the code that touched it is */
	struct datatype_member *m; /* the type (m[0]) and its members, depth first */
	size_t n;		   /* 0: the file's DWARF has no layout of the type */
	struct ldlat_top_val *v;   /* per member */
	__u64 samples;		   /* the type's, in this file */
	__u64 unplaced;		   /* of them, at no known offset, or outside the type */
};

struct top_rows {
	struct top_row *r;
	size_t n;
	/*
	 * the names of rows made from table entries, each string once: a
	 * table of 300,000 lines of one mapping has two
	 */
	struct top_strpool *pool;
	/*
	 * the early rows of a data table of counts alone (top_rows__take_exited):
	 * blocks of 48 bytes, every sample of class blk_uniform, instead of rows
	 * (n is 0 then); top_rows__held counts them
	 */
	struct top_slim_block *blk;
	size_t nblk;
	__u32 blk_uniform;
	size_t pruned;	    /* rows past the ones kept (top_rows__data_runs' keep) */
	__u64 pruned_count; /* and their samples */
	__u64 total;	    /* attributed and not: what percentages are of */
	__u64 full, failed; /* not attributed (struct top_table) */
	__u64 capped;	    /* not attributed: keys past --max-keys (struct top_table) */
	__u64 spilled;	    /* attributed through the spill ring */
	/* an annotation (top_rows__annotate): the function's file, its range, the samples elsewhere */
	char *file;
	__u64 lo, hi, outside;
	struct codeinfo_insn *insns;
	/* a type's annotation (top_rows__annotate_type): a block per file, most samples first */
	struct top_typeblock *types;
	size_t ntypes;
};

/*
 * Rows of the IP table: one per function (and DSO), with the rows named
 * early (NULL: none).  Returns 0 or -ENOMEM.
 */
int top_rows__ip(struct top_rows *rows, const struct top_table *t, struct symbolizer *z,
		 const struct top_rows *early);

/*
 * Rows of the IP table by data type and member (TOP_BY_TYPE: "struct
 * conn.rx_bytes", "[untyped: no debug info]") or by source line
 * (TOP_BY_SRCLINE: "file.c:42", with the function, "func (inlined)" where
 * it was), with the rows named early.  Returns 0 or -ENOMEM.
 */
int top_rows__code(struct top_rows *rows, const struct top_table *t, struct symbolizer *z,
		   unsigned int by, const struct top_rows *early);

/*
 * An annotation of function func: a row per instruction of it, in address
 * order, with its samples (none: 0) and the type and member it touches;
 * where several files have a function of that name, the one with the most
 * samples.  rows->total is the function's samples, rows->outside the
 * others'; rows->n is 0 when no sample is in a function of that name.
 * Returns 0 or -ENOMEM.
 */
int top_rows__annotate(struct top_rows *rows, const struct top_table *t, struct symbolizer *z,
		       const char *func, const struct top_rows *early);

/*
 * An annotation of data type type ("struct conn", as --by type names it):
 * a block per file whose code touched it, its members with their samples;
 * rows->total is every sample, rows->outside those of other types and
 * untyped; rows->ntypes is 0 when no sample touched a type of that name.
 * Returns 0 or -ENOMEM.
 */
int top_rows__annotate_type(struct top_rows *rows, const struct top_table *t, struct symbolizer *z,
			    const char *type, const struct top_rows *early);

/*
 * Rows of the data table, whose blocks are 1 << shift bytes, with early's
 * (rows of exited processes, top_rows__take_exited: taken, early is left
 * empty), in no order (top_rows__sort orders them). Returns 0 or -ENOMEM.
 */
int top_rows__data(struct top_rows *rows, const struct top_table *t, struct symbolizer *z,
		   __u32 shift, enum top_data_by by, struct top_rows *early);

/*
 * top_rows__data as a row per entry, named and folded: what it does for
 * any table but object rows of a table of counts alone, which it makes
 * from 48-byte blocks, a row per object (the same rows, in the same order).
 */
int top_rows__data_each(struct top_rows *rows, const struct top_table *t, struct symbolizer *z,
			__u32 shift, enum top_data_by by, struct top_rows *early);

/*
 * A data table too large to hold (--input of a file whose samples touch
 * millions of lines) in runs: each run is a window of the table named and
 * folded into block rows, written sorted by (name, DSO, offset) to an
 * unlinked temporary file.  Merging the runs gives every block's exact
 * count, and every object's (blocks, hottest block) exactly too.
 */
struct top_runs {
	FILE **f;
	size_t n;
	__u64 rows; /* block rows written */
};

/*
 * Names t's entries, writes them as a run and empties t (its not-attributed
 * counts stay).  Returns 0 or -errno.
 */
int top_runs__spill(struct top_runs *runs, struct top_table *t, struct symbolizer *z, __u32 shift);
void top_runs__free(struct top_runs *runs);

/*
 * top_rows__data over the runs and t together (early may be taken, as
 * there).  With keep > 0 and block rows, only the keep first rows in sort's
 * order are kept whole; the others are counted in pruned and pruned_count
 * (memory: keep rows, one row per run, and t).  Returns 0 or -errno.
 */
int top_rows__data_runs(struct top_rows *rows, const struct top_table *t, struct symbolizer *z,
			__u32 shift, enum top_data_by by, struct top_rows *early,
			const struct top_runs *runs, size_t keep, enum top_sort sort);

/*
 * Names the entries of processes that have exited (all their samples
 * drained) now, into early (a row per function, or per data block, as the
 * report folds them), and removes them from t: their mappings can then be
 * forgotten, and memory stays bounded by the live processes and the code
 * and data met, not by how many processes came and went.  by: the rows
 * the report makes of t (TOP_BY_IP, _TYPE, _SRCLINE, _ANNOTATE of function
 * func of the IP table;
 * TOP_BY_DATA: t is the data table, blocks of 1 << shift bytes).  Returns
 * 0 or -ENOMEM.
 */
int top_rows__take_exited(struct top_rows *early, struct top_table *t, struct symbolizer *z,
			  unsigned int by, const char *func, __u32 shift);

/*
 * top_rows__take_exited as rows, whatever the table: what it does but for a
 * data table of counts alone, whose entries it names into early's blocks.
 */
int top_rows__take_exited_each(struct top_rows *early, struct top_table *t, struct symbolizer *z,
			       unsigned int by, const char *func, __u32 shift);

/* The rows, or the blocks, rows holds (for --max-keys: what early rows hold). */
size_t top_rows__held(const struct top_rows *rows);

void top_rows__sort(struct top_rows *rows, enum top_sort sort);
void top_rows__free(struct top_rows *rows);

/* How ldlat-top's tables are shown, report after report. */
struct top_view {
	unsigned int by; /* enum top_by */
	enum top_sort sort;
	enum top_data_by data_by;
	int nrows;	  /* rows printed per table */
	__u32 shift;	  /* data block: 6 (cache line) or 12 (page) */
	bool has_latency; /* the samples carry latency and data source */
	bool intervals;	  /* each report is one interval: print its time */
	bool clear;	  /* clear the screen before each report (a terminal) */
	int width;	  /* text: the terminal's columns (0: full width, a file or pipe) */
	const struct run_info *run; /* tool, event, target, start: the JSON header */
	const struct source *src;
	const struct callpaths *paths; /* --call-graph's (NULL: off) */
	const char *annotate; /* TOP_BY_ANNOTATE: the function; TOP_BY_ANNOTYPE: the type */
};

/*
 * The rows of ip are by r->by's code key: functions (TOP_BY_IP), types
 * (TOP_BY_TYPE) or source lines (TOP_BY_SRCLINE).
 */
void top_render_text(FILE *out, const struct top_view *r, const struct top_rows *ip,
		     const struct top_rows *data, const struct snapshot *s);
void top_render_json(FILE *out, const struct top_view *r, const struct top_rows *ip,
		     const struct top_rows *data, const struct snapshot *s);

/* One report of ldlat-top: the tables' rows, what the interval counted, the call paths. */
struct top_report {
	const struct top_view *view;
	const struct top_rows *ip, *data;
	const struct snapshot *delta;
	const struct callpaths *paths; /* folded, svg: drawn alone */
	enum callpath_weight weight;   /* what folded stacks and the flame graph weigh */
	const struct heatmap *heat;    /* --heatmap: text shows its last columns; NULL: none */
	const void *profile;	       /* pprof: the paths' profile, packed and gzipped */
	size_t profile_len;
};

/*
 * ldlat-top's formats: text, JSON, folded, svg and pprof (the call paths), each
 * given a struct top_report; not the expositions: its tables rank, they
 * are not totals.
 */
extern const struct output_formats top_formats;

/* --heatmap FILE: the report's heat map, an SVG of its own (top_report's heat and run). */
struct output_opts top_heatmap_file(const char *path);

#endif
