/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * flamegraph.h - call paths drawn as a flame graph: one self-contained SVG
 * file (no external script, style or font), callers at the bottom, each
 * frame as wide as its weight (samples or latency sum), coloured by the data
 * source of most of its samples (a legend says which colour is which; frames
 * of samples without a data source get flamegraph.pl's warm colours by name).
 * Its script searches frames by regular expression (the matched share is
 * shown) and zooms into a frame on a click, as flamegraph.pl's does.  The
 * root frame "all" carries the total, which is the kept samples of the
 * report when weighed by samples (the samples not attributed are a frame
 * of their own).
 */
#ifndef LDLAT_FLAMEGRAPH_H
#define LDLAT_FLAMEGRAPH_H

#include <stdbool.h>
#include <stdio.h>

#include "user/report/render.h"
#include "user/top/callpath.h"

struct flamegraph {
	const struct callpaths *paths;
	enum callpath_weight weight;
	bool has_latency;
	const struct run_info *run; /* the title's event and target (NULL: none) */
	__u64 kept;		    /* the report's kept samples, in the subtitle */
};

void flamegraph__render(FILE *out, const struct flamegraph *g);

#endif
