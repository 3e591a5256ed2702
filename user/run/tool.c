// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "user/run/tool.h"
#include "user/run/config.h"
#include "user/run/entry.h"
#include "user/run/privs.h"
#include "user/report/render.h"
#include "user/run/toolsconf.h"
#include "kernel/lib/err.h"
#include "kernel/lib/notice.h"

/*
 * A command stopped at its exec has mapped only the program and the loader:
 * a range naming a library is resolved at its entry point, once the loader
 * has mapped every library the program links.
 */
static int tool__run_to_libraries(struct tool *t, struct err *err)
{
	const struct range_set *set = &t->cli->ranges;
	const char *name = t->cli->target.argv[0];
	struct err why = {};
	int first, i, e;

	first = i = range_set__first_unmapped(set, t->run.cmd.pid);
	if (i < 0)
		return 0;
	e = command__run_to_entry(&t->run.cmd, name, t->run.sigfd, &why);
	if (e == -EOPNOTSUPP)
		return err__set(err, -EINVAL,
				"-a '%s' names a library that '%s' maps only once it runs: %s",
				set->range[i].text, name, why.msg);
	if (e) {
		*err = why;
		return e;
	}
	i = range_set__first_unmapped(set, t->run.cmd.pid);
	if (i >= 0) {
		err__msg(err,
			 "no mapping '%s' in '%s' at its entry point, where every library it links "
			 "is mapped (a library it loads later with dlopen cannot be named)",
			 set->range[i].text, name);
		return -EINVAL;
	}
	/* perf record counts from the exec: say where these counts start */
	notice__print(stderr, t->name,
		      "note: -a '%s' is resolved at the entry point of '%s', where the loader has "
		      "mapped it: counting starts there; the loader's own faults and loads in it "
		      "before are not counted (perf record counts them, from the exec)",
		      set->range[first].text, name);
	return 0;
}

/* Mapping names ([heap], a file) are looked up in one process. */
static int tool__resolve_ranges(struct tool *t, struct err *err)
{
	struct range_set *set = &t->cli->ranges;
	pid_t pid = 0;
	int e;

	if (range_set__has_mappings(set)) {
		if (t->run.has_cmd) {
			pid = t->run.cmd.pid;
			e = tool__run_to_libraries(t, err);
			if (e)
				return e;
		} else if (t->run.nprocs == 1)
			pid = t->run.procs[0];
		else if (t->run.nprocs > 1) {
			return err__set(
				err, -EINVAL,
				"address ranges that name mappings need a single -p process");
		}
	}
	return range_set__resolve(set, pid, err);
}

/*
 * Whether the kernel refused an event the user wrote (--event, or -L, -c,
 * -F on top of the table's): bad input, where tools.conf's own choice
 * failing is the system's.
 */
static bool tool__user_event(const struct cli *cli, int open_errno)
{
	bool refused = open_errno == EINVAL || open_errno == ENOENT || open_errno == EOPNOTSUPP ||
		       open_errno == ENODEV || open_errno == ENODATA || open_errno == E2BIG;

	return refused &&
	       (cli->source.event || cli->source.ldlat || cli->source.period || cli->source.freq);
}

/*
 * --event a software, tracepoint or breakpoint event: its samples carry no
 * memory op (data_src is N/A), so the default --op load would keep none of
 * them.  The default filter is lifted, saying so; an --op given is refused.
 */
static int tool__adapt_op_filter(struct tool *t, struct cli *cli, struct err *err)
{
	const struct evsel *ev = t->evlist.nevsel ? &t->evlist.evsel[0] : NULL;

	if (!cli->source.event || !ev ||
	    (ev->attr.type != PERF_TYPE_SOFTWARE && ev->attr.type != PERF_TYPE_TRACEPOINT &&
	     ev->attr.type != PERF_TYPE_BREAKPOINT))
		return 0;
	if (cli->op_set && cli->op_mask)
		return err__set(err, -EINVAL,
				"--op keeps no sample of --event %s: a software, tracepoint or "
				"breakpoint event's samples carry no memory op; give --op any or "
				"drop --op",
				cli->source.event);
	if (!cli->op_set)
		notice__print(
			stderr, t->name,
			"--event %s: its samples carry no memory op, so they are kept whatever "
			"their op (--op any; the default --op load would keep none)",
			cli->source.event);
	cli->op_mask = 0;
	return 0;
}

int tool__start(struct tool *t, struct cli *cli, const char *name, const struct tool_opts *o,
		struct err *err)
{
	const struct tool_hooks *hooks = o->hooks;
	char notice[2048], why[512], *line, *save = NULL;
	bool loads_late = false;
	int e;

	memset(t, 0, sizeof(*t));
	t->name = name;
	t->cli = cli;
	t->prog = o->prog;
	run__init(&t->run, cli, name);
	cli__libbpf_verbose(cli->verbose);

	e = privs__check(err);
	if (e)
		return e;
	e = run__signals(&t->run, err);
	if (e)
		return e;
	e = toolsconf__load(&t->table, cli->config, NULL, err);
	if (e)
		return e;
	t->table_loaded = true;
	cli->source.table = &t->table;
	e = source__resolve(&cli->source, &t->src, &t->evlist, notice, sizeof(notice), err);
	if (e)
		return e;
	for (line = strtok_r(notice, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		notice__print(stderr, name, "%s", line);
	/* the address-only program reads ctx->addr, which every kernel fills */
	t->path = session__read_path(why, sizeof(why));
	if (t->path == SESSION_PATH_ADDR_ONLY) {
		if (t->src.fields & (LDLAT_HAS_LAT | LDLAT_HAS_DSRC))
			fprintf(stderr,
				"%s: warning: %s; running address-only (no latency, no data "
				"source)\n",
				name, why);
		t->addr_only = true;
		t->src.fields = LDLAT_HAS_ADDR;
	}
	/* as the latency filters are: auto's fallback cannot keep them either */
	if (cli->source.ldlat && t->src.kind != SOURCE_LDLAT)
		return err__set(
			err, -EINVAL, "--ldlat applies to --source ldlat, not %s%s",
			source__name(t->src.kind),
			cli->source.kind == SOURCE_AUTO
				? " (--source auto fell back to page faults here): drop --ldlat"
				: "");
	if (cli->source.event && cli->source.kind == SOURCE_PAGE_FAULTS)
		return err__set(err, -EINVAL,
				"--event applies to --source ldlat or auto, not page-faults");
	e = tool__adapt_op_filter(t, cli, err);
	if (e)
		return e;
	e = config__check_fields(cli, t->src.fields, o->linear_step,
				 t->addr_only ? "this kernel cannot give to BPF (address-only mode)"
					      : "page-fault samples do not carry",
				 err);
	if (e)
		return e;
	if (cli->loads) {
		e = loads__init(&t->loads, cli->loads_event, cli->config, err);
		if (e)
			return e;
	}

	/*
	 * A command's events are opened before its exec and enabled by it
	 * (enable_on_exec), so that they count the exec's own faults as perf's
	 * do; unless a range names a mapping, which exists only after the exec.
	 */
	t->run.hold_exec = !range_set__has_mappings(&cli->ranges);
	e = run__prepare(&t->run, err);
	if (e)
		return e;
	e = tool__resolve_ranges(t, err);
	if (e)
		return e;
	if (cli->verbose) {
		char spans[512];
		int i;

		for (i = 0; i < cli->ranges.nranges; i++) {
			range_set__describe(&cli->ranges, i, spans, sizeof(spans));
			notice__print(stderr, name, "range %d: %s = %s", i,
				      cli->ranges.range[i].text, spans);
		}
		notice__print(stderr, name, "source: %s", t->src.why);
		notice__print(stderr, name, "read path: %s (%s)", session__path_name(t->path), why);
	}

	config__fill(&t->cfg, cli, t->src.fields, t->src.weight_struct, o->linear_step);
	t->cfg.fixed_period = config__fixed_period(&t->evlist);
	t->cfg.by = o->by;
	t->cfg.by_keys = o->by ? o->by_keys : 0;
	if (hooks && hooks->configure) {
		e = hooks->configure(t, hooks->ctx, err);
		if (e)
			return e;
	}
	e = prog__open(t->prog, t, err);
	if (e)
		return e;
	if (run__before_exec(&t->run)) {
		int i;

		for (i = 0; i < t->evlist.nevsel; i++)
			t->evlist.evsel[i].attr.enable_on_exec = 1;
	}
	e = evlist__open(&t->evlist, &t->run.target, err);
	if (e && tool__user_event(cli, t->evlist.failed_errno))
		e = err__input(err, e);
	if (e)
		return e;
	e = prog__attach(t->prog, &t->evlist, err);
	if (e)
		return e;
	/*
	 * libbpf enables an event as it attaches the program: disabled again
	 * (the command sleeps until run__exec, so nothing was counted), the
	 * exec enables it, not the faults of execvp's path search before it
	 */
	if (run__before_exec(&t->run) && (e = evlist__disable(&t->evlist))) {
		err__msg(err, "cannot disable the events until the exec: %s", strerror(-e));
		return e;
	}
	/* the --loads counter as well: enabled by the exec when the command waits for it */
	if (t->loads.active && run__before_exec(&t->run)) {
		e = loads__start(&t->loads, &t->run.target, true, err);
		if (e)
			return e;
	} else if (t->loads.active) {
		loads_late = true;
	}
	/* the exec enables the events; the enable below then does nothing more */
	e = run__exec(&t->run, err);
	if (e)
		return e;
	/* the command at its exec stop: its new program's mappings are in /proc */
	if (hooks && hooks->before_enable) {
		e = hooks->before_enable(t, hooks->ctx, err);
		if (e)
			return e;
	}
	e = evlist__enable(&t->evlist);
	if (e) {
		err__msg(err, "cannot enable the events: %s", strerror(-e));
		return e;
	}
	if (loads_late) {
		e = loads__start(&t->loads, &t->run.target, false, err);
		if (e)
			return e;
	}
	return run__go(&t->run, err);
}

void tool__run_info(const struct tool *t, const struct timespec *started, struct run_info *run)
{
	*run = (struct run_info){
		.tool = t->name,
		.event = t->evlist.evsel[0].name,
		.target = t->run.target_desc,
		.cfg = &t->cfg,
		.started = *started,
	};
}

void tool__stop_sampling(struct tool *t)
{
	evlist__disable(&t->evlist);
	if (t->loads.active && loads__stop(&t->loads))
		fprintf(stderr, "%s: cannot read the --loads counter\n", t->name);
}

int tool__sampled_count(const struct tool *t, __u64 *count)
{
	__u64 v;
	int i;

	*count = 0;
	for (i = 0; i < t->evlist.nfds; i++) {
		if (read(t->evlist.fds[i].fd, &v, sizeof(v)) != sizeof(v))
			return -errno ? -errno : -EIO;
		*count += v;
	}
	return 0;
}

int tool__read_unseen(const struct tool *t, struct unseen *u)
{
	const struct evfd *f;
	__u64 v;
	int i;

	memset(u, 0, sizeof(*u));
	for (i = 0; i < t->evlist.nfds; i++) {
		f = &t->evlist.fds[i];
		if (read(f->fd, &v, sizeof(v)) != sizeof(v))
			return -errno ? -errno : -EIO;
		unseen__add_count(u, &t->evlist.evsel[f->evsel].attr, v);
	}
	return 0;
}

int tool__read_maps(void *ctx, struct snapshot *snap, struct err *err)
{
	struct tool *t = ctx;
	struct unseen u;
	int e;

	/*
	 * The counts first, then the maps: a sample that arrives between the
	 * two is in 'seen' and maybe not in the count, so the figure can fall
	 * short of the loss for a moment, never exceed it.
	 */
	e = tool__read_unseen(t, &u);
	if (e)
		return err__set(err, e, "cannot read the sampling events' counts: %s",
				strerror(-e));
	e = prog__read(t->prog, snap, false, err);
	if (e)
		return e;
	u.seen = snap->counters.seen;
	u.seen_period = snap->counters.seen_period;
	snap->unseen = u;
	return 0;
}

int tool__exit_status(struct tool *t, enum run_end end)
{
	return run__exit_status(&t->run, end);
}

void tool__teardown(struct tool *t)
{
	if (t->run.has_cmd)
		command__stop(&t->run.cmd);
	if (t->prog)
		prog__close(t->prog);
	evlist__free(&t->evlist);
	loads__free(&t->loads);
	source__free(&t->src);
	if (t->table_loaded)
		evtable__free(&t->table);
	t->table_loaded = false;
	run__teardown(&t->run);
}
