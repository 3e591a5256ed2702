/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * session.h - the BPF side of a run: open the skeleton, give it its
 * configuration, load it, attach it to every perf event fd, read its maps,
 * and release all of it.
 */
#ifndef LDLAT_SESSION_H
#define LDLAT_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "bpf/ldlat.h"
#include "kernel/abi/evlist.h"
#include "kernel/lib/err.h"
#include "user/report/snapshot.h"

struct ldlat_bpf;
struct bpf_link;

struct session {
	struct ldlat_bpf *skel;
	int nlinks;
	struct bpf_link **links;
	int ncpus; /* possible CPUs: the width of per-CPU values */
	__u32 nranges;
	bool addr_only;
	bool top; /* ldlat-top's program: the tables of cfg.top */
};

enum {
	SESSION_ADDR_ONLY = 1 << 0,   /* load the address-only program (old kernels) */
	SESSION_TEST_ENTRY = 1 << 1,  /* also load the test_run entry */
	SESSION_PIN = 1 << 2,	      /* also create a pinned set's own maps (ldlat_pin.h) */
	SESSION_BENCH_ENTRY = 1 << 3, /* also load the benchmark entry (test_run with repeat) */
};

/*
 * Whether this kernel runs perf_event programs after the sample is prepared
 * (Linux >= 6.3): latency and data source can be read.  When not, why (for
 * the one-line warning).  LDLAT_FORCE_ADDR_ONLY=1 in the environment answers
 * no, to exercise the fallback; =0 answers yes, for a kernel with an older
 * version number and the 6.3 change backported.  bpf_cast_to_kern_ctx, which the program
 * reads them through, came in 6.2; libbpf resolves it in the kernel's BTF
 * when it loads the program (its one parse of that BTF), and session__open
 * says so if it is missing.
 */
bool session__kernel_has_sample_fields(char *why, size_t len);

/* The same answer for a kernel release string and an override (NULL: none). */
bool session__sample_fields_for(const char *release, const char *force, char *why, size_t len);

/* Opens, configures and loads.  Returns 0 or -errno with a sentence in err. */
int session__open(struct session *s, const struct ldlat_config *cfg, unsigned int flags,
		  struct err *err);

/* Attaches the program to every fd of the evlist (the links then own the fds). */
int session__attach(struct session *s, struct evlist *evlist, struct err *err);

/* Sums every CPU's counters and histograms into snap (initialised for s->nranges). */
int session__read(const struct session *s, struct snapshot *snap);

/* The same, as a printer's read (ctx: the session): "cannot read the maps" and why. */
int session__read_maps(void *ctx, struct snapshot *snap, struct err *err);

/*
 * The same from the maps' fds (a pinned set has no skeleton): counters,
 * hists of nranges * LDLAT_NCLASS cells, and the program (prog_fd < 0: no
 * recursion_misses).  Returns 0 or -errno.
 */
int session__read_fds(int counters_fd, int hists_fd, int prog_fd, int ncpus, __u32 nranges,
		      struct snapshot *snap);

/* fd of the program attached to the events. */
int session__prog_fd(const struct session *s);

/* fd of the test entry (SESSION_TEST_ENTRY), for bpf_prog_test_run_opts. */
int session__test_fd(const struct session *s);

/* Destroys links (closing their perf fds), then the skeleton. Safe to call twice. */
void session__close(struct session *s);

#endif
