// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <stdarg.h>
#include <string.h>

#include "user/report/table.h"

static void spaces(FILE *out, int n)
{
	while (n-- > 0)
		fputc(' ', out);
}

void table__row_begin(struct table_row *r, FILE *out, const struct table *t)
{
	r->out = out;
	r->t = t;
	r->col = 0;
	r->at = 0;
	r->owed = 0;
}

/* The separator before the next cell, with the padding the cell before it asked for. */
static void row__separate(struct table_row *r, const struct table_column *c)
{
	int seplen = c->sep ? (int)strlen(c->sep) : 0;

	if (c->stop > 0 && r->at + r->owed + seplen <= c->stop) {
		spaces(r->out, c->stop - r->at);
		r->at = c->stop;
	} else {
		spaces(r->out, r->owed);
		if (c->sep)
			fputs(c->sep, r->out);
		r->at += r->owed + seplen;
	}
	r->owed = 0;
}

void table__cell(struct table_row *r, const char *fmt, ...)
{
	const struct table_column *c;
	va_list ap, len_ap;
	int len;

	if (r->col >= r->t->ncol)
		return;
	c = &r->t->col[r->col++];
	row__separate(r, c);
	va_start(ap, fmt);
	va_copy(len_ap, ap);
	len = vsnprintf(NULL, 0, fmt, len_ap);
	va_end(len_ap);
	if (len < 0)
		len = 0;
	if (c->align == TABLE_RIGHT && len < c->width) {
		spaces(r->out, c->width - len);
		r->at += c->width - len;
	}
	vfprintf(r->out, fmt, ap);
	va_end(ap);
	r->at += len;
	if (c->align == TABLE_LEFT && len < c->width)
		r->owed = c->width - len;
}

void table__row_end(struct table_row *r)
{
	fputc('\n', r->out);
	r->col = 0;
	r->at = 0;
	r->owed = 0;
}

void table__header(FILE *out, const struct table *t)
{
	struct table_row r;
	int i;

	table__row_begin(&r, out, t);
	for (i = 0; i < t->ncol; i++)
		table__cell(&r, "%s", t->col[i].header ? t->col[i].header : "");
	table__row_end(&r);
}
