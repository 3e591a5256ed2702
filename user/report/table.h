/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * table.h - the one writer of text tables, for every tool: a table is a
 * list of columns declared once (header, width, alignment, the separator
 * before each), and its header row and its rows are printed from that one
 * declaration, so that they cannot disagree.
 *
 * A cell narrower than its column is padded, on the left when the column is
 * right-aligned and on the right when it is left-aligned; a wider one is
 * printed whole and pushes the rest of its row to the right, as printf's
 * "%10s" and "%-10s" do.  The padding after a row's last cell is never
 * printed: no line ends in spaces a column's width put there.  A cell's
 * control characters are escaped (kernel/lib/unctrl.h), and its width is
 * that of the escaped text: a name a process chose can neither break a row
 * nor reach the terminal raw.
 */
#ifndef LDLAT_TABLE_H
#define LDLAT_TABLE_H

#include <stdio.h>

enum table_align {
	TABLE_RIGHT, /* numbers: "%10s" */
	TABLE_LEFT,  /* names: "%-10s" */
};

struct table_column {
	const char *header; /* NULL: an empty header cell */
	int width;	    /* the least it takes; 0: as wide as its cell (a last column) */
	enum table_align align;
	const char *sep; /* printed before the cell ("  "); NULL: nothing (a first column) */
	/*
	 * > 0: the cell starts at this byte of the line, padded with spaces,
	 * or after sep when the line is already past it (a note set apart at
	 * the end of rows whose middle varies in width)
	 */
	int stop;
};

struct table {
	const struct table_column *col;
	int ncol;
};

/* A row being written, cell by cell, left to right. */
struct table_row {
	FILE *out;
	const struct table *t;
	int col;  /* the next cell's column */
	int at;	  /* bytes on the line so far */
	int owed; /* padding the last cell asked for: printed only if another cell follows */
};

/* Every column's header, as a row. */
void table__header(FILE *out, const struct table *t);

/*
 * A row: table__row_begin, a cell for each of the first columns (at most
 * t->ncol; a row may stop early), table__row_end for the newline.
 */
void table__row_begin(struct table_row *r, FILE *out, const struct table *t);
__attribute__((format(printf, 2, 3))) void table__cell(struct table_row *r, const char *fmt, ...);
void table__row_end(struct table_row *r);

#endif
