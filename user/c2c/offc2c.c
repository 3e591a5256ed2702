// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "user/c2c/offc2c.h"

int offc2c__open(struct offc2c *c, const char *path, struct cli *cli, const char *debuginfo,
		 struct err *err)
{
	int e;

	memset(c, 0, sizeof(*c));
	procmaps__init(&c->pm);
	c->pm.proc_root = NULL; /* the file's records only */
	c2c_table__init(&c->t, LDLAT_C2C_LINE_SHIFT);
	/* loads and stores: what perf c2c record samples */
	if (!cli->op_set)
		cli->op_mask = PERF_MEM_OP_LOAD | PERF_MEM_OP_STORE;
	e = offline__open(&c->o, path, cli, 0, err);
	if (e)
		return e;
	if ((c->o.src.fields & (LDLAT_HAS_ADDR | LDLAT_HAS_DSRC)) !=
	    (LDLAT_HAS_ADDR | LDLAT_HAS_DSRC))
		return err__set(
			err, -EINVAL,
			"%s: the samples of %s do not carry both a data address and a data "
			"source: record with perf c2c record, or perf mem record -t load,store",
			path, c->o.events);
	if (symbolizer__init(&c->z, &c->pm, debuginfo))
		return err__set(err, -ENOMEM, "out of memory");
	c->z_init = true;
	/* kernel addresses stay raw: the file may come from another kernel or boot */
	c->z.kernel_raw = true;
	return 0;
}

static int apply_mmap(struct offc2c *c, const struct perf_record *r)
{
	struct perf_mmap_event m;
	struct offc2c_shared *n;
	const char *name;

	if (perf_file__parse_mmap(&c->o.file, r, &m) || m.pid == (__u32)-1 ||
	    m.cpumode == PERF_RECORD_MISC_KERNEL || !m.len || m.start + m.len < m.start)
		return 0;
	/* perf names anonymous memory //anon; the model, as /proc, leaves it nameless */
	name = strcmp(m.filename, "//anon") ? m.filename : NULL;
	if (m.mmap2 && (m.flags & MAP_SHARED) && !m.has_build_id) {
		struct c2c_space s = { m.maj, m.min, m.ino, m.ino_generation };

		n = realloc(c->shared, (c->nshared + 1) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		c->shared = n;
		n[c->nshared] = (struct offc2c_shared){
			.pid = m.pid,
			.start = m.start,
			.end = m.start + m.len,
			.pgoff = m.pgoff,
			.space = c2c_table__space(&c->t, &s),
			.name = procmaps__intern(&c->pm, m.filename),
		};
		if (!n[c->nshared].space)
			return -ENOMEM;
		c->nshared++;
	}
	return procmaps__add(&c->pm, (pid_t)m.pid, m.start, m.start + m.len, m.pgoff, name, 0);
}

static int apply_comm(struct offc2c *c, const struct perf_record *r)
{
	struct perf_comm_event k;

	if (perf_file__parse_comm(&c->o.file, r, &k))
		return 0;
	if (!k.exec) {
		procmaps__comm(&c->pm, (pid_t)k.pid, (pid_t)k.tid, k.comm);
		return 0;
	}
	/* a new program: the old one's mappings are gone */
	procmaps__forget(&c->pm, (pid_t)k.pid);
	procmaps__exec(&c->pm, (pid_t)k.pid, k.comm, 0);
	return procmaps__find(&c->pm, (pid_t)k.pid) ? 0 : -ENOMEM;
}

static int apply_task(struct offc2c *c, const struct perf_record *r)
{
	struct perf_task_event k;

	if (perf_file__parse_task(&c->o.file, r, &k) || k.pid != k.tid || k.exit || k.pid == k.ppid)
		return 0;
	procmaps__forget(&c->pm, (pid_t)k.pid);
	return procmaps__fork(&c->pm, (pid_t)k.pid, (pid_t)k.ppid, 0);
}

/* PERF_RECORD_CGROUP: u64 id, then the path, NUL-terminated in the record. */
static int apply_cgroup(struct offc2c *c, const struct perf_record *r)
{
	struct offc2c_cgroup *n;
	const char *path;
	__u64 id;

	if (r->size < 8 + 8 + 1)
		return 0;
	memcpy(&id, r->data + 8, 8);
	path = (const char *)r->data + 16;
	if (!memchr(path, '\0', r->size - 16))
		return 0;
	n = realloc(c->cgroups, (c->ncgroups + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	c->cgroups = n;
	n[c->ncgroups++] = (struct offc2c_cgroup){ id, path };
	return 0;
}

static const char *cgroup_path(const struct offc2c *c, __u64 id)
{
	int i;

	for (i = c->ncgroups - 1; i >= 0; i--)
		if (c->cgroups[i].id == id)
			return c->cgroups[i].path;
	return NULL;
}

/* The shared mapping of process pid that holds addr (the latest), or NULL. */
static const struct offc2c_shared *shared_of(const struct offc2c *c, __u32 pid, __u64 addr)
{
	int i;

	for (i = c->nshared - 1; i >= 0; i--)
		if (c->shared[i].pid == pid && addr >= c->shared[i].start &&
		    addr < c->shared[i].end)
			return &c->shared[i];
	return NULL;
}

static int name_entry(struct offc2c *c, struct c2c_entry *e)
{
	struct sym s;

	symbolizer__ip(&c->z, e->tgid, e->ip, &s);
	e->symbol = strdup(s.name);
	e->object = strdup(s.where);
	return e->symbol && e->object ? 0 : -ENOMEM;
}

static int add_sample(struct offc2c *c, const struct perf_sample *ps)
{
	const struct perf_file *f = &c->o.file;
	const struct offc2c_shared *sh = NULL;
	struct ldlat_sample s;
	struct c2c_entry *e;
	__u32 range, cls;
	__u64 space = 0, addr = ps->addr;
	const char *object = NULL;
	int node = -1;

	offline__ldlat_sample(&c->o.cfg, ps, &s);
	if (ldlat_judge(&c->o.cfg, &s, &range, &cls) != LDLAT_KEPT) {
		c->filtered++;
		return 0;
	}
	c->kept++;
	if ((ps->type & PERF_SAMPLE_CPU) && ps->cpu < (__u32)f->ncpu_node)
		node = f->cpu_node[ps->cpu];
	if (s.addr)
		sh = shared_of(c, ps->pid, s.addr);
	if (sh) {
		space = sh->space;
		addr = s.addr - sh->start + sh->pgoff;
		object = sh->name;
	}
	e = c2c_table__add(&c->t, space, addr, s.addr, object, ps->ip, ps->pid, ps->tid,
			   (ps->type & PERF_SAMPLE_CPU) ? ps->cpu : 0, node, s.data_src,
			   (s.flags & LDLAT_HAS_LAT) ? s.lat : 0);
	if (e) {
		struct c2c_numa *n = c2c_table__numa(&c->t, ps->pid, node);
		const struct proc *p = n && !n->comm[0] ? procmaps__find(&c->pm, ps->pid) : NULL;
		const char *cg;

		if (p)
			snprintf(n->comm, sizeof(n->comm), "%s", p->comm);
		if (n && !n->cgroup[0] && (ps->type & PERF_SAMPLE_CGROUP) &&
		    (cg = cgroup_path(c, ps->cgroup)))
			snprintf(n->cgroup, sizeof(n->cgroup), "%s", cg);
	}
	if (e && !e->symbol)
		return name_entry(c, e);
	return 0;
}

int offc2c__read(struct offc2c *c, struct err *err)
{
	const struct perf_file *f = &c->o.file;
	struct perf_cursor cur;
	struct perf_record r;
	struct perf_sample ps;
	int e;

	offline__reset_counts(&c->o);
	symbolizer__begin(&c->z);
	perf_file__rewind(f, &cur);
	while ((e = perf_file__next(f, &cur, &r, &c->o.stats, err)) > 0) {
		switch (r.type) {
		case PERF_RECORD_MMAP:
		case PERF_RECORD_MMAP2:
			e = apply_mmap(c, &r);
			break;
		case PERF_RECORD_COMM:
			e = apply_comm(c, &r);
			break;
		case PERF_RECORD_FORK:
			e = apply_task(c, &r);
			break;
		case PERF_RECORD_CGROUP:
			e = apply_cgroup(c, &r);
			break;
		case PERF_RECORD_SAMPLE:
			e = perf_file__parse_sample(f, &r, &ps);
			if (e == -ENOENT) {
				c->o.unknown_id++;
			} else if (e) {
				c->o.malformed++;
			} else if (!c->o.use[ps.event]) {
				c->o.other_events++;
			} else {
				e = add_sample(c, &ps);
				break;
			}
			e = 0;
			break;
		default:
			e = 0;
			break;
		}
		if (e)
			return err__set(err, e, "out of memory");
	}
	if (e < 0)
		return e;
	c2c_table__sort(&c->t);
	return 0;
}

void offc2c__close(struct offc2c *c)
{
	if (c->z_init)
		symbolizer__free(&c->z);
	offline__close(&c->o);
	c2c_table__free(&c->t);
	procmaps__free(&c->pm);
	free(c->shared);
	free(c->cgroups);
	memset(c, 0, sizeof(*c));
}
