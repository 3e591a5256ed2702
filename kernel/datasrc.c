// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datasrc.h"
#include "../bpf/ldlat.h"

static const struct {
	const char *name;
	const char *token;
} classes[LDLAT_NCLASS] = {
	[LDLAT_CLASS_UNKNOWN] = { "unknown source", "unknown" },
	[LDLAT_CLASS_L1] = { "L1 hit", "l1" },
	[LDLAT_CLASS_LFB] = { "fill buffer hit", "lfb" },
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
				BIT(LDLAT_CLASS_REMOTE_RAM_2HOP) | BIT(LDLAT_CLASS_REMOTE_RAM_3HOP) },
	{ "ram", BIT(LDLAT_CLASS_LOCAL_RAM) | BIT(LDLAT_CLASS_REMOTE_RAM) |
			 BIT(LDLAT_CLASS_REMOTE_RAM_1HOP) | BIT(LDLAT_CLASS_REMOTE_RAM_2HOP) |
			 BIT(LDLAT_CLASS_REMOTE_RAM_3HOP) },
	{ "cache", BIT(LDLAT_CLASS_L1) | BIT(LDLAT_CLASS_LFB) | BIT(LDLAT_CLASS_L2) |
			   BIT(LDLAT_CLASS_L3) | BIT(LDLAT_CLASS_L4) | BIT(LDLAT_CLASS_MSC) |
			   BIT(LDLAT_CLASS_ANY_CACHE) | BIT(LDLAT_CLASS_LOCAL_HITM) |
			   BIT(LDLAT_CLASS_PEER_CACHE) | BIT(LDLAT_CLASS_REMOTE_CACHE) |
			   BIT(LDLAT_CLASS_REMOTE_CACHE_1HOP) | BIT(LDLAT_CLASS_REMOTE_CACHE_2HOP) |
			   BIT(LDLAT_CLASS_REMOTE_CACHE_3HOP) | BIT(LDLAT_CLASS_REMOTE_HITM) },
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
	for (i = 0; i < sizeof(groups) / sizeof(groups[0]) && off < sizeof(buf); i++)
		off += snprintf(buf + off, sizeof(buf) - off, " %s", groups[i].token);
	return buf;
}

int class__parse_list(const char *list, __u32 *mask, char *err, size_t errlen)
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
		for (i = 0; i < sizeof(groups) / sizeof(groups[0]) && !found; i++)
			if (!strcasecmp(tok, groups[i].token)) {
				*mask |= groups[i].mask;
				found = 1;
			}
		if (!found) {
			snprintf(err, errlen, "unknown class '%s' in '%s' (%s)", tok, list,
				 class__list_help());
			free(copy);
			return -EINVAL;
		}
		n++;
	}
	free(copy);
	if (!n) {
		snprintf(err, errlen, "empty class list (%s)", class__list_help());
		return -EINVAL;
	}
	return 0;
}

/* The names of the bits set in v, joined by '|', after a space. */
static size_t put_bits(char *buf, size_t len, size_t off, __u32 v, const char *const *names,
		       unsigned int nnames)
{
	unsigned int i;
	int any = 0;

	for (i = 0; i < nnames && off < len; i++) {
		if (!(v & (1u << i)) || !names[i])
			continue;
		off += snprintf(buf + off, len - off, "%s%s", any ? "|" : (off ? " " : ""), names[i]);
		any = 1;
	}
	return off;
}

void datasrc__snprint(__u64 ds, char *buf, size_t len)
{
	static const char *const ops[] = { "N/A", "LOAD", "STORE", "PFETCH", "EXEC" };
	static const char *const lvls[] = { "N/A", "HIT", "MISS", "L1", "LFB", "L2", "L3",
					    "Local RAM", "Remote RAM (1 hop)", "Remote RAM (2 hops)",
					    "Remote Cache (1 hop)", "Remote Cache (2 hops)", "I/O",
					    "Uncached" };
	static const char *const lnums[16] = { [PERF_MEM_LVLNUM_L1] = "L1",
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
					       [PERF_MEM_LVLNUM_NA] = "N/A" };
	static const char *const snoops[] = { "N/A", "None", "Hit", "Miss", "HitM" };
	static const char *const snoopxs[] = { "Fwd", "Peer" };
	static const char *const tlbs[] = { "N/A", "HIT", "MISS", "L1", "L2", "Walker", "Fault" };
	static const char *const hops[] = { NULL, "core, same node", "node, same socket",
					    "socket, same board", "board" };
	__u32 lnum = LDLAT_DS(ds, LVLNUM, 4), h = LDLAT_DS(ds, HOPS, 3);
	size_t off = 0;

	if (len)
		buf[0] = '\0';
	off = put_bits(buf, len, off, LDLAT_DS(ds, OP, 5), ops, 5);
	if (lnum && off < len) {
		off += snprintf(buf + off, len - off, " %s%s",
				LDLAT_DS(ds, REMOTE, 1) ? "Remote " : "",
				lnums[lnum] ? lnums[lnum] : "Reserved");
		if (h && h < 5 && off < len)
			off += snprintf(buf + off, len - off, " (%s)", hops[h]);
		if ((LDLAT_DS(ds, LVL, 14) & PERF_MEM_LVL_MISS) && off < len)
			off += snprintf(buf + off, len - off, " miss");
		else if (off < len)
			off += snprintf(buf + off, len - off, " hit");
	} else {
		off = put_bits(buf, len, off, LDLAT_DS(ds, LVL, 14), lvls, 14);
	}
	if (off < len)
		off += snprintf(buf + off, len - off, " SNOOP");
	off = put_bits(buf, len, off, LDLAT_DS(ds, SNOOP, 5), snoops, 5);
	off = put_bits(buf, len, off, LDLAT_DS(ds, SNOOPX, 2), snoopxs, 2);
	if (off < len)
		off += snprintf(buf + off, len - off, " TLB");
	off = put_bits(buf, len, off, LDLAT_DS(ds, TLB, 7), tlbs, 7);
	if (LDLAT_DS(ds, LOCK, 2) & PERF_MEM_LOCK_LOCKED && off < len)
		off += snprintf(buf + off, len - off, " LOCKED");
}
