// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * check_run - a run's life from start to end, in process and end to end:
 * the interval loop under reports slower than the interval (it still ends
 * at -d, on SIGINT, on the command's or the -p processes' exit, and skips
 * ticks rather than bursting); -i's floor; a reader that goes away (SIGPIPE
 * ignored: the teardown runs); -p of a process whose threads come and go or
 * that has exited; a PID given twice; the -G cgroup removed (and the root,
 * which cannot be); whose fault an error is (exit 2 or 1); options refused
 * rather than ignored; SIGINT while a tool starts; and what tool__start and
 * tool__teardown leave (no fd, no command) on success and at each failure
 * point; a command's page faults counted from inside its exec, as perf
 * stat counts them.  Needs root (perf events, BPF, cgroups, bpffs).
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/lib/testutil.h"
#include "kernel/lib/err.h"
#include "kernel/abi/evlist.h"
#include "user/run/cli.h"
#include "user/run/run.h"
#include "user/run/signals.h"
#include "user/run/targets.h"
#include "user/run/tool.h"
#include "user/hist/histprog.h"
#include "kernel/lib/util.h"

#define BASE	   "0x200000000000"
#define BASE_RANGE BASE "+16M"

static void sleep_s(double s)
{
	struct timespec ts = ts__from_ns((__u64)(s * NSEC_PER_SEC));

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ---- the interval loop under a report slower than the interval ------------- */

#define MAX_CALLS 64

struct slow {
	double report_s; /* each call takes this long */
	int signal_at;	 /* on this call, SIGINT to this process (0: never) */
	int kill_at;	 /* on this call, SIGKILL to kill_pid and wait for its exit */
	pid_t kill_pid;
	int rmdir_at; /* on this call, remove the cgroup rmdir_path */
	const char *rmdir_path;
	int calls;
	double start[MAX_CALLS], end[MAX_CALLS];
};

static int slow_report(void *ctx)
{
	struct slow *s = ctx;
	int k = s->calls++;
	siginfo_t si;

	if (k < MAX_CALLS)
		s->start[k] = clock__monotonic();
	if (s->calls == s->signal_at)
		kill(getpid(), SIGINT);
	if (s->calls == s->kill_at) {
		kill(s->kill_pid, SIGKILL);
		waitid(P_PID, s->kill_pid, &si, WEXITED | WNOWAIT);
	}
	if (s->calls == s->rmdir_at)
		ck_assert_int_eq(cgroup_remove(s->rmdir_path), 0);
	sleep_s(s->report_s);
	if (k < MAX_CALLS)
		s->end[k] = clock__monotonic();
	return 0;
}

/*
 * A run with no command and no target (run__wait watches what the test
 * puts in it), waiting for -d duration and -i interval, its count.
 */
static void loop_run(struct run *r, struct cli *cli, double duration, double interval, long count)
{
	cli__init(cli);
	cli->duration = duration;
	cli->interval = interval;
	cli->count = count;
	run__init(r, cli, "check_run");
	r->sigfd = signals__fd();
	ck_assert_int_ge(r->sigfd, 0);
}

/* Its wait with slow_report at each interval (with reading: at each tick instead). */
static enum run_end loop_wait(struct run *r, struct slow *s, double reading)
{
	struct run_wait w = { .ctx = s };

	if (reading) {
		w.on_tick = slow_report;
		w.tick = reading;
	} else if (s) {
		w.on_interval = slow_report;
	}
	return run__wait(r, &w);
}

/* Before the fix the loop printed forever once a report outlasted -i: now -d ends it. */
START_TEST(test_loop_slow_report_duration)
{
	struct slow s = { .report_s = 0.05 };
	struct cli cli;
	struct run r;

	loop_run(&r, &cli, 0.3, 0.01, 0);
	ck_assert_int_eq(loop_wait(&r, &s, 0), RUN_DURATION);
	ck_assert_int_ge(s.calls, 1);
	close(r.sigfd);
}
END_TEST

/* A SIGINT that arrives during a report ends the run right after it. */
START_TEST(test_loop_slow_report_signal)
{
	struct slow s = { .report_s = 0.03, .signal_at = 3 };
	struct cli cli;
	struct run r;

	loop_run(&r, &cli, 0, 0.01, 0);
	ck_assert_int_eq(loop_wait(&r, &s, 0), RUN_SIGNAL);
	ck_assert_int_eq(s.calls, 3);
	close(r.sigfd);
}
END_TEST

/* So does the command's exit... */
START_TEST(test_loop_slow_report_command)
{
	char *argv[] = { "sleep", "1000", NULL };
	struct slow s = { .report_s = 0.03, .kill_at = 2 };
	struct err err = {};
	struct cli cli;
	struct run r;

	loop_run(&r, &cli, 0, 0.01, 0);
	ck_assert_msg(command__start(&r.cmd, argv, &err) == 0, "%s", err.msg);
	r.has_cmd = true;
	ck_assert_int_eq(command__resume(&r.cmd), 0);
	s.kill_pid = r.cmd.pid;
	ck_assert_int_eq(loop_wait(&r, &s, 0), RUN_COMMAND);
	ck_assert_int_eq(s.calls, 2);
	ck_assert_int_eq(command__exit_code(&r.cmd), 128 + SIGKILL);
	command__stop(&r.cmd);
	close(r.sigfd);
}
END_TEST

/* ... and the exit of the -p processes. */
START_TEST(test_loop_slow_report_targets)
{
	struct slow s = { .report_s = 0.03, .kill_at = 2 };
	struct cli cli;
	struct run r;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (!pid) {
		pause();
		_exit(0);
	}
	loop_run(&r, &cli, 0, 0.01, 0);
	r.procs = &pid;
	r.nprocs = 1;
	s.kill_pid = pid;
	ck_assert_int_eq(loop_wait(&r, &s, 0), RUN_TARGETS);
	ck_assert_int_eq(s.calls, 2);
	waitpid(pid, NULL, 0);
	close(r.sigfd);
}
END_TEST

/*
 * A tick that fell behind is skipped, not caught up: after a report that
 * outlasted the interval the next one starts a whole interval after it
 * ended, never right away.
 */
START_TEST(test_loop_skips_ticks)
{
	struct slow s = { .report_s = 0.025 };
	struct cli cli;
	struct run r;
	int k;

	loop_run(&r, &cli, 0, 0.01, 6);
	ck_assert_int_eq(loop_wait(&r, &s, 0), RUN_COUNT);
	ck_assert_int_eq(s.calls, 6);
	for (k = 0; k + 1 < s.calls; k++)
		ck_assert_msg(s.start[k + 1] - s.end[k] >= cli.interval - 1e-6,
			      "report %d started %.6f s after report %d ended", k + 2,
			      s.start[k + 1] - s.end[k], k + 1);
	close(r.sigfd);
}
END_TEST

/* The readings between reports (ldlat-stat's, ldlat-top's drains) likewise. */
START_TEST(test_loop_slow_reading_signal)
{
	struct slow s = { .report_s = 0.03, .signal_at = 3 };
	struct cli cli;
	struct run r;

	loop_run(&r, &cli, 0, 0, 0);
	ck_assert_int_eq(loop_wait(&r, &s, 0.01), RUN_SIGNAL);
	ck_assert_int_eq(s.calls, 3);
	close(r.sigfd);
}
END_TEST

/*
 * The -G cgroup's removal ends the run (RUN_TARGETS): while it waits, and
 * during a slow report; a process entering and leaving it does not.
 */
START_TEST(test_loop_cgroup_removed)
{
	struct slow s = { .report_s = 0.03, .rmdir_at = 2 };
	char path[256];
	struct cli cli;
	struct run r;
	pid_t pid;

	loop_run(&r, &cli, 60, 0, 0);
	ck_assert_int_eq(cgroup_make(path, sizeof(path), "run-loop"), 0);
	cli.target.cgroup = path; /* for the warning */
	r.target.kind = TARGET_CGROUP;
	/* a member comes and goes: 'populated' changes twice, the run goes on */
	r.target.cgroup_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(r.target.cgroup_fd, 0);
	pid = fork();
	if (!pid) {
		sleep_s(0.1);
		_exit(0);
	}
	ck_assert_int_eq(cgroup_enter(path, pid), 0);
	cli.duration = 0.5;
	ck_assert_int_eq(loop_wait(&r, NULL, 0), RUN_DURATION);
	waitpid(pid, NULL, 0);
	/* removed while the loop waits, with nothing due for a minute */
	cli.duration = 60;
	pid = fork();
	if (!pid) {
		sleep_s(0.2);
		_exit(cgroup_remove(path) ? 1 : 0);
	}
	ck_assert_int_eq(loop_wait(&r, NULL, 0), RUN_TARGETS);
	waitpid(pid, NULL, 0);
	close(r.target.cgroup_fd);
	/* removed during a report */
	ck_assert_int_eq(cgroup_make(path, sizeof(path), "run-loop"), 0);
	r.target.cgroup_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cli.interval = 0.01;
	s.rmdir_path = path;
	ck_assert_int_eq(loop_wait(&r, &s, 0), RUN_TARGETS);
	ck_assert_int_eq(s.calls, 2);
	close(r.target.cgroup_fd);
	cgroup_remove(path);
	/* removed before the loop starts: it ends at once */
	ck_assert_int_eq(cgroup_make(path, sizeof(path), "run-loop"), 0);
	r.target.cgroup_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_eq(cgroup_remove(path), 0);
	cli.interval = 0;
	ck_assert_int_eq(loop_wait(&r, NULL, 0), RUN_TARGETS);
	close(r.target.cgroup_fd);
	/* the root has no cgroup.events, and cannot be removed: the run goes on to -d */
	ck_assert_ptr_nonnull(cgroup2__mount());
	r.target.cgroup_fd = open(cgroup2__mount(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(r.target.cgroup_fd, 0);
	cli.duration = 0.3;
	ck_assert_int_eq(loop_wait(&r, NULL, 0), RUN_DURATION);
	close(r.target.cgroup_fd);
	close(r.sigfd);
}
END_TEST

/* ---- whose fault: the exit status an error code gives ------------------------ */

START_TEST(test_exit_status_of_errors)
{
	struct err err = {};
	char *line = NULL;
	size_t len = 0;
	FILE *out;

	ck_assert_int_eq(err__status(&err, 0), EXIT_OK);
	ck_assert_int_eq(err__status(&err, -EINVAL), EXIT_USAGE);
	ck_assert_int_eq(err__status(&err, -ERANGE), EXIT_USAGE);
	/* a racing exit, an LSM's veto: the system's */
	ck_assert_int_eq(err__status(&err, -ESRCH), EXIT_FAIL);
	ck_assert_int_eq(err__status(&err, -EPERM), EXIT_FAIL);
	ck_assert_int_eq(err__status(&err, -ENOMEM), EXIT_FAIL);
	/*
	 * the user's SIGINT before the run began (the kill test's SIGINT while
	 * a command loaded its libraries exited 1): a run the user ended, 0
	 */
	ck_assert_int_eq(err__status(&err, -EINTR), EXIT_OK);
	ck_assert_int_eq(err__status(&err, err__set(&err, -EINTR, "interrupted")), EXIT_OK);
	err__clear(&err);
	/* said where detected */
	ck_assert_int_eq(err__status(&err, err__system(&err, -EINVAL)), EXIT_FAIL);
	ck_assert_int_eq(err__status(&err, err__input(&err, -EPERM)), EXIT_USAGE);
	ck_assert_int_eq(err__status(&err, err__input(&err, err__system(&err, -ENOENT))),
			 EXIT_USAGE);
	/* the errno stays plain, for strerror and comparisons */
	ck_assert_int_eq(err__system(&err, -EINVAL), -EINVAL);
	ck_assert_int_eq(err__input(&err, -ENODEV), -ENODEV);
	ck_assert_int_eq(err__set(&err, -EBUSY, "busy"), -EBUSY);
	ck_assert_int_eq(err__system(&err, 0), 0);
	ck_assert_int_eq(err__status(&err, -ENODEV), EXIT_USAGE);
	/* the mark is of that errno: another error is judged by its own */
	ck_assert_int_eq(err__status(&err, -ENOMEM), EXIT_FAIL);
	ck_assert_int_eq(err__status(&err, -EINVAL), EXIT_USAGE);
	err__clear(&err);
	ck_assert_int_eq(err__status(&err, -ENODEV), EXIT_FAIL);
	/* the one place an error becomes the tool's line and its status */
	out = open_memstream(&line, &len);
	ck_assert_ptr_nonnull(out);
	err__msg(&err, "--pin '%s': %s", "/x", "it needs root");
	ck_assert_int_eq(err__report(&err, err__input(&err, -EPERM), "ldlat-hist", out),
			 EXIT_USAGE);
	ck_assert_int_eq(err__report(&err, 0, "ldlat-hist", out), EXIT_OK);
	fclose(out);
	ck_assert_str_eq(line, "ldlat-hist: --pin '/x': it needs root\n");
	free(line);
	/* a sentence may quote the one it replaces */
	err__msg(&err, "LDLAT_CPU: %s", err.msg);
	ck_assert_str_eq(err.msg, "LDLAT_CPU: --pin '/x': it needs root");
}
END_TEST

/* ---- targets: each process once, each thread once ---------------------------- */

START_TEST(test_pids_deduplicated)
{
	pid_t *pids;
	struct err err = {};
	int n;

	ck_assert_int_eq(target__parse_pids("7,3,7,3,5,7", &pids, &n, &err), 0);
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(pids[0], 3);
	ck_assert_int_eq(pids[1], 5);
	ck_assert_int_eq(pids[2], 7);
	free(pids);
}
END_TEST

static int hold_fds[2];

static void *hold(void *arg)
{
	char c;

	*(pid_t *)arg = (pid_t)syscall(SYS_gettid);
	if (read(hold_fds[0], &c, 1) < 0)
		return NULL;
	return NULL;
}

static void wait_tid(volatile pid_t *tid)
{
	while (!*tid)
		sleep_s(0.001);
}

/* A PID given twice, and one of its threads: one process, each thread once. */
START_TEST(test_pid_and_its_thread_once)
{
	struct target_opts o = {};
	struct target t;
	pthread_t th[2];
	volatile pid_t tids[2] = {};
	struct err err = {};
	char list[128], desc[256], want[128];
	pid_t *procs;
	int nprocs, i, j;

	ck_assert_int_eq(pipe(hold_fds), 0);
	for (i = 0; i < 2; i++) {
		ck_assert_int_eq(pthread_create(&th[i], NULL, hold, (void *)&tids[i]), 0);
		wait_tid(&tids[i]);
	}
	snprintf(list, sizeof(list), "%d,%d,%d", (int)getpid(), (int)tids[1], (int)getpid());
	o.pids = list;
	ck_assert_msg(target__build(&t, &o, 0, &procs, &nprocs, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(nprocs, 1);
	ck_assert_int_eq(procs[0], getpid());
	ck_assert_int_eq(t.ntids, 3);
	ck_assert_int_eq(t.tids[0], getpid()); /* the leader first */
	for (i = 0; i < t.ntids; i++) {
		ck_assert_int_eq(t.tgids[i], getpid());
		for (j = 0; j < i; j++)
			ck_assert_int_ne(t.tids[i], t.tids[j]);
	}
	target__describe(&t, &o, desc, sizeof(desc));
	snprintf(want, sizeof(want), "PID %d (3 threads)", (int)getpid());
	ck_assert_str_eq(desc, want);
	target__free(&t);
	free(procs);
	ck_assert_int_eq(write(hold_fds[1], "xx", 2), 2);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
}
END_TEST

static void *brief(void *arg)
{
	*(pid_t *)arg = (pid_t)syscall(SYS_gettid);
	return NULL;
}

static void page_faults_evsel(struct evlist *el)
{
	struct evsel ev = {};

	ev.attr.size = sizeof(ev.attr);
	ev.attr.type = PERF_TYPE_SOFTWARE;
	ev.attr.config = PERF_COUNT_SW_PAGE_FAULTS;
	ev.attr.sample_period = 1;
	snprintf(ev.name, sizeof(ev.name), "page-faults");
	ck_assert_int_eq(evlist__add(el, &ev), 0);
}

/* A zombie: a process that has exited and not been reaped. */
static pid_t zombie(void)
{
	pid_t pid = fork();
	siginfo_t si;

	ck_assert_int_ge(pid, 0);
	if (!pid)
		_exit(0);
	ck_assert_int_eq(waitid(P_PID, pid, &si, WEXITED | WNOWAIT), 0);
	return pid;
}

/*
 * A thread that exited since it was listed is skipped; a process none of
 * whose threads can be opened has exited: the system's doing, exit 1.
 */
START_TEST(test_evlist_skips_exited_threads)
{
	struct evlist el = {};
	pid_t dead_tid = 0, gone = zombie(), tids[2], tgids[2];
	struct target t = {
		.kind = TARGET_TASKS, .ntids = 2, .tids = tids, .tgids = tgids, .cgroup_fd = -1
	};
	pthread_t th;
	struct err err = {};
	char want[128];
	int e;

	ck_assert_int_eq(pthread_create(&th, NULL, brief, &dead_tid), 0);
	pthread_join(th, NULL);
	tids[0] = getpid();
	tids[1] = dead_tid;
	tgids[0] = tgids[1] = getpid();
	page_faults_evsel(&el);
	e = evlist__open(&el, &t, &err);
	ck_assert_msg(e == 0, "%s", err.msg);
	ck_assert_int_eq(el.nfds, 1);
	ck_assert_int_eq(el.fds[0].tid, getpid());
	evlist__close(&el);
	/* the process itself gone */
	tids[0] = tgids[0] = gone;
	t.ntids = 1;
	e = evlist__open(&el, &t, &err);
	ck_assert_int_eq(e, -ESRCH);
	ck_assert_int_eq(err__status(&err, e), EXIT_FAIL);
	snprintf(want, sizeof(want), "process %d exited before sampling started", (int)gone);
	ck_assert_str_eq(err.msg, want);
	ck_assert_int_eq(el.nfds, 0);
	evlist__free(&el);
	waitpid(gone, NULL, 0);
}
END_TEST

/* ---- tool__start and tool__teardown leave nothing ------------------------------ */

#define MAX_FDS 256

struct fdset {
	int n;
	char fd[MAX_FDS][300];
};

static void fdset_read(struct fdset *s)
{
	char path[300], target[256];
	struct dirent *de;
	DIR *d = opendir("/proc/self/fd");
	ssize_t r;

	ck_assert_ptr_nonnull(d);
	s->n = 0;
	while ((de = readdir(d)) && s->n < MAX_FDS) {
		if (de->d_name[0] == '.' || atoi(de->d_name) == dirfd(d))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", de->d_name);
		r = readlink(path, target, sizeof(target) - 1);
		target[r > 0 ? r : 0] = '\0';
		snprintf(s->fd[s->n++], sizeof(s->fd[0]), "%s -> %s", de->d_name, target);
	}
	closedir(d);
}

static void assert_same_fds(const struct fdset *before, const char *when)
{
	struct fdset after;
	int i, j;

	fdset_read(&after);
	for (i = 0; i < after.n; i++) {
		for (j = 0; j < before->n && strcmp(after.fd[i], before->fd[j]); j++)
			;
		ck_assert_msg(j < before->n, "%s: fd %s left open", when, after.fd[i]);
	}
	ck_assert_msg(after.n == before->n, "%s: %d fds before, %d after", when, before->n,
		      after.n);
}

/* No child of this process is left, running or not reaped. */
static void assert_no_children(const char *when)
{
	pid_t r = waitpid(-1, NULL, WNOHANG);

	ck_assert_msg(r < 0 && errno == ECHILD, "%s: a child is left (waitpid %d)", when, (int)r);
}

enum fail_at { FAIL_NONE, FAIL_CONFIGURE, FAIL_BEFORE_ENABLE, SIGINT_IN_START };

static int hook(enum fail_at at, enum fail_at want)
{
	if (at != want)
		return 0;
	if (at == SIGINT_IN_START)
		return kill(getpid(), SIGINT); /* blocked: it waits in the signalfd */
	return -EIO;
}

static int hook_configure(struct tool *t, void *ctx, struct err *err)
{
	(void)t;
	err__msg(err, "configure failed (test)");
	return hook(*(enum fail_at *)ctx, FAIL_CONFIGURE)
		       ?: hook(*(enum fail_at *)ctx, SIGINT_IN_START);
}

static int hook_before_enable(struct tool *t, void *ctx, struct err *err)
{
	(void)t;
	err__msg(err, "before_enable failed (test)");
	return hook(*(enum fail_at *)ctx, FAIL_BEFORE_ENABLE);
}

struct start_case {
	const char *what;
	const char *addr;  /* -a, or NULL */
	const char *event; /* --event, or NULL: --source page-faults */
	bool zombie;	   /* -p of a zombie instead of the command */
	enum fail_at fail;
	const char *cmd[8];
	int want_status;       /* of tool__start's error; 0: it starts */
	enum run_end want_end; /* once started */
};

static const struct start_case start_cases[] = {
	{ "a run to the command's end",
	  BASE_RANGE,
	  NULL,
	  false,
	  FAIL_NONE,
	  { "@workload", "--fault-pages", "10", "--base", BASE },
	  0,
	  RUN_COMMAND },
	{ "a command that cannot run",
	  NULL,
	  NULL,
	  false,
	  FAIL_NONE,
	  { "/nonexistent/ldlat-cmd" },
	  EXIT_USAGE },
	{ "a range that names no mapping, the command started",
	  "libnosuch.so",
	  NULL,
	  false,
	  FAIL_NONE,
	  { "sleep", "1000" },
	  EXIT_USAGE },
	{ "the tool's configure hook failing",
	  NULL,
	  NULL,
	  false,
	  FAIL_CONFIGURE,
	  { "sleep", "1000" },
	  EXIT_FAIL },
	{ "the events open and attached, then a failure",
	  NULL,
	  NULL,
	  false,
	  FAIL_BEFORE_ENABLE,
	  { "sleep", "1000" },
	  EXIT_FAIL },
	{ "an event the kernel refuses, the program loaded",
	  NULL,
	  "r1cd:pp",
	  false,
	  FAIL_NONE,
	  { "sleep", "1000" },
	  EXIT_USAGE },
	{ "-p of a process that has exited", NULL, NULL, true, FAIL_NONE, {}, EXIT_FAIL },
	{ "SIGINT while starting",
	  NULL,
	  NULL,
	  false,
	  SIGINT_IN_START,
	  { "sleep", "1000" },
	  0,
	  RUN_SIGNAL },
};

static void start_once(const struct start_case *c)
{
	enum fail_at fail = c->fail;
	struct tool_hooks hooks = { hook_configure, hook_before_enable, &fail };
	struct session_prog prog = { .p.ops = &hist_prog_ops };
	struct cli cli;
	struct tool t;
	struct err err = {};
	char *argv[8] = {}, pid[32];
	pid_t z = 0;
	int i, e;

	cli__init(&cli);
	cli.source.kind = c->event ? SOURCE_LDLAT : SOURCE_PAGE_FAULTS;
	cli.source.event = c->event;
	for (i = 0; i < 7 && c->cmd[i]; i++)
		argv[i] = !strcmp(c->cmd[i], "@workload") ? (char *)build_path("ldlat-workload")
							  : (char *)c->cmd[i];
	cli.target.argv = argv[0] ? argv : NULL;
	if (c->zombie) {
		z = zombie();
		snprintf(pid, sizeof(pid), "%d", (int)z);
		cli.target.pids = pid;
	}
	if (c->addr)
		ck_assert_int_eq(range_set__add(&cli.ranges, c->addr, &err), 0);
	e = tool__start(&t, &cli, "check_run",
			&(struct tool_opts){ .prog = &prog.p, .hooks = &hooks }, &err);
	if (c->want_status) {
		ck_assert_msg(e != 0, "%s: started", c->what);
		ck_assert_msg(err__status(&err, e) == c->want_status, "%s: status %d (want %d): %s",
			      c->what, err__status(&err, e), c->want_status, err.msg);
	} else {
		ck_assert_msg(e == 0, "%s: %s", c->what, err.msg);
		ck_assert_int_eq(run__wait(&t.run, NULL), c->want_end);
		tool__stop_sampling(&t);
	}
	tool__teardown(&t);
	if (z)
		waitpid(z, NULL, 0);
}

START_TEST(test_start_teardown_leaves_nothing)
{
	const struct start_case *c = &start_cases[_i];
	struct fdset before;

	if (c->event && access("/sys/bus/event_source/devices/cpu/type", F_OK) == 0)
		return; /* a machine with a core PMU opens raw events */
	/* once first: what the libraries set up on first use stays, and is not the tool's */
	start_once(&start_cases[0]);
	fdset_read(&before);
	start_once(c);
	assert_same_fds(&before, c->what);
	assert_no_children(c->what);
}
END_TEST

/* ---- end to end ------------------------------------------------------------------ */

static char unique_sleep[64];

/* "1000.PID": a sleep whose command line names this test, for pgrep */
static char *sleeper(void)
{
	snprintf(unique_sleep, sizeof(unique_sleep), "1000.%d", (int)getpid());
	return unique_sleep;
}

static void assert_sleeper_gone(void)
{
	char pattern[96], *argv[] = { "pgrep", "-f", pattern, NULL }, *out, *err;

	snprintf(pattern, sizeof(pattern), "^sleep %s$", sleeper());
	ck_assert_msg(run(argv, 30, &out, &err) == 1, "left running: %s", out);
	free(out);
	free(err);
}

static char pin_parent[256], pin_dir[300];

static void pin_dirs(void)
{
	snprintf(pin_parent, sizeof(pin_parent), "/sys/fs/bpf/ldlat-test-run-%d", (int)getpid());
	snprintf(pin_dir, sizeof(pin_dir), "%s/set", pin_parent);
	ck_assert(mkdir(pin_parent, 0700) == 0 || errno == EEXIST);
}

static void pin_dirs_gone(void)
{
	ck_assert_msg(access(pin_dir, F_OK) != 0, "%s is left behind", pin_dir);
	assert_no_pins(pin_parent);
	rmdir(pin_parent);
}

/* -i or -d below 10 ms is refused by every tool, naming the value; 10 ms runs. */
START_TEST(test_interval_floor)
{
	static const char *const tools[] = { "ldlat-hist", "ldlat-top", "ldlat-stat" };
	char *argv[] = { (char *)build_path(tools[_i % 3]),
			 "-i",
			 _i < 3 ? "0.000001" : "0.009",
			 "-d",
			 "0.2",
			 NULL };
	char *ok[] = { (char *)build_path(tools[_i % 3]),
		       "-i",
		       "0.01",
		       "-d",
		       "0.01",
		       "--source",
		       "page-faults",
		       NULL };
	char *show[] = { (char *)build_path("ldlat-hist"),
			 "--show",
			 "/sys/fs/bpf/no-such-set",
			 "-i",
			 "0.001",
			 NULL };
	/* -d has the same floor: 1e-300 seconds ended the run before its first reading */
	char *dur[] = { (char *)build_path(tools[_i % 3]), "-d", _i < 3 ? "1e-300" : "0.009",
			NULL };
	char *out, *err, want[64];

	snprintf(want, sizeof(want), "--interval '%s': shorter than 0.01 seconds", argv[2]);
	run_expect(argv, 2, &out, &err);
	ck_assert_msg(strstr(err, want), "%s", err);
	free(out);
	free(err);
	snprintf(want, sizeof(want), "--duration '%s': shorter than 0.01 seconds", dur[2]);
	run_expect(dur, 2, &out, &err);
	ck_assert_msg(strstr(err, want), "%s", err);
	free(out);
	free(err);
	if (_i % 3 == 2)
		ok[5] = NULL; /* ldlat-stat counts; it does not sample */
	run_expect(ok, 0, &out, &err);
	free(out);
	free(err);
	run_expect(show, 2, &out, &err);
	ck_assert_msg(strstr(err, "--interval '0.001': shorter than 0.01 seconds"), "%s", err);
	free(out);
	free(err);
}
END_TEST

/* A run with a short interval ends at -d and on SIGINT. */
START_TEST(test_short_interval_ends)
{
	char *argv[] = { (char *)build_path(_i ? "ldlat-top" : "ldlat-hist"),
			 "--source",
			 "page-faults",
			 "-i",
			 "0.01",
			 "-a",
			 "0x1000+4K",
			 "-a",
			 "0x3000+4K",
			 "-a",
			 "0x5000+4K",
			 "-a",
			 "0x7000+4K",
			 NULL,
			 NULL,
			 NULL };
	struct child c;
	char *out, *err;

	if (!_i)
		argv[13] = "--by", argv[14] = "both";
	run_expect((char *[]){ argv[0], "--source", "page-faults", "-i", "0.01", "-d", "1", NULL },
		   0, &out, &err);
	free(out);
	free(err);
	ck_assert_msg(child_spawn_started(&c, argv, 30), "%s", c.errbuf);
	child_pump(&c, 0.5);
	kill(c.pid, SIGINT);
	ck_assert_int_eq(child_finish(&c, 30), 0);
	child_free(&c);
	assert_nothing_left();
}
END_TEST

/* Reads the first bytes a tool prints, then goes away as '| head -c1' does. */
static int read_then_close(struct child *c, double seconds)
{
	double end = clock__monotonic() + seconds;

	while (!c->outlen && clock__monotonic() < end && c->out >= 0)
		child_pump(c, 0.05);
	ck_assert_msg(c->outlen > 0, "nothing printed: %s", c->errbuf);
	close(c->out);
	c->out = -1;
	return child_finish(c, 60);
}

/*
 * SIGPIPE is ignored: the next write fails with EPIPE, and the run ends
 * through its teardown with status 1; the foreground set is unpinned, the
 * command stopped.
 */
START_TEST(test_reader_goes_hist)
{
	char *argv[] = { (char *)build_path("ldlat-hist"),
			 "--source",
			 "page-faults",
			 "-i",
			 "0.1",
			 NULL,
			 NULL,
			 "--",
			 "sleep",
			 sleeper(),
			 NULL };
	struct child c;

	pin_dirs();
	if (_i) {
		argv[5] = "--pin";
		argv[6] = pin_dir;
	} else {
		argv[5] = "-a";
		argv[6] = "0x1000+4K";
	}
	child_spawn(&c, argv);
	ck_assert_int_eq(read_then_close(&c, 30), 1);
	child_free(&c);
	pin_dirs_gone();
	assert_sleeper_gone();
	assert_nothing_left();
}
END_TEST

START_TEST(test_reader_goes_top)
{
	char *argv[] = { (char *)build_path("ldlat-top"),
			 "--source",
			 "page-faults",
			 "-i",
			 "0.1",
			 "--",
			 "sleep",
			 sleeper(),
			 NULL };
	struct child c;

	child_spawn(&c, argv);
	ck_assert_int_eq(read_then_close(&c, 30), 1);
	child_free(&c);
	assert_sleeper_gone();
	assert_nothing_left();
}
END_TEST

/* A sysfs of one software PMU whose multiplexing interval is 4 ms (LDLAT_SYSFS). */
static struct mux_sysfs mux;

static void mux_fixture(void)
{
	mux_sysfs_make(&mux, "run-sysfs", "software", "1\n");
}

static int mux_value(void)
{
	FILE *f = fopen(mux.file, "r");
	int v = -1;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "%d", &v), 1);
	fclose(f);
	return v;
}

/* ldlat-stat --mux-interval puts the interval back when its reader goes. */
START_TEST(test_reader_goes_stat)
{
	char env[300];
	char *argv[] = { "env",
			 env,
			 (char *)build_path("ldlat-stat"),
			 "--mux-interval",
			 "9",
			 "-e",
			 "page-faults",
			 "--format",
			 "json",
			 "-i",
			 "0.1",
			 "--",
			 "sleep",
			 sleeper(),
			 NULL };
	struct child c;

	mux_fixture();
	snprintf(env, sizeof(env), "LDLAT_SYSFS=%s", mux.root);
	child_spawn(&c, argv);
	ck_assert(child_wait_stderr(&c, "Ctrl-C to end", 30));
	ck_assert_int_eq(mux_value(), 9);
	ck_assert_int_eq(read_then_close(&c, 30), 1);
	ck_assert_int_eq(mux_value(), 4);
	child_free(&c);
	mux_sysfs_remove(&mux);
	assert_sleeper_gone();
	assert_nothing_left();
}
END_TEST

/*
 * -p of a process whose threads come and go: a thread that exits between
 * the listing and the open is skipped (before, most runs failed), and the
 * process's page faults are counted by each tool.
 */
START_TEST(test_pid_threads_churn)
{
	char *churn[] = { (char *)build_path("tests/ldlat-churn"), "16", NULL };
	static const char *const tools[] = { "ldlat-hist", "ldlat-top", "ldlat-stat" };
	struct child w;
	char pid[32], *out, *err;
	int i, t;

	child_spawn(&w, churn);
	ck_assert_msg(child_wait_stderr(&w, "ready", 30), "%s", w.errbuf);
	snprintf(pid, sizeof(pid), "%d", w.pid);
	for (t = 0; t < 3; t++) {
		for (i = 0; i < (t ? 3 : 8); i++) {
			char *argv[] = { (char *)build_path(tools[t]),
					 "-p",
					 pid,
					 "-d",
					 "0.2",
					 "--source",
					 "page-faults",
					 NULL };
			const char *code;

			if (t == 2)
				argv[5] = NULL;
			run_expect(argv, 0, &out, &err);
			/* the process's page faults were counted (its first thread's at least) */
			if (t == 0)
				ck_assert_msg(strstr(out, "filters: ") &&
						      strtoull(strstr(out, "filters: ") + 9, NULL,
							       10) > 0,
					      "%s", out);
			code = strstr(out, "code: ");
			if (t == 1)
				ck_assert_msg(code && strtoull(code + 6, NULL, 10) > 0, "%s", out);
			if (t == 2)
				ck_assert_msg(count_for(err, "page-faults") > 0, "%s", err);
			free(out);
			free(err);
		}
	}
	kill(w.pid, SIGKILL);
	child_finish(&w, 30);
	child_free(&w);
	assert_nothing_left();
}
END_TEST

/* -p of a process that has exited (a zombie: its PID is still there): exit 1, said so. */
START_TEST(test_pid_exited)
{
	pid_t z = zombie();
	char pid[32], want[96], *out, *err;
	char *argv[] = {
		(char *)build_path("ldlat-hist"), "--source", "page-faults", "-p", pid, NULL
	};

	snprintf(pid, sizeof(pid), "%d", (int)z);
	snprintf(want, sizeof(want), "ldlat-hist: process %d exited before sampling started",
		 (int)z);
	run_expect(argv, 1, &out, &err);
	ck_assert_msg(strstr(err, want), "%s", err);
	free(out);
	free(err);
	waitpid(z, NULL, 0);
}
END_TEST

/* A PID given twice counts each sample once. */
START_TEST(test_pid_twice)
{
	char *wargv[] = { (char *)build_path("ldlat-workload"),
			  "--wait",
			  "--fault-pages",
			  "50",
			  "--base",
			  BASE,
			  NULL };
	char pids[64], want[64];
	char *hargv[] = { (char *)build_path("ldlat-hist"),
			  "--source",
			  "page-faults",
			  "-p",
			  pids,
			  "-a",
			  BASE_RANGE,
			  NULL };
	struct child w, h;

	child_spawn(&w, wargv);
	snprintf(pids, sizeof(pids), "%d,%d", w.pid, w.pid);
	ck_assert_msg(child_spawn_started(&h, hargv, 30), "%s", h.errbuf);
	snprintf(want, sizeof(want), "on PID %d (1 thread)", w.pid);
	ck_assert_msg(strstr(h.errbuf, want), "%s", h.errbuf);
	ck_assert(child_go(&w));
	ck_assert_int_eq(child_finish(&w, 30), 0);
	ck_assert_int_eq(child_finish(&h, 30), 0);
	ck_assert_msg(count_for(h.outbuf, BASE_RANGE) == 50, "%s", h.outbuf);
	child_free(&w);
	child_free(&h);
	assert_nothing_left();
}
END_TEST

/* A live -G run whose cgroup is removed ends, warns once, and prints its report. */
START_TEST(test_cgroup_removed)
{
	char path[256];
	char *hist[] = { (char *)build_path("ldlat-hist"),
			 "--source",
			 "page-faults",
			 "-G",
			 path,
			 "-i",
			 "0.3",
			 NULL };
	char *stat[] = { (char *)build_path("ldlat-stat"), "-e", "page-faults", "-G", path, NULL };
	struct child c;
	const char *p;

	ck_assert_int_eq(cgroup_make(path, sizeof(path), _i ? "run-stat" : "run-hist"), 0);
	ck_assert_msg(child_spawn_started(&c, _i ? stat : hist, 30), "%s", c.errbuf);
	child_pump(&c, 0.4);
	ck_assert_int_eq(cgroup_remove(path), 0);
	ck_assert_int_eq(child_finish(&c, 30), 0);
	p = strstr(c.errbuf, "has been removed: the run ends");
	ck_assert_msg(p, "%s", c.errbuf);
	ck_assert_ptr_null(strstr(p + 1, "has been removed"));
	ck_assert_msg(strstr(_i ? c.errbuf : c.outbuf, _i ? "page-faults" : "filters: "), "%s",
		      c.outbuf);
	child_free(&c);
	assert_nothing_left();
}
END_TEST

/*
 * -G on the cgroup v2 root (which has no cgroup.events): the run lasts until
 * -d, with its interval reports, and says nothing of a removal.
 */
START_TEST(test_cgroup_root)
{
	char *hist[] = { (char *)build_path("ldlat-hist"),
			 "--source",
			 "page-faults",
			 "-G",
			 (char *)cgroup2__mount(),
			 "-d",
			 "0.5",
			 "-i",
			 "0.1",
			 NULL };
	char *out, *err;
	const char *p;
	int blocks = 0;

	ck_assert_ptr_nonnull(hist[4]);
	run_expect(hist, 0, &out, &err);
	for (p = out; (p = strstr(p, "filters: ")); p++)
		blocks++;
	ck_assert_msg(blocks >= 2, "%d interval reports in 0.5 s of -i 0.1:\n%s\n%s", blocks, out,
		      err);
	ck_assert_msg(!strstr(err, "removed"), "%s", err);
	free(out);
	free(err);
	assert_nothing_left();
}
END_TEST

/* Whose fault: the status says, and the command is stopped either way. */
struct fault_case {
	const char *args[6];
	bool deny;	 /* under a seccomp filter that refuses perf_event_open */
	bool bad_config; /* tools.conf's page-fault period out of the kernel's range */
	int want_rc;
	const char *want;
};

static const struct fault_case fault_cases[] = {
	/* the user wrote the event or the period: bad input */
	{ { "--event", "r1cd:pp" }, false, false, 2, "cannot open r1cd:pp on task " },
	{ { "--source", "page-faults", "-c", "9223372036854775808" },
	  false,
	  false,
	  2,
	  "the kernel rejected its settings (Invalid argument)" },
	/* tools.conf chose it: the system's */
	{ { "--source", "page-faults" },
	  false,
	  true,
	  1,
	  "the kernel rejected its settings (Invalid argument)" },
	/* a security policy's veto, with every capability: the system's */
	{ { "--source", "page-faults" }, true, false, 1, "a security policy refused it" },
	/* options that would be ignored: refused */
	{ { "--source", "page-faults", "--op", "store" },
	  false,
	  false,
	  2,
	  "--op needs latency and data source" },
};

START_TEST(test_whose_fault)
{
	const struct fault_case *c = &fault_cases[_i];
	char conf[256], cmd[600];
	char *argv[16], *out, *err;
	int n = 0, i;

	if (_i == 0 && access("/sys/bus/event_source/devices/cpu/type", F_OK) == 0)
		return; /* a machine with a core PMU opens raw events */
	if (c->deny)
		argv[n++] = (char *)build_path("tests/ldlat-deny");
	argv[n++] = (char *)build_path("ldlat-hist");
	for (i = 0; i < 6 && c->args[i]; i++)
		argv[n++] = (char *)c->args[i];
	if (c->bad_config) {
		snprintf(conf, sizeof(conf), "/tmp/ldlat-run-conf-%d", (int)getpid());
		snprintf(cmd, sizeof(cmd),
			 "sed 's/^page-faults-period = .*/page-faults-period = "
			 "9223372036854775808/' "
			 "%s > %s",
			 getenv("LDLAT_CONFIG") ? getenv("LDLAT_CONFIG") : "tools.conf", conf);
		ck_assert_int_eq(system(cmd), 0);
		argv[n++] = "--config";
		argv[n++] = conf;
	}
	argv[n++] = "--";
	argv[n++] = "sleep";
	argv[n++] = sleeper();
	argv[n] = NULL;
	run_expect(argv, c->want_rc, &out, &err);
	ck_assert_msg(strstr(err, c->want), "want '%s' in: %s", c->want, err);
	free(out);
	free(err);
	if (c->bad_config)
		unlink(conf);
	assert_sleeper_gone();
	assert_nothing_left();
}
END_TEST

/*
 * -v says why --source auto fell back, as --list-events does: on a sysfs
 * whose cpu PMU has caps/max_precise 0, the reason, in the line that
 * names the source.
 */
START_TEST(test_verbose_fallback_why)
{
	char *argv[] = { (char *)build_path("ldlat-hist"), "-v", "--", "true", NULL };
	char *out, *err, *line;

	setenv("LDLAT_SYSFS", fixture_path("sysfs/no-pebs"), 1);
	setenv("LDLAT_CPU", "GenuineIntel-6-55-4", 1);
	run_expect(argv, 0, &out, &err);
	unsetenv("LDLAT_SYSFS");
	unsetenv("LDLAT_CPU");
	line = strstr(err, "\nldlat-hist: source: ");
	ck_assert_msg(line, "no source line in:\n%.2000s", err);
	line++;
	line[strcspn(line, "\n")] = '\0';
	ck_assert_msg(!strncmp(line,
			       "ldlat-hist: source: software event page-faults, address only: "
			       "--source auto fell back to it, as there is no load-latency event "
			       "on this machine: cpu's caps/max_precise is 0, so the kernel offers "
			       "no precise sampling (PEBS)",
			       220),
		      "%s", line);
	free(out);
	free(err);
}
END_TEST

/* Options that would be silently dropped are refused, nothing created. */
START_TEST(test_refused_options)
{
	char *detach[] = { (char *)build_path("ldlat-hist"),
			   "--source",
			   "page-faults",
			   "--pin",
			   pin_dir,
			   "--detach",
			   "--loads",
			   "-p",
			   "1",
			   NULL };
	char *auto_l[] = { (char *)build_path("ldlat-hist"),
			   "--source",
			   "auto",
			   "-L",
			   "50",
			   "--",
			   "sleep",
			   sleeper(),
			   NULL };
	char *out, *err;

	pin_dirs();
	run_expect(detach, 2, &out, &err);
	ck_assert_msg(strstr(err, "--loads is reported when the run ends"), "%s", err);
	free(out);
	free(err);
	pin_dirs_gone();
	if (access("/sys/bus/event_source/devices/cpu/events/mem-loads", F_OK) == 0 ||
	    access("/sys/bus/event_source/devices/cpu_core/events/mem-loads", F_OK) == 0)
		return; /* auto samples the load-latency event here, and -L applies */
	run_expect(auto_l, 2, &out, &err);
	ck_assert_msg(strstr(err, "--ldlat applies to --source ldlat, not page-faults (--source "
				  "auto fell back to page faults here): drop --ldlat"),
		      "%s", err);
	free(out);
	free(err);
	assert_sleeper_gone();
	assert_nothing_left();
}
END_TEST

/*
 * SIGINT while the tool starts (before its signals are blocked, while it
 * pins, loads, attaches): it ends at once either way, nothing left: no
 * pinned set, no command, the multiplexing interval back.
 */
START_TEST(test_sigint_while_starting)
{
	static const int delay_us[] = { 0, 1000, 3000, 10000, 30000, 100000, 300000 };
	char env[300];
	char *hist[] = { (char *)build_path("ldlat-hist"),
			 "--source",
			 "page-faults",
			 "--pin",
			 pin_dir,
			 "--",
			 "sleep",
			 sleeper(),
			 NULL };
	char *stat[] = { "env",
			 env,
			 (char *)build_path("ldlat-stat"),
			 "--mux-interval",
			 "9",
			 "-e",
			 "page-faults",
			 "--",
			 "sleep",
			 sleeper(),
			 NULL };
	struct child c;
	unsigned int i;
	int rc;

	/*
	 * Check's SIGINT handler kills the test's process group: a child that
	 * the signal reaches before its exec must die of it alone.
	 */
	signal(SIGINT, SIG_DFL);
	pin_dirs();
	mux_fixture();
	snprintf(env, sizeof(env), "LDLAT_SYSFS=%s", mux.root);
	for (i = 0; i < ARRAY_SIZE(delay_us) * 2; i++) {
		child_spawn(&c, i % 2 ? stat : hist);
		usleep(delay_us[i / 2]);
		kill(c.pid, SIGINT);
		rc = child_finish(&c, 60);
		ck_assert_msg(rc == 0 || rc == 128 + SIGINT, "%s after %d us: exit %d: %s",
			      i % 2 ? "ldlat-stat" : "ldlat-hist", delay_us[i / 2], rc, c.errbuf);
		child_free(&c);
		ck_assert_msg(access(pin_dir, F_OK) != 0, "%s left after %d us", pin_dir,
			      delay_us[i / 2]);
		ck_assert_int_eq(mux_value(), 4);
		assert_sleeper_gone();
		assert_nothing_left();
	}
	pin_dirs_gone();
	mux_sysfs_remove(&mux);
}
END_TEST

/*
 * A SIGINT or SIGTERM in the tool's first milliseconds, while it parses its
 * arguments (raised there every time by tests/progs/early_signal.c, through
 * LD_PRELOAD), waits for the run: each tool ends through its teardown at
 * its first look, exit 0, well before -d, with the command gone.  Before
 * the tools blocked their signals first thing, it ended them by the signal.
 */
START_TEST(test_signal_while_parsing)
{
	static const char *const tools[] = { "ldlat-hist", "ldlat-top", "ldlat-stat" };
	static const int sigs[] = { SIGINT, SIGTERM };
	char preload[512], sig[32];
	char *argv[] = { "env",
			 preload,
			 sig,
			 "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1",
			 (char *)build_path(tools[_i / 2]),
			 "-e",
			 "page-faults",
			 "-d",
			 "30",
			 "--",
			 "sleep",
			 sleeper(),
			 NULL };
	struct child c;
	double t0;
	int rc;

	snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", build_path("tests/libldlatearly.so"));
	snprintf(sig, sizeof(sig), "LDLAT_EARLY_SIGNAL=%d", sigs[_i % 2]);
	t0 = clock__monotonic();
	child_spawn(&c, argv);
	rc = child_finish(&c, 60);
	ck_assert_msg(rc == 0,
		      "%s, SIG%s while parsing: exit %d (a signal's is 128 + its number): %s",
		      tools[_i / 2], sigs[_i % 2] == SIGINT ? "INT" : "TERM", rc, c.errbuf);
	ck_assert_msg(clock__monotonic() - t0 < 25, "%s ran on to -d 30", tools[_i / 2]);
	child_free(&c);
	assert_sleeper_gone();
	assert_nothing_left();
}
END_TEST

/*
 * Every signal whose default action would end the tool (SIGINT, SIGTERM and
 * SIGHUP are tested elsewhere) ends it through its teardown, as SIGTERM
 * does: exit 0, the foreground set unpinned, the command stopped, the
 * multiplexing interval back.
 */
static const int teardown_signals[] = {
	SIGUSR1, SIGUSR2, SIGALRM, SIGQUIT,   SIGVTALRM,	SIGPROF,	   SIGXCPU,
	SIGXFSZ, SIGIO,	  SIGPWR,  SIGSTKFLT, 0 /* SIGRTMIN */, -1 /* SIGRTMAX */,
};

START_TEST(test_other_signals)
{
	int sig = teardown_signals[_i / 2];
	char env[300], sh[128];
	/* the command holds no pipe of the test's: a tool killed outright is seen at once */
	char *hist[] = { (char *)build_path("ldlat-hist"),
			 "--source",
			 "page-faults",
			 "--pin",
			 pin_dir,
			 "--",
			 "sh",
			 "-c",
			 sh,
			 NULL };
	char *stat[] = { "env",
			 env,
			 (char *)build_path("ldlat-stat"),
			 "--mux-interval",
			 "9",
			 "-e",
			 "page-faults",
			 "--",
			 "sh",
			 "-c",
			 sh,
			 NULL };
	struct child c;
	int rc;

	sig = sig == 0 ? SIGRTMIN : sig < 0 ? SIGRTMAX : sig;
	snprintf(sh, sizeof(sh), "exec sleep %s >/dev/null 2>&1", sleeper());
	pin_dirs();
	mux_fixture();
	snprintf(env, sizeof(env), "LDLAT_SYSFS=%s", mux.root);
	ck_assert_msg(child_spawn_started(&c, _i % 2 ? stat : hist, 30), "%s", c.errbuf);
	if (_i % 2)
		ck_assert_int_eq(mux_value(), 9);
	else
		ck_assert_int_eq(access(pin_dir, F_OK), 0);
	kill(c.pid, sig);
	rc = child_finish(&c, 60);
	ck_assert_msg(rc == 0, "%s, signal %d: exit %d: %s", _i % 2 ? "ldlat-stat" : "ldlat-hist",
		      sig, rc, c.errbuf);
	/* ldlat-stat's report is on standard error, as perf stat's */
	ck_assert_msg(strstr(_i % 2 ? c.errbuf : c.outbuf, _i % 2 ? "page-faults" : "filters: "),
		      "%s", c.outbuf);
	child_free(&c);
	pin_dirs_gone();
	ck_assert_int_eq(mux_value(), 4);
	mux_sysfs_remove(&mux);
	assert_sleeper_gone();
	assert_nothing_left();
}
END_TEST

/* ---- SIGKILL: what a tool killed outright leaves, and who puts it back -------- */

/* Waits up to 30 s for the sleeper (the tool's command) to be gone: adopted and killed, or never. */
static void assert_sleeper_dies(const char *what)
{
	char pattern[96], *argv[] = { "pgrep", "-f", pattern, NULL }, *out, *err;
	int i, rc = 0;

	snprintf(pattern, sizeof(pattern), "^sleep %s$", sleeper());
	for (i = 0; i < 300 && rc != 1; i++) {
		rc = run(argv, 30, &out, &err);
		free(out);
		free(err);
		if (rc != 1)
			usleep(100000);
	}
	ck_assert_msg(rc == 1, "%s: the command runs on after the tool was killed", what);
}

/*
 * The command dies with the tool, SIGKILL at any point: before it runs on to
 * its entry (-a naming a library), while the entry breakpoint is in it, and
 * once it runs.
 */
START_TEST(test_sigkill_command)
{
	static const int delay_us[] = { 0, 2000, 5000, 10000, 20000, 50000, 100000, 200000 };
	char what[128];
	char *argv[] = { (char *)build_path("ldlat-hist"),
			 "--source",
			 "page-faults",
			 "-a",
			 "libc.so.6",
			 "--",
			 "sleep",
			 sleeper(),
			 NULL };
	struct child c;
	unsigned int i;

	signal(SIGINT, SIG_DFL);
	for (i = 0; i <= ARRAY_SIZE(delay_us); i++) {
		if (i < ARRAY_SIZE(delay_us)) {
			child_spawn(&c, argv);
			usleep(delay_us[i]);
			snprintf(what, sizeof(what), "SIGKILL after %d us", delay_us[i]);
		} else {
			ck_assert_msg(child_spawn_started(&c, argv, 30), "%s", c.errbuf);
			snprintf(what, sizeof(what), "SIGKILL once sampling");
		}
		kill(c.pid, SIGKILL);
		ck_assert_int_eq(child_finish(&c, 30), 128 + SIGKILL);
		child_free(&c);
		assert_sleeper_dies(what);
		assert_nothing_left();
	}
}
END_TEST

/* /proc/PID/stat's starttime (field 22), as the lock file records a run's. */
static unsigned long long start_time(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), f));
	fclose(f);
	p = strrchr(buf, ')');
	ck_assert_ptr_nonnull(p);
	/* after ')': state (3) and 18 more fields, then starttime (22) */
	ck_assert_int_eq(sscanf(p + 1,
				" %*c"
				" %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s "
				"%*s %*s %llu",
				&start),
			 1);
	return start;
}

/* The lock file ldlat-stat records its changes in, for this test alone (LDLAT_MUXLOCK). */
static char muxlock_env[300];

static void kill_stat_with_mux(const char *ms)
{
	char env[300];
	char *argv[] = { "env",
			 env,
			 muxlock_env,
			 (char *)build_path("ldlat-stat"),
			 "--mux-interval",
			 (char *)ms,
			 "-e",
			 "page-faults",
			 "--",
			 "sleep",
			 sleeper(),
			 NULL };
	struct child c;

	snprintf(env, sizeof(env), "LDLAT_SYSFS=%s", mux.root);
	ck_assert_msg(child_spawn_started(&c, argv, 30), "%s", c.errbuf);
	ck_assert_int_eq(mux_value(), atoi(ms));
	kill(c.pid, SIGKILL);
	ck_assert_int_eq(child_finish(&c, 30), 128 + SIGKILL);
	child_free(&c);
	assert_sleeper_dies("ldlat-stat --mux-interval");
}

/*
 * ldlat-stat --mux-interval killed by SIGKILL cannot put the interval back;
 * the next run does (it never takes the dead run's value for the original),
 * and so does ldlat-stat recover.  A value changed since by someone else
 * stays, and a live run's record is left alone.
 */
START_TEST(test_sigkill_mux_interval)
{
	char env[300], *out, *err;
	char *next[] = { "env",
			 env,
			 muxlock_env,
			 (char *)build_path("ldlat-stat"),
			 "--mux-interval",
			 "7",
			 "-e",
			 "page-faults",
			 "--",
			 "sh",
			 "-c",
			 "cat $MUXFILE",
			 NULL };
	char sysfs_env[300];
	char *recover[] = { "env",     sysfs_env, muxlock_env, (char *)build_path("ldlat-stat"),
			    "recover", NULL };
	FILE *f;

	mux_fixture();
	snprintf(env, sizeof(env), "LDLAT_SYSFS=%s", mux.root);
	/* recover writes only under the sysfs root the record's paths are under */
	snprintf(sysfs_env, sizeof(sysfs_env), "LDLAT_SYSFS=%s", mux.root);
	snprintf(muxlock_env, sizeof(muxlock_env), "LDLAT_MUXLOCK=%s/muxlock", mux.root);
	setenv("MUXFILE", mux.file, 1);

	/* the next run: 7 during it, then 4, the value before the killed run */
	kill_stat_with_mux("9");
	ck_assert_int_eq(mux_value(), 9);
	run_expect(next, 0, &out, &err);
	ck_assert_msg(atoi(out) == 7, "during the run: %s", out);
	ck_assert_msg(strstr(err, "back to 4 (PID ") && strstr(err, "had set it to 9"), "%s", err);
	free(out);
	free(err);
	ck_assert_int_eq(mux_value(), 4);

	/* recover alone, and then nothing left to do */
	kill_stat_with_mux("11");
	run_expect(recover, 0, &out, &err);
	ck_assert_msg(strstr(out, "back to 4 (PID "), "%s", out);
	free(out);
	free(err);
	ck_assert_int_eq(mux_value(), 4);
	run_expect(recover, 0, &out, &err);
	ck_assert_msg(strstr(out, "nothing to recover"), "%s", out);
	free(out);
	free(err);

	/* changed since by someone else: left as it is, and said */
	kill_stat_with_mux("12");
	f = fopen(mux.file, "w");
	ck_assert_ptr_nonnull(f);
	fputs("6\n", f);
	fclose(f);
	run_expect(recover, 0, &out, &err);
	ck_assert_msg(strstr(out, "left ") && strstr(out, "at 6"), "%s", out);
	free(out);
	free(err);
	ck_assert_int_eq(mux_value(), 6);

	/* a live owner's record (this process's) is not recovered */
	snprintf(env, sizeof(env), "%s/muxlock", mux.root);
	f = fopen(env, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "owner %d %llu\ninterval 4 6 %s\n", (int)getpid(), start_time(getpid()),
		mux.file);
	fclose(f);
	ck_assert_int_eq(run(recover, 30, &out, &err), 1);
	ck_assert_msg(strstr(err, "is changing the multiplexing interval"), "%s", err);
	free(out);
	free(err);
	ck_assert_int_eq(mux_value(), 6);
	unsetenv("MUXFILE");
	mux_sysfs_remove(&mux);
	assert_nothing_left();
}
END_TEST

/*
 * A foreground set whose ldlat-hist was killed: --show says its owner died
 * and its sampling ended with it (text and JSON) and unpin removes it;
 * while the owner lives, --show says nothing of the kind.
 */
START_TEST(test_sigkill_foreground_set)
{
	char *argv[] = { (char *)build_path("ldlat-hist"),
			 "--source",
			 "page-faults",
			 "--pin",
			 pin_dir,
			 "--",
			 "sleep",
			 sleeper(),
			 NULL };
	char *show[] = { (char *)build_path("ldlat-hist"), "show", pin_dir, NULL };
	char *json[] = {
		(char *)build_path("ldlat-hist"), "show", pin_dir, "--format", "json", NULL
	};
	char *unpin[] = { (char *)build_path("ldlat-hist"), "unpin", pin_dir, NULL };
	char *out, *err;
	struct child c;

	pin_dirs();
	ck_assert_msg(child_spawn_started(&c, argv, 30), "%s", c.errbuf);
	run_expect(show, 0, &out, &err);
	ck_assert_msg(strstr(out, "in the foreground") && !strstr(out, "died"), "%s", out);
	free(out);
	free(err);
	run_expect(json, 0, &out, &err);
	ck_assert_msg(jq_true(out, ".pinned.owner_dead == false"), "%s", out);
	free(out);
	free(err);

	kill(c.pid, SIGKILL);
	ck_assert_int_eq(child_finish(&c, 30), 128 + SIGKILL);
	child_free(&c);
	assert_sleeper_dies("ldlat-hist --pin");
	run_expect(show, 0, &out, &err);
	ck_assert_msg(strstr(out, "died without removing the set") &&
			      strstr(out, "its sampling ended with it") && strstr(out, "unpin"),
		      "%s", out);
	free(out);
	free(err);
	run_expect(json, 0, &out, &err);
	ck_assert_msg(jq_true(out, ".pinned.owner_dead == true"), "%s", out);
	ck_assert_msg(strstr(err, "died without removing it"), "%s", err);
	free(out);
	free(err);
	run_expect(unpin, 0, &out, &err);
	free(out);
	free(err);
	/* unpin empties the set's directory; the directory is the user's to remove */
	ck_assert_msg(rmdir(pin_dir) == 0, "%s: %s", pin_dir, strerror(errno));
	pin_dirs_gone();
	assert_nothing_left();
}
END_TEST

/* The command gets the signals as the tool got them: none blocked, SIGPIPE not ignored. */
START_TEST(test_command_signals)
{
	char *argv[] = { (char *)build_path("ldlat-hist"),
			 "--source",
			 "page-faults",
			 "--",
			 "grep",
			 "-E",
			 "^Sig(Blk|Ign):",
			 "/proc/self/status",
			 NULL };
	char *out, *err, *p;
	unsigned long long blk = ~0ull, ign = ~0ull;

	run_expect(argv, 0, &out, &err);
	p = strstr(out, "SigBlk:");
	ck_assert_msg(p && sscanf(p, "SigBlk: %llx", &blk) == 1, "%s", out);
	p = strstr(out, "SigIgn:");
	ck_assert_msg(p && sscanf(p, "SigIgn: %llx", &ign) == 1, "%s", out);
	ck_assert_msg(blk == 0, "the command has signals blocked: %s", out);
	ck_assert_msg(!(ign & (1ull << (SIGPIPE - 1))), "the command ignores SIGPIPE: %s", out);
	free(out);
	free(err);
}
END_TEST

/* ---- a command's faults counted from inside its exec, as perf stat counts them ---- */

static const char *const exec_cmds[] = {
	"/bin/true",
	"python3 -c pass",
	"sort /tmp/ldlat-run-sort.txt",
};

/* The first "NAME":N in s, or -1. */
static long json_count(const char *s, const char *name)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), "\"%s\":", name);
	p = s ? strstr(s, key) : NULL;
	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

/* The environment both perf and the tools are started with (env -i). */
static void base_env(char *buf, size_t len)
{
	snprintf(buf, len, "PATH=/usr/local/bin:/usr/bin:/bin HOME=%s LANG=C PYTHONHASHSEED=0",
		 getenv("HOME") ? getenv("HOME") : "/");
}

/*
 * The environment perf gives its command (it adds PERF_BUILDID_DIR, PREFIX
 * and perf-core to PATH): the tools are started with it, so that the
 * command's stack holds the same bytes under both.
 */
static void perf_child_env(char *buf, size_t len)
{
	char base[512], *out = NULL, *line, *save = NULL;
	size_t n = 0;

	base_env(base, sizeof(base));
	ck_assert_int_eq(sh(&out, NULL,
			    "env -i %s perf stat -e page-faults -- /usr/bin/env 2>/dev/null", base),
			 0);
	buf[0] = '\0';
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		ck_assert_msg(!strchr(line, '\'') && n + strlen(line) + 4 < len, "%s", line);
		n += (size_t)snprintf(buf + n, len - n, "'%s' ", line);
	}
	free(out);
}

/* perf stat's page-fault count of cmd (setarch -R: the same layout every run), or -1. */
static long perf_stat_faults(const char *cmd)
{
	char base[512], *out = NULL, *err = NULL;
	long n = -1;

	base_env(base, sizeof(base));
	if (sh(&out, &err, "env -i %s setarch -R perf stat -x, -e page-faults -- %s", base, cmd) ==
		    0 &&
	    err)
		sscanf(err, "%ld,", &n);
	free(out);
	free(err);
	return n;
}

/* A tool's count of cmd: what its JSON report says in key, or -1. */
static long tool_faults(const char *tool, const char *key, const char *env, const char *cmd)
{
	char *out = NULL;
	long n = -1;

	if (sh(&out, NULL, "env -i %s setarch -R %s --source page-faults --format json -- %s", env,
	       build_path(tool), cmd) == 0)
		n = json_count(out, key);
	free(out);
	return n;
}

/*
 * The events are opened on the command before its exec and enabled by it,
 * so the faults the kernel takes inside execve (the new stack, the bss) are
 * counted, and none of execvp's before it: ldlat-hist and ldlat-top count
 * what perf stat counts, exactly.  The same layout for all: address-space
 * randomization off (setarch -R) and the same environment (perf's
 * command's).  A run whose perf stat counts before and after differ (python
 * varies by a few faults from run to run) is run again.
 */
START_TEST(test_exec_faults_as_perf_stat)
{
	const char *cmd = exec_cmds[_i];
	long before = -1, hist = -1, top = -1, after = -2;
	char env[2048];
	int attempt;

	perf_child_env(env, sizeof(env));

	ck_assert_int_eq(sh(NULL, NULL,
			    "seq 1000 | sed 's/^/line /' | shuf --random-source=/dev/zero > "
			    "/tmp/ldlat-run-sort.txt"),
			 0);
	for (attempt = 0; attempt < 5; attempt++) {
		before = perf_stat_faults(cmd);
		hist = tool_faults("ldlat-hist", "seen", env, cmd);
		top = tool_faults("ldlat-top", "kept", env, cmd);
		after = perf_stat_faults(cmd);
		ck_assert_msg(before > 0 && after > 0, "perf stat -- %s gave no count", cmd);
		if (before == after && hist == before && top == before)
			break;
		fprintf(stderr, "test: %s: perf stat %ld, %ld; ldlat-hist %ld; ldlat-top %ld\n",
			cmd, before, after, hist, top);
	}
	unlink("/tmp/ldlat-run-sort.txt");
	ck_assert_msg(hist == before && top == before && before == after,
		      "%s: perf stat %ld then %ld, ldlat-hist %ld, ldlat-top %ld page faults", cmd,
		      before, after, hist, top);
	assert_nothing_left();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("run");
	TCase *tc;
	SRunner *sr;
	int failed;

	if (!need_root("check_run (perf events, BPF, cgroups)"))
		return 0;
	/* the tests that start a tool in process look up its events in the repository's table */
	setenv("LDLAT_CONFIG", build_path("../tools.conf"), 0);
	tc = tcase_create("loop");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_loop_slow_report_duration);
	tcase_add_test(tc, test_loop_slow_report_signal);
	tcase_add_test(tc, test_loop_slow_report_command);
	tcase_add_test(tc, test_loop_slow_report_targets);
	tcase_add_test(tc, test_loop_skips_ticks);
	tcase_add_test(tc, test_loop_slow_reading_signal);
	tcase_add_test(tc, test_loop_cgroup_removed);
	suite_add_tcase(s, tc);

	tc = tcase_create("units");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_exit_status_of_errors);
	tcase_add_test(tc, test_pids_deduplicated);
	tcase_add_test(tc, test_pid_and_its_thread_once);
	tcase_add_test(tc, test_evlist_skips_exited_threads);
	tcase_add_loop_test(tc, test_start_teardown_leaves_nothing, 0, ARRAY_SIZE(start_cases));
	suite_add_tcase(s, tc);

	tc = tcase_create("tools");
	tcase_set_timeout(tc, 180);
	tcase_add_loop_test(tc, test_interval_floor, 0, 6);
	tcase_add_loop_test(tc, test_short_interval_ends, 0, 2);
	tcase_add_loop_test(tc, test_reader_goes_hist, 0, 2);
	tcase_add_test(tc, test_reader_goes_top);
	tcase_add_test(tc, test_reader_goes_stat);
	tcase_add_test(tc, test_pid_threads_churn);
	tcase_add_test(tc, test_pid_exited);
	tcase_add_test(tc, test_pid_twice);
	tcase_add_loop_test(tc, test_cgroup_removed, 0, 2);
	tcase_add_test(tc, test_cgroup_root);
	tcase_add_loop_test(tc, test_whose_fault, 0, ARRAY_SIZE(fault_cases));
	tcase_add_test(tc, test_refused_options);
	tcase_add_test(tc, test_verbose_fallback_why);
	tcase_add_test(tc, test_sigint_while_starting);
	tcase_add_test(tc, test_command_signals);
	tcase_add_loop_test(tc, test_other_signals, 0, 2 * ARRAY_SIZE(teardown_signals));
	suite_add_tcase(s, tc);

	tc = tcase_create("early");
	tcase_set_timeout(tc, 180);
	tcase_add_loop_test(tc, test_signal_while_parsing, 0, 6);
	suite_add_tcase(s, tc);

	tc = tcase_create("exec");
	tcase_set_timeout(tc, 180);
	tcase_add_loop_test(tc, test_exec_faults_as_perf_stat, 0, ARRAY_SIZE(exec_cmds));
	suite_add_tcase(s, tc);

	tc = tcase_create("sigkill");
	tcase_set_timeout(tc, 180);
	tcase_add_test(tc, test_sigkill_command);
	tcase_add_test(tc, test_sigkill_mux_interval);
	tcase_add_test(tc, test_sigkill_foreground_set);
	suite_add_tcase(s, tc);

	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
