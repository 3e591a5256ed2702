// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/abi/datasrc.h"
#include "bpf/ldlat.h"
#include "kernel/lib/util.h"

static const struct {
	const char *name;
	const char *token;
} classes[LDLAT_NCLASS] = {
	[LDLAT_CLASS_UNKNOWN] = { "unknown source", "unknown" },
	[LDLAT_CLASS_L1] = { "L1 hit", "l1" },
	[LDLAT_CLASS_LFB] = { "L1 fill buffer hit", "lfb" },
	[LDLAT_CLASS_L2] = { "L2 hit", "l2" },
	[LDLAT_CLASS_L3] = { "L3 hit", "l3" },
	[LDLAT_CLASS_L4] = { "L4 hit", "l4" },
	[LDLAT_CLASS_MSC] = { "memory-side cache hit", "msc" },
	[LDLAT_CLASS_ANY_CACHE] = { "cache hit (level unknown)", "any-cache" },
	[LDLAT_CLASS_LOCAL_HITM] = { "another core's modified line (local HITM)", "local-hitm" },
	[LDLAT_CLASS_PEER_CACHE] = { "peer cache (same node)", "peer-cache" },
	[LDLAT_CLASS_REMOTE_CACHE] = { "remote cache", "remote-cache-any" },
	[LDLAT_CLASS_REMOTE_CACHE_1HOP] = { "remote cache (1 hop)", "remote-cache-1hop" },
	[LDLAT_CLASS_REMOTE_CACHE_2HOP] = { "remote cache (2 hops)", "remote-cache-2hop" },
	[LDLAT_CLASS_REMOTE_CACHE_3HOP] = { "remote cache (3 hops)", "remote-cache-3hop" },
	[LDLAT_CLASS_REMOTE_HITM] = { "remote modified line (remote HITM)", "remote-hitm" },
	[LDLAT_CLASS_LOCAL_RAM] = { "local RAM", "local-ram" },
	[LDLAT_CLASS_REMOTE_RAM] = { "remote RAM", "remote-ram-any" },
	[LDLAT_CLASS_REMOTE_RAM_1HOP] = { "remote RAM (1 hop)", "remote-ram-1hop" },
	[LDLAT_CLASS_REMOTE_RAM_2HOP] = { "remote RAM (2 hops)", "remote-ram-2hop" },
	[LDLAT_CLASS_REMOTE_RAM_3HOP] = { "remote RAM (3 hops)", "remote-ram-3hop" },
	[LDLAT_CLASS_PMEM] = { "persistent memory", "pmem" },
	[LDLAT_CLASS_CXL] = { "CXL memory", "cxl" },
	[LDLAT_CLASS_IO] = { "I/O memory", "io" },
	[LDLAT_CLASS_UNCACHED] = { "uncached memory", "uncached" },
	[LDLAT_CLASS_MISS] = { "cache miss, source unknown", "miss" },
	[LDLAT_CLASS_L2_MHB] = { "L2 miss-handling buffer hit", "l2-mhb" },
};

#define BIT(c) (1u << (c))

static const struct {
	const char *token;
	__u32 mask;
} groups[] = {
	{ "hitm", BIT(LDLAT_CLASS_LOCAL_HITM) | BIT(LDLAT_CLASS_REMOTE_HITM) },
	{ "remote-cache", BIT(LDLAT_CLASS_REMOTE_CACHE) | BIT(LDLAT_CLASS_REMOTE_CACHE_1HOP) |
				  BIT(LDLAT_CLASS_REMOTE_CACHE_2HOP) |
				  BIT(LDLAT_CLASS_REMOTE_CACHE_3HOP) },
	{ "remote-ram", BIT(LDLAT_CLASS_REMOTE_RAM) | BIT(LDLAT_CLASS_REMOTE_RAM_1HOP) |
				BIT(LDLAT_CLASS_REMOTE_RAM_2HOP) |
				BIT(LDLAT_CLASS_REMOTE_RAM_3HOP) },
	{ "ram", BIT(LDLAT_CLASS_LOCAL_RAM) | BIT(LDLAT_CLASS_REMOTE_RAM) |
			 BIT(LDLAT_CLASS_REMOTE_RAM_1HOP) | BIT(LDLAT_CLASS_REMOTE_RAM_2HOP) |
			 BIT(LDLAT_CLASS_REMOTE_RAM_3HOP) },
	{ "cache", BIT(LDLAT_CLASS_L1) | BIT(LDLAT_CLASS_LFB) | BIT(LDLAT_CLASS_L2_MHB) |
			   BIT(LDLAT_CLASS_L2) | BIT(LDLAT_CLASS_L3) | BIT(LDLAT_CLASS_L4) |
			   BIT(LDLAT_CLASS_MSC) | BIT(LDLAT_CLASS_ANY_CACHE) |
			   BIT(LDLAT_CLASS_LOCAL_HITM) | BIT(LDLAT_CLASS_PEER_CACHE) |
			   BIT(LDLAT_CLASS_REMOTE_CACHE) | BIT(LDLAT_CLASS_REMOTE_CACHE_1HOP) |
			   BIT(LDLAT_CLASS_REMOTE_CACHE_2HOP) | BIT(LDLAT_CLASS_REMOTE_CACHE_3HOP) |
			   BIT(LDLAT_CLASS_REMOTE_HITM) },
	{ "all", LDLAT_ALL_CLASSES },
};

const char *class__name(unsigned int cls)
{
	return cls < LDLAT_NCLASS ? classes[cls].name : "?";
}

const char *class__token(unsigned int cls)
{
	return cls < LDLAT_NCLASS ? classes[cls].token : "?";
}

const char *class__list_help(void)
{
	static char buf[1024];
	size_t off;
	unsigned int i;

	if (buf[0])
		return buf;
	off = snprintf(buf, sizeof(buf), "classes:");
	for (i = 0; i < LDLAT_NCLASS && off < sizeof(buf); i++)
		off += snprintf(buf + off, sizeof(buf) - off, " %s", classes[i].token);
	off += snprintf(buf + off, sizeof(buf) - off, "; groups:");
	for (i = 0; i < ARRAY_SIZE(groups) && off < sizeof(buf); i++)
		off += snprintf(buf + off, sizeof(buf) - off, " %s", groups[i].token);
	return buf;
}

int class__parse_list(const char *list, __u32 *mask, struct err *err)
{
	char *copy = strdup(list), *tok, *save = NULL;
	unsigned int i;
	int found, n = 0;

	if (!copy)
		return -ENOMEM;
	*mask = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		found = 0;
		for (i = 0; i < LDLAT_NCLASS && !found; i++)
			if (!strcasecmp(tok, classes[i].token)) {
				*mask |= BIT(i);
				found = 1;
			}
		for (i = 0; i < ARRAY_SIZE(groups) && !found; i++)
			if (!strcasecmp(tok, groups[i].token)) {
				*mask |= groups[i].mask;
				found = 1;
			}
		if (!found) {
			err__msg(err, "unknown class '%s' in '%s' (%s)", tok, list,
				 class__list_help());
			free(copy);
			return -EINVAL;
		}
		n++;
	}
	free(copy);
	if (!n)
		return err__set(err, -EINVAL, "empty class list (%s)", class__list_help());
	return 0;
}

/* tools/perf/util/mem-events.c's tables */
static const char *const perf_lvl[] = {
	"N/A",
	"HIT",
	"MISS",
	"L1",
	"LFB/MAB",
	"L2",
	"L3",
	"Local RAM",
	"Remote RAM (1 hop)",
	"Remote RAM (2 hops)",
	"Remote Cache (1 hop)",
	"Remote Cache (2 hops)",
	"I/O",
	"Uncached",
};

static const char *const perf_lvlnum[16] = {
	[PERF_MEM_LVLNUM_L1] = "L1",
	[PERF_MEM_LVLNUM_L2] = "L2",
	[PERF_MEM_LVLNUM_L3] = "L3",
	[PERF_MEM_LVLNUM_L4] = "L4",
	[PERF_MEM_LVLNUM_L2_MHB] = "L2 MHB",
	[PERF_MEM_LVLNUM_MSC] = "Memory-side Cache",
	[PERF_MEM_LVLNUM_L0] = "L0",
	[PERF_MEM_LVLNUM_UNC] = "Uncached",
	[PERF_MEM_LVLNUM_CXL] = "CXL",
	[PERF_MEM_LVLNUM_IO] = "I/O",
	[PERF_MEM_LVLNUM_ANY_CACHE] = "Any cache",
	[PERF_MEM_LVLNUM_LFB] = "LFB/MAB",
	[PERF_MEM_LVLNUM_RAM] = "RAM",
	[PERF_MEM_LVLNUM_PMEM] = "PMEM",
	[PERF_MEM_LVLNUM_NA] = "N/A",
};

static const char *const perf_hops[] = {
	"N/A", "core, same node", "node, same socket", "socket, same board", "board",
};

static const char *const perf_snoop[] = { "N/A", "None", "Hit", "Miss", "HitM" };
static const char *const perf_snoopx[] = { "Fwd", "Peer" };

#define DS_FIELD(ds, f, bits)                                                                      \
	((unsigned int)(((ds) >> PERF_MEM_##f##_SHIFT) & ((1u << (bits)) - 1)))

/* Appends the names of the set bits of m, joined by " or ". */
static size_t names__append(char *buf, size_t len, size_t l, unsigned int m,
			    const char *const *names, unsigned int n)
{
	unsigned int i;

	for (i = 0; m && i < n; i++, m >>= 1) {
		if (!(m & 1))
			continue;
		l += snprintf(buf + l, l < len ? len - l : 0, "%s%s", l ? " or " : "", names[i]);
	}
	return l;
}

char *datasrc__perf_lvl(__u64 ds, char *buf, size_t len)
{
	unsigned int lvl = DS_FIELD(ds, LVL, 14), lnum = DS_FIELD(ds, LVLNUM, 4);
	unsigned int hops = DS_FIELD(ds, HOPS, 3);
	const char *hit = lvl & PERF_MEM_LVL_HIT ? "hit" : lvl & PERF_MEM_LVL_MISS ? "miss" : "";
	size_t l = 0;

	if (lnum && lnum != PERF_MEM_LVLNUM_NA) {
		if (DS_FIELD(ds, REMOTE, 1))
			l += snprintf(buf + l, l < len ? len - l : 0, "Remote ");
		if (hops)
			l += snprintf(buf + l, l < len ? len - l : 0, "%s ",
				      hops < ARRAY_SIZE(perf_hops) ? perf_hops[hops] : "?");
		if (perf_lvlnum[lnum])
			l += snprintf(buf + l, l < len ? len - l : 0, "%s", perf_lvlnum[lnum]);
		else
			l += snprintf(buf + l, l < len ? len - l : 0, "Unknown level %u", lnum);
		snprintf(buf + l, l < len ? len - l : 0, " %s", hit);
		return buf;
	}
	lvl &= ~(PERF_MEM_LVL_NA | PERF_MEM_LVL_HIT | PERF_MEM_LVL_MISS);
	l = names__append(buf, len, 0, lvl, perf_lvl, ARRAY_SIZE(perf_lvl));
	if (l)
		snprintf(buf + l, l < len ? len - l : 0, " %s", hit);
	else
		snprintf(buf, len, "N/A");
	return buf;
}

char *datasrc__perf_snoop(__u64 ds, char *buf, size_t len)
{
	size_t l;

	buf[0] = '\0';
	l = names__append(buf, len, 0, DS_FIELD(ds, SNOOP, 5), perf_snoop, ARRAY_SIZE(perf_snoop));
	l = names__append(buf, len, l, DS_FIELD(ds, SNOOPX, 2), perf_snoopx,
			  ARRAY_SIZE(perf_snoopx));
	if (!l)
		snprintf(buf, len, "N/A");
	return buf;
}

const char *datasrc__region(__u64 ds)
{
	static const char *const names[32] = {
		[PERF_MEM_REGION_L_SHARE] = "local shared cache",
		[PERF_MEM_REGION_L_NON_SHARE] = "local non-shared cache",
		[PERF_MEM_REGION_O_IO] = "another agent's I/O agent",
		[PERF_MEM_REGION_O_SHARE] = "another agent's shared cache",
		[PERF_MEM_REGION_O_NON_SHARE] = "another agent's non-shared cache",
		[PERF_MEM_REGION_MMIO] = "MMIO",
		[PERF_MEM_REGION_MEM0] = "memory region 0",
		[PERF_MEM_REGION_MEM0 + 1] = "memory region 1",
		[PERF_MEM_REGION_MEM0 + 2] = "memory region 2",
		[PERF_MEM_REGION_MEM0 + 3] = "memory region 3",
		[PERF_MEM_REGION_MEM0 + 4] = "memory region 4",
		[PERF_MEM_REGION_MEM0 + 5] = "memory region 5",
		[PERF_MEM_REGION_MEM0 + 6] = "memory region 6",
		[PERF_MEM_REGION_MEM0 + 7] = "memory region 7",
	};
	unsigned int r = DS_FIELD(ds, REGION, 5);

	if (r == PERF_MEM_REGION_NA)
		return NULL;
	return names[r] ? names[r] : "reserved region";
}
