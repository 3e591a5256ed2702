/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * render.h - printing a snapshot: histograms grouped by class, range, both or
 * neither, with a summary line each and the filter counters.
 */
#ifndef LDLAT_RENDER_H
#define LDLAT_RENDER_H

#include <stdbool.h>
#include <stdio.h>

#include "kernel/policy/source.h"
#include "user/symbols/ranges.h"
#include "user/report/output.h"
#include "user/report/snapshot.h"

enum hist_by {
	BY_CLASS, /* one histogram per data-source class (the default) */
	BY_RANGE, /* one per address range */
	BY_BOTH,  /* one per (range, class) */
	BY_NONE,  /* one for everything kept */
};

/*
 * What a run watches and since when: the machine-readable formats carry it in
 * every report, and --show prints it for a pinned set.
 */
struct run_info {
	const char *tool;		/* "ldlat-hist" */
	const char *event;		/* "page-faults (period 1)", "cpu/mem-loads,ldlat=30/P" */
	const char *target;		/* "cgroup web.slice", "system-wide (2 CPUs)" */
	const struct ldlat_config *cfg; /* the filters the program applies */
	struct timespec started;	/* CLOCK_REALTIME when sampling started */
	const char *pin_dir;		/* a pinned set's --show: its directory, else NULL */
	int pin_pid;			/* the ldlat-hist that pinned it */
	bool pin_detached;		/* pinned with --detach */
	bool pin_owner_dead;		/* in the foreground, and pin_pid died without unpinning */
	const char *cgroup_removed;	/* the set's -G cgroup, when it has been removed */
	int pin_links;			/* the links the set pinned (DIR/link_*) */
	int pin_links_missing;		/* of those, the ones gone from DIR */
};

/*
 * --loads (user/run/loads.h): every load counted beside the sampling, and the
 * share of them the samples stand for; in the report at the end of a run.
 */
/* Why the samples can stand for more loads than the counter counted. */
#define LOADS_SKEW                                                                                 \
	"the counter and the sampling events start and are read at slightly different "            \
	"moments, so a share near 100% cannot be told apart; count over a longer span"

struct loads_share {
	const char *event; /* the counting event */
	double loads;	   /* its count, scaled when it was multiplexed */
	double running;	   /* the share of the time it was on a counter */
	const char *what;  /* what the samples are: "at or above the threshold" */
	double above;	   /* the events the samples stand for */
	const char *how;   /* how 'above' was found: "4000 samples x period 37" */
};

/* How a run's histograms are shown, report after report. */
struct hist_view {
	const struct run_info *run;	 /* NULL: text output only */
	const struct loads_share *loads; /* NULL: no --loads; else over this report's span */
	const struct source *src;
	const struct range_set *ranges; /* nranges 0: one range, every address */
	enum hist_by by;
	__u32 linear_step;
	bool has_latency;    /* the samples carry latency and data source */
	bool intervals;	     /* each snapshot is one interval: print its time */
	double ns_per_cycle; /* --unit ns: text latencies in nanoseconds; 0: cycles */
	const char *ns_why;  /* where the nominal frequency came from */
	/*
	 * Frequency mode: each sample stands for its own period of events, so
	 * shares and event estimates weigh samples by period; else every
	 * sample stands for the same period and shares of samples are shares
	 * of events.
	 */
	bool period_weighted;
};

/*
 * One report of the histograms: what an interval saw (text, JSON) and the
 * totals since the start (the expositions, whose scraper takes the rates).
 */
struct hist_report {
	const struct hist_view *view;
	const struct snapshot *interval, *total;
	bool with_run; /* text: the run's description first (a pinned set's, render_text_run) */
};

/* The histograms' formats: text, JSON, OpenMetrics and Prometheus, each given a struct hist_report. */
extern const struct output_formats hist_formats;

/* A group of cells to print as one histogram. */
struct group {
	int range;   /* -1: every range */
	int cls;     /* -1: every class */
	int row;     /* --by's row (snapshot.row_key), the others last; -1: no split */
	__u32 by;    /* enum ldlat_by of the split (LDLAT_BY_NONE: none) */
	bool others; /* the split's others: keys that found no row */
	__u64 key;   /* the row's key: PID, TID, CPU, node, cgroup id */
	struct cell sum;
};

/*
 * The groups to print for r->by, non-empty ones only, in class and range
 * order, each row of a --by split in turn.  Returns how many were written
 * to groups (at most max).
 */
int hist_view__groups(const struct hist_view *r, const struct snapshot *s, struct group *groups,
		      int max);

/* The most groups hist_view__groups can give for s: allocate that many. */
int hist_view__max_groups(const struct snapshot *s);

/* --by's key names: "pid", "tid", "cpu", "node", "cgroup"; NULL for none. */
const char *split__name(__u32 by);

/* How a --by split's rows were used: rows holding samples, of all, and the others' samples. */
struct split_use {
	__u32 used, rows;
	__u64 others;
};
void split__use(const struct snapshot *s, struct split_use *u);

/* A group's row as a label: "1234", "others"; "" without a split. */
void hist_group__row(const struct group *g, char *buf, size_t len);

/* "[heap] 0x55d0...-0x7f12..." or "all addresses", for range i. */
void hist_view__range_name(const struct hist_view *r, int range, char *buf, size_t len);

void render_text(FILE *out, const struct hist_view *r, const struct snapshot *s);

/* The memory ops of --op by index (0 to HIST_NOPS - 1): "load", "store", "pfetch", "exec". */
#define HIST_NOPS 4
const char *hist__op_name(unsigned int i, __u32 *bit);

/*
 * The filter counters' line ("filters: N seen, M kept; dropped: ..."), and
 * the unseen line when the events' counts were read.  cfg (may be NULL) names the ops the op filter kept.
 */
void render_counters(FILE *out, const struct snapshot *s, const struct ldlat_config *cfg);

/*
 * The "unseen" line of render_counters: what the events produced that the
 * program did not see ("at least" for a lower bound), or why it is not
 * measured when u->why says.
 */
void render_unseen(FILE *out, const struct unseen *u);

/* Every cell of s summed: the whole the shares are of. */
void hist__total(const struct snapshot *s, struct cell *all);

/* part / whole in percent; 0 for an empty whole. */
double hist__share(__u64 part, __u64 whole);

/* The --loads line of render_text. */
void render_loads_text(FILE *out, const struct loads_share *l);

/*
 * What a pinned set was started with and the span of time s covers, as text
 * (the header of --show).
 */
void render_text_run(FILE *out, const struct hist_view *r, const struct snapshot *s);

/*
 * The sentence for a pinned set whose links are missing from its directory
 * (run->pin_links_missing of run->pin_links): a warning in every format.
 */
void render_links_missing(FILE *out, const struct run_info *run);

/* One JSON object on one line (JSON Lines): the schema is in README.md. */
void render_json(FILE *out, const struct hist_view *r, const struct snapshot *s);

struct json;

/*
 * The members every JSON report of the tools starts with: tool, time,
 * interval, source, event, target, started (user/report/json.h writes them).
 */
void render_json_run(struct json *j, const struct run_info *run, const struct source *src,
		     const struct snapshot *s);

/* The "counters" member: seen, kept, dropped by reason, seen_period, unseen. */
void render_json_counters(struct json *j, const struct snapshot *s);

/*
 * The "unseen" member: null when not measured, with "unseen_unknown" beside
 * it when u->why says why (render_unseen's figures).
 */
void render_json_unseen(struct json *j, const struct unseen *u);

/* The "percentile_error" member: {kind: "relative" | "cycles", bound}. */
void render_json_percentile_error(struct json *j, __u32 linear_step);

/*
 * An exposition of totals, in OpenMetrics 1.0 or in the Prometheus text
 * format: s must hold everything since the start, as Prometheus computes
 * the rates.
 */
void render_openmetrics(FILE *out, const struct hist_view *r, const struct snapshot *s);
void render_prometheus(FILE *out, const struct hist_view *r, const struct snapshot *s);

/*
 * What --show --allow-missing reports when pin_dir holds no set:
 * ldlat_set_present{pin} 0 alone.
 */
void render_set_absent(FILE *out, const char *pin_dir, bool prometheus);

/* "all", "0x1000-0x2000"...: a group's range as a label; class likewise ("all", "l3"). */
void hist_view__group_range(const struct hist_view *r, const struct group *g, char *buf,
			    size_t len);
const char *hist_group__class(const struct group *g);

#endif
