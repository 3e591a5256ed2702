// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <check.h>
#include <errno.h>
#include <glob.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "tests/lib/testutil.h"
#include "user/run/session.h"
#include "kernel/lib/util.h"

/* The processes child_spawn started in this process: the test's own children. */
static pid_t spawned[4096];
static int nspawned;

bool child_adopt = true;

void child_spawn(struct child *c, char *const argv[])
{
	int in[2], out[2], err[2];

	memset(c, 0, sizeof(*c));
	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
		perror("pipe");
		abort();
	}
	/* what the tools leave running is adopted here, for assert_nothing_left */
	prctl(PR_SET_CHILD_SUBREAPER, child_adopt ? 1 : 0);
	c->pid = fork();
	if (c->pid < 0) {
		perror("fork");
		abort();
	}
	if (c->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		execvp(argv[0], argv);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (nspawned < (int)ARRAY_SIZE(spawned))
		spawned[nspawned++] = c->pid;
	close(in[0]);
	close(out[1]);
	close(err[1]);
	c->in = in[1];
	c->out = out[0];
	c->err = err[0];
	c->outbuf = calloc(1, 1);
	c->errbuf = calloc(1, 1);
	fcntl(c->out, F_SETFL, O_NONBLOCK);
	fcntl(c->err, F_SETFL, O_NONBLOCK);
}

static void drain(int *fd, char **buf, size_t *len)
{
	char tmp[65536];
	ssize_t n;

	while (*fd >= 0) {
		n = read(*fd, tmp, sizeof(tmp));
		if (n > 0) {
			*buf = realloc(*buf, *len + n + 1);
			memcpy(*buf + *len, tmp, n);
			*len += n;
			(*buf)[*len] = '\0';
			continue;
		}
		if (n == 0) {
			close(*fd);
			*fd = -1;
		}
		break;
	}
}

void child_pump(struct child *c, double seconds)
{
	struct pollfd p[2] = { { .fd = c->out, .events = POLLIN },
			       { .fd = c->err, .events = POLLIN } };
	int ms = (int)(seconds * 1000);

	if (c->out < 0 && c->err < 0) {
		usleep(ms * 1000);
		return;
	}
	poll(p, 2, ms);
	drain(&c->out, &c->outbuf, &c->outlen);
	drain(&c->err, &c->errbuf, &c->errlen);
}

/* Pumps until *buf (c's outbuf or errbuf, which pumping moves) holds needle n times. */
static bool child_wait_for(struct child *c, char *const *buf, const int *fd, const char *needle,
			   int n, double seconds)
{
	double end = clock__monotonic() + seconds;
	const char *p;
	int found;

	for (;;) {
		for (found = 0, p = *buf; (p = strstr(p, needle)); p++)
			found++;
		if (found >= n)
			return true;
		if (*fd < 0 || clock__monotonic() >= end)
			return false;
		child_pump(c, 0.05);
	}
}

bool child_wait_stderr(struct child *c, const char *needle, double seconds)
{
	return child_wait_for(c, &c->errbuf, &c->err, needle, 1, seconds);
}

bool child_wait_stdout(struct child *c, const char *needle, int n, double seconds)
{
	return child_wait_for(c, &c->outbuf, &c->out, needle, n, seconds);
}

int child_finish(struct child *c, double seconds)
{
	double end = clock__monotonic() + seconds;
	pid_t r;

	if (c->in >= 0) {
		close(c->in);
		c->in = -1;
	}
	while (!c->reaped) {
		child_pump(c, 0.02);
		r = waitpid(c->pid, &c->status, WNOHANG);
		if (r == c->pid) {
			c->reaped = true;
			break;
		}
		if (clock__monotonic() > end) {
			fprintf(stderr, "test: pid %d still running after %.0fs: killed\n", c->pid,
				seconds);
			kill(c->pid, SIGKILL);
			end = clock__monotonic() + 5;
		}
	}
	while (c->out >= 0 || c->err >= 0)
		child_pump(c, 0.02);
	if (WIFEXITED(c->status))
		return WEXITSTATUS(c->status);
	return 128 + WTERMSIG(c->status);
}

void child_free(struct child *c)
{
	if (!c->reaped && c->pid > 0) {
		kill(c->pid, SIGKILL);
		child_finish(c, 5);
	}
	if (c->in >= 0)
		close(c->in);
	free(c->outbuf);
	free(c->errbuf);
	c->outbuf = c->errbuf = NULL;
}

int run(char *const argv[], double seconds, char **out, char **err)
{
	struct child c;
	int rc;

	child_spawn(&c, argv);
	rc = child_finish(&c, seconds);
	if (out)
		*out = strdup(c.outbuf);
	if (err)
		*err = strdup(c.errbuf);
	child_free(&c);
	return rc;
}

bool child_spawn_started(struct child *c, char *const argv[], double seconds)
{
	child_spawn(c, argv);
	return child_wait_stderr(c, "Ctrl-C to end", seconds);
}

bool child_wait_reading(struct child *c, double seconds)
{
	double end = clock__monotonic() + seconds;
	char path[64];
	long nr, fd;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)c->pid);
	do {
		f = fopen(path, "re");
		n = f ? fscanf(f, "%ld %lx", &nr, &fd) : 0;
		if (f)
			fclose(f);
		if (n == 2 && nr == SYS_read && fd == 0)
			return true;
		usleep(2000);
	} while (clock__monotonic() < end);
	return false;
}

bool child_go(struct child *c)
{
	return write(c->in, "g", 1) == 1;
}

void run_expect(char *const argv[], int want_rc, char **out, char **err)
{
	int rc = run(argv, 60, out, err);

	ck_assert_msg(rc == want_rc, "exit %d (want %d)\nstdout:\n%.4000s\nstderr:\n%.2000s", rc,
		      want_rc, *out, *err);
}

const char *fixture_path(const char *rel)
{
	static char buf[8][4096];
	static int next;
	const char *dir = getenv("LDLAT_FIXTURES");
	char *p = buf[next++ % 8];

	snprintf(p, 4096, "%s/%s", dir ? dir : "tests/fixtures", rel);
	return p;
}

const char *build_path(const char *name)
{
	static char buf[8][4096];
	static int next;
	const char *dir = getenv("LDLAT_BUILD");
	char *p = buf[next++ % 8];
	char cwd[2048];

	if (!dir) {
		if (!getcwd(cwd, sizeof(cwd)))
			strcpy(cwd, ".");
		snprintf(p, 4096, "%s/build/%s", cwd, name);
	} else {
		snprintf(p, 4096, "%s/%s", dir, name);
	}
	return p;
}

const char *hist(void)
{
	return build_path("ldlat-hist");
}

const char *top(void)
{
	return build_path("ldlat-top");
}

const char *workload(void)
{
	return build_path("ldlat-workload");
}

const char *srcdir(void)
{
	static char dir[4096];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", build_path("x"));
	for (int i = 0; i < 2 && (slash = strrchr(dir, '/')); i++)
		*slash = '\0';
	return dir;
}

const char *json_schema(void)
{
	static char path[4096];
	const char *fx = getenv("LDLAT_FIXTURES");

	/* tests/fixtures -> tests/lib/json_schema.py */
	snprintf(path, sizeof(path), "%s/../lib/json_schema.py", fx ? fx : "tests/fixtures");
	return path;
}

static char suite_tmp[256];

void suite_dir_make(const char *tag)
{
	snprintf(suite_tmp, sizeof(suite_tmp), "/tmp/ldlat-%s-%d-XXXXXX", tag, (int)getpid());
	if (!mkdtemp(suite_tmp) || chmod(suite_tmp, 0755)) {
		perror(suite_tmp);
		exit(1);
	}
}

const char *suite_dir(void)
{
	return suite_tmp;
}

const char *tmp(const char *name)
{
	static char buf[8][512];
	static int next;
	char *p = buf[next++ % 8];

	snprintf(p, 512, "%s/%s", suite_tmp, name);
	return p;
}

void suite_dir_remove(void)
{
	char cmd[600];

	if (!suite_tmp[0] || getenv("LDLAT_KEEP_TMP"))
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", suite_tmp);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", suite_tmp);
}

static void file_put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_msg(f, "%s: %s", path, strerror(errno));
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

void mux_sysfs_make(struct mux_sysfs *m, const char *tag, const char *pmu, const char *type)
{
	char dir[400], path[500];

	snprintf(m->root, sizeof(m->root), "/tmp/ldlat-%s-%d", tag, (int)getpid());
	snprintf(dir, sizeof(dir), "%s/bus/event_source/devices/%s", m->root, pmu);
	ck_assert_int_eq(sh(NULL, NULL, "mkdir -p %s", dir), 0);
	if (type) {
		snprintf(path, sizeof(path), "%s/type", dir);
		file_put(path, type);
	}
	snprintf(m->file, sizeof(m->file), "%s/perf_event_mux_interval_ms", dir);
	file_put(m->file, "4\n");
}

void mux_sysfs_remove(const struct mux_sysfs *m)
{
	ck_assert_int_eq(sh(NULL, NULL, "rm -rf %s", m->root), 0);
}

void leftovers_remove(const char *pins, const char *cgroups)
{
	char *out = NULL, *err = NULL;

	/* a set may hold sets (--by splits) and links; a cgroup, cgroups */
	sh(&out, &err,
	   "for d in %s; do [ -d \"$d\" ] || continue; "
	   "for s in \"$d\" \"$d\"/*; do [ -L \"$s\" ] && rm -f \"$s\"; "
	   "[ -d \"$s\" ] && %s --unpin \"$s\"; rmdir \"$s\"; done; "
	   "rmdir \"$d\"; done 2>/dev/null; for c in %s; do "
	   "[ -d \"$c\" ] && find \"$c\" -depth -type d -exec rmdir {} +; done 2>/dev/null; "
	   "true",
	   pins ? pins : "", hist(), cgroups ? cgroups : "");
	free(out);
	free(err);
}

static char reach_dir[64];

static void reach_remove(void)
{
	char cmd[128];

	if (reach_dir[0] && getpid() == (pid_t)strtol(strrchr(reach_dir, '-') + 1, NULL, 10)) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", reach_dir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", reach_dir);
	}
}

static const char *reach_one(const char *path)
{
	static char buf[8][4096];
	static int next;
	char *p = buf[next++ % 8];
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char cmd[8400];
	int n;

	/* the same name twice (two folders) gets a folder of its own */
	for (n = 0;; n++) {
		snprintf(p, 4096, "%s/%d", reach_dir, n);
		if (mkdir(p, 0755) == 0)
			break;
		ck_assert_msg(errno == EEXIST && n < 64, "mkdir %s: %s", p, strerror(errno));
	}
	snprintf(p + strlen(p), 4096 - strlen(p), "/%s", base);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s' && chmod a+rX '%s'", path, p, p);
	ck_assert_msg(system(cmd) == 0, "could not copy %s to %s", path, p);
	return p;
}

const char *reachable_copy(const char *path)
{
	const char *conf = getenv("LDLAT_CONFIG");

	if (!reach_dir[0] || getpid() != (pid_t)strtol(strrchr(reach_dir, '-') + 1, NULL, 10)) {
		snprintf(reach_dir, sizeof(reach_dir), "/tmp/ldlat-reach-%d", (int)getpid());
		ck_assert_msg(mkdir(reach_dir, 0755) == 0 || errno == EEXIST, "mkdir %s: %s",
			      reach_dir, strerror(errno));
		chmod(reach_dir, 0755);
		atexit(reach_remove);
		if (conf && *conf && access(conf, R_OK) == 0)
			setenv("LDLAT_CONFIG", reach_one(conf), 1);
	}
	return reach_one(path);
}

bool need_root(const char *what)
{
	const char *ci = getenv("CI");

	if (geteuid() == 0)
		return true;
	if (ci && !strcmp(ci, "true")) {
		fprintf(stderr, "FAIL: %s needs root, and CI=true: these tests must run in CI\n",
			what);
		exit(1);
	}
	fprintf(stderr, "SKIPPED: %s needs root and BPF (run as root; CI=true makes this fatal)\n",
		what);
	return false;
}

static bool spawned_here(pid_t pid)
{
	int i;

	for (i = 0; i < nspawned; i++)
		if (spawned[i] == pid)
			return true;
	return false;
}

/*
 * Children of this process that it did not spawn: processes the tools
 * started (their commands) and left behind, adopted by this subreaper.  A
 * zombie is reaped, a live one killed on the last try; each is described
 * in buf ("1234 (sleep) S").  Returns how many.
 */
static int orphans(char *buf, size_t len, bool kill_them)
{
	char path[64], stat[512], *p;
	glob_t g;
	size_t i, off = 0;
	pid_t pid, ppid;
	char state;
	int fd, n = 0;
	ssize_t r;

	buf[0] = '\0';
	if (glob("/proc/[0-9]*/stat", 0, NULL, &g))
		return 0;
	for (i = 0; i < g.gl_pathc; i++) {
		fd = open(g.gl_pathv[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		r = read(fd, stat, sizeof(stat) - 1);
		close(fd);
		if (r <= 0)
			continue;
		stat[r] = '\0';
		/* "PID (COMM) S PPID": the command name may hold spaces and parentheses */
		p = strrchr(stat, ')');
		if (!p || sscanf(stat, "%d", &pid) != 1 ||
		    sscanf(p + 1, " %c %d", &state, &ppid) != 2)
			continue;
		if (ppid != getpid() || spawned_here(pid))
			continue;
		n++;
		snprintf(path, sizeof(path), "%.*s", (int)(p + 1 - stat), stat);
		if (off < len)
			off += snprintf(buf + off, len - off, "%s%s %c", off ? ", " : "", path,
					state);
		if (state != 'Z' && kill_them)
			kill(pid, SIGKILL);
		if (state == 'Z' || kill_them)
			waitpid(pid, NULL, state == 'Z' ? WNOHANG : 0);
	}
	globfree(&g);
	return n;
}

void assert_nothing_left(void)
{
	char left[2048];
	int i, n = 0;

	/* a command being killed may take a moment to go */
	for (i = 0; i < 20; i++) {
		n = orphans(left, sizeof(left), i == 19);
		if (!n)
			break;
		usleep(100000);
	}
	ck_assert_msg(!n, "left behind by the tool (now killed): %s", left);
}

void assert_no_pins(const char *dir)
{
	char pattern[4200];
	glob_t g = {};
	int r;

	snprintf(pattern, sizeof(pattern), "%s/*", dir);
	r = glob(pattern, 0, NULL, &g);
	ck_assert_msg(r == GLOB_NOMATCH, "%s still holds %s", dir,
		      r == 0 && g.gl_pathc ? g.gl_pathv[0] : "?");
	if (r == 0)
		globfree(&g);
}

/* The count printed on the line that names label, or -1. */
long count_for(const char *out, const char *label)
{
	const char *line = out, *nl;
	char buf[1024];
	size_t n;

	while (line && *line) {
		nl = strchr(line, '\n');
		n = nl ? (size_t)(nl - line) : strlen(line);
		if (n < sizeof(buf)) {
			memcpy(buf, line, n);
			buf[n] = '\0';
			if (strstr(buf, label))
				return strtol(buf, NULL, 10);
		}
		line = nl ? nl + 1 : NULL;
	}
	return -1;
}

#define CGROUP2_ROOT "/sys/fs/cgroup/unified"

int cgroup_make(char *path, size_t len, const char *tag)
{
	snprintf(path, len, CGROUP2_ROOT "/ldlat-%s-%d", tag, (int)getpid());
	return mkdir(path, 0755) ? -errno : 0;
}

int cgroup_enter(const char *path, pid_t pid)
{
	char procs[4200], buf[32];
	int fd, n, e = 0;

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", path);
	fd = open(procs, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = snprintf(buf, sizeof(buf), "%d", (int)pid);
	if (write(fd, buf, n) != n)
		e = -errno;
	close(fd);
	return e;
}

int cgroup_remove(const char *path)
{
	int i;

	/* the last member may still be leaving */
	for (i = 0; i < 100; i++) {
		if (!rmdir(path) || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			break;
		usleep(10000);
	}
	return -errno;
}

int cpus_allowed(int *cpu, int max)
{
	cpu_set_t set;
	int c, n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &set))
			cpu[n++] = c;
	return n;
}

/* Whether jq finds expr true in the JSON document(s) of doc. */
bool jq_true(const char *doc, const char *expr)
{
	char path[] = "/tmp/ldlat-top-test-XXXXXX", script[4096];
	char *argv[] = { "sh", "-c", script, NULL };
	char *out, *err;
	int fd = mkstemp(path), rc;

	if (fd < 0)
		return false;
	if (write(fd, doc, strlen(doc)) != (ssize_t)strlen(doc)) {
		close(fd);
		unlink(path);
		return false;
	}
	close(fd);
	snprintf(script, sizeof(script), "jq -e '%s' %s", expr, path);
	rc = run(argv, 30, &out, &err);
	unlink(path);
	if (rc)
		fprintf(stderr, "jq -e '%s': %d %s%s\n", expr, rc, out, err);
	free(out);
	free(err);
	return rc == 0;
}

int sh(char **out, char **err, const char *fmt, ...)
{
	char cmd[8192], *o = NULL, *e = NULL;
	char *argv[] = { "sh", "-c", cmd, NULL };
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = run(argv, 60, &o, &e);
	if (rc && !err)
		fprintf(stderr, "test: '%s' exited %d: %s%s\n", cmd, rc, o, e);
	if (out)
		*out = o;
	else
		free(o);
	if (err)
		*err = e;
	else
		free(e);
	return rc;
}

int run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

void perf_record_fifos(struct perf_recorder *r, const char *dir)
{
	memset(r, 0, sizeof(*r));
	r->ctl = r->ack = -1;
	snprintf(r->ctl_path, sizeof(r->ctl_path), "%s/ctl.fifo", dir);
	snprintf(r->ack_path, sizeof(r->ack_path), "%s/ack.fifo", dir);
	unlink(r->ctl_path);
	unlink(r->ack_path);
	ck_assert_int_eq(mkfifo(r->ctl_path, 0600), 0);
	ck_assert_int_eq(mkfifo(r->ack_path, 0600), 0);
	snprintf(r->ctlarg, sizeof(r->ctlarg), "fifo:%s,%s", r->ctl_path, r->ack_path);
}

void perf_record_start(struct perf_recorder *r, char *const argv[])
{
	char buf[16] = "";

	child_spawn(&r->c, argv);
	/* perf record starts disabled; "enable" answered by "ack" means it samples */
	r->ctl = open(r->ctl_path, O_WRONLY | O_CLOEXEC);
	r->ack = open(r->ack_path, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(r->ctl, 0);
	ck_assert_int_ge(r->ack, 0);
	ck_assert_int_eq(write(r->ctl, "enable\n", 7), 7);
	ck_assert_int_gt(read(r->ack, buf, sizeof(buf) - 1), 0);
	ck_assert_msg(!strncmp(buf, "ack", 3), "perf record answered '%.16s'", buf);
}

void perf_record_stop(struct perf_recorder *r)
{
	close(r->ctl);
	close(r->ack);
	r->ctl = r->ack = -1;
	ck_assert_msg(child_finish(&r->c, 60) == 0, "perf record: %s", r->c.errbuf);
	child_free(&r->c);
	unlink(r->ctl_path);
	unlink(r->ack_path);
}

bool kernel_zero_fills_fields(void)
{
	struct session_facts f;
	struct utsname u;
	int ma = 0, mi = 0;

	session__probe(&f);
	ck_assert_int_eq(uname(&u), 0);
	ck_assert_int_eq(sscanf(u.release, "%d.%d", &ma, &mi), 2);
	return ma > 6 || (ma == 6 && mi >= 3) || !f.sample_flags;
}

void drop_unseen(char *s)
{
	static const char *const lines[] = { "\nunseen: ", "ldlat_samples_unseen" };
	char *p, *e, *b;
	unsigned int i;

	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		while ((p = strstr(s, lines[i]))) {
			if (*p == '\n')
				p++;
			for (b = p; b > s && b[-1] != '\n'; b--)
				;
			e = strchr(p, '\n');
			e = e ? e + 1 : p + strlen(p);
			memmove(b, e, strlen(e) + 1);
		}
	p = strstr(s, "\"unseen\":{");
	if (p) {
		e = strchr(p, '}');
		if (!e)
			return;
		memcpy(p, "\"unseen\":null", strlen("\"unseen\":null"));
		memmove(p + strlen("\"unseen\":null"), e + 1, strlen(e + 1) + 1);
	}
}
