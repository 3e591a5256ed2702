// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ldlat-floor - the benchmarks' floor: the very events ldlat-hist opens for
 * the same options (same source, same target, same perf_event_attr), enabled
 * with no BPF program attached and no ring buffer, so that what it costs is
 * the kernel's own sampling.  Prints how many events were counted.
 */
#include <argp.h>
#include <stdio.h>
#include <string.h>

#include "user/run/cli.h"
#include "user/run/tool.h"

static const char doc[] =
	"Opens and enables the perf events ldlat-hist would open for the same options, attaches "
	"no BPF program, and prints how many events they counted: the kernel's own cost of "
	"sampling, the floor the benchmarks compare ldlat-hist with.";

/* the sampling options, in a struct cli */
static const struct opt_group *const floor_opts[] = { &cli_sample_opts, NULL };
static const struct opt_place floor_places[] = { { &cli_home, 0 }, {} };

/*
 * The floor's BPF program: none.  The events are opened, enabled and read
 * as a tool's are; nothing is loaded, and nothing is attached to them.
 */
static int floor_open(struct prog *p, struct tool *t, struct err *err)
{
	(void)p, (void)t, (void)err;
	return 0;
}

static const struct prog_ops floor_ops = { .open = floor_open };

int main(int argc, char **argv)
{
	struct prog none = { .ops = &floor_ops };
	struct cli cli;
	struct tool tool;
	enum run_end end;
	struct err err = {};
	__u64 n;
	int e, status;

	argp_err_exit_status = EXIT_USAGE;
	cli__init(&cli);
	if (argp_parse(opts__argp(floor_opts, floor_places, "[-- COMMAND [ARGS...]]", doc, NULL),
		       argc, argv, ARGP_IN_ORDER, NULL, &cli))
		return EXIT_USAGE;

	e = tool__start(&tool, &cli, "ldlat-floor", &(struct tool_opts){ .prog = &none }, &err);
	if (e) {
		tool__teardown(&tool);
		return err__report(&err, e, "ldlat-floor", stderr);
	}
	fprintf(stderr, "ldlat-floor: sampling %s on %s, no BPF program. Ctrl-C to end.\n",
		tool.evlist.evsel[0].name, tool.run.target_desc);
	end = run__wait(&tool.run, NULL);
	tool__stop_sampling(&tool);
	status = tool__exit_status(&tool, end);
	e = tool__sampled_count(&tool, &n);
	if (e) {
		fprintf(stderr, "ldlat-floor: cannot read the event counts: %s\n", strerror(-e));
		status = EXIT_FAIL;
	} else {
		printf("%llu events\n", (unsigned long long)n);
	}
	tool__teardown(&tool);
	return status;
}
