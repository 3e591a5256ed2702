// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/membarrier.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "user/top/topprog.h"
#include "user/run/tool.h"
#include "bpf/ldlat.skel.h"

/* The kernel's ring buffer record header (kernel/bpf/ringbuf.c). */
#define RB_BUSY	   (1u << 31)
#define RB_DISCARD (1u << 30)
#define RB_HDR	   8
#define RB_SPINS                                                                                   \
	100000 /* sched_yield()s waiting for a record being written: far past any program */

int top_session__open(struct session *s, const struct ldlat_config *cfg, unsigned int flags,
		      struct err *err)
{
	return top_session__open_unwind(s, cfg, flags, NULL, err);
}

int top_session__open_unwind(struct session *s, const struct ldlat_config *cfg, unsigned int flags,
			     const struct top_unwind *uw, struct err *err)
{
	int e = session__prepare(s, cfg, flags, 0, err);

	if (e)
		return e;
	s->gens = 2; /* a copy of 'hists' per generation parity */
	/* the tables; one unused entry each when off */
	bpf_map__set_max_entries(s->skel->maps.top_ip, (cfg->top & LDLAT_TOP_IP) && cfg->top_entries
							       ? cfg->top_entries
							       : 1);
	bpf_map__set_max_entries(s->skel->maps.top_data,
				 (cfg->top & LDLAT_TOP_DATA) && !(cfg->top & LDLAT_TOP_DATA_RING) &&
						 cfg->top_entries
					 ? cfg->top_entries
					 : 1);
	bpf_map__set_max_entries(s->skel->maps.top_stack,
				 (cfg->top & LDLAT_TOP_STACK) && cfg->top_entries ? cfg->top_entries
										  : 1);
	bpf_map__set_max_entries(s->skel->maps.top_stacks,
				 (cfg->top & LDLAT_TOP_STACK) && cfg->top_entries
					 ? ldlat_top_stacks_for(cfg->top_entries)
					 : 1);
	/* a count alone per key for a source without latency or data source */
	s->top_val_size = ldlat_top_slim(cfg) ? sizeof(__u64) : sizeof(struct ldlat_top_val);
	bpf_map__set_value_size(s->skel->maps.top_ip, s->top_val_size);
	bpf_map__set_value_size(s->skel->maps.top_data, s->top_val_size);
	bpf_map__set_value_size(s->skel->maps.top_stack, s->top_val_size);
	/* the IP table's front: a key and its value a slot */
	s->skel->rodata->top_front_bits =
		(cfg->top & LDLAT_TOP_IP) && !(flags & SESSION_TOP_NO_FRONT)
			? ldlat_top_front_bits(cfg->top_entries)
			: 0;
	bpf_map__set_max_entries(s->skel->maps.top_front,
				 s->skel->rodata->top_front_bits
					 ? LDLAT_TOP_FRONTS * 2u << s->skel->rodata->top_front_bits
					 : 1);
	bpf_map__set_value_size(s->skel->maps.top_front,
				(__u32)(offsetof(struct ldlat_top_front, v) + s->top_val_size));
	/* the hint of the keys each table took: a word an entry */
	s->skel->rodata->top_seen_bits = ldlat_top_seen_bits(cfg->top ? cfg->top_entries : 1);
	bpf_map__set_max_entries(s->skel->maps.top_seen,
				 cfg->top && cfg->top_entries
					 ? LDLAT_TOP_TABLES << (s->skel->rodata->top_seen_bits + 1)
					 : 1);
	bpf_map__set_max_entries(
		s->skel->maps.top_spill,
		cfg->top && cfg->top_entries ? ldlat_top_spill_bytes(cfg->top_entries) : 4096);
	/*
	 * the walk from the tables; a sample taken in the kernel finds the
	 * task's user registers by bpf_task_pt_regs (Linux 5.15), else at the
	 * top of its kernel stack
	 */
	s->skel->rodata->unwind_max = uw ? uw->max_stack : 0;
	s->skel->rodata->unwind_task_regs =
		uw &&
		libbpf_probe_bpf_helper(BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_task_pt_regs, NULL) == 1;
	s->skel->rodata->unwind_defer_max = uw && uw->defer_ring ? uw->defer_max : 0;
	bpf_map__set_max_entries(s->skel->maps.unwind_defer,
				 uw && uw->defer_max && uw->defer_ring ? uw->defer_ring : 4096);
	bpf_map__set_max_entries(s->skel->maps.unwind_procs, uw ? uw->procs : 1);
	bpf_map__set_max_entries(s->skel->maps.unwind_files, uw ? uw->files : 1);
	bpf_program__set_autoload(s->skel->progs.ldlat_test_unwind,
				  uw && (flags & SESSION_TEST_ENTRY));
	session__use(s, s->skel->progs.ldlat_top, s->skel->progs.ldlat_top_kern,
		     s->skel->progs.ldlat_top_addr);
	return session__load(s, err);
}

/*
 * Every program that read the old generation has returned.  perf runs BPF
 * programs under rcu_read_lock() (bpf_overflow_handler), even in NMI, and
 * MEMBARRIER_CMD_GLOBAL is synchronize_rcu().  Where it is refused
 * (nohz_full CPUs), a pause far longer than any program runs.
 */
static void top__wait_readers(void)
{
	struct timespec pause = { 0, 20 * 1000 * 1000 };

	if (syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) == 0)
		return;
	nanosleep(&pause, NULL);
}

int top_sink__open(struct top_sink *k, struct session *s, struct top_table *ip,
		   struct top_table *data)
{
	int fd = bpf_map__fd(s->skel->maps.top_spill), e;
	void *p;

	memset(k, 0, sizeof(*k));
	if (snapshot__init_by(&k->drained, s->nranges, s->by, s->nrows))
		return -ENOMEM;
	k->drained.linear_step = s->skel->rodata->cfg.linear_step;
	k->ip = ip;
	k->data = data;
	top_table__init(&k->next_ip);
	top_table__init(&k->next_data);
	top_table__init(&k->next_stack);
	/* the next generation's spilled samples are bounded as the tables they go to */
	k->next_ip.max = ip ? ip->max : 0;
	k->next_data.max = data ? data->max : 0;
	k->page = sysconf(_SC_PAGESIZE);
	k->size = bpf_map__max_entries(s->skel->maps.top_spill);
	k->gen = s->skel->bss->top_gen;
	p = mmap(NULL, (size_t)k->page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		goto fail;
	k->cons = p;
	/*
	 * the producer page, then the data once (the kernel maps it twice over
	 * so that a record never wraps, but every page of a mapping is resident
	 * from the start: the second copy would double the ring's RSS); a
	 * record that wraps is copied whole (top__ring_read)
	 */
	k->prodlen = (size_t)k->page + k->size;
	p = mmap(NULL, k->prodlen, PROT_READ, MAP_SHARED, fd, k->page);
	if (p == MAP_FAILED)
		goto fail;
	k->prod = p;
	return 0;
fail:
	e = -errno;
	top_sink__close(k);
	return e;
}

void top_sink__close(struct top_sink *k)
{
	if (k->cons)
		munmap(k->cons, (size_t)k->page);
	if (k->prod)
		munmap(k->prod, k->prodlen);
	k->cons = k->prod = NULL;
	top_table__free(&k->next_ip);
	top_table__free(&k->next_data);
	top_table__free(&k->next_stack);
	snapshot__free(&k->drained);
}

/* The table a spill record goes to, in its generation; NULL when that table is off. */
static struct top_table *top__spill_table(struct top_sink *k, const struct ldlat_top_spill *r)
{
	bool next = (__s16)(__u16)(r->gen - (__u16)k->gen) > 0;

	if (r->table == 0)
		return next ? &k->next_ip : k->ip;
	if (r->table == 1)
		return next ? &k->next_data : k->data;
	return next ? &k->next_stack : k->stack;
}

/* One spill record into the tables of its generation. */
static int top__spilled(struct top_sink *k, const struct ldlat_top_spill *r)
{
	struct top_table *t = top__spill_table(k, r);

	if (!t)
		return 0; /* that table is off: the program sends none */
	k->spilled++;
	return top_table__add_sample(t, r->tgid, r->addr, r->lat, r->cls);
}

/*
 * Reads the ring up to its producer's position now.  With wait, a record
 * still being written is waited for (a program that reserved it runs to its
 * end in microseconds); without, the read stops there until the next call.
 */
static int top__ring_read(struct top_sink *k, bool wait)
{
	struct ldlat_top_spill wrapped[LDLAT_TOP_BATCH];
	__u64 cons, prod;
	const char *data;
	int e = 0, spins = 0;

	if (!k->cons)
		return 0;
	data = (const char *)k->prod + k->page;
	cons = __atomic_load_n((__u64 *)k->cons, __ATOMIC_ACQUIRE);
	prod = __atomic_load_n((const __u64 *)k->prod, __ATOMIC_ACQUIRE);
	while (cons < prod && !e) {
		const __u32 *hdr = (const __u32 *)(data + (cons & (k->size - 1)));
		__u32 len = __atomic_load_n(hdr, __ATOMIC_ACQUIRE);

		if (len & RB_BUSY) {
			if (!wait || ++spins > RB_SPINS)
				break;
			sched_yield();
			continue;
		}
		if (!(len & RB_DISCARD)) {
			size_t at = (cons + RB_HDR) & (k->size - 1), i, n, first;
			const struct ldlat_top_spill *r = (const void *)(data + at);

			n = len / sizeof(*r); /* a batch */
			if (n > LDLAT_TOP_BATCH)
				n = LDLAT_TOP_BATCH; /* never: the program sends a batch at most */
			if (at + n * sizeof(*r) > k->size) { /* it wraps: whole in 'wrapped' */
				first = k->size - at;
				memcpy(wrapped, data + at, first);
				memcpy((char *)wrapped + first, data, n * sizeof(*r) - first);
				r = wrapped;
			}
			for (i = 0; i < n; i++) {
				const struct top_table *t = top__spill_table(k, &r[i]);

				if (t)
					top_table__prefetch(t, r[i].tgid, r[i].addr);
			}
			for (i = 0; i < n && !e; i++)
				e = top__spilled(k, &r[i]);
		}
		cons += ((len & ~RB_DISCARD) + RB_HDR + 7) & ~7ull;
		__atomic_store_n((__u64 *)k->cons, cons, __ATOMIC_RELEASE);
	}
	return e;
}

int top_sink__poll(struct top_sink *k)
{
	return top__ring_read(k, false);
}

/* Entries a drain reads from a table with each look-up (per-CPU values: 136 bytes a CPU each). */
#define DRAIN_BATCH 256

/*
 * Deletes the n keys (those drained) from the map fd, a batch at a time;
 * a key already gone is not ours.  0 or -errno.
 */
static int top__delete_keys(int fd, const struct ldlat_top_key *keys, size_t n)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	size_t i = 0;
	__u32 count;

	while (i < n) {
		count = (__u32)(n - i);
		if (!bpf_map_delete_batch(fd, &keys[i], &count, &opts))
			return 0;
		if (errno != ENOENT)
			return -errno;
		i += count + 1; /* the deleted, then the key that had gone */
	}
	return 0;
}

/*
 * The sum over the CPUs of one key's values as the map holds them (vsize
 * bytes each): struct ldlat_top_val, or a sample count alone (ldlat_top_slim:
 * its samples have latency 0 and class unknown).
 */
static void top__val_sum(struct ldlat_top_val *sum, const char *vals, size_t vsize, int ncpus)
{
	struct ldlat_top_val v;
	__u64 n;
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for (cpu = 0; cpu < ncpus; cpu++) {
		if (vsize == sizeof(v)) {
			memcpy(&v, vals + (size_t)cpu * vsize, sizeof(v));
		} else {
			memcpy(&n, vals + (size_t)cpu * vsize, sizeof(n));
			memset(&v, 0, sizeof(v));
			v.count = n;
			v.cls[LDLAT_CLASS_UNKNOWN] = (__u32)n;
		}
		top_val__add(sum, &v);
	}
}

/*
 * Moves the entries of generation gen (every entry with all) from one map
 * into t: the map's keys and values read a batch at a time (a system call
 * per DRAIN_BATCH entries where a look-up each, then a delete each, made
 * three per entry: most of a drain's time with a full table), then the
 * entries taken deleted in batches too.  Entries of the next generation
 * that programs add meanwhile are left.
 */
static int top__drain_map(struct session *s, struct bpf_map *map, bool all, __u32 gen,
			  struct top_table *t)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u32 max = bpf_map__max_entries(map), chunk = DRAIN_BATCH, count, batch = 0, next = 0;
	int fd = bpf_map__fd(map), e = 0, d;
	struct ldlat_top_key *keys = NULL, *taken;
	struct ldlat_top_val sum;
	size_t vsize = s->top_val_size;
	char *vals = NULL;
	size_t ntaken = 0, i;
	bool first = true, last = false;

	taken = calloc(max + 1, sizeof(*taken));
	if (!taken)
		return -ENOMEM;
	while (!last && !e) {
		if (!keys) {
			keys = calloc(chunk, sizeof(*keys));
			vals = calloc((size_t)chunk * s->ncpus, vsize);
			if (!keys || !vals) {
				e = -ENOMEM;
				break;
			}
		}
		count = chunk;
		if (bpf_map_lookup_batch(fd, first ? NULL : &batch, &next, keys, vals, &count,
					 &opts)) {
			if (errno == ENOSPC && !count && chunk <= max) {
				/* a hash bucket holds more than a batch: a larger one */
				free(keys);
				free(vals);
				keys = NULL;
				vals = NULL;
				chunk *= 2;
				continue;
			}
			if (errno != ENOENT) {
				e = -errno;
				break;
			}
			last = true; /* the map's end: count holds the last entries read */
		}
		first = false;
		batch = next;
		for (i = 0; i < count && !e; i++) {
			if (!all && keys[i].gen != gen)
				continue;
			if (ntaken > max)
				break; /* never: the map holds at most max */
			top__val_sum(&sum, vals + i * s->ncpus * vsize, vsize, s->ncpus);
			e = top_table__merge(t, keys[i].tgid, keys[i].addr, &sum);
			if (!e)
				taken[ntaken++] = keys[i];
		}
	}
	/* what was merged leaves the map, even when a later entry failed */
	d = top__delete_keys(fd, taken, ntaken);
	if (!e)
		e = d;
	free(taken);
	free(keys);
	free(vals);
	return e;
}

/*
 * Adds the front slots (struct ldlat_top_front) that generation gen took,
 * on every CPU, to their table's entries.  Nothing frees them: a slot is
 * free to any generation but the one that took it (generation gen + 2, the
 * next to use these slots, finds them so).  With all (the last read), the
 * next generation's slots too, and both parities' zeroed.
 */
static int top__drain_front(struct session *s, struct top_sink *k, __u32 gen, bool all)
{
	__u32 bits = s->skel->rodata->top_front_bits, t, g, i, idx;
	size_t fsize = offsetof(struct ldlat_top_front, v) + s->top_val_size;
	int fd = bpf_map__fd(s->skel->maps.top_front), cpu, e = 0;
	struct ldlat_top_val sum;
	char *vals;

	if (!bits)
		return 0;
	vals = calloc(s->ncpus, fsize);
	if (!vals)
		return -ENOMEM;
	for (t = 0; t < LDLAT_TOP_FRONTS && !e; t++) {
		struct top_table *to = t ? k->data : k->ip;

		for (g = gen; g <= gen + all && to && !e; g++) {
			for (i = 0; i < 1u << bits && !e; i++) {
				idx = (t * 2 + (g & 1)) << bits | i;
				if (bpf_map_lookup_elem(fd, &idx, vals)) {
					e = -errno;
					break;
				}
				for (cpu = 0; cpu < s->ncpus && !e; cpu++) {
					const struct ldlat_top_front *f =
						(const void *)(vals + (size_t)cpu * fsize);

					if (f->gen1 != g + 1)
						continue;
					top__val_sum(&sum, (const char *)&f->v, s->top_val_size, 1);
					e = top_table__merge(to, f->tgid, f->addr, &sum);
				}
				memset(vals, 0, s->ncpus * fsize);
				if (!e && all && bpf_map_update_elem(fd, &idx, vals, BPF_ANY))
					e = -errno;
			}
		}
	}
	free(vals);
	return e;
}

/*
 * Adds the histograms of a generation (its half of 'hists', slot gen & 1) to
 * the sink's, and zeroes them for generation gen + 2, labels kept.
 */
static int top__hists(struct session *s, struct top_sink *k, __u32 slot)
{
	__u32 n = (__u32)snapshot__ncells(&k->drained), i, idx;
	int fd = bpf_map__fd(s->skel->maps.hists), cpu, e = 0;
	struct ldlat_hist *h = calloc(s->ncpus, sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (i = 0; i < n && !e; i++) {
		idx = slot * n + i;
		if (bpf_map_lookup_elem(fd, &idx, h)) {
			e = -errno;
			break;
		}
		for (cpu = 0; cpu < s->ncpus; cpu++)
			cell__add_hist(&k->drained.cells[i], &h[cpu]);
		e = session__clear_cell(s, idx, h);
	}
	free(h);
	return e;
}

/*
 * Adds a generation's counters (slot gen & 1) to the sink, and zeroes them
 * for gen + 2; its histograms too.
 */
static int top__counters(struct session *s, struct top_sink *k, __u32 slot)
{
	int fd = bpf_map__fd(s->skel->maps.top_counters), cpu, t, w, e = 0;
	__u64 fixed = s->skel->rodata->cfg.fixed_period, *sum = (__u64 *)&k->drained.counters;
	struct ldlat_top_counters *c;
	struct snapshot *d = &k->drained;
	size_t i;

	c = calloc(s->ncpus, sizeof(*c));
	if (!c)
		return -ENOMEM;
	if (bpf_map_lookup_elem(fd, &slot, c)) {
		e = -errno;
		goto out;
	}
	for (cpu = 0; cpu < s->ncpus; cpu++) {
		const __u64 *one = (const __u64 *)&c[cpu].c;

		for (w = 0; w < (int)(sizeof(c[cpu].c) / sizeof(__u64)); w++)
			sum[w] += one[w];
		for (t = 0; t < LDLAT_TOP_TABLES; t++) {
			struct top_table *tt = t == 2 ? k->stack : t ? k->data : k->ip;

			if (!tt)
				continue;
			tt->full += c[cpu].full[t];
			tt->failed += c[cpu].failed[t];
			tt->spilled += c[cpu].spilled[t];
		}
	}
	memset(c, 0, s->ncpus * sizeof(*c));
	if (bpf_map_update_elem(fd, &slot, c, BPF_ANY)) {
		e = -errno;
		goto out;
	}
	e = top__hists(s, k, slot);
	/* as session__read_fds: seen is the verdicts' sum; a fixed period, the program summed none */
	d->counters.seen = 0;
	for (w = 0; w < LDLAT_NVERDICTS; w++)
		d->counters.seen += (&d->counters.kept)[w];
	if (fixed) {
		d->counters.seen_period = d->counters.seen * fixed;
		for (i = 0; i < snapshot__ncells(d); i++)
			d->cells[i].period = d->cells[i].count * fixed;
	}
out:
	free(c);
	return e;
}

/*
 * The records the CPUs' batches of a quiescent generation (slot: its
 * parity) still hold, into the tables as the ring's, counted spilled; the
 * batches emptied for generation gen + 2.
 */
static int top__batches(struct session *s, struct top_sink *k, __u32 slot)
{
	int fd = bpf_map__fd(s->skel->maps.top_batch), cpu, e = 0;
	struct ldlat_top_batch *b = calloc(s->ncpus, sizeof(*b));
	__u32 i;

	if (!b)
		return -ENOMEM;
	if (bpf_map_lookup_elem(fd, &slot, b)) {
		e = -errno;
		goto out;
	}
	for (cpu = 0; cpu < s->ncpus && !e; cpu++) {
		for (i = 0; i < b[cpu].n && i < LDLAT_TOP_BATCH && !e; i++) {
			const struct ldlat_top_spill *r = &b[cpu].r[i];
			struct top_table *t = r->table == 0   ? k->ip
					      : r->table == 1 ? k->data
							      : k->stack;

			if (t && r->table < LDLAT_TOP_TABLES)
				t->spilled++;
			e = top__spilled(k, r);
		}
	}
	memset(b, 0, s->ncpus * sizeof(*b));
	if (!e && bpf_map_update_elem(fd, &slot, b, BPF_ANY))
		e = -errno;
out:
	free(b);
	return e;
}

/*
 * Clears the tables' full marks on every CPU (struct ldlat_top_full): the
 * drain emptied the generation before, so a table found full since may
 * have room.  A mark a program sets meanwhile may be lost: it is a hint.
 */
int top_session__clear_full(struct session *s)
{
	struct ldlat_top_full *z = calloc(s->ncpus, sizeof(*z));
	__u32 zero = 0;
	int e = 0;

	if (!z)
		return -ENOMEM;
	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.top_full), &zero, z, BPF_ANY))
		e = -errno;
	free(z);
	return e;
}

int top_sink__drain(struct top_sink *k, struct session *s, bool all)
{
	__u32 gen = s->skel->bss->top_gen;
	int e = 0;

	k->gen = gen;
	if (!all) {
		/* new samples go to gen + 1 from here; wait out those still writing gen */
		__atomic_store_n(&s->skel->bss->top_gen, gen + 1, __ATOMIC_SEQ_CST);
		clock_gettime(CLOCK_REALTIME, &k->drained.taken);
		top__wait_readers();
	} else {
		clock_gettime(CLOCK_REALTIME, &k->drained.taken);
	}
	/* the ring's gen records all precede its producer now; gen + 1's wait in the sink */
	e = top__ring_read(k, true);
	if (!e && k->ip)
		e = top__drain_map(s, s->skel->maps.top_ip, all, gen, k->ip);
	if (!e && k->data)
		e = top__drain_map(s, s->skel->maps.top_data, all, gen, k->data);
	if (!e && k->stack)
		e = top__drain_map(s, s->skel->maps.top_stack, all, gen, k->stack);
	if (!e)
		e = top__drain_front(s, k, gen, all);
	if (!e)
		e = top__batches(s, k, gen & 1);
	if (!e && all)
		e = top__batches(s, k, (gen + 1) & 1);
	if (!e && !all)
		e = top_session__clear_full(s);
	if (!e)
		e = top__counters(s, k, gen & 1);
	if (!e && all)
		e = top__counters(s, k, (gen + 1) & 1);
	if (!all)
		k->gen = gen + 1;
	return e;
}

/* Adds every entry of one table into another, and empties it. */
static int top__move(struct top_table *to, struct top_table *from)
{
	struct ldlat_top_val v;
	size_t i;
	int e = 0;

	for (i = 0; i < from->n && !e && to; i++) {
		top_table__val(from, &from->e[i], &v);
		e = top_table__merge(to, from->e[i].tgid, from->e[i].addr, &v);
	}
	if (to)
		to->capped += from->capped;
	top_table__reset(from);
	return e;
}

int top_sink__carry(struct top_sink *k)
{
	return top__move(k->ip, &k->next_ip) ?: top__move(k->data, &k->next_data)
						    ?: top__move(k->stack, &k->next_stack);
}

int top_session__stack(struct session *s, __u64 key, struct ldlat_top_stack *st)
{
	__u32 k, n;

	if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.top_stacks), &key, st))
		return -errno;
	/*
	 * The kernel's counts, bounded by what the value holds.  An IP of 0
	 * ends a stack: a frame-pointer walk that read a zeroed frame.  In a
	 * user stack it stays, as one frame, the outermost: perf script and
	 * perf report show it as [unknown], the mark of a broken chain (a run
	 * of them, which a walk may go on with to the depth limit, is one).
	 */
	for (k = 0; k < 2; k++) {
		for (n = 0; n < st->nr[k] && n < LDLAT_STACK_DEPTH && st->ips[k][n]; n++)
			;
		if (k == 0 && n < st->nr[k] && n < LDLAT_STACK_DEPTH)
			n++;
		st->nr[k] = n;
	}
	return 0;
}

int top_session__forget_stacks(struct session *s, __u32 parity)
{
	struct bpf_map *map = s->skel->maps.top_stacks;
	int fd = bpf_map__fd(map), e = 0;
	__u32 max = bpf_map__max_entries(map);
	__u64 *keys, *prev = NULL;
	size_t n = 0, i;

	keys = calloc((size_t)max + 1, sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	/* the keys first: deleting while walking restarts the walk */
	while (n <= max && !bpf_map_get_next_key(fd, prev, &keys[n])) {
		prev = &keys[n];
		n++;
	}
	for (i = 0; i < n; i++)
		if ((keys[i] & 1) == (parity & 1) && bpf_map_delete_elem(fd, &keys[i]) &&
		    errno != ENOENT) {
			e = -errno;
			break;
		}
	free(keys);
	return e;
}

static int top_prog__open(struct prog *p, struct tool *t, struct err *err)
{
	struct top_prog *tp = (struct top_prog *)p;
	struct session *s = &tp->sp.s;
	unsigned int flags = session__path_flag(t->path);
	bool walk = tp->walk != TOP_WALK_FP && (t->cfg.top & LDLAT_TOP_STACK);
	int e = top_session__open_unwind(s, &t->cfg, flags, walk ? &tp->unwind : NULL, err);

	tp->walking = walk && !e;
	if (e && walk && tp->walk == TOP_WALK_AUTO && e != -ENOMEM) {
		/* auto: the kernel refused the walker; its own frame-pointer walk then */
		snprintf(tp->why, sizeof(tp->why), "%s", err->msg);
		session__close(s);
		*err = (struct err){};
		e = top_session__open(s, &t->cfg, flags, err);
	}
	p->program = e ? NULL : session__program(s);
	return e;
}

void top_session__unwind_init(struct session *s, struct unwind_set *u)
{
	unwind_set__init(u, bpf_map__fd(s->skel->maps.unwind_files),
			 bpf_map__max_entries(s->skel->maps.unwind_files),
			 bpf_map__fd(s->skel->maps.unwind_procs),
			 bpf_map__max_entries(s->skel->maps.unwind_procs));
	u->refused = &s->skel->bss->unwind_procs_refused;
}

int top_session__unwind_defer_open(struct session *s, struct unwind_defer_queue *d, __u32 max_stack)
{
	return unwind_defer__open(d, bpf_map__fd(s->skel->maps.unwind_defer),
				  bpf_map__fd(s->skel->maps.unwind_files),
				  bpf_map__max_entries(s->skel->maps.unwind_files),
				  bpf_map__fd(s->skel->maps.unwind_procs), max_stack,
				  /* as much as the ring holds, kept at once */
				  bpf_map__max_entries(s->skel->maps.unwind_defer));
}

int top_session__unwind_counters(struct session *s, __u32 slot, bool all,
				 struct ldlat_unwind_counters *sum)
{
	int fd = bpf_map__fd(s->skel->maps.unwind_counters), cpu, e = 0;
	struct ldlat_unwind_counters *c = calloc(s->ncpus, sizeof(*c));
	__u32 k, w;

	if (!c)
		return -ENOMEM;
	for (k = 0; k < 2 && !e; k++) {
		__u32 key = (slot + k) & 1;

		if (k && !all)
			break;
		if (bpf_map_lookup_elem(fd, &key, c)) {
			e = -errno;
			break;
		}
		for (cpu = 0; cpu < s->ncpus; cpu++)
			for (w = 0; w < sizeof(*c) / sizeof(__u64); w++)
				((__u64 *)sum)[w] += ((const __u64 *)&c[cpu])[w];
		memset(c, 0, s->ncpus * sizeof(*c));
		if (bpf_map_update_elem(fd, &key, c, BPF_ANY))
			e = -errno;
	}
	free(c);
	return e;
}

static int top_prog__read(struct prog *p, void *sink, bool last, struct err *err)
{
	int e = top_sink__drain(sink, &((struct session_prog *)p)->s, last);

	return e ? err__set(err, e, "cannot read the tables: %s", strerror(-e)) : 0;
}

const struct prog_ops top_prog_ops = {
	.open = top_prog__open,
	.read = top_prog__read,
	.close = session_prog__close,
};
