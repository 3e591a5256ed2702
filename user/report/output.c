// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "user/report/output.h"

enum {
	OPT_FORMAT = 0x300,
	OPT_OUTPUT,
};

static const struct argp_option options[] = {
	{ NULL, 0, NULL, 0, "Output format:", 6 },
	{ "format", OPT_FORMAT, "FMT", 0,
	  "text (default), json (one object per report, one per line), prometheus (totals since "
	  "the start in the Prometheus text format: node_exporter's textfile collector, promtool) "
	  "or openmetrics (the same in OpenMetrics 1.0)",
	  6 },
	{ "output", OPT_OUTPUT, "FILE", 0,
	  "write each report to FILE, replacing it atomically (for the node_exporter textfile "
	  "collector: a FILE.prom in its directory)",
	  6 },
	{},
};

static error_t output_parse(int key, char *arg, struct argp_state *state)
{
	struct output_opts *o = state->input;

	switch (key) {
	case OPT_FORMAT:
		if (!strcmp(arg, "text"))
			o->format = OUTPUT_TEXT;
		else if (!strcmp(arg, "json"))
			o->format = OUTPUT_JSON;
		else if (!strcmp(arg, "openmetrics"))
			o->format = OUTPUT_OPENMETRICS;
		else if (!strcmp(arg, "prometheus"))
			o->format = OUTPUT_PROMETHEUS;
		else if (o->graphs && !strcmp(arg, "folded"))
			o->graph = OUTPUT_GRAPH_FOLDED;
		else if (o->graphs && !strcmp(arg, "svg"))
			o->graph = OUTPUT_GRAPH_SVG;
		else
			argp_error(state, "--format '%s': expected %s", arg,
				   o->graphs	       ? "text, json, folded or svg"
				   : o->no_openmetrics ? "text or json"
						       : "text, json, prometheus or openmetrics");
		if (strcmp(arg, "folded") && strcmp(arg, "svg"))
			o->graph = OUTPUT_GRAPH_NONE;
		break;
	case OPT_OUTPUT:
		if (!*arg)
			argp_error(state, "--output: empty file name");
		o->path = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* --help of a tool without OpenMetrics lists only what its --format takes. */
static char *output_help_filter(int key, const char *text, void *input)
{
	const struct output_opts *o = input;

	if (key == OPT_FORMAT && o && o->graphs)
		return strdup("text (default), json (one object per report, one per line), folded "
			      "(call paths as folded stacks) or svg (a flame graph of them)");
	if (key == OPT_FORMAT && o && o->no_openmetrics)
		return strdup("text (default) or json (one object per report, one per line)");
	return (char *)text;
}

const struct argp output_argp = {
	.options = options,
	.parser = output_parse,
	.help_filter = output_help_filter,
};

/* FILE.XXXXXX beside FILE: same file system, so rename() replaces it atomically. */
static int output__tmpfile(const char *path, char *tmp, size_t len)
{
	int fd;

	if ((size_t)snprintf(tmp, len, "%s.XXXXXX", path) >= len)
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* readable by a collector running as another user, as a plain file would be */
	if (fchmod(fd, 0644)) {
		int e = -errno;

		close(fd);
		unlink(tmp);
		return e;
	}
	return fd;
}

int output__check(const struct output_opts *o, struct err *err)
{
	char tmp[4096], dir[4096];
	struct stat st;
	int fd;

	if (!o->path)
		return 0;
	if (!stat(o->path, &st) && S_ISDIR(st.st_mode))
		return err__set(err, -EINVAL, "--output '%s' is a directory: name a file in it",
				o->path);
	/* each report replaces FILE by a new file: never a device, a FIFO or a socket */
	if (!stat(o->path, &st) && !S_ISREG(st.st_mode)) {
		err__msg(
			err,
			"--output '%s' is not a regular file (each report replaces the file): name "
			"a regular file, or leave out --output and redirect standard output",
			o->path);
		return -EINVAL;
	}
	fd = output__tmpfile(o->path, tmp, sizeof(tmp));
	if (fd < 0) {
		snprintf(dir, sizeof(dir), "%s", o->path);
		return err__set(err, -EINVAL, "--output '%s': cannot create a file in %s: %s",
				o->path, dirname(dir), strerror(-fd));
	}
	close(fd);
	unlink(tmp);
	return 0;
}

static void output__render(FILE *f, const struct output_opts *o, const struct report *r,
			   const struct snapshot *interval, const struct snapshot *total,
			   bool with_run)
{
	switch (o->format) {
	case OUTPUT_TEXT:
		if (with_run && r->run && r->run->pin_dir)
			render_text_run(f, r, interval);
		render_text(f, r, interval);
		break;
	case OUTPUT_JSON:
		render_json(f, r, interval);
		break;
	case OUTPUT_OPENMETRICS:
		render_openmetrics(f, r, total);
		break;
	case OUTPUT_PROMETHEUS:
		render_prometheus(f, r, total);
		break;
	}
}

int output__write(const struct output_opts *o, void (*render)(FILE *f, void *ctx), void *ctx,
		  bool separate, struct err *err)
{
	char tmp[4096];
	FILE *f;
	int fd, e = 0;

	if (!o->path) {
		if (separate && o->format == OUTPUT_TEXT)
			fputc('\n', stdout);
		render(stdout, ctx);
		/* each report whole as soon as it is printed, into a pipe or a file too */
		errno = 0;
		if (fflush(stdout) || ferror(stdout)) {
			e = errno ? -errno : -EIO;
			clearerr(stdout);
			err__msg(err, "cannot write the report to standard output: %s",
				 strerror(-e));
			return e;
		}
		return 0;
	}
	fd = output__tmpfile(o->path, tmp, sizeof(tmp));
	if (fd < 0) {
		err__msg(err, "cannot write beside --output '%s': %s", o->path, strerror(-fd));
		return fd;
	}
	f = fdopen(fd, "w");
	if (!f) {
		e = -errno;
		close(fd);
		goto fail;
	}
	render(f, ctx);
	if (fflush(f) || ferror(f) || fsync(fd))
		e = errno ? -errno : -EIO;
	if (fclose(f) && !e)
		e = -errno;
	if (!e && rename(tmp, o->path))
		e = -errno;
	if (!e)
		return 0;
fail:
	unlink(tmp);
	err__msg(err, "cannot write --output '%s': %s", o->path, strerror(-e));
	return e;
}

struct emit {
	const struct output_opts *o;
	const struct report *r;
	const struct snapshot *interval, *total;
	bool with_run;
};

static void output__render_emit(FILE *f, void *ctx)
{
	const struct emit *em = ctx;

	output__render(f, em->o, em->r, em->interval, em->total, em->with_run);
}

int output__emit(const struct output_opts *o, const struct report *r,
		 const struct snapshot *interval, const struct snapshot *total, int seq,
		 struct err *err)
{
	struct emit em = { o, r, interval, total, o->path || seq == 0 };

	return output__write(o, output__render_emit, &em, seq != 0, err);
}
