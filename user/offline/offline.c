// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "user/offline/offline.h"
#include "user/run/config.h"
#include "user/run/targets.h"
#include "user/symbols/machine.h"
#include "kernel/lib/notice.h"

/* Linux's default RLIMIT_STACK: how far [stack] may grow below its recorded mapping. */
#define DEFAULT_STACK_LIMIT (8ull << 20)

static bool event__is_page_faults(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE && (a->config == PERF_COUNT_SW_PAGE_FAULTS ||
						 a->config == PERF_COUNT_SW_PAGE_FAULTS_MIN ||
						 a->config == PERF_COUNT_SW_PAGE_FAULTS_MAJ);
}

/*
 * The fields an event's samples give the logic, as the live sources decide
 * them: page faults give the address only (as --source page-faults does,
 * whatever else perf recorded), other events what their sample_type holds.
 */
static __u32 event__fields(const struct perf_event_attr *a)
{
	__u32 fields = 0;

	if (a->sample_type & PERF_SAMPLE_ADDR)
		fields |= LDLAT_HAS_ADDR;
	if (event__is_page_faults(a))
		return fields;
	if (a->sample_type & PERF_SAMPLE_WEIGHT_TYPE)
		fields |= LDLAT_HAS_LAT;
	if (a->sample_type & PERF_SAMPLE_DATA_SRC)
		fields |= LDLAT_HAS_DSRC;
	return fields;
}

/* Chooses the events to analyse and what their samples carry, as a resolved source. */
static int offline__choose_events(struct offline *o, struct err *err)
{
	const struct perf_file *f = &o->file;
	__u32 fields = ~0u;
	bool all_pf = true, all_ws = true;
	size_t len = 0;
	int i;

	o->use = calloc(f->nevents, sizeof(*o->use));
	if (!o->use)
		return -ENOMEM;
	for (i = 0; i < f->nevents; i++) {
		const struct perf_file_event *ev = &f->events[i];
		__u32 fi = event__fields(&ev->attr);

		if (!fi ||
		    (ev->attr.type == PERF_TYPE_SOFTWARE && ev->attr.config == PERF_COUNT_SW_DUMMY))
			continue;
		if (ev->unparseable[0]) {
			err__msg(err, "%s: cannot read the samples of event '%s': %s", f->path,
				 ev->name, ev->unparseable);
			return -EINVAL;
		}
		o->use[i] = true;
		o->nused++;
		fields &= fi;
		all_pf &= event__is_page_faults(&ev->attr);
		all_ws &= !!(ev->attr.sample_type & PERF_SAMPLE_WEIGHT_STRUCT);
		if (len < sizeof(o->events))
			len += snprintf(o->events + len, sizeof(o->events) - len, "%s%s",
					o->nused > 1 ? ", " : "", ev->name);
	}
	if (!o->nused) {
		err__msg(err,
			 "%s has no event whose samples carry a data address, a latency or a data "
			 "source: record with perf mem record, or perf record -d (addresses) -W "
			 "(latency)",
			 f->path);
		return -EINVAL;
	}
	o->src.kind = all_pf ? SOURCE_PAGE_FAULTS : SOURCE_LDLAT;
	o->src.fields = fields;
	o->src.weight_struct = all_ws;
	snprintf(o->src.why, sizeof(o->src.why), "%s: %s", f->path, o->events);
	return 0;
}

/* Events whose samples lack a field an option needs: the first, or -1. */
static int offline__event_lacking(const struct offline *o, __u64 sample_bit)
{
	int i;

	for (i = 0; i < o->file.nevents; i++)
		if (o->use[i] && !(o->file.events[i].attr.sample_type & sample_bit))
			return i;
	return -1;
}

/* -p: a filter on the samples' process ID (the BPF program's TGID set). */
static int offline__processes(struct offline *o, const struct cli *cli, struct err *err)
{
	pid_t *pids;
	int n, i, e, ev;

	if (!cli->target.pids)
		return 0;
	ev = offline__event_lacking(o, PERF_SAMPLE_TID);
	if (ev >= 0) {
		err__msg(
			err,
			"-p needs the process of each sample, which %s's event '%s' did not record "
			"(PERF_SAMPLE_TID)",
			o->file.path, o->file.events[ev].name);
		return -EINVAL;
	}
	e = target__parse_pids(cli->target.pids, &pids, &n, err);
	if (e)
		return e;
	if (n > LDLAT_MAX_TGIDS) {
		err__msg(err, "-p '%s': at most %d processes", cli->target.pids, LDLAT_MAX_TGIDS);
		free(pids);
		return -EINVAL;
	}
	for (i = 0; i < n; i++)
		o->cfg.tgid[i] = (__u32)pids[i];
	o->cfg.ntgids = n;
	free(pids);
	return 0;
}

/* ---- the mappings of one process, as the file's side band leaves them ----------- */

struct vmas {
	struct vma *v;
	int n;
};

/* The mappings of pid as the file's records leave them (since its last exec). */
static int offline__vmas(const struct offline *o, pid_t pid, struct vmas *vs, struct err *err)
{
	struct machine m;
	struct perf_cursor c;
	struct perf_record r;
	struct sideband_rec sb;
	const struct proc *p;
	int e, i;

	machine__init(&m, MACHINE_FILE_ORDER);
	perf_file__rewind(&o->file, &c);
	while ((e = perf_file__next(&o->file, &c, &r, NULL, err)) > 0)
		if (!perf_file__parse_sideband(&o->file, &r, &sb) && machine__process(&m, &sb)) {
			e = -ENOMEM;
			break;
		}
	p = procmaps__find(&m.pm, pid);
	if (!e && p && p->nmaps && !(vs->v = calloc(p->nmaps, sizeof(*vs->v))))
		e = -ENOMEM;
	for (i = 0; !e && p && i < p->nmaps; i++) {
		const struct mapping *map = &p->maps[i];

		vs->v[i] = (struct vma){ map->start, map->end, map->pgoff, "" };
		/* anonymous memory: an empty name, as the maps file leaves it */
		snprintf(vs->v[i].path, sizeof(vs->v[i].path), "%s", map->name ? map->name : "");
		vs->n++;
	}
	machine__free(&m);
	return e < 0 && e != -ENOMEM ? -EINVAL : e;
}

/*
 * -a: address ranges as given; mapping names ([heap], [stack], a file)
 * against the one -p process's mappings as the file recorded them.
 */
static int offline__ranges(struct offline *o, struct cli *cli, struct err *err)
{
	struct range_set *set = &cli->ranges;
	struct vm_bounds bounds = {};
	struct vmas vs = {};
	struct err why = {};
	pid_t *pids;
	int n = 0, e, ev;

	if (set->nranges) {
		ev = offline__event_lacking(o, PERF_SAMPLE_ADDR);
		if (ev >= 0) {
			err__msg(err,
				 "-a needs data addresses, which %s's event '%s' did not record "
				 "(record with perf mem record, or perf record -d)",
				 o->file.path, o->file.events[ev].name);
			return -EINVAL;
		}
	}
	if (!range_set__has_mappings(set))
		return range_set__resolve_vmas(set, NULL, 0, &bounds, err);
	if (cli->target.pids) {
		e = target__parse_pids(cli->target.pids, &pids, &n, err);
		if (e)
			return e;
		if (n == 1)
			e = offline__vmas(o, pids[0], &vs, err);
		free(pids);
		if (e)
			goto out;
	}
	if (n != 1) {
		err__msg(err,
			 "address ranges that name mappings need a single -p process: its mappings "
			 "come from %s's MMAP records",
			 o->file.path);
		e = -EINVAL;
		goto out;
	}
	/* the recording holds no limits: Linux's default stack, this machine's memory */
	bounds.heap_room = range__default_heap_room();
	bounds.stack_limit = DEFAULT_STACK_LIMIT;
	e = range_set__resolve_vmas(set, vs.v, vs.n, &bounds, &why);
	if (e)
		err__msg(err, "%s (as %s recorded process %s)", why.msg, o->file.path,
			 cli->target.pids);
out:
	free(vs.v);
	return e;
}

int offline__open(struct offline *o, const char *path, struct cli *cli, __u32 linear_step,
		  struct err *err)
{
	char lacking[512];
	int e;

	memset(o, 0, sizeof(*o));
	e = perf_file__open(&o->file, path, err);
	if (e)
		return e;
	e = offline__choose_events(o, err);
	if (e)
		return e;
	if (cli->target.pids)
		snprintf(o->target, sizeof(o->target), "file %s, PID %s", path, cli->target.pids);
	else
		snprintf(o->target, sizeof(o->target), "file %s", path);
	snprintf(lacking, sizeof(lacking), "the samples of %s (%s) do not carry", path, o->events);
	if (o->src.kind == SOURCE_PAGE_FAULTS)
		snprintf(lacking, sizeof(lacking), "page-fault samples do not carry");
	e = config__check_fields(cli, o->src.fields, linear_step, lacking, err);
	if (e)
		return e;
	e = offline__ranges(o, cli, err);
	if (e)
		return e;
	config__fill(&o->cfg, cli, o->src.fields, o->src.weight_struct, linear_step);
	return offline__processes(o, cli, err);
}

/* What a split needs the file to hold: a field of every analysed event's samples. */
static int split__needs(const struct offline *o, const char *key, __u64 bit, const char *what,
			const char *how, struct err *err)
{
	int ev = offline__event_lacking(o, bit);

	if (ev < 0)
		return 0;
	return err__set(err, -EINVAL,
			"--by %s needs %s of each sample, which %s's event '%s' did not record "
			"(%s)",
			key, what, o->file.path, o->file.events[ev].name, how);
}

int offline__split(struct offline *o, __u32 by, __u32 keys, struct err *err)
{
	struct offline_split *sp = &o->split;
	const char *key = split__name(by);
	const struct perf_file *f = &o->file;
	int e = 0;

	switch (by) {
	case LDLAT_BY_NONE:
		return 0;
	case LDLAT_BY_PID:
	case LDLAT_BY_TID:
		e = split__needs(o, key, PERF_SAMPLE_TID,
				 by == LDLAT_BY_PID ? "the process" : "the thread",
				 "PERF_SAMPLE_TID", err);
		break;
	case LDLAT_BY_CGROUP:
		e = split__needs(o, key, PERF_SAMPLE_CGROUP, "the cgroup",
				 "PERF_SAMPLE_CGROUP: record with perf record --all-cgroups", err);
		break;
	case LDLAT_BY_CPU:
	case LDLAT_BY_NODE:
		e = split__needs(o, key, PERF_SAMPLE_CPU, "the CPU",
				 "PERF_SAMPLE_CPU: record with perf record -a or --sample-cpu",
				 err);
		keys = (__u32)(by == LDLAT_BY_NODE ? f->nnodes
			       : f->nr_cpus	   ? f->nr_cpus
						   : f->ncpu_node);
		if (!e && by == LDLAT_BY_NODE && !f->cpu_node)
			e = err__set(err, -EINVAL,
				     "--by node needs the NUMA node of each sample's CPU, and %s "
				     "holds no NUMA topology of the machine that recorded it "
				     "(HEADER_NUMA_TOPOLOGY): split it --by cpu",
				     f->path);
		else if (!e && !keys)
			e = err__set(err, -EINVAL,
				     "--by cpu needs the number of CPUs of the machine that "
				     "recorded %s, which it does not hold (HEADER_NRCPUS)",
				     f->path);
		break;
	case LDLAT_BY_REGION:
		e = split__needs(o, key, PERF_SAMPLE_DATA_SRC, "the data source",
				 "PERF_SAMPLE_DATA_SRC: record with perf mem record", err);
		keys = LDLAT_BY_REGIONS;
		break;
	default:
		return err__set(err, -EINVAL, "--by: no such split");
	}
	if (e)
		return e;
	sp->rows = keys < LDLAT_BY_MAX_KEYS ? keys : LDLAT_BY_MAX_KEYS;
	for (sp->nslots = 64; sp->nslots < 2 * sp->rows;)
		sp->nslots *= 2;
	sp->row_key = calloc(sp->rows, sizeof(*sp->row_key));
	sp->slot_key = calloc(sp->nslots, sizeof(*sp->slot_key));
	sp->slot_row = calloc(sp->nslots, sizeof(*sp->slot_row));
	if (!sp->row_key || !sp->slot_key || !sp->slot_row)
		return err__set(err, -ENOMEM, "out of memory for the rows of --by %s", key);
	o->cfg.by = by;
	o->cfg.by_keys = sp->rows;
	return 0;
}

/* The row of a key (pid, tid, cgroup): its own, or the next free one, or the others'. */
static __u32 split__keyed_row(struct offline_split *sp, __u64 key)
{
	__u32 i = (__u32)((key * 0x9e3779b97f4a7c15ull) >> 40) & (sp->nslots - 1);

	for (; sp->slot_row[i]; i = (i + 1) & (sp->nslots - 1))
		if (sp->slot_key[i] == key)
			return sp->slot_row[i] - 1;
	if (sp->used == sp->rows)
		return sp->rows;
	sp->slot_key[i] = key;
	sp->slot_row[i] = sp->used + 1;
	sp->row_key[sp->used] = key;
	return sp->used++;
}

/* snapshot__account_row's row_of: the row of the sample in sp->ps, as ldlat_by_row. */
static __u32 split__row(void *ctx)
{
	struct offline *o = ctx;
	struct offline_split *sp = &o->split;
	const struct perf_sample *ps = sp->ps;
	__u32 r;

	switch (o->cfg.by) {
	case LDLAT_BY_PID:
		return split__keyed_row(sp, ps->pid);
	case LDLAT_BY_TID:
		return split__keyed_row(sp, ps->tid);
	case LDLAT_BY_CGROUP:
		return split__keyed_row(sp, ps->cgroup);
	case LDLAT_BY_CPU:
		r = ps->cpu;
		break;
	case LDLAT_BY_NODE:
		r = ps->cpu < (__u32)o->file.ncpu_node && o->file.cpu_node[ps->cpu] >= 0
			    ? (__u32)o->file.cpu_node[ps->cpu]
			    : sp->rows;
		break;
	default:
		r = ldlat_by_region(sp->sample->data_src);
		break;
	}
	return r < sp->rows ? r : sp->rows;
}

/* The keys of the rows handed out, into snap (a CPU, node or region: every row its own). */
static void split__keys(const struct offline *o, struct snapshot *snap)
{
	const struct offline_split *sp = &o->split;
	bool keyed = o->cfg.by == LDLAT_BY_PID || o->cfg.by == LDLAT_BY_TID ||
		     o->cfg.by == LDLAT_BY_CGROUP;
	__u32 r;

	for (r = 0; r < sp->rows && r + 1 < snapshot__nrows(snap); r++) {
		snap->row_key[r] = keyed ? sp->row_key[r] : r;
		snap->row_set[r] = !keyed || r < sp->used;
	}
}

/* The next sample of an analysed event (offline__next_sample), inlined into the hot loop. */
static inline int next_sample(struct offline *o, struct perf_cursor *c, struct perf_record *r,
			      struct perf_sample *ps, struct err *err)
{
	const struct perf_file *f = &o->file;
	int e;

	while ((e = perf_file__next(f, c, r, &o->stats, err)) > 0) {
		if (r->type != PERF_RECORD_SAMPLE)
			continue;
		e = perf_file__parse_sample(f, r, ps);
		if (e) {
			if (e == -ENOENT)
				o->unknown_id++;
			else if (e == -EOPNOTSUPP)
				o->other_events++;
			else
				o->malformed++;
			continue;
		}
		if (!o->use[ps->event]) {
			o->other_events++;
			continue;
		}
		return 1;
	}
	return e;
}

int offline__next_sample(struct offline *o, struct perf_cursor *c, struct perf_record *r,
			 struct perf_sample *ps, struct err *err)
{
	return next_sample(o, c, r, ps, err);
}

/*
 * The hot loop: one pass over the mapped file, each sample parsed in place
 * and judged, bucketed and counted by the same code the BPF program runs.
 */
int offline__run(struct offline *o, struct snapshot *snap, struct err *err)
{
	struct perf_cursor c;
	struct perf_record r;
	struct perf_sample ps;
	struct ldlat_sample s;
	__u32 cls;
	int e;

	perf_file__rewind(&o->file, &c);
	if (!o->cfg.by) {
		while ((e = next_sample(o, &c, &r, &ps, err)) > 0) {
			offline__ldlat_sample(&o->cfg, &ps, &s);
			s.period = offline__sample_period(o, &ps);
			snapshot__account(snap, &o->cfg, &s);
		}
		return e;
	}
	/* a new pass hands the rows out again, in the same order */
	o->split.used = 0;
	memset(o->split.slot_row, 0, o->split.nslots * sizeof(*o->split.slot_row));
	o->split.ps = &ps;
	o->split.sample = &s;
	while ((e = next_sample(o, &c, &r, &ps, err)) > 0) {
		offline__ldlat_sample(&o->cfg, &ps, &s);
		s.period = offline__sample_period(o, &ps);
		snapshot__account_row(snap, &o->cfg, &s, &cls, split__row, o);
	}
	split__keys(o, snap);
	return e;
}

bool offline__freq(const struct offline *o)
{
	int i;

	for (i = 0; i < o->file.nevents; i++)
		if (o->use[i] && o->file.events[i].attr.freq)
			return true;
	return false;
}

void offline__reset_counts(struct offline *o)
{
	memset(&o->stats, 0, sizeof(o->stats));
	o->other_events = o->malformed = o->unknown_id = 0;
}

int offline__read(void *ctx, struct snapshot *snap, struct err *err)
{
	struct offline *o = ctx;
	int e;

	snapshot__clear(snap);
	offline__reset_counts(o);
	e = offline__run(o, snap, err);
	clock_gettime(CLOCK_REALTIME, &snap->taken);
	return e;
}

void offline__run_info(const struct offline *o, const char *tool, const struct timespec *started,
		       struct run_info *run)
{
	*run = (struct run_info){
		.tool = tool,
		.event = o->events,
		.target = o->target,
		.cfg = &o->cfg,
		.started = *started,
	};
}

void offline__report_skipped(const struct offline *o, const char *tool, FILE *out)
{
	const char *path = o->file.path;

	if (o->stats.lost)
		notice__print(out, tool,
			      "warning: %s: the kernel lost %llu samples while perf recorded (perf "
			      "could not keep up: a larger -m buffer or a lower rate helps)",
			      path, (unsigned long long)o->stats.lost);
	if (o->malformed)
		notice__print(out, tool,
			      "warning: %s: skipped %llu samples whose fields do not fit their "
			      "record",
			      path, (unsigned long long)o->malformed);
	if (o->unknown_id)
		notice__print(out, tool,
			      "warning: %s: skipped %llu samples of no event of the file (unknown "
			      "ID)",
			      path, (unsigned long long)o->unknown_id);
	if (o->stats.auxtrace)
		notice__print(out, tool,
			      "note: %s holds an AUX area trace (ARM SPE, Intel PT): perf decodes "
			      "samples from it itself; this tool reads the PERF_RECORD_SAMPLE "
			      "records only",
			      path);
	if (o->stats.unknown_types)
		notice__print(out, tool,
			      "note: %s: skipped %llu records of types this build does not know",
			      path, (unsigned long long)o->stats.unknown_types);
}

int offline_sb__cmp(const void *a, const void *b)
{
	const struct offline_sb *x = a, *y = b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

bool offline__timed(const struct perf_file *f)
{
	int i;

	for (i = 0; i < f->nevents; i++)
		if (!(f->events[i].attr.sample_type & PERF_SAMPLE_TIME) ||
		    !f->events[i].attr.sample_id_all)
			return false;
	return true;
}

void offline__close(struct offline *o)
{
	perf_file__close(&o->file);
	free(o->use);
	o->use = NULL;
	free(o->split.row_key);
	free(o->split.slot_key);
	free(o->split.slot_row);
	memset(&o->split, 0, sizeof(o->split));
}
