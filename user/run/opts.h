/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * opts.h - a tool's options as data: each option says its group, its kind
 * (a flag, a number with bounds, seconds, a text, one word of a list, keys
 * of a list, or a parser of its own) and the field it sets (offsetof in the
 * struct of its group); a mode names the groups it takes, each with where
 * that struct lies in the tool's arguments.  One argp is built from them and
 * one parser sets the fields, so --help, --usage and every error come from
 * the declaration.
 */
#ifndef LDLAT_OPTS_H
#define LDLAT_OPTS_H

#include <argp.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "kernel/lib/err.h"

enum opt_kind {
	OPT_FLAG,    /* takes nothing: the field (a bool) becomes true */
	OPT_COUNT,   /* takes nothing: the field (an int) counts how often it is given */
	OPT_TEXT,    /* the argument itself (a const char *); .what: the noun an empty one lacks */
	OPT_NUMBER,  /* a decimal or 0x number from .min to .max (0: the field's largest) */
	OPT_SECONDS, /* a positive number of seconds (a double), at least .least */
	OPT_WORD,    /* one of .words: the field takes its value */
	OPT_KEYS,    /* KEY[,KEY] of .words, one per column: each column's field takes its value */
	OPT_PARSE,   /* .parse reads it */
};

/*
 * Where an option's value goes, in the struct of its group: .at and .size
 * (size 0: nowhere), and .set, a bool made true when it is given.
 */
#define OPT_TO(type, member)  .at = offsetof(type, member), .size = sizeof(((type *)0)->member)
#define OPT_SETS(type, given) .set = offsetof(type, given) + 1
/* OPT_KEYS: the second column's field */
#define OPT_TO2(type, member) .at2 = offsetof(type, member), .size2 = sizeof(((type *)0)->member)

/*
 * A word an option takes.  An alias is taken but not listed when the
 * option says what it expects.  OPT_KEYS: the column the key fills
 * (ldlat-hist --by pid,class: a split and a grouping).
 */
struct opt_word {
	const char *word;
	int value;
	int column;
	bool alias;
};

struct opt {
	const char *name; /* --name; NULL with key 0: a header, doc its title */
	int key;	  /* -k; 0: long only */
	const char *arg;  /* what it takes ("N"); NULL: nothing */
	int flags;	  /* argp's OPTION_ARG_OPTIONAL */
	const char *doc;
	enum opt_kind kind;
	size_t at, size, set; /* OPT_TO, OPT_SETS; OPT_KEYS: its first column's */
	size_t at2, size2;    /* OPT_TO2: OPT_KEYS's second column */
	__u64 min, max;	      /* OPT_NUMBER */
	double least;	      /* OPT_SECONDS */
	/*
	 * OPT_NUMBER, OPT_SECONDS: what the argument is not ("--rows 'x' is
	 * not a number of rows", %llu: max); OPT_TEXT: the noun of an empty
	 * one ("--input: empty file name"; NULL: an empty one is taken)
	 */
	const char *what;
	const char *too_small;	      /* OPT_SECONDS: the sentence under .least */
	const struct opt_word *words; /* OPT_WORD, OPT_KEYS: ended by {} */
	/* OPT_PARSE: the group's struct, the argument; 0 or -errno with the sentence in err */
	int (*parse)(void *base, const char *arg, struct err *err);
	/* NULL, or its --help text from doc (a string of its own, or doc) */
	char *(*help)(const char *doc, const void *base);
};

/*
 * The struct the fields of shared groups are in (struct cli, struct
 * output_opts), their home: each tool says once where its arguments hold
 * it.  A group without a home sets fields of the tool's arguments.
 */
struct opt_home {
	const char *name; /* "struct cli", for the message of a tool that does not place it */
};

struct opt_place {
	const struct opt_home *home;
	size_t at; /* offsetof in the tool's arguments */
};

/*
 * A group of options: --help lists it under its number (argp's group),
 * together with the other groups of the same number, each option's title
 * first.  A group may hold other groups.
 */
struct opt_group {
	int group;
	const char *title;		     /* its heading in --help; NULL: none */
	const struct opt *opts;		     /* ended by {}; NULL: none */
	const struct opt_group *const *subs; /* ended by NULL; NULL: none */
	const struct opt_home *home;	     /* where its fields are; NULL: the tool's arguments */
	/* once all are read: 0 or -EINVAL with the sentence in err */
	int (*check)(void *base, struct err *err);
	/*
	 * A non-option argument (argp's ARGP_KEY_ARG at state->next - 1),
	 * for the first group that has this: 0, or -EINVAL with err
	 */
	int (*arg)(void *base, struct argp_state *state, const char *arg, struct err *err);
};

/* An option of the groups, and where its group's struct lies in the tool's arguments. */
struct opt_found {
	const struct opt *opt;
	size_t base;
};

/*
 * Calls fn for each option of groups (ended by NULL), headers left out, in
 * the order --help lists options of the same group number (base 0).
 */
void opts__each(const struct opt_group *const *groups,
		void (*fn)(const struct opt_found *f, void *ctx), void *ctx);

/*
 * The argp of groups, their homes at places (ended by {}): its options,
 * the parser that sets their fields in the arguments argp_parse is given
 * as input, their --help texts; args_doc and doc as argp takes them,
 * children after the options (NULL: none).  argp's messages quote the
 * user's input with its control characters escaped.  Returns a pointer to
 * storage that the next call reuses; NULL, with a line on stderr, when a
 * group's home has no place (a bug of the tool's).
 */
const struct argp *opts__argp(const struct opt_group *const *groups, const struct opt_place *places,
			      const char *args_doc, const char *doc,
			      const struct argp_child *children);

/*
 * The help filter of opts__argp's argp, for an argp built around it: each
 * option's own text.
 */
char *opts__help_filter(int key, const char *text, void *input);

/* Parses a non-negative decimal or 0x number; false when it is not one. */
bool opts__parse_u64(const char *s, __u64 *v);

/* Parses a positive number of seconds (below 1e9) at the start of s; false when it is not one. */
bool opts__parse_seconds(const char *s, double *v, char **end);

#endif
