// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "user/run/session.h"
#include "kernel/lib/err.h"
#include "bpf/ldlat.skel.h"
#include "bpf/ldlat_pin.h"

void session__probe(struct session_facts *f)
{
	const struct btf_type *t;
	const struct btf_enum *m;
	struct btf *btf;
	char buf[128] = "";
	FILE *fp;
	__s32 id;
	int i;

	memset(f, 0, sizeof(*f));
	fp = fopen("/sys/kernel/security/lockdown", "r");
	if (fp) {
		f->confidentiality =
			fgets(buf, sizeof(buf), fp) && strstr(buf, "[confidentiality]");
		fclose(fp);
	}
	btf = btf__load_vmlinux_btf();
	if (!btf)
		return;
	f->btf = true;
	f->cast_kfunc = btf__find_by_name_kind(btf, "bpf_cast_to_kern_ctx", BTF_KIND_FUNC) > 0;
	f->kern_ctx = btf__find_by_name_kind(btf, "bpf_perf_event_data_kern", BTF_KIND_STRUCT) > 0;
	f->weight_union = btf__find_by_name_kind(btf, "perf_sample_weight", BTF_KIND_UNION) > 0;
	id = btf__find_by_name_kind(btf, "bpf_func_id", BTF_KIND_ENUM);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	for (i = 0, m = t ? btf_enum(t) : NULL; t && i < btf_vlen(t); i++, m++) {
		if (!strcmp(btf__name_by_offset(btf, m->name_off), "BPF_FUNC_probe_read_kernel"))
			f->probe_read = true;
		if (!strcmp(btf__name_by_offset(btf, m->name_off), "BPF_FUNC_get_attach_cookie"))
			f->attach_cookie = true;
	}
	id = btf__find_by_name_kind(btf, "perf_sample_data", BTF_KIND_STRUCT);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	for (i = 0; t && i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(btf, btf_members(t)[i].name_off), "sample_flags"))
			f->sample_flags = true;
	btf__free(btf);
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

/* Writes the (range, class) labels into every CPU's copy of every cell. */
static int session__label(struct session *s)
{
	size_t vsz = sizeof(struct ldlat_hist);
	struct ldlat_hist *vals;
	__u32 idx, n = s->gens * s->nrows * s->nranges * LDLAT_NCLASS;
	int cpu, fd = bpf_map__fd(s->skel->maps.hists), e = 0;

	vals = calloc(s->ncpus, vsz);
	if (!vals)
		return -ENOMEM;
	for (idx = 0; idx < n && !e; idx++) {
		for (cpu = 0; cpu < s->ncpus; cpu++) {
			vals[cpu].range = idx / LDLAT_NCLASS % s->nranges;
			vals[cpu].class = idx % LDLAT_NCLASS;
		}
		if (bpf_map_update_elem(fd, &idx, vals, BPF_ANY))
			e = -errno;
	}
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

/* One sentence for a program the kernel refused: the cause, and what to do. */
static void session__refused(const struct session *s, int e, struct err *err)
{
	struct session_facts f;

	session__probe(&f);
	if (!f.btf)
		err__msg(err,
			 "cannot load the BPF program: this kernel has no BTF "
			 "(/sys/kernel/btf/vmlinux), which it needs to find the kernel's fields; "
			 "run a kernel built with CONFIG_DEBUG_INFO_BTF=y");
	else if (s->path == SESSION_PATH_KERN_CTX && session__jit_off())
		err__msg(err, "cannot load the BPF program: the BPF JIT is off "
			      "(net.core.bpf_jit_enable=0), and the kernel runs the kfunc this "
			      "kernel's read path calls (bpf_cast_to_kern_ctx) only JIT-compiled; "
			      "sysctl net.core.bpf_jit_enable=1, or set LDLAT_FORCE_ADDR_ONLY=1 to "
			      "sample addresses only");
	else if (e == -ESRCH && s->path == SESSION_PATH_KERN_CTX)
		/* libbpf's answer for a kfunc that the kernel's BTF lacks */
		err__msg(err, "cannot load the BPF program: this kernel's BTF has no "
			      "bpf_cast_to_kern_ctx (Linux 6.2), which it was told to use; unset "
			      "LDLAT_FORCE_ADDR_ONLY to let it choose, or set it to 1 to sample "
			      "addresses only");
	else if (s->path == SESSION_PATH_PROBE_READ && f.confidentiality)
		err__msg(err,
			 "cannot load the BPF program: this kernel is locked down "
			 "(confidentiality) and refuses bpf_probe_read_kernel, which reads "
			 "latency and data source on it; set LDLAT_FORCE_ADDR_ONLY=1 to sample "
			 "addresses only, or boot with lockdown=integrity");
	else
		err__msg(err,
			 "cannot load the BPF program (%s read path): %s (run with -v for the "
			 "verifier's log; LDLAT_FORCE_ADDR_ONLY=1 loads the address-only program)",
			 session__path_name(s->path), strerror(-e));
}

int session__open(struct session *s, const struct ldlat_config *cfg, unsigned int flags,
		  struct err *err)
{
	return session__open_counted(s, cfg, flags, 0, err);
}

static int session__open_all(struct session *s, const struct ldlat_config *cfg, unsigned int flags,
			     __u32 nevents, const struct session_unwind *uw, struct err *err);

int session__open_counted(struct session *s, const struct ldlat_config *cfg, unsigned int flags,
			  __u32 nevents, struct err *err)
{
	return session__open_all(s, cfg, flags, nevents, NULL, err);
}

int session__open_unwind(struct session *s, const struct ldlat_config *cfg, unsigned int flags,
			 const struct session_unwind *uw, struct err *err)
{
	return session__open_all(s, cfg, flags, 0, uw, err);
}

static int session__open_all(struct session *s, const struct ldlat_config *cfg, unsigned int flags,
			     __u32 nevents, const struct session_unwind *uw, struct err *err)
{
	struct session_facts facts = {};
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
	s->top = cfg->top != 0;
	s->gens = s->top ? 2 : 1;
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
	bpf_map__set_max_entries(s->skel->maps.hists,
				 s->gens * s->nrows * s->nranges * LDLAT_NCLASS);
	bpf_map__set_max_entries(s->skel->maps.by_rows,
				 session__by_keyed(cfg->by) && cfg->by_keys ? cfg->by_keys : 1);
	bpf_map__set_max_entries(s->skel->maps.by_owner,
				 session__by_keyed(cfg->by) && cfg->by_keys ? cfg->by_keys : 1);
	/* ldlat-top's tables; one unused entry each when off */
	bpf_map__set_max_entries(s->skel->maps.top_ip, (cfg->top & LDLAT_TOP_IP) && cfg->top_entries
							       ? cfg->top_entries
							       : 1);
	bpf_map__set_max_entries(s->skel->maps.top_data,
				 (cfg->top & LDLAT_TOP_DATA) && cfg->top_entries ? cfg->top_entries
										 : 1);
	bpf_map__set_max_entries(s->skel->maps.top_stack,
				 (cfg->top & LDLAT_TOP_STACK) && cfg->top_entries ? cfg->top_entries
										  : 1);
	bpf_map__set_max_entries(s->skel->maps.top_stacks,
				 (cfg->top & LDLAT_TOP_STACK) && cfg->top_entries
					 ? ldlat_top_stacks_for(cfg->top_entries)
					 : 1);
	bpf_map__set_max_entries(
		s->skel->maps.top_spill,
		cfg->top && cfg->top_entries ? ldlat_top_spill_bytes(cfg->top_entries) : 4096);
	/*
	 * the walk from the tables; a sample taken in the kernel finds the
	 * task's user registers by bpf_task_pt_regs (Linux 5.15), else at the
	 * top of its kernel stack
	 */
	s->skel->rodata->unwind_max = uw ? uw->max_stack : 0;
	s->skel->rodata->unwind_task_regs =
		uw &&
		libbpf_probe_bpf_helper(BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_task_pt_regs, NULL) == 1;
	bpf_map__set_max_entries(s->skel->maps.unwind_procs, uw ? uw->procs : 1);
	bpf_map__set_max_entries(s->skel->maps.unwind_files, uw ? uw->files : 1);
	bpf_program__set_autoload(s->skel->progs.ldlat_test_unwind,
				  uw && (flags & SESSION_TEST_ENTRY));
	bpf_program__set_autoload(s->skel->progs.ldlat_sample,
				  s->path == SESSION_PATH_KERN_CTX && !s->top);
	bpf_program__set_autoload(s->skel->progs.ldlat_sample_kern,
				  s->path == SESSION_PATH_PROBE_READ && !s->top);
	bpf_program__set_autoload(s->skel->progs.ldlat_sample_addr, s->addr_only && !s->top);
	bpf_program__set_autoload(s->skel->progs.ldlat_top,
				  s->path == SESSION_PATH_KERN_CTX && s->top);
	bpf_program__set_autoload(s->skel->progs.ldlat_top_kern,
				  s->path == SESSION_PATH_PROBE_READ && s->top);
	bpf_program__set_autoload(s->skel->progs.ldlat_top_addr, s->addr_only && s->top);
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
	e = ldlat_bpf__load(s->skel);
	if (e) {
		session__refused(s, e, err);
		session__close(s);
		/* the verifier's EINVAL or EPERM is no fault of the user's input */
		return err__system(err, e);
	}
	e = session__label(s);
	if (e) {
		err__msg(err, "cannot initialise the histogram map: %s", strerror(-e));
		session__close(s);
	}
	return e;
}

/* The program attached to the events: with ldlat-top's tables or not, by the read path. */
static struct bpf_program *session__prog(const struct session *s)
{
	switch (s->path) {
	case SESSION_PATH_KERN_CTX:
		return s->top ? s->skel->progs.ldlat_top : s->skel->progs.ldlat_sample;
	case SESSION_PATH_PROBE_READ:
		return s->top ? s->skel->progs.ldlat_top_kern : s->skel->progs.ldlat_sample_kern;
	default:
		return s->top ? s->skel->progs.ldlat_top_addr : s->skel->progs.ldlat_sample_addr;
	}
}

/* Link i's cookie, and its event's period where the program keeps its count. */
static int session__count_slot(struct session *s, const struct evlist *evlist, __u32 i)
{
	const struct perf_event_attr *a = &evlist->evsel[evlist->fds[i].evsel].attr;
	struct ldlat_event_count c = { .period = a->freq ? 0 : a->sample_period };

	if (i >= bpf_map__max_entries(s->skel->maps.event_counts))
		return -E2BIG;
	return bpf_map_update_elem(bpf_map__fd(s->skel->maps.event_counts), &i, &c, BPF_ANY)
		       ? -errno
		       : 0;
}

int session__attach(struct session *s, struct evlist *evlist, struct err *err)
{
	struct bpf_program *prog = session__prog(s);
	struct bpf_link *link;
	int i, e;

	s->links = calloc(evlist->nfds, sizeof(*s->links));
	if (!s->links)
		return -ENOMEM;
	for (i = 0; i < evlist->nfds; i++) {
		LIBBPF_OPTS(bpf_perf_event_opts, opts, .bpf_cookie = s->counts ? (__u64)i : 0);

		/* before the attach, which enables the event */
		if (s->counts && (e = session__count_slot(s, evlist, (__u32)i))) {
			err__msg(err, "cannot set up the count of %s: %s",
				 evlist->evsel[evlist->fds[i].evsel].name, strerror(-e));
			return err__system(err, e);
		}
		link = bpf_program__attach_perf_event_opts(prog, evlist->fds[i].fd, &opts);
		if (!link) {
			e = -errno;
			err__msg(err, "cannot attach the BPF program to %s: %s",
				 evlist->evsel[evlist->fds[i].evsel].name, strerror(-e));
			return err__system(err, e);
		}
		/* the link closes the perf fd when destroyed */
		evlist->fds[i].owned_elsewhere = true;
		s->links[s->nlinks++] = link;
	}
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
	return bpf_program__fd(session__prog(s));
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
	int i;

	for (i = 0; i < s->nlinks; i++)
		bpf_link__destroy(s->links[i]);
	free(s->links);
	s->links = NULL;
	s->nlinks = 0;
	ldlat_bpf__destroy(s->skel);
	s->skel = NULL;
}
