// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <stdio.h>
#include <string.h>

#include "user/report/escape.h"
#include "user/report/openmetrics.h"

void om_labels__init(struct om_labels *l)
{
	l->text[0] = '\0';
	l->len = 0;
}

static void om_labels__append(struct om_labels *l, const char *name, const char *value)
{
	size_t room = sizeof(l->text) - l->len;
	int n;

	n = snprintf(l->text + l->len, room, "%s%s=\"%s\"", l->len ? "," : "", name, value);
	if (n > 0)
		l->len += (size_t)n < room ? (size_t)n : room - 1;
}

void om_labels__add(struct om_labels *l, const char *name, const char *value, size_t cut)
{
	char escaped[OM_LABELS_MAX];

	if (cut > sizeof(escaped))
		cut = sizeof(escaped);
	label_value(escaped, cut, value ? value : "");
	om_labels__append(l, name, escaped);
}

void om_labels__add_u64(struct om_labels *l, const char *name, __u64 v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	om_labels__append(l, name, buf);
}

void om_labels__add_int(struct om_labels *l, const char *name, int v)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%d", v);
	om_labels__append(l, name, buf);
}

void om__family(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP %s %s\n", name, help);
	if (type)
		fprintf(out, "# TYPE %s %s\n", name, type);
}

void om__unit(FILE *out, const char *name, const char *unit)
{
	fprintf(out, "# UNIT %s %s\n", name, unit);
}

void om__counter(FILE *out, enum om_dialect d, const char *family, const char *help)
{
	const char *suffix = d == OM_PROMETHEUS ? "_total" : "";

	fprintf(out, "# HELP %s%s %s\n", family, suffix, help);
	fprintf(out, "# TYPE %s%s counter\n", family, suffix);
}

static void om__sample_name(FILE *out, const char *name, const struct om_labels *l)
{
	if (l && l->len)
		fprintf(out, "%s{%s} ", name, l->text);
	else
		fprintf(out, "%s ", name);
}

void om__sample_u64(FILE *out, const char *name, const struct om_labels *l, __u64 v)
{
	om__sample_name(out, name, l);
	fprintf(out, "%llu\n", (unsigned long long)v);
}

void om__sample_fixed(FILE *out, const char *name, const struct om_labels *l, double v,
		      int decimals)
{
	om__sample_name(out, name, l);
	fprintf(out, "%.*f\n", decimals, v);
}

void om__sample_exact(FILE *out, const char *name, const struct om_labels *l, double v)
{
	om__sample_name(out, name, l);
	fprintf(out, "%.17g\n", v);
}

void om__eof(FILE *out)
{
	fputs("# EOF\n", out);
}

void om__end(FILE *out, enum om_dialect d)
{
	if (d == OM_OPENMETRICS)
		om__eof(out);
}
