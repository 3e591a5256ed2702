// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/abi/pmu.h"
#include "kernel/abi/sysfs.h"

#define PMU_DIR "bus/event_source/devices"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of the entries of a sysfs directory, without dot files. */
static int dir__names(const char *rel, char ***out)
{
	char path[4096], **names = NULL, **tmp;
	struct dirent *de;
	int n = 0, cap = 0, err;
	DIR *d;

	*out = NULL;
	err = sysfs__path(path, sizeof(path), rel);
	if (err)
		return err;
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			tmp = realloc(names, cap * sizeof(*names));
			if (!tmp)
				goto nomem;
			names = tmp;
		}
		names[n] = strdup(de->d_name);
		if (!names[n])
			goto nomem;
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	*out = names;
	return n;
nomem:
	closedir(d);
	pmu__list_free(names, n);
	return -ENOMEM;
}

int pmu__list(char ***names)
{
	return dir__names(PMU_DIR, names);
}

void pmu__list_free(char **names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

void pmu__list_snprint(char *buf, size_t len)
{
	char **names;
	size_t off = 0;
	int i, n = pmu__list(&names);

	if (len)
		buf[0] = '\0';
	if (n <= 0) {
		snprintf(buf, len, "none");
		return;
	}
	for (i = 0; i < n && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? ", " : "", names[i]);
	pmu__list_free(names, n);
}

int pmu_format__parse(struct pmu_format *f, const char *spec)
{
	static const char *const words[] = { "config", "config1", "config2", "config3" };
	const char *colon = strchr(spec, ':'), *p;
	unsigned long lo, hi;
	char *end;
	size_t wl;
	int w;

	if (!colon)
		return -EINVAL;
	wl = colon - spec;
	f->word = -1;
	for (w = 0; w < 4; w++)
		if (strlen(words[w]) == wl && !strncmp(spec, words[w], wl))
			f->word = w;
	if (f->word < 0)
		return -EINVAL;
	f->mask = 0;
	p = colon + 1;
	do {
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		lo = strtoul(p, &end, 10);
		hi = lo;
		p = end;
		if (*p == '-') {
			p++;
			if (!isdigit((unsigned char)*p))
				return -EINVAL;
			hi = strtoul(p, &end, 10);
			p = end;
		}
		if (hi < lo || hi > 63)
			return -EINVAL;
		f->mask |= (hi == 63 ? ~0ull : (1ull << (hi + 1)) - 1) & ~((1ull << lo) - 1);
	} while (*p++ == ',');
	return p[-1] == '\0' && f->mask ? 0 : -EINVAL;
}

static __u64 *attr__word(struct perf_event_attr *attr, int word)
{
	switch (word) {
	case 0:
		return &attr->config;
	case 1:
		return &attr->config1;
	case 2:
		return &attr->config2;
	default:
		/* config3 (Linux 6.3) is past the end of Debian 12's perf_event_attr */
		return NULL;
	}
}

int pmu_format__encode(const struct pmu_format *f, __u64 value, struct perf_event_attr *attr)
{
	__u64 *w = attr__word(attr, f->word), bit, out = 0;
	int b;

	if (!w)
		return -EOPNOTSUPP;
	for (b = 0; b < 64; b++) {
		bit = 1ull << b;
		if (!(f->mask & bit))
			continue;
		if (value & 1)
			out |= bit;
		value >>= 1;
	}
	if (value)
		return -ERANGE;
	*w = (*w & ~f->mask) | out;
	return 0;
}

__u64 pmu_format__decode(const struct pmu_format *f, const struct perf_event_attr *attr)
{
	const __u64 *word = attr__word((struct perf_event_attr *)attr, f->word);
	__u64 w = word ? *word : 0, out = 0;
	int b, i = 0;

	for (b = 0; b < 64; b++) {
		if (!(f->mask & (1ull << b)))
			continue;
		if (w & (1ull << b))
			out |= 1ull << i;
		i++;
	}
	return out;
}

static int pmu__load_formats(struct pmu *pmu)
{
	char rel[512], buf[256], **names;
	int i, n, err = 0;

	snprintf(rel, sizeof(rel), PMU_DIR "/%s/format", pmu->name);
	n = dir__names(rel, &names);
	if (n == -ENOENT)
		return 0;
	if (n < 0)
		return n;
	pmu->formats = calloc(n ? n : 1, sizeof(*pmu->formats));
	if (!pmu->formats) {
		pmu__list_free(names, n);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct pmu_format *f = &pmu->formats[pmu->nformats];

		snprintf(rel, sizeof(rel), PMU_DIR "/%s/format/%s", pmu->name, names[i]);
		if (sysfs__read(rel, buf, sizeof(buf)) < 0 || pmu_format__parse(f, buf))
			continue; /* a format this version does not know: not usable as a term */
		snprintf(f->name, sizeof(f->name), "%s", names[i]);
		pmu->nformats++;
	}
	pmu__list_free(names, n);
	return err;
}

static int pmu__load_aliases(struct pmu *pmu)
{
	char rel[512], buf[1024], **names;
	int i, n;

	snprintf(rel, sizeof(rel), PMU_DIR "/%s/events", pmu->name);
	n = dir__names(rel, &names);
	if (n == -ENOENT)
		return 0;
	if (n < 0)
		return n;
	pmu->aliases = calloc(n ? n : 1, sizeof(*pmu->aliases));
	if (!pmu->aliases) {
		pmu__list_free(names, n);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct pmu_alias *a = &pmu->aliases[pmu->naliases];

		/* mem-loads.scale, mem-loads.unit: attributes of an alias, not aliases */
		if (strchr(names[i], '.'))
			continue;
		snprintf(rel, sizeof(rel), PMU_DIR "/%s/events/%s", pmu->name, names[i]);
		if (sysfs__read(rel, buf, sizeof(buf)) < 0)
			continue;
		a->terms = strdup(buf);
		if (!a->terms) {
			pmu__list_free(names, n);
			return -ENOMEM;
		}
		snprintf(a->name, sizeof(a->name), "%s", names[i]);
		pmu->naliases++;
	}
	pmu__list_free(names, n);
	return 0;
}

static int pmu__read_int(const struct pmu *pmu, const char *file, int dflt)
{
	char rel[512], buf[64];

	snprintf(rel, sizeof(rel), PMU_DIR "/%s/%s", pmu->name, file);
	if (sysfs__read(rel, buf, sizeof(buf)) <= 0)
		return dflt;
	return atoi(buf);
}

int pmu__load_by_type(struct pmu *pmu, __u32 type)
{
	char **names;
	int i, n = pmu__list(&names), e = -ENOENT;

	for (i = 0; i < n && e; i++) {
		if (pmu__load(pmu, names[i]))
			continue;
		if (pmu->type == type)
			e = 0;
		else
			pmu__free(pmu);
	}
	if (n > 0)
		pmu__list_free(names, n);
	return n < 0 ? n : e;
}

bool pmu__exists(const char *name)
{
	char rel[512], buf[32];

	if (strchr(name, '/') || strlen(name) >= PMU_NAME_MAX)
		return false;
	snprintf(rel, sizeof(rel), PMU_DIR "/%s/type", name);
	return sysfs__read(rel, buf, sizeof(buf)) > 0;
}

int pmu__load(struct pmu *pmu, const char *name)
{
	struct err err = {};
	char rel[512], buf[4096];
	int e;

	memset(pmu, 0, sizeof(*pmu));
	if (strlen(name) >= sizeof(pmu->name) || strchr(name, '/'))
		return -ENOENT;
	snprintf(pmu->name, sizeof(pmu->name), "%s", name);
	snprintf(rel, sizeof(rel), PMU_DIR "/%s/type", name);
	e = sysfs__read(rel, buf, sizeof(buf));
	if (e < 0)
		return e == -ENOTDIR ? -ENOENT : e;
	pmu->type = (__u32)strtoul(buf, NULL, 0);
	pmu->max_precise = pmu__read_int(pmu, "caps/max_precise", -1);
	pmu->cap_ldlat = pmu__read_int(pmu, "caps/ldlat", -1);
	snprintf(rel, sizeof(rel), PMU_DIR "/%s/caps/pmu_name", name);
	if (sysfs__read(rel, buf, sizeof(buf)) > 0)
		snprintf(pmu->cap_name, sizeof(pmu->cap_name), "%s", buf);
	/* hybrid PMUs list their CPUs in 'cpus', uncore ones in 'cpumask' */
	snprintf(rel, sizeof(rel), PMU_DIR "/%s/cpus", name);
	if (sysfs__read(rel, buf, sizeof(buf)) <= 0) {
		snprintf(rel, sizeof(rel), PMU_DIR "/%s/cpumask", name);
		if (sysfs__read(rel, buf, sizeof(buf)) <= 0)
			buf[0] = '\0';
	}
	if (buf[0] && cpumap__parse(&pmu->cpus, buf, &err))
		pmu->cpus.nr = 0;
	e = pmu__load_formats(pmu);
	if (!e)
		e = pmu__load_aliases(pmu);
	if (e)
		pmu__free(pmu);
	return e;
}

void pmu__free(struct pmu *pmu)
{
	int i;

	for (i = 0; i < pmu->naliases; i++)
		free(pmu->aliases[i].terms);
	free(pmu->aliases);
	free(pmu->formats);
	cpumap__free(&pmu->cpus);
	pmu->aliases = NULL;
	pmu->formats = NULL;
	pmu->naliases = pmu->nformats = 0;
}

const struct pmu_format *pmu__format(const struct pmu *pmu, const char *name)
{
	int i;

	for (i = 0; i < pmu->nformats; i++)
		if (!strcmp(pmu->formats[i].name, name))
			return &pmu->formats[i];
	return NULL;
}

const char *pmu__alias(const struct pmu *pmu, const char *name)
{
	int i;

	for (i = 0; i < pmu->naliases; i++)
		if (!strcmp(pmu->aliases[i].name, name))
			return pmu->aliases[i].terms;
	return NULL;
}

void pmu_format__snprint(const struct pmu_format *f, char *buf, size_t len)
{
	static const char *const words[] = { "config", "config1", "config2", "config3" };
	size_t off;
	int lo, hi;

	off = snprintf(buf, len, "%s:", words[f->word & 3]);
	for (lo = 0; lo < 64 && off < len; lo = hi + 1) {
		if (!(f->mask & (1ull << lo))) {
			hi = lo;
			continue;
		}
		for (hi = lo; hi < 63 && (f->mask & (1ull << (hi + 1))); hi++)
			;
		off += snprintf(buf + off, len - off, "%s%d", buf[off - 1] == ':' ? "" : ",", lo);
		if (hi > lo && off < len)
			off += snprintf(buf + off, len - off, "-%d", hi);
	}
}

void pmu__format_names(const struct pmu *pmu, char *buf, size_t len)
{
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < pmu->nformats && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? ", " : "", pmu->formats[i].name);
}
