// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/lib/notice.h"
#include "kernel/lib/unctrl.h"

__attribute__((format(printf, 3, 4))) void notice__add(char *buf, size_t len, const char *fmt, ...)
{
	size_t off = strnlen(buf, len);
	char *line;
	va_list ap;
	int n;

	if (off && off + 1 < len)
		buf[off++] = '\n';
	if (off >= len)
		return;
	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0) {
		buf[off] = '\0';
		return;
	}
	unctrl__str(buf + off, len - off, line);
	free(line);
}

__attribute__((format(printf, 3, 4))) void notice__print(FILE *out, const char *tool,
							 const char *fmt, ...)
{
	char *line, *all;
	size_t len;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	/* one write: stderr is unbuffered, and a line in pieces interleaves with the command's */
	len = n < 0 ? 0 : strlen(tool) + 2 + unctrl__len(line) + 2;
	all = len ? malloc(len) : NULL;
	if (all) {
		snprintf(all, len, "%s: ", tool);
		unctrl__str(all + strlen(all), len - strlen(all) - 1, line);
		strcat(all, "\n");
		fputs(all, out);
		free(all);
	} else {
		fprintf(out, "%s: out of memory for a notice\n", tool);
	}
	if (n >= 0)
		free(line);
}
