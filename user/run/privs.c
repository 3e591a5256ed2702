// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "user/run/privs.h"
#include "kernel/abi/caps.h"
#include "kernel/lib/err.h"
#include "kernel/abi/sysfs.h"

int privs__check(struct err *err)
{
	char buf[32];
	__u64 eff = 0;
	bool admin, perfmon, bpf;
	int paranoid = 2;

	if (caps__effective(&eff))
		eff = geteuid() == 0 ? ~0ull : 0;
	admin = eff & (1ull << CAP_SYS_ADMIN);
	perfmon = eff & (1ull << CAP_PERFMON);
	bpf = eff & (1ull << CAP_BPF);
	if (admin || (perfmon && bpf))
		return 0;
	if (file__read("/proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf)) > 0)
		paranoid = atoi(buf);
	err__msg(err,
		 "needs privilege: run as root, or grant CAP_PERFMON and CAP_BPF (this process "
		 "lacks %s). kernel.perf_event_paranoid is %d: %s",
		 !perfmon && !bpf ? "both"
		 : !perfmon	  ? "CAP_PERFMON"
				  : "CAP_BPF",
		 paranoid,
		 paranoid >= 2 ? "unprivileged users may only count their own tasks in user space, "
				 "and never load BPF programs"
		 : paranoid >= 1 ? "unprivileged users may not watch whole CPUs, and never load "
				   "BPF programs"
				 : "unprivileged users may not load BPF programs");
	/* a capability the user can grant: bad input, not a failure of the system */
	return err__input(err, -EPERM);
}
