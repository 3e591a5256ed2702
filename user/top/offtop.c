// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "user/top/offtop.h"
#include "user/symbols/buildid.h"
#include "user/symbols/kallsyms.h"
#include "kernel/lib/util.h"
#include "kernel/lib/notice.h"
#include "kernel/lib/unctrl.h"

#define KERNEL_MMAP "[kernel.kallsyms]"

/* ---- build IDs the file recorded (HEADER_BUILD_ID) ---------------------------- */

struct file_build_id {
	const char *filename; /* in the file's mapping */
	unsigned char id[BUILDID_MAX];
	int len;
};

static int file_build_id__cmp(const void *a, const void *b)
{
	return strcmp(((const struct file_build_id *)a)->filename,
		      ((const struct file_build_id *)b)->filename);
}

/* The first entry of a file name is kept: perf writes one per file. */
static int offtop__add_build_id(struct offtop *t, const struct perf_build_id *b)
{
	struct file_build_id *e;
	void *node;

	if (!b->size)
		return 0;
	if (b->cpumode == PERF_RECORD_MISC_KERNEL && !strcmp(b->filename, KERNEL_MMAP)) {
		memcpy(t->kernel_id, b->id, b->size);
		t->kernel_id_len = b->size;
		return 0;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->filename = b->filename;
	memcpy(e->id, b->id, b->size);
	e->len = b->size;
	node = tsearch(e, &t->build_ids, file_build_id__cmp);
	if (!node) {
		free(e);
		return -ENOMEM;
	}
	if (*(struct file_build_id **)node != e)
		free(e);
	return 0;
}

static int offtop__read_build_ids(struct offtop *t)
{
	const struct perf_file *f = &t->o.file;
	struct perf_build_id b;
	struct perf_cursor c;
	struct perf_record r;
	struct err err = {};
	int e = 0;

	perf_file__build_id_section(f, &c);
	while (!e && perf_file__next(f, &c, &r, NULL, &err) > 0)
		if (!perf_file__parse_build_id(&r, &b))
			e = offtop__add_build_id(t, &b);
	return e; /* a damaged section names fewer files: not an error */
}

static const struct file_build_id *offtop__build_id(const struct offtop *t, const char *name)
{
	struct file_build_id key = { .filename = name };
	void *node = tfind(&key, &t->build_ids, file_build_id__cmp);

	return node ? *(struct file_build_id **)node : NULL;
}

const char *offtop__build_id_hex(void *ctx, const char *file, char *buf, size_t len)
{
	const struct file_build_id *fb = offtop__build_id(ctx, file);

	if (!fb || !fb->len)
		return NULL;
	buildid__hex(fb->id, fb->len, buf, len);
	return buf;
}

/*
 * The tables' key for address a of process tgid at time 'at': the image that
 * names it (machine__image); a kernel address's name does not depend on the
 * process.
 */
static __u32 offtop__key(struct offtop *t, __u32 tgid, __u64 at, __u64 a)
{
	return machine__image(&t->model, tgid, at, a, kallsyms__is_kernel(a));
}

/* ---- applying the side band ------------------------------------------------------ */

static int str__cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

static int offtop__mismatched(struct offtop *t, const char *name, const unsigned char *id, int len)
{
	char hex[2 * BUILDID_MAX + 1], *key;
	void *node;

	buildid__hex(id, len, hex, sizeof(hex));
	if (asprintf(&key, "%s %s", hex, name) < 0)
		return -ENOMEM;
	node = tsearch(key, &t->mismatched, str__cmp);
	if (!node) {
		free(key);
		return -ENOMEM;
	}
	if (*(char **)node != key)
		free(key);
	return 0;
}

/*
 * The machine's elf_for: the ELF file to read for a mapped file whose build
 * ID perf recorded (in the MMAP2 record, else in HEADER_BUILD_ID), when it
 * is not the file at that path; a file no copy matches is noted.
 */
static const char *offtop__elf_for(void *ctx, const struct sideband_rec *r, int *e)
{
	struct offtop *t = ctx;
	const struct file_build_id *fb;
	const unsigned char *id = NULL;
	const char *elf;
	int len = 0;

	if (r->build_id) {
		id = r->build_id;
		len = r->build_id_size;
	} else if ((fb = offtop__build_id(t, r->str))) {
		id = fb->id;
		len = fb->len;
	}
	if (!len)
		return NULL;
	elf = symbolizer__elf_for(t->z, r->str, id, len);
	if (elf && !*elf && offtop__mismatched(t, r->str, id, len))
		*e = -ENOMEM;
	return elf;
}

/* Collects the side-band records, sorts them by time, applies them; freezes every image. */
static int offtop__sideband(struct offtop *t, struct err *err)
{
	const struct perf_file *f = &t->o.file;
	struct offline_sb *recs = NULL, *tmp;
	struct perf_build_id b;
	struct perf_sample_id sid;
	struct sideband_rec sb;
	struct perf_cursor c;
	struct perf_record r;
	size_t n = 0, cap = 0, i;
	__u64 seq = 0, max_at = 0;
	int e = 0, parsed;

	t->timed = offline__timed(f);
	perf_file__rewind(f, &c);
	while ((e = perf_file__next(f, &c, &r, NULL, err)) > 0) {
		++seq;
		if (r.type == PERF_RECORD_HEADER_BUILD_ID && !perf_file__parse_build_id(&r, &b)) {
			if (offtop__add_build_id(t, &b))
				goto nomem;
			continue;
		}
		/* the process model's records (one that does not parse is counted, not applied) */
		parsed = perf_file__parse_sideband(f, &r, &sb);
		if (parsed == -ENOENT || sb.type == PERF_RECORD_CGROUP)
			continue;
		if (parsed)
			sb.type = 0;
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			tmp = realloc(recs, cap * sizeof(*recs));
			if (!tmp)
				goto nomem;
			recs = tmp;
		}
		recs[n].seq = seq;
		recs[n].r = sb;
		recs[n].at = seq;
		if (t->timed) {
			perf_file__parse_sample_id(f, &r, &sid);
			recs[n].at = (sid.type & PERF_SAMPLE_TIME) ? sid.time : max_at;
		}
		if (recs[n].at > max_at)
			max_at = recs[n].at;
		n++;
	}
	if (e < 0)
		goto out;
	/* where each one is in the file, for offtop__run's count of samples behind them */
	t->sb_seq = malloc((n ? n : 1) * sizeof(*t->sb_seq));
	t->sb_latest = malloc((n ? n : 1) * sizeof(*t->sb_latest));
	if (!t->sb_seq || !t->sb_latest)
		goto nomem;
	for (i = 0, max_at = 0; i < n; i++) {
		if (recs[i].at > max_at)
			max_at = recs[i].at;
		t->sb_seq[i] = recs[i].seq;
		t->sb_latest[i] = max_at;
	}
	if (n) /* no side band: recs may be NULL, which qsort may not be given */
		qsort(recs, n, sizeof(*recs), offline_sb__cmp);
	for (i = 0; i < n && !e; i++) {
		if (!recs[i].r.type)
			continue; /* did not parse: counted, not applied */
		recs[i].r.time = recs[i].at;
		e = machine__process(&t->model, &recs[i].r);
	}
	t->sideband = n;
	if (e || machine__freeze(&t->model))
		goto nomem;
	/* perf record --buildid-mmap: the kernel's build ID, where HEADER_BUILD_ID has none */
	if (!t->kernel_id_len && t->model.kernel.build_id_len) {
		memcpy(t->kernel_id, t->model.kernel.build_id, t->model.kernel.build_id_len);
		t->kernel_id_len = t->model.kernel.build_id_len;
	}
out:
	free(recs);
	return e;
nomem:
	err__msg(err, "out of memory reading the mappings of %s", f->path);
	free(recs);
	return -ENOMEM;
}

/* ---- opening ------------------------------------------------------------------- */

/* Every analysed event records the fields the tables need. */
static int offtop__check_fields(struct offtop *t, __u32 tables, struct err *err)
{
	const struct perf_file *f = &t->o.file;
	static const struct {
		__u64 bit;
		__u32 tables;
		const char *what;
	} need[] = {
		{ PERF_SAMPLE_TID, LDLAT_TOP_IP | LDLAT_TOP_DATA | LDLAT_TOP_STACK,
		  "the process of each sample (PERF_SAMPLE_TID), which the tables are keyed by" },
		{ PERF_SAMPLE_IP, LDLAT_TOP_IP,
		  "the instruction pointer of each sample (PERF_SAMPLE_IP) for the code table; "
		  "--by data leaves that table out" },
		{ PERF_SAMPLE_ADDR, LDLAT_TOP_DATA,
		  "the data address of each sample (PERF_SAMPLE_ADDR: perf record -d, perf mem "
		  "record) for the data table; --by ip leaves that table out" },
		{ PERF_SAMPLE_CALLCHAIN, LDLAT_TOP_STACK,
		  "the call chain of each sample (PERF_SAMPLE_CALLCHAIN: perf record -g or "
		  "--call-graph) for --call-graph" },
	};
	unsigned int k;
	int i;

	for (k = 0; k < ARRAY_SIZE(need); k++) {
		if (!(need[k].tables & tables))
			continue;
		for (i = 0; i < f->nevents; i++) {
			__u64 type = f->events[i].attr.sample_type;

			if (!t->o.use[i] || (type & need[k].bit))
				continue;
			/* a leaf path: the sampled instruction */
			if (need[k].bit == PERF_SAMPLE_CALLCHAIN && t->leaf_paths &&
			    (type & PERF_SAMPLE_IP)) {
				t->chainless = true;
				continue;
			}
			break;
		}
		if (i < f->nevents) {
			err__msg(err,
				 "ldlat-top --input needs %s; %s's event '%s' did not "
				 "record it",
				 need[k].what, f->path, f->events[i].name);
			return -EINVAL;
		}
	}
	return 0;
}

int offtop__open(struct offtop *t, const char *path, struct cli *cli, __u32 tables, __u32 shift,
		 bool leaf_paths, struct procmaps *images, struct symbolizer *z, struct err *err)
{
	int e;

	memset(t, 0, sizeof(*t));
	t->leaf_paths = leaf_paths;
	machine__init(&t->model, MACHINE_TIMED);
	machine__keep_history(&t->model, images);
	t->model.elf_for = offtop__elf_for;
	t->model.elf_ctx = t;
	t->images = images;
	t->z = z;
	e = offline__open(&t->o, path, cli, 0, err);
	if (!e)
		e = offtop__check_fields(t, tables, err);
	if (e)
		return e;
	t->o.cfg.top = tables;
	t->o.cfg.top_shift = shift;
	t->o.cfg.top_entries = 0; /* native tables grow: nothing goes unattributed */
	if (offtop__read_build_ids(t))
		return err__set(err, -ENOMEM, "out of memory reading %s", path);
	return offtop__sideband(t, err);
}

/* ---- the kernel ------------------------------------------------------------------ */

/*
 * Whether a kallsyms file (NULL: /proc/kallsyms) is the recording's: its
 * kernel text where perf saw it (the address of the symbol perf's kernel
 * MMAP record names); *now: that symbol's address in it (0 when hidden).
 */
static bool offtop__kallsyms_fits(const struct offtop *t, const char *path, __u64 *now)
{
	*now = 0;
	if (!t->model.kernel.ref)
		return true; /* no kernel MMAP record: nothing to compare */
	return !kallsyms__lookup(path, t->model.kernel.sym, now) && *now == t->model.kernel.ref;
}

/*
 * Whether the file was recorded on the running kernel: 1 yes, 0 no, -1
 * cannot tell; why in buf when not yes.
 */
static int offtop__same_kernel(const struct offtop *t, char *buf, size_t len)
{
	const struct perf_file *f = &t->o.file;
	unsigned char here[BUILDID_MAX];
	char a[2 * BUILDID_MAX + 1];
	struct utsname u;
	int n = buildid__kernel(here, sizeof(here));

	if (t->kernel_id_len && n > 0) {
		if (n == t->kernel_id_len && !memcmp(here, t->kernel_id, n))
			return 1;
		/*
		 * the file's ID only: a report read on another machine would
		 * name this machine's kernel
		 */
		buildid__hex(t->kernel_id, t->kernel_id_len, a, sizeof(a));
		snprintf(buf, len,
			 "it was recorded on another kernel (build ID %s, not this one's)", a);
		return 0;
	}
	if (uname(&u) || !f->osrelease || !f->hostname) {
		snprintf(
			buf, len,
			"the file names neither its kernel's build ID nor its release and host, so "
			"it cannot tell whether it was recorded on this kernel");
		return -1;
	}
	if (!strcmp(f->osrelease, u.release) && !strcmp(f->hostname, u.nodename))
		return 1;
	snprintf(buf, len, "it was recorded on kernel %s on host %s (this is %s on %s)",
		 f->osrelease, f->hostname, u.release, u.nodename);
	return 0;
}

/* perf's build-ID cache copy of the recorded kernel's kallsyms, if it fits; 0 or -ENOENT. */
static int offtop__cached_kallsyms(struct offtop *t, struct kallsyms *k, char *path, size_t len)
{
	char hex[2 * BUILDID_MAX + 1];
	int i;

	if (!t->kernel_id_len)
		return -ENOENT;
	buildid__hex(t->kernel_id, t->kernel_id_len, hex, sizeof(hex));
	__u64 now;

	for (i = 0; !buildid__cache_path(i, KERNEL_MMAP, hex, path, len); i++) {
		if (access(path, R_OK) || !offtop__kallsyms_fits(t, path, &now) ||
		    kallsyms__load(k, path))
			continue;
		if (k->n && !k->hidden)
			return 0;
		kallsyms__free(k);
	}
	return -ENOENT;
}

/* Decides where kernel addresses are named from, once, when some sample has one. */
/* How kernel addresses are named; before the first run, whether any is met yet or not. */
static void offtop__kernel(struct offtop *t, bool force)
{
	struct symbolizer *z = t->z;
	struct kallsyms k = {};
	char why[512], path[4096];
	__u64 now;
	int same;

	if (t->kernel_checked || (!t->kernel_samples && !force))
		return;
	t->kernel_checked = true;
	same = offtop__same_kernel(t, why, sizeof(why));
	if (same == 1) {
		if (offtop__kallsyms_fits(t, z->kallsyms_path, &now) &&
		    !kallsyms__load(&k, z->kallsyms_path) && k.n && !k.hidden) {
			z->ksyms = k; /* the symbolizer's, loaded */
			z->ksyms_tried = true;
			return;
		}
		if (!now || k.hidden)
			snprintf(why, sizeof(why),
				 "/proc/kallsyms shows this user no addresses (root or CAP_SYSLOG "
				 "sees them, as kernel.kptr_restrict allows)");
		else
			snprintf(
				why, sizeof(why),
				"it was recorded in another boot of this kernel (%s was at 0x%llx, "
				"now at 0x%llx)",
				t->model.kernel.sym, (unsigned long long)t->model.kernel.ref,
				(unsigned long long)now);
		kallsyms__free(&k);
	}
	if (!offtop__cached_kallsyms(t, &k, path, sizeof(path))) {
		z->ksyms = k;
		z->ksyms_tried = true;
		snprintf(t->kernel_note, sizeof(t->kernel_note),
			 "kernel addresses named from perf's build-ID cache copy %s: %s", path,
			 why);
		return;
	}
	z->kernel_raw = true;
	snprintf(t->kernel_note, sizeof(t->kernel_note),
		 "kernel addresses are shown raw, not named from /proc/kallsyms: %s", why);
}

/* ---- the samples ----------------------------------------------------------------- */

/*
 * On a terminal, a reading that takes more than a second says how far it
 * is, on one line of stderr that is rewritten, then erased.
 */
struct progress {
	bool tty;
	double start, last;
	bool shown;
};

static double progress__now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void progress__update(struct progress *p, const struct offtop *t,
			     const struct perf_cursor *c)
{
	double now;

	if (!p->tty)
		return;
	now = progress__now();
	if (now - p->start < 1.0 || now - p->last < 0.2)
		return;
	p->last = now;
	p->shown = true;
	fputs("\rldlat-top: reading ", stderr);
	unctrl__fputs(stderr, t->o.file.path);
	fprintf(stderr, ": %3.0f%%, %llu records",
		c->end ? 100.0 * (double)c->pos / (double)c->end : 0.0,
		(unsigned long long)t->o.stats.records);
	fflush(stderr);
}

static void progress__end(const struct progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);
}

/*
 * The sample into --format pprof's profile, beside its path: its cgroup
 * (PERF_SAMPLE_CGROUP's, named by the file's CGROUP records) and the
 * variable or mapping its data address is in (s->tgid: the data's image
 * key), as the data table names it; and its instruction, named in the
 * image that held it then, whose data type --by type would count.
 */
static int offtop__profile(struct offtop *t, const struct perf_sample *ps, __u32 tgid, __u64 at,
			   __u32 key, const struct proc *p, const struct ldlat_sample *s,
			   const struct callpath_stack *user, const struct callpath_stack *kernel,
			   const struct ldlat_top_val *v)
{
	struct toppprof_ctx ctx = { .pid = tgid,
				    .comm = p ? p->comm : NULL,
				    .ip = s->ip,
				    .ip_key = offtop__key(t, tgid, at, s->ip) };
	struct sym data;

	if (ps->cgroup)
		ctx.cgroup = machine__cgroup_path(&t->model, ps->cgroup);
	if ((t->o.src.fields & LDLAT_HAS_ADDR) && s->addr) {
		symbolizer__data(t->z, s->tgid, s->addr, 1, &data);
		ctx.object = data.name;
	}
	return toppprof__add(t->prof, t->z, key, &ctx, user, kernel, v);
}

/*
 * A kept sample's call chain into the paths: the chain's kernel and user
 * parts (perf's PERF_CONTEXT_* markers divide them), innermost first as
 * a stack map holds them, each IP named in the image that held it then.
 */
static int offtop__callpath(struct offtop *t, const struct perf_sample *ps, __u32 tgid, __u64 at,
			    const struct ldlat_sample *s, __u32 cls)
{
	struct ldlat_top_val v = {};
	__u64 ips[2][LDLAT_STACK_DEPTH], i, ip;
	__u32 keys[2][LDLAT_STACK_DEPTH];
	struct callpath_stack st[2] = { { .ips = ips[0], .keys = keys[0] },
					{ .ips = ips[1], .keys = keys[1] } };
	int part = 0; /* 0 user, 1 kernel: perf puts a PERF_CONTEXT_* marker before each part */
	struct proc *p;

	ldlat_top_account(&v, s->lat, cls);
	if (!(ps->type & PERF_SAMPLE_CALLCHAIN)) {
		/* no call chain recorded (t->leaf_paths): the sampled instruction alone */
		part = kallsyms__is_kernel(s->ip);
		keys[part][0] = offtop__key(t, tgid, at, s->ip);
		ips[part][st[part].n++] = s->ip;
	}
	for (i = 0; i < ps->callchain_nr; i++) {
		ip = perf_u64(ps->callchain, i);
		if (ip >= (__u64)PERF_CONTEXT_MAX) {
			part = ip == (__u64)PERF_CONTEXT_USER ? 0 : 1;
			continue;
		}
		if (st[part].n >= LDLAT_STACK_DEPTH)
			continue;
		keys[part][st[part].n] = offtop__key(t, tgid, at, ip);
		ips[part][st[part].n++] = ip;
	}
	/*
	 * The path is named now: where its kernel frames are named from (this
	 * boot's kallsyms, perf's cached copy, or raw) is decided first, once.
	 */
	if (st[1].n) {
		t->kernel_samples++;
		offtop__kernel(t, true);
	}
	p = procmaps__find(t->images, (pid_t)offtop__key(t, tgid, at, 0));
	if (callpaths__add(t->paths, t->z, offtop__key(t, tgid, at, 0), p ? p->comm : NULL, &st[0],
			   &st[1], &v))
		return -ENOMEM;
	return t->prof ? offtop__profile(t, ps, tgid, at, offtop__key(t, tgid, at, 0), p, s, &st[0],
					 &st[1], &v)
		       : 0;
}

static int offtop__run(struct offtop *t, struct snapshot *snap, struct err *err)
{
	struct progress prog = { .tty = isatty(STDERR_FILENO) };
	const struct ldlat_config *cfg = &t->o.cfg;
	struct perf_cursor c;
	struct perf_record r;
	struct perf_sample ps;
	struct ldlat_sample s;
	__u64 at, latest = 0;
	__u32 cls, tgid;
	size_t j = 0;
	int e;

	perf_file__rewind(&t->o.file, &c);
	prog.start = prog.last = prog.tty ? progress__now() : 0;
	while ((e = offline__next_sample(&t->o, &c, &r, &ps, err)) > 0) {
		if (!(t->o.stats.records & 0xffff))
			progress__update(&prog, t, &c);
		at = t->timed ? ps.time : t->o.stats.records;
		for (; j < t->sideband && t->sb_seq[j] < t->o.stats.records; j++)
			latest = t->sb_latest[j];
		if (at < latest)
			t->samples_behind++;
		if (t->timed && (!t->first_time || ps.time < t->first_time))
			t->first_time = ps.time;
		if (t->timed && ps.time > t->last_time)
			t->last_time = ps.time;
		offline__ldlat_sample(cfg, &ps, &s);
		s.period = offline__sample_period(&t->o, &ps);
		if (snapshot__account_class(snap, cfg, &s, &cls) != LDLAT_KEPT)
			continue;
		if (kallsyms__is_kernel(s.ip) || kallsyms__is_kernel(s.addr))
			t->kernel_samples++;
		tgid = s.tgid;
		s.tgid = offtop__key(t, tgid, at, s.ip);
		if (top_tables__add(t->ip, NULL, cfg, &s, cls))
			goto nomem;
		s.tgid = offtop__key(t, tgid, at, s.addr);
		if (top_tables__add(NULL, t->data, cfg, &s, cls))
			goto nomem;
		/* a table of millions of lines: named and written out a window at a time */
		if (t->data && t->data->n >= OFFTOP_DATA_WINDOW) {
			offtop__kernel(t, true);
			e = top_runs__spill(&t->data_runs, t->data, t->z, cfg->top_shift);
			if (e) {
				progress__end(&prog);
				return err__set(
					err, e,
					"cannot write the data table to a temporary file: %s",
					strerror(-e));
			}
		}
		if (t->paths && offtop__callpath(t, &ps, tgid, at, &s, cls))
			goto nomem;
	}
	progress__end(&prog);
	return e;
nomem:
	progress__end(&prog);
	return err__set(err, -ENOMEM, "out of memory");
}

int offtop__read(void *ctx, struct snapshot *snap, struct err *err)
{
	struct offtop *t = ctx;
	int e;

	snapshot__clear(snap);
	offline__reset_counts(&t->o);
	t->samples_behind = t->kernel_samples = 0;
	t->first_time = t->last_time = 0;
	if (t->ip)
		top_table__reset(t->ip);
	if (t->data)
		top_table__reset(t->data);
	top_runs__free(&t->data_runs);
	if (t->paths)
		callpaths__reset(t->paths);
	e = offtop__run(t, snap, err);
	if (!e)
		offtop__kernel(t, false);
	if (!t->kernel_samples)
		t->kernel_note[0] = '\0'; /* a window named early: nothing kernel to note */
	clock_gettime(CLOCK_REALTIME, &snap->taken);
	return e;
}

void offtop__describe(const struct offtop *t, const char *tool, FILE *out)
{
	const struct perf_file *f = &t->o.file;
	size_t n[2] = { 0, 0 };

	machine__count_images(&t->model, &n[0], &n[1]);
	notice__print(out, tool, "%s: %d event%s, analysing %s%s%s", f->path, f->nevents,
		      f->nevents == 1 ? "" : "s", t->o.events, f->hostname ? ", recorded on " : "",
		      f->hostname ? f->hostname : "");
	notice__print(out, tool,
		      "%s: %llu mmap, comm, fork and exit records of %zu processes (%zu images), "
		      "applied in %s order; %llu samples come after a newer one of them in the "
		      "file",
		      f->path, (unsigned long long)t->sideband, n[0], n[1],
		      t->timed ? "time" : "file", (unsigned long long)t->samples_behind);
}

struct notes_ctx {
	const char *tool, *path;
	FILE *out;
	bool list;	   /* print each file (-v), else count them */
	unsigned long n;   /* files counted */
	const char *first; /* the first one's key */
};

static void note_mismatch(const void *node, VISIT which, void *ctx)
{
	const char *key = *(const char *const *)node, *name = strchr(key, ' ');
	struct notes_ctx *n = ctx;

	if ((which != postorder && which != leaf) || !name)
		return;
	if (!n->n++)
		n->first = key;
	if (n->list)
		notice__print(
			n->out, n->tool,
			"note: %s: %s: recorded build ID %.*s, no file this user can read has "
			"it",
			n->path, name + 1, (int)(name - key), key);
}

static const char buildid_advice[] =
	"Put the recorded files there, or in perf's build-ID cache (~/.debug, or "
	"$PERF_BUILDID_DIR: perf archive packs them on the recording machine)";

void offtop__report_notes(const struct offtop *t, const char *tool, bool verbose, FILE *out)
{
	struct notes_ctx n = { tool, t->o.file.path, out, verbose, 0, NULL };

	offline__report_skipped(&t->o, tool, out);
	if (t->model.images_capped)
		notice__print(out, tool,
			      "note: %s: its mappings change too often to keep each state apart: "
			      "past %llu mappings, addresses were named as a live run names them "
			      "(the newest mapping wins)",
			      t->o.file.path, (unsigned long long)MACHINE_MAX_IMAGE_MAPPINGS);
	if (!t->timed && t->sideband)
		notice__print(out, tool,
			      "note: %s: its records carry no timestamps: mappings were applied in "
			      "file order, which perf record keeps per CPU only",
			      t->o.file.path);
	/* one note for all the files whose build ID matches none here; -v lists them */
	twalk_r(t->mismatched, note_mismatch, &n);
	if (n.n == 1) {
		const char *name = strchr(n.first, ' ');

		notice__print(out, tool,
			      "note: %s: no file this user can read has the build ID perf recorded "
			      "for %s (%.*s): its addresses are not named. %s",
			      n.path, name + 1, (int)(name - n.first), n.first, buildid_advice);
	} else if (n.n > 1) {
		notice__print(
			out, tool,
			"note: %s: for %lu mapped files (%s, ...), no file this user can read "
			"has the build ID perf recorded: their addresses are not named%s. %s",
			n.path, n.n, strchr(n.first, ' ') + 1,
			verbose ? " (listed above)" : " (-v lists them)", buildid_advice);
	}
	if (t->kernel_note[0])
		notice__print(out, tool, "note: %s: %s", t->o.file.path, t->kernel_note);
}

void offtop__close(struct offtop *t)
{
	top_runs__free(&t->data_runs);
	tdestroy(t->build_ids, free);
	tdestroy(t->mismatched, free);
	t->build_ids = t->mismatched = NULL;
	free(t->sb_seq);
	free(t->sb_latest);
	t->sb_seq = t->sb_latest = NULL;
	machine__free(&t->model);
	offline__close(&t->o);
}
