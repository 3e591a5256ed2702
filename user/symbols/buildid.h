/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * buildid.h - files by GNU build ID (NT_GNU_BUILD_ID): its hex form, the
 * places where perf's build-ID cache keeps a copy of what perf record saw
 * (perf record fills it, perf archive packs it for another machine), and
 * the running kernel's build ID.
 */
#ifndef LDLAT_BUILDID_H
#define LDLAT_BUILDID_H

#include <stddef.h>

#define BUILDID_MAX 20

/* id (len bytes) as lowercase hex into out (2 * len + 1 bytes fit). */
void buildid__hex(const unsigned char *id, int len, char *out, size_t outlen);

/*
 * The i-th place (from 0) where perf's build-ID cache may hold the file
 * name (a path, "[vdso]", "[kernel.kallsyms]") of build ID hex: under
 * $PERF_BUILDID_DIR, else ~/.debug, .build-id/xx/rest/elf and .build-id/xx/rest
 * (older perf), then NAME/hex/elf (vdso for the vDSO, kallsyms for the
 * kernel's symbol table).  Returns 0 with the path in out, or -ENOENT when
 * there are no more places.
 */
int buildid__cache_path(int i, const char *name, const char *hex, char *out, size_t outlen);

/* The running kernel's build ID (/sys/kernel/notes) into id: its length, or -errno. */
int buildid__kernel(unsigned char *id, int max);

#endif
