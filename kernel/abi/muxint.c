// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/lib/err.h"
#include "kernel/abi/muxint.h"
#include "kernel/abi/sysfs.h"

static void muxint__rel(char *buf, size_t len, const char *pmu)
{
	snprintf(buf, len, "bus/event_source/devices/%s/perf_event_mux_interval_ms", pmu);
}

int muxint__get(const char *pmu, int *ms)
{
	char rel[256], buf[32];
	int n;

	muxint__rel(rel, sizeof(rel), pmu);
	n = sysfs__read(rel, buf, sizeof(buf));
	if (n < 0)
		return n;
	*ms = atoi(buf);
	return 0;
}

int muxint__path(const char *pmu, char *path, size_t len)
{
	char rel[256];

	muxint__rel(rel, sizeof(rel), pmu);
	return sysfs__path(path, len, rel);
}

int muxint__pmu_of_path(const char *path, char *pmu, size_t len)
{
	static const char devices[] = "/bus/event_source/devices/";
	static const char file[] = "/perf_event_mux_interval_ms";
	const char *root = sysfs__root(), *name, *end;
	size_t n = strlen(root);

	if (strncmp(path, root, n) || strncmp(path + n, devices, sizeof(devices) - 1))
		return -EINVAL;
	name = path + n + sizeof(devices) - 1;
	end = strchr(name, '/');
	if (!end || strcmp(end, file) || end == name || (size_t)(end - name) >= len)
		return -EINVAL;
	/* one component, and not one that climbs out */
	if ((end - name == 1 && name[0] == '.') || (end - name == 2 && !strncmp(name, "..", 2)))
		return -EINVAL;
	snprintf(pmu, len, "%.*s", (int)(end - name), name);
	return 0;
}

int muxint__read_path(const char *path, int *ms)
{
	char buf[32];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return (int)n;
	buf[n] = '\0';
	*ms = atoi(buf);
	return 0;
}

int muxint__write_path(const char *path, int ms)
{
	char buf[32];
	int fd, n, e = 0;

	/* O_TRUNC: "4" over "1000" in a copy of sysfs leaves no "000" behind */
	fd = open(path, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = snprintf(buf, sizeof(buf), "%d\n", ms);
	if (write(fd, buf, n) != n)
		e = errno ? -errno : -EIO;
	close(fd);
	return e;
}

static int muxint__write(const char *pmu, int ms)
{
	char path[4096];

	if (muxint__path(pmu, path, sizeof(path)))
		return -ENAMETOOLONG;
	return muxint__write_path(path, ms);
}

int muxint__set(struct muxint_saved *saved, const char *pmu, int ms, struct err *err)
{
	int i, old, e;

	for (i = 0; i < saved->n; i++)
		if (!strcmp(saved->pmu[i].pmu, pmu))
			break;
	if (i == saved->n) {
		if (saved->n == MUXINT_MAX_PMUS) {
			err__msg(err, "--mux-interval: more than %d PMUs", MUXINT_MAX_PMUS);
			return -E2BIG;
		}
		e = muxint__get(pmu, &old);
		if (e) {
			err__msg(err,
				 "--mux-interval: PMU '%s' has no perf_event_mux_interval_ms in "
				 "%s/bus/event_source/devices/%s (%s)",
				 pmu, sysfs__root(), pmu, strerror(-e));
			return e;
		}
		snprintf(saved->pmu[i].pmu, sizeof(saved->pmu[i].pmu), "%s", pmu);
		saved->pmu[i].ms = old;
		saved->n++;
	}
	e = muxint__write(pmu, ms);
	if (e) {
		err__msg(err,
			 "--mux-interval: cannot write %d to %s's perf_event_mux_interval_ms: %s%s",
			 ms, pmu, strerror(-e),
			 e == -EACCES || e == -EPERM ? " (it needs root)" : "");
		saved->n--; /* nothing changed: nothing to put back */
		return e == -EACCES || e == -EPERM ? err__input(err, -EPERM) : e;
	}
	return 0;
}

int muxint__restore(struct muxint_saved *saved)
{
	int i, e, first = 0;

	for (i = 0; i < saved->n; i++) {
		e = muxint__write(saved->pmu[i].pmu, saved->pmu[i].ms);
		if (e && !first)
			first = e;
	}
	saved->n = 0;
	return first;
}
