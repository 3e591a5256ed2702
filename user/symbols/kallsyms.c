// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "user/symbols/kallsyms.h"

#define KALLSYMS_BUF (64 * 1024) /* bytes of /proc/kallsyms a read takes */

bool kallsyms__is_kernel(__u64 addr)
{
	return addr >> 63; /* x86-64 and arm64 put the kernel in the upper half */
}

/* Its rank among aliases from its type letter, as perf binds it (kallsyms2elf_binding). */
static unsigned char kallsyms__rank(char type)
{
	if (type == 'W')
		return SYM_RANK_WEAK;
	return isupper((unsigned char)type) ? SYM_RANK_GLOBAL : SYM_RANK_LOCAL;
}

/* The symbol's kind from its kallsyms type letter; -1 for the ones that hold neither. */
static int kallsyms__kind(char type)
{
	switch (tolower((unsigned char)type)) {
	case 't':
	case 'w':
		return SYM_FUNC;
	case 'd':
	case 'b':
	case 'r':
	case 'v':
		return SYM_OBJECT;
	default:
		return -1;
	}
}

/* A module's name, kept once (there are few modules, and their symbols come together). */
static const char *kallsyms__module(struct kallsyms *k, const char *name)
{
	char **tmp;
	int i;

	for (i = k->nmodules - 1; i >= 0; i--)
		if (!strcmp(k->modules[i], name))
			return k->modules[i];
	tmp = realloc(k->modules, (k->nmodules + 1) * sizeof(*tmp));
	if (!tmp)
		return NULL;
	k->modules = tmp;
	k->modules[k->nmodules] = strdup(name);
	return k->modules[k->nmodules] ? k->modules[k->nmodules++] : NULL;
}

/* Copies the field at *p (up to a character of stop) into out, truncated to size - 1. */
static size_t kallsyms__field(const char **p, const char *stop, char *out, size_t size)
{
	size_t len = strcspn(*p, stop), copy = len < size - 1 ? len : size - 1;

	memcpy(out, *p, copy);
	out[copy] = '\0';
	*p += len;
	return len;
}

/*
 * The 16 lowercase hex digits a 64-bit kernel prints an address as, then
 * a space: their value in *addr (what strtoull reads of them), *end after
 * them.  False for anything else, which strtoull reads: it was a fifth of
 * the time the whole table took to read.
 */
static bool kallsyms__hex16(const char *p, unsigned long long *addr, char **end)
{
	unsigned long long v = 0;
	int i, d;

	for (i = 0; i < 16; i++) {
		char c = p[i];

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else
			return false;
		v = v << 4 | (unsigned long long)d;
	}
	if (!isspace((unsigned char)p[16]))
		return false;
	*addr = v;
	*end = (char *)p + 16;
	return true;
}

/*
 * One line of /proc/kallsyms, "ADDR TYPE NAME[\t[MODULE]]": what sscanf's
 * "%llx %c %511s [%255[^]]]" reads, in a tenth of its time (a kernel lists
 * over 100,000 symbols, read when the first kernel address is named: often
 * in a run's last report).  False for a line that is not one.
 */
static bool kallsyms__parse_line(const char *line, unsigned long long *addr, char *type,
				 char name[512], char module[256])
{
	const char *p = line;
	char *end;

	while (isspace((unsigned char)*p))
		p++;
	if (!kallsyms__hex16(p, addr, &end))
		*addr = strtoull(p, &end, 16);
	if (end == p || !isspace((unsigned char)*end))
		return false;
	for (p = end; isspace((unsigned char)*p);)
		p++;
	if (!*p)
		return false;
	*type = *p++;
	while (isspace((unsigned char)*p))
		p++;
	if (!kallsyms__field(&p, " \t\n\v\f\r", name, 512))
		return false;
	module[0] = '\0';
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '[' && p[1] != ']') {
		p++;
		kallsyms__field(&p, "]", module, 256);
	}
	return true;
}

int kallsyms__open(struct kallsyms *k, const char *path)
{
	memset(k, 0, sizeof(*k));
	k->f = fopen(path ? path : "/proc/kallsyms", "re");
	if (!k->f)
		return -errno;
	k->in_order = true;
	/*
	 * /proc's files say a block of 1 KiB: a read each of ~120,000 lines' 5 MB
	 * otherwise.  glibc sizes a buffer it allocates itself by the block, so
	 * it is given one.
	 */
	k->buf = malloc(KALLSYMS_BUF);
	if (k->buf)
		setvbuf(k->f, k->buf, _IOFBF, KALLSYMS_BUF);
	return 0;
}

/* The next line into k: 1, or 0 at the end of the file (or out of memory: k->nomem). */
static int kallsyms__read_line(struct kallsyms *k)
{
	char line[1024], type, name[512], module[256];
	unsigned long long addr;
	struct dso_sym *tmp;
	size_t len;
	char *ptmp;
	int kind;

	if (k->nomem || !fgets(line, sizeof(line), k->f))
		return 0;
	if (!kallsyms__parse_line(line, &addr, &type, name, module))
		return 1;
	/*
	 * The kernel's own symbols come first, sorted (kernel/kallsyms.c
	 * prints its table in order, then modules', ftrace's, BPF's and
	 * kprobes' with a [module], in no order): past them, or past a line
	 * out of order (not the kernel's), only the whole file tells.
	 */
	if (module[0])
		k->in_order = false;
	if ((kind = kallsyms__kind(type)) < 0)
		return 1;
	if (k->n && addr < k->syms[k->n - 1].start)
		k->in_order = false;
	k->any_nonzero |= addr != 0;
	len = strlen(name) + 1;
	if (k->used + len > k->pool_cap) {
		k->pool_cap = k->pool_cap ? k->pool_cap * 2 : 1 << 20;
		ptmp = realloc(k->pool, k->pool_cap);
		if (!ptmp)
			goto nomem;
		k->pool = ptmp;
	}
	if ((size_t)k->n == k->cap) {
		k->cap = k->cap ? k->cap * 2 : 1 << 14;
		tmp = realloc(k->syms, k->cap * sizeof(*tmp));
		if (!tmp)
			goto nomem;
		k->syms = tmp;
	}
	memcpy(k->pool + k->used, name, len);
	/* the pool still moves: the name is its offset until the end */
	k->syms[k->n] = (struct dso_sym){ .start = addr,
					  .size = k->used,
					  .rank = kallsyms__rank(type),
					  .kind = (unsigned char)kind };
	if (module[0] && !(k->syms[k->n].module = kallsyms__module(k, module)))
		goto nomem;
	k->used += len;
	k->n++;
	return 1;
nomem:
	k->nomem = true;
	return 0;
}

/* Reads the rest of the file: the table sorted, one symbol an address.  0 or -ENOMEM. */
static int kallsyms__read_rest(struct kallsyms *k)
{
	int n;

	while (kallsyms__read_line(k))
		;
	fclose(k->f);
	k->f = NULL;
	free(k->buf);
	k->buf = NULL;
	if (k->nomem) {
		kallsyms__free(k);
		return -ENOMEM;
	}
	for (n = 0; n < k->n; n++) {
		k->syms[n].name = k->pool + k->syms[n].size;
		k->syms[n].size = 0;
	}
	k->n = dso_syms__finish(k->syms, k->n, true);
	k->hidden = k->n > 0 && !k->any_nonzero;
	k->loaded = true;
	return 0;
}

int kallsyms__load(struct kallsyms *k, const char *path)
{
	int e = kallsyms__open(k, path);

	return e ? e : kallsyms__read_rest(k);
}

/*
 * From the part read, in order: the symbol the whole table keeps at the
 * last start at or below addr, in k->found, sized to the next start.
 * False when that part cannot tell: nothing above addr read yet, or
 * nothing in the kernel's half at or below it.  Modules, BPF programs and
 * trampolines live outside the kernel's image (below it on arm64, above on
 * x86-64), never between two of its symbols, so those cannot be missed.
 */
static bool kallsyms__from_part(struct kallsyms *k, __u64 addr)
{
	struct dso_sym *group;
	int lo = 0, hi, mid, first, i;

	while (k->in_order && (!k->n || k->syms[k->n - 1].start <= addr) && kallsyms__read_line(k))
		;
	if (!k->in_order || !k->n || k->syms[k->n - 1].start <= addr)
		return false;
	for (hi = k->n; lo < hi;) { /* how many start at or below addr */
		mid = (lo + hi) / 2;
		if (k->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || !kallsyms__is_kernel(k->syms[lo - 1].start))
		return false;
	for (first = lo - 1; first > 0 && k->syms[first - 1].start == k->syms[lo - 1].start;)
		first--;
	/* the aliases in the order read, as the whole file's sort ranks them */
	group = malloc((size_t)(lo - first) * sizeof(*group));
	if (!group)
		return false;
	for (i = first; i < lo; i++) {
		group[i - first] = k->syms[i];
		group[i - first].name = k->pool + k->syms[i].size;
		group[i - first].size = 0;
	}
	dso_syms__finish(group, lo - first, false);
	k->found = group[0];
	k->found.size = k->syms[lo].start - k->found.start;
	free(group);
	return true;
}

int kallsyms__lookup(const char *path, const char *name, __u64 *addr)
{
	char line[1024], type, sym[512], rest[8];
	unsigned long long a;
	FILE *f = fopen(path ? path : "/proc/kallsyms", "re");
	int e = -ENOENT;

	if (!f)
		return -errno;
	while (e && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %511s %7s", &a, &type, sym, rest) == 3 &&
		    !strcmp(sym, name)) {
			*addr = a;
			e = 0;
		}
	fclose(f);
	return e;
}

void kallsyms__free(struct kallsyms *k)
{
	int i;

	if (k->f)
		fclose(k->f);
	free(k->buf);
	for (i = 0; i < k->nmodules; i++)
		free(k->modules[i]);
	free(k->modules);
	free(k->syms);
	free(k->pool);
	memset(k, 0, sizeof(*k));
}

const struct dso_sym *kallsyms__find(struct kallsyms *k, __u64 addr, enum dso_sym_kind kind)
{
	int i;

	if (k->f && kallsyms__from_part(k, addr))
		return k->found.kind == kind ? &k->found : NULL;
	if (k->f && kallsyms__read_rest(k))
		return NULL;
	if (k->hidden)
		return NULL;
	i = dso_syms__find(k->syms, k->n, addr);
	return i >= 0 && k->syms[i].kind == kind ? &k->syms[i] : NULL;
}
