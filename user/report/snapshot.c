// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "user/report/snapshot.h"

int snapshot__init(struct snapshot *s, __u32 nranges)
{
	return snapshot__init_by(s, nranges, LDLAT_BY_NONE, 1);
}

int snapshot__init_by(struct snapshot *s, __u32 nranges, __u32 by, __u32 nrows)
{
	memset(s, 0, sizeof(*s));
	s->nranges = nranges ? nranges : 1;
	s->by = by;
	s->nrows = by && nrows ? nrows : 1;
	s->cells = calloc(snapshot__ncells(s), sizeof(*s->cells));
	s->row_key = calloc(s->nrows, sizeof(*s->row_key));
	s->row_set = calloc(s->nrows, sizeof(*s->row_set));
	if (s->cells && s->row_key && s->row_set)
		return 0;
	snapshot__free(s);
	return -ENOMEM;
}

void snapshot__free(struct snapshot *s)
{
	free(s->cells);
	free(s->row_key);
	free(s->row_set);
	s->cells = NULL;
	s->row_key = NULL;
	s->row_set = NULL;
}

void snapshot__copy(struct snapshot *dst, const struct snapshot *src)
{
	struct cell *cells = dst->cells;
	__u64 *row_key = dst->row_key;
	bool *row_set = dst->row_set;

	memcpy(cells, src->cells, snapshot__ncells(src) * sizeof(*cells));
	memcpy(row_key, src->row_key, snapshot__nrows(src) * sizeof(*row_key));
	memcpy(row_set, src->row_set, snapshot__nrows(src) * sizeof(*row_set));
	*dst = *src;
	dst->cells = cells;
	dst->row_key = row_key;
	dst->row_set = row_set;
}

void snapshot__clear(struct snapshot *s)
{
	__u32 nranges = s->nranges, linear_step = s->linear_step, by = s->by, nrows = s->nrows;
	struct cell *cells = s->cells;
	__u64 *row_key = s->row_key;
	bool *row_set = s->row_set;

	memset(cells, 0, snapshot__ncells(s) * sizeof(*cells));
	memset(row_key, 0, snapshot__nrows(s) * sizeof(*row_key));
	memset(row_set, 0, snapshot__nrows(s) * sizeof(*row_set));
	memset(s, 0, sizeof(*s));
	s->nranges = nranges;
	s->linear_step = linear_step;
	s->by = by;
	s->nrows = nrows;
	s->cells = cells;
	s->row_key = row_key;
	s->row_set = row_set;
}

/*
 * The latency bounds of what cur holds and prev did not.  A new extreme is
 * exact (cur's differs from prev's, so a sample of the span set it);
 * otherwise the span's extreme is no further out than cur's, and within its
 * own outermost non-empty buckets: the tighter of the two.
 */
static void cell__delta_bounds(struct cell *out, const struct cell *cur, const struct cell *prev,
			       __u32 lin)
{
	__u32 k, lo = LDLAT_NBUCKETS, hi = 0;
	__u64 b;

	if (!cell__measured(out)) {
		out->min = out->max = 0;
		return;
	}
	out->min = cur->min;
	out->max = cur->max;
	if (!cell__measured(prev))
		return;
	for (k = 0; k < LDLAT_NBUCKETS; k++) {
		if (!out->slot[k])
			continue;
		if (lo == LDLAT_NBUCKETS)
			lo = k;
		hi = k;
	}
	if (cur->min == prev->min) {
		b = ldlat_bucket_lo(lo, lin);
		if (b > out->min)
			out->min = b;
	}
	if (cur->max == prev->max) {
		b = ldlat_bucket_hi(hi, lin);
		if (b < out->max)
			out->max = b;
	}
}

void cell__delta(struct cell *out, const struct cell *cur, const struct cell *prev,
		 __u32 linear_step)
{
	__u32 k;

	for (k = 0; k < LDLAT_NBUCKETS; k++)
		out->slot[k] = cur->slot[k] - prev->slot[k];
	out->sum = cur->sum - prev->sum;
	out->count = cur->count - prev->count;
	out->unmeasured = cur->unmeasured - prev->unmeasured;
	out->period = cur->period - prev->period;
	cell__delta_bounds(out, cur, prev, linear_step);
}

void snapshot__delta(struct snapshot *out, const struct snapshot *cur, const struct snapshot *prev)
{
	size_t i, n = snapshot__ncells(cur), k;
	const __u64 *a = (const __u64 *)&cur->counters, *b = (const __u64 *)&prev->counters;
	__u64 *o = (__u64 *)&out->counters;

	for (k = 0; k < sizeof(cur->counters) / sizeof(__u64); k++)
		o[k] = a[k] - b[k];
	out->unseen = cur->unseen;
	out->unseen.counted = cur->unseen.counted - prev->unseen.counted;
	out->unseen.seen = cur->unseen.seen - prev->unseen.seen;
	out->unseen.seen_period = cur->unseen.seen_period - prev->unseen.seen_period;
	for (i = 0; i < n; i++)
		cell__delta(&out->cells[i], &cur->cells[i], &prev->cells[i], cur->linear_step);
	out->nranges = cur->nranges;
	out->by = cur->by;
	out->nrows = cur->nrows;
	if (out != cur) {
		memcpy(out->row_key, cur->row_key, snapshot__nrows(cur) * sizeof(*out->row_key));
		memcpy(out->row_set, cur->row_set, snapshot__nrows(cur) * sizeof(*out->row_set));
	}
	out->linear_step = cur->linear_step;
	out->taken = cur->taken;
	out->since = prev->taken;
}

/* min and max of a cell with measured samples into acc's */
static void cell__merge_bounds(struct cell *acc, __u64 measured_before, __u64 min, __u64 max)
{
	if (!measured_before || min < acc->min)
		acc->min = min;
	if (!measured_before || max > acc->max)
		acc->max = max;
}

enum ldlat_verdict snapshot__account_row(struct snapshot *s, const struct ldlat_config *cfg,
					 const struct ldlat_sample *smp, __u32 *cls,
					 __u32 (*row_of)(void *ctx), void *ctx)
{
	__u32 range = 0, idx, row;
	enum ldlat_verdict v;
	struct cell *c;

	*cls = 0;
	v = ldlat_judge(cfg, smp, &range, cls);
	s->counters.seen++;
	s->counters.seen_period += smp->period;
	(&s->counters.kept)[v]++;
	if (v != LDLAT_KEPT)
		return v;
	idx = ldlat_hist_index(range, *cls);
	/* a key takes its row on its first kept sample, as ldlat_by_row does */
	if (row_of) {
		row = row_of(ctx);
		idx += ldlat_by_base(row < snapshot__nrows(s) ? row : snapshot__nrows(s) - 1,
				     s->nranges);
	}
	c = &s->cells[idx];
	s->linear_step = cfg->linear_step;
	/* ldlat_hist_account, as the program runs it (check_bpf compares the two) */
	c->count++;
	c->period += smp->period;
	if (!ldlat_lat_measured(smp)) {
		c->unmeasured++;
		return v;
	}
	cell__merge_bounds(c, cell__measured(c) - 1, smp->lat, smp->lat);
	c->slot[ldlat_bucket(smp->lat, cfg->linear_step)]++;
	c->sum += smp->lat;
	return v;
}

enum ldlat_verdict snapshot__account_class(struct snapshot *s, const struct ldlat_config *cfg,
					   const struct ldlat_sample *smp, __u32 *cls)
{
	return snapshot__account_row(s, cfg, smp, cls, NULL, NULL);
}

void snapshot__account(struct snapshot *s, const struct ldlat_config *cfg,
		       const struct ldlat_sample *smp)
{
	__u32 cls;

	snapshot__account_class(s, cfg, smp, &cls);
}

void cell__add(struct cell *acc, const struct cell *c)
{
	__u64 before = cell__measured(acc);
	int k;

	for (k = 0; k < LDLAT_NBUCKETS; k++)
		acc->slot[k] += c->slot[k];
	acc->sum += c->sum;
	acc->count += c->count;
	acc->unmeasured += c->unmeasured;
	acc->period += c->period;
	if (cell__measured(c))
		cell__merge_bounds(acc, before, c->min, c->max);
}

void cell__add_hist(struct cell *c, const struct ldlat_hist *h)
{
	__u64 before = cell__measured(c), n = 0;
	int k;

	for (k = 0; k < LDLAT_NBUCKETS; k++) {
		c->slot[k] += h->slot[k];
		n += h->slot[k];
	}
	c->count += n + h->unmeasured;
	c->unmeasured += h->unmeasured;
	c->sum += h->sum;
	c->period += h->period;
	if (n)
		cell__merge_bounds(c, before, ~h->nmin, h->max);
}

void unseen__add_count(struct unseen *u, const struct perf_event_attr *a, __u64 count)
{
	if (!a->freq && !a->sample_period)
		return; /* a counting event (a group's leader): it produces no sample */
	u->known = true;
	u->nevents++;
	if (a->freq) {
		u->freq = true;
		u->counted += count;
	} else {
		u->counted += count / a->sample_period;
	}
}

void cell__to_hist(const struct cell *c, struct ldlat_hist *h)
{
	memcpy(h->slot, c->slot, sizeof(h->slot));
	h->sum = c->sum;
	h->unmeasured = c->unmeasured;
	h->period = c->period;
	h->nmin = cell__measured(c) ? ~c->min : 0;
	h->max = cell__measured(c) ? c->max : 0;
}

__u64 unseen__samples(const struct unseen *u)
{
	double mean, left;

	if (!u->known)
		return 0;
	if (!u->freq)
		return u->counted > u->seen ? u->counted - u->seen : 0;
	if (!u->seen || u->counted <= u->seen_period)
		return 0;
	mean = (double)u->seen_period / (double)u->seen;
	left = (double)(u->counted - u->seen_period) -
	       (u->lower_bound ? 0 : (double)u->nevents * mean);
	return left > 0 ? (__u64)(left / mean) : 0;
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

/*
 * The estimate inside [l, h] (integers, l <= h) of least worst-case error:
 * for log-linear buckets the relative one, at 2lh / (l + h), whose error is
 * (h - l) / (h + l) at either end; for linear buckets the absolute one, the
 * middle.  Rounded to a cycle, as latencies are whole cycles.
 */
static double bucket_estimate(__u64 l, __u64 h, __u32 linear_step)
{
	double dl = (double)l, dh = (double)h;

	if (l == h || !l)
		return l == h ? dl : floor(dh / 2 + 0.5);
	if (linear_step)
		return floor((dl + dh) / 2 + 0.5);
	return floor(2 * dl * dh / (dl + dh) + 0.5);
}

double cell__percentile_floor(const struct cell *c, double p, __u32 linear_step, bool *at_least)
{
	__u64 n = cell__measured(c), lo, hi, below = 0;
	double rank;
	__u32 k, nb = ldlat_nbuckets(linear_step);

	if (at_least)
		*at_least = false;
	if (!n)
		return 0;
	/* the rank of the wanted sample, 1-based: p50 of 2 samples is the 1st */
	rank = ceil(p / 100.0 * (double)n);
	if (rank < 1)
		rank = 1;
	if (rank >= (double)n)
		return (double)c->max; /* the greatest: known exactly */
	if (rank == 1)
		return (double)c->min;
	for (k = 0; k < nb; k++) {
		if (!c->slot[k] || (double)(below + c->slot[k]) < rank) {
			below += c->slot[k];
			continue;
		}
		break;
	}
	if (k == nb)
		k = nb - 1;
	/* the sample of that rank is in bucket k, and in [min, max] */
	lo = ldlat_bucket_lo(k, linear_step);
	hi = ldlat_bucket_hi(k, linear_step);
	if (lo < c->min)
		lo = c->min;
	if (hi > c->max)
		hi = c->max;
	if (lo > hi) /* min and max are interval bounds that met inside the bucket */
		lo = hi;
	if (ldlat_bucket_hi(k, linear_step) == ~0ull && lo < hi) {
		if (at_least)
			*at_least = true;
		return (double)lo; /* open-ended: the bound is all that is known */
	}
	return bucket_estimate(lo, hi, linear_step);
}

void percentile__bound(__u32 linear_step, char *buf, size_t len)
{
	if (linear_step)
		snprintf(buf, len, "within %u cycles", linear_step / 2);
	else
		snprintf(buf, len, "within %s", LDLAT_REL_ERROR_TEXT);
}
