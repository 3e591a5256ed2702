// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include "user/report/typedata.h"

void typedata__json(struct json *j, const struct datatype *d, const char *label)
{
	bool typed = d->why == DATATYPE_TYPED;
	char buf[512];

	if (!label) {
		datatype__label(d, buf, sizeof(buf));
		label = buf;
	}
	json__string(j, "label", label);
	if (typed)
		json__string(j, "type", d->type);
	else
		json__null(j, "type");
	if (typed && d->member)
		json__string(j, "member", d->member);
	else
		json__null(j, "member");
	if (typed && d->offset_known)
		json__i64(j, "offset", d->offset);
	else
		json__null(j, "offset");
	if (typed)
		json__null(j, "untyped");
	else
		json__string(j, "untyped", datatype__why_str(d->why));
}

void typedata__text(FILE *f, const __u64 *why, __u64 total)
{
	const char *sep = "; untyped: ";
	int w;

	fprintf(f, "typed: %llu of %llu samples (%.1f%%)", (unsigned long long)why[DATATYPE_TYPED],
		(unsigned long long)total,
		total ? 100.0 * (double)why[DATATYPE_TYPED] / (double)total : 0.0);
	for (w = 1; w < DATATYPE_NWHY; w++) {
		if (!why[w])
			continue;
		fprintf(f, "%s%llu %s", sep, (unsigned long long)why[w], datatype__why_str(w));
		sep = ", ";
	}
	fputc('\n', f);
}

void typedata__why_json(struct json *j, const __u64 *why)
{
	int w;

	json__u64(j, "typed_samples", why[DATATYPE_TYPED]);
	json__object_begin(j, "untyped_samples");
	for (w = 1; w < DATATYPE_NWHY; w++)
		if (why[w])
			json__u64(j, datatype__why_str(w), why[w]);
	json__object_end(j);
}
