/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * source.h - what to sample: the load-latency event of this CPU, or page
 * faults where there is none, as evsels ready to open.
 */
#ifndef LDLAT_SOURCE_H
#define LDLAT_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "kernel/abi/evlist.h"
#include "kernel/lib/err.h"
#include "kernel/lib/notice.h"
#include "kernel/policy/source_types.h"

/*
 * Resolves opts into evsels appended to evlist.  For SOURCE_AUTO, falls back
 * to page faults.  Notices (a threshold raised to the hardware's minimum, a
 * precise level lowered, the fallback) go into notice, one per line (empty
 * when there was nothing to say).  Returns 0, or -errno with a sentence in
 * err: -ENOENT when this machine has no usable load-latency event,
 * -EINVAL/-ERANGE for bad input (an event spec, a threshold, tools.conf).
 * source__free releases src either way.
 */
int source__resolve(const struct source_opts *opts, struct source *src, struct evlist *evlist,
		    char *notice, size_t noticelen, struct err *err);
void source__free(struct source *src);

const char *source__name(enum source_kind kind);

#endif
