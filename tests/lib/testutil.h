/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* testutil.h - running the tools from tests: spawn, feed, wait, capture. */
#ifndef LDLAT_TESTUTIL_H
#define LDLAT_TESTUTIL_H

#include <check.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct child {
	pid_t pid;
	int in;	 /* write end of its stdin, -1 once closed */
	int out; /* read ends of its stdout and stderr */
	int err;
	char *outbuf, *errbuf; /* what was read so far, NUL-terminated */
	size_t outlen, errlen;
	int status; /* wait status, once reaped */
	bool reaped;
};

/* Starts argv (argv[0] looked up in PATH) with pipes on 0, 1 and 2. */
void child_spawn(struct child *c, char *const argv[]);

/*
 * true (the default): child_spawn makes this process the subreaper of what
 * its children leave running (see assert_nothing_left). A test that needs a
 * process outside its own tree (setsid -f reparented to init) sets it false.
 */
extern bool child_adopt;

/* Reads what is available on stdout and stderr for up to 'seconds'. */
void child_pump(struct child *c, double seconds);

/* Reads stderr until it contains needle; false on timeout or exit. */
bool child_wait_stderr(struct child *c, const char *needle, double seconds);

/* Reads stdout until it contains needle n times; false on timeout or exit. */
bool child_wait_stdout(struct child *c, const char *needle, int n, double seconds);

/* Closes stdin, reads everything, waits (SIGKILL after 'seconds'). Returns the exit code, or 128+sig. */
int child_finish(struct child *c, double seconds);

void child_free(struct child *c);

/* Runs argv to the end; out/err are malloc'd (free them). Returns the exit code. */
int run(char *const argv[], double seconds, char **out, char **err);

/* run() for up to 60 s, asserting (Check) that it exits with want_rc. */
void run_expect(char *const argv[], int want_rc, char **out, char **err);

/* Spawns a tool and waits until it says it has started ("Ctrl-C to end"). */
bool child_spawn_started(struct child *c, char *const argv[], double seconds);

/* Writes one byte to its stdin: a workload started with --wait goes. */
bool child_go(struct child *c);

/*
 * Waits until a child started with --wait blocks in read() of its stdin:
 * exec'd, and done with what it does before the wait (a test program maps
 * memory there).  False after seconds.
 */
bool child_wait_reading(struct child *c, double seconds);

/* tests/fixtures/ path of a fixture, from LDLAT_FIXTURES or ./tests/fixtures. */
const char *fixture_path(const char *rel);

/* build/ path of a tool, from LDLAT_BUILD or ./build. */
const char *build_path(const char *name);

/* The tools and the workload of the build under test (build_path). */
const char *hist(void);
const char *top(void);
const char *workload(void);

/* The source tree: the folder above build/ (whatever its path: any clone). */
const char *srcdir(void);

/* The checker of the documented JSON schema, tests/lib/json_schema.py (beside the fixtures). */
const char *json_schema(void);

/*
 * The suite's folder for the files its tests write: /tmp/ldlat-TAG-PID-XXXXXX,
 * mode 0755 (a test may run a tool as nobody on them), made once in main()
 * before the tests fork.  Exits the suite when it cannot be made.
 */
void suite_dir_make(const char *tag);

/* The suite's folder (empty before suite_dir_make). */
const char *suite_dir(void);

/* suite_dir()/name (eight at a time). */
const char *tmp(const char *name);

/* Removes the suite's folder and what it holds, at the end of main (LDLAT_KEEP_TMP keeps it). */
void suite_dir_remove(void);

/*
 * A sysfs tree for LDLAT_SYSFS with one PMU whose multiplexing interval
 * (perf_event_mux_interval_ms) is 4 ms: /tmp/ldlat-TAG-PID/bus/event_source/
 * devices/PMU, with a type file when type is not NULL.
 */
struct mux_sysfs {
	char root[256];
	char file[512]; /* the PMU's perf_event_mux_interval_ms */
};

void mux_sysfs_make(struct mux_sysfs *m, const char *tag, const char *pmu, const char *type);

/* Removes it, what the test added too (Check assertion). */
void mux_sysfs_remove(const struct mux_sysfs *m);

/*
 * What failed test cases left behind, for a fixture's teardown: each pinned
 * set the shell pattern(s) pins match is unpinned (ldlat-hist unpin), with
 * the sets and links in it, and its directory removed; each cgroup the
 * pattern(s) cgroups match is removed with the cgroups below it.  Either
 * may be NULL.
 */
void leftovers_remove(const char *pins, const char *cgroups);

/* A prefix that runs a command as nobody with no capability, none to gain either (setpriv). */
#define AS_NOBODY_NO_CAPS                                                                          \
	"setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all"

/*
 * For a test that runs something as another user (setpriv --reuid=65534): a
 * copy of the file at path that every user can read and run, in a folder of
 * this process under /tmp, and LDLAT_CONFIG pointed at a copy of its file.
 * Such a test runs the copy, never the build tree, which may sit where that
 * user cannot go (a clone under /root, a mktemp -d folder).  The folder goes
 * when the process exits.
 */
const char *reachable_copy(const char *path);

/* The count printed at the start of the line that names label, or -1. */
long count_for(const char *out, const char *label);

/*
 * Nothing the tools started outlives them: child_spawn makes this process a
 * subreaper, so a command a tool left running (or exited without reaping)
 * is adopted here; any child this process did not spawn fails the test
 * (and is killed).  Call once the tools of the test have been reaped.
 * (What a tool holds in the kernel, its fds, links and programs, goes with
 * its exit; check_run counts the fds of tool__start and tool__teardown in
 * process.)
 */
void assert_nothing_left(void);

/* Nothing is pinned in dir: it is empty or gone. Check assertion. */
void assert_no_pins(const char *dir);

/*
 * A cgroup v2 directory of this test process, under the cgroup v2 mount:
 * ldlat-TAG-PID.  Returns 0 or -errno (path is filled either way).
 */
int cgroup_make(char *path, size_t len, const char *tag);

/* Moves pid into the cgroup. Returns 0 or -errno. */
int cgroup_enter(const char *path, pid_t pid);

/* Removes it, waiting for its last member to leave. Returns 0 or -errno. */
int cgroup_remove(const char *path);

/* Up to max CPUs this process may run on (online ones), lowest first; how many. */
int cpus_allowed(int *cpu, int max);

/* Whether jq -e finds expr true in the JSON document(s) of doc (jq's error on stderr if not). */
bool jq_true(const char *doc, const char *expr);

/* Root, or fails the test loudly when CI=true; otherwise prints why it skips. */
bool need_root(const char *what);

/*
 * Runs a shell command line (printf-style) for up to 60 s; its stdout and
 * stderr in *out and *err when not NULL (free them).  Without err, a failure
 * is printed with both.  Returns the exit status.
 */
int sh(char **out, char **err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Runs every test of the suite (forked) and frees it; main's exit status. */
int run_suite(Suite *s);

/*
 * Whether a perf_event program sees the fields an event asked for and its
 * driver did not fill as zero (weight 0, data source N/A) rather than
 * absent: since 6.3 perf_prepare_sample() runs first and zero-fills them;
 * 6.1 and 6.2 run the program first and sample_flags lacks them; before
 * 6.1 perf_sample_data_init() set them to those values (kernel sources:
 * kernel/events/core.c:bpf_overflow_handler, include/linux/perf_event.h).
 */
bool kernel_zero_fills_fields(void);

/*
 * perf record with a control FIFO pair (--control fifo:CTL,ACK), started
 * disabled (-D -1) and enabled once the test is ready, so that it samples
 * from a known point.
 */
struct perf_recorder {
	struct child c;
	int ctl, ack;
	char ctl_path[512], ack_path[512];
	char ctlarg[1100]; /* the argument of perf record --control */
};

/* Makes ctl.fifo and ack.fifo in dir and fills r->ctlarg. */
void perf_record_fifos(struct perf_recorder *r, const char *dir);

/* Starts perf record argv (which holds -D -1 --control r->ctlarg) and enables it. */
void perf_record_start(struct perf_recorder *r, char *const argv[]);

/* Ends it (the FIFOs closed), asserting it exits 0, and removes the FIFOs. */
void perf_record_stop(struct perf_recorder *r);

/*
 * What a live run measures and a file cannot (the events' counts against
 * what the program saw) taken out of a report, in place: the text line, the
 * JSON object (null, as a file's), the OpenMetrics family.
 */
void drop_unseen(char *s);

#endif
