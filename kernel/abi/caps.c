// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kernel/abi/caps.h"

int caps__effective(__u64 *eff)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};

	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	*eff = (__u64)data[0].effective | ((__u64)data[1].effective << 32);
	return 0;
}

bool caps__perfmon(void)
{
	__u64 eff;

	if (caps__effective(&eff))
		return geteuid() == 0;
	return eff & ((1ull << CAP_SYS_ADMIN) | (1ull << CAP_PERFMON));
}
