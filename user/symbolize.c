// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <search.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize.h"

int symbolizer__init(struct symbolizer *z, struct procmaps *pm, const char *debuginfo)
{
	memset(z, 0, sizeof(*z));
	z->pm = pm;
	return dso_cache__init(&z->dsos, debuginfo);
}

static void nofree(void *p)
{
	(void)p;
}

void symbolizer__free(struct symbolizer *z)
{
	dso_cache__free(&z->dsos);
	kallsyms__free(&z->ksyms);
	tdestroy(z->refreshed, nofree);
	z->refreshed = NULL;
}

static int tgid__cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;

	return x < y ? -1 : x > y;
}

void symbolizer__begin(struct symbolizer *z)
{
	tdestroy(z->refreshed, nofree);
	z->refreshed = NULL;
}

/* The process, read from /proc when never learned or when addr is missing (once a report). */
static struct proc *symbolizer__proc(struct symbolizer *z, __u32 tgid, __u64 addr)
{
	struct proc *p = procmaps__find(z->pm, (pid_t)tgid);
	void *key = (void *)(uintptr_t)tgid;

	if (p && p->known && proc__find(p, addr))
		return p;
	if (p && p->exited)
		return p;
	if (!tfind(key, &z->refreshed, tgid__cmp)) {
		tsearch(key, &z->refreshed, tgid__cmp);
		procmaps__read(z->pm, (pid_t)tgid);
		p = procmaps__find(z->pm, (pid_t)tgid);
	}
	return p;
}

static bool symbolizer__kernel(struct symbolizer *z, __u64 addr, enum dso_sym_kind kind,
			       struct sym *out)
{
	const struct dso_sym *s;

	out->kernel = true;
	if (!z->ksyms_tried) {
		z->ksyms_tried = true;
		kallsyms__load(&z->ksyms, z->kallsyms_path);
	}
	s = kallsyms__find(&z->ksyms, addr, kind);
	if (!s)
		return false;
	out->kind = SYM_RESOLVED;
	snprintf(out->name, sizeof(out->name), "%s", s->name);
	out->offset = (__s64)(addr - s->start);
	if (s->module)
		snprintf(out->where, sizeof(out->where), "[%s]", s->module);
	else
		snprintf(out->where, sizeof(out->where), "[kernel.kallsyms]");
	return true;
}

static void sym__exited(struct sym *out, __u32 tgid)
{
	out->kind = SYM_EXITED;
	snprintf(out->name, sizeof(out->name), "[exited]");
	snprintf(out->where, sizeof(out->where), "[pid %u]", tgid);
}

/* The ELF file behind mapping m (or behind the file mapping right before an anonymous m: its .bss). */
static struct dso *symbolizer__dso(struct symbolizer *z, const struct proc *p,
				   const struct mapping *m, __u64 *bias)
{
	const struct mapping *base, *lowest = m;
	struct dso *d;

	if (!m->name && m > p->maps && m[-1].end == m->start && m[-1].name) {
		d = symbolizer__dso(z, p, m - 1, bias);
		return d && dso__has_vaddr(d, m->start - *bias) ? d : NULL;
	}
	if (!m->name || (m->name[0] != '/' && strcmp(m->name, "[vdso]")))
		return NULL;
	d = dso_cache__get(&z->dsos, m->name);
	if (!d || !d->elf)
		return NULL;
	/*
	 * Two segments may share a file page (the RELRO part of the data and
	 * the read-only data before it): the file's lowest mapping (the first
	 * segment, at offset 0) gives the bias unambiguously.
	 */
	for (base = m; base > p->maps && m - base < 16; base--)
		if (base[-1].name == m->name && base[-1].pgoff < lowest->pgoff &&
		    base[-1].start < lowest->start)
			lowest = &base[-1];
	if (!dso__bias(d, lowest->start, lowest->pgoff, bias))
		return NULL;
	return d;
}

void symbolizer__ip(struct symbolizer *z, __u32 tgid, __u64 ip, struct sym *out)
{
	const struct mapping *m;
	const struct dso_sym *s;
	struct proc *p;
	struct dso *d;
	__u64 bias;

	memset(out, 0, sizeof(*out));
	if (kallsyms__is_kernel(ip)) {
		if (symbolizer__kernel(z, ip, SYM_FUNC, out))
			return;
		out->kind = SYM_UNKNOWN;
		snprintf(out->name, sizeof(out->name), "0x%llx", (unsigned long long)ip);
		snprintf(out->where, sizeof(out->where), "[kernel.kallsyms]");
		return;
	}
	p = symbolizer__proc(z, tgid, ip);
	if (!p || !p->known) {
		sym__exited(out, tgid);
		return;
	}
	m = proc__find(p, ip);
	if (!m) {
		out->kind = SYM_UNKNOWN;
		snprintf(out->name, sizeof(out->name), "0x%llx", (unsigned long long)ip);
		snprintf(out->where, sizeof(out->where), "[unknown]");
		return;
	}
	d = symbolizer__dso(z, p, m, &bias);
	snprintf(out->where, sizeof(out->where), "%s", m->name ? m->name : "[anon]");
	if (d && (s = dso__func(d, ip - bias))) {
		out->kind = SYM_RESOLVED;
		snprintf(out->name, sizeof(out->name), "%s", s->name);
		out->offset = (__s64)(ip - bias - s->start);
		return;
	}
	/* no symbol: the file address, which objdump and addr2line take */
	out->kind = SYM_MAPPING;
	snprintf(out->name, sizeof(out->name), "0x%llx",
		 (unsigned long long)(d ? ip - bias : ip));
}

void symbolizer__data(struct symbolizer *z, __u32 tgid, __u64 addr, __u64 len, struct sym *out)
{
	const struct mapping *m;
	const struct dso_sym *s;
	struct proc *p;
	struct dso *d;
	__u64 bias;

	memset(out, 0, sizeof(*out));
	if (kallsyms__is_kernel(addr)) {
		if (symbolizer__kernel(z, addr, SYM_OBJECT, out))
			return;
		out->kind = SYM_MAPPING;
		snprintf(out->name, sizeof(out->name), "[kernel]");
		return;
	}
	p = symbolizer__proc(z, tgid, addr);
	if (!p || !p->known) {
		sym__exited(out, tgid);
		return;
	}
	m = proc__find(p, addr);
	if (!m) {
		out->kind = SYM_UNKNOWN;
		snprintf(out->name, sizeof(out->name), "[unknown]");
		snprintf(out->where, sizeof(out->where), "%s", p->comm);
		return;
	}
	d = symbolizer__dso(z, p, m, &bias);
	if (d && (s = dso__object(d, addr - bias, len))) {
		out->kind = SYM_RESOLVED;
		snprintf(out->name, sizeof(out->name), "%s", s->name);
		out->offset = (__s64)(addr - bias - s->start);
		snprintf(out->where, sizeof(out->where), "%s", d->path);
		return;
	}
	out->kind = SYM_MAPPING;
	if (d) { /* the file's memory image, without a variable there: the file and its address */
		snprintf(out->name, sizeof(out->name), "%s", dso__short_name(d->path));
		out->offset = (__s64)(addr - bias);
	} else {
		snprintf(out->name, sizeof(out->name), "%s", m->name ? m->name : "[anon]");
		out->offset = (__s64)(m->name && m->name[0] == '/' ? addr - m->start + m->pgoff
								   : addr - m->start);
	}
	snprintf(out->where, sizeof(out->where), "%s", p->comm);
}
