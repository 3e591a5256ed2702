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
				BIT(LDLAT_CLASS_REMOTE_RAM_2HOP) |
				BIT(LDLAT_CLASS_REMOTE_RAM_3HOP) },
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
