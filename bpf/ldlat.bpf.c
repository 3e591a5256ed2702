// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ldlat.bpf.c - runs once per load-latency (or page-fault) sample, in NMI
 * context, on every CPU: filter, classify, bucket into per-CPU maps, and
 * return 0 so that nothing is written to the perf ring buffer.
 */
#include "vmlinux/vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "bpf/ldlat.h"
#include "bpf/ldlat_read.h"
#include "bpf/ldlat_pin.h"
#include "bpf/unwind.h"

#define PERF_SAMPLE_WEIGHT_TYPE (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)

/* Linux >= 6.2.  Weak: on an older kernel the program using it is not loaded. */
extern void *bpf_cast_to_kern_ctx(void *obj) __ksym __weak;

const volatile struct ldlat_config cfg = {};

/*
 * A pinned set's: keep each event's count in event_counts (ldlat_count_event).
 * Read-only data: in every other program the verifier drops that code.
 */
const volatile __u32 pin_counts = 0;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ldlat_counters);
} counters SEC(".maps");

/*
 * max_entries is set by user space to rows * nranges * LDLAT_NCLASS before
 * load; twice that for ldlat-top (a half per generation parity).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LDLAT_NCLASS);
	__type(key, __u32);
	__type(value, struct ldlat_hist);
} hists SEC(".maps");

/*
 * --by pid, tid or cgroup: the key to its row of 'hists'.  max_entries is
 * cfg.by_keys then (else 1, unused); preallocated, so an update in NMI
 * context allocates nothing.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, __u32);
} by_rows SEC(".maps");

/*
 * --by pid, tid or cgroup: the key that holds each row (row -> key).  Two
 * new keys met at once may read the same count of rows handed out (the
 * count is raised without reading it back in one operation: an atomic
 * fetch needs Linux 5.12); the row goes to the one whose insert here
 * succeeds.  max_entries as by_rows'.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} by_owner SEC(".maps");

/*
 * Rows handed out so far (may pass cfg.by_keys: what is past it went to the
 * others).  A map of its own, not .bss: a program without a split (whose
 * code for it the verifier drops) still names every map its object code
 * names, and ldlat-hist's programs name none of ldlat-top's state.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} by_next SEC(".maps");

/*
 * A pinned set's own state (ldlat_pin.h).  The program does not use these;
 * user space creates them only when it pins, with shown_hists sized like hists.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_RDONLY_PROG);
	__type(key, __u32);
	__type(value, struct ldlat_pin_meta);
} meta SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_RDONLY_PROG);
	__type(key, __u32);
	__type(value, struct ldlat_pin_shown);
} shown SEC(".maps");

/*
 * A pinned set's events' counts, at each link's bpf_cookie (ldlat_pin.h).
 * max_entries is the set's events then, else 1: a map every program names.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ldlat_event_count);
} event_counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LDLAT_NCLASS);
	__uint(map_flags, BPF_F_RDONLY_PROG);
	__type(key, __u32);
	__type(value, struct ldlat_hist); /* summed over CPUs */
} shown_hists SEC(".maps");

/*
 * ldlat-top's tables.  max_entries is cfg.top_entries when the table is on,
 * else 1: ldlat-hist's program has no code that touches them (cfg.top is
 * read-only data, so the verifier drops it).  The value is struct
 * ldlat_top_val, or its count alone (8 bytes) where ldlat_top_slim(): user
 * space sets value_size, so the maps carry no BTF value type (the kernel
 * would refuse a size the type does not have).  Each key holds a value per
 * possible CPU, zeroed for every CPU at its insert: 136 bytes each, 8 slim.
 */
struct ldlat_top_map {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(struct ldlat_top_key));
	__uint(value_size, sizeof(struct ldlat_top_val));
};

struct ldlat_top_map top_ip SEC(".maps");
struct ldlat_top_map top_data SEC(".maps");
struct ldlat_top_map top_stack SEC(".maps"); /* by (process, call path: ldlat_top_stack_key) */

/*
 * The IP table's front (struct ldlat_top_front), per CPU: for table t
 * (below LDLAT_TOP_FRONTS) and generation parity p, the 1 << top_front_bits
 * slots from index (t * 2 + p) << top_front_bits.  A hot key is counted in
 * its slot, a line this CPU owns, not through the table's hash look-up
 * (the key's bucket, its element, its value: 45-60 ns a sample on a page
 * fault, whose page clearing evicts them).  0 bits: no front (one unused
 * entry).  The value's size is user space's to set, as the tables'.
 */
const volatile __u32 top_front_bits = 0;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct ldlat_top_front));
} top_front SEC(".maps");

/*
 * The call paths of top_stack's keys (struct ldlat_top_stack, by
 * ldlat_top_stack_key); sized by user space (one entry when off),
 * preallocated: an insert in NMI context allocates nothing.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, struct ldlat_top_stack);
} top_stacks SEC(".maps");

/* Where a sample's path is taken before it is looked up (2 KiB: not the program's stack). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ldlat_top_stack);
} top_stack_scratch SEC(".maps");

/*
 * --call-graph dwarf: the user stack is walked from unwind tables
 * (bpf/unwind.h), up to unwind_max frames; 0: bpf_get_stack takes it
 * (frame pointers, the kernel's walk).  unwind_task_regs: the kernel has
 * bpf_task_pt_regs (Linux 5.15), else a sample taken in the kernel finds
 * the task's user registers at the top of its kernel stack, THREAD_SIZE
 * (16 KiB, without KASAN) above its base.
 */
const volatile __u32 unwind_max = 0;
const volatile __u32 unwind_task_regs = 0;

#define LDLAT_THREAD_SIZE 16384

/* Each process's executable mappings: where the tables apply (one entry when off). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ldlat_unwind_proc);
} unwind_procs SEC(".maps");

/*
 * One file's table, at the slot user space gave the file (shared by every
 * process that maps it): an array of blocks sized to the table
 * (BPF_F_INNER_MAP: inner maps of any length, Linux 5.10).
 */
struct ldlat_unwind_table {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_INNER_MAP);
	/* sizes, not types: clang 14 gives an inner map's value type no BTF but its name */
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(union ldlat_unwind_block));
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct ldlat_unwind_table);
} unwind_files SEC(".maps");

/*
 * Samples walked before their tables were in (struct ldlat_unwind_defer),
 * at most unwind_defer_max a CPU in a generation (0: none); user space
 * sizes the ring, one page when off.
 */
const volatile __u32 unwind_defer_max = 0;

/*
 * Set by user space while 'unwind_procs' refuses a process (full: it was
 * refused an entry since one was last freed), cleared when an entry is
 * freed.  A process with no entry then gets none, and a sample of it
 * deferred would wait for tables that never come: it is not deferred
 * (counted in no_process), and the ring and the budget stay for samples
 * that can be walked.  A process whose entry is its program's before an
 * exec is still deferred: its entry is replaced in place, without room.
 */
volatile __u32 unwind_procs_refused;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} unwind_defer SEC(".maps");

/* The walks of two generations, at gen & 1 (struct ldlat_unwind_counters). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct ldlat_unwind_counters);
} unwind_counters SEC(".maps");

/*
 * A kept sample whose stacks are still to take: ldlat_account runs without
 * the ctx that bpf_get_stackid needs, so it leaves the sample here and the
 * program entry takes the stacks after it.  Per CPU: a perf_event program
 * does not nest on its CPU.
 */
struct ldlat_top_pending {
	__u32 set;
	__u32 gen;
	__u32 tgid;
	__u32 cls;
	__u64 lat;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ldlat_top_pending);
} top_pending SEC(".maps");

/*
 * Two generations' counters, at gen & 1 (struct ldlat_top_counters):
 * ldlat-top's program counts here what ldlat-hist's counts in 'counters'.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct ldlat_top_counters);
} top_counters SEC(".maps");

/* The tables this CPU found full, by generation (struct ldlat_top_full). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ldlat_top_full);
} top_full SEC(".maps");

/*
 * Samples whose key found its table full (struct ldlat_top_spill).  User
 * space sizes it from cfg.top_entries (ldlat_top_spill_bytes()); one page
 * when the tables are off.
 */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} top_spill SEC(".maps");

/* The spill records each CPU gathers, per generation parity (struct ldlat_top_batch). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct ldlat_top_batch);
} top_batch SEC(".maps");

/*
 * The generation new entries are keyed with.  User space moves it on, waits
 * for an RCU grace period (every program that read the old value has
 * returned), then moves the old generation's entries out of the tables.
 */
volatile __u32 top_gen;

/*
 * Which keys each table took this generation, as a hint: a table found
 * full is looked up only for a key the hint may hold; any other sample goes
 * straight to the spill batch.  The data table's is read before it is full
 * too: a key it does not hold is new, and goes to the door
 * (ldlat_top_door) without the lookup.  Under many keys (the table full, most
 * samples a new key) this spares each one a lookup that misses, a few cache
 * misses in a table of thousands of entries.  A word per entry (rounded up
 * to a power of two, 1 << top_seen_bits a table), each the generation it
 * holds (high half) and a 32-bit Bloom block (low half): two bits per key.
 * A word of another generation holds nothing, so nothing clears it.  Its
 * updates are not atomic: one lost to another CPU's makes that key's
 * samples spill until the drain (counted the same, through the ring).
 * Sized by user space (LDLAT_TOP_TABLES << (top_seen_bits + 1) words: a
 * region a table, of pairs: the hint's word, then the data table's door's
 * slot (ldlat_top_door) of the same keys, in the same cache line).
 */
const volatile __u32 top_seen_bits = 1;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} top_seen SEC(".maps");

/*
 * The pair of words of a key of hash h in a table's region: +0 the hint's
 * word (its two bits in *bits), +1 the door's slot.
 */
static __always_inline __u32 ldlat_top_seen_pair(__u32 table, __u64 h, __u64 *bits)
{
	return ((table << top_seen_bits) | ldlat_top_seen_word(h, top_seen_bits, bits)) << 1;
}

/* The hint's word of key k in a table; its two bits in *bits. */
static __always_inline __u64 *ldlat_top_seen(__u32 table, const struct ldlat_top_key *k,
					     __u64 *bits)
{
	__u32 i = ldlat_top_seen_pair(table, ldlat_top_seen_hash(k->tgid, k->addr), bits);

	return bpf_map_lookup_elem(&top_seen, &i);
}

#define E2BIG  7
#define EEXIST 17

/*
 * A sample whose key found the table full, into this CPU's batch of its
 * generation; a batch that fills goes to the spill ring, its records
 * counted per table in spilled, or in full when the ring has no room.
 * 1: the sample is held or sent; 0: its batch, this sample with it, found
 * no room in the ring (counted); -1: there is no batch (not counted).
 */
static __always_inline int ldlat_top_spill(__u32 table, const struct ldlat_sample *s, __u32 gen,
					   __u64 addr, __u32 cls, struct ldlat_top_counters *tc)
{
	__u32 slot = gen & 1, n, t;
	struct ldlat_top_batch *b = bpf_map_lookup_elem(&top_batch, &slot);
	struct ldlat_top_spill *r;
	int kept;

	if (!b || table >= LDLAT_TOP_TABLES)
		return -1;
	n = b->n;
	if (n >= LDLAT_TOP_BATCH)
		return -1; /* never: a batch is sent as it fills */
	r = &b->r[n & (LDLAT_TOP_BATCH - 1)];
	r->tgid = s->tgid;
	r->gen = (__u16)gen;
	r->table = (__u8)table;
	r->cls = (__u8)cls;
	r->addr = addr;
	r->lat = s->lat;
	b->tables[table]++;
	b->n = ++n;
	if (n < LDLAT_TOP_BATCH)
		return 1;
	/* user space polls: no wakeup */
	kept = !bpf_ringbuf_output(&top_spill, b->r, sizeof(b->r), BPF_RB_NO_WAKEUP);
	if (kept) {
		for (t = 0; t < LDLAT_TOP_TABLES; t++)
			tc->spilled[t] += b->tables[t];
	} else {
		for (t = 0; t < LDLAT_TOP_TABLES; t++)
			tc->full[t] += b->tables[t];
	}
	for (t = 0; t < LDLAT_TOP_TABLES; t++)
		b->tables[t] = 0;
	b->n = 0;
	return kept;
}

/* A kept sample into a table's value: its count alone where the value is slim. */
static __always_inline void ldlat_top_count(struct ldlat_top_val *v, __u64 lat, __u32 cls)
{
	if (ldlat_top_slim(&cfg))
		v->count++;
	else
		ldlat_top_account(v, lat, cls);
}

/*
 * The data table's door: whether key k's sample is the first of two in a
 * row the door has met (the key then written in its slot), the sample to
 * spill rather than take the key into the table.  A data key is often met
 * once (a line or a page touched in passing, every page of a first touch),
 * and the insert of a key, zeroing a value for every CPU, costs several
 * times a record in the ring; a key met again before another key of its
 * slot is taken.  A slot is the word after the key's hint word (the same
 * cache line, read already): the key's hash tagged with the generation (a
 * word of an older one holds nothing).  A word lost to another CPU's write
 * spills one sample more.
 */
static __always_inline bool ldlat_top_door(const struct ldlat_top_key *k, __u32 gen)
{
	__u64 h = ldlat_top_seen_hash(k->tgid, k->addr), tag = ldlat_top_door_tag(h, gen), *w;
	__u32 i = ldlat_top_seen_pair(LDLAT_TOP_DOOR_TABLE, h, &h) + 1;

	w = bpf_map_lookup_elem(&top_seen, &i);
	if (!w || *w == tag)
		return false;
	*w = tag;
	return true;
}

/*
 * One kept sample into one table: update in place, insert a new key, or
 * spill.  True when it is counted under its key (in the table, or held or
 * sent in its spill record); false when it is counted in full or failed.
 */
static __always_inline bool ldlat_top_add(void *map, __u32 table, const struct ldlat_sample *s,
					  __u32 gen, __u64 addr, __u32 cls,
					  struct ldlat_top_counters *tc,
					  struct ldlat_top_full *full)
{
	struct ldlat_top_key k = { .tgid = s->tgid, .gen = gen, .addr = addr };
	struct ldlat_top_front *f = NULL;
	struct ldlat_top_val *v, nv;
	__u64 *seen, bits = 0;
	bool found_full;
	__u32 fi;
	long e;
	int kept;

	if (table >= LDLAT_TOP_TABLES)
		return false;
	if (table == LDLAT_TOP_DATA_TABLE && (cfg.top & LDLAT_TOP_DATA_RING)) {
		e = -E2BIG; /* a data key of a source whose keys do not come back */
		goto spill;
	}
	/* the key's slot in this CPU's front: its own, counted there; free, taken below */
	if (top_front_bits && table < LDLAT_TOP_FRONTS) {
		fi = (table * 2 + (gen & 1)) << top_front_bits |
		     ldlat_top_front_slot(s->tgid, addr, top_front_bits);
		f = bpf_map_lookup_elem(&top_front, &fi);
		if (f && f->gen1 == gen + 1) {
			if (f->tgid == s->tgid && f->addr == addr) {
				ldlat_top_count(&f->v, s->lat, cls);
				return true;
			}
			f = NULL; /* another key's */
		}
	}
	/* found full this generation: a key the table did not take spills (or takes its slot) */
	found_full = full && full->gen[table] == gen + 1;
	if (found_full || table == LDLAT_TOP_DOOR_TABLE) {
		seen = ldlat_top_seen(table, &k, &bits);
		if (seen && !ldlat_top_seen_holds(*seen, gen, bits)) {
			e = -E2BIG;
			if (found_full)
				goto full;
			/* the data table takes a key on its second sample of the generation */
			if (ldlat_top_door(&k, gen))
				goto spill;
			goto insert;
		}
	}
	v = bpf_map_lookup_elem(map, &k);
	if (v) {
		ldlat_top_count(v, s->lat, cls);
		return true;
	}
	if (found_full) {
		e = -E2BIG; /* the insert would fail */
		goto full;
	}
	/* a data key in the hint that the table does not hold: met once, or a false positive */
	if (table == LDLAT_TOP_DOOR_TABLE && ldlat_top_door(&k, gen)) {
		e = -E2BIG;
		goto spill;
	}
	goto insert;
full:
	/* the table found full: a new key takes its slot in the front if free, else spills */
	if (!f)
		goto spill;
insert:
	/* a new key takes its free slot in the front rather than an entry */
	if (f) {
		f->tgid = s->tgid;
		f->addr = addr;
		f->gen1 = gen + 1;
		if (ldlat_top_slim(&cfg)) {
			f->v.count = 1;
		} else {
			__builtin_memset(&f->v, 0, sizeof(f->v));
			ldlat_top_account(&f->v, s->lat, cls);
		}
		return true;
	}
	/* zeroed here, not at every sample: a slim value is its first 8 bytes */
	if (ldlat_top_slim(&cfg)) {
		nv.count = 1;
	} else {
		__builtin_memset(&nv, 0, sizeof(nv));
		ldlat_top_account(&nv, s->lat, cls);
	}
	/*
	 * the int of map_update_elem: 6.1's verifier calls the map's op
	 * directly, and that op returns int (the upper half of r0 is not its sign)
	 */
	e = (int)bpf_map_update_elem(map, &k, &nv, BPF_NOEXIST);
	if (!e) {
		seen = ldlat_top_seen(table, &k, &bits);
		if (seen)
			*seen = ldlat_top_seen_add(*seen, gen, bits);
		return true;
	}
	if (e == -EEXIST) { /* another CPU inserted it first */
		v = bpf_map_lookup_elem(map, &k);
		if (v) {
			ldlat_top_count(v, s->lat, cls);
			return true;
		}
	}
	if (e == -E2BIG && full)
		full->gen[table] = gen + 1;
spill:
	if (e != -E2BIG) {
		tc->failed[table]++;
		return false;
	}
	/* a batched sample is counted when its batch goes (or by the drain that takes it) */
	kept = ldlat_top_spill(table, s, gen, addr, cls, tc);
	if (kept < 0)
		tc->full[table]++;
	return kept > 0;
}

/*
 * A kept sample into ldlat-top's tables, under the generation its counters
 * were taken in (gen, tc): its key, its spill record and its counters agree.
 */
static __always_inline void ldlat_top_sample(const struct ldlat_sample *s, __u32 cls, __u32 gen,
					     struct ldlat_top_counters *tc)
{
	__u32 zero = 0;
	struct ldlat_top_full *full = bpf_map_lookup_elem(&top_full, &zero);

	if (cfg.top & LDLAT_TOP_IP)
		ldlat_top_add(&top_ip, 0, s, gen, s->ip, cls, tc, full);
	if (cfg.top & LDLAT_TOP_DATA)
		ldlat_top_add(&top_data, LDLAT_TOP_DATA_TABLE, s, gen,
			      ldlat_top_block(s->addr, cfg.top_shift), cls, tc, full);
	if (cfg.top & LDLAT_TOP_STACK) {
		struct ldlat_top_pending *p = bpf_map_lookup_elem(&top_pending, &zero);

		if (p) {
			p->set = 1;
			p->gen = gen;
			p->tgid = s->tgid;
			p->cls = cls;
			p->lat = s->lat;
		}
	}
}

/* One stack into the path: its frames, or bpf_get_stack's error. */
static __always_inline void ldlat_top_take(void *ctx, struct ldlat_top_stack *st, int k,
					   __u64 flags)
{
	long n = bpf_get_stack(ctx, st->ips[k & 1], sizeof(st->ips[0]), flags);

	st->err[k & 1] = n < 0 ? (__s16)n : 0;
	st->nr[k & 1] = n > 0 ? (__u32)(n / sizeof(__u64)) : 0;
}

/*
 * The interrupted IP from the ctx's registers.  The barrier keeps it a load
 * at a constant ctx offset: the verifier refuses a load through a ctx
 * pointer the compiler has offset (as it does when it merges this with
 * data->ip into one select).
 */
static __always_inline __u64 ldlat_regs_ip(struct bpf_perf_event_data *ctx)
{
	__u64 ip = PT_REGS_IP(&ctx->regs);

	asm volatile("" : "+r"(ip));
	return ip;
}

/*
 * The current task's user registers, where its entry into the kernel
 * saved them; false for a kernel thread (no user stack), and in an exec
 * (the program's own faults as it is loaded): those are the registers of
 * the program being replaced, whose stack is gone, and its PC would be
 * named in the new program's mappings.  perf's DWARF mode finds no user
 * frame there either.
 */
static __always_inline bool ldlat_task_user_regs(struct ldlat_unwind_regs *r)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	struct pt_regs regs, *at;
	void *stack;

	if (!BPF_CORE_READ(t, mm) || BPF_CORE_READ_BITFIELD_PROBED(t, in_execve))
		return false;
	if (unwind_task_regs) {
		at = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	} else {
		stack = BPF_CORE_READ(t, stack);
		at = (struct pt_regs *)(stack + LDLAT_THREAD_SIZE) - 1;
	}
	if (bpf_probe_read_kernel(&regs, sizeof(regs), at))
		return false;
	r->pc = regs.ip;
	r->sp = regs.sp;
	r->fp = regs.bp;
	r->bx = regs.bx;
	r->bx_known = 1;
	return true;
}

/*
 * One 8-byte register of a perf event's ctx, loaded at its constant offset
 * in one instruction: the verifier refuses a load through a ctx pointer
 * the compiler has offset first.
 */
#define LDLAT_CTX_REG(ctx, field)                                                                  \
	({                                                                                         \
		__u64 __v;                                                                         \
		asm volatile("%0 = *(u64 *)(%1 + %2)"                                              \
			     : "=r"(__v)                                                           \
			     : "r"(ctx), "i"(offsetof(struct bpf_perf_event_data, regs) +          \
					     offsetof(struct pt_regs, field)));                    \
		__v;                                                                               \
	})

/*
 * A perf event's user registers: the sample's own when it interrupted user
 * mode (CS's low bits: the privilege level), else the task's.
 */
static __always_inline bool ldlat_sample_user_regs(struct bpf_perf_event_data *ctx,
						   struct ldlat_unwind_regs *r)
{
	if (!(LDLAT_CTX_REG(ctx, cs) & 3))
		return ldlat_task_user_regs(r);
	r->pc = LDLAT_CTX_REG(ctx, ip);
	r->sp = LDLAT_CTX_REG(ctx, sp);
	r->fp = LDLAT_CTX_REG(ctx, bp);
	r->bx = LDLAT_CTX_REG(ctx, bx);
	r->bx_known = 1;
	return true;
}

/* The inode of the running program (0: none, a kernel thread). */
static __always_inline __u64 ldlat_current_exe_ino(void)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();

	return BPF_CORE_READ(t, mm, exe_file, f_inode, i_ino);
}

/* The walk between frames (struct ldlat_unwind_state). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ldlat_unwind_state);
} unwind_state SEC(".maps");

/*
 * One frame of the walk in unwind_state (ldlat_unwind_frame): a global
 * function, so the verifier checks it once, whatever calls it and however
 * often.  Returns LDLAT_NSTOPS to go on, else why the walk ends.
 */
__attribute__((noinline)) int ldlat_unwind_step(void)
{
	struct ldlat_unwind_state *s;
	struct ldlat_unwind_proc *p;
	__u32 zero = 0, tgid;

	s = bpf_map_lookup_elem(&unwind_state, &zero);
	if (!s)
		return LDLAT_STOP_READ;
	tgid = s->tgid;
	p = bpf_map_lookup_elem(&unwind_procs, &tgid);
	return (int)ldlat_unwind_frame(s, p, &unwind_files);
}

/*
 * The user stack walked from the unwind tables into the path: up to
 * unwind_max frames, why the walk ended in stop[0]; counted in the
 * generation's unwind counters.  What each frame leaves is read back from
 * map memory: the verifier checks the code after the walk once, not once
 * per frame it could end at.
 */
static __always_inline bool ldlat_top_unwind(const struct ldlat_unwind_regs *r,
					     struct ldlat_top_stack *st, __u32 tgid, __u32 gen)
{
	struct ldlat_unwind_counters *uc;
	struct ldlat_unwind_state *s;
	struct ldlat_unwind_proc *pr;
	__u32 slot = gen & 1, zero = 0, i, stop;
	bool defer = false, exec = false;
	int m;

	uc = bpf_map_lookup_elem(&unwind_counters, &slot);
	s = bpf_map_lookup_elem(&unwind_state, &zero);
	if (!uc || !s)
		return false;
	uc->walks++;
	st->nr[0] = 0;
	st->stop[0] = LDLAT_STOP_MAX + 1;
	if (!r) {
		st->stop[0] = LDLAT_STOP_NO_REGS + 1;
		uc->stop[LDLAT_STOP_NO_REGS]++;
		return false;
	}
	pr = bpf_map_lookup_elem(&unwind_procs, &tgid);
	/* the mappings of the program before an exec: none known yet for this one */
	if (pr && pr->exe_ino && pr->exe_ino != ldlat_current_exe_ino()) {
		pr = NULL;
		tgid = 0; /* no entry: the walk's frame pointers */
		exec = true;
	}
	if (!pr) {
		uc->no_process++;
		/* none while the map refuses processes: this one's may never come */
		defer = exec || !unwind_procs_refused;
	} else if (unwind_defer_max) {
		/*
		 * the sample's own code not walkable yet: its table is on its
		 * way, or its mapping is newer than the process's entry (a
		 * library the loader mapped since the side band was read)
		 */
		m = ldlat_unwind_map_find(pr, r->pc);
		defer = (m < 0 && pr->n < LDLAT_UNWIND_MAPS) ||
			(m >= 0 && pr->maps[m & (LDLAT_UNWIND_MAPS - 1)].kind == LDLAT_MAP_PENDING);
		/*
		 * deferred already: the path meanwhile is the frame pointers',
		 * as for a process without tables (the rows of its first frame
		 * are not there to take; ending at it would leave a one-frame
		 * path that a copy which ran out cannot better: a stack probe's
		 * fault at SP copies nothing)
		 */
		if (defer)
			tgid = 0;
	}
	s->pc = r->pc;
	s->sp = r->sp;
	s->fp = r->fp;
	s->bx = r->bx;
	s->bx_known = r->bx_known;
	s->back = 0;
	s->frames_fp = 0;
	s->tgid = tgid;
	for (i = 0; i < LDLAT_UNWIND_MAX_STACK; i++) {
		if (i >= unwind_max)
			break;
		st->ips[0][i] = s->pc;
		st->nr[0] = i + 1;
		stop = (__u32)ldlat_unwind_step();
		if (stop < LDLAT_NSTOPS) {
			st->stop[0] = (__u16)(stop + 1);
			break;
		}
	}
	/* read back from the map: one value to the verifier, whichever frame the walk ended at */
	asm volatile("" ::: "memory");
	uc->frames += st->nr[0];
	uc->frames_fp += s->frames_fp;
	stop = st->stop[0];
	asm volatile("" : "+r"(stop));
	stop -= 1;
	if (stop < LDLAT_NSTOPS)
		uc->stop[stop & 7]++;
	/*
	 * or its walk ended in code whose table is on its way, or at a
	 * return address the tables' rules gave in no mapping the entry
	 * knows (ldlat_unwind_frame: one newer than it)
	 */
	if (!defer && pr && unwind_defer_max && stop == LDLAT_STOP_NO_TABLE) {
		m = ldlat_unwind_map_find(pr, s->pc);
		defer = m >= 0 && pr->maps[m & (LDLAT_UNWIND_MAPS - 1)].kind == LDLAT_MAP_PENDING;
	} else if (!defer && pr && unwind_defer_max && stop == LDLAT_STOP_NO_MAPPING) {
		defer = !s->frames_fp && pr->n < LDLAT_UNWIND_MAPS;
	}
	return defer && unwind_defer_max;
}

/*
 * A sample walked before its tables were in: its registers and a copy of
 * its user stack to the 'unwind_defer' ring, for user space to walk by the
 * same rules once they are (struct ldlat_unwind_defer); its path's count
 * stays the frame pointers' until then.  Counted: sent, refused by the
 * ring, or past this CPU's budget for the generation.
 */
static __always_inline void ldlat_unwind_defer_send(const struct ldlat_unwind_regs *r,
						    const struct ldlat_top_pending *p, __u64 key)
{
	struct ldlat_unwind_counters *uc;
	struct ldlat_unwind_defer *d;
	__u32 slot = p->gen & 1, len = LDLAT_UNWIND_COPY_BYTES, off = 0, i;

	uc = bpf_map_lookup_elem(&unwind_counters, &slot);
	if (!uc)
		return;
	if (uc->deferred >= unwind_defer_max) {
		uc->defer_budget++;
		return;
	}
	d = bpf_ringbuf_reserve(&unwind_defer, sizeof(*d), 0);
	if (!d) {
		uc->defer_full++;
		return;
	}
	d->tgid = p->tgid;
	d->gen = p->gen;
	d->cls = p->cls;
	d->key = key;
	d->lat = p->lat;
	d->pc = r->pc;
	d->sp = r->sp;
	d->fp = r->fp;
	d->bx = r->bx;
	d->bx_known = r->bx_known;
	d->exe_ino = ldlat_current_exe_ino();
	/*
	 * All that can be read, as perf's copy: a stack may end less than 8
	 * KiB above SP (a new process's: its arguments and environment), and
	 * its outermost frames are the last bytes.  Halves of what is left,
	 * each taken when it reads: the copy ends within 8 bytes of the first
	 * byte that cannot be read.
	 */
	LDLAT_UNWIND_UNROLL
	for (i = 0; i < LDLAT_UNWIND_COPY_TRIES; i++) {
		if (off <= LDLAT_UNWIND_COPY_BYTES - len &&
		    !bpf_probe_read_user(d->stack + off, len, (const void *)(r->sp + off)))
			off += len;
		len >>= 1;
	}
	d->len = off;
	uc->deferred++;
	/* user space reads the ring at its tick */
	bpf_ringbuf_submit(d, BPF_RB_NO_WAKEUP);
}

/*
 * The path of the sample ldlat_top_sample left pending, into the call-path
 * table under the generation it was counted in; the path itself into
 * top_stacks unless that generation holds it already.  ctx: the program's
 * own (bpf_get_stack takes a perf_event or a raw_tp context); pctx the
 * same when it is a perf event's, whose registers start the walk of the
 * user stack (--call-graph dwarf); regs, registers given instead (the
 * test entry); neither: the task's.
 */
static __always_inline void ldlat_top_stacks(void *ctx, struct bpf_perf_event_data *pctx,
					     const struct ldlat_unwind_regs *regs)
{
	struct ldlat_unwind_regs ur;
	__u32 zero = 0, slot;
	struct ldlat_top_pending *p;
	struct ldlat_top_counters *tc;
	struct ldlat_top_stack *st;
	struct ldlat_sample s = {};
	bool defer = false, kept;
	__u64 key;
	long e;

	if (!(cfg.top & LDLAT_TOP_STACK))
		return;
	p = bpf_map_lookup_elem(&top_pending, &zero);
	if (!p || !p->set)
		return;
	p->set = 0;
	slot = p->gen & 1;
	tc = bpf_map_lookup_elem(&top_counters, &slot);
	st = bpf_map_lookup_elem(&top_stack_scratch, &zero);
	if (!tc || !st)
		return;
	st->stop[0] = 0;
	st->stop[1] = 0;
	if (unwind_max) {
		st->err[0] = 0;
		if (!regs && (pctx ? ldlat_sample_user_regs(pctx, &ur) : ldlat_task_user_regs(&ur)))
			regs = &ur;
		defer = ldlat_top_unwind(regs, st, p->tgid, p->gen);
	} else {
		ldlat_top_take(ctx, st, 0, BPF_F_USER_STACK);
	}
	ldlat_top_take(ctx, st, 1, 0);
	key = ldlat_top_stack_key(st, p->gen);
	if (!bpf_map_lookup_elem(&top_stacks, &key)) {
		/* the int of map_update_elem, as in ldlat_top_add */
		e = (int)bpf_map_update_elem(&top_stacks, &key, st, BPF_NOEXIST);
		if (e == -E2BIG)
			key = LDLAT_TOP_STACK_FULL;
		else if (e && e != -EEXIST) /* EEXIST: another CPU stored it first */
			key = LDLAT_TOP_STACK_FAILED;
	}
	s.tgid = p->tgid;
	s.lat = p->lat;
	kept = ldlat_top_add(&top_stack, 2, &s, p->gen, key, p->cls, tc,
			     bpf_map_lookup_elem(&top_full, &zero));
	/*
	 * a record only for a sample counted under its key: the drain moves
	 * that count, and would take another sample's of the same path
	 */
	if (defer && regs && kept)
		ldlat_unwind_defer_send(regs, p, key);
}

/*
 * The row of --by's split for the running task or CPU: the CPU or node
 * itself, or the row 'by_rows' gives the key, handed out on its first
 * sample; cfg.by_keys (the others) when there is none left.  Two CPUs that
 * meet a new key at once both take a row; the one whose insert fails uses
 * the other's, and its row stays empty.  Two new keys that read the same
 * count of rows: the one that claims the row in by_owner first takes it,
 * the other's sample goes to the others and its next sample takes a row.
 */
static __always_inline __u32 ldlat_by_row(const struct ldlat_sample *s)
{
	__u32 *row, r, zero = 0;
	__u64 key, id, *next;

	switch (cfg.by) {
	case LDLAT_BY_REGION:
		r = ldlat_by_region(s->data_src);
		return r < cfg.by_keys ? r : cfg.by_keys;
	case LDLAT_BY_CPU:
		r = bpf_get_smp_processor_id();
		return r < cfg.by_keys ? r : cfg.by_keys;
	case LDLAT_BY_NODE:
		r = bpf_get_numa_node_id();
		return r < cfg.by_keys ? r : cfg.by_keys;
	case LDLAT_BY_PID:
		key = bpf_get_current_pid_tgid() >> 32;
		break;
	case LDLAT_BY_TID:
		key = (__u32)bpf_get_current_pid_tgid();
		break;
	default:
		key = bpf_get_current_cgroup_id();
		break;
	}
	row = bpf_map_lookup_elem(&by_rows, &key);
	if (row)
		return *row < cfg.by_keys ? *row : cfg.by_keys;
	next = bpf_map_lookup_elem(&by_next, &zero);
	if (!next || *next >= cfg.by_keys)
		return cfg.by_keys;    /* full: no atomic operation on every new key */
	__sync_fetch_and_add(next, 1); /* its value unused: an atomic add, Linux 5.10 has it */
	id = *next - 1;
	if (id >= cfg.by_keys)
		return cfg.by_keys;
	r = (__u32)id;
	/* another new key that read the same count holds the row: this sample to the others */
	if (bpf_map_update_elem(&by_owner, &r, &key, BPF_NOEXIST))
		return cfg.by_keys;
	if (!bpf_map_update_elem(&by_rows, &key, &r, BPF_NOEXIST))
		return r;
	row = bpf_map_lookup_elem(&by_rows, &key); /* another CPU inserted it first */
	return row && *row < cfg.by_keys ? *row : cfg.by_keys;
}

/*
 * top is a compile-time constant: ldlat-hist's programs are built with it
 * false and hold no instruction of ldlat-top's tables; in ldlat-top's,
 * cfg.top (read-only data) picks the tables and the verifier drops the rest.
 * ldlat-top counts every sample, kept or not, under the drain generation it
 * reads once here: its verdict and period in that generation's counters,
 * its histogram in that generation's half of 'hists', its keys in the
 * tables.  A drain then reads a generation no program writes any more, so
 * each report's counters, histograms and tables are one consistent moment.
 */
static __always_inline int ldlat_account(const struct ldlat_sample *s, const bool top)
{
	__u32 zero = 0, range = 0, cls = 0, idx, gen = 0, slot;
	struct ldlat_top_counters *tc = NULL;
	enum ldlat_verdict v;
	struct ldlat_counters *c;
	struct ldlat_hist *h;

	if (top && cfg.top) {
		gen = top_gen;
		slot = gen & 1;
		tc = bpf_map_lookup_elem(&top_counters, &slot);
		if (!tc)
			return 0;
		c = &tc->c;
	} else {
		c = bpf_map_lookup_elem(&counters, &zero);
		if (!c)
			return 0;
	}
	/* no c->seen: every sample counts in one verdict's counter, user space sums them */
	/* with a fixed period user space multiplies: cfg is read-only data, the verifier drops this */
	if (!cfg.fixed_period)
		c->seen_period += s->period;
	v = ldlat_judge(&cfg, s, &range, &cls);
	if (v >= LDLAT_NVERDICTS)
		return 0;
	(&c->kept)[v]++;
	if (v != LDLAT_KEPT)
		return 0;

	idx = ldlat_hist_index(range, cls);
	/* cfg.by is read-only data: without a split the verifier drops this */
	if (cfg.by)
		idx += ldlat_by_base(ldlat_by_row(s), cfg.nranges);
	/* ldlat-top's 'hists' has a half per generation parity */
	if (top && cfg.top)
		idx += (gen & 1) * ldlat_by_base(cfg.by ? cfg.by_keys + 1 : 1, cfg.nranges);
	h = bpf_map_lookup_elem(&hists, &idx);
	if (!h)
		return 0;
	ldlat_hist_account(h, s, cfg.linear_step, cfg.linear_shift, !cfg.fixed_period);
	if (top && cfg.top)
		ldlat_top_sample(s, cls, gen, tc);
	return 0;
}

/*
 * A pinned set: the count of the event this sample came from, as the kernel
 * keeps it, at its link's cookie.  After --detach no process holds the
 * events' fds, and the count is read here or nowhere; --show sets it against
 * the samples seen.  A sample the program does not run on (another BPF
 * program holds bpf_prog_active on that CPU) is in the count of the next one
 * it runs on.  Called after the accounting: a reader takes the counts first,
 * then 'counters', so a sample between the two is in the seen ones and
 * maybe not in the counts, never the other way round.  e: the read's
 * failure (-errno), kept instead.  bpf_get_attach_cookie: Linux 5.15, the
 * version of the perf-event links a set pins (user space turns pin_counts
 * on only where both are).
 */
static __always_inline void ldlat_count_put(void *ctx, __u64 count, long e)
{
	struct ldlat_event_count *c;
	__u32 idx = (__u32)bpf_get_attach_cookie(ctx);

	c = bpf_map_lookup_elem(&event_counts, &idx);
	if (!c)
		return;
	if (e)
		c->error = e;
	else
		c->count = count;
}

/*
 * The count through the helper, where the program cannot reach the event
 * itself (the address-only path): it reads the clock for the enabled and
 * running times too, which costs more than the count alone.
 */
static __always_inline void ldlat_count_read(struct bpf_perf_event_data *ctx)
{
	struct bpf_perf_event_value v = {};
	long e;

	if (!pin_counts)
		return;
	e = bpf_perf_prog_read_value(ctx, &v, sizeof(v));
	ldlat_count_put(ctx, v.counter, e);
}

/*
 * The sample's fields come from the kernel's perf_sample_data.  Since Linux
 * 6.3 perf_prepare_sample() runs before the program, so every field the event
 * asked for is filled; sample_flags says which are, and a field not flagged is
 * not read.
 */
static __always_inline int ldlat_from_data(struct bpf_perf_event_data *ctx, const bool top)
{
	struct bpf_perf_event_data_kern *kctx = bpf_cast_to_kern_ctx(ctx);
	struct perf_sample_data *data = kctx->data;
	struct ldlat_sample s = { .period = data->period };
	__u64 flags = data->sample_flags;

	LDLAT_READ_DATA(&s, data, flags);
	/* the precise IP of a PEBS sample is in data->ip; regs only when it is not there */
	if (top && (cfg.top & LDLAT_TOP_IP)) {
		if (flags & PERF_SAMPLE_IP)
			s.ip = data->ip;
		else
			s.ip = ldlat_regs_ip(ctx);
	}
	if (cfg.ntgids || top)
		s.tgid = bpf_get_current_pid_tgid() >> 32;
	ldlat_account(&s, top);
	/* the event's own count: the driver updated it before the overflow that runs this */
	if (pin_counts)
		ldlat_count_put(ctx, kctx->event->count.a.a.counter, 0);
	if (top)
		ldlat_top_stacks(ctx, ctx, NULL);
	return 0;
}

SEC("perf_event")
int ldlat_sample(struct bpf_perf_event_data *ctx)
{
	return ldlat_from_data(ctx, false);
}

/* ldlat-top's: the same, and the tables. */
SEC("perf_event")
int ldlat_top(struct bpf_perf_event_data *ctx)
{
	return ldlat_from_data(ctx, true);
}

/*
 * Kernels without bpf_cast_to_kern_ctx (before 6.2): the ctx pointer at run
 * time is the kernel's struct bpf_perf_event_data_kern (bpf_overflow_handler
 * builds it on its stack), so the program copies it with
 * bpf_probe_read_kernel (a CAP_PERFMON loader may pass the ctx pointer to a
 * helper) and reads the sample through it with CO-RE.  These kernels run the
 * program before perf_prepare_sample(): only what the driver filled before
 * perf_event_overflow() is there (PEBS: addr, weight, data_src; IBS from 6.1).
 * Since 6.1 sample_flags says which fields are; before it, perf_sample_data_init
 * set weight 0 and data_src N/A, the same values 6.3's zero-fill gives.  The
 * address is ctx->addr, the very field (the verifier rewrites that load to
 * data->addr), taken where sample_flags has it.  A copy that fails leaves
 * the sample with its address alone: a filter that needs more counts it as
 * fields_missing.
 */
/* perf_sample_data before 5.12, whose weight was a u64 (CO-RE matches it by name) */
struct perf_sample_data___u64w {
	__u64 weight;
} __attribute__((preserve_access_index));

static __always_inline int ldlat_from_kern(struct bpf_perf_event_data *ctx, const bool top)
{
	struct bpf_perf_event_data_kern k;
	struct perf_sample_data *data = NULL;
	/* the period through the ctx field, which every kernel rewrites to data->period */
	struct ldlat_sample s = { .period = ctx->sample_period };
	__u64 flags = PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT_TYPE | PERF_SAMPLE_DATA_SRC, w = 0;
	bool has_flags = false;

	if (!bpf_probe_read_kernel(&k, sizeof(k), ctx))
		data = k.data;
	if (data && bpf_core_field_exists(data->sample_flags)) {
		flags = BPF_CORE_READ(data, sample_flags);
		has_flags = true;
	}
	/* 6.1's perf_sample_data_init writes addr only when it is not 0 */
	if (flags & PERF_SAMPLE_ADDR) {
		s.addr = ctx->addr;
		s.flags = LDLAT_HAS_ADDR;
	}
	if (!data)
		flags = 0;
	if ((cfg.need & LDLAT_HAS_LAT) && (flags & PERF_SAMPLE_WEIGHT_TYPE)) {
		/* a u64 before 5.12, union perf_sample_weight since: full, or var1_dw its low half */
		__u32 off = bpf_core_type_exists(union perf_sample_weight)
				    ? bpf_core_field_offset(struct perf_sample_data, weight)
				    : bpf_core_field_offset(struct perf_sample_data___u64w, weight);

		if (!bpf_probe_read_kernel(&w, sizeof(w), (void *)data + off)) {
			s.lat = cfg.weight_struct ? (__u32)w : w;
			s.flags |= LDLAT_HAS_LAT;
		}
	}
	if ((cfg.need & LDLAT_HAS_DSRC) && (flags & PERF_SAMPLE_DATA_SRC)) {
		s.data_src = BPF_CORE_READ(data, data_src.val);
		s.flags |= LDLAT_HAS_DSRC;
	}
	/*
	 * data->ip only where sample_flags says the driver set it; else the
	 * registers, where PEBS puts the precise IP on these kernels
	 */
	if (top && (cfg.top & LDLAT_TOP_IP)) {
		if (has_flags && (flags & PERF_SAMPLE_IP))
			s.ip = BPF_CORE_READ(data, ip);
		else
			s.ip = ldlat_regs_ip(ctx);
	}
	if (cfg.ntgids || top)
		s.tgid = bpf_get_current_pid_tgid() >> 32;
	ldlat_account(&s, top);
	/* the event's own count through the copy of the ctx (the helper when there is none) */
	if (pin_counts && data) {
		__u64 n = 0;
		long e = bpf_probe_read_kernel(&n, sizeof(n), &k.event->count.a.a.counter);

		ldlat_count_put(ctx, n, e);
	} else {
		ldlat_count_read(ctx);
	}
	if (top)
		ldlat_top_stacks(ctx, ctx, NULL);
	return 0;
}

SEC("perf_event")
int ldlat_sample_kern(struct bpf_perf_event_data *ctx)
{
	return ldlat_from_kern(ctx, false);
}

SEC("perf_event")
int ldlat_top_kern(struct bpf_perf_event_data *ctx)
{
	return ldlat_from_kern(ctx, true);
}

/*
 * What neither of the above can serve (the ctx cannot be copied: lockdown,
 * no bpf_probe_read_kernel): the address alone, ctx->addr, which every kernel
 * fills.  User space loads this program instead of ldlat_sample.
 */
static __always_inline int ldlat_from_ctx(struct bpf_perf_event_data *ctx, const bool top)
{
	struct ldlat_sample s = { .period = ctx->sample_period };

	s.addr = ctx->addr;
	s.flags = LDLAT_HAS_ADDR;
	if (top && (cfg.top & LDLAT_TOP_IP))
		s.ip = ldlat_regs_ip(ctx);
	if (cfg.ntgids || top)
		s.tgid = bpf_get_current_pid_tgid() >> 32;
	ldlat_account(&s, top);
	ldlat_count_read(ctx);
	if (top)
		ldlat_top_stacks(ctx, ctx, NULL);
	return 0;
}

SEC("perf_event")
int ldlat_sample_addr(struct bpf_perf_event_data *ctx)
{
	return ldlat_from_ctx(ctx, false);
}

SEC("perf_event")
int ldlat_top_addr(struct bpf_perf_event_data *ctx)
{
	return ldlat_from_ctx(ctx, true);
}

/*
 * The same logic on a synthetic sample, for BPF_PROG_TEST_RUN (perf_event
 * programs have none), with ldlat-top's tables as cfg.top says.  No
 * tracepoint name: libbpf never attaches it.  The ctx is struct
 * ldlat_sample as six u64 words.
 */
SEC("raw_tp")
int ldlat_test(struct bpf_raw_tracepoint_args *ctx)
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

	ldlat_account(&s, true);
	ldlat_top_stacks(ctx, NULL, NULL);
	return 0;
}

/*
 * The walk of a user stack from given registers (--call-graph dwarf), for
 * BPF_PROG_TEST_RUN: ctx is pc, sp, fp and the TGID whose tables to use,
 * as u64 words; the sample is kept, and its path stored as a live one's.
 * The stack read is the caller's own memory (a test maps a recorded stack
 * at its address).  '?': the tools never load it (SESSION_TEST_ENTRY does).
 */
SEC("?raw_tp")
int ldlat_test_unwind(struct bpf_raw_tracepoint_args *ctx)
{
	struct ldlat_unwind_regs r = { .pc = ctx->args[0], .sp = ctx->args[1], .fp = ctx->args[2] };
	struct ldlat_sample s = {
		.addr = 1,
		.tgid = (__u32)ctx->args[3],
		.flags = LDLAT_HAS_ADDR,
		.period = 1,
	};

	ldlat_account(&s, true);
	ldlat_top_stacks(ctx, NULL, &r);
	return 0;
}

/*
 * The live programs' reading of perf_sample_data (LDLAT_READ_DATA) on a
 * synthetic one, for BPF_PROG_TEST_RUN: ctx is sample_flags, addr,
 * weight.full, data_src.val, ip and tgid as u64 words.  '?': the tools never
 * load it (SESSION_TEST_ENTRY does).
 */
struct ldlat_test_data {
	__u64 sample_flags;
	__u64 addr;
	union perf_sample_weight weight;
	union perf_mem_data_src data_src;
};

SEC("?raw_tp")
int ldlat_test_data(struct bpf_raw_tracepoint_args *ctx)
{
	struct ldlat_test_data d = {
		.sample_flags = ctx->args[0],
		.addr = ctx->args[1],
		.weight.full = ctx->args[2],
		.data_src.val = ctx->args[3],
	};
	struct ldlat_sample s = { .ip = ctx->args[4], .tgid = (__u32)ctx->args[5] };

	LDLAT_READ_DATA(&s, &d, d.sample_flags);
	ldlat_account(&s, true);
	ldlat_top_stacks(ctx, NULL, NULL);
	return 0;
}

/*
 * The same logic again, to time it alone: BPF_PROG_TEST_RUN on a raw_tp
 * program runs it once per call (no repeat), while on an XDP program the
 * kernel runs it 'repeat' times and reports the mean.  The packet is a
 * batch of up to LDLAT_BENCH_BATCH samples, each LDLAT_BENCH_WORDS u64
 * words (struct ldlat_sample's order; ip unused, as in ldlat-hist): one run
 * accounts them all, so the branches see a mix and the kernel's
 * whole-nanosecond mean is finer per sample.  A packet shorter than one
 * sample returns at once (the cost of test_run itself, to subtract).
 * ldlat-hist's logic: no ldlat-top tables.  '?': libbpf loads it only when
 * asked (SESSION_BENCH_ENTRY), so the tools never do.
 */
#define LDLAT_BENCH_BATCH 16
#define LDLAT_BENCH_WORDS 6

/*
 * One sample of the batch.  A global function: the verifier checks it once,
 * not once per turn of the loop with every path of the one before.
 */
__noinline int ldlat_bench_one(__u64 addr, __u64 lat, __u64 data_src, __u64 tgid_flags,
			       __u64 period)
{
	struct ldlat_sample s;

	s.addr = addr;
	s.lat = lat;
	s.data_src = data_src;
	s.ip = 0;
	s.tgid = (__u32)tgid_flags;
	s.flags = (__u32)(tgid_flags >> 32);
	s.period = period;
	ldlat_account(&s, false);
	return 0;
}

SEC("?xdp")
int ldlat_bench(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	const __u64 *w;
	int i;

	/* word by word: a memcpy from packet data is done byte by byte (its alignment is unknown) */
	for (i = 0; i < LDLAT_BENCH_BATCH; i++) {
		w = data + i * LDLAT_BENCH_WORDS * sizeof(__u64);
		if ((void *)(w + LDLAT_BENCH_WORDS) > end)
			break;
		ldlat_bench_one(w[0], w[1], w[2], w[4], w[5]);
	}
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
