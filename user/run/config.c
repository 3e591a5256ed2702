// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "user/run/config.h"

int config__check_fields(const struct cli *c, __u32 fields, __u32 linear_step, const char *lacking,
			 struct err *err)
{
	const char *opt = c->min_lat_set   ? "--min-lat"
			  : c->max_lat_set ? "--max-lat"
			  : c->class_set   ? "-s/--class"
			  : linear_step	   ? "--linear"
			  : c->op_set	   ? "--op"
					   : NULL;

	if (!opt || (fields & LDLAT_HAS_LAT))
		return 0;
	return err__set(err, -EINVAL, "%s needs latency and data source, which %s", opt, lacking);
}

void config__fill(struct ldlat_config *cfg, const struct cli *c, __u32 fields, bool weight_struct,
		  __u32 linear_step)
{
	int i;

	memset(cfg, 0, sizeof(*cfg));
	for (i = 0; i < c->ranges.nspans; i++) {
		cfg->span_lo[i] = c->ranges.span[i].lo;
		cfg->span_hi[i] = c->ranges.span[i].hi;
		cfg->span_range[i] = c->ranges.span[i].range;
	}
	cfg->nspans = c->ranges.nspans;
	cfg->nranges = c->ranges.nranges ? c->ranges.nranges : 1;
	cfg->min_lat = c->min_lat;
	cfg->max_lat = c->max_lat;
	cfg->class_mask = c->class_mask;
	cfg->op_mask = (fields & LDLAT_HAS_DSRC) ? c->op_mask : 0;
	cfg->need = fields;
	cfg->linear_step = linear_step;
	cfg->linear_shift = ldlat_linear_shift(linear_step);
	cfg->weight_struct = weight_struct;
}

__u64 config__fixed_period(const struct evlist *evlist)
{
	__u64 period = 0;
	int i;

	for (i = 0; i < evlist->nevsel; i++) {
		const struct perf_event_attr *a = &evlist->evsel[i].attr;

		if (a->freq)
			return 0;
		if (!a->sample_period)
			continue; /* a counting event (a group's leader): no sample */
		if (period && a->sample_period != period)
			return 0;
		period = a->sample_period;
	}
	return period;
}
