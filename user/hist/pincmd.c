// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/abi/flockholder.h"
#include "user/hist/pincmd.h"
#include "user/report/printer.h"
#include "user/run/run.h"
#include "kernel/lib/util.h"
#include "kernel/lib/notice.h"

/* --pin, --show, --unpin: a set's directory on bpffs; --detach, --delta, --allow-missing */
#define PIN_DIR(name, member, doc)                                                                 \
	{                                                                                          \
		name, 0, "DIR", 0, doc, OPT_TEXT, OPT_TO(struct pin_opts, member),                 \
			.what = "directory name"                                                   \
	}
#define PIN_FLAG(name, member, doc)                                                                \
	{                                                                                          \
		name, 0, NULL, 0, doc, OPT_FLAG, OPT_TO(struct pin_opts, member)                   \
	}

static const struct opt sample_options[] = {
	PIN_DIR("pin", pin,
		"pin the program and its maps in DIR on bpffs for --show (created, mode 0700, "
		"if needed; /sys/fs/bpf is mounted if it is not; a symbolic link on bpffs, or a "
		"directory another user owns or may write, is refused); without --detach they "
		"are removed at the end of the run, and sampling ends with the run however it "
		"ends"),
	PIN_FLAG("detach", detach,
		 "with --pin: pin the perf-event links too and exit at once, leaving the set "
		 "sampling"),
	{},
};

static const struct opt show_options[] = {
	PIN_DIR("show", show,
		"print the histograms of the set pinned in DIR (with -i: every interval)"),
	PIN_FLAG("delta", delta,
		 "the change since the last --show --delta (which records what it printed)"),
	PIN_FLAG("allow-missing", allow_missing,
		 "with --format prometheus or openmetrics: when DIR is missing or empty (the set "
		 "was removed), report ldlat_set_present 0 and exit 0, for an exporter run by a "
		 "timer"),
	{},
};

static const struct opt unpin_options[] = {
	PIN_DIR("unpin", unpin,
		"stop the set pinned in DIR and remove it: links first, then the rest"),
	{},
};

const struct opt_home pin_home = { "struct pin_opts" };

const struct opt_group pin_sample_opts = { 7, "Pinning (watching for hours):", sample_options,
					   .home = &pin_home };
const struct opt_group pin_show_opts = { 7, "The pinned set:", show_options, .home = &pin_home };
const struct opt_group pin_unpin_opts = { 7, "The pinned set:", unpin_options, .home = &pin_home };

int pin_opts__check_sample(const struct pin_opts *po, const struct cli *cli, struct err *err)
{
	if (po->detach && !po->pin)
		return err__set(err, -EINVAL,
				"--detach needs --pin DIR: only a pinned set samples on");
	if (po->detach && cli->target.argv)
		return err__set(
			err, -EINVAL,
			"--detach cannot watch a command: ldlat-hist would have to wait for it; "
			"use -p PID or -G CGROUP");
	if (po->detach && cli->loads)
		return err__set(
			err, -EINVAL,
			"--loads is reported when the run ends, and a --detach'ed set has no end "
			"to report at: drop --loads, or run --pin in the foreground");
	if (po->detach && (cli->duration > 0 || cli->interval > 0))
		return err__set(
			err, -EINVAL,
			"--detach exits at once: %s applies to a run in the foreground, or to "
			"--show",
			cli->duration > 0 ? "-d" : "-i");
	return 0;
}

int pin_opts__check_show(const struct pin_opts *po, const struct cli *cli,
			 const struct output_opts *oo, struct err *err)
{
	if (po->delta && output__totals(oo))
		return err__set(
			err, -EINVAL,
			"--delta does not apply to --format %s, which reports totals since the "
			"start (Prometheus computes the rates)",
			output__name(oo));
	if (po->allow_missing && !output__totals(oo))
		return err__set(err, -EINVAL,
				"--allow-missing reports a missing set as the gauge "
				"ldlat_set_present 0: it needs --format prometheus or openmetrics");
	if (po->allow_missing && (cli->interval > 0 || cli->duration > 0))
		return err__set(
			err, -EINVAL,
			"--allow-missing is for one --show per refresh (a timer): leave out %s; "
			"a --show with -i holds the set, which then cannot be unpinned",
			cli->interval > 0 ? "-i" : "-d");
	return 0;
}

static enum ldlat_pin_target pin_target(enum target_kind k)
{
	switch (k) {
	case TARGET_CPUS:
		return LDLAT_PIN_TARGET_CPUS;
	case TARGET_TASKS:
		return LDLAT_PIN_TARGET_TASKS;
	case TARGET_CGROUP:
		return LDLAT_PIN_TARGET_CGROUP;
	default:
		return LDLAT_PIN_TARGET_SYSTEM;
	}
}

void pin_meta__fill(struct ldlat_pin_meta *m, const struct tool *t, const struct session *s,
		    const struct timespec *started, bool detached)
{
	const struct range_set *set = &t->cli->ranges;
	int i;

	_Static_assert((int)LDLAT_PIN_SOURCE_LDLAT == (int)SOURCE_LDLAT &&
			       (int)LDLAT_PIN_SOURCE_PAGE_FAULTS == (int)SOURCE_PAGE_FAULTS,
		       "the pinned source is enum source_kind");
	memset(m, 0, sizeof(*m));
	memcpy(m->magic, LDLAT_PIN_MAGIC, sizeof(LDLAT_PIN_MAGIC));
	m->layout = LDLAT_PIN_LAYOUT;
	m->started_ns = ts__ns(started);
	m->pid = (__u32)getpid();
	m->detached = detached;
	m->source = (enum ldlat_pin_source)t->src.kind;
	m->target = pin_target(t->run.target.kind);
	m->program = t->path == SESSION_PATH_ADDR_ONLY	  ? LDLAT_PIN_PROG_ADDR_ONLY
		     : t->path == SESSION_PATH_PROBE_READ ? LDLAT_PIN_PROG_SAMPLE_KERN
							  : LDLAT_PIN_PROG_SAMPLE;
	m->fields = t->src.fields;
	if (t->run.target.kind == TARGET_CGROUP)
		m->cgroup_id = pinset__cgroup_id(t->run.target.cgroup_fd, m->cgroup_path,
						 sizeof(m->cgroup_path));
	snprintf(m->event, sizeof(m->event), "%s", t->evlist.evsel[0].name);
	snprintf(m->target_desc, sizeof(m->target_desc), "%s", t->run.target_desc);
	m->nranges = set->nranges;
	for (i = 0; i < set->nranges; i++) {
		snprintf(m->range_text[i], sizeof(m->range_text[i]), "%s", set->range[i].text);
		if (set->range[i].mapping)
			m->range_mapping |= 1u << i;
	}
	m->cfg = t->cfg;
	m->freq = t->evlist.evsel[0].attr.freq;
	m->nevents = (__u32)t->prog->nlinks;
	m->unseen = s->counts		    ? LDLAT_PIN_UNSEEN_COUNTED
		    : t->run.target.inherit ? LDLAT_PIN_UNSEEN_INHERIT
					    : LDLAT_PIN_UNSEEN_NO_COOKIE;
}

int pincmd__unpin(const char *tool, const char *dir)
{
	struct err err = {};
	int removed, links, e = pinset__unpin(dir, &removed, &links, &err);

	if (e)
		return err__report(&err, e, tool, stderr);
	if (removed && links)
		notice__print(stderr, tool, "unpinned %d objects from %s: its sampling has stopped",
			      removed, dir);
	else if (removed)
		notice__print(
			stderr, tool,
			"unpinned %d objects from %s: none was a link, so nothing was sampling "
			"(a set pinned in the foreground stops sampling when its ldlat-hist ends)",
			removed, dir);
	else
		notice__print(stderr, tool, "nothing is pinned in %s: nothing to do", dir);
	return EXIT_OK;
}

/* The ranges as --pin resolved them: texts from meta, spans from the configuration. */
static void ranges_from_meta(struct range_set *set, const struct ldlat_pin_meta *m)
{
	const struct ldlat_config *cfg = &m->cfg;
	int i;

	memset(set, 0, sizeof(*set));
	set->nranges = m->nranges <= LDLAT_MAX_RANGES ? (int)m->nranges : LDLAT_MAX_RANGES;
	for (i = 0; i < set->nranges; i++) {
		snprintf(set->range[i].text, sizeof(set->range[i].text), "%.*s",
			 (int)sizeof(m->range_text[i]), m->range_text[i]);
		set->range[i].mapping = m->range_mapping & (1u << i);
	}
	set->nspans = cfg->nspans <= LDLAT_MAX_SPANS ? (int)cfg->nspans : LDLAT_MAX_SPANS;
	for (i = 0; i < set->nspans; i++) {
		set->span[i].lo = cfg->span_lo[i];
		set->span[i].hi = cfg->span_hi[i];
		set->span[i].range = cfg->span_range[i];
	}
}

/* What --show's printer reads from: the set, and the tool's name for messages. */
struct show_src {
	struct pinset *ps;
	const char *tool;
};

static int show_read(void *src, struct snapshot *snap, struct err *err)
{
	int e = pinset__read(((struct show_src *)src)->ps, snap);

	return e ? err__set(err, e, "cannot read the maps: %s", strerror(-e)) : 0;
}

/* --delta: what was printed is the next --delta's baseline (under the lock on shown). */
static int show_record(void *src, const struct snapshot *cur)
{
	struct show_src *s = src;
	bool held = s->ps->shown_lock_fd >= 0;
	struct err err = {};
	int e = pinset__lock_shown(s->ps, &err);

	if (!e) {
		e = pinset__record_shown(s->ps, cur);
		if (e)
			err__msg(&err, "cannot record what --delta showed in %s: %s", s->ps->dir,
				 strerror(-e));
	}
	if (!held)
		pinset__unlock_shown(s->ps);
	if (e)
		notice__print(stderr, s->tool, "%s", err.msg);
	return e;
}

static const struct printer_ops show_ops = { .read = show_read };
static const struct printer_ops show_delta_ops = { .read = show_read, .printed = show_record };

/* The report of a set that is gone: ldlat_set_present{pin} 0, in the expositions alone. */
static void absent_openmetrics(FILE *f, const void *dir)
{
	render_set_absent(f, dir, false);
}

static void absent_prometheus(FILE *f, const void *dir)
{
	render_set_absent(f, dir, true);
}

static const struct output_formats absent_formats = { "ldlat-hist",
						      .openmetrics = absent_openmetrics,
						      .prometheus = absent_prometheus };

/* --allow-missing, and the set is gone: the exposition says so, and the exporter goes on. */
static int show_absent(const char *tool, const struct pinset *ps, const struct output_opts *oo,
		       struct err *why)
{
	struct output_opts absent = *oo;
	struct err err = {};

	absent.formats = &absent_formats;
	notice__print(stderr, tool, "%s: reporting ldlat_set_present 0", why->msg);
	if (output__write(&absent, ps->dir, false, &err)) {
		notice__print(stderr, tool, "%s", err.msg);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* --show --by KEY: the split a set has is the one it was pinned with. */
static int show_split_check(const struct pinset *ps, const char *dir, __u32 split, struct err *err)
{
	const char *want = split__name(split), *has = split__name(ps->meta.cfg.by);

	if (!split || split == ps->meta.cfg.by)
		return 0;
	if (!has)
		return err__set(err, -EINVAL,
				"--show '%s' --by %s: the set was pinned without a split, which "
				"the program makes as it samples; pin a set with --pin DIR --by %s",
				dir, want, want);
	return err__set(err, -EINVAL,
			"--show '%s' --by %s: the set was pinned split by %s, and shows that "
			"split only; drop --by %s, or pin another set with --by %s",
			dir, want, has, want, want);
}

int pincmd__show(const char *tool, const struct pin_opts *po, const struct cli *cli,
		 const struct output_opts *oo, enum hist_by by, bool by_set, __u32 split)
{
	struct pinset ps;
	struct show_src show = { .ps = &ps, .tool = tool };
	struct range_set ranges;
	struct source src = {};
	struct run_info run = {};
	struct printer p = {};
	struct err err = {};
	char event[sizeof(ps.meta.event) + 1], target[sizeof(ps.meta.target_desc) + 1];
	bool removed, timed = cli->interval > 0 || cli->duration > 0;
	int e, status = EXIT_FAIL, links;
	struct run wait; /* -i and -d: no command, no target */
	enum run_end end;

	run__init(&wait, cli, tool);
	e = pinset__open(&ps, po->show, &err);
	if (e && ps.absent && po->allow_missing)
		return show_absent(tool, &ps, oo, &err);
	if (!e)
		e = show_split_check(&ps, po->show, split, &err);
	if (e) {
		pinset__close(&ps);
		return err__report(&err, e, tool, stderr);
	}
	ranges_from_meta(&ranges, &ps.meta);
	src.kind = (enum source_kind)ps.meta.source;
	src.fields = ps.meta.fields;
	snprintf(event, sizeof(event), "%.*s", (int)sizeof(ps.meta.event), ps.meta.event);
	snprintf(target, sizeof(target), "%.*s", (int)sizeof(ps.meta.target_desc),
		 ps.meta.target_desc);
	removed = pinset__cgroup_removed(&ps.meta);
	links = pinset__links(&ps);
	if (links < 0) {
		notice__print(stderr, tool, "cannot list %s: %s", ps.dir, strerror(-links));
		goto out;
	}
	run = (struct run_info){
		.tool = tool,
		.event = event,
		.target = target,
		.cfg = &ps.meta.cfg,
		.started = ts__from_ns(ps.meta.started_ns),
		.pin_dir = ps.dir,
		.pin_pid = (int)ps.meta.pid,
		.pin_detached = ps.meta.detached,
		/* a foreground run holds the set's flock while it lives, whatever its PID is now */
		.pin_owner_dead = !ps.meta.detached && !flock__held_by(ps.dir_fd, (int)ps.meta.pid),
		.cgroup_removed = removed ? ps.meta.cgroup_path : NULL,
		/* the links the set says it pinned: only those can be missing */
		.pin_links = (int)ps.meta.nlinks,
		.pin_links_missing =
			(__u32)links < ps.meta.nlinks ? (int)ps.meta.nlinks - links : 0,
	};
	if (run.pin_links_missing && !output__text(oo)) {
		fprintf(stderr, "%s: warning: ", tool);
		render_links_missing(stderr, &run);
		fputc('\n', stderr);
	}
	if (run.pin_owner_dead && !output__text(oo))
		notice__print(
			stderr, tool,
			"warning: PID %d, which pinned %s in the foreground, died without "
			"removing it: the set's sampling ended with it, and it holds the counts "
			"until then (%s unpin %s removes it)",
			run.pin_pid, ps.dir, tool, ps.dir);
	if (removed && !output__text(oo))
		notice__print(
			stderr, tool,
			"warning: the cgroup %s has been removed since it was pinned: the set "
			"counts nothing any more",
			ps.meta.cgroup_path);
	p.tool = tool;
	p.out = oo;
	/* only --delta moves the baseline: exporters and other readers leave it alone */
	p.ops = po->delta ? &show_delta_ops : &show_ops;
	p.ctx = &show;
	p.view = (struct hist_view){
		.run = &run,
		.src = &src,
		.ranges = &ranges,
		.by = by_set ? by : (src.fields & LDLAT_HAS_LAT ? BY_CLASS : BY_RANGE),
		.linear_step = ps.meta.cfg.linear_step,
		.has_latency = src.fields & LDLAT_HAS_LAT,
		.intervals = cli->interval > 0,
		.period_weighted = ps.meta.freq,
	};
	if (printer__init_by(&p, ps.meta.cfg.nranges, ps.meta.cfg.by, ps.meta.cfg.by_keys + 1,
			     &run.started)) {
		fprintf(stderr, "%s: out of memory\n", tool);
		goto out;
	}
	/* the baseline: the last --delta, now (for -i and -d), or the start */
	if (po->delta) {
		if (pinset__lock_shown(&ps, &err)) {
			notice__print(stderr, tool, "%s", err.msg);
			goto out;
		}
		e = pinset__read_shown(&ps, &p.prev);
		if (!e && !p.prev.taken.tv_sec && !p.prev.taken.tv_nsec)
			p.prev.taken = run.started; /* never shown: everything since the start */
		/* one report: read, print and record under one lock; -i: each record locks */
		if (timed)
			pinset__unlock_shown(&ps);
	} else if (timed) {
		e = printer__mark(&p, &err);
	}
	if (e) {
		notice__print(stderr, tool, "cannot read the set in %s: %s", ps.dir, strerror(-e));
		goto out;
	}
	if (!timed) {
		status = printer__print(&p) ? EXIT_FAIL : EXIT_OK;
		goto out;
	}
	if (run__signals(&wait, &err)) {
		notice__print(stderr, tool, "%s", err.msg);
		goto out;
	}
	end = run__wait(
		&wait, &(struct run_wait){ .on_interval = cli->interval > 0 ? printer__print : NULL,
					   .ctx = &p });
	if (end == RUN_ERROR)
		goto out;
	status = EXIT_OK;
	p.final = true;
	if (end != RUN_COUNT && printer__print(&p))
		status = EXIT_FAIL;
out:
	run__teardown(&wait);
	printer__free(&p);
	pinset__close(&ps);
	return status;
}
