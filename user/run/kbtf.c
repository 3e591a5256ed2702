// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "user/run/kbtf.h"

/* The bytes after a type's struct btf_type, by kind (as libbpf 1.1's btf_type_size); -1: unknown. */
static long kbtf__extra(const struct btf_type *t)
{
	__u32 vlen = BTF_INFO_VLEN(t->info);

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_FWD:
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_PTR:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return 0;
	case BTF_KIND_INT:
		return sizeof(__u32);
	case BTF_KIND_ENUM:
		return (long)vlen * sizeof(struct btf_enum);
	case BTF_KIND_ENUM64:
		return (long)vlen * sizeof(struct btf_enum64);
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return (long)vlen * sizeof(struct btf_member);
	case BTF_KIND_FUNC_PROTO:
		return (long)vlen * sizeof(struct btf_param);
	case BTF_KIND_VAR:
		return sizeof(struct btf_var);
	case BTF_KIND_DATASEC:
		return (long)vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_DECL_TAG:
		return sizeof(struct btf_decl_tag);
	default:
		return -1;
	}
}

/* Whether every type's record ends inside the type section, and each is of a known kind. */
static bool kbtf__walkable(const struct kbtf *b)
{
	__u32 off = 0;
	long extra;

	while (off < b->types_len) {
		const struct btf_type *t = (const void *)(b->types + off);

		if (b->types_len - off < sizeof(*t) || (extra = kbtf__extra(t)) < 0 ||
		    b->types_len - off - sizeof(*t) < (unsigned long)extra)
			return false;
		off += sizeof(*t) + (__u32)extra;
	}
	return true;
}

/* The file's bytes: mapped where the kernel allows it (Linux 6.16), else read; 0 or -errno. */
static int kbtf__read(struct kbtf *b, int fd)
{
	struct stat st;
	size_t got = 0;
	ssize_t n;
	void *p;

	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(struct btf_header))
		return -EINVAL;
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p != MAP_FAILED) {
		b->data = p;
		b->size = (size_t)st.st_size;
		b->mapped = true;
		return 0;
	}
	b->data = malloc((size_t)st.st_size);
	if (!b->data)
		return -ENOMEM;
	while (got < (size_t)st.st_size &&
	       (n = read(fd, b->data + got, (size_t)st.st_size - got)) > 0)
		got += (size_t)n;
	b->size = got;
	return got == (size_t)st.st_size ? 0 : -EINVAL;
}

int kbtf__open(struct kbtf *b, const char *path)
{
	const struct btf_header *h;
	int fd, e;

	memset(b, 0, sizeof(*b));
	fd = open(path ? path : "/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	e = kbtf__read(b, fd);
	close(fd);
	if (e) {
		kbtf__close(b);
		return e;
	}
	h = (const void *)b->data;
	/* the kernel's own byte order and version 1, sections inside the file, strings ended */
	if (h->magic == BTF_MAGIC && h->version == BTF_VERSION && h->hdr_len >= sizeof(*h) &&
	    h->hdr_len <= b->size && h->type_off % 4 == 0 &&
	    (__u64)h->type_off + h->type_len <= h->str_off &&
	    (__u64)h->hdr_len + h->str_off + h->str_len <= b->size && h->str_len &&
	    !b->data[h->hdr_len + h->str_off] &&
	    !b->data[h->hdr_len + h->str_off + h->str_len - 1]) {
		b->types = b->data + h->hdr_len + h->type_off;
		b->types_len = h->type_len;
		b->strs = b->data + h->hdr_len + h->str_off;
		b->strs_len = h->str_len;
		if (kbtf__walkable(b))
			return 0;
	}
	kbtf__close(b);
	return -EINVAL;
}

void kbtf__close(struct kbtf *b)
{
	if (b->mapped)
		munmap(b->data, b->size);
	else
		free(b->data);
	memset(b, 0, sizeof(*b));
}

const char *kbtf__name(const struct kbtf *b, __u32 off)
{
	return off < b->strs_len ? b->strs + off : "";
}

const struct btf_type *kbtf__find(const struct kbtf *b, const char *name, int kind, __s32 *id)
{
	__u32 off = 0;
	__s32 i;

	for (i = 1; off < b->types_len; i++) {
		const struct btf_type *t = (const void *)(b->types + off);

		if ((int)BTF_INFO_KIND(t->info) == kind &&
		    !strcmp(kbtf__name(b, t->name_off), name)) {
			if (id)
				*id = i;
			return t;
		}
		off += sizeof(*t) + (__u32)kbtf__extra(t);
	}
	return NULL;
}
