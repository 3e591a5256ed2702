// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <sys/signalfd.h>

#include "kernel/lib/util.h"
#include "user/run/signals.h"

/*
 * The signals that end a run through its teardown: every one whose default
 * action ends the process and that someone may send (Ctrl-C, kill, timeout
 * -s, a supervisor, a CPU or file size limit), the real-time ones too.  Not
 * the faults a program raises on itself (SIGSEGV, SIGBUS, SIGILL, SIGFPE,
 * SIGTRAP, SIGSYS, SIGABRT), and not SIGPIPE, which is ignored.
 */
static const int teardown_signals[] = {
	SIGINT,	   SIGTERM,   SIGHUP,  SIGQUIT, SIGUSR1, SIGUSR2,
	SIGALRM,   SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGIO,
#ifdef SIGPWR
	SIGPWR,
#endif
#ifdef SIGSTKFLT
	SIGSTKFLT,
#endif
};

static void teardown_set(sigset_t *set)
{
	size_t i;
	int sig;

	sigemptyset(set);
	for (i = 0; i < ARRAY_SIZE(teardown_signals); i++)
		sigaddset(set, teardown_signals[i]);
	for (sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		sigaddset(set, sig);
}

int signals__hold(sigset_t *old)
{
	sigset_t set;

	teardown_set(&set);
	return sigprocmask(SIG_BLOCK, &set, old) ? -errno : 0;
}

void signals__release(const sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
}

int signals__block(void)
{
	sigset_t set;

	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		return -errno;
	teardown_set(&set);
	return sigprocmask(SIG_BLOCK, &set, NULL) ? -errno : 0;
}

void signals__child(void)
{
	sigset_t empty;

	sigemptyset(&empty);
	sigprocmask(SIG_SETMASK, &empty, NULL);
	signal(SIGPIPE, SIG_DFL);
}

int signals__fd(void)
{
	sigset_t set;
	int fd, e = signals__block();

	if (e)
		return e;
	teardown_set(&set);
	fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return fd < 0 ? -errno : fd;
}
