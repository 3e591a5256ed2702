// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>

#include "user/symbols/ranges.h"
#include "user/symbols/dso.h"
#include "user/symbols/mapsline.h"
#include "kernel/abi/sysfs.h"

/* An address: hexadecimal always, 0x optional, as /proc/PID/maps and perf print them. */
static int parse_addr(const char *s, const char **end, __u64 *v)
{
	char *e;

	if (!isxdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &e, 16);
	if (errno)
		return -ERANGE;
	*end = e;
	return 0;
}

/* A size after '+': decimal with an optional K, M, G or T (powers of 1024), or 0x hex. */
static int parse_size(const char *s, __u64 *v)
{
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	int shift = 0;
	char *end;

	if (!isdigit((unsigned char)*s) || (hex && !isxdigit((unsigned char)s[2])))
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, hex ? 16 : 10);
	if (errno)
		return -ERANGE;
	if (hex)
		return *end ? -EINVAL : 0;
	switch (toupper((unsigned char)*end)) {
	case 'K':
		shift = 10;
		break;
	case 'M':
		shift = 20;
		break;
	case 'G':
		shift = 30;
		break;
	case 'T':
		shift = 40;
		break;
	case '\0':
		return 0;
	default:
		return -EINVAL;
	}
	if (end[1] && !(toupper((unsigned char)end[1]) == 'B' && !end[2]) &&
	    !(toupper((unsigned char)end[1]) == 'I' && toupper((unsigned char)end[2]) == 'B' &&
	      !end[3]))
		return -EINVAL;
	if (*v >> (64 - shift))
		return -ERANGE;
	*v <<= shift;
	return 0;
}

/*
 * Whether text is written as an address range (LO-HI or LO+SIZE, LO and HI
 * hexadecimal) rather than the name of a mapping: it starts with a decimal
 * digit, or it is hex digits up to its '-' or '+' (a kernel address such as
 * ffffffff81000000-...).  A file of such a name is named by its path.
 */
static bool range__looks_numeric(const char *text)
{
	const char *p = text;

	if (isdigit((unsigned char)*p))
		return true;
	while (isxdigit((unsigned char)*p))
		p++;
	return p > text && (*p == '-' || *p == '+');
}

int range__parse(struct range_spec *r, const char *text, struct err *err)
{
	const char *p;
	__u64 size;

	memset(r, 0, sizeof(*r));
	if (!*text)
		return err__set(err, -EINVAL, "empty address range");
	if (strlen(text) >= sizeof(r->text))
		return err__set(err, -EINVAL, "address range '%.40s...' is too long", text);
	snprintf(r->text, sizeof(r->text), "%s", text);
	if (!range__looks_numeric(text)) {
		r->mapping = true;
		return 0;
	}
	if (parse_addr(text, &p, &r->lo))
		goto bad;
	if (*p == '-') {
		if (parse_addr(p + 1, &p, &r->hi) || *p)
			goto bad;
	} else if (*p == '+') {
		if (parse_size(p + 1, &size))
			goto bad;
		if (r->lo + size < r->lo)
			return err__set(
				err, -EINVAL,
				"address range '%s' wraps past the end of the address space", text);
		r->hi = r->lo + size;
	} else {
		goto bad;
	}
	if (r->hi <= r->lo)
		return err__set(err, -EINVAL,
				"address range '%s' is empty (its end is not above its start)",
				text);
	return 0;
bad:
	err__msg(err,
		 "cannot parse address range '%s' (expected LO-HI or LO+SIZE, LO and HI in hex "
		 "with or without 0x, SIZE in bytes with K/M/G/T or in hex after 0x; or a mapping "
		 "such as [heap], [stack] or a file path)",
		 text);
	return -EINVAL;
}

int range_set__add(struct range_set *set, const char *text, struct err *err)
{
	if (set->nranges >= LDLAT_MAX_RANGES)
		return err__set(err, -EINVAL,
				"too many address ranges: at most %d (-a %s is one too many)",
				LDLAT_MAX_RANGES, text);
	if (range__parse(&set->range[set->nranges], text, err))
		return -EINVAL;
	set->nranges++;
	return 0;
}

bool range_set__has_mappings(const struct range_set *set)
{
	int i;

	for (i = 0; i < set->nranges; i++)
		if (set->range[i].mapping)
			return true;
	return false;
}

static int maps__read(const char *path, struct vma **out)
{
	char line[1024];
	struct vma *v = NULL, *tmp;
	struct mapsline m;
	int n = 0, cap = 0;
	FILE *f = fopen(path, "re");

	*out = NULL;
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (!mapsline__parse(line, &m))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			tmp = realloc(v, cap * sizeof(*v));
			if (!tmp) {
				free(v);
				fclose(f);
				return -ENOMEM;
			}
			v = tmp;
		}
		v[n].lo = m.lo;
		v[n].hi = m.hi;
		v[n].pgoff = m.pgoff;
		snprintf(v[n].path, sizeof(v[n].path), "%s", m.name);
		n++;
	}
	fclose(f);
	*out = v;
	return n;
}

static bool vma__matches(const struct vma *v, const char *name)
{
	const char *base;

	if (!v->path[0])
		return false;
	if (!strcmp(v->path, name))
		return true;
	if (name[0] == '[' || strchr(name, '/'))
		return false;
	base = strrchr(v->path, '/');
	return base && !strcmp(base + 1, name);
}

/*
 * A variable called name (STT_OBJECT, with its size) of one of the ELF files
 * mapped in v, as ldlat-top names it: its start and end in the process.
 */
static bool vmas__variable(const struct vma *v, int nv, const char *name, __u64 *lo, __u64 *hi)
{
	struct dso_cache c;
	bool found = false;
	int j, k;

	if (name[0] == '[' || strchr(name, '/') || dso_cache__init(&c, NULL))
		return false;
	for (j = 0; j < nv && !found; j++) {
		const struct dso *d;
		__u64 bias;

		if (v[j].path[0] != '/' || (j && !strcmp(v[j - 1].path, v[j].path)))
			continue; /* a file's first mapping only */
		d = dso_cache__get(&c, v[j].path);
		if (!d || !d->elf || !dso__bias(d, v[j].lo, v[j].pgoff, &bias))
			continue;
		for (k = 0; k < d->nobjs && !found; k++)
			if (!strcmp(d->objs[k].name, name)) {
				found = true;
				if (lo)
					*lo = bias + d->objs[k].start;
				if (hi)
					*hi = bias + d->objs[k].start + d->objs[k].size;
			}
	}
	dso_cache__free(&c);
	return found;
}

int range_set__first_unmapped(const struct range_set *set, pid_t pid)
{
	struct vma *v;
	char path[64];
	int i, j, nv, first = -1;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	nv = maps__read(path, &v);
	if (nv < 0)
		return -1;
	for (i = 0; i < set->nranges && first < 0; i++) {
		if (!set->range[i].mapping || set->range[i].text[0] == '[')
			continue;
		for (j = 0; j < nv && !vma__matches(&v[j], set->range[i].text); j++)
			;
		if (j == nv && !vmas__variable(v, nv, set->range[i].text, NULL, NULL))
			first = i;
	}
	free(v);
	return first;
}

static int spans__add(struct range_set *set, __u64 lo, __u64 hi, int range, struct err *err)
{
	struct span *last = set->nspans ? &set->span[set->nspans - 1] : NULL;

	if (last && (int)last->range == range && last->hi == lo) {
		last->hi = hi;
		return 0;
	}
	if (set->nspans >= LDLAT_MAX_SPANS) {
		err__msg(err,
			 "'%s' and the other ranges map to more than %d separate address spans",
			 set->range[range].text, LDLAT_MAX_SPANS);
		return -EINVAL;
	}
	set->span[set->nspans++] = (struct span){ .lo = lo, .hi = hi, .range = (__u32)range };
	return 0;
}

/* The mapping spans of range i, from the process's VMAs. */
static int spans__add_mapping(struct range_set *set, int i, const struct vma *v, int nv,
			      const struct vm_bounds *b, struct err *err)
{
	const char *name = set->range[i].text;
	const struct vma *first = NULL;
	int j, e, found = 0;
	__u64 lo, hi, end;

	if (!strcmp(name, "[heap]")) {
		/* from the heap's start (or start_brk, before it exists) to room above its end */
		lo = end = b->start_brk;
		for (j = 0; j < nv; j++)
			if (!strcmp(v[j].path, "[heap]")) {
				lo = v[j].lo;
				end = v[j].hi;
			}
		if (!lo)
			goto none;
		hi = end < lo ? lo : end;
		hi = b->heap_room && hi + b->heap_room > hi ? hi + b->heap_room : ~0ull;
		/* never into the next mapping: what mmap places below the libraries is not heap */
		for (j = 0; j < nv; j++)
			if (v[j].lo >= lo && strcmp(v[j].path, "[heap]") && v[j].lo < hi)
				hi = v[j].lo;
		return spans__add(set, lo, hi, i, err);
	}
	if (!strcmp(name, "[stack]")) {
		for (j = 0; j < nv; j++) {
			if (strcmp(v[j].path, "[stack]"))
				continue;
			/* the stack grows down, up to RLIMIT_STACK, never into the mapping below */
			hi = v[j].hi;
			lo = b->stack_limit && b->stack_limit < hi ? hi - b->stack_limit : v[j].lo;
			if (lo > v[j].lo)
				lo = v[j].lo;
			if (j > 0 && v[j - 1].hi > lo)
				lo = v[j - 1].hi;
			return spans__add(set, lo, hi, i, err);
		}
		goto none;
	}
	for (j = 0; j < nv; j++) {
		if (!vma__matches(&v[j], name))
			continue;
		e = spans__add(set, v[j].lo, v[j].hi, i, err);
		if (e)
			return e;
		if (!found)
			first = &v[j];
		found = 1;
		/*
		 * The anonymous mapping right after a file's last one holds its
		 * .bss, up to the end of its last PT_LOAD segment: the rest of
		 * it is whatever mmap placed there (the kernel merges them).
		 */
		if (j + 1 < nv && !v[j + 1].path[0] && v[j + 1].lo == v[j].hi &&
		    (j + 2 >= nv || !vma__matches(&v[j + 2], name))) {
			end = dso__file_end(v[j].path, first->lo, first->pgoff);
			if (end > v[j + 1].hi)
				end = v[j + 1].hi;
			if (end > v[j + 1].lo) {
				e = spans__add(set, v[j + 1].lo, end, i, err);
				if (e)
					return e;
			}
		}
	}
	if (found)
		return 0;
	/* a variable of one of its files: its start and size */
	if (vmas__variable(v, nv, name, &lo, &hi))
		return spans__add(set, lo, hi, i, err);
none:
	return err__set(err, -EINVAL,
			"no mapping '%s' in the target process, nor a variable of its files", name);
}

static int span__cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int range_set__finish(struct range_set *set, struct err *err)
{
	int i;

	qsort(set->span, set->nspans, sizeof(set->span[0]), span__cmp);
	for (i = 0; i + 1 < set->nspans; i++) {
		if (set->span[i].hi <= set->span[i + 1].lo)
			continue;
		if (set->span[i].range == set->span[i + 1].range) {
			err__msg(err, "address range '%s' overlaps itself",
				 set->range[set->span[i].range].text);
		} else {
			err__msg(err,
				 "address ranges '%s' and '%s' overlap (a sample must belong to "
				 "one)",
				 set->range[set->span[i].range].text,
				 set->range[set->span[i + 1].range].text);
		}
		return -EINVAL;
	}
	return 0;
}

int range_set__resolve_vmas(struct range_set *set, const struct vma *v, int nv,
			    const struct vm_bounds *b, struct err *err)
{
	int i, e = 0;

	set->nspans = 0;
	for (i = 0; i < set->nranges && !e; i++) {
		if (set->range[i].mapping)
			e = spans__add_mapping(set, i, v, nv, b, err);
		else
			e = spans__add(set, set->range[i].lo, set->range[i].hi, i, err);
	}
	return e ? e : range_set__finish(set, err);
}

int range_set__resolve_maps(struct range_set *set, const char *maps_path, const struct vm_bounds *b,
			    struct err *err)
{
	struct vma *v = NULL;
	int nv = 0, e;

	if (range_set__has_mappings(set)) {
		nv = maps__read(maps_path, &v);
		if (nv < 0) {
			err__msg(err, "cannot read %s: %s", maps_path, strerror(-nv));
			return nv == -ENOENT ? -ESRCH : nv;
		}
	}
	e = range_set__resolve_vmas(set, v, nv, b, err);
	free(v);
	return e;
}

/* start_brk is field 47 of /proc/PID/stat (proc(5)); the comm field may hold spaces. */
static __u64 proc__start_brk(pid_t pid)
{
	char path[64], buf[4096], *p;
	unsigned long long v = 0;
	int field;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (file__read(path, buf, sizeof(buf)) <= 0)
		return 0;
	p = strrchr(buf, ')');
	if (!p)
		return 0;
	p++;
	for (field = 3; field < 47 && p; field++) /* p is before field 3 */
		p = strchr(p + 1, ' ');
	if (p)
		sscanf(p + 1, "%llu", &v);
	return v;
}

/* A resource limit of the process; 0 when unlimited or unknown. */
static __u64 proc__rlimit(pid_t pid, int resource)
{
	struct rlimit rl;

	if (prlimit(pid, resource, NULL, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return 0;
	return rl.rlim_cur;
}

__u64 range__default_heap_room(void)
{
	struct sysinfo si;

	if (sysinfo(&si))
		return 0;
	return ((__u64)si.totalram + si.totalswap) * (si.mem_unit ? si.mem_unit : 1);
}

int range_set__resolve(struct range_set *set, pid_t pid, struct err *err)
{
	struct vm_bounds b = {};
	char path[64];
	int i;

	if (pid <= 0) {
		for (i = 0; i < set->nranges; i++) {
			if (!set->range[i].mapping)
				continue;
			err__msg(
				err,
				"address range '%s' names a mapping: it needs a process (-p PID or "
				"a command after --)",
				set->range[i].text);
			return -EINVAL;
		}
		return range_set__resolve_maps(set, NULL, &b, err);
	}
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	b.start_brk = proc__start_brk(pid);
	b.heap_room = proc__rlimit(pid, RLIMIT_DATA);
	if (!b.heap_room)
		b.heap_room = range__default_heap_room();
	b.stack_limit = proc__rlimit(pid, RLIMIT_STACK);
	return range_set__resolve_maps(set, path, &b, err);
}

void range_set__describe(const struct range_set *set, int i, char *buf, size_t len)
{
	size_t off = 0;
	int j, n = 0;

	if (len)
		buf[0] = '\0';
	for (j = 0; j < set->nspans && off < len; j++) {
		if ((int)set->span[j].range != i)
			continue;
		off += snprintf(buf + off, len - off, "%s0x%llx-0x%llx", n++ ? "," : "",
				(unsigned long long)set->span[j].lo,
				(unsigned long long)set->span[j].hi);
	}
}
