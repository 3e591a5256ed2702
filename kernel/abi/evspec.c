// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/abi/evnames.h"
#include "kernel/abi/evspec.h"
#include "kernel/abi/pfm.h"

/* ---- parsing ------------------------------------------------------------ */

struct parser {
	const char *text;
	const char *p;
	struct err *err;
};

static int parser__fail(struct parser *ps, const char *what)
{
	if (*ps->p)
		err__msg(ps->err, "%s at '%s' (column %d of '%s')", what, ps->p,
			 (int)(ps->p - ps->text) + 1, ps->text);
	else
		err__msg(ps->err, "%s at the end of '%s'", what, ps->text);
	return -EINVAL;
}

static bool is_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

/* Copies the name at ps->p into buf; false when there is none or it is too long. */
static bool parser__name(struct parser *ps, char *buf, size_t len)
{
	size_t n = 0;

	while (is_name_char(ps->p[n]))
		n++;
	if (!n || n >= len)
		return false;
	memcpy(buf, ps->p, n);
	buf[n] = '\0';
	ps->p += n;
	return true;
}

static int parser__mods(struct parser *ps, struct evspec_mods *m)
{
	for (; *ps->p && *ps->p != ',' && *ps->p != '}'; ps->p++) {
		switch (*ps->p) {
		case 'u':
			m->user = true;
			break;
		case 'k':
			m->kernel = true;
			break;
		case 'h':
			m->hv = true;
			break;
		case 'G':
			m->guest = true;
			break;
		case 'H':
			m->host = true;
			break;
		case 'I':
			m->no_idle = true;
			break;
		case 'D':
			m->pinned = true;
			break;
		case 'P':
			m->precise_max = true;
			break;
		case 'p':
			if (++m->precise > 3)
				return parser__fail(
					ps, "more than three 'p' (precise levels are 0 to 3)");
			break;
		default:
			return parser__fail(
				ps, "unknown modifier (u, k, h, G, H, I, D, p, pp, ppp, P)");
		}
	}
	return 0;
}

static int parser__terms(struct parser *ps, struct evspec_event *e)
{
	struct evspec_term *t;
	size_t n;

	while (*ps->p != '/') {
		if (e->nterms == EVSPEC_MAX_TERMS)
			return parser__fail(ps, "too many terms");
		t = &e->terms[e->nterms];
		memset(t, 0, sizeof(*t));
		if (!parser__name(ps, t->name, sizeof(t->name)))
			return parser__fail(ps, *ps->p ? "expected a term (name or name=value)"
						       : "missing the closing '/'");
		if (*ps->p == '=') {
			ps->p++;
			for (n = 0; ps->p[n] && ps->p[n] != ',' && ps->p[n] != '/'; n++)
				if (!is_name_char(ps->p[n]))
					break;
			if (!n || n >= sizeof(t->value))
				return parser__fail(ps, "expected a value after '='");
			memcpy(t->value, ps->p, n);
			t->value[n] = '\0';
			t->has_value = true;
			ps->p += n;
		}
		e->nterms++;
		if (*ps->p == ',' && ps->p[1] == '/') {
			ps->p++;
			return parser__fail(ps, "expected a term after ','");
		}
		if (*ps->p == ',')
			ps->p++;
		else if (*ps->p != '/')
			return parser__fail(ps, *ps->p ? "expected ',' or '/' after a term"
						       : "missing the closing '/'");
	}
	ps->p++;
	return 0;
}

static bool all_hex(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isxdigit((unsigned char)*s))
			return false;
	return true;
}

/*
 * Not one of perf's names: a vendor name for libpfm4 ("MEM_INST_RETIRED:
 * ALL_LOADS"), the whole of it up to the next event, umasks and libpfm4's
 * own modifiers included.
 */
static int parser__vendor_event(struct parser *ps, const char *start, const char *name,
				struct evspec_event *e)
{
	size_t n = strcspn(start, ",}");
	struct pfm_encoding enc;
	char token[EVSPEC_TEXT_MAX];
	struct err why = {};
	int err;

	if (n >= sizeof(token)) {
		ps->p = start;
		return parser__fail(ps, "event name too long");
	}
	memcpy(token, start, n);
	token[n] = '\0';
	err = pfm__encode(token, &enc, &why);
	if (err == -ENOENT) {
		ps->p = start;
		err__msg(ps->err,
			 "unknown event '%s' in '%s' (write a PMU's event as pmu/term=value,.../, "
			 "e.g. cpu/event=0xcd,umask=0x1/, or a raw one as rHEX): not one of perf's "
			 "names, and %s",
			 strchr(token, ':') ? token : name, ps->text, why.msg);
		return -EINVAL;
	}
	if (err) {
		ps->p = start;
		return err__set(ps->err, -EINVAL, "%s", why.msg);
	}
	e->kind = EVSPEC_PFM;
	snprintf(e->text, sizeof(e->text), "%s", token);
	ps->p = start + n;
	return 0;
}

static int parser__event(struct parser *ps, struct evspec_event *e)
{
	const char *start = ps->p;
	struct perf_event_attr attr;
	char name[PMU_NAME_MAX], canon[64];
	int err;

	memset(e, 0, sizeof(*e));
	if (!parser__name(ps, name, sizeof(name)))
		return parser__fail(ps, "expected an event (pmu/terms/, rHEX or a name)");
	if (*ps->p == '/') {
		e->kind = EVSPEC_PMU;
		snprintf(e->pmu, sizeof(e->pmu), "%s", name);
		ps->p++;
		err = parser__terms(ps, e);
	} else if (name[0] == 'r' && all_hex(name + 1) && strlen(name) <= 17) {
		e->kind = EVSPEC_RAW;
		e->type = PERF_TYPE_RAW;
		e->config = strtoull(name + 1, NULL, 16);
		err = 0;
	} else {
		err = evname__lookup(name, &attr, canon, sizeof(canon), ps->err);
		if (err == -ENOENT)
			return parser__vendor_event(ps, start, name, e);
		if (err) {
			ps->p = start;
			return err;
		}
		e->kind = EVSPEC_LEGACY;
		e->type = attr.type;
		e->config = attr.config;
	}
	if (err)
		return err;
	if (*ps->p == ':')
		ps->p++;
	err = parser__mods(ps, &e->mods);
	if (err)
		return err;
	snprintf(e->text, sizeof(e->text), "%.*s", (int)(ps->p - start), start);
	return 0;
}

static void mods__merge(struct evspec_mods *dst, const struct evspec_mods *src)
{
	dst->user |= src->user;
	dst->kernel |= src->kernel;
	dst->hv |= src->hv;
	dst->guest |= src->guest;
	dst->host |= src->host;
	dst->no_idle |= src->no_idle;
	dst->pinned |= src->pinned;
	dst->precise_max |= src->precise_max;
	if (src->precise > dst->precise)
		dst->precise = src->precise;
}

static int evspec__append(struct evspec *spec, struct parser *ps)
{
	struct evspec_event *tmp = realloc(spec->ev, (spec->nevents + 1) * sizeof(*tmp));

	if (!tmp)
		return -ENOMEM;
	spec->ev = tmp;
	return parser__event(ps, &spec->ev[spec->nevents]);
}

int evspec__parse(struct evspec *spec, const char *text, struct err *err)
{
	struct parser ps = { .text = text, .p = text, .err = err };
	struct evspec_mods gmods;
	int e = 0, first, i;

	memset(spec, 0, sizeof(*spec));
	if (!*text)
		return err__set(err, -EINVAL, "empty event spec");
	while (!e) {
		if (*ps.p == '{') {
			ps.p++;
			first = spec->nevents;
			do {
				if (*ps.p == '{') {
					e = parser__fail(&ps, "groups do not nest");
					break;
				}
				e = evspec__append(spec, &ps);
				if (e)
					break;
				spec->ev[spec->nevents].leader = first;
				spec->nevents++;
			} while (*ps.p == ',' && ps.p++);
			if (e)
				break;
			if (*ps.p != '}') {
				e = parser__fail(&ps, "expected ',' or '}' in a group");
				break;
			}
			ps.p++;
			memset(&gmods, 0, sizeof(gmods));
			if (*ps.p == ':') {
				ps.p++;
				e = parser__mods(&ps, &gmods);
				if (e)
					break;
			}
			for (i = first; i < spec->nevents; i++)
				mods__merge(&spec->ev[i].mods, &gmods);
		} else {
			e = evspec__append(spec, &ps);
			if (e)
				break;
			spec->ev[spec->nevents].leader = spec->nevents;
			spec->nevents++;
		}
		if (*ps.p == '\0')
			break;
		if (*ps.p != ',' || !ps.p[1]) {
			e = parser__fail(&ps, "expected ',' between events");
			break;
		}
		ps.p++;
	}
	if (e)
		evspec__free(spec);
	return e;
}

void evspec__free(struct evspec *spec)
{
	free(spec->ev);
	spec->ev = NULL;
	spec->nevents = 0;
}

int evspec__group_size(const struct evspec *spec, int i)
{
	int n = 0, j;

	for (j = 0; j < spec->nevents; j++)
		n += spec->ev[j].leader == spec->ev[i].leader;
	return n;
}

const struct evspec_term *evspec_event__term(const struct evspec_event *e, const char *name)
{
	int i;

	for (i = 0; i < e->nterms; i++)
		if (!strcmp(e->terms[i].name, name))
			return &e->terms[i];
	return NULL;
}

/* ---- encoding ----------------------------------------------------------- */

struct encoder {
	const struct evspec_event *e;
	struct evspec_attr *out;
	struct err *err;
};

static int encoder__number(struct encoder *en, const char *term, const char *value, __u64 *v)
{
	char *end;

	errno = 0;
	*v = strtoull(value, &end, 0);
	if (errno || end == value || *end || *value == '-')
		return err__set(en->err, -EINVAL, "value '%s' of term '%s' in '%s' is not a number",
				value, term, en->e->text);
	return 0;
}

/* perf's own terms. Returns 1 when term is not one of them. */
static int encoder__builtin(struct encoder *en, const char *term, const char *value)
{
	struct perf_event_attr *a = &en->out->attr;
	__u64 v = 1;
	int e;

	if (!strcmp(term, "name")) {
		snprintf(en->out->name, sizeof(en->out->name), "%s", value ? value : "");
		return 0;
	}
	if (strcmp(term, "config") && strcmp(term, "config1") && strcmp(term, "config2") &&
	    strcmp(term, "config3") && strcmp(term, "period") && strcmp(term, "freq"))
		return 1;
	if (!value)
		return err__set(en->err, -EINVAL, "term '%s' in '%s' needs a value (%s=N)", term,
				en->e->text, term);
	e = encoder__number(en, term, value, &v);
	if (e)
		return e;
	if (!strcmp(term, "config")) {
		a->config = v;
	} else if (!strcmp(term, "config1")) {
		a->config1 = v;
	} else if (!strcmp(term, "config2")) {
		a->config2 = v;
	} else if (!strcmp(term, "config3")) {
		/* config3 (Linux 6.3) is past the end of this build's perf_event_attr */
		return err__set(en->err, -EINVAL,
				"term 'config3' in '%s' is not supported by this build",
				en->e->text);

	} else if (!strcmp(term, "period")) {
		a->freq = 0;
		a->sample_period = v;
		en->out->rate_set = true;
	} else {
		a->freq = 1;
		a->sample_freq = v;
		en->out->rate_set = true;
	}
	return 0;
}

static int encoder__format(struct encoder *en, const struct pmu_format *f, const char *term,
			   const char *value)
{
	int bits = __builtin_popcountll(f->mask);
	char spec[128];
	__u64 v = 1;
	int e = value ? encoder__number(en, term, value, &v) : 0;

	if (e)
		return e;
	e = pmu_format__encode(f, v, &en->out->attr);
	if (e == -ERANGE) {
		pmu_format__snprint(f, spec, sizeof(spec));
		err__msg(en->err,
			 "value 0x%llx of term '%s' in '%s' is wider than its field (%s/format/%s "
			 "is %s: at most 0x%llx)",
			 (unsigned long long)v, term, en->e->text, en->out->pmu.name, term, spec,
			 bits == 64 ? ~0ull : (1ull << bits) - 1);
		return -ERANGE;
	}
	if (e)
		return err__set(en->err, -EINVAL,
				"term '%s' in '%s' sets config3, which this build cannot", term,
				en->e->text);
	return 0;
}

/* One term: perf's own, a format field, or (bare) an alias to expand. */
static int encoder__term(struct encoder *en, const char *term, const char *value, bool in_alias)
{
	const struct pmu *pmu = &en->out->pmu;
	const struct pmu_format *f;
	char names[1024];
	int e = encoder__builtin(en, term, value);

	if (e <= 0)
		return e;
	f = pmu__format(pmu, term);
	if (f)
		return encoder__format(en, f, term, value);
	if (!value && !in_alias && pmu__alias(pmu, term))
		return 0; /* expanded before the terms */
	pmu__format_names(pmu, names, sizeof(names));
	if (in_alias)
		err__msg(en->err, "%s/events/%s sets the term '%s', which %s/format does not have",
			 pmu->name, term, term, pmu->name);
	else
		err__msg(en->err,
			 "unknown term '%s' in '%s' (%s's terms: %s; its events are in "
			 "bus/event_source/devices/%s/events)",
			 term, en->e->text, pmu->name, names[0] ? names : "none", pmu->name);
	return -EINVAL;
}

/* The terms of an event alias ("event=0xcd,umask=0x1,ldlat=3"). */
static int encoder__alias(struct encoder *en, const char *terms)
{
	char *copy = strdup(terms), *tok, *save = NULL, *eq;
	int e = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !e; tok = strtok_r(NULL, ",", &save)) {
		while (isspace((unsigned char)*tok))
			tok++;
		eq = strchr(tok, '=');
		if (eq)
			*eq++ = '\0';
		e = encoder__term(en, tok, eq, true);
	}
	free(copy);
	return e;
}

static int encoder__pmu_terms(struct encoder *en)
{
	const struct evspec_event *ev = en->e;
	const char *alias;
	int i, e = 0;

	/* aliases first: the terms written next to one override it */
	for (i = 0; i < ev->nterms && !e; i++) {
		if (ev->terms[i].has_value || pmu__format(&en->out->pmu, ev->terms[i].name))
			continue;
		alias = pmu__alias(&en->out->pmu, ev->terms[i].name);
		if (alias)
			e = encoder__alias(en, alias);
	}
	for (i = 0; i < ev->nterms && !e; i++)
		e = encoder__term(en, ev->terms[i].name,
				  ev->terms[i].has_value ? ev->terms[i].value : NULL, false);
	return e;
}

static void encoder__mods(struct encoder *en, char *notice, size_t noticelen)
{
	const struct evspec_mods *m = &en->e->mods;
	struct perf_event_attr *a = &en->out->attr;
	int max = en->out->has_pmu ? en->out->pmu.max_precise : -1;

	if (m->user || m->kernel || m->hv) {
		a->exclude_user = !m->user;
		a->exclude_kernel = !m->kernel;
		a->exclude_hv = !m->hv;
	}
	a->exclude_host = m->guest && !m->host;
	a->exclude_guest = m->host && !m->guest;
	a->exclude_idle = m->no_idle;
	a->pinned = m->pinned;
	if (m->precise_max) {
		a->precise_ip = max > 0 ? (max > 3 ? 3 : max) : 0;
		return;
	}
	a->precise_ip = m->precise;
	if (max >= 0 && m->precise > max) {
		a->precise_ip = max;
		snprintf(
			notice, noticelen,
			"%s: precise level %d lowered to %d, the most %s offers (caps/max_precise)",
			en->e->text, m->precise, max, en->out->pmu.name);
	}
}

/* libpfm4's encoding; its modifiers were part of the name. */
static int encoder__vendor(struct encoder *en)
{
	struct perf_event_attr *a = &en->out->attr;
	struct pfm_encoding enc;
	int r = pfm__encode(en->e->text, &enc, en->err);

	if (r)
		return r == -ENOENT ? -EINVAL : r;
	a->type = enc.type;
	a->config = enc.config;
	a->config1 = enc.config1;
	a->config2 = enc.config2;
	a->exclude_user = enc.exclude_user;
	a->exclude_kernel = enc.exclude_kernel;
	a->exclude_hv = enc.exclude_hv;
	snprintf(en->out->pfm, sizeof(en->out->pfm), "%s", enc.fqname);
	if (enc.type == PERF_TYPE_RAW)
		en->out->has_pmu = !pmu__load_by_type(&en->out->pmu, PERF_TYPE_RAW);
	snprintf(en->out->name, sizeof(en->out->name), "%s", en->e->text);
	return 0;
}

int evspec__encode(const struct evspec_event *e, struct evspec_attr *out, char *notice,
		   size_t noticelen, struct err *err)
{
	struct encoder en = { .e = e, .out = out, .err = err };
	char pmus[1024];
	int r;

	memset(out, 0, sizeof(*out));
	if (noticelen)
		notice[0] = '\0';
	out->attr.size = sizeof(out->attr);
	switch (e->kind) {
	case EVSPEC_PMU:
		r = pmu__load(&out->pmu, e->pmu);
		if (r == -ENOENT) {
			pmu__list_snprint(pmus, sizeof(pmus));
			return err__set(err, -EINVAL, "unknown PMU '%s' in '%s' (PMUs here: %s)",
					e->pmu, e->text, pmus);
		}
		if (r) {
			err__msg(err, "cannot read PMU '%s' from sysfs: %s", e->pmu, strerror(-r));
			return r;
		}
		out->has_pmu = true;
		out->attr.type = out->pmu.type;
		r = encoder__pmu_terms(&en);
		if (r)
			return r;
		break;
	case EVSPEC_RAW:
	case EVSPEC_LEGACY:
		out->attr.type = e->type;
		out->attr.config = e->config;
		/* the core PMU (type PERF_TYPE_RAW) takes raw and generic hardware events */
		if (e->type != PERF_TYPE_SOFTWARE)
			out->has_pmu = !pmu__load_by_type(&out->pmu, PERF_TYPE_RAW);
		break;
	case EVSPEC_PFM:
		return encoder__vendor(&en);
	}
	encoder__mods(&en, notice, noticelen);
	if (!out->name[0])
		snprintf(out->name, sizeof(out->name), "%s", e->text);
	return 0;
}

void evspec_attr__free(struct evspec_attr *a)
{
	if (a->has_pmu)
		pmu__free(&a->pmu);
	a->has_pmu = false;
}

/* Whether the comma-separated list of terms sets name. */
static bool terms_have(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p = list;

	while (p && *p) {
		if (!strncmp(p, name, n) && (p[n] == '=' || p[n] == ',' || !p[n]))
			return true;
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return false;
}

void evspec__format(const struct evspec_event *e, const char *extra_terms,
		    const struct perf_event_attr *attr, char *buf, size_t len)
{
	const struct evspec_mods *m = &e->mods;
	size_t off = 0;
	int i, n = 0;

#define OUT(...)                                                                                   \
	do {                                                                                       \
		if (off < len)                                                                     \
			off += snprintf(buf + off, len - off, __VA_ARGS__);                        \
	} while (0)
	if (len)
		buf[0] = '\0';
	if (e->kind == EVSPEC_PFM) {
		OUT("%s", e->text); /* libpfm4's modifiers are in the name */
		return;
	}
	if (e->kind == EVSPEC_PMU) {
		OUT("%s/", e->pmu);
		for (i = 0; i < e->nterms; i++) {
			if (extra_terms && terms_have(extra_terms, e->terms[i].name))
				continue;
			OUT("%s%s%s%s", n++ ? "," : "", e->terms[i].name,
			    e->terms[i].has_value ? "=" : "", e->terms[i].value);
		}
		if (extra_terms && *extra_terms)
			OUT("%s%s", n ? "," : "", extra_terms);
		OUT("/");
	} else {
		/* the name as written, without its modifiers */
		OUT("%.*s", (int)strcspn(e->text, ":"), e->text);
		if (m->user || m->kernel || m->hv || m->guest || m->host || m->no_idle ||
		    m->pinned || attr->precise_ip)
			OUT(":");
	}
	OUT("%.*s%s%s%s%s%s%s%s", (int)attr->precise_ip, "ppp", m->user ? "u" : "",
	    m->kernel ? "k" : "", m->hv ? "h" : "", m->guest ? "G" : "", m->host ? "H" : "",
	    m->no_idle ? "I" : "", m->pinned ? "D" : "");
#undef OUT
}
