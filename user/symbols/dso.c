// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <search.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <elfutils/libdwfl.h>

#include "user/symbols/demangle.h"
#include "user/symbols/dso.h"
#include "user/symbols/mapsline.h"

#define PAGE_MASK_OF(x) ((x) & ~(__u64)4095)

static int dso__cmp(const void *a, const void *b)
{
	return strcmp(((const struct dso *)a)->path, ((const struct dso *)b)->path);
}

int dso_cache__init(struct dso_cache *c, const char *debuginfo)
{
	memset(c, 0, sizeof(*c));
	if (debuginfo) {
		c->debuginfo = strdup(debuginfo);
		if (!c->debuginfo)
			return -ENOMEM;
	}
	return 0;
}

static void dso__free(void *p)
{
	struct dso *d = p;

	free(d->path);
	free(d->file);
	free(d->symfile);
	free(d->segs);
	free(d->funcs);
	free(d->objs);
	free(d->names);
	free(d);
}

void dso_cache__free(struct dso_cache *c)
{
	tdestroy(c->tree, dso__free);
	free(c->debuginfo);
	memset(c, 0, sizeof(*c));
}

static size_t sym__underscores(const char *name)
{
	size_t n = 0;

	while (name[n] == '_')
		n++;
	return n;
}

/*
 * By address; at one address, the symbol perf keeps first (its
 * choose_best_symbol): one with a size, then by rank (a function before a
 * label, then not weak before weak, then global before local), then the
 * fewest leading underscores, then the longest name, then the first read
 * (perf keeps the earlier one of a tie).  So of libc's aliases
 * __memmove_avx512_unaligned_erms and __memcpy_avx512_unaligned_erms it is
 * __memmove_..., of read and __read it is read.
 */
static int sym__cmp(const void *a, const void *b)
{
	const struct dso_sym *x = a, *y = b;
	size_t ux, uy, lx, ly;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (!x->size != !y->size)
		return x->size ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	ux = sym__underscores(x->name);
	uy = sym__underscores(y->name);
	if (ux != uy)
		return ux < uy ? -1 : 1;
	lx = strlen(x->name);
	ly = strlen(y->name);
	if (lx != ly)
		return lx > ly ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

int dso_syms__finish(struct dso_sym *s, int n, bool size_to_next)
{
	int i, k = 0;

	if (n <= 0)
		return 0;
	for (i = 0; i < n; i++)
		s[i].order = (unsigned int)i;
	qsort(s, n, sizeof(*s), sym__cmp);
	for (i = 0; i < n; i++)
		if (!k || s[k - 1].start != s[i].start)
			s[k++] = s[i];
	if (size_to_next)
		for (i = 0; i < k; i++)
			if (!s[i].size)
				s[i].size = i + 1 < k ? s[i + 1].start - s[i].start : 1;
	return k;
}

/* How many symbols start at or below addr (binary search). */
static int dso_syms__upto(const struct dso_sym *s, int n, __u64 addr)
{
	int lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (s[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int dso_syms__find(const struct dso_sym *s, int n, __u64 addr)
{
	int lo = dso_syms__upto(s, n, addr);

	if (lo == 0 || addr - s[lo - 1].start >= s[lo - 1].size)
		return -1;
	return lo - 1;
}

/* The vDSO is the same in every process: this one's image, as a file libdwfl can read. */
static int vdso__fd(void)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	char line[1024];
	struct mapsline m;
	__u64 size = 0;
	FILE *f;
	int fd;

	if (!base)
		return -1;
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return -1;
	while (!size && fgets(line, sizeof(line), f))
		if (mapsline__parse(line, &m) && m.lo == base)
			size = m.hi - m.lo;
	fclose(f);
	if (!size)
		return -1;
	fd = memfd_create("ldlat-vdso", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (write(fd, (const void *)base, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	return fd;
}

static int dso__read_segs(struct dso *d, Elf *elf)
{
	GElf_Ehdr eh;
	GElf_Phdr ph;
	size_t i, n;

	if (!gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &n))
		return -EINVAL;
	d->pie = eh.e_type == ET_DYN;
	d->segs = calloc(n ? n : 1, sizeof(*d->segs));
	if (!d->segs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		d->segs[d->nsegs++] =
			(struct dso_seg){ ph.p_vaddr, ph.p_memsz, ph.p_offset, ph.p_filesz };
	}
	return 0;
}

/* perf's order of bindings at one address: not weak before weak, then global before the rest. */
static unsigned int sym__rank(const GElf_Sym *sym)
{
	switch (GELF_ST_BIND(sym->st_info)) {
	case STB_GLOBAL:
		return SYM_RANK_GLOBAL;
	case STB_WEAK:
		return SYM_RANK_WEAK;
	default:
		return SYM_RANK_LOCAL;
	}
}

/* Symbols being read: names go to a growing pool, by offset until it stops moving. */
struct sym_reader {
	struct dso_sym *funcs, *objs;
	int nfuncs, nobjs, capfuncs, capobjs;
	char *pool;
	size_t used, cap;
};

static int sym_reader__add(struct sym_reader *r, const char *name, __u64 start, __u64 size,
			   unsigned char rank, bool object)
{
	struct dso_sym **arr = object ? &r->objs : &r->funcs;
	int *n = object ? &r->nobjs : &r->nfuncs, *cap = object ? &r->capobjs : &r->capfuncs;
	char *dm = sym_demangle(name);
	const char *use = dm ? dm : name;
	size_t len = strlen(use) + 1;

	if (*n == *cap) {
		int c = *cap ? *cap * 2 : 256;
		struct dso_sym *t = realloc(*arr, c * sizeof(*t));

		if (!t)
			goto nomem;
		*arr = t;
		*cap = c;
	}
	if (r->used + len > r->cap) {
		size_t c = r->cap ? r->cap * 2 : 1 << 14;
		char *t;

		while (c < r->used + len)
			c *= 2;
		t = realloc(r->pool, c);
		if (!t)
			goto nomem;
		r->pool = t;
		r->cap = c;
	}
	memcpy(r->pool + r->used, use, len);
	(*arr)[(*n)++] = (struct dso_sym){ .start = start,
					   .size = size,
					   .name = (const char *)(uintptr_t)r->used,
					   .rank = rank,
					   .kind = object ? SYM_OBJECT : SYM_FUNC };
	r->used += len;
	free(dm);
	return 0;
nomem:
	free(dm);
	return -ENOMEM;
}

/* Whether section shndx of elf holds code (a label there is a function, as perf takes it). */
static bool elf__exec_section(Elf *elf, GElf_Word shndx)
{
	Elf_Scn *scn = elf ? elf_getscn(elf, shndx) : NULL;
	GElf_Shdr sh;

	return scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR);
}

Elf_Scn *elf__section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t strndx;
	const char *n;

	if (elf_getshdrstrndx(elf, &strndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, sh) && (n = elf_strptr(elf, strndx, sh->sh_name)) &&
		    !strcmp(n, name))
			return scn;
	return NULL;
}

/*
 * x86-64 PLT stubs as perf names them, "sym@plt": the i-th relocation of
 * .rela.plt is the i-th 16-byte entry of .plt.sec when there is one (IBT),
 * else of .plt after its first entry.
 */
static int dso__plt_syms(struct sym_reader *r, Elf *elf)
{
	GElf_Shdr rsh, psh, dsh;
	Elf_Scn *rela = elf__section(elf, ".rela.plt", &rsh), *plt, *dyn;
	Elf_Data *rd, *dd;
	__u64 base;
	char name[512];
	size_t i, n;
	GElf_Ehdr eh;

	if (!rela || !gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64)
		return 0;
	plt = elf__section(elf, ".plt.sec", &psh);
	base = plt ? psh.sh_addr : 0;
	if (!plt) {
		plt = elf__section(elf, ".plt", &psh);
		base = plt ? psh.sh_addr + 16 : 0;
	}
	dyn = elf_getscn(elf, rsh.sh_link);
	if (!plt || !dyn || !gelf_getshdr(dyn, &dsh) || !(rd = elf_getdata(rela, NULL)) ||
	    !(dd = elf_getdata(dyn, NULL)) || !rsh.sh_entsize)
		return 0;
	n = rsh.sh_size / rsh.sh_entsize;
	for (i = 0; i < n; i++) {
		GElf_Rela rel;
		GElf_Sym sym;
		const char *sn;

		if (base + (i + 1) * 16 > psh.sh_addr + psh.sh_size)
			break;
		if (!gelf_getrela(rd, (int)i, &rel) ||
		    !gelf_getsym(dd, (int)GELF_R_SYM(rel.r_info), &sym) ||
		    !(sn = elf_strptr(elf, dsh.sh_link, sym.st_name)) || !*sn)
			continue;
		snprintf(name, sizeof(name), "%s@plt", sn);
		if (sym_reader__add(r, name, base + i * 16, 16, SYM_RANK_LABEL, false))
			return -ENOMEM;
	}
	return 0;
}

/*
 * Copies the module's functions and variables into d (names into one pool,
 * demangled): STT_FUNC, STT_GNU_IFUNC and labels (STT_NOTYPE) in code
 * sections, variables with a size, and the PLT's stubs.
 */
static int dso__read_syms(struct dso *d, Dwfl_Module *mod, Elf *main_elf)
{
	int i, n = dwfl_module_getsymtab(mod), type, e = 0;
	const char *name, *debugfile = NULL;
	struct sym_reader r = {};
	GElf_Sym sym;
	GElf_Addr addr;
	GElf_Word shndx;
	Elf *elf;

	for (i = 0; i < n && !e; i++) {
		elf = NULL;
		name = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, &elf, NULL);
		if (!name || !*name || sym.st_shndx == SHN_UNDEF || sym.st_shndx == SHN_ABS ||
		    shndx == (GElf_Word)-1)
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (type == STT_FUNC || type == STT_GNU_IFUNC ||
		    (type == STT_NOTYPE && elf__exec_section(elf, shndx)))
			e = sym_reader__add(
				&r, name, addr, sym.st_size,
				sym__rank(&sym) + (type == STT_NOTYPE ? SYM_RANK_LABEL : 0), false);
		else if (type == STT_OBJECT && sym.st_size)
			e = sym_reader__add(&r, name, addr, sym.st_size, sym__rank(&sym), true);
	}
	if (!e && main_elf)
		e = dso__plt_syms(&r, main_elf);
	if (e) {
		free(r.funcs);
		free(r.objs);
		free(r.pool);
		return e;
	}
	for (i = 0; i < r.nfuncs; i++)
		r.funcs[i].name = r.pool + (uintptr_t)r.funcs[i].name;
	for (i = 0; i < r.nobjs; i++)
		r.objs[i].name = r.pool + (uintptr_t)r.objs[i].name;
	d->funcs = r.funcs;
	d->objs = r.objs;
	d->names = r.pool;
	d->nfuncs = dso_syms__finish(d->funcs, r.nfuncs, true);
	d->nobjs = dso_syms__finish(d->objs, r.nobjs, false);
	dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
	if (debugfile && strcmp(debugfile, d->path)) {
		d->symfile = strdup(debugfile);
		if (!d->symfile)
			return -ENOMEM;
	}
	return 0;
}

static void dso__read_build_id(struct dso *d, Dwfl_Module *mod)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int len = dwfl_module_build_id(mod, &bits, &vaddr);

	if (len <= 0)
		return;
	d->build_id_len = len > (int)sizeof(d->build_id) ? (int)sizeof(d->build_id) : len;
	memcpy(d->build_id, bits, d->build_id_len);
}

/*
 * Whether fd is a regular file holding an executable or a shared object
 * (ET_EXEC, ET_DYN): what a process maps to run.  Anything else a process
 * may map is not read: a device (opening one may act on it), and above all
 * a relocatable object (ET_REL, a .o a linker maps to read it), which
 * libdwfl would relocate by section through a callback.
 */
static bool dso__loadable(int fd)
{
	unsigned char h[EI_NIDENT + 2];
	struct stat st;
	unsigned int type;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h) || memcmp(h, ELFMAG, SELFMAG))
		return false;
	type = h[EI_DATA] == ELFDATA2MSB ? (unsigned int)h[EI_NIDENT] << 8 | h[EI_NIDENT + 1]
					 : (unsigned int)h[EI_NIDENT + 1] << 8 | h[EI_NIDENT];
	return type == ET_EXEC || type == ET_DYN;
}

static void dso__load(struct dso *d, const char *file, const char *debuginfo)
{
	char *path = (char *)debuginfo;
	const Dwfl_Callbacks cb = {
		.find_elf = dwfl_build_id_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
		/* never called for the ET_EXEC and ET_DYN files read here; not NULL all the same */
		.section_address = dwfl_offline_section_address,
		.debuginfo_path = &path,
	};
	Dwfl_Module *mod;
	GElf_Addr bias;
	Elf *elf;
	Dwfl *dwfl;
	int fd = -1;

	if (!strcmp(d->path, "[vdso]")) {
		fd = vdso__fd();
		if (fd < 0)
			return;
	} else if (file[0] != '/') {
		return; /* [heap], [stack], anon: not files */
	} else {
		fd = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			return;
	}
	if (!dso__loadable(fd)) {
		close(fd);
		return;
	}
	dwfl = dwfl_begin(&cb);
	if (!dwfl) {
		if (fd >= 0)
			close(fd);
		return;
	}
	dwfl_report_begin(dwfl);
	/* at base 0 relative to p_vaddr: module addresses are the file's own */
	mod = dwfl_report_elf(dwfl, d->path, file, fd, 0, true);
	dwfl_report_end(dwfl, NULL, NULL);
	if (!mod && fd >= 0)
		close(fd); /* consumed only on success */
	if (mod && (elf = dwfl_module_getelf(mod, &bias)) && !dso__read_segs(d, elf)) {
		d->elf = true;
		dso__read_build_id(d, mod);
		dso__read_syms(d, mod, elf);
	}
	dwfl_end(dwfl); /* closes the module's fd */
}

struct dso *dso_cache__get_as(struct dso_cache *c, const char *key, const char *file)
{
	struct dso k = { .path = (char *)key }, *d;
	void *node = tfind(&k, &c->tree, dso__cmp);

	if (node)
		return *(struct dso **)node;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->path = strdup(key);
	d->file = strcmp(key, file) ? strdup(file) : NULL;
	if (!d->path || (strcmp(key, file) && !d->file) || !tsearch(d, &c->tree, dso__cmp)) {
		dso__free(d);
		return NULL;
	}
	c->n++;
	dso__load(d, file, c->debuginfo);
	return d;
}

struct dso *dso_cache__get(struct dso_cache *c, const char *path)
{
	return dso_cache__get_as(c, path, path);
}

struct trim {
	struct dso **gone;
	size_t n, cap;
};

static void trim__visit(const void *node, VISIT which, void *closure)
{
	struct trim *t = closure;
	struct dso *d = *(struct dso *const *)node;

	if ((which == postorder || which == leaf) && !d->elf && t->n < t->cap)
		t->gone[t->n++] = d;
}

void dso_cache__trim(struct dso_cache *c, size_t max)
{
	struct trim t = { .cap = c->n };
	size_t i;

	if (c->n <= max)
		return;
	t.gone = calloc(t.cap ? t.cap : 1, sizeof(*t.gone));
	if (!t.gone)
		return; /* kept: more memory, same answers */
	twalk_r(c->tree, trim__visit, &t);
	for (i = 0; i < t.n; i++) {
		tdelete(t.gone[i], &c->tree, dso__cmp);
		dso__free(t.gone[i]);
	}
	c->n -= t.n;
	free(t.gone);
}

const char *dso__short_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return path[0] == '/' && b && b[1] ? b + 1 : path;
}

bool dso__bias(const struct dso *d, __u64 start, __u64 pgoff, __u64 *bias)
{
	int i;

	for (i = 0; i < d->nsegs; i++) {
		const struct dso_seg *s = &d->segs[i];

		if (pgoff < PAGE_MASK_OF(s->offset) || pgoff >= s->offset + s->filesz)
			continue;
		/* the mapping's first byte is the file's byte pgoff, at vaddr ... */
		*bias = start - (s->vaddr - s->offset + pgoff);
		return true;
	}
	return false;
}

__u64 dso__file_end(const char *path, __u64 start, __u64 pgoff)
{
	struct dso d = { .path = (char *)path };
	__u64 bias, end = 0;
	Elf *elf = NULL;
	int i, fd;

	if (path[0] != '/' || elf_version(EV_CURRENT) == EV_NONE)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && !dso__read_segs(&d, elf) && dso__bias(&d, start, pgoff, &bias))
		for (i = 0; i < d.nsegs; i++)
			if (bias + d.segs[i].vaddr + d.segs[i].memsz > end)
				end = bias + d.segs[i].vaddr + d.segs[i].memsz;
	free(d.segs);
	elf_end(elf);
	close(fd);
	return end ? PAGE_MASK_OF(end + 4095) : 0;
}

bool dso__has_vaddr(const struct dso *d, __u64 vaddr)
{
	int i;

	for (i = 0; i < d->nsegs; i++)
		if (vaddr >= PAGE_MASK_OF(d->segs[i].vaddr) &&
		    vaddr < d->segs[i].vaddr + d->segs[i].memsz)
			return true;
	return false;
}

__u64 dso__image_start(const struct dso *d)
{
	__u64 lo = 0;
	int i;

	for (i = 0; i < d->nsegs; i++)
		if (!i || d->segs[i].vaddr < lo)
			lo = d->segs[i].vaddr;
	return PAGE_MASK_OF(lo);
}

bool dso__has_build_id(const struct dso *d, const unsigned char *id, int len)
{
	return d->elf && len > 0 && d->build_id_len == len && !memcmp(d->build_id, id, len);
}

const struct dso_sym *dso__func(const struct dso *d, __u64 vaddr)
{
	int i = dso_syms__find(d->funcs, d->nfuncs, vaddr);

	return i < 0 ? NULL : &d->funcs[i];
}

const struct dso_sym *dso__object(const struct dso *d, __u64 vaddr, __u64 len)
{
	int i = dso_syms__find(d->objs, d->nobjs, vaddr),
	    lo = dso_syms__upto(d->objs, d->nobjs, vaddr);

	if (i >= 0)
		return &d->objs[i];
	/* objs[lo] is the first that starts after vaddr */
	if (lo < d->nobjs && d->objs[lo].start - vaddr < len)
		return &d->objs[lo];
	return NULL;
}
