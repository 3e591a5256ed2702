// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * c2c.bpf.c - ldlat-c2c's program: runs once per load or store sample (or
 * page fault), in NMI context: judged by ldlat_judge (bpf/ldlat.h), counted
 * into its cache line, the line's entry for its offset and code address,
 * and the line's thread (bpf/c2c.h), in per-CPU preallocated hash maps; a
 * full table is counted.  Returns 0: nothing goes to the ring buffer.
 */
#include "vmlinux/vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "bpf/c2c.h"
#include "bpf/ldlat_read.h"

#define PERF_SAMPLE_WEIGHT_TYPE (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)
#define E2BIG			7
#define EEXIST			17

/* Linux >= 6.2.  Weak: on an older kernel the program using it is not loaded. */
extern void *bpf_cast_to_kern_ctx(void *obj) __ksym __weak;

const volatile struct ldlat_config cfg = {};
const volatile __u32 line_shift = LDLAT_C2C_LINE_SHIFT;

/* max_entries: set by user space (--entries) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1);
	__type(key, struct ldlat_c2c_line_key);
	__type(value, struct ldlat_c2c_counts);
} c2c_lines SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1);
	__type(key, struct ldlat_c2c_ent_key);
	__type(value, struct ldlat_c2c_counts);
} c2c_ents SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1);
	__type(key, struct ldlat_c2c_tid_key);
	__type(value, __u64);
} c2c_tids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ldlat_c2c_counters);
} c2c_counters SEC(".maps");

/*
 * The counts of key in map: the entry, a new one, or NULL when the table is
 * full (counted) or the update failed (counted).  zero: a zeroed value.
 */
static __always_inline void *c2c_entry(void *map, const void *key, const void *zero,
				       struct ldlat_c2c_counters *c, __u32 table)
{
	void *v = bpf_map_lookup_elem(map, key);
	long e;

	if (v)
		return v;
	/* the int of map_update_elem: 6.1's verifier calls the map's op directly */
	e = (int)bpf_map_update_elem(map, key, zero, BPF_NOEXIST);
	if (!e || e == -EEXIST) {
		v = bpf_map_lookup_elem(map, key);
		if (v)
			return v;
	}
	table %= LDLAT_C2C_TABLES;
	if (e == -E2BIG)
		c->full[table]++;
	else
		c->failed[table]++;
	return NULL;
}

static __always_inline int c2c_account(const struct ldlat_sample *s, __u32 tid)
{
	static const struct ldlat_c2c_counts zero_counts = {};
	static const __u64 zero_u64 = 0;
	__u32 zero = 0, range = 0, cls = 0;
	__u64 mask = (1ull << (line_shift & 63)) - 1, ds = ldlat_c2c_ds(s), *n;
	struct ldlat_c2c_line_key lk = { .tgid = s->tgid, .line = s->addr & ~mask };
	struct ldlat_c2c_ent_key ek = {
		.tgid = s->tgid, .offset = s->addr & mask, .line = s->addr & ~mask, .ip = s->ip
	};
	struct ldlat_c2c_tid_key tk = { .tgid = s->tgid, .tid = tid, .line = s->addr & ~mask };
	struct ldlat_c2c_counters *c;
	struct ldlat_c2c_counts *v;

	c = bpf_map_lookup_elem(&c2c_counters, &zero);
	if (!c)
		return 0;
	c->seen++;
	if (ldlat_judge(&cfg, s, &range, &cls) != LDLAT_KEPT) {
		c->dropped++;
		return 0;
	}
	c->kept++;
	if (!s->addr) {
		c->no_addr++;
		return 0;
	}
	v = c2c_entry(&c2c_lines, &lk, &zero_counts, c, LDLAT_C2C_LINES);
	if (v)
		ldlat_c2c_account(v, ds, s->lat);
	v = c2c_entry(&c2c_ents, &ek, &zero_counts, c, LDLAT_C2C_ENTS);
	if (v)
		ldlat_c2c_account(v, ds, s->lat);
	n = c2c_entry(&c2c_tids, &tk, &zero_u64, c, LDLAT_C2C_TIDS);
	if (n)
		(*n)++;
	return 0;
}

/*
 * The sample's fields from the kernel's perf_sample_data (bpf_cast_to_kern_ctx,
 * Linux 6.2; since 6.3 every field the event asked for is filled, and
 * sample_flags says which).  The precise IP of a PEBS sample is data->ip.
 */
SEC("perf_event")
int c2c_sample(struct bpf_perf_event_data *ctx)
{
	struct bpf_perf_event_data_kern *kctx = bpf_cast_to_kern_ctx(ctx);
	struct perf_sample_data *data = kctx->data;
	struct ldlat_sample s = { .period = data->period };
	__u64 flags = data->sample_flags, id = bpf_get_current_pid_tgid();

	LDLAT_READ_DATA(&s, data, flags);
	if (flags & PERF_SAMPLE_IP) {
		s.ip = data->ip;
	} else {
		s.ip = PT_REGS_IP(&ctx->regs);
		asm volatile("" : "+r"(s.ip));
	}
	s.tgid = id >> 32;
	return c2c_account(&s, (__u32)id);
}

/*
 * Kernels without bpf_cast_to_kern_ctx: the address from ctx->addr (every
 * kernel fills it), the IP from the registers, no data source (a load of
 * unknown source): the page-fault source's fields.
 */
SEC("perf_event")
int c2c_sample_addr(struct bpf_perf_event_data *ctx)
{
	struct ldlat_sample s = { .period = ctx->sample_period };
	__u64 id = bpf_get_current_pid_tgid();

	s.addr = ctx->addr;
	s.flags = LDLAT_HAS_ADDR;
	s.ip = PT_REGS_IP(&ctx->regs);
	asm volatile("" : "+r"(s.ip));
	s.tgid = id >> 32;
	return c2c_account(&s, (__u32)id);
}

/*
 * The same logic on a synthetic sample, for BPF_PROG_TEST_RUN: ctx is
 * struct ldlat_c2c_test_ctx as u64 words.  No tracepoint name: libbpf never
 * attaches it.
 */
SEC("raw_tp")
int c2c_test(struct bpf_raw_tracepoint_args *ctx)
{
	struct ldlat_sample s = {
		.addr = ctx->args[0],
		.lat = ctx->args[1],
		.data_src = ctx->args[2],
		.ip = ctx->args[3],
		.tgid = (__u32)ctx->args[4],
		.flags = (__u32)(ctx->args[4] >> 32),
		.period = ctx->args[5],
	};

	return c2c_account(&s, (__u32)ctx->args[6]);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
