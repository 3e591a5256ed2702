/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * typedata.h - the data types of samples (user/symbols/datatype.h) as the
 * reports show them, one way for every tool (ldlat-top --by type and
 * --annotate, ldlat-c2c's Pareto entries): a typed answer's members in
 * JSON, and the samples typed and untyped by reason in text and JSON.
 */
#ifndef LDLAT_TYPEDATA_H
#define LDLAT_TYPEDATA_H

#include <stdio.h>
#include <linux/types.h>

#include "user/report/json.h"
#include "user/symbols/datatype.h"

/*
 * d's "label" (label when not NULL, else datatype__label's), "type",
 * "member", "offset" (into the type) and "untyped" (the reason, or null)
 * as members of the object being written.
 */
void typedata__json(struct json *j, const struct datatype *d, const char *label);

/* "typed: 180 of 392 samples (45.9%); untyped: 200 kernel code, 12 no debug info\n": why[0] is typed. */
void typedata__text(FILE *f, const __u64 *why, __u64 total);

/* "typed_samples" and "untyped_samples" ({reason: samples}, the reasons with samples). */
void typedata__why_json(struct json *j, const __u64 *why);

#endif
