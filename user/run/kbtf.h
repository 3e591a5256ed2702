/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * kbtf.h - the running kernel's BTF (/sys/kernel/btf/vmlinux) read and
 * walked in place for the few types session__probe asks about: libbpf
 * parses all of it again when it loads the program (and libbpf 1.1 takes
 * no BTF from its caller), and a parse of its own is a tenth of ldlat-top's
 * start.  Anything it does not know (a kind past libbpf 1.1's, a header
 * it cannot read) and it declines: the caller asks libbpf then.
 */
#ifndef LDLAT_KBTF_H
#define LDLAT_KBTF_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/btf.h>
#include <linux/types.h>

struct kbtf {
	char *data; /* the file */
	size_t size;
	bool mapped; /* data is the file mapped (Linux 6.16), not a copy */
	const char *types, *strs;
	__u32 types_len, strs_len;
};

/*
 * Maps or reads path (NULL: /sys/kernel/btf/vmlinux): 0, or -errno
 * (-EINVAL: not BTF it walks).
 */
int kbtf__open(struct kbtf *b, const char *path);
void kbtf__close(struct kbtf *b);

/*
 * The first type of that kind and name, as btf__find_by_name_kind finds
 * it (its ID in *id when id is not NULL), or NULL.
 */
const struct btf_type *kbtf__find(const struct kbtf *b, const char *name, int kind, __s32 *id);

/* The name at offset off of the string section ("" past its end). */
const char *kbtf__name(const struct kbtf *b, __u32 off);

#endif
