/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * offline.h - the same filters and histograms over samples perf recorded
 * (perf mem record, perf record -d -W) instead of samples taken live: the
 * file's events stand for the source, and every sample goes through the
 * native build of the per-sample logic (ldlat_judge, ldlat_classify,
 * ldlat_bucket in bpf/ldlat.h), counted as the BPF program counts it.  No
 * root, no BPF, no PMU.
 */
#ifndef LDLAT_OFFLINE_H
#define LDLAT_OFFLINE_H

#include <stdbool.h>
#include <stddef.h>

#include "kernel/abi/perfdata.h"
#include "kernel/abi/sideband.h"
#include "kernel/lib/err.h"
#include "kernel/policy/source.h"
#include "user/run/cli.h"
#include "user/report/render.h"
#include "user/report/snapshot.h"

/*
 * --by's split of a file's samples, row for row as the BPF program's
 * ldlat_by_row makes it live: a CPU, node or memory region is its own row;
 * a process, thread or cgroup takes the next free row on its first kept
 * sample; a key that finds no row left goes to the others (row 'rows').
 */
struct offline_split {
	__u32 rows;	 /* rows before the others' (the configuration's by_keys) */
	__u32 used;	 /* rows handed out to keys (pid, tid, cgroup) */
	__u64 *row_key;	 /* each handed-out row's key */
	__u64 *slot_key; /* open addressing, key -> row + 1 in slot_row (0: empty) */
	__u32 *slot_row;
	__u32 nslots;			   /* a power of two above twice rows */
	const struct perf_sample *ps;	   /* the sample being accounted */
	const struct ldlat_sample *sample; /* the same as the logic sees it */
};

struct offline {
	struct perf_file file;
	struct source src; /* what the analysed events carry (render's view) */
	bool *use;	   /* per event of the file: analysed */
	int nused;
	char events[512]; /* names of the analysed events, for messages */
	char target[600]; /* "file PATH", for the reports */
	struct ldlat_config cfg;
	struct perf_file_stats stats;
	__u64 other_events; /* samples of events not analysed (dummy, no data fields) */
	__u64 malformed;    /* samples whose fields do not fit their record: skipped */
	__u64 unknown_id;   /* samples whose ID names no event: skipped */
	struct offline_split split;
};

/*
 * Opens the file, chooses the events to analyse (those whose samples carry a
 * data address, a latency or a data source), resolves the ranges and builds
 * the configuration as a live run would (-p becomes a process filter).
 * Returns 0 or -errno with a sentence in err (err__status tells the
 * status: a bad file or an option the file cannot serve is -EINVAL).
 */
int offline__open(struct offline *o, const char *path, struct cli *cli, __u32 linear_step,
		  struct err *err);

/*
 * --by KEY (enum ldlat_by) after offline__open: the samples split by the key
 * the file records for each (pid and tid: PERF_SAMPLE_TID, cpu:
 * PERF_SAMPLE_CPU, node: that and the recording's NUMA topology, cgroup:
 * PERF_SAMPLE_CGROUP, region: the data source), with keys rows for a
 * process, thread or cgroup; a CPU's and a node's rows are the recording
 * machine's.  Sets o->cfg.by and by_keys.  Returns 0, or -EINVAL with a
 * sentence naming the file when it lacks the key.
 */
int offline__split(struct offline *o, __u32 by, __u32 keys, struct err *err);

/*
 * The next sample of an analysed event from cursor c: 1 with its record and
 * fields, 0 at the end of the data section, or -EINVAL with a sentence in
 * err when it is corrupted.  Records of other types are passed over and
 * counted in o->stats (stats.records counts every record); samples that do
 * not parse, or of events not analysed, are counted and skipped.
 */
int offline__next_sample(struct offline *o, struct perf_cursor *c, struct perf_record *r,
			 struct perf_sample *ps, struct err *err);

/* Zeroes what the walks count (o->stats and the skipped samples) before a new pass. */
void offline__reset_counts(struct offline *o);

/*
 * A sample as the BPF program's ldlat_sample() fills it from
 * perf_sample_data: the address, IP and process, and the latency and data
 * source where cfg needs them.
 */
static inline void offline__ldlat_sample(const struct ldlat_config *cfg,
					 const struct perf_sample *ps, struct ldlat_sample *s)
{
	s->addr = ps->addr;
	s->ip = ps->ip;
	s->tgid = ps->pid;
	s->flags = (ps->type & PERF_SAMPLE_ADDR) ? LDLAT_HAS_ADDR : 0;
	s->lat = 0;
	s->data_src = 0;
	/* without PERF_SAMPLE_PERIOD the event's fixed period: offline__sample_period */
	s->period = (ps->type & PERF_SAMPLE_PERIOD) ? ps->period : 0;
	if ((cfg->need & LDLAT_HAS_LAT) && (ps->type & PERF_SAMPLE_WEIGHT_TYPE)) {
		s->lat = perf_sample__latency(ps);
		s->flags |= LDLAT_HAS_LAT;
	}
	if ((cfg->need & LDLAT_HAS_DSRC) && (ps->type & PERF_SAMPLE_DATA_SRC)) {
		s->data_src = ps->data_src;
		s->flags |= LDLAT_HAS_DSRC;
	}
}

/* The events a sample stands for: its period, or its event's fixed one. */
static inline __u64 offline__sample_period(const struct offline *o, const struct perf_sample *ps)
{
	const struct perf_event_attr *a = &o->file.events[ps->event].attr;

	if (ps->type & PERF_SAMPLE_PERIOD)
		return ps->period;
	return a->freq ? 0 : a->sample_period;
}

/* Whether an analysed event was recorded in frequency mode: the samples' periods vary. */
bool offline__freq(const struct offline *o);

/* Every sample of the file into snap (initialised for cfg.nranges). 0 or -EINVAL and err. */
int offline__run(struct offline *o, struct snapshot *snap, struct err *err);

/*
 * The whole file's counts in snap, replacing what it held (a printer's read,
 * as a live session's: ctx is the struct offline), stamped now.  0, or
 * -errno with the sentence in err.
 */
int offline__read(void *o, struct snapshot *snap, struct err *err);

/*
 * What the reports say about the run: the tool, the analysed events, the
 * file as the target, the filters; started: when the analysis started
 * (perf.data holds a wall-clock time of its recording only when perf
 * record ran with --clockid).
 */
void offline__run_info(const struct offline *o, const char *tool, const struct timespec *started,
		       struct run_info *run);

/* What was skipped, one line each on out, prefixed with tool; nothing when nothing was. */
void offline__report_skipped(const struct offline *o, const char *tool, FILE *out);

void offline__close(struct offline *o);

/*
 * A side-band record of a file, where it comes in time order: its time
 * (how a file without times stands in for it is the reader's choice), then
 * its place in the file.  perf record writes each CPU's buffer in turn, so
 * a record may come in the file after a sample it precedes.
 */
struct offline_sb {
	__u64 at;
	__u64 seq; /* its index in the file */
	struct sideband_rec r;
};

/* qsort's comparison of two struct offline_sb: by time, then place in the file. */
int offline_sb__cmp(const void *a, const void *b);

/* Every event carries a timestamp in its samples and in its other records. */
bool offline__timed(const struct perf_file *f);

#endif
