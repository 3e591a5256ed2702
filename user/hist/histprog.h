/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * histprog.h - ldlat-hist's BPF program as a run drives it (an
 * implementation of user/run/prog.h) in a struct session_prog: the ldlat
 * program's session on the tool's read path, with a pinned set's maps and
 * its events' counts when the session_prog's flags say SESSION_PIN (not an
 * inherited event's count, which the program cannot read, nor tell a
 * child's from).  prog__read's model is a struct snapshot: the counters
 * and histograms.
 *
 *   struct session_prog prog = { .p.ops = &hist_prog_ops, .flags = SESSION_PIN };
 */
#ifndef LDLAT_HISTPROG_H
#define LDLAT_HISTPROG_H

#include "user/run/prog.h"
#include "user/run/session.h"

extern const struct prog_ops hist_prog_ops;

#endif
