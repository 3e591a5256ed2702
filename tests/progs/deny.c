// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ldlat-deny - runs a command under a seccomp filter that answers EPERM to
 * perf_event_open, as a security policy would (an LSM, a container
 * runtime's profile): the process keeps its capabilities, and the kernel
 * refuses anyway.  With --attach, perf_event_open passes and what attaches a
 * BPF program to a perf event is refused instead: bpf(BPF_LINK_CREATE)
 * (Linux 5.15) and ioctl(PERF_EVENT_IOC_SET_BPF) (before it, or where
 * libbpf finds no perf link), with EINVAL, the kernel's own answer to a
 * program it will not attach, and the errno whose fault only the tool's
 * mark tells (unmarked, it reads as bad input).
 *
 *   ldlat-deny [--attach] COMMAND [ARGS...]
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/perf_event.h>
#include <linux/seccomp.h>

#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#else
#error "ldlat-deny: add this architecture's AUDIT_ARCH"
#endif

/* The low half of a syscall's argument (little-endian: the first word). */
#define ARG_LO(n) (offsetof(struct seccomp_data, args) + (n) * sizeof(__u64))

#define DENY(e) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((e)&SECCOMP_RET_DATA))
#define ALLOW	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

int main(int argc, char **argv)
{
	struct sock_filter open_filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0),
		ALLOW,
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 0, 1),
		DENY(EPERM),
		ALLOW,
	};
	struct sock_filter attach_filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0),
		ALLOW,
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_bpf, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(0)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, BPF_LINK_CREATE, 0, 5),
		DENY(EINVAL),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_ioctl, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(1)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PERF_EVENT_IOC_SET_BPF, 0, 1),
		DENY(EINVAL),
		ALLOW,
	};
	struct sock_fprog prog = { .len = sizeof(open_filter) / sizeof(open_filter[0]),
				   .filter = open_filter };
	int cmd = 1;

	if (argc > 1 && !strcmp(argv[1], "--attach")) {
		prog = (struct sock_fprog){ .len = sizeof(attach_filter) / sizeof(attach_filter[0]),
					    .filter = attach_filter };
		cmd = 2;
	}
	if (argc <= cmd) {
		fprintf(stderr, "usage: ldlat-deny [--attach] COMMAND [ARGS...]\n");
		return 2;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		fprintf(stderr, "ldlat-deny: cannot install the seccomp filter: %s\n",
			strerror(errno));
		return 1;
	}
	execvp(argv[cmd], argv + cmd);
	fprintf(stderr, "ldlat-deny: %s: %s\n", argv[cmd], strerror(errno));
	return 127;
}
