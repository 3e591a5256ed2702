/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * session_top.h - moving ldlat-top's tables out of the kernel.  The BPF
 * program keys every entry with a generation; user space moves the
 * generation on, waits until no program can still be writing the old one,
 * and moves the old generation's entries (summed over CPUs) into a
 * struct top_table, deleting them: the kernel's tables only need room for
 * the keys of one drain period, and no sample is counted twice or lost.
 */
#ifndef LDLAT_SESSION_TOP_H
#define LDLAT_SESSION_TOP_H

#include <stdbool.h>

#include "user/run/session.h"
#include "user/top/toptable.h"

/*
 * Moves the tables' entries into ip and data (either may be NULL when that
 * table is off), with the samples not attributed since the last drain.
 * With all, every entry whatever its generation (the events must be
 * disabled: nothing writes any more); otherwise the generation moves on
 * first.  Returns 0 or -errno.
 */
int session__top_drain(struct session *s, bool all, struct top_table *ip, struct top_table *data);

#endif
