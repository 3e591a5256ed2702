// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/abi/cpufreq.h"
#include "kernel/abi/sysfs.h"

int cpufreq__nominal_khz(__u64 *khz, char *why, size_t len)
{
	char buf[8192], *line, *at, *end;
	double ghz;

	if (sysfs__read("devices/system/cpu/cpu0/cpufreq/base_frequency", buf, sizeof(buf)) > 0) {
		*khz = strtoull(buf, &end, 10);
		if (*khz && !*end) {
			snprintf(why, len, "cpufreq base_frequency");
			return 0;
		}
	}
	/* /proc/cpuinfo is longer than buf on big machines: cpu0's lines come first */
	if (procfs__read("cpuinfo", buf, sizeof(buf)) < 0)
		return -ENOENT;
	line = strstr(buf, "model name");
	if (!line)
		return -ENOENT;
	end = strchr(line, '\n');
	if (end)
		*end = '\0';
	at = strstr(line, "@ ");
	if (!at)
		return -ENOENT;
	ghz = strtod(at + 2, &end);
	if (ghz <= 0 || ghz > 20 || strncmp(end, "GHz", 3))
		return -ENOENT;
	*khz = (__u64)(ghz * 1e6 + 0.5);
	snprintf(why, len, "the model name's %.2fGHz", ghz);
	return 0;
}
