/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * entry.h - running a command that is stopped at its exec on to its entry
 * point (AT_ENTRY), still stopped: by then the dynamic loader has mapped
 * every library the program links (DT_NEEDED), so that address ranges can
 * name them.  The loader's own work and the libraries' constructors run
 * unsampled.
 */
#ifndef LDLAT_ENTRY_H
#define LDLAT_ENTRY_H

#include <stddef.h>

#include "kernel/lib/err.h"
#include "user/run/command.h"

/*
 * Sets a breakpoint at the entry point of cmd (traced, stopped), lets it run
 * to it, and puts the instruction and the instruction pointer back: cmd is
 * stopped again, before its first instruction of its own.  Signals it gets
 * on the way are delivered to it.  A signal on sigfd (the tool's SIGINT,
 * SIGTERM, ...: see runloop.h; -1: none) gives up.  name is the command,
 * for messages.
 * Returns 0, or -errno with a sentence in err: -EOPNOTSUPP off x86_64,
 * -ECHILD when the command ended on the way (cmd is then reaped), -EINTR
 * for a signal on sigfd.
 */
int command__run_to_entry(struct command *cmd, const char *name, int sigfd, struct err *err);

#endif
