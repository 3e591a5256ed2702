// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "kernel/abi/evnames.h"
#include "kernel/lib/util.h"

#define MAX_ALIASES 6

struct symbol {
	__u64 config;
	const char *name[3]; /* the canonical name first */
};

static const struct symbol hw_symbols[] = {
	{ PERF_COUNT_HW_CPU_CYCLES, { "cycles", "cpu-cycles" } },
	{ PERF_COUNT_HW_INSTRUCTIONS, { "instructions" } },
	{ PERF_COUNT_HW_CACHE_REFERENCES, { "cache-references" } },
	{ PERF_COUNT_HW_CACHE_MISSES, { "cache-misses" } },
	{ PERF_COUNT_HW_BRANCH_INSTRUCTIONS, { "branches", "branch-instructions" } },
	{ PERF_COUNT_HW_BRANCH_MISSES, { "branch-misses" } },
	{ PERF_COUNT_HW_BUS_CYCLES, { "bus-cycles" } },
	{ PERF_COUNT_HW_STALLED_CYCLES_FRONTEND,
	  { "stalled-cycles-frontend", "idle-cycles-frontend" } },
	{ PERF_COUNT_HW_STALLED_CYCLES_BACKEND,
	  { "stalled-cycles-backend", "idle-cycles-backend" } },
	{ PERF_COUNT_HW_REF_CPU_CYCLES, { "ref-cycles" } },
};

static const struct symbol sw_symbols[] = {
	{ PERF_COUNT_SW_CPU_CLOCK, { "cpu-clock" } },
	{ PERF_COUNT_SW_TASK_CLOCK, { "task-clock" } },
	{ PERF_COUNT_SW_PAGE_FAULTS, { "page-faults", "faults" } },
	{ PERF_COUNT_SW_CONTEXT_SWITCHES, { "context-switches", "cs" } },
	{ PERF_COUNT_SW_CPU_MIGRATIONS, { "cpu-migrations", "migrations" } },
	{ PERF_COUNT_SW_PAGE_FAULTS_MIN, { "minor-faults" } },
	{ PERF_COUNT_SW_PAGE_FAULTS_MAJ, { "major-faults" } },
	{ PERF_COUNT_SW_ALIGNMENT_FAULTS, { "alignment-faults" } },
	{ PERF_COUNT_SW_EMULATION_FAULTS, { "emulation-faults" } },
	{ PERF_COUNT_SW_DUMMY, { "dummy" } },
	{ PERF_COUNT_SW_BPF_OUTPUT, { "bpf-output" } },
	{ PERF_COUNT_SW_CGROUP_SWITCHES, { "cgroup-switches" } },
};

/* tools/perf/util/evsel.c: evsel__hw_cache, _op, _result; the canonical name first */
static const char *const cache_names[PERF_COUNT_HW_CACHE_MAX][MAX_ALIASES] = {
	[PERF_COUNT_HW_CACHE_L1D] = { "L1-dcache", "l1-d", "l1d", "L1-data" },
	[PERF_COUNT_HW_CACHE_L1I] = { "L1-icache", "l1-i", "l1i", "L1-instruction" },
	[PERF_COUNT_HW_CACHE_LL] = { "LLC", "L2" },
	[PERF_COUNT_HW_CACHE_DTLB] = { "dTLB", "d-tlb", "Data-TLB" },
	[PERF_COUNT_HW_CACHE_ITLB] = { "iTLB", "i-tlb", "Instruction-TLB" },
	[PERF_COUNT_HW_CACHE_BPU] = { "branch", "branches", "bpu", "btb", "bpc" },
	[PERF_COUNT_HW_CACHE_NODE] = { "node" },
};

/* [op][0] names a miss ("load-misses"), [op][1] an access ("loads") */
static const char *const op_names[PERF_COUNT_HW_CACHE_OP_MAX][MAX_ALIASES] = {
	[PERF_COUNT_HW_CACHE_OP_READ] = { "load", "loads", "read" },
	[PERF_COUNT_HW_CACHE_OP_WRITE] = { "store", "stores", "write" },
	[PERF_COUNT_HW_CACHE_OP_PREFETCH] = { "prefetch", "prefetches", "speculative-read",
					      "speculative-load" },
};

static const char *const result_names[PERF_COUNT_HW_CACHE_RESULT_MAX][MAX_ALIASES] = {
	[PERF_COUNT_HW_CACHE_RESULT_ACCESS] = { "refs", "Reference", "ops", "access" },
	[PERF_COUNT_HW_CACHE_RESULT_MISS] = { "misses", "miss" },
};

/*
 * The ops the kernel's cache tables define per cache (perf's
 * evsel__hw_cache_stat): the L1 instruction cache has no stores, the
 * instruction TLB and the branch predictor only reads.
 */
#define OP(x) (1u << PERF_COUNT_HW_CACHE_OP_##x)
static const unsigned int cache_ops[PERF_COUNT_HW_CACHE_MAX] = {
	[PERF_COUNT_HW_CACHE_L1D] = OP(READ) | OP(WRITE) | OP(PREFETCH),
	[PERF_COUNT_HW_CACHE_L1I] = OP(READ) | OP(PREFETCH),
	[PERF_COUNT_HW_CACHE_LL] = OP(READ) | OP(WRITE) | OP(PREFETCH),
	[PERF_COUNT_HW_CACHE_DTLB] = OP(READ) | OP(WRITE) | OP(PREFETCH),
	[PERF_COUNT_HW_CACHE_ITLB] = OP(READ),
	[PERF_COUNT_HW_CACHE_BPU] = OP(READ),
	[PERF_COUNT_HW_CACHE_NODE] = OP(READ) | OP(WRITE) | OP(PREFETCH),
};

bool evname__cache_op_valid(unsigned int cache, unsigned int op)
{
	return cache < PERF_COUNT_HW_CACHE_MAX && op < PERF_COUNT_HW_CACHE_OP_MAX &&
	       (cache_ops[cache] & (1u << op));
}

static const struct symbol *symbol__find(const struct symbol *tab, size_t n, const char *name)
{
	size_t i, a;

	for (i = 0; i < n; i++)
		for (a = 0; a < ARRAY_SIZE(tab[i].name) && tab[i].name[a]; a++)
			if (!strcasecmp(name, tab[i].name[a]))
				return &tab[i];
	return NULL;
}

/*
 * Matches one alias of names[0..n) at *p, followed by '-' or the end;
 * aliases may hold '-' themselves, so the longest match wins.  Advances *p
 * past it and its '-'.  Returns the index or -1.
 */
static int match_word(const char **p, const char *const names[][MAX_ALIASES], int n)
{
	size_t best_len = 0, len;
	int i, a, best = -1;

	for (i = 0; i < n; i++) {
		for (a = 0; a < MAX_ALIASES && names[i][a]; a++) {
			len = strlen(names[i][a]);
			if (len > best_len && !strncasecmp(*p, names[i][a], len) &&
			    ((*p)[len] == '-' || !(*p)[len])) {
				best = i;
				best_len = len;
			}
		}
	}
	if (best >= 0) {
		*p += best_len;
		if (**p == '-')
			(*p)++;
	}
	return best;
}

static void cache_name(unsigned int cache, unsigned int op, unsigned int result, char *buf,
		       size_t len)
{
	if (result == PERF_COUNT_HW_CACHE_RESULT_MISS)
		snprintf(buf, len, "%s-%s-%s", cache_names[cache][0], op_names[op][0],
			 result_names[result][0]);
	else
		snprintf(buf, len, "%s-%s", cache_names[cache][0], op_names[op][1]);
}

/* perf's legacy cache syntax: the cache first, then an op and a result in either order. */
static int cache_lookup(const char *name, struct perf_event_attr *attr, char *canon, size_t len,
			struct err *err)
{
	const char *p = name;
	int cache, op = -1, result = -1, w;

	cache = match_word(&p, cache_names, PERF_COUNT_HW_CACHE_MAX);
	if (cache < 0)
		return -ENOENT;
	while (*p) {
		if (op < 0 && (w = match_word(&p, op_names, PERF_COUNT_HW_CACHE_OP_MAX)) >= 0)
			op = w;
		else if (result < 0 &&
			 (w = match_word(&p, result_names, PERF_COUNT_HW_CACHE_RESULT_MAX)) >= 0)
			result = w;
		else
			return -ENOENT;
	}
	if (op < 0)
		op = PERF_COUNT_HW_CACHE_OP_READ;
	if (result < 0)
		result = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
	if (!evname__cache_op_valid(cache, op)) {
		err__msg(err,
			 "event '%s': the kernel defines no %s operation for the %s cache "
			 "(%s counts %s)",
			 name, op_names[op][0], cache_names[cache][0], cache_names[cache][0],
			 cache_ops[cache] == OP(READ) ? "loads only" : "loads and prefetches");
		return -EINVAL;
	}
	attr->type = PERF_TYPE_HW_CACHE;
	attr->config = evname__cache_config(cache, op, result);
	cache_name(cache, op, result, canon, len);
	return 0;
}

int evname__lookup(const char *name, struct perf_event_attr *attr, char *canon, size_t len,
		   struct err *err)
{
	const struct symbol *s;

	/* "branches" is both a hardware event and a cache alias: perf takes the hardware event */
	s = symbol__find(hw_symbols, ARRAY_SIZE(hw_symbols), name);
	if (s) {
		attr->type = PERF_TYPE_HARDWARE;
		attr->config = s->config;
		snprintf(canon, len, "%s", s->name[0]);
		return 0;
	}
	s = symbol__find(sw_symbols, ARRAY_SIZE(sw_symbols), name);
	if (s) {
		attr->type = PERF_TYPE_SOFTWARE;
		attr->config = s->config;
		snprintf(canon, len, "%s", s->name[0]);
		return 0;
	}
	return cache_lookup(name, attr, canon, len, err);
}

int evname__cache_all(__u64 *configs, int max)
{
	unsigned int c, o, r;
	int n = 0;

	for (c = 0; c < PERF_COUNT_HW_CACHE_MAX; c++)
		for (o = 0; o < PERF_COUNT_HW_CACHE_OP_MAX; o++)
			for (r = 0; r < PERF_COUNT_HW_CACHE_RESULT_MAX; r++) {
				if (!evname__cache_op_valid(c, o))
					continue;
				if (n < max)
					configs[n] = evname__cache_config(c, o, r);
				n++;
			}
	return n;
}

bool evname__cache_decode(__u64 config, unsigned int *cache, unsigned int *op, unsigned int *result)
{
	*cache = config & 0xff;
	*op = (config >> 8) & 0xff;
	*result = (config >> 16) & 0xff;
	return !(config >> 24) && *cache < PERF_COUNT_HW_CACHE_MAX &&
	       *op < PERF_COUNT_HW_CACHE_OP_MAX && *result < PERF_COUNT_HW_CACHE_RESULT_MAX;
}

bool evname__name(__u32 type, __u64 config, char *buf, size_t len)
{
	unsigned int c, o, r;
	size_t i;

	switch (type) {
	case PERF_TYPE_HARDWARE:
		for (i = 0; i < ARRAY_SIZE(hw_symbols); i++)
			if (hw_symbols[i].config == config) {
				snprintf(buf, len, "%s", hw_symbols[i].name[0]);
				return true;
			}
		break;
	case PERF_TYPE_SOFTWARE:
		for (i = 0; i < ARRAY_SIZE(sw_symbols); i++)
			if (sw_symbols[i].config == config) {
				snprintf(buf, len, "%s", sw_symbols[i].name[0]);
				return true;
			}
		break;
	case PERF_TYPE_HW_CACHE:
		if (evname__cache_decode(config, &c, &o, &r) && evname__cache_op_valid(c, o)) {
			cache_name(c, o, r, buf, len);
			return true;
		}
		break;
	}
	snprintf(buf, len, "%u:0x%llx", type, (unsigned long long)config);
	return false;
}
