// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/policy/ldlat_event.h"
#include "kernel/lib/notice.h"
#include "kernel/abi/evspec.h"
#include "kernel/abi/pmu.h"
#include "kernel/abi/sysfs.h"
#include "bpf/ldlat.h"
#include "kernel/lib/util.h"

enum origin_kind {
	FROM_OPTION, /* --event */
	FROM_TABLE,  /* a tools.conf entry */
	FROM_ALIAS,  /* the kernel's events/mem-loads */
};

/* Where an event came from, for messages and --list-events. */
struct origin {
	enum origin_kind kind;
	char where[600]; /* names the input in error messages */
	char why[512];
	const struct evtable_entry *entry; /* FROM_TABLE; FROM_OPTION: the one giving the range */
	enum core_type core;
};

struct build {
	const struct source_opts *o;
	const struct evtable *t;
	struct source *src;
	struct evlist *evlist;
	char *notice;
	size_t noticelen;
	struct err *err;
	bool no_pebs; /* a PMU offers no precise level: no other path can do better */
};

/* The PMU an entry's event or leader uses ("" for a raw or generic event). */
static void spec__pmu(const char *text, char *pmu, size_t len)
{
	struct evspec spec;
	struct err err = {};

	pmu[0] = '\0';
	if (!text[0] || evspec__parse(&spec, text, &err))
		return;
	if (spec.ev[spec.nevents - 1].kind == EVSPEC_PMU)
		snprintf(pmu, len, "%s", spec.ev[spec.nevents - 1].pmu);
	evspec__free(&spec);
}

/* Whether enc selects the event text names: the same PMU, event and umask fields. */
static bool enc__selects(const struct evspec_attr *enc, const char *text)
{
	static const char *const fields[] = { "event", "umask" };
	const struct pmu_format *f;
	struct evspec spec;
	struct evspec_attr o;
	struct err err = {};
	char notice[256];
	bool same = false;
	unsigned int i;

	if (!enc->has_pmu || !text[0] || evspec__parse(&spec, text, &err))
		return false;
	if (!evspec__encode(&spec.ev[spec.nevents - 1], &o, notice, sizeof(notice), &err) &&
	    o.has_pmu && !strcmp(o.pmu.name, enc->pmu.name) && o.attr.type == enc->attr.type) {
		same = true;
		for (i = 0; i < ARRAY_SIZE(fields); i++) {
			f = pmu__format(&enc->pmu, fields[i]);
			if (f &&
			    pmu_format__decode(f, &enc->attr) != pmu_format__decode(f, &o.attr))
				same = false;
		}
	}
	evspec_attr__free(&o);
	evspec__free(&spec);
	return same;
}

/*
 * Whether an --event is a load-latency event: the table's event for its PMU,
 * or its PMU's mem-loads alias (a raw r1cd as much as cpu/mem-loads/).
 */
static bool option__is_ldlat(const struct origin *org, const struct evspec_attr *enc)
{
	char text[PMU_NAME_MAX + 16];

	if (org->kind != FROM_OPTION)
		return true;
	if (org->entry && enc__selects(enc, org->entry->event))
		return true;
	if (!enc->has_pmu || !pmu__alias(&enc->pmu, "mem-loads"))
		return false;
	snprintf(text, sizeof(text), "%s/mem-loads/", enc->pmu.name);
	return enc__selects(enc, text);
}

static int build__threshold(struct build *b, const struct origin *org,
			    const struct evspec_event *ev, struct evspec_attr *enc,
			    struct source_event *se, bool is_ldlat)
{
	const struct pmu_format *f = enc->has_pmu ? pmu__format(&enc->pmu, "ldlat") : NULL;
	const struct evtable_entry *en = org->entry;
	const struct evtable_entry *range = en && en->has_ldlat ? en : NULL;
	const struct evspec_term *term = evspec_event__term(ev, "ldlat");
	const __u64 asked = b->o->ldlat;
	char what[128], spec[64];
	__u64 v = 0;
	int e;

	if (asked) {
		if (!f || (org->kind == FROM_TABLE && !en->has_ldlat)) {
			err__msg(b->err,
				 "--ldlat %llu: %s has no hardware latency threshold; keep the "
				 "loads "
				 "of %llu cycles and more with --min-lat %llu instead (filtered in "
				 "BPF)",
				 (unsigned long long)asked, org->where, (unsigned long long)asked,
				 (unsigned long long)asked);
			return -EINVAL;
		}
		if (org->kind == FROM_OPTION && term) {
			err__msg(b->err,
				 "--ldlat %llu and the ldlat term of %s both set the threshold: "
				 "give "
				 "one of them",
				 (unsigned long long)asked, org->where);
			return -EINVAL;
		}
		v = asked;
		snprintf(what, sizeof(what), "--ldlat %llu", (unsigned long long)asked);
	} else if (org->kind == FROM_OPTION && f && !term && is_ldlat &&
		   !(range && range->ldlat_default_off)) {
		/* no ldlat term of its own: the default, as the table's event gets it */
		v = pmu_format__decode(f, &enc->attr); /* what its alias sets */
		if (v != b->t->ldlat) {
			snprintf(spec, sizeof(spec), "its alias sets ldlat=%llu",
				 (unsigned long long)v);
			notice__add(b->notice, b->noticelen,
				    "%s: %s; the default threshold %llu (%s [defaults]) applies: "
				    "write ldlat=N in the event, or -L N, to choose",
				    org->where, v ? spec : "no ldlat term",
				    (unsigned long long)b->t->ldlat, b->t->path);
		}
		v = b->t->ldlat;
		snprintf(what, sizeof(what), "the default threshold %llu (%s [defaults])",
			 (unsigned long long)v, b->t->path);
	} else if (org->kind == FROM_OPTION) {
		/* as written: the spec's own term (0 is below any minimum), or its alias's */
		v = f ? pmu_format__decode(f, &enc->attr) : 0;
		snprintf(what, sizeof(what), "the threshold %llu of %s", (unsigned long long)v,
			 org->where);
		if (!v && !(term && range))
			return 0;
	} else if ((org->kind == FROM_TABLE && en->has_ldlat && !en->ldlat_default_off) ||
		   (org->kind == FROM_ALIAS && f)) {
		v = b->t->ldlat;
		snprintf(what, sizeof(what), "the default threshold %llu (%s [defaults])",
			 (unsigned long long)v, b->t->path);
	} else {
		return 0;
	}
	if (!f) {
		err__msg(b->err,
			 "%s sets a latency threshold, but PMU '%s' has no ldlat term (its format "
			 "in sysfs): remove 'ldlat =' from the entry",
			 org->where, enc->pmu.name);
		return -EINVAL;
	}
	if (range && v < range->ldlat_min) {
		notice__add(b->notice, b->noticelen,
			    "%s raised to %llu cycles, the hardware's minimum (%s:%d)", what,
			    (unsigned long long)range->ldlat_min, b->t->path, range->ldlat_line);
		v = range->ldlat_min;
	} else if (range && v > range->ldlat_max) {
		return err__set(b->err, -ERANGE,
				"%s is above the hardware's maximum of %llu cycles (%s:%d [%s])",
				what, (unsigned long long)range->ldlat_max, b->t->path,
				range->ldlat_line, range->name);
	}
	if (range && range->ldlat_step > 1 && v % range->ldlat_step)
		notice__add(b->notice, b->noticelen,
			    "%s: the hardware compares the threshold in steps of %llu cycles (it "
			    "interrupts from %llu); the kernel drops the samples up to %llu cycles",
			    what, (unsigned long long)range->ldlat_step,
			    (unsigned long long)(v / range->ldlat_step * range->ldlat_step),
			    (unsigned long long)v);
	e = pmu_format__encode(f, v, &enc->attr);
	if (e == -ERANGE) {
		pmu_format__snprint(f, spec, sizeof(spec));
		return err__set(b->err, -ERANGE, "%s does not fit %s's ldlat field (%d bits: %s)",
				what, enc->pmu.name, __builtin_popcountll(f->mask), spec);
	}
	if (e)
		return e;
	se->has_ldlat = true;
	se->ldlat = v;
	if (range) {
		se->has_range = true;
		se->ldlat_min = range->ldlat_min;
		se->ldlat_max = range->ldlat_max;
		se->ldlat_step = range->ldlat_step;
	}
	return 0;
}

/*
 * A load-latency event needs precise sampling (PEBS): opened with
 * precise_ip 0 it counts, but every sample carries address 0, weight 0 and
 * PERF_MEM_NA, i.e. "unknown source at latency 0".  caps/max_precise reads 0
 * when the kernel found PEBS unusable (off in the firmware, or microcode
 * that the kernel marks PEBS broken on).
 */
static int build__no_pebs(struct build *b, const struct origin *org, const struct evspec_attr *enc)
{
	b->no_pebs = true;
	err__msg(b->err,
		 "no load-latency event on this machine: %s's caps/max_precise is 0, so the "
		 "kernel offers no precise sampling (PEBS) and %s would sample no address, "
		 "latency or data source. Enable PEBS in the firmware or update the CPU "
		 "microcode, or use " LDLAT_EVENT_ADVICE,
		 enc->pmu.name, org->where);
	return err__system(b->err, -ENOENT);
}

static int build__precise(struct build *b, const struct origin *org, const struct evspec_event *ev,
			  struct evspec_attr *enc, bool is_ldlat)
{
	int max = enc->has_pmu ? enc->pmu.max_precise : -1, want;

	if (is_ldlat && max == 0)
		return build__no_pebs(b, org, enc);
	if (org->kind == FROM_OPTION) {
		/* as written (evspec__encode capped it), unless it asks for no precise level */
		want = org->entry ? org->entry->precise : 2;
		if (!is_ldlat || ev->mods.precise || ev->mods.precise_max || !want)
			return 0;
		if (max >= 0 && want > max)
			want = max;
		if (!want)
			return 0;
		enc->attr.precise_ip = want;
		notice__add(b->notice, b->noticelen,
			    "%s: precise level %d (%.*s) applied: a load-latency event sampled "
			    "without it carries no data address, latency or data source",
			    org->where, want, want, "ppp");
		return 0;
	}
	/*
	 * A PEBS event needs precise_ip >= 1.  Not 3: on Golden Cove and later
	 * cores ppp means counter 0 only (Precise Distribution), where
	 * MEM_TRANS_RETIRED.LOAD_LATENCY cannot run.
	 */
	want = org->kind == FROM_TABLE ? org->entry->precise : 2;
	enc->attr.precise_ip = want;
	if (max >= 0 && want > max) {
		enc->attr.precise_ip = max;
		if (org->kind == FROM_TABLE)
			notice__add(b->notice, b->noticelen,
				    "%s: precise level %d lowered to %d, the most %s offers "
				    "(caps/max_precise)",
				    org->where, want, max, enc->pmu.name);
	}
	return 0;
}

static void build__sampling(struct build *b, struct evspec_attr *enc)
{
	struct perf_event_attr *a = &enc->attr;
	const struct source_opts *o = b->o;

	a->sample_type = PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC |
			 (b->src->weight_struct ? PERF_SAMPLE_WEIGHT_STRUCT : PERF_SAMPLE_WEIGHT);
	if (o->sample_ip)
		a->sample_type |= PERF_SAMPLE_IP;
	if (o->callchain)
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (o->freq || o->period) {
		a->freq = o->freq != 0;
		a->sample_period = o->freq ? o->freq : o->period;
	} else if (!enc->rate_set) {
		a->freq = b->t->freq != 0;
		a->sample_period = b->t->freq ? b->t->freq : b->t->period;
	}
	/*
	 * Large PEBS: with a fixed period and no wakeup the kernel batches PEBS
	 * records and runs the BPF program only on the last of each batch.
	 * Frequency mode keeps it off; a fixed period keeps it off with a wakeup
	 * on every sample (wakeup_events = 1, watermark = 0).
	 */
	if (!a->freq) {
		a->wakeup_events = 1;
		a->watermark = 0;
	}
}

/*
 * AMD IBS takes a fixed period in its MaxCnt field, in units of 16: the
 * kernel's perf_ibs_init() refuses a period whose low 4 bits are set (kernels
 * since 6.15 drop them silently) and, since then too, one below the op
 * sampler's minimum of 0x90.  A period above the field's width is fine (the
 * kernel counts it down in steps).  Checked here, before perf_event_open,
 * for every kernel alike.
 */
#define IBS_OP_MIN_PERIOD 0x90

static int build__ibs_period(struct build *b, const struct origin *org,
			     const struct evspec_attr *enc)
{
	const struct perf_event_attr *a = &enc->attr;
	__u64 p = a->sample_period;
	char what[700];

	if (!enc->has_pmu || strcmp(enc->pmu.name, "ibs_op") || a->freq || !p)
		return 0;
	if (p % 16 == 0 && p >= IBS_OP_MIN_PERIOD)
		return 0;
	if (b->o->period)
		snprintf(what, sizeof(what), "-c %llu", (unsigned long long)p);
	else
		snprintf(what, sizeof(what), "the period %llu of %s", (unsigned long long)p,
			 org->where);
	err__msg(b->err,
		 "%s: AMD IBS op sampling takes a period that is a multiple of 16 and at least "
		 "%d (0x%x): use %llu",
		 what, IBS_OP_MIN_PERIOD, IBS_OP_MIN_PERIOD,
		 (unsigned long long)(p < IBS_OP_MIN_PERIOD ? IBS_OP_MIN_PERIOD : p & ~15ull));
	return -EINVAL;
}

/* The leader counts (it only has to be in the group); the member samples. */
static int build__leader(struct build *b, const struct origin *org,
			 const struct evspec_event *leader, struct evsel *ev)
{
	struct evspec_attr enc;
	struct err err = {};
	char notice[256];
	int e = evspec__encode(leader, &enc, notice, sizeof(notice), &err);

	if (e) {
		err__msg(b->err, "%s, its group leader: %s", org->where, err.msg);
		evspec_attr__free(&enc);
		return e;
	}
	enc.attr.precise_ip = 0;
	enc.attr.sample_period = 0;
	enc.attr.freq = 0;
	enc.attr.sample_type = 0;
	ev->has_leader = true;
	ev->leader = enc.attr;
	evspec__format(leader, NULL, &enc.attr, ev->leader_name, sizeof(ev->leader_name));
	evspec_attr__free(&enc);
	return 0;
}

/* The CPUs it opens on: its core type's, within its PMU's; empty: any. */
static int build__cpus(struct build *b, const struct origin *org, const struct evspec_attr *enc,
		       struct evsel *ev)
{
	const struct cpumap *type = cpu_id__cpus(&b->src->cpu, org->core);
	char a[256], c[256];
	int e;

	if (type && enc->has_pmu && enc->pmu.cpus.nr)
		e = cpumap__intersect(&ev->cpus, type, &enc->pmu.cpus);
	else if (type)
		e = cpumap__copy(&ev->cpus, type);
	else if (enc->has_pmu && enc->pmu.cpus.nr)
		e = cpumap__copy(&ev->cpus, &enc->pmu.cpus);
	else
		return 0;
	if (!e && !ev->cpus.nr) {
		cpumap__snprint(type, a, sizeof(a));
		cpumap__snprint(&enc->pmu.cpus, c, sizeof(c));
		err__msg(b->err,
			 "%s: the %s CPUs (%s) and the CPUs of PMU '%s' (%s) do not overlap",
			 org->where, core_type__name(org->core), a, enc->pmu.name, c);
		e = -EINVAL;
	}
	return e;
}

/* Encodes, checks and appends one load-latency event (and its leader). */
static int build__event(struct build *b, const struct origin *org, const struct evspec_event *ev,
			const struct evspec_event *leader)
{
	struct source_event *se;
	struct evspec_attr enc;
	struct evsel evsel = {};
	struct err err = {};
	char notice[512], extra[64];
	bool is_ldlat;
	int e;

	if (b->src->nevents == SOURCE_MAX_EVENTS) {
		err__msg(b->err, "more than %d load-latency events", SOURCE_MAX_EVENTS);
		return -E2BIG;
	}
	se = &b->src->ev[b->src->nevents];
	memset(se, 0, sizeof(*se));
	e = evspec__encode(ev, &enc, notice, sizeof(notice), &err);
	if (e) {
		err__msg(b->err, "%s: %s", org->where, err.msg);
		goto out;
	}
	if (notice[0])
		notice__add(b->notice, b->noticelen, "%s", notice);
	is_ldlat = option__is_ldlat(org, &enc);
	e = build__threshold(b, org, ev, &enc, se, is_ldlat);
	if (e)
		goto out;
	e = build__precise(b, org, ev, &enc, is_ldlat);
	if (e)
		goto out;
	build__sampling(b, &enc);
	e = build__ibs_period(b, org, &enc);
	if (e)
		goto out;
	evsel.attr = enc.attr;
	if (leader) {
		e = build__leader(b, org, leader, &evsel);
		if (e)
			goto out;
	}
	e = build__cpus(b, org, &enc, &evsel);
	if (e)
		goto out;
	extra[0] = '\0';
	if (se->has_ldlat)
		snprintf(extra, sizeof(extra), "ldlat=%llu", (unsigned long long)se->ldlat);
	evspec__format(ev, extra, &evsel.attr, evsel.name, sizeof(evsel.name));
	snprintf(se->why, sizeof(se->why), "%s", org->why);
	if (org->entry)
		snprintf(se->note, sizeof(se->note), "%s", org->entry->note);
	se->core = org->core;
	e = evlist__add(b->evlist, &evsel);
	if (!e)
		b->src->nevents++;
out:
	cpumap__free(&evsel.cpus);
	evspec_attr__free(&enc);
	return e;
}

/* --event SPEC: one event, or a group of two led by the first. */
static int build__option(struct build *b)
{
	const struct evspec_event *member, *leader = NULL;
	const struct evtable_entry *en;
	static const enum core_type types[] = { CORE_TYPE_ANY, CORE_TYPE_CORE, CORE_TYPE_ATOM,
						CORE_TYPE_LOWPOWER };
	struct origin org = { .kind = FROM_OPTION };
	struct evspec spec;
	struct pmu raw;
	struct err err = {};
	char pmu[PMU_NAME_MAX], mpmu[PMU_NAME_MAX];
	unsigned int i;
	int e;

	e = evspec__parse(&spec, b->o->event, &err);
	if (e) {
		err__msg(b->err, "--event: %s", err.msg);
		return e;
	}
	if (spec.nevents > 2 || (spec.nevents == 2 && spec.ev[1].leader != 0)) {
		err__msg(b->err,
			 "--event '%s': give one event, or a group of two whose first event leads "
			 "({leader,event})",
			 b->o->event);
		evspec__free(&spec);
		return -EINVAL;
	}
	member = &spec.ev[spec.nevents - 1];
	if (spec.nevents == 2)
		leader = &spec.ev[0];
	snprintf(org.where, sizeof(org.where), "--event '%s'", b->o->event);
	snprintf(org.why, sizeof(org.why), "--event %s", b->o->event);
	/* this CPU's table entry on the same PMU gives the threshold's range */
	mpmu[0] = '\0';
	if (member->kind == EVSPEC_PMU)
		snprintf(mpmu, sizeof(mpmu), "%s", member->pmu);
	else if (member->kind == EVSPEC_RAW && !pmu__load_by_type(&raw, PERF_TYPE_RAW)) {
		snprintf(mpmu, sizeof(mpmu), "%s", raw.name); /* rHEX goes to the core PMU */
		pmu__free(&raw);
	}
	for (i = 0; i < ARRAY_SIZE(types) && !org.entry; i++) {
		en = evtable__lookup(b->t, &b->src->cpu, types[i]);
		if (!en || !en->event[0] || !mpmu[0])
			continue;
		spec__pmu(en->event, pmu, sizeof(pmu));
		if (!strcmp(pmu, mpmu)) {
			org.entry = en;
			org.core = types[i];
		}
	}
	e = build__event(b, &org, member, leader);
	evspec__free(&spec);
	return e;
}

/* Parses an entry's spec (checked when the table was loaded). */
static int entry__spec(struct build *b, const char *text, int line, struct evspec *spec)
{
	struct err err = {};
	int e = evspec__parse(spec, text, &err);

	if (e)
		err__msg(b->err, "%s:%d: %s", b->t->path, line, err.msg);
	return e;
}

static int build__entry(struct build *b, const struct evtable_entry *en, enum core_type core)
{
	struct origin org = { .kind = FROM_TABLE, .entry = en, .core = core };
	struct evspec spec, lspec = {};
	int e;

	snprintf(org.where, sizeof(org.where), "%s:%d [%s] event '%s'", b->t->path, en->event_line,
		 en->name, en->event);
	snprintf(org.why, sizeof(org.why), "%s:%d [%s] for %s%s%s", b->t->path, en->line, en->name,
		 b->src->cpu.id, core ? ", core type " : "", core ? core_type__name(core) : "");
	e = entry__spec(b, en->event, en->event_line, &spec);
	if (e)
		return e;
	if (en->leader[0])
		e = entry__spec(b, en->leader, en->leader_line, &lspec);
	if (!e)
		e = build__event(b, &org, &spec.ev[0], en->leader[0] ? &lspec.ev[0] : NULL);
	evspec__free(&spec);
	evspec__free(&lspec);
	return e;
}

/* Why the table gave nothing, for the alias path and the final error. */
struct table_miss {
	const struct evtable_entry *entry; /* matched, but its PMU is missing */
	char pmu[PMU_NAME_MAX];
	bool final; /* an 'unsupported' entry: stop here */
};

static int build__table(struct build *b, struct table_miss *miss)
{
	/* lowpower: an entry that 'requires' the cpu_lowpower PMU, where the kernel has one */
	static const enum core_type hybrid[] = { CORE_TYPE_CORE, CORE_TYPE_ATOM,
						 CORE_TYPE_LOWPOWER };
	static const enum core_type plain[] = { CORE_TYPE_ANY };
	const struct cpu_id *id = &b->src->cpu;
	const enum core_type *types = id->hybrid ? hybrid : plain;
	const struct evtable_entry *en[3] = {};
	int i, n = id->hybrid ? 3 : 1, found = 0, e;
	char pmu[PMU_NAME_MAX];

	for (i = 0; i < n; i++) {
		en[i] = evtable__lookup(b->t, id, types[i]);
		found += en[i] != NULL;
	}
	if (!found)
		return -ENOENT;
	for (i = 0; i < n; i++) {
		if (!en[i] || !en[i]->unsupported[0])
			continue;
		miss->entry = en[i];
		miss->final = true;
		err__msg(b->err,
			 "no load-latency event on this machine: %s (%s:%d [%s], for %s). "
			 "Use " LDLAT_EVENT_ADVICE,
			 en[i]->unsupported, b->t->path, en[i]->line, en[i]->name, id->id);
		return -ENOENT;
	}
	for (i = 0; i < n; i++) {
		if (!en[i])
			continue;
		spec__pmu(en[i]->event, pmu, sizeof(pmu));
		if (pmu[0] && !pmu__exists(pmu))
			goto missing;
		spec__pmu(en[i]->leader, pmu, sizeof(pmu));
		if (pmu[0] && !pmu__exists(pmu))
			goto missing;
	}
	for (i = 0; i < n; i++) {
		if (!en[i] && types[i] == CORE_TYPE_LOWPOWER)
			continue;
		if (!en[i]) {
			notice__add(b->notice, b->noticelen,
				    "no %s entry for the %s cores of %s: they are not sampled",
				    b->t->path, core_type__name(types[i]), id->id);
			continue;
		}
		e = build__entry(b, en[i], types[i]);
		if (e)
			return e;
	}
	return 0;
missing:
	miss->entry = en[i];
	snprintf(miss->pmu, sizeof(miss->pmu), "%s", pmu);
	return -ENOENT;
}

static void miss__describe(const struct build *b, const struct table_miss *miss, char *buf,
			   size_t len)
{
	if (miss->entry)
		snprintf(buf, len,
			 "%s entry [%s] (line %d) for this CPU (%s) uses the '%s' PMU, which this "
			 "kernel does not export",
			 b->t->path, miss->entry->name, miss->entry->line, b->src->cpu.id,
			 miss->pmu);
	else
		snprintf(buf, len, "no entry of %s matches this CPU (%s)", b->t->path,
			 b->src->cpu.id);
}

/* The kernel's own alias: PMU/events/mem-loads on every PMU that has it. */
static int build__alias(struct build *b, const struct table_miss *miss)
{
	struct origin org = { .kind = FROM_ALIAS };
	struct evspec spec, lspec;
	struct err err = {};
	char **names, text[PMU_NAME_MAX + 32], ltext[PMU_NAME_MAX + 32], why[512];
	const char *alias;
	struct pmu pmu;
	int i, n, found = 0, e = 0;

	n = pmu__list(&names);
	if (n < 0) {
		err__msg(b->err, "cannot list PMUs in %s/bus/event_source/devices: %s",
			 sysfs__root(), strerror(-n));
		return n;
	}
	miss__describe(b, miss, why, sizeof(why));
	for (i = 0; i < n && !e; i++) {
		if (pmu__load(&pmu, names[i]))
			continue;
		alias = pmu__alias(&pmu, "mem-loads");
		if (alias) {
			snprintf(text, sizeof(text), "%s/mem-loads/H", pmu.name);
			snprintf(ltext, sizeof(ltext), "%s/mem-loads-aux/H", pmu.name);
			snprintf(org.where, sizeof(org.where),
				 "the kernel's alias %s/events/mem-loads", pmu.name);
			snprintf(org.why, sizeof(org.why),
				 "sysfs alias %s/events/mem-loads (%s): %s", pmu.name, alias, why);
			e = evspec__parse(&spec, text, &err);
			if (!e) {
				/* Sapphire Rapids, hybrid big cores: the kernel wants the aux event */
				bool aux = pmu__alias(&pmu, "mem-loads-aux") &&
					   !evspec__parse(&lspec, ltext, &err);

				e = build__event(b, &org, &spec.ev[0], aux ? &lspec.ev[0] : NULL);
				if (aux)
					evspec__free(&lspec);
				evspec__free(&spec);
			}
			found++;
		}
		pmu__free(&pmu);
	}
	pmu__list_free(names, n);
	return e ? e : found ? 0 : -ENOENT;
}

static void build__none(struct build *b, const struct table_miss *miss)
{
	char pmus[1024], why[512];

	pmu__list_snprint(pmus, sizeof(pmus));
	miss__describe(b, miss, why, sizeof(why));
	err__msg(b->err,
		 "no load-latency event on this machine: %s, and no PMU has a mem-loads event "
		 "(PMUs here: %s).%s Use " LDLAT_EVENT_ADVICE,
		 why, pmus,
		 b->src->cpu.hypervisor ? " This is a virtual machine (hypervisor CPU flag): "
					  "hypervisors rarely pass PEBS or IBS through."
					: "");
}

int ldlat_event__resolve(const struct source_opts *o, struct source *src, struct evlist *evlist,
			 char *notice, size_t noticelen, struct err *err)
{
	struct build b = { .o = o,
			   .t = o->table,
			   .src = src,
			   .evlist = evlist,
			   .notice = notice,
			   .noticelen = noticelen,
			   .err = err };
	struct table_miss miss = {};
	int e;

	src->kind = SOURCE_LDLAT;
	src->fields = LDLAT_HAS_ADDR | LDLAT_HAS_LAT | LDLAT_HAS_DSRC;
	/* x86 PMUs all fill weight.var1_dw with WEIGHT_STRUCT (perf asks for it there too) */
	src->weight_struct = src->cpu.x86;
	if (o->event) {
		e = build__option(&b);
	} else {
		e = build__table(&b, &miss);
		if (e == -ENOENT && !miss.final && !b.no_pebs) {
			e = build__alias(&b, &miss);
			if (e == -ENOENT && !b.no_pebs)
				build__none(&b, &miss);
		}
	}
	if (!e && src->nevents)
		snprintf(src->why, sizeof(src->why), "%s%s", src->ev[0].why,
			 src->nevents > 1 ? " (and the other core type's entry)" : "");
	return e;
}
