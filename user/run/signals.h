/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * signals.h - the signals that end a run: SIGINT, SIGTERM and every other
 * signal whose default action would end the process (SIGHUP, SIGQUIT,
 * SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGIO,
 * SIGPWR, SIGSTKFLT, the real-time ones) are blocked and read from a
 * signalfd, so that every one of them ends the run through its teardown;
 * a command started after '--' gets them back as they were.
 */
#ifndef LDLAT_SIGNALS_H
#define LDLAT_SIGNALS_H

#include <signal.h>

/*
 * Blocks the signals that end a run, first thing in main: one that arrives
 * while a tool parses its arguments and starts waits, for the run's
 * signalfd (a live run honours it at its first look, through its teardown)
 * or for signals__release.  *old: the mask before.  Returns 0 or -errno.
 */
int signals__hold(sigset_t *old);

/* Puts back the mask signals__hold found: a signal held meanwhile acts now, as it would have. */
void signals__release(const sigset_t *old);

/*
 * Blocks SIGINT, SIGTERM and every other signal whose default action would
 * end the process without its teardown (so that one that arrives while a
 * tool starts waits for the signalfd), and ignores SIGPIPE (so that a write
 * to a pipe whose reader has gone fails with EPIPE and the run ends through
 * its teardown).  Returns 0 or -errno.
 */
int signals__block(void);

/*
 * In a child about to exec a command: no signal blocked, SIGPIPE's default
 * (what signals__block changed would last across exec).
 */
void signals__child(void);

/*
 * signals__block, and a signalfd to read those signals from (call
 * before starting a command: the child gets signals__child).
 * Returns the signalfd, or -errno.
 */
int signals__fd(void);

#endif
