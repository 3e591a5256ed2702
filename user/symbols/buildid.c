// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "user/symbols/buildid.h"

#define NT_GNU_BUILD_ID_TYPE 3

void buildid__hex(const unsigned char *id, int len, char *out, size_t outlen)
{
	size_t k = 0;
	int i;

	if (outlen)
		out[0] = '\0';
	for (i = 0; i < len && k + 3 <= outlen; i++, k += 2)
		snprintf(out + k, outlen - k, "%02x", id[i]);
}

/* perf's: $PERF_BUILDID_DIR, else $HOME/.debug. */
static const char *cache_dir(char *buf, size_t len)
{
	const char *d = secure_getenv("PERF_BUILDID_DIR"), *home = secure_getenv("HOME");

	if (d && *d)
		return d;
	if (!home || !*home)
		return NULL;
	snprintf(buf, len, "%s/.debug", home);
	return buf;
}

int buildid__cache_path(int i, const char *name, const char *hex, char *out, size_t outlen)
{
	char dbuf[4096];
	const char *dir = cache_dir(dbuf, sizeof(dbuf));
	const char *leaf = !strcmp(name, "[vdso]")		? "vdso"
			   : !strcmp(name, "[kernel.kallsyms]") ? "kallsyms"
								: "elf";

	if (!dir || strlen(hex) < 3)
		return -ENOENT;
	switch (i) {
	case 0:
		snprintf(out, outlen, "%s/.build-id/%.2s/%s/%s", dir, hex, hex + 2, leaf);
		return 0;
	case 1:
		snprintf(out, outlen, "%s/.build-id/%.2s/%s", dir, hex, hex + 2);
		return 0;
	case 2:
		snprintf(out, outlen, "%s%s%s/%s/%s", dir, name[0] == '/' ? "" : "/", name, hex,
			 leaf);
		return 0;
	default:
		return -ENOENT;
	}
}

/* A note in [p, end): 4-byte name size, description size, type; both padded to 4. */
int buildid__kernel(unsigned char *id, int max)
{
	unsigned char buf[4096];
	size_t off = 0, n;
	ssize_t got;
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	got = read(fd, buf, sizeof(buf));
	close(fd);
	if (got < 0)
		return -errno;
	n = (size_t)got;
	while (off + 12 <= n) {
		unsigned int namesz, descsz, type;
		size_t name_off = off + 12, desc_off, next;

		memcpy(&namesz, buf + off, 4);
		memcpy(&descsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		desc_off = name_off + ((namesz + 3) & ~3u);
		next = desc_off + ((descsz + 3) & ~3u);
		if (namesz > n || descsz > n || next > n)
			break;
		if (type == NT_GNU_BUILD_ID_TYPE && namesz == 4 &&
		    !memcmp(buf + name_off, "GNU", 4) && descsz > 0) {
			if ((int)descsz > max)
				descsz = (unsigned int)max;
			memcpy(id, buf + desc_off, descsz);
			return (int)descsz;
		}
		off = next;
	}
	return -ENOENT;
}
