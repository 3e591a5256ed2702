// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <search.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "user/symbols/symbolize.h"
#include "user/symbols/buildid.h"
#include "kernel/lib/notice.h"

/*
 * The files the DSO cache keeps before it forgets the ones it could not
 * read: far more than the ELF files one machine's processes map.
 */
#define SYM_DSO_KEEP 1024

/* One answer of symbolizer__elf_for: name and hex ID as the key. */
struct elf_for {
	char *key; /* "hex name" */
	char *elf; /* NULL: name itself; "": none */
};

static int elf_for__cmp(const void *a, const void *b)
{
	return strcmp(((const struct elf_for *)a)->key, ((const struct elf_for *)b)->key);
}

static void elf_for__free(void *p)
{
	struct elf_for *e = p;

	free(e->key);
	free(e->elf);
	free(e);
}

int symbolizer__init(struct symbolizer *z, struct procmaps *pm, const char *debuginfo)
{
	memset(z, 0, sizeof(*z));
	z->pm = pm;
	if (debuginfo && !(z->debuginfo = strdup(debuginfo)))
		return -ENOMEM;
	return dso_cache__init(&z->dsos, debuginfo);
}

static void nofree(void *p)
{
	(void)p;
}

/* A mapped file met live: its path (without " (deleted)"), and where it is. */
struct sym_file {
	char *path;
	bool away;  /* not at its path here: deleted, or in another mount namespace */
	bool gone;  /* deleted: at its path neither here nor in its process's namespace */
	bool noted; /* its note was printed */
};

static int sym_file__cmp(const void *a, const void *b)
{
	return strcmp(((const struct sym_file *)a)->path, ((const struct sym_file *)b)->path);
}

static void sym_file__free(void *p)
{
	struct sym_file *d = p;

	free(d->path);
	free(d);
}

void symbolizer__free(struct symbolizer *z)
{
	tdestroy(z->files, sym_file__free);
	z->files = NULL;
	dso_cache__free(&z->dsos);
	kallsyms__free(&z->ksyms);
	tdestroy(z->refreshed, nofree);
	z->refreshed = NULL;
	tdestroy(z->elves, elf_for__free);
	z->elves = NULL;
	codeinfo__free(z->ci);
	z->ci = NULL;
	free(z->debuginfo);
	z->debuginfo = NULL;
}

/* Where a file of build ID id is, or NULL: name itself, else a copy in perf's cache. */
static char *elf_for__find(struct symbolizer *z, const char *name, const char *hex,
			   const unsigned char *id, int len)
{
	char path[4096];
	struct dso *d = dso_cache__get(&z->dsos, name);
	int i;

	if (d && dso__has_build_id(d, id, len))
		return strdup(name);
	for (i = 0; !buildid__cache_path(i, name, hex, path, sizeof(path)); i++) {
		if (access(path, R_OK))
			continue;
		d = dso_cache__get(&z->dsos, path);
		if (d && dso__has_build_id(d, id, len))
			return strdup(path);
	}
	return NULL;
}

const char *symbolizer__elf_for(struct symbolizer *z, const char *name, const unsigned char *id,
				int len)
{
	char hex[2 * BUILDID_MAX + 1], *found;
	struct elf_for key, *e;
	void *node;

	if (len <= 0 || (name[0] != '/' && strcmp(name, "[vdso]")))
		return NULL;
	buildid__hex(id, len, hex, sizeof(hex));
	if (asprintf(&key.key, "%s %s", hex, name) < 0)
		return NULL;
	node = tfind(&key, &z->elves, elf_for__cmp);
	if (node) {
		free(key.key);
		return (*(struct elf_for **)node)->elf;
	}
	e = calloc(1, sizeof(*e));
	if (!e) {
		free(key.key);
		return NULL;
	}
	e->key = key.key;
	found = elf_for__find(z, name, hex, id, len);
	if (found && !strcmp(found, name))
		free(found); /* the file itself: NULL */
	else if (found)
		e->elf = found;
	else
		e->elf = strdup(""); /* a different file, or none this user can read */
	if (!tsearch(e, &z->elves, elf_for__cmp)) {
		elf_for__free(e);
		return NULL;
	}
	return e->elf;
}

static int tgid__cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;

	return x < y ? -1 : x > y;
}

void symbolizer__begin(struct symbolizer *z)
{
	dso_cache__trim(&z->dsos, SYM_DSO_KEEP);
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
	if (z->kernel_raw)
		return false;
	if (!z->ksyms_tried) {
		z->ksyms_tried = true;
		kallsyms__open(&z->ksyms, z->kallsyms_path);
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

/* Whether m is a file no file here has the recorded build ID of. */
static bool mapping__mismatch(const struct mapping *m)
{
	return m->elf && !*m->elf;
}

/* The length of name without a " (deleted)" that /proc/PID/maps put after it. */
static size_t deleted__len(const char *name)
{
	size_t n = strlen(name), k = strlen(SYM_DELETED);

	return n > k && !strcmp(name + n - k, SYM_DELETED) ? n - k : n;
}

/* Whether path is there in the mount namespace of live process p (a container's). */
static bool symbolizer__in_root(struct symbolizer *z, const struct proc *p, const char *path)
{
	char in[4096];

	if (!z->pm->proc_root || p->exited)
		return false;
	snprintf(in, sizeof(in), "%s/%d/root%s", z->pm->proc_root, (int)p->tgid, path);
	return !access(in, F_OK);
}

/*
 * Where the file that mapping name (of process p) maps is, judged once per
 * file (one deleted after it was read is named from the cache); NULL
 * offline, where build IDs say which file to read.
 */
static struct sym_file *symbolizer__file(struct symbolizer *z, const struct proc *p,
					 const char *name)
{
	struct sym_file key, *d;
	size_t n = deleted__len(name);
	void *node;

	if (!z->note_tool || name[0] != '/')
		return NULL;
	key.path = strndup(name, n);
	if (!key.path)
		return NULL;
	node = tfind(&key, &z->files, sym_file__cmp);
	if (node) {
		free(key.path);
		return *(struct sym_file **)node;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		free(key.path);
		return NULL;
	}
	d->path = key.path;
	d->away = n != strlen(name) || access(key.path, F_OK);
	d->gone = n != strlen(name) || (d->away && !symbolizer__in_root(z, p, key.path));
	if (!tsearch(d, &z->files, sym_file__cmp)) {
		sym_file__free(d);
		return NULL;
	}
	return d;
}

/*
 * A file that m maps and that is not at its path here (deleted, or in the
 * process's mount namespace only), read through the process's map_files
 * link while it lives (the kernel keeps the file for the mapping); NULL when
 * it cannot be.
 */
static struct dso *symbolizer__map_file(struct symbolizer *z, const struct proc *p,
					const struct mapping *m)
{
	char path[512], key[128];
	struct stat st;
	struct dso *d;

	if (!z->pm->proc_root || p->exited)
		return NULL;
	snprintf(path, sizeof(path), "%s/%d/map_files/%llx-%llx", z->pm->proc_root, (int)p->tgid,
		 (unsigned long long)m->start, (unsigned long long)m->end);
	if (access(path, R_OK) || stat(path, &st))
		return NULL;
	/* cached by the file, not by the process: each process that maps it shares one */
	snprintf(key, sizeof(key), "map_files:%llx:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	d = dso_cache__get_as(&z->dsos, key, path);
	return d && d->elf ? d : NULL;
}

/* After a mapping's name: the file found by build ID is missing, or the file was deleted. */
static const char *symbolizer__suffix(struct symbolizer *z, const struct proc *p,
				      const struct mapping *m)
{
	const struct sym_file *f;

	if (mapping__mismatch(m))
		return SYM_BUILD_ID_MISMATCH;
	if (!m->name || m->elf || deleted__len(m->name) != strlen(m->name))
		return "";
	f = symbolizer__file(z, p, m->name);
	return f && f->gone ? SYM_DELETED : "";
}

/*
 * The ELF file behind mapping m (or behind the file mapping right before an
 * anonymous m: its .bss); *file: the mapping of that file.
 */
static struct dso *symbolizer__dso(struct symbolizer *z, const struct proc *p,
				   const struct mapping *m, __u64 *bias,
				   const struct mapping **file)
{
	const struct mapping *base, *lowest = m;
	struct sym_file *f = NULL;
	struct dso *d;

	*file = m;
	if (!m->name && m > p->maps && m[-1].end == m->start && m[-1].name) {
		d = symbolizer__dso(z, p, m - 1, bias, file);
		return d && dso__has_vaddr(d, m->start - *bias) ? d : NULL;
	}
	if (!m->name || (m->name[0] != '/' && strcmp(m->name, "[vdso]")) || mapping__mismatch(m))
		return NULL;
	if (m->elf) {
		d = dso_cache__get(&z->dsos, m->elf);
	} else {
		f = symbolizer__file(z, p, m->name);
		d = f && f->away ? NULL : dso_cache__get(&z->dsos, m->name);
		/* live: deleted, or at its path only in the process's mount namespace */
		if (f && f->away)
			d = symbolizer__map_file(z, p, m);
	}
	if (f && f->gone && !d && !f->noted) {
		f->noted = true;
		notice__print(
			stderr, z->note_tool,
			"note: %s%s: the file is no longer there, and %s/%d/map_files/ "
			"cannot give it (the process has exited): its addresses are not named",
			f->path, SYM_DELETED, z->pm->proc_root ? z->pm->proc_root : "/proc",
			(int)p->tgid);
	}
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

/* Where symbolizer__locate found an address. */
enum located {
	LOCATED_DONE,	  /* out is filled: a kernel symbol, or a process that has exited */
	LOCATED_KERNEL,	  /* a kernel address without a symbol */
	LOCATED_UNMAPPED, /* in no mapping of the process (out->kind SYM_UNKNOWN) */
	LOCATED_MAPPING,  /* in *m of *p */
};

/* What symbolizer__ip and symbolizer__data share: the kernel, the process, the mapping. */
static enum located symbolizer__locate(struct symbolizer *z, __u32 tgid, __u64 addr,
				       enum dso_sym_kind kind, struct sym *out, struct proc **p,
				       const struct mapping **m)
{
	memset(out, 0, sizeof(*out));
	if (kallsyms__is_kernel(addr))
		return symbolizer__kernel(z, addr, kind, out) ? LOCATED_DONE : LOCATED_KERNEL;
	*p = symbolizer__proc(z, tgid, addr);
	if (!*p || !(*p)->known) {
		sym__exited(out, tgid);
		return LOCATED_DONE;
	}
	*m = proc__find(*p, addr);
	if (!*m) {
		out->kind = SYM_UNKNOWN;
		return LOCATED_UNMAPPED;
	}
	return LOCATED_MAPPING;
}

void symbolizer__ip(struct symbolizer *z, __u32 tgid, __u64 ip, struct sym *out)
{
	const struct mapping *m = NULL, *file;
	const struct dso_sym *s;
	struct proc *p = NULL;
	struct dso *d;
	__u64 bias;
	enum located at = symbolizer__locate(z, tgid, ip, SYM_FUNC, out, &p, &m);

	if (at == LOCATED_DONE)
		return;
	if (at != LOCATED_MAPPING) {
		out->kind = SYM_UNKNOWN;
		snprintf(out->name, sizeof(out->name), "0x%llx", (unsigned long long)ip);
		snprintf(out->where, sizeof(out->where), "%s",
			 at == LOCATED_KERNEL ? "[kernel.kallsyms]" : "[unknown]");
		return;
	}
	d = symbolizer__dso(z, p, m, &bias, &file);
	snprintf(out->where, sizeof(out->where), "%s%s", m->name ? m->name : "[anon]",
		 symbolizer__suffix(z, p, m));
	out->map_name = m->name ? m->name : "[anon]";
	out->map_start = m->start;
	out->map_end = m->end;
	out->map_pgoff = m->pgoff;
	if (d && d->build_id_len)
		buildid__hex(d->build_id, d->build_id_len, out->build_id, sizeof(out->build_id));
	if (d && (s = dso__func(d, ip - bias))) {
		out->kind = SYM_RESOLVED;
		snprintf(out->name, sizeof(out->name), "%s", s->name);
		out->offset = (__s64)(ip - bias - s->start);
		return;
	}
	/* no symbol: the file address, which objdump and addr2line take */
	out->kind = SYM_MAPPING;
	snprintf(out->name, sizeof(out->name), "0x%llx", (unsigned long long)(d ? ip - bias : ip));
}

void symbolizer__data(struct symbolizer *z, __u32 tgid, __u64 addr, __u64 len, struct sym *out)
{
	struct sym_span span;

	symbolizer__data_span(z, tgid, addr, len, out, &span);
}

void symbolizer__data_span(struct symbolizer *z, __u32 tgid, __u64 addr, __u64 len, struct sym *out,
			   struct sym_span *span)
{
	const struct mapping *m = NULL, *file;
	const struct dso_sym *s;
	struct proc *p = NULL;
	struct dso *d;
	__u64 bias;

	span->hi = 0;
	switch (symbolizer__locate(z, tgid, addr, SYM_OBJECT, out, &p, &m)) {
	case LOCATED_DONE:
		return;
	case LOCATED_KERNEL:
		out->kind = SYM_MAPPING;
		snprintf(out->name, sizeof(out->name), "[kernel]");
		return;
	case LOCATED_UNMAPPED:
		snprintf(out->name, sizeof(out->name), "[unknown]");
		snprintf(out->where, sizeof(out->where), "%s", p->comm);
		return;
	case LOCATED_MAPPING:
		break;
	}
	d = symbolizer__dso(z, p, m, &bias, &file);
	if (d && (s = dso__object(d, addr - bias, len))) {
		out->kind = SYM_RESOLVED;
		snprintf(out->name, sizeof(out->name), "%s", s->name);
		out->offset = (__s64)(addr - bias - s->start);
		snprintf(out->where, sizeof(out->where), "%s", file->name);
		return;
	}
	out->kind = SYM_MAPPING;
	if (d) {
		/*
		 * The file's memory image, without a variable there: the offset
		 * from where the image starts in the process (an executable
		 * linked at 0x400000 starts there, not at its bias of 0)
		 */
		snprintf(out->name, sizeof(out->name), "%s", dso__short_name(file->name));
		out->offset = (__s64)(addr - bias - dso__image_start(d));
	} else {
		snprintf(out->name, sizeof(out->name), "%s%s", m->name ? m->name : "[anon]",
			 symbolizer__suffix(z, p, m));
		out->offset = (__s64)(m->name && m->name[0] == '/' ? addr - m->start + m->pgoff
								   : addr - m->start);
		/* no file's symbols: the same name for the whole mapping */
		*span = (struct sym_span){ .tgid = tgid,
					   .lo = m->start,
					   .hi = m->end,
					   .base = addr - (__u64)out->offset };
	}
	snprintf(out->where, sizeof(out->where), "%s", p->comm);
}

enum datatype_why symbolizer__code(struct symbolizer *z, __u32 tgid, __u64 ip, char *file,
				   size_t len, __u64 *vaddr)
{
	return symbolizer__code_func(z, tgid, ip, file, len, vaddr, NULL);
}

enum datatype_why symbolizer__code_func(struct symbolizer *z, __u32 tgid, __u64 ip, char *file,
					size_t len, __u64 *vaddr, struct symbolizer_func *fn)
{
	const struct mapping *m = NULL, *fm;
	struct proc *p = NULL;
	struct sym s;
	struct dso *d;
	__u64 bias;

	switch (symbolizer__locate(z, tgid, ip, SYM_FUNC, &s, &p, &m)) {
	case LOCATED_DONE:
		return s.kernel ? DATATYPE_KERNEL : DATATYPE_NO_FILE;
	case LOCATED_KERNEL:
		return DATATYPE_KERNEL;
	case LOCATED_UNMAPPED:
		return DATATYPE_NO_FILE;
	case LOCATED_MAPPING:
		break;
	}
	d = symbolizer__dso(z, p, m, &bias, &fm);
	if (!d || !d->elf || (d->file ? d->file : d->path)[0] != '/')
		return DATATYPE_NO_FILE;
	snprintf(file, len, "%s", d->file ? d->file : d->path);
	*vaddr = ip - bias;
	if (fn) {
		const struct dso_sym *f = dso__func(d, *vaddr);

		memset(fn, 0, sizeof(*fn));
		if (f && f->size) {
			fn->lo = f->start;
			fn->hi = f->start + f->size;
		}
	}
	return DATATYPE_TYPED;
}

static struct codeinfo *symbolizer__ci(struct symbolizer *z)
{
	if (!z->ci)
		z->ci = codeinfo__new(z->debuginfo);
	return z->ci;
}

const struct datatype *symbolizer__datatype(struct symbolizer *z, __u32 tgid, __u64 ip)
{
	static const struct datatype why[DATATYPE_NWHY] = {
		[DATATYPE_KERNEL] = { .why = DATATYPE_KERNEL },
		[DATATYPE_NO_FILE] = { .why = DATATYPE_NO_FILE },
	};
	char file[4096];
	__u64 vaddr;
	enum datatype_why w = symbolizer__code(z, tgid, ip, file, sizeof(file), &vaddr);

	if (w != DATATYPE_TYPED)
		return &why[w];
	if (!symbolizer__ci(z))
		return &why[DATATYPE_NO_FILE];
	return codeinfo__type(z->ci, file, vaddr);
}

const struct srcline *symbolizer__srcline(struct symbolizer *z, __u32 tgid, __u64 ip)
{
	static const struct srcline none;
	char file[4096];
	__u64 vaddr;

	if (symbolizer__code(z, tgid, ip, file, sizeof(file), &vaddr) != DATATYPE_TYPED ||
	    !symbolizer__ci(z))
		return &none;
	return codeinfo__srcline(z->ci, file, vaddr);
}

const struct datatype *symbolizer__datatype_at(struct symbolizer *z, const char *file, __u64 vaddr)
{
	static const struct datatype none = { .why = DATATYPE_NO_FILE };

	return symbolizer__ci(z) ? codeinfo__type(z->ci, file, vaddr) : &none;
}

ssize_t symbolizer__layout(struct symbolizer *z, const char *file, __u64 vaddr, const char *type,
			   struct datatype_member **out)
{
	*out = NULL;
	return symbolizer__ci(z) ? codeinfo__layout(z->ci, file, vaddr, type, out) : -ENOMEM;
}

ssize_t symbolizer__disasm(struct symbolizer *z, const char *file, __u64 lo, __u64 hi,
			   struct codeinfo_insn **out)
{
	*out = NULL;
	return symbolizer__ci(z) ? codeinfo__disasm(z->ci, file, lo, hi, out) : -ENOMEM;
}
