// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * LD_PRELOAD'ed by check_run: the tool's first argp_parse() raises the
 * signal LDLAT_EARLY_SIGNAL names (a number) before parsing, i.e. a signal
 * that arrives while the tool parses its arguments, milliseconds after it
 * started, every time rather than by chance.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>

error_t argp_parse(const struct argp *argp, int argc, char **argv, unsigned int flags,
		   int *arg_index, void *input)
{
	error_t (*real)(const struct argp *, int, char **, unsigned int, int *, void *) =
		(error_t(*)(const struct argp *, int, char **, unsigned int, int *, void *))dlsym(
			RTLD_NEXT, "argp_parse");
	const char *sig = getenv("LDLAT_EARLY_SIGNAL");

	if (sig && *sig) {
		int n = atoi(sig);

		unsetenv("LDLAT_EARLY_SIGNAL"); /* once, and not in the command */
		raise(n);
	}
	return real ? real(argp, argc, argv, flags, arg_index, input) : EINVAL;
}
