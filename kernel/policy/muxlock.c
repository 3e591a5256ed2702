// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "kernel/abi/flockholder.h"
#include "kernel/policy/muxlock.h"

int muxlock__take(struct err *err)
{
	char who[32] = "";
	int fd, e, pid;

	fd = open(MUXLOCK_PATH, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		e = -errno;
		err__msg(err, "--mux-interval: cannot open the lock file " MUXLOCK_PATH ": %s%s",
			 strerror(-e), e == -EACCES ? " (it needs root)" : "");
		return e;
	}
	if (!flock(fd, LOCK_EX | LOCK_NB))
		return fd;
	e = -errno;
	pid = flock__holder(fd);
	if (e == -EWOULDBLOCK && pid > 0 && proc__is_ancestor(pid))
		return fd; /* taken around this run by the process that started it */
	close(fd);
	if (e != -EWOULDBLOCK) {
		err__msg(err, "--mux-interval: cannot lock " MUXLOCK_PATH ": %s", strerror(-e));
		return e;
	}
	if (pid > 0)
		snprintf(who, sizeof(who), " (PID %d)", pid);
	err__msg(err,
		 "--mux-interval: another run%s is changing the multiplexing interval (it "
		 "holds " MUXLOCK_PATH
		 ") and puts its own value back at its end; wait for it to end and "
		 "try again, or drop --mux-interval",
		 who);
	return -EBUSY;
}

void muxlock__release(int fd)
{
	if (fd >= 0)
		close(fd);
}
