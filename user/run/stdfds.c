// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "user/run/stdfds.h"

void stdfds__open(const char *tool)
{
	char msg[256];
	int fd, got;

	for (fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		/* the lowest free number: fd itself, as the ones below it are open */
		got = open("/dev/null", fd == STDIN_FILENO ? O_WRONLY : O_RDONLY);
		if (got == fd)
			continue;
		snprintf(msg, sizeof(msg), "%s: cannot open /dev/null for the closed fd %d: %s\n",
			 tool, fd, got < 0 ? strerror(errno) : "another number came back");
		if (write(STDERR_FILENO, msg, strlen(msg)) < 0) {
			/* standard error is closed too: the status alone says it */
		}
		_exit(1);
	}
}
