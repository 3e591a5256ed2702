// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include "kernel/lib/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void err__msg(struct err *err, const char *fmt, ...)
{
	char msg[ERR_MSG_MAX];
	va_list ap;

	/* through a copy: the arguments may be the sentence itself */
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	memcpy(err->msg, msg, sizeof(msg));
}
