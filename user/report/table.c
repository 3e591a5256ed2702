// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "user/report/table.h"
#include "kernel/lib/unctrl.h"

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
	char small[512], *text = small;
	va_list ap;
	int n;
	size_t len;

	if (r->col >= r->t->ncol)
		return;
	c = &r->t->col[r->col++];
	row__separate(r, c);
	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		small[0] = '\0';
	/* a longer cell whole; with no memory for it, what fitted */
	if (n >= (int)sizeof(small) && (text = malloc((size_t)n + 1))) {
		va_start(ap, fmt);
		vsnprintf(text, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	if (!text)
		text = small;
	/* a cell may quote a name a process chose: its control characters escaped */
	len = unctrl__len(text);
	if (c->align == TABLE_RIGHT && len < (size_t)c->width) {
		spaces(r->out, c->width - (int)len);
		r->at += c->width - (int)len;
	}
	unctrl__fputs(r->out, text);
	r->at += (int)len;
	if (c->align == TABLE_LEFT && len < (size_t)c->width)
		r->owed = c->width - (int)len;
	if (text != small)
		free(text);
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
