// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "kernel/abi/flockholder.h"
#include "kernel/abi/sysfs.h"
#include "kernel/lib/notice.h"
#include "kernel/policy/muxlock.h"

#define RECORD_MAX 4096

const char *muxlock__path(void)
{
	const char *env = secure_getenv("LDLAT_MUXLOCK");

	return env && *env ? env : MUXLOCK_PATH;
}

/* The record as the file holds it: its owner and the intervals it changed. */
struct record {
	int pid;
	unsigned long long start;
	int n;
	struct {
		char path[1024]; /* the interval's file, LDLAT_SYSFS as the run had it */
		int before, set;
	} pmu[MUXINT_MAX_PMUS];
};

static int record__read(int fd, struct record *r)
{
	char buf[RECORD_MAX], *line, *save = NULL;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	memset(r, 0, sizeof(*r));
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "owner %d %llu", &r->pid, &r->start) == 2)
			continue;
		/* the path last: it may hold spaces */
		if (r->n < MUXINT_MAX_PMUS &&
		    sscanf(line, "interval %d %d %1023[^\n]", &r->pmu[r->n].before,
			   &r->pmu[r->n].set, r->pmu[r->n].path) == 3)
			r->n++;
	}
	return 0;
}

/* The file holds r, whole, or nothing when r has no owner. */
static int record__write(int fd, const struct record *r)
{
	char buf[RECORD_MAX];
	size_t len = 0;
	int i;

	if (r->pid) {
		len += snprintf(buf + len, sizeof(buf) - len, "owner %d %llu\n", r->pid, r->start);
		for (i = 0; i < r->n && len < sizeof(buf); i++)
			len += snprintf(buf + len, sizeof(buf) - len, "interval %d %d %s\n",
					r->pmu[i].before, r->pmu[i].set, r->pmu[i].path);
	}
	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	if (ftruncate(fd, 0) || (len && pwrite(fd, buf, len, 0) != (ssize_t)len))
		return errno ? -errno : -EIO;
	return 0;
}

/* What this run records: itself, and what it changed (every PMU to ms). */
static void record__of(struct record *r, const struct muxint_saved *saved, int ms)
{
	int i;

	memset(r, 0, sizeof(*r));
	r->pid = getpid();
	r->start = proc__start_time(r->pid);
	for (i = 0; i < saved->n; i++) {
		muxint__path(saved->pmu[i].pmu, r->pmu[i].path, sizeof(r->pmu[i].path));
		r->pmu[i].before = saved->pmu[i].ms;
		r->pmu[i].set = ms;
	}
	r->n = saved->n;
}

static bool record__owner_alive(const struct record *r)
{
	return r->pid > 0 && r->start && proc__start_time(r->pid) == r->start;
}

/*
 * With the lock held: a dead owner's intervals put back where they still
 * read what it set, then the record emptied.  Returns how many were put
 * back, -EBUSY when the owner lives, or -errno (the record stays).
 */
static int refuse(struct err *err, const char *path, const char *what)
{
	err__msg(err,
		 "%s names %s, %s (%s/bus/event_source/devices/PMU/perf_event_mux_interval_ms): "
		 "nothing put back; ldlat-stat never writes such a record, remove %s",
		 muxlock__path(), path, what, sysfs__root(), muxlock__path());
	return err__input(err, -EINVAL);
}

static int recover_locked(int fd, char *recovered, size_t len, struct err *err)
{
	char pmu[256];
	struct record r;
	int i, cur, e, n = 0;

	e = record__read(fd, &r);
	if (e)
		return err__set(err, e, "cannot read %s: %s", muxlock__path(), strerror(-e));
	if (!r.pid)
		return 0;
	if (r.pid == getpid() && record__owner_alive(&r))
		return 0; /* our own (a second take in this process) */
	if (record__owner_alive(&r))
		return err__set(
			err, -EBUSY,
			"--mux-interval: another run (PID %d) is changing the multiplexing "
			"interval (it holds %s) and puts its own value back at its end; wait "
			"for it to end and try again, or drop --mux-interval",
			r.pid, muxlock__path());
	/*
	 * The record is a file, and a forged one must not make root write
	 * elsewhere: every path checked before anything is written.
	 */
	for (i = 0; i < r.n; i++)
		if (muxint__pmu_of_path(r.pmu[i].path, pmu, sizeof(pmu)))
			return refuse(err, r.pmu[i].path, "which is not a PMU's interval");
	for (i = 0; i < r.n; i++) {
		const char *path = r.pmu[i].path;

		e = muxint__read_path(path, &cur);
		if (e == -ELOOP)
			return refuse(err, path, "which is a symbolic link");
		if (e)
			continue; /* the PMU is gone: nothing to put back */
		if (cur != r.pmu[i].set) {
			if (recovered)
				notice__add(recovered, len,
					    "left %s at %d: PID %d, which died, had set it to %d "
					    "from %d, and it has changed since",
					    path, cur, r.pid, r.pmu[i].set, r.pmu[i].before);
			continue;
		}
		e = muxint__write_path(path, r.pmu[i].before);
		if (e)
			return err__set(err, e,
					"cannot put %s back to %d (PID %d, which died, had set it "
					"to %d): %s",
					path, r.pmu[i].before, r.pid, r.pmu[i].set, strerror(-e));
		if (recovered)
			notice__add(recovered, len,
				    "put %s back to %d (PID %d had set it to %d and died before it "
				    "could)",
				    path, r.pmu[i].before, r.pid, r.pmu[i].set);
		n++;
	}
	memset(&r, 0, sizeof(r));
	e = record__write(fd, &r);
	if (e)
		return err__set(err, e, "cannot empty %s: %s", muxlock__path(), strerror(-e));
	return n;
}

/* Opens the lock file and takes its flock: the fd, or -errno (-EWOULDBLOCK: held). */
static int lock_open(int flags, const char *what, struct err *err)
{
	char who[32] = "";
	int fd, e, pid;

	fd = open(muxlock__path(), O_RDWR | O_CLOEXEC | flags, 0600);
	if (fd < 0) {
		e = -errno;
		err__msg(err, "%s: cannot open the lock file %s: %s%s", what, muxlock__path(),
			 strerror(-e), e == -EACCES || e == -EPERM ? " (it needs root)" : "");
		/* a privilege the user lacks: theirs to fix, exit status 2 */
		return e == -EACCES || e == -EPERM ? err__input(err, -EPERM) : e;
	}
	if (!flock(fd, LOCK_EX | LOCK_NB))
		return fd;
	e = -errno;
	pid = flock__holder(fd);
	if (e == -EWOULDBLOCK && pid > 0 && proc__is_ancestor(pid))
		return fd; /* taken around this run by the process that started it */
	close(fd);
	if (e != -EWOULDBLOCK)
		return err__set(err, e, "%s: cannot lock %s: %s", what, muxlock__path(),
				strerror(-e));
	if (pid > 0)
		snprintf(who, sizeof(who), " (PID %d)", pid);
	err__msg(err,
		 "--mux-interval: another run%s is changing the multiplexing interval (it holds "
		 "%s) and puts its own value back at its end; wait for it to end and try again, "
		 "or drop --mux-interval",
		 who, muxlock__path());
	return -EBUSY;
}

int muxlock__take(struct muxlock *l, char *recovered, size_t len, struct err *err)
{
	struct record r;
	int fd, e;

	memset(l, 0, sizeof(*l));
	l->fd = -1;
	fd = lock_open(O_CREAT, "--mux-interval", err);
	if (fd < 0)
		return fd;
	e = recover_locked(fd, recovered, len, err);
	if (e >= 0) {
		record__of(&r, &l->saved, 0);
		e = record__write(fd, &r);
		if (e)
			err__msg(err, "--mux-interval: cannot write %s: %s", muxlock__path(),
				 strerror(-e));
	}
	if (e < 0) {
		close(fd);
		return e;
	}
	l->fd = fd;
	return 0;
}

int muxlock__set(struct muxlock *l, const char *pmu, int ms, struct err *err)
{
	struct muxint_saved next = l->saved;
	struct record r;
	int i, before, e;

	for (i = 0; i < next.n && strcmp(next.pmu[i].pmu, pmu); i++)
		;
	/* the value before, recorded before it changes; muxint__set words a missing PMU */
	if (i == next.n && next.n < MUXINT_MAX_PMUS && !muxint__get(pmu, &before)) {
		snprintf(next.pmu[i].pmu, sizeof(next.pmu[i].pmu), "%s", pmu);
		next.pmu[i].ms = before;
		next.n++;
	}
	record__of(&r, &next, ms);
	e = record__write(l->fd, &r);
	if (e)
		return err__set(err, e, "--mux-interval: cannot write %s: %s", muxlock__path(),
				strerror(-e));
	l->ms = ms;
	e = muxint__set(&l->saved, pmu, ms, err);
	if (e) {
		record__of(&r, &l->saved, ms); /* nothing changed: the record as before */
		record__write(l->fd, &r);
	}
	return e;
}

int muxlock__release(struct muxlock *l)
{
	struct record r = {};
	int e;

	if (l->fd < 0)
		return 0;
	e = muxint__restore(&l->saved);
	/* a value not put back stays recorded: once this process is gone, the next run finishes */
	if (!e)
		record__write(l->fd, &r);
	close(l->fd);
	l->fd = -1;
	return e;
}

int muxlock__recover(char *recovered, size_t len, struct err *err)
{
	int fd, n;

	fd = lock_open(0, "recover", err);
	if (fd == -ENOENT) {
		err__clear(err);
		return 0; /* no run ever recorded anything */
	}
	if (fd < 0)
		return fd;
	n = recover_locked(fd, recovered, len, err);
	close(fd);
	return n;
}
