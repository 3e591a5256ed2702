// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "user/report/csv.h"
#include "kernel/lib/unctrl.h"

void csv__row_begin(struct csv_row *r, FILE *out, const char *sep)
{
	r->out = out;
	r->sep = sep && sep[0] ? sep : ",";
	r->fields = 0;
}

/* s, escaped, with each occurrence of the separator written as \xNN */
static void csv__put(struct csv_row *r, const char *s)
{
	char esc[1024];
	size_t n = strlen(r->sep), i;
	const char *p;

	unctrl__str(esc, sizeof(esc), s);
	for (p = esc; *p;) {
		if (!strncmp(p, r->sep, n)) {
			for (i = 0; i < n; i++)
				fprintf(r->out, "\\x%02x", (unsigned char)p[i]);
			p += n;
			continue;
		}
		fputc(*p++, r->out);
	}
}

void csv__field(struct csv_row *r, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (r->fields++)
		fputs(r->sep, r->out);
	csv__put(r, buf);
}

void csv__metric(struct csv_row *r, const char *fmt, double v)
{
	char buf[64], *start, *end;

	snprintf(buf, sizeof(buf), fmt, v);
	for (start = buf; *start == ' '; start++)
		;
	for (end = start; isdigit((unsigned char)*end) || *end == '.'; end++)
		;
	*end = '\0';
	csv__field(r, "%s", start);
}

void csv__row_end(struct csv_row *r)
{
	fputc('\n', r->out);
}
