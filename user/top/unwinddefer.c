// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "user/top/unwinddefer.h"

void unwind_native__init(struct unwind_native *n, int files_fd, __u32 max_files)
{
	memset(n, 0, sizeof(*n));
	n->files_fd = files_fd;
	n->nslots = max_files;
}

static void slot_clear(struct unwind_native *n, __u32 slot)
{
	free((void *)n->tables[slot].blocks);
	n->tables[slot].blocks = NULL;
	n->tables[slot].nblocks = 0;
	n->ids[slot] = 0;
}

/* slot's table, read block by block from its inner map (id). */
static int slot_read(struct unwind_native *n, __u32 slot, __u32 id)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), k;
	union ldlat_unwind_block *b;
	int fd, e = 0;

	fd = bpf_map_get_fd_by_id(id);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno; /* freed meanwhile */
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		e = -errno;
		goto out;
	}
	if (info.value_size != sizeof(*b) || !info.max_entries ||
	    info.max_entries > LDLAT_UNWIND_CHUNKS + 1) {
		e = -EINVAL;
		goto out;
	}
	b = malloc((size_t)info.max_entries * sizeof(*b));
	if (!b) {
		e = -ENOMEM;
		goto out;
	}
	for (k = 0; k < info.max_entries; k++)
		if (bpf_map_lookup_elem(fd, &k, &b[k])) {
			e = -errno;
			free(b);
			goto out;
		}
	n->tables[slot].blocks = b;
	n->tables[slot].nblocks = info.max_entries;
	n->ids[slot] = id;
out:
	close(fd);
	return e;
}

int unwind_native__tables(struct unwind_native *n, const struct ldlat_unwind_proc *p)
{
	__u32 i, slot, id;
	int e;

	if (!n->tables && n->nslots) {
		n->tables = calloc(n->nslots, sizeof(*n->tables));
		n->ids = calloc(n->nslots, sizeof(*n->ids));
		if (!n->tables || !n->ids)
			return -ENOMEM;
	}
	for (i = 0; p && i < p->n && i < LDLAT_UNWIND_MAPS; i++) {
		if (p->maps[i].kind != LDLAT_MAP_TABLE || (slot = p->maps[i].file) >= n->nslots)
			continue;
		/* the outer map gives user space the inner map's ID */
		if (bpf_map_lookup_elem(n->files_fd, &slot, &id)) {
			if (errno != ENOENT)
				return -errno;
			slot_clear(n, slot);
			continue;
		}
		if (n->ids[slot] == id)
			continue;
		slot_clear(n, slot);
		e = slot_read(n, slot, id);
		if (e)
			return e;
	}
	return 0;
}

__u32 unwind_native__walk(struct unwind_native *n, const struct ldlat_unwind_proc *p,
			  const struct ldlat_unwind_defer *d, __u32 max, __u64 *ips, __u32 *nr,
			  __u64 *frames_fp)
{
	struct ldlat_unwind_native env = {
		.tables = n->tables,
		.ntables = n->tables ? n->nslots : 0,
		.len = d->len <= sizeof(d->stack) ? d->len : 0,
		.at = d->sp,
		.copy = d->stack,
	};
	struct ldlat_unwind_state s = { .pc = d->pc, .sp = d->sp, .fp = d->fp, .tgid = d->tgid };
	__u32 i, stop = LDLAT_STOP_MAX;

	*nr = 0;
	for (i = 0; i < max && i < LDLAT_UNWIND_MAX_STACK; i++) {
		ips[i] = s.pc;
		*nr = i + 1;
		stop = ldlat_unwind_frame(&s, p, &env);
		if (stop < LDLAT_NSTOPS)
			break;
		stop = LDLAT_STOP_MAX;
	}
	*frames_fp = s.frames_fp;
	return stop;
}

void unwind_native__free(struct unwind_native *n)
{
	__u32 i;

	for (i = 0; n->tables && i < n->nslots; i++)
		free((void *)n->tables[i].blocks);
	free(n->tables);
	free(n->ids);
	n->tables = NULL;
	n->ids = NULL;
}
