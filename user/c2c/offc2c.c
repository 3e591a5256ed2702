// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "user/c2c/offc2c.h"

int offc2c__open(struct offc2c *c, const char *path, struct cli *cli, const char *debuginfo,
		 struct err *err)
{
	int e;

	memset(c, 0, sizeof(*c));
	machine__init(&c->m, MACHINE_FILE_ORDER); /* the file's records only */
	machine__track_shared(&c->m);
	c2c_table__init(&c->t, c2c_line_shift(&c->line_from));
	/* loads and stores: what perf c2c record samples */
	if (!cli->op_set)
		cli->op_mask = PERF_MEM_OP_LOAD | PERF_MEM_OP_STORE;
	e = offline__open(&c->o, path, cli, 0, err);
	if (e)
		return e;
	/*
	 * a data address is what a line needs; without a data source (page
	 * faults) each sample is a load of unknown source, as a live run's
	 */
	if (!(c->o.src.fields & LDLAT_HAS_ADDR))
		return err__set(err, -EINVAL,
				"%s: the samples of %s carry no data address: record with perf "
				"c2c record, perf mem record -t load,store, or perf record -d",
				path, c->o.events);
	if (symbolizer__init(&c->z, &c->m.pm, debuginfo))
		return err__set(err, -ENOMEM, "out of memory");
	c->z_init = true;
	/* kernel addresses stay raw: the file may come from another kernel or boot */
	c->z.kernel_raw = true;
	return 0;
}

/* A side-band record into the machine; a MAP_SHARED file it met gets its space in the table. */
static int apply_sideband(struct offc2c *c, const struct sideband_rec *r)
{
	int n = c->m.nshared, e = machine__process(&c->m, r);

	for (; !e && n < c->m.nshared; n++) {
		const struct machine_shared *sh = &c->m.shared[n];
		struct c2c_space s = { sh->maj, sh->min, sh->ino, sh->ino_generation };

		if (!c2c_table__space(&c->t, &s))
			e = -ENOMEM;
	}
	return e;
}

/* The space of a MAP_SHARED file mapping, as apply_sideband added it. */
static __u64 shared_space(struct offc2c *c, const struct machine_shared *sh)
{
	struct c2c_space s = { sh->maj, sh->min, sh->ino, sh->ino_generation };

	return c2c_table__space(&c->t, &s);
}

static int name_entry(struct offc2c *c, struct c2c_entry *e)
{
	struct sym s;

	symbolizer__ip(&c->z, e->tgid, e->ip, &s);
	e->symbol = strdup(s.name);
	e->object = strdup(s.where);
	e->dt = symbolizer__datatype(&c->z, e->tgid, e->ip);
	return e->symbol && e->object ? 0 : -ENOMEM;
}

static int add_sample(struct offc2c *c, const struct perf_sample *ps)
{
	const struct perf_file *f = &c->o.file;
	const struct machine_shared *sh = NULL;
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
		sh = machine__shared(&c->m, (pid_t)ps->pid, s.addr);
	if (sh) {
		space = shared_space(c, sh);
		addr = s.addr - sh->start + sh->pgoff;
		object = sh->name;
	}
	e = c2c_table__add(&c->t, space, addr, s.addr, object, ps->ip, ps->pid, ps->tid,
			   (ps->type & PERF_SAMPLE_CPU) ? ps->cpu : 0, node, ldlat_c2c_ds(&s),
			   (s.flags & LDLAT_HAS_LAT) ? s.lat : 0);
	if (e) {
		struct c2c_numa *n = c2c_table__numa(&c->t, ps->pid, node);
		const struct proc *p = n && !n->comm[0] ? procmaps__find(&c->m.pm, ps->pid) : NULL;
		const char *cg;

		if (p)
			snprintf(n->comm, sizeof(n->comm), "%s", p->comm);
		if (n && !n->cgroup[0] && (ps->type & PERF_SAMPLE_CGROUP) &&
		    (cg = machine__cgroup_path(&c->m, ps->cgroup)))
			snprintf(n->cgroup, sizeof(n->cgroup), "%s", cg);
	}
	if (e && !e->symbol)
		return name_entry(c, e);
	return 0;
}

/*
 * The side-band records of the file (one that does not parse is passed
 * over, as a record of no interest), each with its time (0 in a file
 * without times) and place, sorted: into *out, how many in *n.  The
 * CGROUP records are applied as they come.
 */
static int offc2c__sideband(struct offc2c *c, bool timed, struct offline_sb **out, size_t *n,
			    struct err *err)
{
	const struct perf_file *f = &c->o.file;
	struct offline_sb *recs = NULL, *tmp;
	struct perf_sample_id sid;
	struct sideband_rec sb;
	struct perf_cursor cur;
	struct perf_record r;
	size_t cap = 0;
	__u64 seq = 0;
	int e;

	*n = 0;
	perf_file__rewind(f, &cur);
	while ((e = perf_file__next(f, &cur, &r, NULL, err)) > 0) {
		++seq;
		if (r.type == PERF_RECORD_SAMPLE || perf_file__parse_sideband(f, &r, &sb))
			continue;
		/* a cgroup's ID names one path for its life: known before any sample, in any order */
		if (sb.type == PERF_RECORD_CGROUP) {
			e = apply_sideband(c, &sb);
			if (e) {
				free(recs);
				return err__set(err, e, "out of memory");
			}
			continue;
		}
		if (*n == cap) {
			cap = cap ? cap * 2 : 256;
			tmp = realloc(recs, cap * sizeof(*recs));
			if (!tmp) {
				free(recs);
				return err__set(err, -ENOMEM, "out of memory");
			}
			recs = tmp;
		}
		recs[*n] = (struct offline_sb){ .seq = seq, .r = sb };
		if (timed) {
			perf_file__parse_sample_id(f, &r, &sid);
			recs[*n].at = (sid.type & PERF_SAMPLE_TIME) ? sid.time : 0;
		}
		(*n)++;
	}
	if (e < 0) {
		free(recs);
		return e;
	}
	if (*n)
		qsort(recs, *n, sizeof(*recs), offline_sb__cmp);
	*out = recs;
	return 0;
}

/*
 * perf record writes each CPU's buffer in turn: a thread's sample may come
 * in the file before the MMAP2 record of its code, written from another
 * CPU's buffer.  So the side band is applied in time order (perf sorts
 * every record so), merged with the samples in file order: before a
 * sample, every record earlier than it by time, or as early and before it
 * in the file.  A file without times is read in file order.
 */
int offc2c__read(struct offc2c *c, struct err *err)
{
	const struct perf_file *f = &c->o.file;
	bool timed = offline__timed(f);
	struct perf_cursor cur;
	struct perf_record r;
	struct perf_sample ps;
	struct offline_sb *sb = NULL;
	size_t nsb, next = 0;
	__u64 seq = 0, at;
	int e, rc = 0;

	e = offc2c__sideband(c, timed, &sb, &nsb, err);
	if (e)
		return e;
	offline__reset_counts(&c->o);
	symbolizer__begin(&c->z);
	perf_file__rewind(f, &cur);
	while (!rc && (e = perf_file__next(f, &cur, &r, &c->o.stats, err)) > 0) {
		++seq;
		if (r.type != PERF_RECORD_SAMPLE)
			continue;
		if ((e = perf_file__parse_sample(f, &r, &ps))) {
			if (e == -ENOENT)
				c->o.unknown_id++;
			else
				c->o.malformed++;
			continue;
		}
		at = timed && (ps.type & PERF_SAMPLE_TIME) ? ps.time : 0;
		for (; !rc && next < nsb &&
		       (sb[next].at < at || (sb[next].at == at && sb[next].seq < seq));
		     next++)
			rc = apply_sideband(c, &sb[next].r);
		if (rc)
			break;
		if (!c->o.use[ps.event])
			c->o.other_events++;
		else
			rc = add_sample(c, &ps);
	}
	for (; !rc && e >= 0 && next < nsb; next++)
		rc = apply_sideband(c, &sb[next].r);
	free(sb);
	if (rc)
		return err__set(err, rc, "out of memory");
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
	machine__free(&c->m);
	memset(c, 0, sizeof(*c));
}
