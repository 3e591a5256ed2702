// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <stdio.h>
#include <string.h>

#include "user/symbols/mapsline.h"

bool mapsline__parse(char *line, struct mapsline *m)
{
	unsigned long long lo, hi, pgoff, ino = 0;
	unsigned int maj = 0, min = 0;
	char perms[8];
	int off = 0, dev = 0, inode = 0;
	bool known;

	if (sscanf(line, "%llx-%llx %7s %llx %n%*s %n%*s %n", &lo, &hi, perms, &pgoff, &dev, &inode,
		   &off) < 4 ||
	    !off || hi < lo)
		return false;
	known = sscanf(line + dev, "%x:%x", &maj, &min) == 2 &&
		sscanf(line + inode, "%llu", &ino) == 1;
	line[strcspn(line, "\n")] = '\0';
	m->lo = lo;
	m->hi = hi;
	m->pgoff = pgoff;
	m->exec = strlen(perms) > 2 && perms[2] == 'x';
	/* a line whose device or inode does not read is nobody's shared file */
	m->shared = known && strlen(perms) > 3 && perms[3] == 's';
	m->maj = known ? maj : 0;
	m->min = known ? min : 0;
	m->ino = known ? ino : 0;
	m->name = line + off;
	return true;
}
