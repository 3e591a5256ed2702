// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* toppprof.c - ldlat-top's call paths as a pprof profile (see toppprof.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kernel/abi/datasrc.h"
#include "kernel/lib/util.h"
#include "user/top/toppprof.h"

/* The kernel's half of the x86-64 address space: its one mapping. */
#define KERNEL_START 0xffff800000000000ull
#define KERNEL_LIMIT 0xffffffffffffffffull

int toppprof__begin(struct toppprof *t, const struct toppprof_opts *o)
{
	struct pprof_opts po = {
		.sample_type = { { "samples", "count" } },
		.nsample_types = 1,
		.period_type = { o->event ? o->event : "events", "count" },
		.period = (__s64)o->period,
		.time_nanos = (__s64)o->time_ns,
		.duration_nanos = (__s64)o->duration_ns,
	};

	memset(t, 0, sizeof(*t));
	t->o = *o;
	if (o->latency) {
		po.sample_type[1] =
			(struct pprof_value_type){ "latency",
						   o->ns_per_cycle > 0 ? "nanoseconds" : "cycles" };
		po.nsample_types = 2;
	}
	t->p = pprof__new(&po);
	return t->p ? 0 : -ENOMEM;
}

void toppprof__end(struct toppprof *t)
{
	pprof__free(t->p);
	t->p = NULL;
}

void toppprof__data_type(const struct datatype *d, char *type, size_t tlen, char *member,
			 size_t mlen, const char **untyped)
{
	type[0] = member[0] = '\0';
	*untyped = NULL;
	if (d->why != DATATYPE_TYPED || !d->type) {
		*untyped = datatype__why_str(d->why);
		return;
	}
	snprintf(type, tlen, "%s", d->type);
	/* the offset when no member is there, as datatype__label writes it ("+0x2000") */
	if (d->member)
		snprintf(member, mlen, "%s", d->member);
	else if (d->aggregate && d->offset_known)
		snprintf(member, mlen, "%s0x%llx", d->offset < 0 ? "-" : "+",
			 (unsigned long long)(d->offset < 0 ? -d->offset : d->offset));
}

/* A location for a frame that names something without an address (a loss, the process). */
static __u64 toppprof__named(struct toppprof *t, const char *name)
{
	__u64 f = pprof__function(t->p, name, NULL, NULL);

	return f ? pprof__location(t->p, 0, 0, f) : 0;
}

/* Appends a stack's locations, innermost first; one it could not take as its loss frame. */
static int toppprof__stack(struct toppprof *t, struct symbolizer *z, __u32 key,
			   const struct callpath_stack *st, bool kernel, __u64 *locs, size_t *n,
			   size_t max)
{
	struct sym sym;
	char frame[512], hex[2 * BUILDID_MAX + 1];
	__u64 map, f, l;

	if (st->err < 0) {
		l = toppprof__named(t, callpath_loss__frame(kernel ? CALLPATH_LOST_KERNEL
								   : CALLPATH_LOST_USER));
		if (!l)
			return -ENOMEM;
		if (*n < max)
			locs[(*n)++] = l;
		return 0;
	}
	for (int i = 0; i < st->n && *n < max; i++) {
		__u64 ip = callpath_stack__ip(st, i);

		callpath__frame(z, st->keys ? st->keys[i] : key, ip, kernel, &sym, frame,
				sizeof(frame));
		map = 0;
		if (kernel) {
			if (!t->kernel_map)
				t->kernel_map = pprof__mapping(t->p, KERNEL_START, KERNEL_LIMIT, 0,
							       "[kernel.kallsyms]",
							       t->o.kernel_build_id, true);
			map = t->kernel_map;
		} else if (sym.map_name) {
			const char *id = sym.build_id;

			if (!id[0] && t->o.build_id_for)
				id = t->o.build_id_for(t->o.build_id_ctx, sym.map_name, hex,
						       sizeof(hex));
			map = pprof__mapping(t->p, sym.map_start, sym.map_end, sym.map_pgoff,
					     sym.map_name, id, true);
		}
		f = pprof__function(t->p, frame, NULL, NULL);
		if ((kernel || sym.map_name) && !map)
			return -ENOMEM;
		l = f ? pprof__location(t->p, map, ip, f) : 0;
		if (!l)
			return -ENOMEM;
		locs[(*n)++] = l;
	}
	return 0;
}

/* The class label: the class's name, or several joined by '+' ("l1+local-ram"). */
static void toppprof__class(const struct ldlat_top_val *v, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (unsigned int c = 0; c < LDLAT_NCLASS; c++) {
		if (!v->cls[c])
			continue;
		at += (size_t)snprintf(buf + at, at < len ? len - at : 0, "%s%s", at ? "+" : "",
				       class__token(c));
	}
}

/* The sample of locs with v's values and the labels ctx and v give. */
static int toppprof__sample(struct toppprof *t, __u32 key, const struct toppprof_ctx *ctx,
			    const struct datatype *dt, const __u64 *locs, size_t n,
			    const struct ldlat_top_val *v)
{
	struct pprof_label l[9];
	char pid[16], cls[512], type[256], member[256];
	const char *untyped;
	__s64 values[2] = { (__s64)v->count, (__s64)v->lat_sum };
	__u32 id = ctx && ctx->pid ? ctx->pid : key; /* --input: key is the image it had then */
	size_t nl = 0;
	int e;

	if (t->o.ns_per_cycle > 0)
		values[1] = (__s64)((double)v->lat_sum * t->o.ns_per_cycle + 0.5);
	if (!ctx || !ctx->no_process) {
		snprintf(pid, sizeof(pid), "%u", id);
		l[nl++] = (struct pprof_label){ .key = "pid", .str = pid };
	}
	if (ctx && ctx->comm && *ctx->comm)
		l[nl++] = (struct pprof_label){ .key = "comm", .str = ctx->comm };
	if (t->o.classes) {
		toppprof__class(v, cls, sizeof(cls));
		if (cls[0])
			l[nl++] = (struct pprof_label){ .key = "class", .str = cls };
	}
	if (ctx && ctx->cgroup && *ctx->cgroup)
		l[nl++] = (struct pprof_label){ .key = "cgroup", .str = ctx->cgroup };
	if (ctx && ctx->lost)
		l[nl++] = (struct pprof_label){ .key = "lost", .str = ctx->lost };
	if (ctx && ctx->object && *ctx->object)
		l[nl++] = (struct pprof_label){ .key = "object", .str = ctx->object };
	if (dt) {
		toppprof__data_type(dt, type, sizeof(type), member, sizeof(member), &untyped);
		if (untyped)
			l[nl++] = (struct pprof_label){ .key = "untyped", .str = untyped };
		if (type[0])
			l[nl++] = (struct pprof_label){ .key = "type", .str = type };
		if (member[0])
			l[nl++] = (struct pprof_label){ .key = "member", .str = member };
	}
	e = pprof__sample(t->p, locs, n, values, l, nl);
	if (e && !t->err)
		t->err = e;
	return e;
}

#define TOPPPROF_MAX_FRAMES (2 * LDLAT_STACK_DEPTH + 3)

int toppprof__add(struct toppprof *t, struct symbolizer *z, __u32 key,
		  const struct toppprof_ctx *ctx, const struct callpath_stack *user,
		  const struct callpath_stack *kernel, const struct ldlat_top_val *v)
{
	__u64 locs[TOPPPROF_MAX_FRAMES], ip = ctx ? ctx->ip : 0;
	__u32 ip_key = ctx && ctx->ip_key ? ctx->ip_key : key;
	const struct datatype *dt = NULL;
	char name[32];
	size_t n = 0;
	int e;

	/*
	 * The instruction whose data the sample touched: the recorded one
	 * (--input), else the path's leaf, the sampled instruction itself
	 * (the kernel's, for a sample taken in the kernel: untyped there).
	 */
	if (!ip && kernel && kernel->err >= 0 && kernel->n > 0) {
		ip = kernel->ips[0];
		ip_key = kernel->keys ? kernel->keys[0] : key;
	} else if (!ip && user && user->err >= 0 && user->n > 0) {
		ip = user->ips[0];
		ip_key = user->keys ? user->keys[0] : key;
	}
	if (ip)
		dt = symbolizer__datatype(z, ip_key, ip);

	e = toppprof__stack(t, z, key, kernel, true, locs, &n, TOPPPROF_MAX_FRAMES - 2);
	if (!e)
		e = toppprof__stack(t, z, key, user, false, locs, &n, TOPPPROF_MAX_FRAMES - 1);
	if (!e) {
		locs[n] = toppprof__named(
			t, callpath__root(key, ctx ? ctx->comm : NULL, name, sizeof(name)));
		e = locs[n++] ? 0 : -ENOMEM;
	}
	if (!e)
		return toppprof__sample(t, key, ctx, dt, locs, n, v);
	if (!t->err)
		t->err = e;
	return e;
}

int toppprof__add_lost(struct toppprof *t, __u32 key, const struct toppprof_ctx *ctx,
		       enum callpath_loss why, const struct ldlat_top_val *v)
{
	char name[32];
	__u64 locs[2] = {
		toppprof__named(t, callpath_loss__frame(why)),
		toppprof__named(t, callpath__root(key, ctx ? ctx->comm : NULL, name, sizeof(name))),
	};

	struct toppprof_ctx lost = ctx ? *ctx : (struct toppprof_ctx){};

	if (!locs[0] || !locs[1]) {
		if (!t->err)
			t->err = -ENOMEM;
		return -ENOMEM;
	}
	lost.lost = why == CALLPATH_LOST_FULL ? "stack map full" : "stack map update failed";
	return toppprof__sample(t, key, &lost, NULL, locs, 2, v);
}

int toppprof__comments(struct toppprof *t, const char *text)
{
	char line[1024];
	const char *nl;
	size_t n;
	int e;

	for (; *text; text = nl ? nl + 1 : text + n) {
		nl = strchr(text, '\n');
		n = nl ? (size_t)(nl - text) : strlen(text);
		if (!n)
			continue;
		snprintf(line, sizeof(line), "%.*s", (int)n, text);
		e = pprof__comment(t->p, line);
		if (e) {
			if (!t->err)
				t->err = e;
			return e;
		}
	}
	return 0;
}

int toppprof__add_unattributed(struct toppprof *t, __u64 n)
{
	struct ldlat_top_val v = { .count = n };
	__u64 loc;

	if (!n)
		return 0;
	loc = toppprof__named(t, CALLPATH_UNATTRIBUTED);
	if (!loc) {
		if (!t->err)
			t->err = -ENOMEM;
		return -ENOMEM;
	}
	return toppprof__sample(t, 0,
				&(struct toppprof_ctx){ .no_process = true, .lost = "table full" },
				NULL, &loc, 1, &v);
}

int toppprof__encode(struct toppprof *t, const struct timespec *since, const struct timespec *taken,
		     void **buf, size_t *len)
{
	__s64 from = (__s64)ts__ns(since), to = (__s64)ts__ns(taken);

	if (t->err)
		return t->err;
	pprof__set_span(t->p, from, to > from ? to - from : 0);
	return pprof__encode(t->p, buf, len);
}
