/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * muxint.h - a PMU's multiplexing interval
 * (bus/event_source/devices/PMU/perf_event_mux_interval_ms: how often the
 * kernel rotates groups that do not all fit the counters), set for one run
 * and put back afterwards.  Writes go under LDLAT_SYSFS too, so tests can
 * use a copy of a fixture.
 */
#ifndef LDLAT_MUXINT_H
#define LDLAT_MUXINT_H

#include <stddef.h>

#include "kernel/lib/err.h"

#define MUXINT_MAX_PMUS 8

struct muxint_saved {
	int n;
	struct {
		char pmu[64];
		int ms; /* the value before the run */
	} pmu[MUXINT_MAX_PMUS];
};

/* The file of the PMU's interval (under LDLAT_SYSFS). Returns 0 or -ENAMETOOLONG. */
int muxint__path(const char *pmu, char *path, size_t len);

/*
 * The PMU whose interval path is, when path is exactly
 * ROOT/bus/event_source/devices/PMU/perf_event_mux_interval_ms with ROOT the
 * sysfs root and PMU one component other than "." and "..".  Returns 0, or
 * -EINVAL for any other path (a lock record must not send a write elsewhere).
 */
int muxint__pmu_of_path(const char *path, char *pmu, size_t len);

/*
 * The interval in that file, and a new one into it (truncated first).  The
 * file itself is never a symbolic link: -ELOOP.  Return 0 or -errno.
 */
int muxint__read_path(const char *path, int *ms);
int muxint__write_path(const char *path, int ms);

/* The PMU's interval in ms. Returns 0, -ENOENT when it has none, or -errno. */
int muxint__get(const char *pmu, int *ms);

/*
 * Remembers the PMU's interval in saved (once per PMU) and sets it to ms.
 * Returns 0 or -errno with a sentence in err (no such file, not root).
 */
int muxint__set(struct muxint_saved *saved, const char *pmu, int ms, struct err *err);

/* Puts every remembered interval back; safe to call twice. Returns 0 or the first -errno. */
int muxint__restore(struct muxint_saved *saved);

#endif
