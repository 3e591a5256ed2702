// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "kernel/abi/flockholder.h"
#include "kernel/abi/sysfs.h"

int flock__holder(int fd)
{
	char line[256];
	unsigned int maj, min;
	unsigned long ino;
	struct stat st;
	int pid, found = 0;
	FILE *f;

	if (fstat(fd, &st))
		return 0;
	f = fopen("/proc/locks", "re");
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		/* "1: FLOCK  ADVISORY  READ  1234 00:28:24820 0 EOF"; waiters have "->" */
		if (strstr(line, "->") || !strstr(line, "FLOCK"))
			continue;
		if (sscanf(line, "%*d: FLOCK %*s %*s %d %x:%x:%lu", &pid, &maj, &min, &ino) == 4 &&
		    ino == st.st_ino && maj == major(st.st_dev) && min == minor(st.st_dev) &&
		    pid != getpid())
			found = pid;
	}
	fclose(f);
	return found;
}

/* The parent of pid from /proc/PID/stat ("PID (comm) S PPID ..."); 0 if unknown. */
static int parent_of(int pid)
{
	char path[64], buf[512], *p;
	int ppid;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (file__read(path, buf, sizeof(buf)) < 0)
		return 0;
	p = strrchr(buf, ')'); /* comm may hold spaces and parentheses */
	if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1)
		return 0;
	return ppid;
}

bool proc__is_ancestor(int pid)
{
	int p = getppid(), depth;

	for (depth = 0; p > 0 && depth < 4096; depth++) {
		if (p == pid)
			return true;
		if (p == 1)
			break;
		p = parent_of(p);
	}
	return false;
}
