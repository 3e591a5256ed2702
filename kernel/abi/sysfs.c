// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/abi/sysfs.h"

const char *sysfs__root(void)
{
	const char *root = secure_getenv("LDLAT_SYSFS");

	return root && *root ? root : "/sys";
}

int sysfs__path(char *buf, size_t len, const char *rel)
{
	int n = snprintf(buf, len, "%s/%s", sysfs__root(), rel);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int file__read(const char *path, char *buf, size_t len)
{
	ssize_t n, got = 0;
	int fd, err = 0;

	if (!len)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((size_t)got < len - 1) {
		n = read(fd, buf + got, len - 1 - got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		if (n == 0)
			break;
		got += n;
	}
	close(fd);
	if (err)
		return err;
	buf[got] = '\0';
	while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == ' '))
		buf[--got] = '\0';
	return (int)got;
}

int sysfs__read(const char *rel, char *buf, size_t len)
{
	char path[4096];
	int err = sysfs__path(path, sizeof(path), rel);

	return err ? err : file__read(path, buf, len);
}

int procfs__read(const char *rel, char *buf, size_t len)
{
	const char *root = secure_getenv("LDLAT_PROCFS");
	char path[4096];
	int n = snprintf(path, sizeof(path), "%s/%s", root && *root ? root : "/proc", rel);

	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	return file__read(path, buf, len);
}
