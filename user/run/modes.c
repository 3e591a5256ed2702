// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/lib/err.h"
#include "kernel/lib/unctrl.h"
#include "user/run/cli.h"
#include "user/run/modes.h"
#include "user/run/signals.h"

#define MODES_MAX   16
#define MODES_OPTS  256
#define LONG_OFFSET 0x10000 /* getopt_long's value for long option i: LONG_OFFSET + i */

/* An option of some mode of the tool, and which modes take it. */
struct mode_opt {
	const char *name; /* long name, or NULL */
	int key;	  /* short option, or 0 */
	int has_arg;	  /* getopt's no_argument, required_argument, optional_argument */
	unsigned int modes;
};

struct mode_opts {
	struct mode_opt opt[MODES_OPTS];
	int n;
};

static bool is_short(int key)
{
	return key > 0 && key <= 0xff && isprint(key);
}

static struct mode_opt *mode_opts__find(struct mode_opts *o, const char *name, int key)
{
	int i;

	for (i = 0; i < o->n; i++)
		if ((name && o->opt[i].name && !strcmp(name, o->opt[i].name)) ||
		    (!name && key && o->opt[i].key == key))
			return &o->opt[i];
	return NULL;
}

static void mode_opts__add(struct mode_opts *o, const char *name, int key, int has_arg,
			   unsigned int modes)
{
	struct mode_opt *m = mode_opts__find(o, name, key);

	if (!m && name && key)
		m = mode_opts__find(o, NULL, key);
	if (!m) {
		if (o->n == MODES_OPTS)
			return;
		m = &o->opt[o->n++];
		m->name = name;
		m->key = key;
		m->has_arg = has_arg;
	}
	if (!m->name)
		m->name = name;
	if (!m->key)
		m->key = key;
	m->modes |= modes;
}

struct walk {
	struct mode_opts *o;
	unsigned int mode;
};

static void walk_opt(const struct opt_found *f, void *ctx)
{
	const struct walk *w = ctx;
	const struct opt *opt = f->opt;
	int has_arg = !opt->arg				 ? no_argument
		      : opt->flags & OPTION_ARG_OPTIONAL ? optional_argument
							 : required_argument;

	mode_opts__add(w->o, opt->name, is_short(opt->key) ? opt->key : 0, has_arg, 1u << w->mode);
}

/* What the arguments hold, in order: options (index into the mode_opts) and a command. */
struct given {
	int opt;	     /* index, or -1: a command */
	const char *command; /* its first word */
	char name[48];	     /* the option as a message names it: "--pin", "-G" */
};

struct scan {
	const struct mode *mode; /* chosen by its word; NULL: by the flags */
	int word;		 /* 1 when argv[1] is the mode's word, else 0 */
	int operand;		 /* argv index of the word form's operand; 0: none */
	struct given given[MODES_OPTS];
	int ngiven;
	const char *unknown; /* an option no mode knows, as given; NULL: none */
};

static const struct mode *mode_by_name(const struct mode_table *t, const char *name)
{
	int i;

	for (i = 0; name && i < t->nmodes; i++)
		if (!strcmp(t->modes[i].name, name))
			return &t->modes[i];
	return NULL;
}

static const struct mode *mode_by_flag(const struct mode_table *t, const char *flag)
{
	int i;

	for (i = 0; flag && i < t->nmodes; i++)
		if (t->modes[i].flag && !strcmp(t->modes[i].flag, flag))
			return &t->modes[i];
	return NULL;
}

/*
 * A non-option argument at argv[i]: the word form's operand, biolatency's
 * [interval [count]] (a number, not after --: given as -i), or a command.
 * 0: it ends the scan.
 */
static int scan_arg(const struct mode_opts *o, struct scan *s, char **argv, int i, bool dashdash)
{
	const struct mode_opt *interval = mode_opts__find((struct mode_opts *)o, "interval", 0);
	struct given *g;

	if (s->mode && s->mode->operand && !s->operand) {
		s->operand = i;
		return 1;
	}
	if (!dashdash && interval && cli__positional_number(argv[i])) {
		g = &s->given[s->ngiven++];
		g->opt = (int)(interval - o->opt);
		snprintf(g->name, sizeof(g->name), "'%s' ([interval [count]])", argv[i]);
		return 1;
	}
	s->given[s->ngiven++] = (struct given){ .opt = -1, .command = argv[i] };
	return 0; /* the rest of the arguments are the command's */
}

/*
 * Reads the arguments as getopt will for argp, with every mode's options
 * known: which options are given, and where a command starts.  An option no
 * mode knows, or one missing its argument, ends the scan: argp says so.
 */
static void scan_args(const struct mode_opts *o, struct scan *s, int argc, char **argv)
{
	static struct option longopts[MODES_OPTS + 1];
	char optstring[3 * MODES_OPTS + 3] = "-:", *p = optstring + 2;
	int i, c, li, n = 0, sub_argc = argc - s->word;
	bool missing;
	char **sub_argv = argv + s->word;
	struct given *g;

	for (i = 0; i < o->n; i++) {
		if (o->opt[i].name)
			longopts[n++] = (struct option){ o->opt[i].name, o->opt[i].has_arg, NULL,
							 LONG_OFFSET + i };
		if (!o->opt[i].key)
			continue;
		*p++ = (char)o->opt[i].key;
		if (o->opt[i].has_arg != no_argument)
			*p++ = ':';
		if (o->opt[i].has_arg == optional_argument)
			*p++ = ':';
	}
	*p = '\0';
	longopts[n] = (struct option){};
	opterr = 0;
	optind = 0; /* glibc: start afresh */
	while (s->ngiven < MODES_OPTS) {
		c = getopt_long(sub_argc, sub_argv, optstring, longopts, &li);
		if (c == -1) {
			/* after "--": arguments only */
			for (i = optind; i < sub_argc && s->ngiven < MODES_OPTS; i++)
				if (!scan_arg(o, s, argv, s->word + i,
					      !strcmp(sub_argv[optind - 1], "--")))
					break;
			break;
		}
		if (c == '?') {
			s->unknown = sub_argv[optind - 1 > 0 ? optind - 1 : 0];
			break;
		}
		/* an option missing its argument still tells the mode (ldlat-hist --input) */
		missing = c == ':';
		if (missing)
			c = optopt;
		if (c == 1) {
			if (!scan_arg(o, s, argv, s->word + optind - 1, false))
				break;
			continue;
		}
		if (c >= LONG_OFFSET) {
			i = c - LONG_OFFSET;
		} else {
			for (i = 0; i < o->n && o->opt[i].key != c; i++)
				;
			if (i == o->n)
				break;
		}
		g = &s->given[s->ngiven++];
		g->opt = i;
		if (c >= LONG_OFFSET)
			snprintf(g->name, sizeof(g->name), "--%s", o->opt[i].name);
		else
			snprintf(g->name, sizeof(g->name), "-%c", c);
		if (missing)
			break;
	}
	optind = 0;
}

/* "'ldlat-hist show' (--show DIR)", as the user chose it. */
static void mode_words(const struct mode_table *t, const struct mode *m, bool word, char *buf,
		       size_t len)
{
	if (word || !m->flag)
		snprintf(buf, len, "'%s %s'", t->tool, m->name);
	else
		snprintf(buf, len, "'%s %s' (--%s%s%s)", t->tool, m->name, m->flag,
			 m->operand ? " " : "", m->operand ? m->operand : "");
}

/* An option (or a command) the chosen mode does not take: the modes that do. */
static void refuse(const struct mode_table *t, const struct mode *m, bool word,
		   const struct mode_opt *opt, const struct given *g)
{
	char chosen[256], others[512] = "";
	size_t len = 0;
	int i;

	mode_words(t, m, word, chosen, sizeof(chosen));
	for (i = 0; i < t->nmodes; i++) {
		if (opt ? !(opt->modes & (1u << i)) : !t->modes[i].command)
			continue;
		if (len < sizeof(others))
			len += snprintf(others + len, sizeof(others) - len, "%s'%s %s'",
					len ? ", " : "", t->tool, t->modes[i].name);
	}
	if (opt) {
		fprintf(stderr, "%s: %s is not an option of %s; it is one of %s. ", t->tool,
			g->name, chosen, others);
	} else {
		fprintf(stderr, "%s: a command ('", t->tool);
		unctrl__fputs(stderr, g->command); /* one line, whatever the command's name holds */
		fprintf(stderr, "') is not an argument of %s; %s takes one. ", chosen, others);
	}
	fprintf(stderr, "'%s %s --help' lists what %s takes\n", t->tool, m->name, m->name);
}

static const struct mode_table *help_table;

/* The default mode's --help: the modes, before the examples. */
static char *modes_help_filter(int key, const char *text, void *input)
{
	const struct mode_table *t = help_table;
	char *out = NULL, *filtered = (char *)text, usage[64], flag[64];
	size_t len = 0;
	FILE *f;
	int i;

	filtered = opts__help_filter(key, text, input);
	if (key != ARGP_KEY_HELP_POST_DOC || !t)
		return filtered;
	f = open_memstream(&out, &len);
	if (!f)
		return filtered;
	fprintf(f, "Commands ('%s COMMAND --help' lists a command's options):\n", t->tool);
	for (i = 0; i < t->nmodes; i++) {
		const struct mode *m = &t->modes[i];

		snprintf(usage, sizeof(usage), "%s%s%s", m->name, m->operand ? " " : "",
			 m->operand ? m->operand : "");
		if (m->flag)
			snprintf(flag, sizeof(flag), " (or --%s%s%s)", m->flag,
				 m->operand ? " " : "", m->operand ? m->operand : "");
		else
			snprintf(flag, sizeof(flag), " (the default)");
		fprintf(f, "  %-13s %s%s\n", usage, m->summary, flag);
	}
	if (filtered)
		fprintf(f, "\n%s", filtered);
	if (fclose(f)) {
		free(out);
		return filtered;
	}
	if (filtered != text)
		free(filtered);
	return out;
}

/* Whether the arguments give m's flag (ldlat-hist show --show DIR). */
static bool flag_given(const struct mode_table *t, const struct mode_opts *o, const struct scan *s,
		       const struct mode *m)
{
	int i;

	for (i = 0; i < s->ngiven; i++)
		if (s->given[i].opt >= 0 && mode_by_flag(t, o->opt[s->given[i].opt].name) == m)
			return true;
	return false;
}

#ifndef LDLAT_VERSION
#define LDLAT_VERSION "unknown"
#endif

static const char *version_tool;

/* -V, --version: argp adds the option when argp_program_version_hook is set */
static void print_version(FILE *f, struct argp_state *state)
{
	(void)state;
	fprintf(f, "%s %s\n", version_tool, LDLAT_VERSION);
}

/* -h as perf, bpftool and the BCC tools take it, next to argp's -? and --help */
static const struct argp_option conventions_options[] = {
	{ NULL, 'h', NULL, 0, "Give this help list (as -? and --help)", -1 },
	{},
};

static error_t conventions_parse(int key, char *arg, struct argp_state *state)
{
	(void)arg;
	if (key != 'h')
		return ARGP_ERR_UNKNOWN;
	argp_state_help(state, state->out_stream, ARGP_HELP_STD_HELP);
	return 0;
}

static const struct argp conventions_argp = {
	.options = conventions_options,
	.parser = conventions_parse,
};

static const struct argp_child conventions[] = {
	{ &conventions_argp, 0, NULL, 0 },
	{},
};

const struct mode *modes__parse(const struct mode_table *t, int argc, char **argv, void *input,
				int *status)
{
	static struct mode_opts opts;
	static struct scan s;
	static char name[128], flag_opt[128], **av;
	const struct argp *built;
	struct argp argp;
	const struct mode *m;
	int i, e, ac = 0;

	*status = EXIT_USAGE;
	memset(&opts, 0, sizeof(opts));
	memset(&s, 0, sizeof(s));
	for (i = 0; i < t->nmodes && i < MODES_MAX; i++)
		opts__each(t->modes[i].opts, walk_opt, &(struct walk){ &opts, (unsigned int)i });
	/* argp's own and the conventions' (-h, -V): every mode takes them */
	mode_opts__add(&opts, "help", '?', no_argument, ~0u >> (32 - MODES_MAX));
	mode_opts__add(&opts, "usage", 0, no_argument, ~0u >> (32 - MODES_MAX));
	mode_opts__add(&opts, "version", 'V', no_argument, ~0u >> (32 - MODES_MAX));
	mode_opts__add(&opts, NULL, 'h', no_argument, ~0u >> (32 - MODES_MAX));

	s.mode = argc > 1 ? mode_by_name(t, argv[1]) : NULL;
	s.word = s.mode ? 1 : 0;
	scan_args(&opts, &s, argc, argv);
	m = s.mode;
	for (i = 0; !m && i < s.ngiven; i++)
		if (s.given[i].opt >= 0)
			m = mode_by_flag(t, opts.opt[s.given[i].opt].name);
	if (!m)
		m = &t->modes[0];
	for (i = 0; i < s.ngiven; i++) {
		const struct given *g = &s.given[i];
		const struct mode_opt *o = g->opt >= 0 ? &opts.opt[g->opt] : NULL;

		if (o ? o->modes & (1u << (m - t->modes)) : m->command)
			continue;
		refuse(t, m, s.word, o, g);
		return NULL;
	}
	/* getopt would echo a newline in it raw: the message is ours, one line */
	if (s.unknown &&
	    s.unknown[strcspn(s.unknown, "\x01\x02\x03\x04\x05\x06\x07\x08\t\n\v\f"
					 "\r\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18"
					 "\x19\x1a\x1b\x1c\x1d\x1e\x1f\x7f")]) {
		fprintf(stderr, "%s: unrecognized option '", t->tool);
		unctrl__fputs(stderr, s.unknown);
		fprintf(stderr, "'\nTry `%s --help' or `%s --usage' for more information.\n",
			t->tool, t->tool);
		return NULL;
	}
	/* ldlat-hist report A --input B: one of them would go unread */
	if (s.word && m->flag && s.operand && flag_given(t, &opts, &s, m)) {
		fprintf(stderr, "%s: '%s %s' takes its %s once: as the word's operand or as --%s\n",
			t->tool, t->tool, m->name, m->operand, m->flag);
		return NULL;
	}

	/*
	 * The word form as the flag form: ldlat-hist show DIR is ldlat-hist
	 * --show=DIR.  av lives as long as the process: a command's argv points
	 * into it.
	 */
	av = calloc(argc + 3, sizeof(*av));
	if (!av) {
		fprintf(stderr, "%s: out of memory\n", t->tool);
		*status = EXIT_FAIL;
		return NULL;
	}
	snprintf(name, sizeof(name), "%s%s%s", t->tool, s.word ? " " : "", s.word ? m->name : "");
	av[ac++] = name;
	if (s.word && m->flag && (s.operand || !m->operand)) {
		/* the operand as the flag's own argument, whole, however long */
		snprintf(flag_opt, sizeof(flag_opt), "--%s", m->flag);
		av[ac++] = flag_opt;
		if (s.operand)
			av[ac++] = argv[s.operand];
	}
	for (i = 1 + s.word; i < argc; i++)
		if (i != s.operand)
			av[ac++] = argv[i];
	av[ac] = NULL;

	built = opts__argp(m->opts, t->places, s.word && m->operand ? m->operand : m->args_doc,
			   m->doc, conventions);
	if (!built) {
		*status = EXIT_FAIL;
		return NULL;
	}
	argp = *built;
	version_tool = t->tool;
	argp_program_version_hook = print_version;
	if (m == &t->modes[0]) {
		help_table = t;
		argp.help_filter = modes_help_filter;
	}
	e = argp_parse(&argp, ac, av, ARGP_IN_ORDER, NULL, input);
	if (e)
		return NULL;
	/* after argp: --help needs no operand */
	if (s.word && m->operand && !s.operand && !flag_given(t, &opts, &s, m)) {
		fprintf(stderr, "%s: '%s %s' needs %s: %s %s %s [OPTION...]\n", t->tool, t->tool,
			m->name, m->operand, t->tool, m->name, m->operand);
		return NULL;
	}
	*status = EXIT_OK;
	return m;
}

int modes__main(const struct mode_table *t, int argc, char **argv, void *input)
{
	const struct mode *m;
	sigset_t old;
	bool held;
	int status;

	/*
	 * Before anything else: a Ctrl-C or SIGTERM in the first milliseconds
	 * waits for the live modes' signalfd, which ends the run through its
	 * teardown (exit 0).  The other modes (a file, a pinned set, a list)
	 * take the signals back as they were once the arguments are parsed.
	 */
	held = !signals__hold(&old);
	argp_err_exit_status = EXIT_USAGE;
	m = modes__parse(t, argc, argv, input, &status);
	if (held && (!m || !m->command))
		signals__release(&old);
	/* a mode's output that never arrived (a full disk, /dev/full) is a failure, exit 1 */
	return m ? err__check_stdout(m->run(input), t->tool) : status;
}
