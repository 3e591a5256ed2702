// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "user/run/session.h"
#include "user/run/kbtf.h"
#include "kernel/lib/err.h"
#include "bpf/ldlat.skel.h"
#include "bpf/ldlat_pin.h"

/* The kernel's BTF as session__probe reads it: walked in place (kbtf), else libbpf's parse. */
struct probe_btf {
	struct kbtf k;
	struct btf *btf;
};

static const struct btf_type *probe_btf__find(const struct probe_btf *p, const char *name, int kind)
{
	__s32 id;

	if (!p->btf)
		return kbtf__find(&p->k, name, kind, NULL);
	id = btf__find_by_name_kind(p->btf, name, kind);
	return id > 0 ? btf__type_by_id(p->btf, id) : NULL;
}

static const char *probe_btf__name(const struct probe_btf *p, __u32 off)
{
	return p->btf ? btf__name_by_offset(p->btf, off) : kbtf__name(&p->k, off);
}

void session__probe(struct session_facts *f)
{
	const struct btf_type *t;
	const struct btf_enum *m;
	struct probe_btf p = {};
	char buf[128] = "";
	FILE *fp;
	int i;

	memset(f, 0, sizeof(*f));
	fp = fopen("/sys/kernel/security/lockdown", "r");
	if (fp) {
		f->confidentiality =
			fgets(buf, sizeof(buf), fp) && strstr(buf, "[confidentiality]");
		fclose(fp);
	}
	/* libbpf looks further (a vmlinux file under /boot or /lib/modules) */
	if (kbtf__open(&p.k, NULL) && !(p.btf = btf__load_vmlinux_btf()))
		return;
	f->btf = true;
	f->cast_kfunc = probe_btf__find(&p, "bpf_cast_to_kern_ctx", BTF_KIND_FUNC);
	f->kern_ctx = probe_btf__find(&p, "bpf_perf_event_data_kern", BTF_KIND_STRUCT);
	f->weight_union = probe_btf__find(&p, "perf_sample_weight", BTF_KIND_UNION);
	t = probe_btf__find(&p, "bpf_func_id", BTF_KIND_ENUM);
	for (i = 0, m = t ? btf_enum(t) : NULL; t && i < btf_vlen(t); i++, m++) {
		if (!strcmp(probe_btf__name(&p, m->name_off), "BPF_FUNC_probe_read_kernel"))
			f->probe_read = true;
		if (!strcmp(probe_btf__name(&p, m->name_off), "BPF_FUNC_get_attach_cookie"))
			f->attach_cookie = true;
	}
	t = probe_btf__find(&p, "perf_sample_data", BTF_KIND_STRUCT);
	for (i = 0; t && i < btf_vlen(t); i++)
		if (!strcmp(probe_btf__name(&p, btf_members(t)[i].name_off), "sample_flags"))
			f->sample_flags = true;
	btf__free(p.btf);
	kbtf__close(&p.k);
}

enum session_path session__path_for(const struct session_facts *f, const char *force, char *why,
				    size_t len)
{
	bool keep = force && !strcmp(force, "0");

	if (force && !strcmp(force, "1")) {
		snprintf(why, len, "LDLAT_FORCE_ADDR_ONLY=1");
		return SESSION_PATH_ADDR_ONLY;
	}
	if (f->cast_kfunc) {
		snprintf(why, len,
			 "the kernel's BTF has bpf_cast_to_kern_ctx (Linux 6.2): the program "
			 "reads perf_sample_data directly, the fields sample_flags marks");
		return SESSION_PATH_KERN_CTX;
	}
	if (!f->btf && !keep) {
		snprintf(why, len,
			 "this kernel has no BTF (/sys/kernel/btf/vmlinux), which the program "
			 "needs to find perf_sample_data's fields");
		return SESSION_PATH_ADDR_ONLY;
	}
	if ((!f->kern_ctx || !f->probe_read) && !keep) {
		snprintf(why, len,
			 "this kernel has neither bpf_cast_to_kern_ctx (Linux 6.2) nor "
			 "bpf_probe_read_kernel (Linux 5.5) to reach the sample from BPF");
		return SESSION_PATH_ADDR_ONLY;
	}
	if (f->confidentiality && !keep) {
		snprintf(why, len,
			 "this kernel is locked down (confidentiality), which refuses "
			 "bpf_probe_read_kernel, and it has no bpf_cast_to_kern_ctx (Linux 6.2)");
		return SESSION_PATH_ADDR_ONLY;
	}
	snprintf(why, len,
		 "%sno bpf_cast_to_kern_ctx (Linux 6.2) in the kernel's BTF: the program copies "
		 "the kernel's bpf_perf_event_data_kern with bpf_probe_read_kernel and reads "
		 "what the driver filled %s",
		 keep ? "LDLAT_FORCE_ADDR_ONLY=0; " : "",
		 f->sample_flags
			 ? "(the fields sample_flags marks)"
			 : "(no sample_flags: weight 0 and data source N/A where not filled)");
	return SESSION_PATH_PROBE_READ;
}

enum session_path session__read_path(char *why, size_t len)
{
	struct session_facts f;

	session__probe(&f);
	return session__path_for(&f, secure_getenv("LDLAT_FORCE_ADDR_ONLY"), why, len);
}

const char *session__path_name(enum session_path p)
{
	switch (p) {
	case SESSION_PATH_KERN_CTX:
		return "kern-ctx";
	case SESSION_PATH_PROBE_READ:
		return "probe-read";
	default:
		return "address-only";
	}
}

unsigned int session__path_flag(enum session_path p)
{
	switch (p) {
	case SESSION_PATH_KERN_CTX:
		return SESSION_KERN_CTX;
	case SESSION_PATH_PROBE_READ:
		return SESSION_PROBE_READ;
	default:
		return SESSION_ADDR_ONLY;
	}
}

int session__clear_cell(const struct session *s, __u32 idx, struct ldlat_hist *vals)
{
	int cpu;

	memset(vals, 0, s->ncpus * sizeof(*vals));
	for (cpu = 0; cpu < s->ncpus; cpu++) {
		vals[cpu].range = idx / LDLAT_NCLASS % s->nranges;
		vals[cpu].class = idx % LDLAT_NCLASS;
	}
	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.hists), &idx, vals, BPF_ANY))
		return -errno;
	return 0;
}

/* Writes the (range, class) labels into every CPU's copy of every cell. */
static int session__label(struct session *s)
{
	struct ldlat_hist *vals = calloc(s->ncpus, sizeof(*vals));
	__u32 idx, n = s->gens * s->nrows * s->nranges * LDLAT_NCLASS;
	int e = 0;

	if (!vals)
		return -ENOMEM;
	for (idx = 0; idx < n && !e; idx++)
		e = session__clear_cell(s, idx, vals);
	free(vals);
	return e;
}

/* net.core.bpf_jit_enable reads 0: programs run in the interpreter. */
static bool session__jit_off(void)
{
	FILE *fp = fopen("/proc/sys/net/core/bpf_jit_enable", "r");
	int v = -1;

	if (fp) {
		if (fscanf(fp, "%d", &v) != 1)
			v = -1;
		fclose(fp);
	}
	return v == 0;
}

int session__refused(enum session_path p, int e, struct err *err)
{
	struct session_facts f;

	session__probe(&f);
	if (!f.btf)
		err__msg(err,
			 "cannot load the BPF program: this kernel has no BTF "
			 "(/sys/kernel/btf/vmlinux), which it needs to find the kernel's fields; "
			 "run a kernel built with CONFIG_DEBUG_INFO_BTF=y");
	else if (p == SESSION_PATH_KERN_CTX && session__jit_off())
		err__msg(err, "cannot load the BPF program: the BPF JIT is off "
			      "(net.core.bpf_jit_enable=0), and the kernel runs the kfunc this "
			      "kernel's read path calls (bpf_cast_to_kern_ctx) only JIT-compiled; "
			      "sysctl net.core.bpf_jit_enable=1, or set LDLAT_FORCE_ADDR_ONLY=1 to "
			      "sample addresses only");
	else if (e == -ESRCH && p == SESSION_PATH_KERN_CTX)
		/* libbpf's answer for a kfunc that the kernel's BTF lacks */
		err__msg(err, "cannot load the BPF program: this kernel's BTF has no "
			      "bpf_cast_to_kern_ctx (Linux 6.2), which it was told to use; unset "
			      "LDLAT_FORCE_ADDR_ONLY to let it choose, or set it to 1 to sample "
			      "addresses only");
	else if (p == SESSION_PATH_PROBE_READ && f.confidentiality)
		err__msg(err,
			 "cannot load the BPF program: this kernel is locked down "
			 "(confidentiality) and refuses bpf_probe_read_kernel, which reads "
			 "latency and data source on it; set LDLAT_FORCE_ADDR_ONLY=1 to sample "
			 "addresses only, or boot with lockdown=integrity");
	else
		err__msg(err,
			 "cannot load the BPF program (%s read path): %s (run with -v for the "
			 "verifier's log; LDLAT_FORCE_ADDR_ONLY=1 loads the address-only program)",
			 session__path_name(p), strerror(-e));
	return err__system(err, e);
}

int session__open(struct session *s, const struct ldlat_config *cfg, unsigned int flags,
		  struct err *err)
{
	return session__open_counted(s, cfg, flags, 0, err);
}

int session__open_counted(struct session *s, const struct ldlat_config *cfg, unsigned int flags,
			  __u32 nevents, struct err *err)
{
	return session__prepare(s, cfg, flags, nevents, err) ?: session__load(s, err);
}

int session__prepare(struct session *s, const struct ldlat_config *cfg, unsigned int flags,
		     __u32 nevents, struct err *err)
{
	struct session_facts facts = {};
	struct bpf_program *prog;
	char why[512];
	int e;

	memset(s, 0, sizeof(*s));
	s->ncpus = libbpf_num_possible_cpus();
	if (s->ncpus <= 0) {
		err__msg(err, "cannot count the possible CPUs: %s", strerror(-s->ncpus));
		return s->ncpus ? s->ncpus : -EINVAL;
	}
	s->nranges = cfg->nranges ? cfg->nranges : 1;
	s->by = cfg->by;
	s->nrows = cfg->by ? cfg->by_keys + 1 : 1; /* the split's rows and the others */
	s->gens = 1;
	if (flags & SESSION_ADDR_ONLY)
		s->path = SESSION_PATH_ADDR_ONLY;
	else if (flags & SESSION_PROBE_READ)
		s->path = SESSION_PATH_PROBE_READ;
	else if (flags & SESSION_KERN_CTX)
		s->path = SESSION_PATH_KERN_CTX;
	else
		s->path = session__read_path(why, sizeof(why));
	s->addr_only = s->path == SESSION_PATH_ADDR_ONLY;
	s->skel = ldlat_bpf__open();
	if (!s->skel) {
		e = -errno;
		err__msg(err, "cannot open the BPF object: %s", strerror(-e));
		return e;
	}
	s->skel->rodata->cfg = *cfg;
	s->skel->rodata->cfg.nranges = s->nranges;
	bpf_map__set_max_entries(s->skel->maps.by_rows,
				 session__by_keyed(cfg->by) && cfg->by_keys ? cfg->by_keys : 1);
	bpf_map__set_max_entries(s->skel->maps.by_owner,
				 session__by_keyed(cfg->by) && cfg->by_keys ? cfg->by_keys : 1);
	/* no program of the object loads but the one chosen (session__use) and the entries asked for */
	for (prog = bpf_object__next_program(s->skel->obj, NULL); prog;
	     prog = bpf_object__next_program(s->skel->obj, prog))
		bpf_program__set_autoload(prog, false);
	session__use(s, s->skel->progs.ldlat_sample, s->skel->progs.ldlat_sample_kern,
		     s->skel->progs.ldlat_sample_addr);
	bpf_program__set_autoload(s->skel->progs.ldlat_test, !!(flags & SESSION_TEST_ENTRY));
	/* the live read of perf_sample_data on a synthetic one: its weight is a union from 5.12 */
	if ((flags & SESSION_TEST_ENTRY) || ((flags & SESSION_PIN) && nevents))
		session__probe(&facts);
	/* a pinned set's events' counts: live runs read the events' fds instead */
	s->counts = (flags & SESSION_PIN) && nevents && facts.attach_cookie;
	s->skel->rodata->pin_counts = s->counts;
	bpf_map__set_max_entries(s->skel->maps.event_counts, s->counts ? nevents : 1);
	bpf_program__set_autoload(s->skel->progs.ldlat_test_data,
				  (flags & SESSION_TEST_ENTRY) && facts.weight_union);
	bpf_program__set_autoload(s->skel->progs.ldlat_bench, !!(flags & SESSION_BENCH_ENTRY));
	bpf_map__set_autocreate(s->skel->maps.meta, flags & SESSION_PIN);
	bpf_map__set_autocreate(s->skel->maps.shown, flags & SESSION_PIN);
	bpf_map__set_autocreate(s->skel->maps.shown_hists, flags & SESSION_PIN);
	bpf_map__set_max_entries(s->skel->maps.shown_hists, s->nrows * s->nranges * LDLAT_NCLASS);
	return 0;
}

void session__use(struct session *s, struct bpf_program *kern_ctx, struct bpf_program *probe_read,
		  struct bpf_program *addr_only)
{
	struct bpf_program *by_path[] = {
		[SESSION_PATH_KERN_CTX] = kern_ctx,
		[SESSION_PATH_PROBE_READ] = probe_read,
		[SESSION_PATH_ADDR_ONLY] = addr_only,
	};

	if (s->prog)
		bpf_program__set_autoload(s->prog, false);
	s->prog = by_path[s->path];
	bpf_program__set_autoload(s->prog, true);
}

int session__load(struct session *s, struct err *err)
{
	int e;

	bpf_map__set_max_entries(s->skel->maps.hists,
				 s->gens * s->nrows * s->nranges * LDLAT_NCLASS);
	e = ldlat_bpf__load(s->skel);
	if (e) {
		session__close(s);
		return session__refused(s->path, e, err);
	}
	e = session__label(s);
	if (e) {
		err__msg(err, "cannot initialise the histogram map: %s", strerror(-e));
		session__close(s);
	}
	return e;
}

struct bpf_program *session__program(const struct session *s)
{
	return s->prog;
}

int session__cookie(struct session *s, const struct evlist *evlist, int i, __u64 *cookie,
		    struct err *err)
{
	const struct perf_event_attr *a = &evlist->evsel[evlist->fds[i].evsel].attr;
	struct ldlat_event_count c = { .period = a->freq ? 0 : a->sample_period };
	__u32 slot = (__u32)i;
	int e = 0;

	*cookie = 0;
	if (!s->counts)
		return 0;
	if (slot >= bpf_map__max_entries(s->skel->maps.event_counts))
		e = -E2BIG;
	else if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.event_counts), &slot, &c, BPF_ANY))
		e = -errno;
	if (e)
		return err__set(err, e, "cannot set up the count of %s: %s",
				evlist->evsel[evlist->fds[i].evsel].name, strerror(-e));
	*cookie = slot;
	return 0;
}

int session__read_fds(int counters_fd, int hists_fd, int ncpus, __u32 nranges, __u64 fixed_period,
		      struct snapshot *snap)
{
	struct ldlat_counters *cnt;
	struct ldlat_hist *vals;
	__u32 zero = 0, idx, n = snapshot__nrows(snap) * nranges * LDLAT_NCLASS;
	int cpu, k, e = 0;
	size_t csz = sizeof(struct ldlat_counters);
	__u64 *dst;
	const __u64 *src;

	cnt = calloc(ncpus, csz);
	vals = calloc(ncpus, sizeof(*vals));
	if (!cnt || !vals) {
		e = -ENOMEM;
		goto out;
	}
	memset(&snap->counters, 0, sizeof(snap->counters));
	if (bpf_map_lookup_elem(counters_fd, &zero, cnt)) {
		e = -errno;
		goto out;
	}
	for (cpu = 0; cpu < ncpus; cpu++) {
		dst = (__u64 *)&snap->counters;
		src = (const __u64 *)&cnt[cpu];
		for (k = 0; k < (int)(csz / sizeof(__u64)); k++)
			dst[k] += src[k];
	}
	/* the program counts each sample in its verdict's counter only (struct ldlat_counters) */
	snap->counters.seen = 0;
	for (k = 0; k < LDLAT_NVERDICTS; k++)
		snap->counters.seen += (&snap->counters.kept)[k];
	for (idx = 0; idx < n; idx++) {
		struct cell *c = &snap->cells[idx];

		if (bpf_map_lookup_elem(hists_fd, &idx, vals)) {
			e = -errno;
			goto out;
		}
		memset(c, 0, sizeof(*c));
		for (cpu = 0; cpu < ncpus; cpu++)
			cell__add_hist(c, &vals[cpu]);
		/* a fixed period: the program summed none (ldlat_config.fixed_period) */
		if (fixed_period)
			c->period = c->count * fixed_period;
	}
	if (fixed_period)
		snap->counters.seen_period = snap->counters.seen * fixed_period;
	clock_gettime(CLOCK_REALTIME, &snap->taken);
out:
	free(cnt);
	free(vals);
	return e;
}

int session__prog_fd(const struct session *s)
{
	return bpf_program__fd(session__program(s));
}

bool session__by_keyed(__u32 by)
{
	return by == LDLAT_BY_PID || by == LDLAT_BY_TID || by == LDLAT_BY_CGROUP;
}

int session__read_rows(int by_rows_fd, __u32 by, struct snapshot *snap)
{
	__u64 key, next;
	__u32 row, r;
	void *prev = NULL;

	if (!snap->row_key)
		return 0;
	for (r = 0; r + 1 < snap->nrows; r++) {
		snap->row_key[r] = r; /* a CPU or node is its row */
		snap->row_set[r] = !session__by_keyed(by);
	}
	if (!session__by_keyed(by) || by_rows_fd < 0)
		return 0;
	while (!bpf_map_get_next_key(by_rows_fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(by_rows_fd, &key, &row))
			continue; /* removed meanwhile: nothing removes them */
		if (row + 1 < snap->nrows) {
			snap->row_key[row] = key;
			snap->row_set[row] = true;
		}
	}
	return errno == ENOENT ? 0 : -errno;
}

int session__read(const struct session *s, struct snapshot *snap)
{
	int e;

	snap->linear_step = s->skel->rodata->cfg.linear_step;
	e = session__read_fds(bpf_map__fd(s->skel->maps.counters), bpf_map__fd(s->skel->maps.hists),
			      s->ncpus, s->nranges, s->skel->rodata->cfg.fixed_period, snap);
	if (!e && s->by)
		e = session__read_rows(bpf_map__fd(s->skel->maps.by_rows), s->by, snap);
	return e;
}

int session__read_maps(void *ctx, struct snapshot *snap, struct err *err)
{
	int e = session__read(ctx, snap);

	return e ? err__set(err, e, "cannot read the maps: %s", strerror(-e)) : 0;
}

int session__test_fd(const struct session *s)
{
	return bpf_program__fd(s->skel->progs.ldlat_test);
}

void session__close(struct session *s)
{
	ldlat_bpf__destroy(s->skel);
	s->skel = NULL;
}

int session_prog__cookie(struct prog *p, const struct evlist *evlist, int i, __u64 *cookie,
			 struct err *err)
{
	return session__cookie(&((struct session_prog *)p)->s, evlist, i, cookie, err);
}

int session_prog__read(struct prog *p, void *snap, bool last, struct err *err)
{
	(void)last;
	return session__read_maps(&((struct session_prog *)p)->s, snap, err);
}

void session_prog__close(struct prog *p)
{
	session__close(&((struct session_prog *)p)->s);
}
