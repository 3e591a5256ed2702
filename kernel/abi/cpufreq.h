/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * cpufreq.h - the CPU's nominal frequency, to turn core cycles into
 * approximate nanoseconds (--unit ns): cpufreq's base_frequency where the
 * driver exports it (intel_pstate, amd-pstate), else the "@ 2.40GHz" of
 * the model name in /proc/cpuinfo.  Turbo, power saving and hybrid cores run
 * other clocks, so a time from it is always approximate.
 */
#ifndef LDLAT_CPUFREQ_H
#define LDLAT_CPUFREQ_H

#include <stddef.h>
#include <linux/types.h>

/*
 * The nominal frequency in kHz, and where it came from in why ("cpufreq
 * base_frequency", "the model name's 2.40GHz").  Returns 0, or -ENOENT
 * when this machine does not say.  LDLAT_SYSFS and LDLAT_PROCFS move the
 * files (kernel/abi/sysfs.h).
 */
int cpufreq__nominal_khz(__u64 *khz, char *why, size_t len);

#endif
