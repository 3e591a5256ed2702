// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "kernel/abi/flockholder.h"
#include "kernel/abi/sysfs.h"

/* The first holder of a flock on fd's file, other than this process, that want accepts. */
static int flock__find(int fd, bool (*want)(int pid, int arg), int arg)
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
		    pid != getpid() && want(pid, arg))
			found = pid;
	}
	fclose(f);
	return found;
}

static bool any_pid(int pid, int arg)
{
	(void)pid;
	(void)arg;
	return true;
}

static bool this_pid(int pid, int arg)
{
	return pid == arg;
}

int flock__holder(int fd)
{
	return flock__find(fd, any_pid, 0);
}

bool flock__held_by(int fd, int pid)
{
	return pid > 0 && flock__find(fd, this_pid, pid) == pid;
}

/* /proc/PID/stat after "PID (comm)", into buf; NULL if there is no such process. */
static const char *proc_stat(int pid, char *buf, size_t len)
{
	char path[64], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (pid <= 0 || file__read(path, buf, len) < 0)
		return NULL;
	p = strrchr(buf, ')'); /* comm may hold spaces and parentheses */
	return p ? p + 1 : NULL;
}

/* The parent of pid from /proc/PID/stat ("PID (comm) S PPID ..."); 0 if unknown. */
static int parent_of(int pid)
{
	char buf[512];
	const char *p = proc_stat(pid, buf, sizeof(buf));
	int ppid;

	if (!p || sscanf(p, " %*c %d", &ppid) != 1)
		return 0;
	return ppid;
}

unsigned long long proc__start_time(int pid)
{
	char buf[1024];
	const char *p = proc_stat(pid, buf, sizeof(buf));
	unsigned long long start;

	/* fields 3 (state) to 21 skipped, 22 is starttime */
	if (!p || sscanf(p,
			 " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d"
			 " %*d %*d %llu",
			 &start) != 1)
		return 0;
	return start;
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

int proc__who(int pid, struct proc_who *who)
{
	char path[64], buf[2048], *p;
	ssize_t n;
	size_t len;

	memset(who, 0, sizeof(*who));
	who->uid = -1;
	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	n = readlink(path, who->exe, sizeof(who->exe) - 1);
	who->exe[n > 0 ? n : 0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	/* the kernel ends comm with a newline; one inside it is the process's own */
	if (pid > 0 && file__read(path, buf, sizeof(buf)) >= 0) {
		len = strlen(buf);
		if (len && buf[len - 1] == '\n')
			buf[--len] = '\0';
		snprintf(who->comm, sizeof(who->comm), "%s", buf);
	}
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if (pid <= 0 || file__read(path, buf, sizeof(buf)) < 0)
		return who->exe[0] || who->comm[0] ? 0 : -ENOENT;
	p = strstr(buf, "\nUid:");
	if (p)
		who->uid = strtol(p + 5, NULL, 10);
	return 0;
}

bool proc_who__is(const struct proc_who *who, const char *name)
{
	const char *base = strrchr(who->exe, '/');
	size_t n = strlen(name);

	/* a program deleted since it started reads "/path/prog (deleted)" */
	if (base)
		return !strncmp(base + 1, name, n) &&
		       (!base[1 + n] || !strcmp(base + 1 + n, " (deleted)"));
	return !strcmp(who->comm, name);
}

void user__name(long uid, char *buf, size_t len)
{
	struct passwd *pw = uid >= 0 ? getpwuid((uid_t)uid) : NULL;

	if (pw)
		snprintf(buf, len, "%s", pw->pw_name);
	else
		snprintf(buf, len, "UID %ld", uid);
}
