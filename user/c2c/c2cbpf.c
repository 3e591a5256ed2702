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
#include "user/run/tool.h"
#include "user/symbols/machine.h"

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
		return session__refused(addr_only ? SESSION_PATH_ADDR_ONLY : SESSION_PATH_KERN_CTX,
					e, err);
	return 0;
}

int c2c_session__test_fd(const struct c2c_session *s)
{
	return bpf_program__fd(s->skel->progs.c2c_test);
}

/*
 * The line of (tgid, line address) in t's spaces: in a MAP_SHARED mapping of
 * the process, the mapped file's space and the line's offset in it (and the
 * file's name in *name); else the process's own.
 */
static void line_space(struct machine *mc, struct c2c_table *t, __u32 tgid, __u64 line,
		       __u64 *space, __u64 *addr, const char **name)
{
	const struct machine_shared *m = machine__shared(mc, (pid_t)tgid, line);
	struct c2c_space sp;
	__u64 id;

	*space = tgid;
	*addr = line;
	*name = NULL;
	if (!m)
		return;
	sp = (struct c2c_space){ m->maj, m->min, m->ino, 0 };
	id = c2c_table__space(t, &sp);
	if (!id)
		return;
	*space = id;
	*addr = (line - m->start + m->pgoff) & ~((1ull << t->line_shift) - 1);
	*name = m->name;
}

/*
 * The next element of map fd after *prev (NULL: the first) whose value is
 * still there, into key and val; *prev becomes key.  false: no more.
 */
static bool map__next(int fd, const void **prev, void *key, void *val)
{
	while (!bpf_map_get_next_key(fd, *prev, key)) {
		*prev = key;
		if (!bpf_map_lookup_elem(fd, key, val))
			return true;
	}
	return false;
}

/*
 * One CPU's counts v into a line's or an entry's: its counts c, the CPUs
 * and the nodes (bit n: node n; none for a CPU of no known node) it was seen
 * on.  false: no memory.
 */
static bool cpu_counts__add(struct ldlat_c2c_counts *c, struct c2c_set *cpus, __u64 *nodes,
			    const struct ldlat_c2c_counts *v, int cpu, int node)
{
	c2c_counts__add(c, v);
	if (!c2c_set__add(cpus, cpu))
		return false;
	if (node >= 0)
		*nodes |= 1ull << (node & 63);
	return true;
}

int c2c_session__read(struct c2c_session *s, struct c2c_table *t, struct ldlat_c2c_counters *cnt)
{
	struct ldlat_c2c_counts *v = calloc(s->ncpus, sizeof(*v));
	struct ldlat_c2c_counters *cv = calloc(s->ncpus, sizeof(*cv));
	__u64 *tv = calloc(s->ncpus, sizeof(__u64));
	struct machine mc; /* the processes' MAP_SHARED mappings, as /proc shows them now */
	/* map__next's place in the lines' and the entries' maps */
	const void *lprev = NULL, *eprev = NULL;
	struct ldlat_c2c_line_key lk;
	struct ldlat_c2c_ent_key ek;
	struct ldlat_c2c_tid_key tk, *tprev = NULL;
	__u32 zero = 0;
	int cpu, e = 0;
	size_t k;

	memset(cnt, 0, sizeof(*cnt));
	machine__init(&mc, MACHINE_LIVE);
	mc.pm.proc_root = s->proc_root;
	machine__track_shared(&mc);
	if (!v || !cv || !tv) {
		e = -ENOMEM;
		goto out;
	}
	if (!bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.c2c_counters), &zero, cv))
		for (cpu = 0; cpu < s->ncpus; cpu++)
			for (k = 0; k < sizeof(*cnt) / 8; k++)
				((__u64 *)cnt)[k] += ((__u64 *)&cv[cpu])[k];
	while (map__next(bpf_map__fd(s->skel->maps.c2c_lines), &lprev, &lk, v)) {
		struct c2c_line *l;
		__u64 space, addr;
		const char *name;

		line_space(&mc, t, lk.tgid, lk.line, &space, &addr, &name);
		l = c2c_table__line(t, space, addr);
		if (!l || !c2c_set__add(&l->tgids, lk.tgid)) {
			e = -ENOMEM;
			goto out;
		}
		if (!l->c.records) {
			l->vaddr = lk.line;
			l->tgid = lk.tgid;
			if (name && !l->object)
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
			c2c_counts__add(&t->total, &v[cpu]);
			if (!cpu_counts__add(&l->c, &l->cpus, &l->nodes, &v[cpu], cpu,
					     s->cpu_node[cpu])) {
				e = -ENOMEM;
				goto out;
			}
		}
	}
	while (map__next(bpf_map__fd(s->skel->maps.c2c_ents), &eprev, &ek, v)) {
		struct c2c_line *l;
		struct c2c_entry *en;
		__u64 space, addr;
		const char *name;

		line_space(&mc, t, ek.tgid, ek.line, &space, &addr, &name);
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
			if (!cpu_counts__add(&en->c, &en->cpus, &en->nodes, &v[cpu], cpu,
					     s->cpu_node[cpu])) {
				e = -ENOMEM;
				goto out;
			}
		}
	}
	while (!bpf_map_get_next_key(bpf_map__fd(s->skel->maps.c2c_tids), tprev, &tk)) {
		struct c2c_line *l;
		__u64 space, addr;
		const char *name;

		tprev = &tk;
		line_space(&mc, t, tk.tgid, tk.line, &space, &addr, &name);
		l = c2c_table__find(t, space, addr);
		if (!l)
			continue;
		if (!c2c_set__add(&l->tids, tk.tid)) {
			e = -ENOMEM;
			goto out;
		}
	}
out:
	machine__free(&mc);
	free(v);
	free(cv);
	free(tv);
	return e;
}

void c2c_session__close(struct c2c_session *s)
{
	if (s->skel)
		c2c_bpf__destroy(s->skel);
	free(s->cpu_node);
	memset(s, 0, sizeof(*s));
}

static int c2c_prog__open(struct prog *p, struct tool *t, struct err *err)
{
	struct c2c_prog *cp = (struct c2c_prog *)p;
	int e;

	e = c2c_session__open(&cp->s, &t->cfg, LDLAT_C2C_LINE_SHIFT, cp->entries,
			      t->path != SESSION_PATH_KERN_CTX, false, err);
	if (!e)
		p->program = bpf_program__autoload(cp->s.skel->progs.c2c_sample)
				     ? cp->s.skel->progs.c2c_sample
				     : cp->s.skel->progs.c2c_sample_addr;
	return e;
}

static int c2c_prog__read(struct prog *p, void *model, bool last, struct err *err)
{
	struct c2c_read *r = model;
	int e;

	(void)last;
	e = c2c_session__read(&((struct c2c_prog *)p)->s, r->t, &r->cnt);
	if (e)
		err__msg(err, "cannot read the kernel's tables: %s",
			 e == -ENOMEM ? "out of memory" : strerror(-e));
	return e;
}

static void c2c_prog__close(struct prog *p)
{
	c2c_session__close(&((struct c2c_prog *)p)->s);
}

const struct prog_ops c2c_prog_ops = {
	.open = c2c_prog__open,
	.read = c2c_prog__read,
	.close = c2c_prog__close,
};
