// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "user/run/session.h"
#include "kernel/lib/err.h"
#include "bpf/ldlat.skel.h"

bool session__sample_fields_for(const char *release, const char *force, char *why, size_t len)
{
	int ma = 0, mi = 0;

	if (force && !strcmp(force, "1")) {
		snprintf(why, len, "LDLAT_FORCE_ADDR_ONLY=1");
		return false;
	}
	/* a kernel whose version predates 6.3 but that has the change backported */
	if (force && !strcmp(force, "0"))
		return true;
	if (sscanf(release, "%d.%d", &ma, &mi) != 2 || ma < 6 || (ma == 6 && mi < 3)) {
		snprintf(why, len,
			 "this kernel runs BPF before the sample is prepared (Linux 6.3 "
			 "fixed that; LDLAT_FORCE_ADDR_ONLY=0 if yours has the fix backported)");
		return false;
	}
	return true;
}

bool session__kernel_has_sample_fields(char *why, size_t len)
{
	struct utsname u;

	return session__sample_fields_for(uname(&u) ? "" : u.release,
					  getenv("LDLAT_FORCE_ADDR_ONLY"), why, len);
}

/* Writes the (range, class) labels into every CPU's copy of every cell. */
static int session__label(struct session *s)
{
	size_t vsz = sizeof(struct ldlat_hist);
	struct ldlat_hist *vals;
	__u32 idx, n = s->nranges * LDLAT_NCLASS;
	int cpu, fd = bpf_map__fd(s->skel->maps.hists), e = 0;

	vals = calloc(s->ncpus, vsz);
	if (!vals)
		return -ENOMEM;
	for (idx = 0; idx < n && !e; idx++) {
		for (cpu = 0; cpu < s->ncpus; cpu++) {
			vals[cpu].range = idx / LDLAT_NCLASS;
			vals[cpu].class = idx % LDLAT_NCLASS;
		}
		if (bpf_map_update_elem(fd, &idx, vals, BPF_ANY))
			e = -errno;
	}
	free(vals);
	return e;
}

int session__open(struct session *s, const struct ldlat_config *cfg, unsigned int flags,
		  struct err *err)
{
	int e;

	memset(s, 0, sizeof(*s));
	s->ncpus = libbpf_num_possible_cpus();
	if (s->ncpus <= 0) {
		err__msg(err, "cannot count the possible CPUs: %s", strerror(-s->ncpus));
		return s->ncpus ? s->ncpus : -EINVAL;
	}
	s->nranges = cfg->nranges ? cfg->nranges : 1;
	s->addr_only = flags & SESSION_ADDR_ONLY;
	s->skel = ldlat_bpf__open();
	if (!s->skel) {
		e = -errno;
		err__msg(err, "cannot open the BPF object: %s", strerror(-e));
		return e;
	}
	s->skel->rodata->cfg = *cfg;
	s->skel->rodata->cfg.nranges = s->nranges;
	bpf_map__set_max_entries(s->skel->maps.hists, s->nranges * LDLAT_NCLASS);
	/* ldlat-top's tables; one unused entry each when off */
	bpf_map__set_max_entries(s->skel->maps.top_ip, (cfg->top & LDLAT_TOP_IP) && cfg->top_entries
							       ? cfg->top_entries
							       : 1);
	bpf_map__set_max_entries(s->skel->maps.top_data,
				 (cfg->top & LDLAT_TOP_DATA) && cfg->top_entries ? cfg->top_entries
										 : 1);
	s->top = cfg->top != 0;
	bpf_program__set_autoload(s->skel->progs.ldlat_sample, !s->addr_only && !s->top);
	bpf_program__set_autoload(s->skel->progs.ldlat_sample_addr, s->addr_only && !s->top);
	bpf_program__set_autoload(s->skel->progs.ldlat_top, !s->addr_only && s->top);
	bpf_program__set_autoload(s->skel->progs.ldlat_top_addr, s->addr_only && s->top);
	bpf_program__set_autoload(s->skel->progs.ldlat_test, !!(flags & SESSION_TEST_ENTRY));
	bpf_program__set_autoload(s->skel->progs.ldlat_test_data, !!(flags & SESSION_TEST_ENTRY));
	bpf_program__set_autoload(s->skel->progs.ldlat_bench, !!(flags & SESSION_BENCH_ENTRY));
	bpf_map__set_autocreate(s->skel->maps.meta, flags & SESSION_PIN);
	bpf_map__set_autocreate(s->skel->maps.shown, flags & SESSION_PIN);
	bpf_map__set_autocreate(s->skel->maps.shown_hists, flags & SESSION_PIN);
	bpf_map__set_max_entries(s->skel->maps.shown_hists, s->nranges * LDLAT_NCLASS);
	e = ldlat_bpf__load(s->skel);
	if (e == -ESRCH && !s->addr_only) {
		/* libbpf's answer for a kfunc that the kernel's BTF lacks */
		err__msg(err,
			 "cannot load the BPF program: this kernel's BTF has no "
			 "bpf_cast_to_kern_ctx "
			 "(Linux 6.2), which reads latency and data source; run with "
			 "LDLAT_FORCE_ADDR_ONLY=1 in the environment to sample addresses only");
		session__close(s);
		return err__system(err, e);
	}
	if (e) {
		err__msg(err,
			 "cannot load the BPF program: %s (run with -v for the verifier's log; the "
			 "kernel needs BTF, CONFIG_BPF_EVENTS and Linux 5.15 or later)",
			 strerror(-e));
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

/* The program attached to the events: with ldlat-top's tables or not, address-only or not. */
static struct bpf_program *session__prog(const struct session *s)
{
	if (s->top)
		return s->addr_only ? s->skel->progs.ldlat_top_addr : s->skel->progs.ldlat_top;
	return s->addr_only ? s->skel->progs.ldlat_sample_addr : s->skel->progs.ldlat_sample;
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
		link = bpf_program__attach_perf_event(prog, evlist->fds[i].fd);
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

int session__read_fds(int counters_fd, int hists_fd, int prog_fd, int ncpus, __u32 nranges,
		      struct snapshot *snap)
{
	struct ldlat_counters *cnt;
	struct ldlat_hist *vals;
	struct bpf_prog_info info = {};
	__u32 zero = 0, idx, n = nranges * LDLAT_NCLASS, info_len = sizeof(info);
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
	for (idx = 0; idx < n; idx++) {
		struct cell *c = &snap->cells[idx];

		if (bpf_map_lookup_elem(hists_fd, &idx, vals)) {
			e = -errno;
			goto out;
		}
		memset(c, 0, sizeof(*c));
		for (cpu = 0; cpu < ncpus; cpu++) {
			for (k = 0; k < LDLAT_NBUCKETS; k++) {
				c->slot[k] += vals[cpu].slot[k];
				c->count += vals[cpu].slot[k];
			}
			c->sum += vals[cpu].sum;
		}
	}
	snap->recursion_misses = 0;
	if (prog_fd >= 0 && !bpf_obj_get_info_by_fd(prog_fd, &info, &info_len))
		snap->recursion_misses = info.recursion_misses;
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

int session__read(const struct session *s, struct snapshot *snap)
{
	return session__read_fds(bpf_map__fd(s->skel->maps.counters),
				 bpf_map__fd(s->skel->maps.hists), session__prog_fd(s), s->ncpus,
				 s->nranges, snap);
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
