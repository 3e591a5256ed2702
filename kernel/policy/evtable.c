// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kernel/policy/evtable.h"
#include "kernel/abi/evspec.h"
#include "kernel/abi/sysfs.h"

struct loader {
	struct evtable *t;
	int line;
	struct err *err;
	bool in_defaults, seen_defaults;
	struct evtable_entry *cur;
};

__attribute__((format(printf, 2, 3))) static int loader__fail(struct loader *l, const char *fmt,
							      ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return err__set(l->err, -EINVAL, "%s:%d: %s", l->t->path, l->line, msg);
}

static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

static bool parse_num(const char *s, __u64 *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && !*end;
}

/* "MIN-MAX" or "MIN-MAX/STEP" */
static bool parse_range(char *s, __u64 *lo, __u64 *hi, __u64 *step)
{
	char *dash = strchr(s, '-'), *slash = strchr(s, '/');

	*step = 1;
	if (!dash)
		return false;
	*dash = '\0';
	if (slash) {
		*slash = '\0';
		if (!parse_num(trim(slash + 1), step) || !*step)
			return false;
	}
	return parse_num(trim(s), lo) && parse_num(trim(dash + 1), hi) && *lo && *lo <= *hi;
}

static int loader__defaults_key(struct loader *l, const char *key, const char *val)
{
	struct evtable *t = l->t;
	__u64 v;

	if (strcmp(key, "ldlat") && strcmp(key, "freq") && strcmp(key, "period") &&
	    strcmp(key, "page-faults-period"))
		return loader__fail(l,
				    "unknown key '%s' in [defaults] (ldlat, freq, period, "
				    "page-faults-period)",
				    key);
	if (!parse_num(val, &v) || !v)
		return loader__fail(l, "%s = '%s': expected a positive number", key, val);
	if (!strcmp(key, "ldlat"))
		t->ldlat = v;
	else if (!strcmp(key, "freq"))
		t->freq = v;
	else if (!strcmp(key, "period"))
		t->period = v;
	else
		t->page_faults_period = v;
	return 0;
}

/* An event or leader spec: perf syntax, one event, no precise modifier. */
static int loader__spec(struct loader *l, const char *key, const char *val)
{
	struct evspec spec;
	struct err err = {};
	int e = evspec__parse(&spec, val, &err);

	if (e)
		return loader__fail(l, "%s: %s", key, err.msg);
	if (spec.nevents != 1)
		e = loader__fail(l, "%s = '%s': one event here (a group leader goes in 'leader =')",
				 key, val);
	else if (spec.ev[0].mods.precise || spec.ev[0].mods.precise_max)
		e = loader__fail(l, "%s = '%s': set the precise level with 'precise =', not p or P",
				 key, val);
	evspec__free(&spec);
	return e;
}

static int loader__entry_key(struct loader *l, const char *key, char *val)
{
	struct evtable_entry *en = l->cur;
	char pattern[512], msg[256];
	__u64 v;
	int e;

#define TEXT(field) snprintf(en->field, sizeof(en->field), "%s", val)
	if (!strcmp(key, "cpuid")) {
		if (en->has_cpuid)
			return loader__fail(l, "cpuid given twice in [%s]", en->name);
		TEXT(cpuid);
		snprintf(pattern, sizeof(pattern), "^(%s)(-[0-9A-F]+)?$", val);
		e = regcomp(&en->cpuid_re, pattern, REG_EXTENDED | REG_NOSUB);
		if (e) {
			regerror(e, &en->cpuid_re, msg, sizeof(msg));
			return loader__fail(l, "cpuid = '%s' is not a regular expression: %s", val,
					    msg);
		}
		en->has_cpuid = true;
	} else if (!strcmp(key, "core")) {
		if (core_type__parse(val, &en->core))
			return loader__fail(l, "core = '%s': expected core or atom", val);
	} else if (!strcmp(key, "requires")) {
		TEXT(requires);
	} else if (!strcmp(key, "event") || !strcmp(key, "leader")) {
		e = loader__spec(l, key, val);
		if (e)
			return e;
		if (key[0] == 'e') {
			TEXT(event);
			en->event_line = l->line;
		} else {
			TEXT(leader);
			en->leader_line = l->line;
		}
	} else if (!strcmp(key, "ldlat")) {
		snprintf(pattern, sizeof(pattern), "%s", val);
		if (!parse_range(pattern, &en->ldlat_min, &en->ldlat_max, &en->ldlat_step))
			return loader__fail(l,
					    "ldlat = '%s': expected MIN-MAX or MIN-MAX/STEP "
					    "cycles (e.g. 3-65535)",
					    val);
		en->has_ldlat = true;
		en->ldlat_line = l->line;
	} else if (!strcmp(key, "ldlat-default")) {
		if (strcmp(val, "off"))
			return loader__fail(l, "ldlat-default = '%s': expected off", val);
		en->ldlat_default_off = true;
	} else if (!strcmp(key, "precise")) {
		if (!parse_num(val, &v) || v > 3)
			return loader__fail(l, "precise = '%s': expected 0 to 3", val);
		en->precise = (int)v;
	} else if (!strcmp(key, "unsupported")) {
		TEXT(unsupported);
	} else if (!strcmp(key, "note")) {
		TEXT(note);
	} else if (!strcmp(key, "counters") || !strcmp(key, "fixed-counters") ||
		   !strcmp(key, "offcore-registers")) {
		if (!parse_num(val, &v) || v > 64)
			return loader__fail(l, "%s = '%s': expected a number of counters (0 to 64)",
					    key, val);
		if (key[0] == 'c')
			en->counters = (int)v;
		else if (key[0] == 'f')
			en->fixed_counters = (int)v;
		else
			en->offcore_registers = (int)v;
	} else {
		return loader__fail(l,
				    "unknown key '%s' in [%s] (cpuid, core, requires, event, "
				    "leader, ldlat, ldlat-default, precise, unsupported, note, "
				    "counters, fixed-counters, offcore-registers)",
				    key, en->name);
	}
#undef TEXT
	return 0;
}

/* An entry is complete when its section ends. */
static int loader__finish_entry(struct loader *l)
{
	struct evtable_entry *en = l->cur;
	int line = l->line;

	if (!en)
		return 0;
	l->line = en->line;
	l->cur = NULL;
	if (!en->has_cpuid && !en->requires[0])
		return loader__fail(l, "[%s] matches no CPU: give cpuid = or requires =", en->name);
	if (!en->event[0] == !en->unsupported[0])
		return loader__fail(l, "[%s] needs either event = or unsupported =", en->name);
	if (en->leader[0] && !en->event[0])
		return loader__fail(l, "[%s] has a leader but no event", en->name);
	l->line = line;
	return 0;
}

static int loader__section(struct loader *l, char *name)
{
	struct evtable_entry *tmp, *en;
	int e = loader__finish_entry(l), i;

	if (e)
		return e;
	l->in_defaults = !strcmp(name, "defaults");
	if (l->in_defaults) {
		if (l->seen_defaults)
			return loader__fail(l, "[defaults] given twice");
		l->seen_defaults = true;
		return 0;
	}
	if (!*name || strlen(name) >= sizeof(en->name))
		return loader__fail(l, "section name '%s' is empty or too long", name);
	for (i = 0; name[i]; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '-' && name[i] != '_')
			return loader__fail(l, "section name '%s': use letters, digits, - and _",
					    name);
	for (i = 0; i < l->t->nentries; i++)
		if (!strcmp(l->t->entries[i].name, name))
			return loader__fail(l, "[%s] given twice (first at line %d)", name,
					    l->t->entries[i].line);
	tmp = realloc(l->t->entries, (l->t->nentries + 1) * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	l->t->entries = tmp;
	en = &tmp[l->t->nentries++];
	memset(en, 0, sizeof(*en));
	snprintf(en->name, sizeof(en->name), "%s", name);
	en->line = l->line;
	en->precise = 0;
	en->counters = en->fixed_counters = en->offcore_registers = -1;
	l->cur = en;
	return 0;
}

static int loader__line(struct loader *l, char *s)
{
	char *eq, *key, *val, *close;

	s = trim(s);
	if (!*s || *s == '#')
		return 0;
	if (*s == '[') {
		close = strchr(s, ']');
		if (!close || close[1])
			return loader__fail(l, "a section header is [name] alone on its line");
		*close = '\0';
		return loader__section(l, trim(s + 1));
	}
	eq = strchr(s, '=');
	if (!eq)
		return loader__fail(l, "expected 'key = value', [section] or a # comment: '%s'", s);
	*eq = '\0';
	key = trim(s);
	val = trim(eq + 1);
	if (!*key || !*val)
		return loader__fail(l, "expected 'key = value' with both parts");
	if (l->in_defaults)
		return loader__defaults_key(l, key, val);
	if (!l->cur)
		return loader__fail(l, "'%s' outside a section: start with [defaults] or [name]",
				    key);
	return loader__entry_key(l, key, val);
}

static int evtable__read(struct evtable *t, const char *path, FILE *f, struct err *err);

int evtable__load(struct evtable *t, const char *path, struct err *err)
{
	FILE *f = fopen(path, "re");
	int e;

	if (!f) {
		e = -errno;
		memset(t, 0, sizeof(*t));
		err__msg(err, "cannot read %s: %s", path, strerror(-e));
		return e;
	}
	return evtable__read(t, path, f, err);
}

int evtable__load_text(struct evtable *t, const char *name, const char *text, struct err *err)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	if (!f) {
		memset(t, 0, sizeof(*t));
		return err__set(err, -ENOMEM, "out of memory reading %s", name);
	}
	return evtable__read(t, name, f, err);
}

/* Reads the table from f, named path in messages, and closes f. */
static int evtable__read(struct evtable *t, const char *path, FILE *f, struct err *err)
{
	struct loader l = { .t = t, .err = err };
	char buf[2048];
	size_t n;
	int e = 0;

	memset(t, 0, sizeof(*t));
	snprintf(t->path, sizeof(t->path), "%s", path);
	while (!e && fgets(buf, sizeof(buf), f)) {
		l.line++;
		n = strlen(buf);
		if (n == sizeof(buf) - 1 && buf[n - 1] != '\n') {
			e = loader__fail(&l, "line longer than %zu characters", sizeof(buf) - 2);
			break;
		}
		e = loader__line(&l, buf);
	}
	fclose(f);
	if (!e)
		e = loader__finish_entry(&l);
	if (!e && !l.seen_defaults)
		e = loader__fail(&l, "no [defaults] section (ldlat, freq or period, "
				     "page-faults-period)");
	if (!e && (!t->ldlat || !t->page_faults_period || !t->freq == !t->period))
		e = loader__fail(&l, "[defaults] must set ldlat, page-faults-period, and one of "
				     "freq and period");
	if (e)
		evtable__free(t);
	return e;
}

void evtable__free(struct evtable *t)
{
	int i;

	for (i = 0; i < t->nentries; i++)
		if (t->entries[i].has_cpuid)
			regfree(&t->entries[i].cpuid_re);
	free(t->entries);
	t->entries = NULL;
	t->nentries = 0;
}

bool evtable_entry__matches_id(const struct evtable_entry *e, const char *id)
{
	return !e->has_cpuid || !regexec(&e->cpuid_re, id, 0, NULL, 0);
}

/* A path under bus/event_source/devices (a glob) exists; a file there reads non-zero. */
static bool sysfs__requirement_met(const char *pattern)
{
	char path[4096], buf[64];
	struct stat st;
	glob_t g;
	bool met = false;
	size_t i;

	snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s", sysfs__root(), pattern);
	if (glob(path, 0, NULL, &g))
		return false;
	for (i = 0; i < g.gl_pathc && !met; i++) {
		if (stat(g.gl_pathv[i], &st))
			continue;
		if (S_ISDIR(st.st_mode))
			met = true;
		else
			met = file__read(g.gl_pathv[i], buf, sizeof(buf)) > 0 && strcmp(buf, "0");
	}
	globfree(&g);
	return met;
}

const struct evtable_entry *evtable__lookup(const struct evtable *t, const struct cpu_id *id,
					    enum core_type core)
{
	const struct evtable_entry *e;
	int i;

	for (i = 0; i < t->nentries; i++) {
		e = &t->entries[i];
		if (e->core != core || !evtable_entry__matches_id(e, id->id))
			continue;
		if (e->requires[0] && !sysfs__requirement_met(e->requires))
			continue;
		return e;
	}
	return NULL;
}
