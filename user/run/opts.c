// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/lib/unctrl.h"
#include "kernel/lib/util.h"
#include "user/run/opts.h"

#define OPTS_MAX      256
#define OPT_COLUMNS   2
#define OPTS_KEY_BASE 0x100 /* a long-only option's argp key: OPTS_KEY_BASE + its index */

bool opts__parse_u64(const char *s, __u64 *v)
{
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && !*end;
}

bool opts__parse_seconds(const char *s, double *v, char **end)
{
	if (!s || !*s || *s == '-' || *s == '+')
		return false;
	errno = 0;
	*v = strtod(s, end);
	return !errno && *end != s && *v > 0 && *v < 1e9;
}

/* Visits a group and its sub-groups, in their order. */
static void opts__walk(const struct opt_group *g, void (*fn)(const struct opt_group *g, void *ctx),
		       void *ctx)
{
	const struct opt_group *const *sub;

	fn(g, ctx);
	for (sub = g->subs; sub && *sub; sub++)
		opts__walk(*sub, fn, ctx);
}

static void opts__groups(const struct opt_group *const *groups,
			 void (*fn)(const struct opt_group *g, void *ctx), void *ctx)
{
	for (; *groups; groups++)
		opts__walk(*groups, fn, ctx);
}

struct each {
	void (*fn)(const struct opt_found *f, void *ctx);
	void *ctx;
};

static void each_group(const struct opt_group *g, void *ctx)
{
	const struct each *e = ctx;
	const struct opt *o;

	for (o = g->opts; o && (o->name || o->key || o->doc); o++)
		if (o->name || o->key)
			e->fn(&(struct opt_found){ o, 0 }, e->ctx);
}

void opts__each(const struct opt_group *const *groups,
		void (*fn)(const struct opt_found *f, void *ctx), void *ctx)
{
	opts__groups(groups, each_group, &(struct each){ fn, ctx });
}

/*
 * What argp parses: its options in the order of the groups (argp lists the
 * options of one group number in that order where their names tie), and
 * for each, the option and its group's base.
 */
static struct opts_table {
	struct argp argp;
	struct argp_option options[OPTS_MAX + 1];
	struct opt_found found[OPTS_MAX];	  /* by the index of the option in options */
	const struct opt_group *groups[OPTS_MAX]; /* every group, in order */
	size_t bases[OPTS_MAX];
	int n, ngroups;
	const struct opt_place *places;
	const struct opt_home *unplaced; /* a group's home the tool did not place */
} table;

/* what a group's title stands for among the options: a header */
static const struct opt title;

static void table_add(const struct opt_group *g, void *ctx)
{
	struct opts_table *t = ctx;
	const struct opt_place *p = t->places;
	const struct opt *o;
	size_t base = 0;

	while (g->home && p && p->home && p->home != g->home)
		p++;
	if (g->home && (!p || !p->home))
		t->unplaced = g->home;
	else if (g->home)
		base = p->at;

	if (t->ngroups < OPTS_MAX) {
		t->groups[t->ngroups] = g;
		t->bases[t->ngroups++] = base;
	}
	if (g->title && t->n < OPTS_MAX) {
		t->options[t->n] = (struct argp_option){ .doc = g->title, .group = g->group };
		t->found[t->n++] = (struct opt_found){ &title, base };
	}
	for (o = g->opts; o && (o->name || o->key || o->doc) && t->n < OPTS_MAX; o++) {
		bool header = !o->name && !o->key;

		t->options[t->n] = (struct argp_option){
			.name = o->name,
			/* a short option is its letter; a long one a number of its own */
			.key = header	? 0
			       : o->key ? o->key
					: OPTS_KEY_BASE + t->n,
			.arg = o->arg,
			.flags = o->flags,
			.doc = o->doc,
			.group = g->group,
		};
		t->found[t->n++] = (struct opt_found){ o, base };
	}
}

static const struct opt_found *table_find(int key)
{
	int i;

	for (i = 0; i < table.n; i++)
		if (table.options[i].key == key &&
		    (table.found[i].opt->name || table.found[i].opt->key))
			return &table.found[i];
	return NULL;
}

/* Where an option's value goes: its field, and a bool made true when it is given. */
struct opt_field {
	size_t at;
	size_t size;
	size_t set; /* offsetof + 1; 0: none */
};

/* column 0: the field of every kind; column 1: OPT_KEYS's second */
static struct opt_field opt__to(const struct opt *o, int column)
{
	return column ? (struct opt_field){ o->at2, o->size2, 0 }
		      : (struct opt_field){ o->at, o->size, o->set };
}

static void *field(void *input, const struct opt_found *f, const struct opt_field *to)
{
	return (char *)input + f->base + to->at;
}

/* Stores v into a field of to->size bytes (a bool, an enum, an int, a __u32, a __u64). */
static void store(void *input, const struct opt_found *f, const struct opt_field *to, __u64 v)
{
	void *p = field(input, f, to);

	switch (to->size) {
	case 1: {
		__u8 b = (__u8)v;

		memcpy(p, &b, 1);
		break;
	}
	case 2: {
		__u16 h = (__u16)v;

		memcpy(p, &h, 2);
		break;
	}
	case 4: {
		__u32 w = (__u32)v;

		memcpy(p, &w, 4);
		break;
	}
	case 8:
		memcpy(p, &v, 8);
		break;
	}
}

static void given(void *input, const struct opt_found *f, const struct opt_field *to)
{
	if (to->set)
		*(bool *)((char *)input + f->base + to->set - 1) = true;
}

/* The words an option takes, as its error lists them: "a, b or c" (column: -1 for all). */
static void list_words(const struct opt_word *w, int column, char *buf, size_t len)
{
	const struct opt_word *last = NULL, *p;
	size_t n = 0;

	buf[0] = '\0';
	for (p = w; p->word; p++)
		if (!p->alias && (column < 0 || p->column == column))
			last = p;
	for (p = w; p->word && n < len; p++) {
		if (p->alias || (column >= 0 && p->column != column))
			continue;
		n += (size_t)snprintf(buf + n, len - n, "%s%s",
				      n ? (p == last ? " or " : ", ") : "", p->word);
	}
}

static const struct opt_word *find_word(const struct opt_word *w, const char *s)
{
	for (; w->word; w++)
		if (!strcmp(w->word, s))
			return w;
	return NULL;
}

/* KEY[,KEY]: a key per column; what it expects when a key is not one or a column is given twice. */
static int parse_keys(void *input, const struct opt_found *f, const char *arg, struct err *err)
{
	const struct opt *o = f->opt;
	char *words, *w, *save = NULL, list[256], expect[512] = "";
	struct opt_field cols[OPT_COLUMNS] = { opt__to(o, 0), opt__to(o, 1) };
	bool taken[OPT_COLUMNS] = {}, any = false;
	const struct opt_word *k;
	int c, ncolumns = 0;
	size_t n = 0;

	for (c = 0; c < OPT_COLUMNS; c++) {
		if (!cols[c].size)
			continue;
		ncolumns++;
		store(input, f, &cols[c], 0);
		if (cols[c].set)
			*(bool *)((char *)input + f->base + cols[c].set - 1) = false;
	}
	words = strdup(arg);
	if (!words)
		return err__set(err, -ENOMEM, "out of memory");
	for (w = strtok_r(words, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		k = find_word(o->words, w);
		if (!k || k->column < 0 || k->column >= OPT_COLUMNS || taken[k->column]) {
			any = false;
			break;
		}
		taken[k->column] = any = true;
		store(input, f, &cols[k->column], (__u64)k->value);
		given(input, f, &cols[k->column]);
	}
	free(words);
	if (any)
		return 0;
	for (c = 0; c < OPT_COLUMNS && n < sizeof(expect); c++) {
		if (!cols[c].size)
			continue;
		list_words(o->words, c, list, sizeof(list));
		n += (size_t)snprintf(expect + n, sizeof(expect) - n, "%s%s",
				      n ? ", and or instead " : "", list);
	}
	return err__set(err, -EINVAL, "--%s '%s': expected %s%s", o->name, arg, expect,
			ncolumns > 1 ? " (one of each)" : "");
}

static int parse_one(void *input, const struct opt_found *f, const char *arg, struct err *err)
{
	const struct opt *o = f->opt;
	struct opt_field to = opt__to(o, 0);
	const struct opt_word *w;
	char list[256], *end;
	__u64 v, max;
	double d;

	switch (o->kind) {
	case OPT_FLAG:
		if (to.size)
			store(input, f, &to, 1);
		break;
	case OPT_COUNT:
		(*(int *)field(input, f, &to))++;
		break;
	case OPT_TEXT:
		if (arg && !*arg && o->what)
			return err__set(err, -EINVAL, "--%s: empty %s", o->name, o->what);
		memcpy(field(input, f, &to), &arg, sizeof(arg));
		break;
	case OPT_NUMBER:
		max = o->max ? o->max : to.size >= 8 ? ~0ull : (1ull << (8 * to.size)) - 1;
		if (!opts__parse_u64(arg, &v) || v < o->min || v > max) {
			char what[256];

			snprintf(what, sizeof(what), o->what, (unsigned long long)max);
			return err__set(err, -EINVAL, "--%s '%s' is not %s", o->name, arg, what);
		}
		store(input, f, &to, v);
		break;
	case OPT_SECONDS:
		if (!opts__parse_seconds(arg, &d, &end) || *end)
			return err__set(err, -EINVAL, "--%s '%s' is not %s", o->name, arg, o->what);
		if (d < o->least)
			return err__set(err, -EINVAL, "--%s '%s': %s", o->name, arg, o->too_small);
		memcpy(field(input, f, &to), &d, sizeof(d));
		break;
	case OPT_WORD:
		w = find_word(o->words, arg);
		if (!w) {
			list_words(o->words, -1, list, sizeof(list));
			return err__set(err, -EINVAL, "--%s '%s': expected %s", o->name, arg, list);
		}
		store(input, f, &to, (__u64)w->value);
		break;
	case OPT_KEYS:
		return parse_keys(input, f, arg, err);
	case OPT_PARSE: {
		int e = o->parse((char *)input + f->base, arg, err);

		if (e)
			return e;
		break;
	}
	}
	given(input, f, &to);
	return 0;
}

/*
 * argp's error stream: each message arrives in one write (an unbuffered
 * stream's printf writes once), "tool: sentence\n"; what the sentence
 * quotes of the user's input may hold a newline or another control
 * character, escaped here as err__report escapes them, so that an error
 * stays one line.  argp's "Try `tool --help' ..." hint that follows holds
 * no input of the user's, and is written as argp wrapped it.
 */
static ssize_t escaped_write(void *cookie, const char *buf, size_t len)
{
	size_t body = len && buf[len - 1] == '\n' ? len - 1 : len;
	char *s = strndup(buf, body);

	(void)cookie;
	/* argp's own hint names only the tool and wraps at its line width */
	if (!s || (len > 5 && !strncmp(buf, "Try `", 5))) {
		free(s);
		return fwrite(buf, 1, len, stderr) == len ? (ssize_t)len : -1;
	}
	unctrl__fputs(stderr, s);
	if (body < len)
		fputc('\n', stderr);
	free(s);
	return (ssize_t)len;
}

static FILE *escaped_stderr(void)
{
	static FILE *f;

	if (!f) {
		f = fopencookie(NULL, "w", (cookie_io_functions_t){ .write = escaped_write });
		if (f)
			setvbuf(f, NULL, _IONBF, 0);
	}
	return f ? f : stderr;
}

/* The groups' checks, last group first (as argp ends its groups), each check once. */
static int check_all(void *input, struct err *err)
{
	int i, j, e;

	for (i = table.ngroups - 1; i >= 0; i--) {
		const struct opt_group *g = table.groups[i];

		if (!g->check)
			continue;
		for (j = table.ngroups - 1; j > i && table.groups[j]->check != g->check; j--)
			;
		if (j > i)
			continue;
		e = g->check((char *)input + table.bases[i], err);
		if (e)
			return e;
	}
	return 0;
}

static int take_arg(void *input, struct argp_state *state, const char *arg, struct err *err)
{
	int i;

	for (i = 0; i < table.ngroups; i++)
		if (table.groups[i]->arg)
			return table.groups[i]->arg((char *)input + table.bases[i], state, arg,
						    err);
	return ARGP_ERR_UNKNOWN;
}

static error_t opts__parser(int key, char *arg, struct argp_state *state)
{
	const struct opt_found *f;
	struct err err = {};
	int e;

	switch (key) {
	case ARGP_KEY_INIT:
		state->err_stream = escaped_stderr();
		return 0;
	case ARGP_KEY_ARG:
		e = take_arg(state->input, state, arg, &err);
		break;
	case ARGP_KEY_END:
		e = check_all(state->input, &err);
		break;
	default:
		f = table_find(key);
		if (!f)
			return ARGP_ERR_UNKNOWN;
		e = parse_one(state->input, f, arg, &err);
		break;
	}
	if (e == ARGP_ERR_UNKNOWN || !e)
		return e;
	/* bad input: the sentence and argp's hint, exit 2; the system's failure: exit 1 */
	if (e == -EINVAL || e == -ERANGE)
		argp_error(state, "%s", err.msg);
	else
		argp_failure(state, ERR_EXIT_SYSTEM, 0, "%s", err.msg[0] ? err.msg : strerror(-e));
	return EINVAL;
}

char *opts__help_filter(int key, const char *text, void *input)
{
	const struct opt_found *f = key ? table_find(key) : NULL;

	if (!f || !f->opt->help || !text)
		return (char *)text;
	return f->opt->help(text, input ? (char *)input + f->base : NULL);
}

const struct argp *opts__argp(const struct opt_group *const *groups, const struct opt_place *places,
			      const char *args_doc, const char *doc,
			      const struct argp_child *children)
{
	memset(&table, 0, sizeof(table));
	table.places = places;
	opts__groups(groups, table_add, &table);
	if (table.unplaced) {
		fprintf(stderr, "%s has no place in the tool's arguments (a bug)\n",
			table.unplaced->name);
		return NULL;
	}
	table.options[table.n] = (struct argp_option){};
	table.argp = (struct argp){
		.options = table.options,
		.parser = opts__parser,
		.args_doc = args_doc,
		.doc = doc,
		.children = children,
		.help_filter = opts__help_filter,
	};
	return &table.argp;
}
