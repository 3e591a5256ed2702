/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * pincmd.h - the pinning commands of a sampling tool: --pin DIR (with
 * --detach), --show DIR (with --delta), --unpin DIR; their options as
 * groups, one per mode, their checks, and --show and --unpin as whole
 * commands.
 */
#ifndef LDLAT_PINCMD_H
#define LDLAT_PINCMD_H

#include <stdbool.h>
#include <time.h>

#include "kernel/lib/err.h"
#include "user/run/cli.h"
#include "user/run/opts.h"
#include "user/report/output.h"
#include "user/hist/pinset.h"
#include "user/report/render.h"
#include "user/run/tool.h"

struct pin_opts {
	const char *pin;    /* --pin DIR */
	bool detach;	    /* --detach: leave it sampling and exit */
	const char *show;   /* --show DIR */
	const char *unpin;  /* --unpin DIR */
	bool delta;	    /* --delta: --show the change since the last --show --delta */
	bool allow_missing; /* --allow-missing: a missing or empty DIR is ldlat_set_present 0 */
};

/*
 * The options, as groups (opts.h) whose fields are in a struct pin_opts,
 * their home: a sampling run's (--pin, --detach), --show's (--show,
 * --delta), --unpin's.
 */
extern const struct opt_home pin_home;
extern const struct opt_group pin_sample_opts;
extern const struct opt_group pin_show_opts;
extern const struct opt_group pin_unpin_opts;

/*
 * Checks a sampling run's pinning options against the others it takes:
 * --detach needs --pin, and takes no command, no --loads, no -d or -i.
 * Returns 0 or -EINVAL with a sentence in err.
 */
int pin_opts__check_sample(const struct pin_opts *po, const struct cli *cli, struct err *err);

/*
 * The same for --show: --delta does not apply to an exposition's totals;
 * --allow-missing applies only to one (a single report, no -i or -d).
 */
int pin_opts__check_show(const struct pin_opts *po, const struct cli *cli,
			 const struct output_opts *oo, struct err *err);

/* What a started tool samples with its program's session s, as the set records it. */
void pin_meta__fill(struct ldlat_pin_meta *m, const struct tool *t, const struct session *s,
		    const struct timespec *started, bool detached);

/* --unpin DIR as a whole command: the exit status. */
int pincmd__unpin(const char *tool, const char *dir);

/*
 * --show DIR as a whole command, printing as the output options say, once,
 * or at every -i interval for -d or COUNT intervals or until Ctrl-C.  by:
 * the tool's --by (by_set false: the default for the set's source); split:
 * its --by pid, tid, ... (enum ldlat_by), which must be the set's own, or
 * LDLAT_BY_NONE: the set's split is printed as it was pinned.  Returns the
 * exit status.
 */
int pincmd__show(const char *tool, const struct pin_opts *po, const struct cli *cli,
		 const struct output_opts *oo, enum hist_by by, bool by_set, __u32 split);

#endif
