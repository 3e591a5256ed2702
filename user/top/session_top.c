// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/membarrier.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "user/top/session_top.h"
#include "bpf/ldlat.skel.h"

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

/* Moves the entries of generation gen (every entry with all) from one map into t. */
static int top__drain_map(struct session *s, struct bpf_map *map, bool all, __u32 gen,
			  struct top_table *t)
{
	__u32 max = bpf_map__max_entries(map);
	int fd = bpf_map__fd(map), cpu, e = 0;
	struct ldlat_top_key *keys, *prev = NULL;
	struct ldlat_top_val *vals, sum;
	size_t nkeys = 0, i;

	keys = calloc(max + 1, sizeof(*keys));
	vals = calloc(s->ncpus, sizeof(*vals));
	if (!keys || !vals) {
		e = -ENOMEM;
		goto out;
	}
	/* collect the keys first: deleting while walking restarts the walk */
	while (nkeys <= max && !bpf_map_get_next_key(fd, prev, &keys[nkeys])) {
		prev = &keys[nkeys];
		nkeys++;
	}
	for (i = 0; i < nkeys; i++) {
		if (!all && keys[i].gen != gen)
			continue;
		if (bpf_map_lookup_elem(fd, &keys[i], vals))
			continue; /* deleted since: not ours */
		memset(&sum, 0, sizeof(sum));
		for (cpu = 0; cpu < s->ncpus; cpu++)
			top_val__add(&sum, &vals[cpu]);
		e = top_table__merge(t, keys[i].tgid, keys[i].addr, &sum);
		if (e)
			goto out;
		if (bpf_map_delete_elem(fd, &keys[i]) && errno != ENOENT) {
			e = -errno;
			goto out;
		}
	}
out:
	free(keys);
	free(vals);
	return e;
}

/* The not-attributed counters are cumulative in the kernel; t gets what is new. */
static int top__counters(struct session *s, struct top_table *ip, struct top_table *data)
{
	struct ldlat_top_counters *c, sum = {};
	__u32 zero = 0;
	int cpu, k;

	c = calloc(s->ncpus, sizeof(*c));
	if (!c)
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.top_counters), &zero, c)) {
		free(c);
		return -errno;
	}
	for (cpu = 0; cpu < s->ncpus; cpu++)
		for (k = 0; k < LDLAT_TOP_TABLES; k++) {
			sum.full[k] += c[cpu].full[k];
			sum.failed[k] += c[cpu].failed[k];
		}
	free(c);
	if (ip) {
		ip->full += sum.full[0] - s->top_seen.full[0];
		ip->failed += sum.failed[0] - s->top_seen.failed[0];
	}
	if (data) {
		data->full += sum.full[1] - s->top_seen.full[1];
		data->failed += sum.failed[1] - s->top_seen.failed[1];
	}
	s->top_seen = sum;
	return 0;
}

int session__top_drain(struct session *s, bool all, struct top_table *ip, struct top_table *data)
{
	__u32 gen = s->skel->bss->top_gen;
	int e = 0;

	if (!all) {
		/* new samples go to gen + 1 from here; wait out those still writing gen */
		__atomic_store_n(&s->skel->bss->top_gen, gen + 1, __ATOMIC_SEQ_CST);
		top__wait_readers();
	}
	if (ip)
		e = top__drain_map(s, s->skel->maps.top_ip, all, gen, ip);
	if (!e && data)
		e = top__drain_map(s, s->skel->maps.top_data, all, gen, data);
	if (!e)
		e = top__counters(s, ip, data);
	return e;
}
