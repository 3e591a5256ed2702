// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/c2c.h" /* the skeleton needs its types first */

#include "bpf/c2c.skel.h"
#include "kernel/abi/numa.h"
#include "user/c2c/c2cbpf.h"

int c2c_session__open(struct c2c_session *s, const struct ldlat_config *cfg, __u32 line_shift,
		      __u32 entries, bool addr_only, bool test, struct err *err)
{
	int e;

	memset(s, 0, sizeof(*s));
	s->proc_root = "/proc";
	s->ncpus = libbpf_num_possible_cpus();
	if (s->ncpus <= 0)
		return err__set(err, s->ncpus ? s->ncpus : -EINVAL,
				"cannot count the possible CPUs: %s", strerror(-s->ncpus));
	s->cpu_node = calloc(s->ncpus, sizeof(*s->cpu_node));
	if (!s->cpu_node)
		return err__set(err, -ENOMEM, "out of memory");
	numa__cpu_nodes("/sys", s->cpu_node, s->ncpus);
	s->skel = c2c_bpf__open();
	if (!s->skel)
		return err__set(err, -errno ?: -ENOMEM, "cannot open ldlat-c2c's BPF program: %s",
				strerror(errno ?: ENOMEM));
	s->skel->rodata->cfg = *cfg;
	s->skel->rodata->line_shift = line_shift;
	bpf_map__set_max_entries(s->skel->maps.c2c_lines, entries);
	bpf_map__set_max_entries(s->skel->maps.c2c_ents, entries * 4);
	bpf_map__set_max_entries(s->skel->maps.c2c_tids, entries * 2);
	bpf_program__set_autoload(s->skel->progs.c2c_sample, !addr_only);
	bpf_program__set_autoload(s->skel->progs.c2c_sample_addr, addr_only);
	bpf_program__set_autoload(s->skel->progs.c2c_test, test);
	e = c2c_bpf__load(s->skel);
	if (e)
		return err__set(err, e,
				"cannot load ldlat-c2c's BPF program: %s (run as root, or with "
				"CAP_BPF and CAP_PERFMON)",
				strerror(-e));
	return 0;
}

int c2c_session__attach(struct c2c_session *s, struct evlist *evlist, struct err *err)
{
	struct bpf_program *prog = bpf_program__autoload(s->skel->progs.c2c_sample)
					   ? s->skel->progs.c2c_sample
					   : s->skel->progs.c2c_sample_addr;
	struct bpf_link *link;
	int i, e;

	s->links = calloc(evlist->nfds, sizeof(*s->links));
	if (!s->links)
		return err__set(err, -ENOMEM, "out of memory");
	for (i = 0; i < evlist->nfds; i++) {
		link = bpf_program__attach_perf_event(prog, evlist->fds[i].fd);
		if (!link) {
			e = -errno;
			return err__set(err, e, "cannot attach the BPF program to %s: %s",
					evlist->evsel[evlist->fds[i].evsel].name, strerror(-e));
		}
		/* the link closes the perf fd when destroyed */
		evlist->fds[i].owned_elsewhere = true;
		s->links[s->nlinks++] = link;
	}
	return 0;
}

int c2c_session__test_fd(const struct c2c_session *s)
{
	return bpf_program__fd(s->skel->progs.c2c_test);
}

/* A MAP_SHARED mapping of process tgid holding addr: its space and the offset of addr in it. */
static bool shared_of(struct c2c_session *s, struct c2c_table *t, __u32 tgid, __u64 addr,
		      __u64 *space, __u64 *off, char *name, size_t len)
{
	char path[64], line[4096];
	bool found = false;
	FILE *f;

	if (!s->proc_root)
		return false;
	snprintf(path, sizeof(path), "%s/%u/maps", s->proc_root, tgid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, pgoff, ino;
		unsigned int maj, min;
		char perms[8];
		int n = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &lo, &hi, perms, &pgoff, &maj,
			   &min, &ino, &n) < 7 ||
		    addr < lo || addr >= hi)
			continue;
		if (perms[3] == 's') {
			struct c2c_space sp = { maj, min, ino, 0 };

			*space = c2c_table__space(t, &sp);
			*off = addr - lo + pgoff;
			snprintf(name, len, "%s", line + n);
			name[strcspn(name, "\n")] = '\0';
			found = *space != 0;
		}
		break;
	}
	fclose(f);
	return found;
}

int c2c_session__read(struct c2c_session *s, struct c2c_table *t, struct ldlat_c2c_counters *cnt)
{
	struct ldlat_c2c_counts *v = calloc(s->ncpus, sizeof(*v));
	struct ldlat_c2c_counters *cv = calloc(s->ncpus, sizeof(*cv));
	__u64 *tv = calloc(s->ncpus, sizeof(__u64)), mask = (1ull << t->line_shift) - 1;
	struct ldlat_c2c_line_key lk, *lprev = NULL;
	struct ldlat_c2c_ent_key ek, *eprev = NULL;
	struct ldlat_c2c_tid_key tk, *tprev = NULL;
	__u32 zero = 0;
	int cpu, e = 0;
	size_t k;

	memset(cnt, 0, sizeof(*cnt));
	if (!v || !cv || !tv) {
		e = -ENOMEM;
		goto out;
	}
	if (!bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.c2c_counters), &zero, cv))
		for (cpu = 0; cpu < s->ncpus; cpu++)
			for (k = 0; k < sizeof(*cnt) / 8; k++)
				((__u64 *)cnt)[k] += ((__u64 *)&cv[cpu])[k];
	while (!bpf_map_get_next_key(bpf_map__fd(s->skel->maps.c2c_lines), lprev, &lk)) {
		struct c2c_line *l;
		__u64 space = 0, addr = lk.line;
		char name[512];

		lprev = &lk;
		if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.c2c_lines), &lk, v))
			continue;
		if (shared_of(s, t, lk.tgid, lk.line, &space, &addr, name, sizeof(name)))
			addr &= ~mask;
		else
			space = lk.tgid;
		l = c2c_table__line(t, space, addr);
		if (!l || !c2c_set__add(&l->tgids, lk.tgid)) {
			e = -ENOMEM;
			goto out;
		}
		if (!l->c.records) {
			l->vaddr = lk.line;
			l->tgid = lk.tgid;
			if (space != lk.tgid && !l->object)
				l->object = c2c_table__intern(t, name);
		}
		for (cpu = 0; cpu < s->ncpus; cpu++) {
			if (!v[cpu].records)
				continue;
			struct c2c_numa *n = c2c_table__numa(t, lk.tgid, s->cpu_node[cpu]);

			if (!n) {
				e = -ENOMEM;
				goto out;
			}
			c2c_counts__add(&n->c, &v[cpu]);
			c2c_counts__add(&l->c, &v[cpu]);
			c2c_counts__add(&t->total, &v[cpu]);
			if (!c2c_set__add(&l->cpus, cpu)) {
				e = -ENOMEM;
				goto out;
			}
			if (s->cpu_node[cpu] >= 0)
				l->nodes |= 1ull << (s->cpu_node[cpu] & 63);
		}
	}
	while (!bpf_map_get_next_key(bpf_map__fd(s->skel->maps.c2c_ents), eprev, &ek)) {
		struct c2c_line *l;
		struct c2c_entry *en;
		__u64 space = 0, addr = ek.line;
		char name[512];

		eprev = &ek;
		if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.c2c_ents), &ek, v))
			continue;
		if (shared_of(s, t, ek.tgid, ek.line, &space, &addr, name, sizeof(name)))
			addr &= ~mask;
		else
			space = ek.tgid;
		/* a line the lines' table had no room for: its samples are counted as lost there */
		l = c2c_table__find(t, space, addr);
		if (!l)
			continue;
		en = c2c_line__entry(l, ek.offset, ek.tgid, ek.ip);
		if (!en) {
			e = -ENOMEM;
			goto out;
		}
		for (cpu = 0; cpu < s->ncpus; cpu++) {
			if (!v[cpu].records)
				continue;
			c2c_counts__add(&en->c, &v[cpu]);
			if (!c2c_set__add(&en->cpus, cpu)) {
				e = -ENOMEM;
				goto out;
			}
			if (s->cpu_node[cpu] >= 0)
				en->nodes |= 1ull << (s->cpu_node[cpu] & 63);
		}
	}
	while (!bpf_map_get_next_key(bpf_map__fd(s->skel->maps.c2c_tids), tprev, &tk)) {
		struct c2c_line *l;
		__u64 space = 0, addr = tk.line;
		char name[512];

		tprev = &tk;
		if (shared_of(s, t, tk.tgid, tk.line, &space, &addr, name, sizeof(name)))
			addr &= ~mask;
		else
			space = tk.tgid;
		l = c2c_table__find(t, space, addr);
		if (!l)
			continue;
		if (!c2c_set__add(&l->tids, tk.tid)) {
			e = -ENOMEM;
			goto out;
		}
	}
out:
	free(v);
	free(cv);
	free(tv);
	return e;
}

void c2c_session__close(struct c2c_session *s)
{
	int i;

	for (i = 0; i < s->nlinks; i++)
		bpf_link__destroy(s->links[i]);
	free(s->links);
	if (s->skel)
		c2c_bpf__destroy(s->skel);
	free(s->cpu_node);
	memset(s, 0, sizeof(*s));
}
