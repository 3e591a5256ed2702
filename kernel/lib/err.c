// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include "kernel/lib/err.h"
#include "kernel/lib/unctrl.h"

#include <stdarg.h>
#include <string.h>

static void err__vmsg(struct err *err, const char *fmt, va_list ap)
{
	char msg[ERR_MSG_MAX];

	/* through a copy: the arguments may quote the sentence it replaces */
	vsnprintf(msg, sizeof(msg), fmt, ap);
	memcpy(err->msg, msg, sizeof(msg));
}

void err__msg(struct err *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err__vmsg(err, fmt, ap);
	va_end(ap);
}

int err__set(struct err *err, int e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err__vmsg(err, fmt, ap);
	va_end(ap);
	return e;
}

static int err__mark(struct err *err, int e, enum err_fault fault)
{
	if (e < 0) {
		err->fault = fault;
		err->errnum = -e;
	}
	return e;
}

int err__input(struct err *err, int e)
{
	return err__mark(err, e, ERR_FAULT_INPUT);
}

int err__system(struct err *err, int e)
{
	return err__mark(err, e, ERR_FAULT_SYSTEM);
}

bool err__has_fault(const struct err *err, int e)
{
	return e < 0 && err->fault != ERR_FAULT_UNSET && err->errnum == -e;
}

void err__clear(struct err *err)
{
	err->fault = ERR_FAULT_UNSET;
	err->errnum = 0;
	err->msg[0] = '\0';
}

int err__status(const struct err *err, int e)
{
	/*
	 * -EINTR: a SIGINT or SIGTERM came before the run began (while the
	 * command loaded its libraries, before a FIFO had a reader): the user
	 * ended it, and a run the user ends exits 0, whenever the signal comes
	 */
	if (!e || e == -EINTR)
		return 0;
	if (err__has_fault(err, e))
		return err->fault == ERR_FAULT_INPUT ? ERR_EXIT_INPUT : ERR_EXIT_SYSTEM;
	return e == -EINVAL || e == -ERANGE ? ERR_EXIT_INPUT : ERR_EXIT_SYSTEM;
}

int err__report(const struct err *err, int e, const char *tool, FILE *out)
{
	char line[4 * ERR_MSG_MAX + 128];

	/*
	 * A failure nobody worded (an allocation's, say) still says what
	 * failed.  In one write: stderr is unbuffered, and a line written in
	 * pieces interleaves with what the command writes.
	 */
	if (e) {
		snprintf(line, sizeof(line), "%s: ", tool);
		unctrl__str(line + strlen(line), sizeof(line) - strlen(line) - 1,
			    err->msg[0] ? err->msg : strerror(-e));
		strcat(line, "\n");
		fputs(line, out);
	}
	return err__status(err, e);
}

int err__check_stdout(int status, const char *tool)
{
	int e = 0;

	errno = 0;
	if (fflush(stdout))
		e = errno ? errno : EIO;
	else if (ferror(stdout))
		e = EIO; /* an earlier write failed: its errno is gone */
	if (!e || status)
		return status;
	fprintf(stderr, "%s: cannot write the report to standard output: %s\n", tool, strerror(e));
	return ERR_EXIT_SYSTEM;
}
