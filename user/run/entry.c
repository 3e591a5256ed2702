// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/types.h>

#include "user/run/entry.h"

#if defined(__x86_64__)

/* The ELF class of the process's program: its auxv holds pairs of that word size. */
static int exe__class(pid_t pid)
{
	unsigned char ident[EI_NIDENT];
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, ident, sizeof(ident));
	close(fd);
	if (n != (ssize_t)sizeof(ident) || memcmp(ident, ELFMAG, SELFMAG))
		return -ENOEXEC;
	return ident[EI_CLASS];
}

/* AT_ENTRY of /proc/PID/auxv: the program's entry point, where the loader hands over. */
static int auxv__entry(pid_t pid, __u64 *entry)
{
	unsigned char buf[8192];
	size_t w, off, got = 0;
	char path[64];
	__u64 type, val;
	ssize_t n;
	int fd, cls = exe__class(pid);

	if (cls < 0)
		return cls;
	w = cls == ELFCLASS32 ? 4 : 8;
	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (got < sizeof(buf) && (n = read(fd, buf + got, sizeof(buf) - got)) > 0)
		got += (size_t)n;
	close(fd);
	for (off = 0; off + 2 * w <= got; off += 2 * w) {
		type = val = 0; /* little-endian: a 4-byte word fills the low half */
		memcpy(&type, buf + off, w);
		memcpy(&val, buf + off + w, w);
		if (type == AT_NULL)
			break;
		if (type == AT_ENTRY) {
			*entry = val;
			return 0;
		}
	}
	return -ENOENT;
}

/* Waits for cmd's next stop or end; gives up on a signal to the tool. */
static int wait_stop(struct command *cmd, int sigfd, int *st)
{
	struct pollfd pfd = { .fd = sigfd, .events = POLLIN };
	pid_t r;

	for (;;) {
		r = waitpid(cmd->pid, st, WNOHANG);
		if (r == cmd->pid)
			return 0;
		if (r < 0 && errno != EINTR)
			return -errno;
		/* the loader takes milliseconds; a constructor may take as long as it likes */
		if (poll(&pfd, sigfd >= 0 ? 1 : 0, 5) > 0)
			return -EINTR;
	}
}

static void ended(struct command *cmd, int st, const char *name, struct err *err)
{
	cmd->reaped = true;
	cmd->traced = false;
	cmd->status = st;
	if (WIFEXITED(st))
		err__msg(err,
			 "'%s' exited with status %d before its entry point (its dynamic loader or "
			 "a library's constructor ended it)",
			 name, WEXITSTATUS(st));
	else
		err__msg(err, "'%s' was killed by signal %d before its entry point", name,
			 WTERMSIG(st));
}

int command__run_to_entry(struct command *cmd, const char *name, int sigfd, struct err *err)
{
	struct user_regs_struct regs;
	unsigned long word;
	__u64 entry;
	int e, st, sig = 0;

	if (!cmd->traced || cmd->reaped)
		return err__set(err, -EINVAL, "'%s' is not stopped at its exec", name);
	e = auxv__entry(cmd->pid, &entry);
	if (e) {
		err__msg(err, "cannot read the entry point of '%s' from /proc/%d/auxv: %s", name,
			 (int)cmd->pid, strerror(-e));
		return e;
	}
	errno = 0;
	word = (unsigned long)ptrace(PTRACE_PEEKTEXT, cmd->pid, (void *)entry, NULL);
	if (errno || ptrace(PTRACE_POKETEXT, cmd->pid, (void *)entry,
			    (void *)((word & ~0xfful) | 0xcc))) { /* int3 */
		e = -errno;
		err__msg(err, "cannot set a breakpoint at the entry point of '%s': %s", name,
			 strerror(-e));
		return e;
	}
	for (;;) {
		if (ptrace(PTRACE_CONT, cmd->pid, NULL, (void *)(long)sig)) {
			e = -errno;
			err__msg(err, "cannot let '%s' run to its entry point: %s", name,
				 strerror(-e));
			return e;
		}
		e = wait_stop(cmd, sigfd, &st);
		if (e == -EINTR) {
			err__msg(err, "interrupted while '%s' was loading its libraries", name);
			return e;
		}
		if (e) {
			err__msg(err, "cannot wait for '%s': %s", name, strerror(-e));
			return e;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			ended(cmd, st, name, err);
			return -ECHILD;
		}
		if (!WIFSTOPPED(st))
			continue;
		sig = WSTOPSIG(st);
		if (sig == SIGTRAP) {
			if (ptrace(PTRACE_GETREGS, cmd->pid, NULL, &regs)) {
				e = -errno;
				err__msg(err, "cannot read the registers of '%s': %s", name,
					 strerror(-e));
				return e;
			}
			/* int3 leaves the instruction pointer after itself */
			if (regs.rip == entry + 1)
				break;
		}
		/* any other stop is a signal of its own: delivered, as it would be untraced */
	}
	regs.rip = entry;
	if (ptrace(PTRACE_POKETEXT, cmd->pid, (void *)entry, (void *)word) ||
	    ptrace(PTRACE_SETREGS, cmd->pid, NULL, &regs)) {
		e = -errno;
		err__msg(err, "cannot take the breakpoint out of '%s': %s", name, strerror(-e));
		return e;
	}
	return 0;
}

#else

int command__run_to_entry(struct command *cmd, const char *name, int sigfd, struct err *err)
{
	(void)cmd;
	(void)sigfd;
	err__msg(err,
		 "stopping '%s' at its entry point is implemented on x86_64 only: start the "
		 "program, then sample it with -p PID",
		 name);
	return -EOPNOTSUPP;
}

#endif
