// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "user/symbols/codeinfo.h"

/* One file: its debug info (opened on first use) and the answers for its addresses. */
struct ci_file {
	char *path;
	struct debuginfo di;
	int err; /* debuginfo__open's: the file is not one to read */
	void *addrs;
};

struct ci_addr {
	__u64 addr;
	bool typed, lined;
	struct datatype type;
	struct srcline line;
};

struct codeinfo {
	char *debuginfo;
	void *files;
	struct insn_decoder *dec;
	struct datatype_scratch *scratch;
	struct codeinfo_stats stats;
	struct datatype none; /* out of memory */
	struct srcline noline;
};

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + (__u64)ts.tv_nsec;
}

static int file__cmp(const void *a, const void *b)
{
	return strcmp(((const struct ci_file *)a)->path, ((const struct ci_file *)b)->path);
}

static int addr__cmp(const void *a, const void *b)
{
	__u64 x = ((const struct ci_addr *)a)->addr, y = ((const struct ci_addr *)b)->addr;

	return x < y ? -1 : x > y;
}

struct codeinfo *codeinfo__new(const char *debuginfo)
{
	struct codeinfo *ci = calloc(1, sizeof(*ci));

	if (!ci)
		return NULL;
	ci->none.why = DATATYPE_NO_FILE;
	if (debuginfo && !(ci->debuginfo = strdup(debuginfo))) {
		free(ci);
		return NULL;
	}
	return ci;
}

static void addr__free(void *p)
{
	struct ci_addr *a = p;

	datatype__clear(&a->type);
	srcline__clear(&a->line);
	free(a);
}

static void file__free(void *p)
{
	struct ci_file *f = p;

	tdestroy(f->addrs, addr__free);
	debuginfo__close(&f->di);
	free(f->path);
	free(f);
}

void codeinfo__free(struct codeinfo *ci)
{
	if (!ci)
		return;
	tdestroy(ci->files, file__free);
	datatype__scratch_free(ci->scratch);
	insn_decoder__free(ci->dec);
	free(ci->debuginfo);
	free(ci);
}

static struct ci_file *codeinfo__file(struct codeinfo *ci, const char *path)
{
	struct ci_file key = { .path = (char *)path }, *f;
	void *node = tfind(&key, &ci->files, file__cmp);
	__u64 t0;

	if (node)
		return *(struct ci_file **)node;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->path = strdup(path);
	if (!f->path || !tsearch(f, &ci->files, file__cmp)) {
		free(f->path);
		free(f);
		return NULL;
	}
	t0 = now_ns();
	f->err = debuginfo__open(&f->di, path, path, ci->debuginfo);
	ci->stats.open_ns += now_ns() - t0;
	ci->stats.files++;
	return f;
}

static struct ci_addr *file__addr(struct ci_file *f, __u64 addr)
{
	struct ci_addr key = { .addr = addr }, *a;
	void *node = tfind(&key, &f->addrs, addr__cmp);

	if (node)
		return *(struct ci_addr **)node;
	a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	a->addr = addr;
	if (!tsearch(a, &f->addrs, addr__cmp)) {
		free(a);
		return NULL;
	}
	return a;
}

const struct datatype *codeinfo__type(struct codeinfo *ci, const char *file, __u64 addr)
{
	struct ci_file *f = codeinfo__file(ci, file);
	struct ci_addr *a = f ? file__addr(f, addr) : NULL;
	__u64 t0;

	if (!a)
		return &ci->none;
	if (a->typed)
		return &a->type;
	a->typed = true;
	if (f->err) {
		a->type.why = DATATYPE_NO_FILE;
		return &a->type;
	}
	if (!ci->dec && !(ci->dec = insn_decoder__new())) {
		a->type.why = DATATYPE_NO_INSN;
		return &a->type;
	}
	t0 = now_ns();
	if (datatype__find(&f->di, ci->dec, &ci->scratch, addr, &a->type)) {
		datatype__clear(&a->type);
		a->type.why = DATATYPE_NO_DEBUG;
	}
	ci->stats.type_ns += now_ns() - t0;
	ci->stats.types++;
	return &a->type;
}

ssize_t codeinfo__layout(struct codeinfo *ci, const char *file, __u64 addr, const char *type,
			 struct datatype_member **out)
{
	struct ci_file *f = codeinfo__file(ci, file);

	*out = NULL;
	if (!f)
		return -ENOMEM;
	if (f->err)
		return -ENOENT;
	return datatype__layout(&f->di, addr, type, out);
}

const struct srcline *codeinfo__srcline(struct codeinfo *ci, const char *file, __u64 addr)
{
	struct ci_file *f = codeinfo__file(ci, file);
	struct ci_addr *a = f ? file__addr(f, addr) : NULL;
	__u64 t0;

	if (!a)
		return &ci->noline;
	if (a->lined)
		return &a->line;
	a->lined = true;
	if (f->err)
		return &a->line;
	t0 = now_ns();
	srcline__find(&f->di, addr, &a->line);
	ci->stats.srcline_ns += now_ns() - t0;
	ci->stats.srclines++;
	return &a->line;
}

ssize_t codeinfo__disasm(struct codeinfo *ci, const char *file, __u64 lo, __u64 hi,
			 struct codeinfo_insn **out)
{
	struct ci_file *f = codeinfo__file(ci, file);
	struct codeinfo_insn *v = NULL, *t;
	const unsigned char *code;
	size_t n = 0, cap = 0, len;
	__u64 a = lo;
	unsigned int k;

	*out = NULL;
	if (!f)
		return -ENOMEM;
	if (f->err)
		return f->err;
	if (!ci->dec && !(ci->dec = insn_decoder__new()))
		return -ENOMEM;
	code = debuginfo__code(&f->di, lo, &len);
	if (!code)
		return -ENOENT;
	while (a < hi && len) {
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			t = realloc(v, cap * sizeof(*v));
			if (!t) {
				free(v);
				return -ENOMEM;
			}
			v = t;
		}
		k = insn_decoder__text(ci->dec, code, len, a, v[n].text, sizeof(v[n].text));
		if (!k)
			k = 1; /* not an instruction: a byte, shown as (bad), and on */
		v[n].addr = a;
		v[n].len = k;
		n++;
		code += k;
		len = len > k ? len - k : 0;
		a += k;
	}
	*out = v;
	return (ssize_t)n;
}

void codeinfo__stats(const struct codeinfo *ci, struct codeinfo_stats *out)
{
	*out = ci->stats;
}
