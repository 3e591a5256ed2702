/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * csv.h - the one writer of fields between separators, a line per row, as
 * perf stat -x SEP writes them: the fields as they are, the separator
 * between them, no quoting (perf's readers split at the separator).  A
 * field's control characters are escaped (kernel/lib/unctrl.h), so that a
 * name cannot add a line; a field that holds the separator itself has it
 * written as \xNN, so that it cannot add a field.
 */
#ifndef LDLAT_CSV_H
#define LDLAT_CSV_H

#include <stdbool.h>
#include <stdio.h>

struct csv_row {
	FILE *out;
	const char *sep; /* between fields: "," unless given */
	int fields;	 /* written so far */
};

void csv__row_begin(struct csv_row *r, FILE *out, const char *sep);

/* The next field, printf-formatted. */
void csv__field(struct csv_row *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * The next field, a number as perf prints a metric in CSV: formatted with
 * fmt, then only its digits and points kept ("  7.60%" is "7.60").
 */
void csv__metric(struct csv_row *r, const char *fmt, double v);

/* Ends the row: a newline. */
void csv__row_end(struct csv_row *r);

#endif
