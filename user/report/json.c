// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <math.h>
#include <string.h>

#include "user/report/escape.h"
#include "user/report/json.h"

void json__init(struct json *j, FILE *out)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
	j->first[0] = true;
}

/* The comma and the key before a value. */
static void json__member(struct json *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->out);
	j->first[j->depth] = false;
	if (key) {
		json_string(j->out, key);
		fputc(':', j->out);
	}
}

static void json__open(struct json *j, const char *key, char c)
{
	json__member(j, key);
	fputc(c, j->out);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->first[j->depth] = true;
}

static void json__close(struct json *j, char c)
{
	fputc(c, j->out);
	if (j->depth > 0)
		j->depth--;
}

void json__object_begin(struct json *j, const char *key)
{
	json__open(j, key, '{');
}

void json__object_end(struct json *j)
{
	json__close(j, '}');
}

void json__array_begin(struct json *j, const char *key)
{
	json__open(j, key, '[');
}

void json__array_end(struct json *j)
{
	json__close(j, ']');
}

void json__string(struct json *j, const char *key, const char *v)
{
	json__member(j, key);
	json_string(j->out, v ? v : "");
}

void json__u64(struct json *j, const char *key, __u64 v)
{
	json__member(j, key);
	fprintf(j->out, "%llu", (unsigned long long)v);
}

void json__i64(struct json *j, const char *key, __s64 v)
{
	json__member(j, key);
	fprintf(j->out, "%lld", (long long)v);
}

void json__double(struct json *j, const char *key, double v)
{
	json__member(j, key);
	if (isfinite(v))
		fprintf(j->out, "%.6g", v);
	else
		fputs("null", j->out);
}

void json__double_exact(struct json *j, const char *key, double v)
{
	json__member(j, key);
	if (isfinite(v))
		fprintf(j->out, "%.17g", v);
	else
		fputs("null", j->out);
}

void json__fixed(struct json *j, const char *key, double v, int decimals)
{
	json__member(j, key);
	if (isfinite(v))
		fprintf(j->out, "%.*f", decimals, v);
	else
		fputs("null", j->out);
}

void json__bool(struct json *j, const char *key, bool v)
{
	json__member(j, key);
	fputs(v ? "true" : "false", j->out);
}

void json__null(struct json *j, const char *key)
{
	json__member(j, key);
	fputs("null", j->out);
}

void json__end_line(struct json *j)
{
	fputc('\n', j->out);
	j->depth = 0;
	j->first[0] = true;
}
