/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * json.h - a small JSON writer: objects, arrays, strings (escaped by
 * escape.h's json_string), numbers, booleans and null, with the commas
 * placed for the caller.  One document a
 * line when the caller ends it with json__end_line (JSON Lines for
 * interval output).
 */
#ifndef LDLAT_JSON_H
#define LDLAT_JSON_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

#define JSON_MAX_DEPTH 16

struct json {
	FILE *out;
	int depth;
	bool first[JSON_MAX_DEPTH]; /* no member written yet at this depth */
};

void json__init(struct json *j, FILE *out);

/* key is the member name inside an object, NULL inside an array or at the top. */
void json__object_begin(struct json *j, const char *key);
void json__object_end(struct json *j);
void json__array_begin(struct json *j, const char *key);
void json__array_end(struct json *j);
void json__string(struct json *j, const char *key, const char *v);
void json__u64(struct json *j, const char *key, __u64 v);
void json__i64(struct json *j, const char *key, __s64 v);
void json__double(struct json *j, const char *key, double v); /* not finite: null */
/* v to the last bit ("%.17g": a reader gets back the same double); not finite: null */
void json__double_exact(struct json *j, const char *key, double v);
/* v with a fixed number of decimals ("%.3f": times, means); not finite: null */
void json__fixed(struct json *j, const char *key, double v, int decimals);
void json__bool(struct json *j, const char *key, bool v);
void json__null(struct json *j, const char *key);

/* Ends the document with a newline. */
void json__end_line(struct json *j);

#endif
