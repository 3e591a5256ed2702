// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kernel/lib/notice.h"

__attribute__((format(printf, 3, 4))) void notice__add(char *buf, size_t len, const char *fmt, ...)
{
	size_t off = strnlen(buf, len);
	va_list ap;

	if (off && off + 1 < len)
		buf[off++] = '\n';
	if (off >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + off, len - off, fmt, ap);
	va_end(ap);
}
