// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* pprof.c - the one pprof writer (see pprof.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "kernel/lib/unctrl.h"
#include "user/report/pprof.h"
#include "user/report/profile.pb-c.h"

/*
 * One table per kind of thing, each a hash of its key's bytes to its id: the
 * strings (id: the index in the string table), mappings, functions and
 * locations (id: index + 1, as the format wants them nonzero), samples (id:
 * the index of its values).
 */
struct ptab_ent {
	__u64 hash;
	__u64 id;
	size_t klen;
	void *key; /* NULL: a free slot */
};

struct ptab {
	struct ptab_ent *e;
	size_t cap, n;
};

struct pmapping {
	__u64 start, limit, offset;
	__s64 file, build_id;
	__u64 has_functions; /* a word, not a bool: the key's bytes have no padding */
};

struct pfunction {
	__s64 name, system_name, file;
};

struct plocation {
	__u64 mapping, address, function;
};

struct plabel {
	__s64 key, str, num, unit;
};

struct psample {
	__u64 *locs;
	size_t nlocs;
	struct plabel *labels;
	size_t nlabels;
	__s64 values[PPROF_MAX_VALUES];
};

struct pprof {
	struct pprof_opts o;
	__s64 sample_type[PPROF_MAX_VALUES][2]; /* type, unit: into the strings */
	__s64 period_type[2];
	char **strings;
	size_t nstrings, cap_strings;
	struct ptab string_tab, mapping_tab, function_tab, location_tab, sample_tab;
	struct pmapping *mappings;
	size_t nmappings, cap_mappings;
	struct pfunction *functions;
	size_t nfunctions, cap_functions;
	struct plocation *locations;
	size_t nlocations, cap_locations;
	struct psample *samples;
	size_t nsamples, cap_samples;
	__s64 *comments;
	size_t ncomments, cap_comments;
};

static __u64 hash_bytes(const void *key, size_t len)
{
	const unsigned char *b = key;
	__u64 h = 0xcbf29ce484222325ull; /* FNV-1a */

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static struct ptab_ent *ptab__slot(const struct ptab *t, __u64 h, const void *key, size_t klen)
{
	for (size_t i = h & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
		struct ptab_ent *e = &t->e[i];

		if (!e->key || (e->hash == h && e->klen == klen && !memcmp(e->key, key, klen)))
			return e;
	}
}

static int ptab__grow(struct ptab *t)
{
	struct ptab n = { .cap = t->cap ? t->cap * 2 : 64, .n = t->n };

	n.e = calloc(n.cap, sizeof(*n.e));
	if (!n.e)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++)
		if (t->e[i].key)
			*ptab__slot(&n, t->e[i].hash, t->e[i].key, t->e[i].klen) = t->e[i];
	free(t->e);
	*t = n;
	return 0;
}

/* The id of key, or *found false and the slot to fill (NULL: out of memory). */
static struct ptab_ent *ptab__find(struct ptab *t, const void *key, size_t klen, bool *found)
{
	struct ptab_ent *e;
	__u64 h = hash_bytes(key, klen);

	if ((t->n + 1) * 2 > t->cap && ptab__grow(t))
		return NULL;
	e = ptab__slot(t, h, key, klen);
	*found = e->key != NULL;
	if (!*found)
		e->hash = h;
	return e;
}

/* Fills a free slot with a copy of key. */
static int ptab__fill(struct ptab *t, struct ptab_ent *e, const void *key, size_t klen, __u64 id)
{
	e->key = malloc(klen ? klen : 1);
	if (!e->key)
		return -ENOMEM;
	memcpy(e->key, key, klen);
	e->klen = klen;
	e->id = id;
	t->n++;
	return 0;
}

static void ptab__free(struct ptab *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->e[i].key);
	free(t->e);
}

/* Room for one more of an array of *cap elements of size sz. */
static int grow(void **a, size_t n, size_t *cap, size_t sz)
{
	void *p;
	size_t c;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : 16;
	p = realloc(*a, c * sz);
	if (!p)
		return -ENOMEM;
	*a = p;
	*cap = c;
	return 0;
}

#define GROW(arr, n, cap) grow((void **)&(arr), (n), &(cap), sizeof(*(arr)))

/* The index of s, escaped, in the string table; -1 when out of memory. NULL is "". */
static __s64 pprof__string(struct pprof *p, const char *s)
{
	struct ptab_ent *e;
	size_t len;
	char *esc;
	bool found;

	if (!s)
		s = "";
	len = unctrl__len(s);
	esc = malloc(len + 1);
	if (!esc)
		return -1;
	unctrl__str(esc, len + 1, s);
	e = ptab__find(&p->string_tab, esc, len, &found);
	if (!e)
		goto fail;
	if (found) {
		free(esc);
		return (__s64)e->id;
	}
	if (GROW(p->strings, p->nstrings, p->cap_strings) ||
	    ptab__fill(&p->string_tab, e, esc, len, p->nstrings))
		goto fail;
	p->strings[p->nstrings] = esc;
	return (__s64)p->nstrings++;
fail:
	free(esc);
	return -1;
}

struct pprof *pprof__new(const struct pprof_opts *o)
{
	struct pprof *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->o = *o;
	if (p->o.nsample_types > PPROF_MAX_VALUES)
		p->o.nsample_types = PPROF_MAX_VALUES;
	if (pprof__string(p, "") != 0)
		goto fail;
	for (size_t i = 0; i < p->o.nsample_types; i++) {
		p->sample_type[i][0] = pprof__string(p, o->sample_type[i].type);
		p->sample_type[i][1] = pprof__string(p, o->sample_type[i].unit);
		if (p->sample_type[i][0] < 0 || p->sample_type[i][1] < 0)
			goto fail;
	}
	if (o->period_type.type) {
		p->period_type[0] = pprof__string(p, o->period_type.type);
		p->period_type[1] = pprof__string(p, o->period_type.unit);
		if (p->period_type[0] < 0 || p->period_type[1] < 0)
			goto fail;
	}
	return p;
fail:
	pprof__free(p);
	return NULL;
}

void pprof__free(struct pprof *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nstrings; i++)
		free(p->strings[i]);
	for (size_t i = 0; i < p->nsamples; i++) {
		free(p->samples[i].locs);
		free(p->samples[i].labels);
	}
	ptab__free(&p->string_tab);
	ptab__free(&p->mapping_tab);
	ptab__free(&p->function_tab);
	ptab__free(&p->location_tab);
	ptab__free(&p->sample_tab);
	free(p->strings);
	free(p->mappings);
	free(p->functions);
	free(p->locations);
	free(p->samples);
	free(p->comments);
	free(p);
}

void pprof__set_span(struct pprof *p, __s64 time_nanos, __s64 duration_nanos)
{
	p->o.time_nanos = time_nanos;
	p->o.duration_nanos = duration_nanos;
}

int pprof__comment(struct pprof *p, const char *text)
{
	__s64 s = pprof__string(p, text);

	if (s < 0 || GROW(p->comments, p->ncomments, p->cap_comments))
		return -ENOMEM;
	p->comments[p->ncomments++] = s;
	return 0;
}

__u64 pprof__mapping(struct pprof *p, __u64 start, __u64 limit, __u64 file_offset, const char *file,
		     const char *build_id, bool has_functions)
{
	struct pmapping m = { .start = start,
			      .limit = limit,
			      .offset = file_offset,
			      .file = pprof__string(p, file),
			      .build_id = pprof__string(p, build_id),
			      .has_functions = has_functions };
	struct ptab_ent *e;
	bool found;

	if (m.file < 0 || m.build_id < 0)
		return 0;
	e = ptab__find(&p->mapping_tab, &m, sizeof(m), &found);
	if (!e)
		return 0;
	if (found)
		return e->id;
	if (GROW(p->mappings, p->nmappings, p->cap_mappings) ||
	    ptab__fill(&p->mapping_tab, e, &m, sizeof(m), p->nmappings + 1))
		return 0;
	p->mappings[p->nmappings++] = m;
	return p->nmappings;
}

__u64 pprof__function(struct pprof *p, const char *name, const char *system_name, const char *file)
{
	struct pfunction f = { .name = pprof__string(p, name),
			       .system_name = pprof__string(p, system_name ? system_name : name),
			       .file = pprof__string(p, file) };
	struct ptab_ent *e;
	bool found;

	if (f.name < 0 || f.system_name < 0 || f.file < 0)
		return 0;
	e = ptab__find(&p->function_tab, &f, sizeof(f), &found);
	if (!e)
		return 0;
	if (found)
		return e->id;
	if (GROW(p->functions, p->nfunctions, p->cap_functions) ||
	    ptab__fill(&p->function_tab, e, &f, sizeof(f), p->nfunctions + 1))
		return 0;
	p->functions[p->nfunctions++] = f;
	return p->nfunctions;
}

__u64 pprof__location(struct pprof *p, __u64 mapping, __u64 address, __u64 function)
{
	struct plocation l = { .mapping = mapping, .address = address, .function = function };
	struct ptab_ent *e;
	bool found;

	e = ptab__find(&p->location_tab, &l, sizeof(l), &found);
	if (!e)
		return 0;
	if (found)
		return e->id;
	if (GROW(p->locations, p->nlocations, p->cap_locations) ||
	    ptab__fill(&p->location_tab, e, &l, sizeof(l), p->nlocations + 1))
		return 0;
	p->locations[p->nlocations++] = l;
	return p->nlocations;
}

int pprof__sample(struct pprof *p, const __u64 *locs, size_t nlocs, const __s64 *values,
		  const struct pprof_label *labels, size_t nlabels)
{
	size_t klen = (1 + nlocs) * sizeof(__u64) + nlabels * sizeof(struct plabel);
	struct plabel *pl = NULL;
	struct ptab_ent *e;
	__u64 *key;
	struct psample *s;
	bool found;
	int err = -ENOMEM;

	key = malloc(klen);
	if (!key)
		return -ENOMEM;
	key[0] = nlocs;
	memcpy(key + 1, locs, nlocs * sizeof(__u64));
	pl = (struct plabel *)(key + 1 + nlocs);
	for (size_t i = 0; i < nlabels; i++) {
		const struct pprof_label *l = &labels[i];

		/* a string, or a number with its unit: at most one of the two, as the format says */
		pl[i] = (struct plabel){ .key = pprof__string(p, l->key) };
		if (l->str)
			pl[i].str = pprof__string(p, l->str);
		else if (l->unit)
			pl[i].unit = pprof__string(p, l->unit);
		if (!l->str)
			pl[i].num = l->num;
		if (pl[i].key < 0 || pl[i].str < 0 || pl[i].unit < 0)
			goto out;
	}
	e = ptab__find(&p->sample_tab, key, klen, &found);
	if (!e)
		goto out;
	if (found) {
		s = &p->samples[e->id];
	} else {
		if (GROW(p->samples, p->nsamples, p->cap_samples))
			goto out;
		s = &p->samples[p->nsamples];
		*s = (struct psample){ .nlocs = nlocs, .nlabels = nlabels };
		s->locs = malloc(nlocs ? nlocs * sizeof(__u64) : 1);
		s->labels = malloc(nlabels ? nlabels * sizeof(*pl) : 1);
		if (!s->locs || !s->labels ||
		    ptab__fill(&p->sample_tab, e, key, klen, p->nsamples)) {
			free(s->locs);
			free(s->labels);
			goto out;
		}
		memcpy(s->locs, locs, nlocs * sizeof(__u64));
		memcpy(s->labels, pl, nlabels * sizeof(*pl));
		p->nsamples++;
	}
	for (size_t i = 0; i < p->o.nsample_types; i++)
		s->values[i] += values[i];
	err = 0;
out:
	free(key);
	return err;
}

size_t pprof__samples(const struct pprof *p)
{
	return p->nsamples;
}

/*
 * The messages protobuf-c packs, pointing into p's arrays: built whole,
 * each array of messages with its array of pointers, freed at once.
 */
struct pmessages {
	Perftools__Profiles__Profile prof;
	Perftools__Profiles__ValueType st[PPROF_MAX_VALUES], *stp[PPROF_MAX_VALUES], period_type;
	Perftools__Profiles__Mapping *m, **mp;
	Perftools__Profiles__Function *f, **fp;
	Perftools__Profiles__Location *l, **lp;
	Perftools__Profiles__Line *line, **linep;
	Perftools__Profiles__Sample *s, **sp;
	Perftools__Profiles__Label *lab, **labp;
	int64_t *values;
};

static void pmessages__free(struct pmessages *pm)
{
	free(pm->m);
	free(pm->mp);
	free(pm->f);
	free(pm->fp);
	free(pm->l);
	free(pm->lp);
	free(pm->line);
	free(pm->linep);
	free(pm->s);
	free(pm->sp);
	free(pm->lab);
	free(pm->labp);
	free(pm->values);
}

static int pmessages__build(struct pmessages *pm, const struct pprof *p)
{
	Perftools__Profiles__Profile *prof = &pm->prof;
	size_t nlabels = 0, li = 0;

	for (size_t i = 0; i < p->nsamples; i++)
		nlabels += p->samples[i].nlabels;
	/* one more of each: calloc(0) may be NULL */
	pm->m = calloc(p->nmappings + 1, sizeof(*pm->m));
	pm->mp = calloc(p->nmappings + 1, sizeof(*pm->mp));
	pm->f = calloc(p->nfunctions + 1, sizeof(*pm->f));
	pm->fp = calloc(p->nfunctions + 1, sizeof(*pm->fp));
	pm->l = calloc(p->nlocations + 1, sizeof(*pm->l));
	pm->lp = calloc(p->nlocations + 1, sizeof(*pm->lp));
	pm->line = calloc(p->nlocations + 1, sizeof(*pm->line));
	pm->linep = calloc(p->nlocations + 1, sizeof(*pm->linep));
	pm->s = calloc(p->nsamples + 1, sizeof(*pm->s));
	pm->sp = calloc(p->nsamples + 1, sizeof(*pm->sp));
	pm->lab = calloc(nlabels + 1, sizeof(*pm->lab));
	pm->labp = calloc(nlabels + 1, sizeof(*pm->labp));
	pm->values = calloc(p->nsamples * p->o.nsample_types + 1, sizeof(*pm->values));
	if (!pm->m || !pm->mp || !pm->f || !pm->fp || !pm->l || !pm->lp || !pm->line ||
	    !pm->linep || !pm->s || !pm->sp || !pm->lab || !pm->labp || !pm->values)
		return -ENOMEM;

	perftools__profiles__profile__init(prof);
	for (size_t i = 0; i < p->o.nsample_types; i++) {
		perftools__profiles__value_type__init(&pm->st[i]);
		pm->st[i].type = p->sample_type[i][0];
		pm->st[i].unit = p->sample_type[i][1];
		pm->stp[i] = &pm->st[i];
	}
	prof->n_sample_type = p->o.nsample_types;
	prof->sample_type = pm->stp;
	if (p->o.default_sample_type < p->o.nsample_types)
		prof->default_sample_type = p->sample_type[p->o.default_sample_type][0];
	if (p->o.period_type.type) {
		perftools__profiles__value_type__init(&pm->period_type);
		pm->period_type.type = p->period_type[0];
		pm->period_type.unit = p->period_type[1];
		prof->period_type = &pm->period_type;
	}
	prof->period = p->o.period;
	prof->time_nanos = p->o.time_nanos;
	prof->duration_nanos = p->o.duration_nanos;
	prof->n_comment = p->ncomments;
	prof->comment = (int64_t *)p->comments;
	prof->n_string_table = p->nstrings;
	prof->string_table = p->strings;

	for (size_t i = 0; i < p->nmappings; i++) {
		Perftools__Profiles__Mapping *m = &pm->m[i];

		perftools__profiles__mapping__init(m);
		m->id = i + 1;
		m->memory_start = p->mappings[i].start;
		m->memory_limit = p->mappings[i].limit;
		m->file_offset = p->mappings[i].offset;
		m->filename = p->mappings[i].file;
		m->build_id = p->mappings[i].build_id;
		m->has_functions = p->mappings[i].has_functions;
		pm->mp[i] = m;
	}
	prof->n_mapping = p->nmappings;
	prof->mapping = pm->mp;

	for (size_t i = 0; i < p->nfunctions; i++) {
		Perftools__Profiles__Function *f = &pm->f[i];

		perftools__profiles__function__init(f);
		f->id = i + 1;
		f->name = p->functions[i].name;
		f->system_name = p->functions[i].system_name;
		f->filename = p->functions[i].file;
		pm->fp[i] = f;
	}
	prof->n_function = p->nfunctions;
	prof->function = pm->fp;

	for (size_t i = 0; i < p->nlocations; i++) {
		Perftools__Profiles__Location *l = &pm->l[i];

		perftools__profiles__location__init(l);
		l->id = i + 1;
		l->mapping_id = p->locations[i].mapping;
		l->address = p->locations[i].address;
		if (p->locations[i].function) {
			perftools__profiles__line__init(&pm->line[i]);
			pm->line[i].function_id = p->locations[i].function;
			pm->linep[i] = &pm->line[i];
			l->n_line = 1;
			l->line = &pm->linep[i];
		}
		pm->lp[i] = l;
	}
	prof->n_location = p->nlocations;
	prof->location = pm->lp;

	for (size_t i = 0; i < p->nsamples; i++) {
		const struct psample *ps = &p->samples[i];
		Perftools__Profiles__Sample *s = &pm->s[i];

		perftools__profiles__sample__init(s);
		s->n_location_id = ps->nlocs;
		s->location_id = (uint64_t *)ps->locs;
		s->n_value = p->o.nsample_types;
		s->value = &pm->values[i * p->o.nsample_types];
		for (size_t v = 0; v < p->o.nsample_types; v++)
			s->value[v] = ps->values[v];
		s->n_label = ps->nlabels;
		s->label = &pm->labp[li];
		for (size_t k = 0; k < ps->nlabels; k++, li++) {
			Perftools__Profiles__Label *lab = &pm->lab[li];

			perftools__profiles__label__init(lab);
			lab->key = ps->labels[k].key;
			lab->str = ps->labels[k].str;
			lab->num = ps->labels[k].num;
			lab->num_unit = ps->labels[k].unit;
			pm->labp[li] = lab;
		}
		pm->sp[i] = s;
	}
	prof->n_sample = p->nsamples;
	prof->sample = pm->sp;
	return 0;
}

/* gzip (RFC 1952) of in, as the format is stored on disk, into *out. */
static int gzip(const void *in, size_t len, void **out, size_t *outlen)
{
	z_stream z = { 0 };
	size_t cap;
	void *buf;
	int ret;

	/* windowBits 15 + 16: a gzip header and trailer around the deflate stream */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return -ENOMEM;
	cap = deflateBound(&z, len) + 32;
	buf = malloc(cap);
	if (!buf) {
		deflateEnd(&z);
		return -ENOMEM;
	}
	z.next_in = (Bytef *)in;
	z.avail_in = len;
	z.next_out = buf;
	z.avail_out = cap;
	ret = deflate(&z, Z_FINISH);
	*outlen = z.total_out;
	deflateEnd(&z);
	if (ret != Z_STREAM_END) {
		free(buf);
		return -ENOMEM;
	}
	*out = buf;
	return 0;
}

int pprof__encode(const struct pprof *p, void **buf, size_t *len)
{
	struct pmessages pm = { 0 };
	uint8_t *packed = NULL;
	size_t n;
	int err;

	err = pmessages__build(&pm, p);
	if (err)
		goto out;
	n = perftools__profiles__profile__get_packed_size(&pm.prof);
	err = -ENOMEM;
	packed = malloc(n ? n : 1);
	if (!packed)
		goto out;
	if (perftools__profiles__profile__pack(&pm.prof, packed) != n)
		goto out;
	err = gzip(packed, n, buf, len);
out:
	free(packed);
	pmessages__free(&pm);
	return err;
}

int pprof__write(const struct pprof *p, FILE *out)
{
	void *buf;
	size_t len;
	int err = pprof__encode(p, &buf, &len);

	if (err)
		return err;
	if (fwrite(buf, 1, len, out) != len)
		err = -EIO;
	free(buf);
	return err;
}
