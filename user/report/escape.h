/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * escape.h - text in the machine-readable formats, for every tool's
 * renderers: a JSON string, an OpenMetrics label value.
 */
#ifndef LDLAT_ESCAPE_H
#define LDLAT_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* s as a JSON string, quotes included. */
void json_string(FILE *out, const char *s);

/* v escaped as both OpenMetrics and Prometheus' text format want: backslash, quote, newline. */
void label_value(char *buf, size_t len, const char *v);

#endif
