// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "user/report/svg.h"

/* The five characters that cannot stand for themselves; control characters are not XML. */
static void svg__escape(FILE *out, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len && s[i]; i++) {
		switch (s[i]) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&apos;", out);
			break;
		default:
			fputc((unsigned char)s[i] < 0x20 ? '?' : s[i], out);
		}
	}
}

static void svg__vescape(FILE *out, const char *fmt, va_list ap)
{
	char buf[1024];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	svg__escape(out, buf, sizeof(buf));
}

void svg__document(FILE *out, int width, int height)
{
	fputs("<?xml version=\"1.0\" standalone=\"no\"?>\n", out);
	svg__open(out, "svg");
	svg__attr(out, "version", "1.1");
	svg__attr(out, "xmlns", "http://www.w3.org/2000/svg");
	svg__attr(out, "width", "%d", width);
	svg__attr(out, "height", "%d", height);
	svg__attr(out, "viewBox", "0 0 %d %d", width, height);
}

void svg__open(FILE *out, const char *tag)
{
	fprintf(out, "<%s", tag);
}

void svg__attr(FILE *out, const char *name, const char *fmt, ...)
{
	va_list ap;

	fprintf(out, " %s=\"", name);
	va_start(ap, fmt);
	svg__vescape(out, fmt, ap);
	va_end(ap);
	fputc('"', out);
}

void svg__close(FILE *out, bool empty)
{
	fputs(empty ? "/>\n" : ">", out);
}

void svg__end(FILE *out, const char *tag, bool newline)
{
	fprintf(out, "</%s>%s", tag, newline ? "\n" : "");
}

void svg__text(FILE *out, const char *s, size_t len)
{
	svg__escape(out, s, len);
}

void svg__textf(FILE *out, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	svg__vescape(out, fmt, ap);
	va_end(ap);
}

void svg__cdata(FILE *out, const char *tag, const char *type, const char *body)
{
	svg__open(out, tag);
	svg__attr(out, "type", "%s", type);
	fputs("><![CDATA[\n", out);
	fputs(body, out);
	fputs("]]>", out);
	svg__end(out, tag, true);
}
