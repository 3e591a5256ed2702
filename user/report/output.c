// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "user/report/output.h"

/*
 * The formats, in the order --help and the errors list them: the word
 * --format takes, its text in --help, and whether reports in it follow
 * each other as lines (a blank line between them in a stream, a screen
 * each on a terminal).
 */
static const struct {
	enum output_format format;
	const char *name, *help;
	bool lines;
} formats[] = {
	{ OUTPUT_TEXT, "text", "text (default)", true },
	{ OUTPUT_JSON, "json", "json (one object per report, one per line)", false },
	{ OUTPUT_PROMETHEUS, "prometheus",
	  "prometheus (totals since the start in the Prometheus text format: node_exporter's "
	  "textfile collector, promtool)",
	  false },
	{ OUTPUT_OPENMETRICS, "openmetrics", "openmetrics (the same in OpenMetrics 1.0)", false },
	{ OUTPUT_FOLDED, "folded", "folded (call paths as folded stacks)", true },
	{ OUTPUT_SVG, "svg", "svg (a flame graph of them)", true },
};

static int format_index(enum output_format f)
{
	int i;

	for (i = 0; i < (int)(sizeof(formats) / sizeof(formats[0])); i++)
		if (formats[i].format == f)
			return i;
	return 0;
}

/* The tool's renderer of format f; NULL: not one of its formats. */
static void (*renderer(const struct output_formats *fm, enum output_format f))(FILE *, const void *)
{
	if (!fm)
		return NULL;
	switch (f) {
	case OUTPUT_TEXT:
		return fm->text;
	case OUTPUT_JSON:
		return fm->json;
	case OUTPUT_OPENMETRICS:
		return fm->openmetrics;
	case OUTPUT_PROMETHEUS:
		return fm->prometheus;
	case OUTPUT_FOLDED:
		return fm->folded;
	case OUTPUT_SVG:
		return fm->svg;
	}
	return NULL;
}

static bool has(const struct output_formats *fm, enum output_format f)
{
	return renderer(fm, f);
}

/* A format the tool says it has not, and why. */
static bool lacks(const struct output_formats *fm, enum output_format f)
{
	return fm && (fm->lacks & (1u << f)) && fm->why_not;
}

/* The tool's formats, "text, json or folded", with each one's help text or its name. */
static char *format_list(const struct output_formats *fm, bool help)
{
	char *out = NULL;
	size_t len = 0;
	int i, n = 0, last = -1;
	FILE *f;

	for (i = 0; i < (int)(sizeof(formats) / sizeof(formats[0])); i++)
		if (has(fm, formats[i].format))
			last = i;
	f = open_memstream(&out, &len);
	if (!f)
		return NULL;
	for (i = 0; i <= last; i++) {
		if (!has(fm, formats[i].format))
			continue;
		fprintf(f, "%s%s", n++ ? (i == last ? " or " : ", ") : "",
			help ? formats[i].help : formats[i].name);
	}
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}

int output__parse_format(struct output_opts *o, const char *word, struct err *err)
{
	char *list;
	int i;

	for (i = 0; i < (int)(sizeof(formats) / sizeof(formats[0])); i++) {
		enum output_format f = formats[i].format;

		if (strcmp(word, formats[i].name) || !(has(o->formats, f) || lacks(o->formats, f)))
			continue;
		o->format = f;
		return 0;
	}
	list = format_list(o->formats, false);
	err__set(err, -EINVAL, "--format '%s': expected %s", word, list ? list : "text");
	free(list);
	return -EINVAL;
}

char *output__format_help(const struct output_opts *o, const char *doc)
{
	char *list = o ? format_list(o->formats, true) : NULL;

	if (!list || !strcmp(list, doc)) {
		free(list);
		return (char *)doc;
	}
	return list;
}

int output__supported(const struct output_opts *o, struct err *err)
{
	const struct output_formats *fm = o->formats;
	const char *name = output__name(o);
	char why[512];

	if (has(fm, o->format))
		return 0;
	if (!lacks(fm, o->format))
		return err__set(err, -EINVAL, "--format %s is not one of this tool's", name);
	/* the tool's sentence names the format where it says what to use instead */
	snprintf(why, sizeof(why), fm->why_not, name);
	return err__set(err, -EINVAL, "--format %s is not one of %s's: %s", name, fm->tool, why);
}

const char *output__name(const struct output_opts *o)
{
	return formats[format_index(o->format)].name;
}

bool output__text(const struct output_opts *o)
{
	return o->format == OUTPUT_TEXT;
}

bool output__totals(const struct output_opts *o)
{
	return o->format == OUTPUT_OPENMETRICS || o->format == OUTPUT_PROMETHEUS;
}

bool output__paths(const struct output_opts *o)
{
	return o->format == OUTPUT_FOLDED || o->format == OUTPUT_SVG;
}

bool output__screen(const struct output_opts *o)
{
	return formats[format_index(o->format)].lines && !o->path && isatty(STDOUT_FILENO);
}

bool output__replaces(const struct output_opts *o)
{
	return o->path && !o->stream;
}

/*
 * What --output names, as each report finds it.  A regular file or a new
 * name is replaced; a FIFO, a terminal or another character device, or a
 * socket is written in place, as standard output would be; nothing else is
 * written.
 */
enum output_target {
	TARGET_REPLACE,
	TARGET_IN_PLACE,
};

/* Symbolic links followed at most, as the kernel's MAXSYMLINKS. */
#define OUTPUT_MAX_LINKS 40

/*
 * The name a report replaces: path made absolute with every symbolic link
 * in it resolved (realpath's result, but the last name need not exist), so
 * that links stay and the file they lead to is replaced in its own folder.
 * As the tools run as root over folders other users write, a link is
 * followed only when root or this user owns it: one planted by another
 * user would have root replace any file.  *lst: the end's lstat, st_mode 0
 * when nothing is there (a new file, or a dangling link's target).
 */
static int output__walk(const char *path, char *final, size_t len, struct stat *lst,
			struct err *err)
{
	char todo[PATH_MAX], link[PATH_MAX], rest[PATH_MAX], *name, *next;
	size_t flen;
	int links = 0;
	ssize_t n;

	if ((size_t)snprintf(todo, sizeof(todo), "%s", path) >= sizeof(todo))
		return err__set(err, -EINVAL, "--output '%s': the name is too long", path);
	if (path[0] == '/')
		final[0] = '\0';
	else if (!getcwd(final, len))
		return err__set(err, -errno, "--output '%s': cannot tell the current folder: %s",
				path, strerror(errno));
	if (!strcmp(final, "/"))
		final[0] = '\0';
	memset(lst, 0, sizeof(*lst));
	lst->st_mode = S_IFDIR; /* the root, or the current folder: a folder */
	for (name = todo; name; name = next) {
		next = strchr(name, '/');
		if (next)
			*next++ = '\0';
		if (!*name || !strcmp(name, "."))
			continue;
		if (!strcmp(name, "..")) {
			*(strrchr(final, '/') ?: final) = '\0';
			continue;
		}
		flen = strlen(final);
		if (flen + 1 + strlen(name) >= len)
			return err__set(err, -EINVAL, "--output '%s': the name is too long", path);
		snprintf(final + flen, len - flen, "/%s", name);
		if (lstat(final, lst)) {
			/* the last name may be new; a folder on the way must be there */
			if (errno == ENOENT && (!next || !*next)) {
				memset(lst, 0, sizeof(*lst));
				return 0;
			}
			/* not a folder: the name before; else the folder missing or shut */
			if (errno == ENOTDIR)
				*strrchr(final, '/') = '\0';
			return err__set(err, -EINVAL,
					"--output '%s': cannot create a file in %s: %s", path,
					final[0] ? final : "/", strerror(errno));
		}
		if (!S_ISLNK(lst->st_mode))
			continue;
		if (++links > OUTPUT_MAX_LINKS)
			return err__set(err, -EINVAL,
					"--output '%s': more than %d symbolic links in a chain",
					path, OUTPUT_MAX_LINKS);
		if (lst->st_uid != 0 && lst->st_uid != geteuid())
			return err__set(err, -EINVAL,
					"--output '%s': the symbolic link %s belongs to user %u, "
					"not followed: name the file it leads to",
					path, final, (unsigned int)lst->st_uid);
		n = readlink(final, link, sizeof(link) - 1);
		if (n < 0)
			return err__set(err, -EINVAL, "--output '%s': cannot read the link %s: %s",
					path, final, strerror(errno));
		link[n] = '\0';
		/* what the link names, then the names after it */
		if ((size_t)snprintf(rest, sizeof(rest), "%s%s%s", link, next ? "/" : "",
				     next ? next : "") >= sizeof(rest))
			return err__set(err, -EINVAL, "--output '%s': the name is too long", path);
		memcpy(todo, rest, strlen(rest) + 1);
		next = todo;
		if (link[0] == '/')
			final[0] = '\0';
		else
			*strrchr(final, '/') = '\0';
	}
	if (!S_ISDIR(lst->st_mode) || final[0])
		return 0;
	strcpy(final, "/");
	return 0;
}

/*
 * What path is now: TARGET_REPLACE with the name to replace in final (see
 * output__walk) and its lstat in *st (st_mode 0: a new file), or
 * TARGET_IN_PLACE with path's stat in *st; or -EINVAL with a sentence (a
 * folder, a block device, a path that leads nowhere).
 */
static int output__target(const char *path, char *final, size_t len, struct stat *st,
			  struct err *err)
{
	struct stat to;
	int e = output__walk(path, final, len, st, err);

	if (e)
		return e;
	/* the kernel's view, through links the walk cannot read (/proc/self/fd/1 -> pipe:[N]) */
	if (stat(path, &to)) {
		if (errno == ENOENT && !st->st_mode)
			return TARGET_REPLACE;
		return err__set(err, -EINVAL, "--output '%s': %s", path, strerror(errno));
	}
	if (S_ISCHR(to.st_mode) || S_ISFIFO(to.st_mode) || S_ISSOCK(to.st_mode)) {
		*st = to;
		return TARGET_IN_PLACE;
	}
	if (S_ISDIR(to.st_mode))
		return err__set(err, -EINVAL, "--output '%s' is a directory: name a file in it",
				path);
	if (!S_ISREG(to.st_mode))
		return err__set(err, -EINVAL,
				"--output '%s' is a %s: --output replaces a regular file, or "
				"writes into a FIFO, a terminal or a socket",
				path, S_ISBLK(to.st_mode) ? "block device" : "special file");
	/* a link to an open file that has no name left (/proc/self/fd/1 -> 'x (deleted)') */
	if (!S_ISREG(st->st_mode) || st->st_dev != to.st_dev || st->st_ino != to.st_ino)
		return err__set(err, -EINVAL,
				"--output '%s' leads to an open file that no name reaches (%s: "
				"deleted, or moved meanwhile): name the file",
				path, final);
	return TARGET_REPLACE;
}

/*
 * FILE.XXXXXX beside FILE: the same file system, so that rename() replaces
 * FILE atomically.  Created as a shell's redirection creates a file (mode
 * 0666 less the umask, or the folder's default ACL); O_EXCL follows no link.
 */
static int output__tmpfile(const char *path, char *tmp, size_t len)
{
	static const char chars[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char r[6];
	struct timespec ts;
	int tries, i, fd;
	size_t n;

	for (tries = 0; tries < 100; tries++) {
		if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
			/* no entropy yet (early boot): O_EXCL keeps a guessed name harmless */
			clock_gettime(CLOCK_MONOTONIC, &ts);
			for (i = 0; i < (int)sizeof(r); i++)
				r[i] = (unsigned char)((ts.tv_nsec >> (i * 5)) + getpid() +
						       tries * 7);
		}
		n = (size_t)snprintf(tmp, len, "%s.XXXXXX", path);
		if (n >= len)
			return -ENAMETOOLONG;
		for (i = 0; i < (int)sizeof(r); i++)
			tmp[n - sizeof(r) + i] = chars[r[i] % (sizeof(chars) - 1)];
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0666);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/*
 * While a temporary file exists no signal acts: one that arrives waits
 * until the report has replaced FILE or the file is removed, so that no
 * way out (SIGTERM from a timer unit, Ctrl-C, an error) leaves FILE.XXXXXX
 * behind.  The live modes block them anyway (their signalfd); --show and
 * --input take the default actions back after parsing.
 */
static void output__hold(sigset_t *old)
{
	sigset_t all;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, old);
}

static void output__release(const sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
}

/*
 * A FIFO opened as a shell's redirection would, waiting for a reader, but
 * not past a signal: one held for a live run's teardown would wait forever
 * in a blocking open().
 */
static int output__open_fifo(const char *path)
{
	const struct timespec tick = { 0, 10 * 1000 * 1000 };
	sigset_t pending;
	int fd;

	for (;;) {
		fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
		if (fd >= 0 || errno != ENXIO)
			break;
		/* no reader yet; a blocked signal waiting means the user wants out */
		if (!sigpending(&pending) && !sigisemptyset(&pending))
			return -EINTR;
		nanosleep(&tick, NULL);
	}
	if (fd < 0)
		return -errno;
	/* a full pipe makes the writer wait, as it would standard output */
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)) {
		close(fd);
		return -errno;
	}
	return fd;
}

/*
 * A socket: the one standard output or error is (/dev/stdout under a
 * systemd unit that logs to the journal), else a stream connection to the
 * named socket.
 */
static int output__open_socket(const char *path, const struct stat *st)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat fs;
	int fd;

	for (fd = 0; fd <= 2; fd++)
		if (!fstat(fd, &fs) && fs.st_dev == st->st_dev && fs.st_ino == st->st_ino) {
			int dup = fcntl(fd, F_DUPFD_CLOEXEC, 3);

			return dup < 0 ? -errno : dup;
		}
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

/* Opens a FIFO, a terminal or a socket to write in place: never created, truncated or replaced. */
static int output__open_in_place(struct output_opts *o, const struct stat *st, struct err *err)
{
	const char *what = S_ISFIFO(st->st_mode)   ? "FIFO"
			   : S_ISSOCK(st->st_mode) ? "socket"
						   : "device";
	struct stat fs;
	int fd;

	if (S_ISFIFO(st->st_mode))
		fd = output__open_fifo(o->path);
	else if (S_ISSOCK(st->st_mode))
		fd = output__open_socket(o->path, st);
	else
		fd = open(o->path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (fd == -EINTR)
		return err__set(err, fd, "--output '%s': a signal came before a reader of the FIFO",
				o->path);
	if (fd < 0)
		return err__set(err, fd == -ENXIO || fd == -ECONNREFUSED ? -EINVAL : fd,
				"--output '%s': cannot write into the %s: %s", o->path, what,
				strerror(-fd));
	/* the same file the check saw, not one put there since (a connection is a new socket) */
	if (fstat(fd, &fs) ||
	    (!S_ISSOCK(st->st_mode) && (fs.st_dev != st->st_dev || fs.st_ino != st->st_ino))) {
		close(fd);
		return err__set(err, -EINVAL, "--output '%s' changed while it was opened", o->path);
	}
	o->stream = fdopen(fd, "w");
	if (!o->stream) {
		close(fd);
		return err__set(err, -ENOMEM, "out of memory");
	}
	return 0;
}

int output__check(struct output_opts *o, struct err *err)
{
	char final[PATH_MAX], tmp[PATH_MAX + 8], dir[PATH_MAX];
	struct stat st;
	sigset_t old;
	int fd, e;

	e = output__supported(o, err);
	if (e || !o->path || o->stream)
		return e;
	e = output__target(o->path, final, sizeof(final), &st, err);
	if (e == TARGET_IN_PLACE)
		return output__open_in_place(o, &st, err);
	if (e < 0)
		return e;
	output__hold(&old);
	fd = output__tmpfile(final, tmp, sizeof(tmp));
	if (fd >= 0) {
		close(fd);
		unlink(tmp);
	}
	output__release(&old);
	if (fd < 0) {
		snprintf(dir, sizeof(dir), "%s", final);
		return err__set(err, -EINVAL, "--output '%s': cannot create a file in %s: %s",
				o->path, dirname(dir), strerror(-fd));
	}
	return 0;
}

void output__close(struct output_opts *o)
{
	if (o->stream)
		fclose(o->stream);
	o->stream = NULL;
}

/* A report into standard output, or into --output written in place: flushed, whole. */
static int output__stream(const struct output_opts *o, const void *report, bool separate,
			  struct err *err)
{
	FILE *f = o->stream ? o->stream : stdout;
	int e;

	if (separate && formats[format_index(o->format)].lines)
		fputc('\n', f);
	renderer(o->formats, o->format)(f, report);
	/* each report whole as soon as it is printed, into a pipe or a file too */
	errno = 0;
	if (!fflush(f) && !ferror(f))
		return 0;
	e = errno ? -errno : -EIO;
	clearerr(f);
	if (o->stream)
		err__msg(err, "cannot write the report to --output '%s': %s", o->path,
			 strerror(-e));
	else
		err__msg(err, "cannot write the report to standard output: %s", strerror(-e));
	return e;
}

/* Keeps a replaced file's permission bits, and its owner and group where this process may. */
static int output__keep(int fd, const struct stat *st)
{
	/* not root: a file of another user's becomes this user's, as an editor's save makes it */
	if (fchown(fd, st->st_uid, st->st_gid) && errno != EPERM)
		return -errno;
	return fchmod(fd, st->st_mode & 0777) ? -errno : 0;
}

int output__write(const struct output_opts *o, const void *report, bool separate, struct err *err)
{
	char final[PATH_MAX], tmp[PATH_MAX + 8];
	struct stat st;
	sigset_t old;
	FILE *f;
	int fd, e;

	e = output__supported(o, err);
	if (e)
		return e;
	if (!o->path || o->stream)
		return output__stream(o, report, separate, err);
	e = output__target(o->path, final, sizeof(final), &st, err);
	if (e == TARGET_IN_PLACE)
		return err__set(err, -EINVAL,
				"--output '%s' was not a FIFO, a terminal or a socket when the run "
				"began: it is written in place only then",
				o->path);
	if (e < 0)
		return e;
	output__hold(&old);
	fd = output__tmpfile(final, tmp, sizeof(tmp));
	if (fd < 0) {
		output__release(&old);
		err__msg(err, "cannot write beside --output '%s': %s", o->path, strerror(-fd));
		return fd;
	}
	e = st.st_mode ? output__keep(fd, &st) : 0;
	f = e ? NULL : fdopen(fd, "w");
	if (!f) {
		e = e ?: -errno;
		close(fd);
		goto out;
	}
	renderer(o->formats, o->format)(f, report);
	errno = 0;
	if (fflush(f) || ferror(f) || fsync(fd))
		e = errno ? -errno : -EIO;
	if (fclose(f) && !e)
		e = -errno;
	if (!e && rename(tmp, final))
		e = -errno;
out:
	if (e)
		unlink(tmp);
	output__release(&old);
	if (e)
		err__msg(err, "cannot write --output '%s': %s", o->path, strerror(-e));
	return e;
}
