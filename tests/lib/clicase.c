// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <check.h>
#include <ctype.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/clicase.h"
#include "tests/lib/testutil.h"
#include "kernel/lib/util.h"

struct cli_var {
	char name[32];
	char *value;
};

static struct cli_var vars[32];
static int nvars;

static struct cli_var *var_find(const char *name, size_t len)
{
	int i;

	for (i = 0; i < nvars; i++)
		if (strlen(vars[i].name) == len && !strncmp(vars[i].name, name, len))
			return &vars[i];
	return NULL;
}

static void var_put(const char *name, const char *value)
{
	struct cli_var *v = var_find(name, strlen(name));

	if (!v) {
		ck_assert_msg(nvars < (int)ARRAY_SIZE(vars) && strlen(name) < sizeof(v->name),
			      "cli_var_set %s: no room", name);
		v = &vars[nvars++];
		strcpy(v->name, name);
	}
	free(v->value);
	v->value = strdup(value);
}

/* The build folder: build_path's, less its last slash. */
static const char *build_dir(void)
{
	static char dir[4096];

	snprintf(dir, sizeof(dir), "%s", build_path(""));
	if (strlen(dir) > 1 && dir[strlen(dir) - 1] == '/')
		dir[strlen(dir) - 1] = '\0';
	return dir;
}

static void vars_init(void)
{
	if (nvars)
		return;
	var_put("HIST", build_path("ldlat-hist"));
	var_put("TOP", build_path("ldlat-top"));
	var_put("STAT", build_path("ldlat-stat"));
	var_put("C2C", build_path("ldlat-c2c"));
	var_put("WORKLOAD", build_path("ldlat-workload"));
	var_put("BUILD", build_dir());
	var_put("FIXTURES", fixture_path(""));
	var_put("SRC", srcdir());
}

void cli_var_set(const char *name, const char *value)
{
	vars_init();
	var_put(name, value);
}

static bool name_char(char c, bool first)
{
	return c == '_' || isalpha((unsigned char)c) || (!first && isdigit((unsigned char)c));
}

/* Appends word, its $NAMEs expanded, to w->buf at *used; returns the copy. */
static char *expand(struct cli_words *w, size_t *used, const char *word, size_t len)
{
	char *start = w->buf + *used, *p = start, *end = w->buf + sizeof(w->buf) - 1;
	const struct cli_var *v;
	size_t i = 0, n;

	while (i < len) {
		if (word[i] == '$' && i + 1 < len && name_char(word[i + 1], true)) {
			for (n = 1; i + 1 + n < len && name_char(word[i + 1 + n], false); n++)
				;
			v = var_find(word + i + 1, n);
			ck_assert_msg(v, "unknown $%.*s in '%.*s'", (int)n, word + i + 1, (int)len,
				      word);
			ck_assert_msg(p + strlen(v->value) < end, "the command is too long");
			p = stpcpy(p, v->value);
			i += 1 + n;
			continue;
		}
		ck_assert_msg(p < end, "the command is too long");
		*p++ = word[i++];
	}
	*p++ = '\0';
	*used = p - w->buf;
	return start;
}

void cli_words(struct cli_words *w, const char *cmd)
{
	size_t used = 0, len;
	int n = 0;

	vars_init();
	for (;;) {
		cmd += strspn(cmd, " \t");
		if (!*cmd)
			break;
		len = strcspn(cmd, " \t");
		ck_assert_msg(n < CLI_WORDS, "more than %d words: %s", CLI_WORDS, cmd);
		w->argv[n++] = expand(w, &used, cmd, len);
		cmd += len;
	}
	w->argv[n] = NULL;
}

/* The case's words: cmd split, or argv expanded word by word. */
static void case_words(struct cli_words *w, const struct cli_case *c)
{
	size_t used = 0;
	int n;

	if (c->cmd) {
		cli_words(w, c->cmd);
		return;
	}
	vars_init();
	for (n = 0; n < CLI_WORDS && c->argv[n]; n++)
		w->argv[n] = expand(w, &used, c->argv[n], strlen(c->argv[n]));
	w->argv[n] = NULL;
}

/* A line for messages: the words with blanks between them. */
static void words_line(char *line, size_t len, char *const argv[])
{
	size_t off = 0;
	int i;

	line[0] = '\0';
	for (i = 0; argv[i] && off < len; i++)
		off += snprintf(line + off, len - off, "%s%s", i ? " " : "", argv[i]);
}

static bool re_matches(const char *text, const char *re)
{
	regex_t r;
	int e = regcomp(&r, re, REG_EXTENDED | REG_NEWLINE | REG_NOSUB);
	bool m;

	ck_assert_msg(e == 0, "the expression '%s' does not compile", re);
	m = regexec(&r, text, 0, NULL, 0) == 0;
	regfree(&r);
	return m;
}

/* The tool's lines only (see struct cli_case's tool). */
static void assert_tool_lines(const char *what, const char *tool, const char *err)
{
	const char *line, *nl;
	size_t n = strlen(tool);

	ck_assert_msg(err[0] && err[strlen(err) - 1] == '\n', "%s: no message: '%s'", what, err);
	for (line = err; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		ck_assert_msg((!strncmp(line, tool, n) && !strncmp(line + n, ": ", 2)) ||
				      !strncmp(line, "Try `", 5),
			      "%s: a line that is not the tool's: '%.*s' in:\n%s", what,
			      (int)(nl - line), line, err);
	}
	for (line = err; *line; line++)
		ck_assert_msg(*line == '\n' || (unsigned char)*line >= 0x20,
			      "%s: a raw control character (0x%02x) in: %s", what,
			      (unsigned char)*line, err);
}

static void assert_streams(const char *what, const struct cli_case *c, const char *out,
			   const char *err)
{
	static const char *const names[] = { "stdout", "stderr" };
	const char *text[] = { out, err };
	const char *const *has[] = { c->out, c->err }, *const * hasnt[] = { c->no_out, c->no_err };
	const char *const *re[] = { c->out_re, c->err_re };
	int s, i;

	for (s = 0; s < 2; s++)
		for (i = 0; i < CLI_CHECKS; i++) {
			if (has[s][i])
				ck_assert_msg(strstr(text[s], has[s][i]),
					      "%s: want '%s' in %s:\n%s", what, has[s][i], names[s],
					      text[s]);
			if (hasnt[s][i])
				ck_assert_msg(!strstr(text[s], hasnt[s][i]),
					      "%s: '%s' is in %s:\n%s", what, hasnt[s][i], names[s],
					      text[s]);
			if (re[s][i])
				ck_assert_msg(re_matches(text[s], re[s][i]),
					      "%s: no line of %s matches '%s':\n%s", what, names[s],
					      re[s][i], text[s]);
		}
}

static void assert_out(const char *what, const struct cli_case *c, const char *out)
{
	const struct cli_count *k;
	long n;
	int i;

	if (c->empty_out)
		ck_assert_msg(!out[0], "%s: stdout is not empty:\n%s", what, out);
	for (i = 0; i < CLI_CHECKS; i++) {
		k = &c->counts[i];
		if (k->label) {
			n = count_for(out, k->label);
			ck_assert_msg(k->at_least ? n >= k->n : n == k->n,
				      "%s: %ld for '%s' (want %s%ld) in:\n%s", what, n, k->label,
				      k->at_least ? "at least " : "", k->n, out);
		}
		if (c->jq[i])
			ck_assert_msg(jq_true(out, c->jq[i]), "%s: jq -e '%s' is not true of:\n%s",
				      what, c->jq[i], out);
	}
}

void cli_case__run(const struct cli_case *c, struct cli_result *r)
{
	struct cli_words w;
	char line[8192], what[8400];
	char *sh_argv[] = { "sh", "-c", (char *)c->sh, NULL };
	int i;

	vars_init();
	if (c->sh) {
		/* the shell expands the names itself */
		for (i = 0; i < nvars; i++)
			setenv(vars[i].name, vars[i].value, 1);
		snprintf(line, sizeof(line), "%s", c->sh);
	} else {
		case_words(&w, c);
		ck_assert_msg(w.argv[0], "%s: no command", c->what ? c->what : "a case");
		words_line(line, sizeof(line), w.argv);
	}
	snprintf(what, sizeof(what), "%s%s%s", c->what ? c->what : "", c->what ? ": " : "", line);
	r->rc = run(c->sh ? sh_argv : w.argv, c->seconds > 0 ? c->seconds : 60, &r->out, &r->err);
	ck_assert_msg(r->rc == c->rc, "%s: exit %d (want %d)\nstdout:\n%.4000s\nstderr:\n%.4000s",
		      what, r->rc, c->rc, r->out, r->err);
	if (c->err_starts)
		ck_assert_msg(!strncmp(r->err, c->err_starts, strlen(c->err_starts)),
			      "%s: stderr does not start with '%s':\n%s", what, c->err_starts,
			      r->err);
	if (c->tool)
		assert_tool_lines(what, c->tool, r->err);
	assert_streams(what, c, r->out, r->err);
	assert_out(what, c, r->out);
	if (c->nothing_left)
		assert_nothing_left();
}

void cli_case__check(const struct cli_case *c)
{
	struct cli_result r;

	cli_case__run(c, &r);
	cli_result__free(&r);
}

void cli_result__free(struct cli_result *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}
