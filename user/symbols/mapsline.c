// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <stdio.h>
#include <string.h>

#include "user/symbols/mapsline.h"

bool mapsline__parse(char *line, struct mapsline *m)
{
	unsigned long long lo, hi, pgoff;
	char perms[8];
	int off = 0;

	if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &lo, &hi, perms, &pgoff, &off) < 4 ||
	    !off || hi < lo)
		return false;
	line[strcspn(line, "\n")] = '\0';
	m->lo = lo;
	m->hi = hi;
	m->pgoff = pgoff;
	m->exec = strlen(perms) > 2 && perms[2] == 'x';
	m->name = line + off;
	return true;
}
