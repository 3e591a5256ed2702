/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * err.h - whose fault an error is, decided where it is detected.
 *
 * Errors travel as a negative errno with a sentence.  The errno alone says
 * badly whose fault it was: perf_event_open answers EINVAL for a term the
 * user mistyped and for an event tools.conf chose, ESRCH for a PID that
 * never existed and for a thread that exited a moment ago, EPERM for a
 * missing capability and for a security module's veto.  So:
 *
 *   - a check of the user's input returns -EINVAL (or -ERANGE): bad input,
 *     exit status 2;
 *   - any other plain -errno is a failure of the system: exit status 1;
 *   - code that knows better says so: err__input(e) for an errno that is the
 *     user's doing (a missing privilege, an event the user wrote that the
 *     kernel refuses), err__system(e) for a system call's EINVAL or ERANGE
 *     that is not.
 *
 * err__errno(e) gives the errno back, for strerror() and comparisons.
 *
 * The sentence travels in the caller's struct err (err__msg()).
 */
#ifndef LDLAT_ERR_H
#define LDLAT_ERR_H

#include <errno.h>
#include <stdbool.h>

#define ERR_MSG_MAX 2048

/* An error's sentence, for the user, without the tool's name. */
struct err {
	char msg[ERR_MSG_MAX];
};

/* Sets the sentence (cut to fit), as snprintf would; the arguments may quote it. */
__attribute__((format(printf, 2, 3))) void err__msg(struct err *err, const char *fmt, ...);

#define ERR_ERRNO_MASK 0xffff
#define ERR_INPUT      0x10000
#define ERR_SYSTEM     0x20000

static inline int err__errno(int e)
{
	return e < 0 ? -(-e & ERR_ERRNO_MASK) : e;
}

static inline int err__input(int e)
{
	return e < 0 ? -(-err__errno(e) | ERR_INPUT) : e;
}

static inline int err__system(int e)
{
	return e < 0 ? -(-err__errno(e) | ERR_SYSTEM) : e;
}

/* Whether the error e is bad input (exit status 2) rather than the system's failure (1). */
static inline bool err__is_input(int e)
{
	if (e >= 0)
		return false;
	if (-e & (ERR_INPUT | ERR_SYSTEM))
		return -e & ERR_INPUT;
	return e == -EINVAL || e == -ERANGE;
}

#endif
