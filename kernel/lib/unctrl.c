// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <string.h>

#include "kernel/lib/unctrl.h"

/*
 * The bytes of the printable character at s: a printable ASCII byte, or a
 * well-formed UTF-8 sequence that is not a C1 control; 0 when s[0] is to be
 * escaped.  A NUL ends a sequence: it is never a continuation byte.
 */
static size_t printable(const unsigned char *s)
{
	size_t n, i;

	if (s[0] < 0x80)
		return s[0] >= 0x20 && s[0] != 0x7f;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0; /* a continuation byte, an overlong C0/C1 lead, or past U+10FFFF */
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((s[0] == 0xc2 && s[1] < 0xa0) || /* U+0080-U+009F: the C1 controls */
	    (s[0] == 0xe0 && s[1] < 0xa0) || /* overlong */
	    (s[0] == 0xed && s[1] > 0x9f) || /* a UTF-16 surrogate */
	    (s[0] == 0xf0 && s[1] < 0x90) || /* overlong */
	    (s[0] == 0xf4 && s[1] > 0x8f))   /* past U+10FFFF */
		return 0;
	return n;
}

/*
 * The next piece of s escaped: *n bytes of s as they are (returns s), or an
 * escape of one byte in esc (returns esc, *n its length); *adv: the bytes
 * of s it stands for.
 */
static const char *unctrl__next(const char *s, char esc[5], size_t *n, size_t *adv)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char c = (unsigned char)*s;

	*adv = printable((const unsigned char *)s);
	if (*adv) {
		*n = *adv;
		return s;
	}
	*adv = 1;
	esc[0] = '\\';
	if (c == '\n' || c == '\t') {
		esc[1] = c == '\n' ? 'n' : 't';
		*n = 2;
	} else {
		esc[1] = 'x';
		esc[2] = hex[c >> 4];
		esc[3] = hex[c & 0xf];
		*n = 4;
	}
	return esc;
}

void unctrl__fputs(FILE *out, const char *s)
{
	char esc[5];
	const char *piece;
	size_t n, adv;

	while (*s) {
		piece = unctrl__next(s, esc, &n, &adv);
		fwrite(piece, 1, n, out);
		s += adv;
	}
}

size_t unctrl__len(const char *s)
{
	char esc[5];
	size_t n, adv, len = 0;

	while (*s) {
		unctrl__next(s, esc, &n, &adv);
		len += n;
		s += adv;
	}
	return len;
}

char *unctrl__str(char *buf, size_t len, const char *s)
{
	char esc[5];
	const char *piece;
	size_t n, adv, off = 0;

	if (!len)
		return buf;
	while (*s) {
		piece = unctrl__next(s, esc, &n, &adv);
		if (off + n >= len)
			break;
		memcpy(buf + off, piece, n);
		off += n;
		s += adv;
	}
	buf[off] = '\0';
	return buf;
}
