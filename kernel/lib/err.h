/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * err.h - an error value: the sentence a user reads, and whose fault it was,
 * decided where it is detected.
 *
 * Functions return 0 or a plain -errno and, on failure, leave the sentence
 * in the caller's struct err.  The errno alone says badly whose fault it
 * was: perf_event_open answers EINVAL for a term the user mistyped and for
 * an event tools.conf chose, ESRCH for a PID that never existed and for a
 * thread that exited a moment ago, EPERM for a missing capability and for a
 * security module's veto.  So:
 *
 *   - a check of the user's input returns -EINVAL (or -ERANGE): bad input,
 *     exit status 2;
 *   - any other -errno is a failure of the system: exit status 1;
 *   - code that knows better says so: err__input(err, e) for an errno that
 *     is the user's doing (a missing privilege, an event the user wrote that
 *     the kernel refuses), err__system(err, e) for a system call's EINVAL or
 *     ERANGE that is not.  The mark holds for that errno as it travels up.
 *
 * err__status() turns an error into the exit status, err__report() into the
 * tool's line on stderr and the exit status: the one place for each.  The
 * rule: 0 success, 1 the system failed (ERR_EXIT_SYSTEM), 2 the user's input
 * or a privilege the user lacks (ERR_EXIT_INPUT).  A sentence quotes the
 * user's input as given; err__report escapes its control characters, so an
 * error is always one line on stderr.
 */
#ifndef LDLAT_ERR_H
#define LDLAT_ERR_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#define ERR_MSG_MAX 2048

/* The exit statuses (user/run/cli.h's EXIT_USAGE and EXIT_FAIL). */
#define ERR_EXIT_INPUT	2
#define ERR_EXIT_SYSTEM 1

enum err_fault {
	ERR_FAULT_UNSET,  /* decided by the errno: EINVAL, ERANGE input, else system */
	ERR_FAULT_INPUT,  /* bad input: exit status 2 */
	ERR_FAULT_SYSTEM, /* the system failed: exit status 1 */
};

/* Starts zeroed (struct err err = {}): no sentence, no fault said. */
struct err {
	enum err_fault fault;
	int errnum;	       /* the errno (positive) that fault was said of */
	char msg[ERR_MSG_MAX]; /* the sentence, without the tool's name */
};

/* Sets the sentence (cut to fit), as snprintf would; whose fault is left as it is. */
__attribute__((format(printf, 2, 3))) void err__msg(struct err *err, const char *fmt, ...);

/* Sets the sentence and returns e (a negative errno), for `return err__set(...)`. */
__attribute__((format(printf, 3, 4))) int err__set(struct err *err, int e, const char *fmt, ...);

/* Says that the error e (a negative errno) is the user's doing; returns e. */
int err__input(struct err *err, int e);

/* Says that the error e (a negative errno) is the system's failure; returns e. */
int err__system(struct err *err, int e);

/* Whether err__input or err__system said whose fault the error e is. */
bool err__has_fault(const struct err *err, int e);

/* Forgets the sentence and whose fault. */
void err__clear(struct err *err);

/*
 * The exit status of e, as returned with err: 0 when e is 0 or -EINTR (the
 * user's signal ended the run before it began), 2 bad input, 1 the system.
 */
int err__status(const struct err *err, int e);

/*
 * Prints "tool: sentence" to out when e is an error (strerror's words when
 * nothing set a sentence), its control characters escaped (unctrl.h: a
 * newline as \n, others as \xNN); returns err__status(err, e).
 */
int err__report(const struct err *err, int e, const char *tool, FILE *out);

/*
 * At a successful end: flushes stdout and says whether everything written
 * to it arrived (a full disk, /dev/full, a closed pipe).  Returns status, or
 * ERR_EXIT_SYSTEM with a line on stderr when the output was lost.
 */
int err__check_stdout(int status, const char *tool);

#endif
