/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * caps.h - this process's effective capabilities: whether a refusal of the
 * kernel is a missing privilege or a security policy's veto.
 */
#ifndef LDLAT_CAPS_H
#define LDLAT_CAPS_H

#include <stdbool.h>
#include <linux/capability.h>
#include <linux/types.h>

#ifndef CAP_PERFMON
#define CAP_PERFMON 38 /* Linux 5.8 */
#endif
#ifndef CAP_BPF
#define CAP_BPF 39 /* Linux 5.8 */
#endif

/* The effective set, one bit per capability. Returns 0 or -errno. */
int caps__effective(__u64 *eff);

/* Whether this process may open any perf event: CAP_PERFMON or CAP_SYS_ADMIN. */
bool caps__perfmon(void);

#endif
