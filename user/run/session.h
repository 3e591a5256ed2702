/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * session.h - the ldlat program (bpf/ldlat.bpf.c): open the skeleton, give
 * it its configuration, load it, read its maps, and release all of it.
 * ldlat-hist's program (user/hist/histprog.h) and ldlat-top's
 * (user/top/topprog.h, with its tables) are sessions (session_prog); so is
 * a pinned set's.
 */
#ifndef LDLAT_SESSION_H
#define LDLAT_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "bpf/ldlat.h"
#include "kernel/abi/evlist.h"
#include "kernel/lib/err.h"
#include "user/report/snapshot.h"
#include "user/run/prog.h"

struct ldlat_bpf;
struct bpf_program;

/*
 * How the program reads a sample, the best this kernel allows (session__read_path):
 * latency and data source through the kernel's perf_sample_data, or the address alone.
 */
enum session_path {
	SESSION_PATH_KERN_CTX,	 /* bpf_cast_to_kern_ctx (Linux 6.2): direct loads */
	SESSION_PATH_PROBE_READ, /* bpf_probe_read_kernel of the kernel's ctx, CO-RE reads */
	SESSION_PATH_ADDR_ONLY,	 /* ctx->addr alone */
};

struct session {
	struct ldlat_bpf *skel;
	int ncpus;	     /* possible CPUs: the width of per-CPU values */
	size_t top_val_size; /* ldlat-top: bytes of a table value a CPU (top_session__open) */
	__u32 nranges;
	bool addr_only;
	enum session_path path;	  /* how the program attached to the events reads a sample */
	struct bpf_program *prog; /* that program (session__use) */
	__u32 by;		  /* enum ldlat_by */
	__u32 nrows;		  /* --by's rows and the others; 1 without a split */
	/* copies of 'hists': 1; ldlat-top's program keeps 2, one per generation parity */
	__u32 gens;
	bool counts; /* a pinned set's program keeps each event's count (event_counts) */
};

enum {
	SESSION_ADDR_ONLY = 1 << 0,    /* load the address-only program */
	SESSION_TEST_ENTRY = 1 << 1,   /* also load the test_run entry */
	SESSION_PIN = 1 << 2,	       /* also create a pinned set's own maps (ldlat_pin.h) */
	SESSION_BENCH_ENTRY = 1 << 3,  /* also load the benchmark entry (test_run with repeat) */
	SESSION_PROBE_READ = 1 << 4,   /* load the program that copies the kernel's ctx */
	SESSION_KERN_CTX = 1 << 5,     /* load the program that casts it (bpf_cast_to_kern_ctx) */
	SESSION_TOP_NO_FRONT = 1 << 6, /* ldlat-top's tables without their fronts (top_front) */
	/* none of the three: the path session__read_path() picks for this kernel */
};

/* What the read path depends on, as this kernel answers (session__probe). */
struct session_facts {
	bool btf;	      /* /sys/kernel/btf/vmlinux parses */
	bool cast_kfunc;      /* bpf_cast_to_kern_ctx is a function in it (Linux 6.2) */
	bool kern_ctx;	      /* struct bpf_perf_event_data_kern is in it */
	bool probe_read;      /* enum bpf_func_id has BPF_FUNC_probe_read_kernel (Linux 5.5) */
	bool sample_flags;    /* struct perf_sample_data has sample_flags (Linux 6.1) */
	bool confidentiality; /* /sys/kernel/security/lockdown reads [confidentiality] */
	bool weight_union;    /* perf_sample_data's weight is union perf_sample_weight (5.12) */
	bool attach_cookie;   /* enum bpf_func_id has BPF_FUNC_get_attach_cookie (Linux 5.15) */
};

/* Reads the facts from the kernel's BTF and securityfs. */
void session__probe(struct session_facts *f);

/*
 * The path for those facts and an override (NULL: none), and why, for
 * --list-events -v and the one-line warning.  LDLAT_FORCE_ADDR_ONLY=1 in the
 * environment answers address-only, to exercise it; =0 never answers it, for
 * a vendor kernel whose facts mislead (a lockdown policy that lets
 * bpf_probe_read_kernel through).
 */
enum session_path session__path_for(const struct session_facts *f, const char *force, char *why,
				    size_t len);

/* The same for this kernel and LDLAT_FORCE_ADDR_ONLY. */
enum session_path session__read_path(char *why, size_t len);

/* "kern-ctx", "probe-read", "address-only" */
const char *session__path_name(enum session_path p);

/* The SESSION_* flag that loads path p. */
unsigned int session__path_flag(enum session_path p);

/* Opens, configures and loads.  Returns 0 or -errno with a sentence in err. */
int session__open(struct session *s, const struct ldlat_config *cfg, unsigned int flags,
		  struct err *err);

/*
 * The same for a pinned set (SESSION_PIN) whose program keeps each event's
 * count (bpf/ldlat_pin.h's event_counts, at each link's cookie): nevents,
 * the most perf events it will be attached to.  s->counts tells whether it
 * does: not with nevents 0, nor on a kernel without bpf_get_attach_cookie
 * (Linux 5.15).
 */
int session__open_counted(struct session *s, const struct ldlat_config *cfg, unsigned int flags,
			  __u32 nevents, struct err *err);

/*
 * session__open in two steps, for a program with tables of its own
 * (ldlat-top's): session__prepare opens the skeleton and configures it for
 * cfg and flags, with ldlat-hist's program on the read path, not loaded;
 * the caller may size its own maps, set s->gens and choose its program
 * (session__use) before session__load loads it and labels the histograms.
 * Each returns 0 or -errno with a sentence in err; session__load closes the
 * session on failure.
 */
int session__prepare(struct session *s, const struct ldlat_config *cfg, unsigned int flags,
		     __u32 nevents, struct err *err);
int session__load(struct session *s, struct err *err);

/*
 * The program to load and attach: of the three given, the one for the
 * session's read path (bpf_cast_to_kern_ctx, bpf_probe_read_kernel, the
 * address alone); the one chosen before is left unloaded.
 */
void session__use(struct session *s, struct bpf_program *kern_ctx, struct bpf_program *probe_read,
		  struct bpf_program *addr_only);

/*
 * One sentence for a program on read path p that the kernel refused to load
 * with e: the cause, and what to do.  Returns e, marked as the system's
 * failure (the verifier's EINVAL or EPERM is no fault of the user's input).
 */
int session__refused(enum session_path p, int e, struct err *err);

/*
 * The program to attach to the events (the read path's), and the cookie of
 * event fd i's link: with s->counts i, its event's period written at
 * event_counts[i] first; else 0.  0 or -errno with a sentence in err.
 */
struct bpf_program *session__program(const struct session *s);
int session__cookie(struct session *s, const struct evlist *evlist, int i, __u64 *cookie,
		    struct err *err);

/*
 * Empties cell idx of 'hists' on every CPU, its (range, class) label kept
 * (each copy of the histograms is labelled alike), with vals, room for
 * s->ncpus values.  Returns 0 or -errno.
 */
int session__clear_cell(const struct session *s, __u32 idx, struct ldlat_hist *vals);

/* Sums every CPU's counters and histograms into snap (initialised for s->nranges). */
int session__read(const struct session *s, struct snapshot *snap);

/* The same, as a printer's read (ctx: the session): "cannot read the maps" and why. */
int session__read_maps(void *ctx, struct snapshot *snap, struct err *err);

/*
 * The same from the maps' fds (a pinned set has no skeleton): counters and
 * hists of nranges * LDLAT_NCLASS cells.  fixed_period: the configuration's
 * (the program summed no period; seen_period and each cell's period are
 * computed here as count x fixed_period), 0: the program's sums.
 * snap->unseen is left as it is.  Returns 0 or -errno.
 */
int session__read_fds(int counters_fd, int hists_fd, int ncpus, __u32 nranges, __u64 fixed_period,
		      struct snapshot *snap);

/* --by pid, tid, cgroup: rows are handed out to keys by the program ('by_rows'). */
bool session__by_keyed(__u32 by);

/*
 * The key of each row of snap (snapshot__init_by) from the 'by_rows' map
 * (by_rows_fd; a CPU or node is its row's number).  Returns 0 or -errno.
 */
int session__read_rows(int by_rows_fd, __u32 by, struct snapshot *snap);

/* fd of the program attached to the events. */
int session__prog_fd(const struct session *s);

/* fd of the test entry (SESSION_TEST_ENTRY), for bpf_prog_test_run_opts. */
int session__test_fd(const struct session *s);

/* Destroys the skeleton. Safe to call twice. */
void session__close(struct session *s);

/*
 * A tool's program that is a session (prog.h): ldlat-hist's, ldlat-top's.
 * Their implementations share the members below.
 */
struct session_prog {
	struct prog p; /* first: the interface */
	struct session s;
	unsigned int flags; /* SESSION_* the tool asks for besides its read path */
};

/* prog_ops.cookie: session__cookie. */
int session_prog__cookie(struct prog *p, const struct evlist *evlist, int i, __u64 *cookie,
			 struct err *err);

/* prog_ops.read into a struct snapshot: session__read_maps. */
int session_prog__read(struct prog *p, void *snap, bool last, struct err *err);

/* prog_ops.close: session__close. */
void session_prog__close(struct prog *p);

#endif
