// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "user/report/snapshot.h"

int snapshot__init(struct snapshot *s, __u32 nranges)
{
	memset(s, 0, sizeof(*s));
	s->nranges = nranges ? nranges : 1;
	s->cells = calloc((size_t)s->nranges * LDLAT_NCLASS, sizeof(*s->cells));
	return s->cells ? 0 : -ENOMEM;
}

void snapshot__free(struct snapshot *s)
{
	free(s->cells);
	s->cells = NULL;
}

void snapshot__copy(struct snapshot *dst, const struct snapshot *src)
{
	struct cell *cells = dst->cells;

	memcpy(cells, src->cells, (size_t)src->nranges * LDLAT_NCLASS * sizeof(*cells));
	*dst = *src;
	dst->cells = cells;
}

void snapshot__clear(struct snapshot *s)
{
	__u32 nranges = s->nranges;
	struct cell *cells = s->cells;

	memset(cells, 0, (size_t)nranges * LDLAT_NCLASS * sizeof(*cells));
	memset(s, 0, sizeof(*s));
	s->nranges = nranges;
	s->cells = cells;
}

void snapshot__delta(struct snapshot *out, const struct snapshot *cur, const struct snapshot *prev)
{
	size_t i, n = (size_t)cur->nranges * LDLAT_NCLASS, k;
	const __u64 *a = (const __u64 *)&cur->counters, *b = (const __u64 *)&prev->counters;
	__u64 *o = (__u64 *)&out->counters;

	for (k = 0; k < sizeof(cur->counters) / sizeof(__u64); k++)
		o[k] = a[k] - b[k];
	out->recursion_misses = cur->recursion_misses - prev->recursion_misses;
	for (i = 0; i < n; i++) {
		for (k = 0; k < LDLAT_NBUCKETS; k++)
			out->cells[i].slot[k] = cur->cells[i].slot[k] - prev->cells[i].slot[k];
		out->cells[i].sum = cur->cells[i].sum - prev->cells[i].sum;
		out->cells[i].count = cur->cells[i].count - prev->cells[i].count;
	}
	out->nranges = cur->nranges;
	out->taken = cur->taken;
	out->since = prev->taken;
}

enum ldlat_verdict snapshot__account_class(struct snapshot *s, const struct ldlat_config *cfg,
					   const struct ldlat_sample *smp, __u32 *cls)
{
	__u32 range = 0;
	enum ldlat_verdict v;
	struct cell *c;

	*cls = 0;
	v = ldlat_judge(cfg, smp, &range, cls);
	s->counters.seen++;
	(&s->counters.kept)[v]++;
	if (v != LDLAT_KEPT)
		return v;
	c = &s->cells[ldlat_hist_index(range, *cls)];
	c->slot[ldlat_bucket(smp->lat, cfg->linear_step)]++;
	c->count++;
	c->sum += smp->lat;
	return v;
}

void snapshot__account(struct snapshot *s, const struct ldlat_config *cfg,
		       const struct ldlat_sample *smp)
{
	__u32 cls;

	snapshot__account_class(s, cfg, smp, &cls);
}

void cell__add(struct cell *acc, const struct cell *c)
{
	int k;

	for (k = 0; k < LDLAT_NBUCKETS; k++)
		acc->slot[k] += c->slot[k];
	acc->sum += c->sum;
	acc->count += c->count;
}

const char *counters__key(enum ldlat_verdict v)
{
	static const char *const keys[LDLAT_NVERDICTS] = {
		[LDLAT_KEPT] = "kept",
		[LDLAT_DROP_MISSING] = "fields_missing",
		[LDLAT_DROP_TGID] = "tgid_filtered",
		[LDLAT_DROP_OP] = "op_filtered",
		[LDLAT_DROP_NO_ADDR] = "no_address",
		[LDLAT_DROP_NO_RANGE] = "outside_ranges",
		[LDLAT_DROP_BELOW_MIN] = "below_min",
		[LDLAT_DROP_ABOVE_MAX] = "above_max",
		[LDLAT_DROP_CLASS] = "class_filtered",
	};

	return (unsigned int)v < LDLAT_NVERDICTS ? keys[v] : "?";
}

double cell__percentile(const struct cell *c, double p, __u32 linear_step)
{
	return cell__percentile_floor(c, p, linear_step, NULL);
}

double cell__percentile_floor(const struct cell *c, double p, __u32 linear_step, bool *at_least)
{
	double rank, lo, hi, below = 0;
	int k;

	if (at_least)
		*at_least = false;
	if (!c->count)
		return 0;
	/* the rank of the wanted sample, 1-based: p50 of 2 samples is the 1st */
	rank = ceil(p / 100.0 * (double)c->count);
	if (rank < 1)
		rank = 1;
	for (k = 0; k < LDLAT_NBUCKETS; k++) {
		if (!c->slot[k] || below + (double)c->slot[k] < rank) {
			below += (double)c->slot[k];
			continue;
		}
		lo = (double)ldlat_bucket_lo(k, linear_step);
		hi = (double)ldlat_bucket_hi(k, linear_step);
		if (ldlat_bucket_hi(k, linear_step) == ~0ull) {
			if (at_least)
				*at_least = true;
			return lo; /* open-ended: the bound is all that is known */
		}
		/* spread the bucket's samples evenly over [lo, hi + 1) */
		return lo + (hi + 1 - lo) * (rank - below - 0.5) / (double)c->slot[k];
	}
	return (double)ldlat_bucket_lo(LDLAT_NBUCKETS - 1, linear_step);
}
