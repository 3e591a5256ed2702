// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * output_file.c - check_output's cases for --output FILE, through the tools'
 * --input of the recording (no root needed): what is written in place (a
 * link like /dev/stdout to a pipe, a socket or a terminal; a FIFO and a
 * named socket with a reader; /dev/null), what is replaced (a link to a
 * regular file and a dangling link followed, the link kept; the mode kept,
 * and as root the owner; a new file 0666 less the umask), what is refused
 * with exit 2 (a folder, a block device, another user's link), and SIGTERM,
 * SIGINT or SIGHUP at random points of many runs, which must never leave a
 * FILE.XXXXXX behind.  What these cases check is where a report goes, so
 * the report expected is the one the same tool prints on stdout
 * (check_offline checks its values against perf script's).
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/lib/testutil.h"
#include "tests/suites/output_file.h"
#include "kernel/lib/util.h"

#define RECORDING "recordings/skylake-sp-load-latency.data"

static char dir[512];

/* dir/name (8 at a time). */
static const char *at(const char *name)
{
	static char buf[8][700];
	static int next;
	char *p = buf[next++ % 8];

	snprintf(p, sizeof(buf[0]), "%s/%s", dir, name);
	return p;
}

static void argv_of(char *argv[8], const char *tool, const char *fmt, const char *path)
{
	argv[0] = (char *)build_path(tool);
	argv[1] = "--input";
	argv[2] = (char *)fixture_path(RECORDING);
	argv[3] = "--format";
	argv[4] = (char *)fmt;
	argv[5] = path ? "--output" : NULL;
	argv[6] = (char *)path;
	argv[7] = NULL;
}

/* tool --input the recording --format fmt [--output path]: its exit status. */
static int tool_run(const char *tool, const char *fmt, const char *path, char **out, char **err)
{
	char *argv[8];

	argv_of(argv, tool, fmt, path);
	return run(argv, 60, out, err);
}

/* What tool prints on stdout: the report --output must carry. */
static char *tool_report(const char *tool, const char *fmt)
{
	char *out, *err;
	int rc = tool_run(tool, fmt, NULL, &out, &err);

	ck_assert_msg(rc == 0 && strlen(out) > 100, "%s: exit %d\n%s", tool, rc, err);
	free(err);
	return out;
}

static char *slurp(const char *path)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return NULL;
	ck_assert_int_ne(getdelim(&s, &len, '\0', f), -1);
	fclose(f);
	return s;
}

/* Nothing named name.* in dir: no report's temporary file left behind. */
static void assert_no_temp(const char *name)
{
	size_t n = strlen(name);
	struct dirent *e;
	DIR *d = opendir(dir);

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		ck_assert_msg(strncmp(e->d_name, name, n) || e->d_name[n] != '.',
			      "%s/%s was left behind", dir, e->d_name);
	closedir(d);
}

/* Runs tool with --output path, which must exit 0 and print nothing on stdout. */
static void expect_ok(const char *tool, const char *fmt, const char *path)
{
	char *out, *err;
	int rc = tool_run(tool, fmt, path, &out, &err);

	ck_assert_msg(rc == 0, "%s --output %s: exit %d\n%s", tool, path, rc, err);
	ck_assert_msg(!*out, "%s --output %s printed on stdout:\n%s", tool, path, out);
	free(out);
	free(err);
}

/* got is the report want (a mismatch printed short: Check's messages are bounded). */
static void assert_report(const char *got, const char *want, const char *where)
{
	ck_assert_msg(got && !strcmp(got, want), "%s got:\n%.1500s\n(want:\n%.1500s)", where,
		      got ? got : "(nothing)", want);
}

static const char *const tools[] = { "ldlat-hist", "ldlat-top", "ldlat-c2c" };

/*
 * --output LINK, LINK -> /proc/self/fd/1 as /dev/stdout is, with stdout a
 * pipe: the report goes into the pipe and the link stays (it was replaced by
 * a regular file, or refused when stdout was a pipe).  Every tool with
 * --input: they all go through user/report/output.c.
 */
START_TEST(test_stdout_link_pipe)
{
	const char *link = at("stdout"), *tool = tools[_i];
	char *want = tool_report(tool, "text"), *out, *err, text[64];
	ssize_t n;
	int rc;

	unlink(link);
	ck_assert_int_eq(symlink("/proc/self/fd/1", link), 0);
	rc = tool_run(tool, "text", link, &out, &err);
	ck_assert_msg(rc == 0, "%s --output %s: exit %d\n%s", tool, link, rc, err);
	assert_report(out, want, tool);
	n = readlink(link, text, sizeof(text) - 1);
	ck_assert_int_eq(n, 15);
	text[n] = '\0';
	ck_assert_str_eq(text, "/proc/self/fd/1");
	assert_no_temp("stdout");
	free(want);
	free(out);
	free(err);
}
END_TEST

/* The same link with stdout a socket, as under a systemd unit logging to the journal. */
START_TEST(test_stdout_link_socket)
{
	const char *link = at("stdout-sock");
	char *want = tool_report("ldlat-hist", "text"), *argv[8], buf[65536];
	size_t len = 0;
	int sv[2], status;
	ssize_t n;
	pid_t pid;

	unlink(link);
	ck_assert_int_eq(symlink("/proc/self/fd/1", link), 0);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	argv_of(argv, "ldlat-hist", "text", link);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(sv[1], 1);
		dup2(null, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	close(sv[1]);
	while ((n = read(sv[0], buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	close(sv[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "wait status %#x", status);
	assert_report(buf, want, "a socket on stdout");
	free(want);
}
END_TEST

/* Opens a pseudo-terminal; its follower's name in name. */
static int pty_open(char *name, size_t len)
{
	int fd = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(grantpt(fd), 0);
	ck_assert_int_eq(unlockpt(fd), 0);
	ck_assert_int_eq(ptsname_r(fd, name, len), 0);
	return fd;
}

/* A terminal (through a link, as /dev/stdout on a terminal): written in place, still one. */
START_TEST(test_terminal)
{
	const char *link = at("tty");
	char *want = tool_report("ldlat-hist", "text"), name[128], buf[65536], text[65536];
	size_t len = 0, i, tlen = 0;
	struct stat st;
	ssize_t n;
	int pty = pty_open(name, sizeof(name)), follower;

	/* held open here too: the terminal lives on after the tool closes it */
	follower = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	ck_assert_int_ge(follower, 0);
	unlink(link);
	ck_assert_int_eq(symlink(name, link), 0);
	expect_ok("ldlat-hist", "text", link);
	/* the report waits in the terminal for its reader, each \n as \r\n: read it all */
	while (tlen < strlen(want)) {
		struct pollfd p = { .fd = pty, .events = POLLIN };

		ck_assert_msg(poll(&p, 1, 10000) == 1, "the terminal got %zu bytes:\n%.*s", tlen,
			      (int)tlen, text);
		n = read(pty, buf, sizeof(buf));
		ck_assert_int_gt(n, 0);
		for (i = 0; i < (size_t)n && tlen < sizeof(text) - 1; i++)
			if (buf[i] != '\r')
				text[tlen++] = buf[i];
		len += (size_t)n;
	}
	text[tlen] = '\0';
	assert_report(text, want, "the terminal");
	ck_assert_int_eq(stat(name, &st), 0);
	ck_assert(S_ISCHR(st.st_mode));
	close(follower);
	close(pty);
	free(want);
}
END_TEST

/* /dev/null takes the report and stays the device. */
START_TEST(test_dev_null)
{
	struct stat st;

	expect_ok("ldlat-hist", "json", "/dev/null");
	ck_assert_int_eq(stat("/dev/null", &st), 0);
	ck_assert(S_ISCHR(st.st_mode));
}
END_TEST

/*
 * A FIFO with a reader: the reader gets the whole report, the FIFO stays.
 * The reader is a child copying what it reads into a file; once the tool has
 * exited, an open of the FIFO for writing releases a reader that the tool
 * never reached (a failed test), which then reads nothing.
 */
START_TEST(test_fifo)
{
	const char *fifo = at("fifo"), *got = at("reader.got");
	char *want = tool_report("ldlat-hist", "text"), *out, *err, *s;
	struct stat st;
	int rc, status, fd;
	pid_t reader;

	unlink(fifo);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	reader = fork();
	ck_assert_int_ge(reader, 0);
	if (reader == 0) {
		char buf[4096];
		ssize_t n;
		int in = open(fifo, O_RDONLY), to = open(got, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (in < 0 || to < 0)
			_exit(1);
		while ((n = read(in, buf, sizeof(buf))) > 0)
			if (write(to, buf, (size_t)n) != n)
				_exit(1);
		_exit(n < 0);
	}
	rc = tool_run("ldlat-hist", "text", fifo, &out, &err);
	fd = open(fifo, O_WRONLY | O_NONBLOCK);
	if (fd >= 0)
		close(fd);
	ck_assert_int_eq(waitpid(reader, &status, 0), reader);
	ck_assert_msg(rc == 0, "--output FIFO: exit %d\n%s", rc, err);
	ck_assert_msg(WIFEXITED(status) && !WEXITSTATUS(status), "reader: %#x", status);
	s = slurp(got);
	assert_report(s, want, "the FIFO's reader");
	ck_assert_int_eq(stat(fifo, &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));
	assert_no_temp("fifo");
	free(s);
	free(want);
	free(out);
	free(err);
}
END_TEST

/* A named socket with a listener: the tool connects, the listener reads the report. */
START_TEST(test_named_socket)
{
	const char *path = at("sock");
	char *want = tool_report("ldlat-hist", "text"), *argv[8], buf[65536];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct child c;
	size_t len = 0;
	ssize_t n;
	int l, conn, rc;

	unlink(path);
	ck_assert_uint_lt(strlen(path), sizeof(sa.sun_path));
	strcpy(sa.sun_path, path);
	l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	ck_assert_int_ge(l, 0);
	ck_assert_int_eq(bind(l, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(l, 1), 0);
	argv_of(argv, "ldlat-hist", "text", path);
	child_spawn(&c, argv);
	/* the tool connects, or exits (its stderr closes) without */
	for (;;) {
		struct pollfd p[2] = { { .fd = l, .events = POLLIN },
				       { .fd = c.err, .events = POLLIN } };

		ck_assert_int_gt(poll(p, c.err >= 0 ? 2 : 1, 60000), 0);
		if (p[0].revents)
			break;
		child_pump(&c, 0);
		if (c.err < 0)
			break;
	}
	/* none if the tool exited without connecting (l does not block) */
	conn = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	if (conn >= 0) {
		struct pollfd p = { .fd = conn, .events = POLLIN };

		while (poll(&p, 1, 60000) == 1 &&
		       (n = read(conn, buf + len, sizeof(buf) - 1 - len)) > 0)
			len += (size_t)n;
		close(conn);
	}
	buf[len] = '\0';
	rc = child_finish(&c, 60);
	ck_assert_msg(rc == 0, "--output SOCKET: exit %d\n%s", rc, c.errbuf);
	assert_report(buf, want, "the socket's listener");
	child_free(&c);
	close(l);
	free(want);
}
END_TEST

/*
 * A link to a regular file: the file it leads to is replaced (a new inode,
 * in its folder), the link stays, and the file keeps its mode and, as root,
 * its owner and group.
 */
START_TEST(test_link_to_file)
{
	const char *link = at("link.prom"), *target = at("sub/target.prom");
	char *want = tool_report("ldlat-hist", "text"), *s, text[64];
	struct stat before, after;
	bool root = geteuid() == 0;
	ssize_t n;

	mkdir(at("sub"), 0755);
	unlink(link);
	ck_assert_int_eq(sh(NULL, NULL, "echo old > %s && chmod 0640 %s", target, target), 0);
	if (root)
		ck_assert_int_eq(chown(target, 65534, 65534), 0);
	else
		printf("test_link_to_file: not root, the owner kept is not checked\n");
	ck_assert_int_eq(symlink("sub/target.prom", link), 0);
	ck_assert_int_eq(stat(target, &before), 0);
	expect_ok("ldlat-hist", "text", link);
	n = readlink(link, text, sizeof(text) - 1);
	ck_assert_int_gt(n, 0);
	text[n] = '\0';
	ck_assert_str_eq(text, "sub/target.prom");
	ck_assert_int_eq(stat(target, &after), 0);
	ck_assert(S_ISREG(after.st_mode));
	ck_assert_msg(after.st_ino != before.st_ino, "written in place, not replaced");
	ck_assert_uint_eq(after.st_mode & 07777, 0640);
	ck_assert_uint_eq(after.st_uid, before.st_uid);
	ck_assert_uint_eq(after.st_gid, before.st_gid);
	s = slurp(target);
	assert_report(s, want, "the link's file");
	ck_assert_int_eq(sh(NULL, NULL, "cd %s && ! ls -A | grep -q '^target.prom\\.'", at("sub")),
			 0);
	free(s);
	free(want);
}
END_TEST

/* A dangling link: the file it names is made, the link stays. */
START_TEST(test_dangling_link)
{
	const char *link = at("dangling.prom"), *target = at("made.prom");
	char *want = tool_report("ldlat-hist", "text"), *s;
	struct stat st;

	unlink(link);
	unlink(target);
	ck_assert_int_eq(symlink("made.prom", link), 0);
	expect_ok("ldlat-hist", "text", link);
	ck_assert_int_eq(lstat(link, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	s = slurp(target);
	assert_report(s, want, "the dangling link's file");
	free(s);
	free(want);
}
END_TEST

/*
 * Modes: a 0600 file stays 0600 (it became 0644), a 0664 one 0664; a new
 * file is 0666 less the umask, as a shell's redirection makes it.
 */
START_TEST(test_modes)
{
	static const mode_t kept[] = { 0600, 0664, 0400 };
	static const mode_t masks[] = { 022, 077, 0, 027 };
	const char *path = at("mode.prom");
	struct stat st;
	mode_t old;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kept); i++) {
		unlink(path);
		ck_assert_int_eq(close(open(path, O_WRONLY | O_CREAT | O_EXCL, 0600)), 0);
		ck_assert_int_eq(chmod(path, kept[i]), 0);
		expect_ok("ldlat-hist", "prometheus", path);
		ck_assert_int_eq(stat(path, &st), 0);
		ck_assert_msg((st.st_mode & 07777) == kept[i], "a %04o file became %04o",
			      (unsigned int)kept[i], (unsigned int)(st.st_mode & 07777));
	}
	for (i = 0; i < ARRAY_SIZE(masks); i++) {
		unlink(path);
		old = umask(masks[i]); /* the tool inherits it */
		expect_ok("ldlat-hist", "prometheus", path);
		umask(old);
		ck_assert_int_eq(stat(path, &st), 0);
		ck_assert_msg((st.st_mode & 07777) == (0666 & ~masks[i]),
			      "a new file under umask %03o is %04o", (unsigned int)masks[i],
			      (unsigned int)(st.st_mode & 07777));
	}
	assert_no_temp("mode.prom");
}
END_TEST

/* Runs ldlat-hist --output path, which must exit 2 with a line on stderr holding words. */
static void expect_refused(const char *path, const char *words)
{
	char *out, *err;
	int rc = tool_run("ldlat-hist", "text", path, &out, &err);

	ck_assert_msg(rc == 2, "--output %s: exit %d (want 2)\n%s", path, rc, err);
	ck_assert_msg(strstr(err, words), "--output %s: no '%s' in:\n%s", path, words, err);
	ck_assert_msg(!*out, "%s", out);
	free(out);
	free(err);
}

/* The first block device in /dev, or NULL. */
static const char *block_device(void)
{
	static char path[300];
	struct dirent *e;
	struct stat st;
	DIR *d = opendir("/dev");

	while (d && (e = readdir(d))) {
		snprintf(path, sizeof(path), "/dev/%s", e->d_name);
		if (!lstat(path, &st) && S_ISBLK(st.st_mode)) {
			closedir(d);
			return path;
		}
	}
	if (d)
		closedir(d);
	return NULL;
}

/*
 * Refused with exit 2 and left alone: a folder, a block device, a link of
 * another user's (as root: it would have root replace any file).
 */
START_TEST(test_refused)
{
	const char *folder = at("folder"), *blk = block_device(), *link = at("theirs.prom");
	const char *target = at("not-theirs.prom");
	struct stat st;

	if (geteuid() == 0) {
		unlink(link);
		unlink(target);
		ck_assert_int_eq(symlink("not-theirs.prom", link), 0);
		ck_assert_int_eq(lchown(link, 65534, 65534), 0);
		expect_refused(link, "belongs to user 65534, not followed");
		ck_assert_int_eq(lstat(link, &st), 0);
		ck_assert(S_ISLNK(st.st_mode));
		ck_assert_int_eq(access(target, F_OK), -1);
		/* a folder on the way too: their link to a folder of root's */
		unlink(at("theirs-dir"));
		ck_assert_int_eq(symlink(".", at("theirs-dir")), 0);
		ck_assert_int_eq(lchown(at("theirs-dir"), 65534, 65534), 0);
		expect_refused(at("theirs-dir/not-theirs.prom"),
			       "belongs to user 65534, not followed");
		ck_assert_int_eq(access(target, F_OK), -1);
	} else {
		printf("test_refused: not root, another user's link is not checked\n");
	}
	mkdir(folder, 0755);
	expect_refused(folder, "is a directory");
	ck_assert_int_eq(stat(folder, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	if (blk)
		expect_refused(blk, "is a block device");
	else
		printf("test_refused: no block device in /dev, not checked\n");
}
END_TEST

#define SIGNAL_RUNS 120

/*
 * The two modes that act on a signal by its default action (a live run
 * reads it from its signalfd): --input, and --show, here the textfile
 * unit's (a set that is gone: no root or BPF needed, a report of 3 lines).
 * events: about how many creations and writes of temporary files a run makes.
 */
static const struct signal_run {
	const char *what;
	int events;
} signal_runs[] = {
	{ "--input", 8 }, /* a report of ~20 KB, written in 4 KB pieces */
	{ "--show", 3 },
};

/*
 * SIGTERM, SIGINT or SIGHUP at a random point of --input or --show with
 * --output: at the k-th creation or write of a temporary file, seen through
 * inotify, k random.  No run may leave FILE.XXXXXX (a textfile unit's
 * SIGTERM did in 4 runs of 60); the file, when there, is whole.
 */
START_TEST(test_signal_leaves_no_temp)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };
	const struct signal_run *sr = &signal_runs[_i];
	unsigned int seed = (unsigned int)time(NULL) ^ (unsigned int)getpid();
	const char *name = _i ? "signal-show.prom" : "signal-input.prom", *path = at(name);
	int run_i, ended = 0, ino, rc, sig, k, seen;
	char *argv[12], *s;
	struct child c;

	printf("test_signal_leaves_no_temp (%s): seed %u\n", sr->what, seed);
	argv_of(argv, "ldlat-hist", "openmetrics", path);
	if (_i) {
		char *show[] = { argv[0],	    "--show",	  (char *)at("no-such-set"),
				 "--allow-missing", "--format",	  "openmetrics",
				 "--output",	    (char *)path, NULL };

		memcpy(argv, show, sizeof(show));
	}
	for (run_i = 0; run_i < SIGNAL_RUNS; run_i++) {
		sig = sigs[rand_r(&seed) % ARRAY_SIZE(sigs)];
		k = 1 + rand_r(&seed) % sr->events;
		ino = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
		ck_assert_int_ge(ino, 0);
		ck_assert_int_ge(inotify_add_watch(ino, dir, IN_CREATE | IN_MODIFY), 0);
		child_spawn(&c, argv);
		for (seen = 0; seen < k && c.err >= 0;) {
			struct pollfd p[2] = { { .fd = ino, .events = POLLIN },
					       { .fd = c.err, .events = POLLIN } };
			char buf[4096] __attribute__((aligned(8)));
			const struct inotify_event *ev;
			ssize_t n;
			char *q;

			ck_assert_int_gt(poll(p, 2, 60000), 0);
			n = read(ino, buf, sizeof(buf));
			for (q = buf; n > 0 && q < buf + n; q += sizeof(*ev) + ev->len) {
				ev = (const struct inotify_event *)q;
				/* FILE.XXXXXX, not the report itself (renamed in) */
				if (ev->len && !strncmp(ev->name, name, strlen(name)) &&
				    ev->name[strlen(name)] == '.' && ++seen == k) {
					kill(c.pid, sig);
					break;
				}
			}
			child_pump(&c, 0);
		}
		rc = child_finish(&c, 60);
		close(ino);
		ck_assert_msg(rc == 0 || rc == 128 + sig,
			      "run %d, signal %d at event %d: exit %d\n%s", run_i, sig, k, rc,
			      c.errbuf);
		ended += rc == 128 + sig;
		child_free(&c);
		assert_no_temp(name);
		s = slurp(path);
		if (s) {
			size_t len = strlen(s);

			ck_assert_msg(len > 6 && !strcmp(s + len - 6, "# EOF\n"),
				      "run %d: a partial report:\n%s", run_i, s);
			free(s);
		}
		unlink(path);
	}
	printf("test_signal_leaves_no_temp (%s): the signal ended %d of %d runs\n", sr->what, ended,
	       SIGNAL_RUNS);
	/* the signals reached the tools while they wrote, or the test tested nothing */
	ck_assert_int_gt(ended, SIGNAL_RUNS / 2);
}
END_TEST

void output_file_tcases(Suite *s, const char *parent)
{
	TCase *tc = tcase_create("file");

	snprintf(dir, sizeof(dir), "%s/file", parent);
	if (mkdir(dir, 0755)) {
		perror(dir);
		abort();
	}
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, test_stdout_link_pipe, 0, ARRAY_SIZE(tools));
	tcase_add_test(tc, test_stdout_link_socket);
	tcase_add_test(tc, test_terminal);
	tcase_add_test(tc, test_dev_null);
	tcase_add_test(tc, test_fifo);
	tcase_add_test(tc, test_named_socket);
	tcase_add_test(tc, test_link_to_file);
	tcase_add_test(tc, test_dangling_link);
	tcase_add_test(tc, test_modes);
	tcase_add_test(tc, test_refused);
	tcase_add_loop_test(tc, test_signal_leaves_no_temp, 0, ARRAY_SIZE(signal_runs));
	suite_add_tcase(s, tc);
}
