/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* mapsline.h - one line of /proc/PID/maps. */
#ifndef LDLAT_MAPSLINE_H
#define LDLAT_MAPSLINE_H

#include <stdbool.h>
#include <linux/types.h>

struct mapsline {
	__u64 lo, hi;	  /* [lo, hi) */
	__u64 pgoff;	  /* file offset of lo */
	bool exec;	  /* 'x' in the permissions */
	bool shared;	  /* 's' in the permissions: MAP_SHARED */
	__u32 maj, min;	  /* the file's device (0:0 for anonymous memory) */
	__u64 ino;	  /* and inode */
	const char *name; /* into the line, newline removed: a path, "[heap]", or "" */
};

/* Parses line (modified: its newline is cut). False when it is not a maps line. */
bool mapsline__parse(char *line, struct mapsline *m);

#endif
