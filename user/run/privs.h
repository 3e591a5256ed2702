/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
#ifndef LDLAT_PRIVS_H
#define LDLAT_PRIVS_H

#include <stddef.h>

#include "kernel/lib/err.h"

/*
 * Whether this process may load BPF programs and open the perf events the
 * tools need: root (CAP_SYS_ADMIN), or CAP_PERFMON and CAP_BPF.  Returns 0, or
 * -EPERM, marked in err as bad input (err__input), with a sentence in err that says
 * which capability is missing and what kernel.perf_event_paranoid allows.
 */
int privs__check(struct err *err);

#endif
