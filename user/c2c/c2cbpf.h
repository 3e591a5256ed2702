/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * c2cbpf.h - ldlat-c2c's BPF program (bpf/c2c.bpf.c): loaded with the run's
 * filters, attached to the run's events (c2c_prog, an implementation of
 * user/run/prog.h), and its tables read into a c2c_table: the per-CPU
 * values of each line and entry summed, the CPUs whose values count samples
 * as the line's CPUs, their nodes (sysfs), the threads from the thread
 * table.
 *
 * Shared lines.  The kernel keys every line by process.  When the tables
 * are read, a line whose address lies in a MAP_SHARED mapping of its
 * process ('s' in /proc/PID/maps) is moved to the mapped file's space
 * (device, inode, offset), where the same memory mapped by other processes
 * meets it (c2ctable.h).
 */
#ifndef LDLAT_C2CBPF_H
#define LDLAT_C2CBPF_H

#include <stdbool.h>

#include "bpf/c2c.h"
#include "kernel/abi/evlist.h"
#include "kernel/lib/err.h"
#include "user/c2c/c2ctable.h"
#include "user/run/prog.h"

struct c2c_bpf;

struct c2c_session {
	struct c2c_bpf *skel;
	int ncpus; /* possible CPUs: the width of per-CPU values */
	int *cpu_node;
	const char *proc_root; /* "/proc": where shared mappings are looked up; NULL: none */
};

/*
 * Opens and loads the program with cfg's filters, lines of 1 << line_shift
 * bytes, each table entries keys; addr_only: the program that reads
 * ctx->addr alone (kernels before 6.2); test: also the test entry.  0 or
 * -errno with a sentence in err (a program the kernel refuses: the
 * system's failure, worded as ldlat-hist's).
 */
int c2c_session__open(struct c2c_session *s, const struct ldlat_config *cfg, __u32 line_shift,
		      __u32 entries, bool addr_only, bool test, struct err *err);

/* The tables into t (initialised, empty) and the counters into c. 0 or -errno. */
int c2c_session__read(struct c2c_session *s, struct c2c_table *t, struct ldlat_c2c_counters *c);

/* The test entry's fd. */
int c2c_session__test_fd(const struct c2c_session *s);

void c2c_session__close(struct c2c_session *s);

/*
 * ldlat-c2c's program as a run drives it (prog.h; its ops c2c_prog_ops):
 * opened for the tool's configuration, the address-only program where the
 * read path is not kern-ctx (Linux 6.2), its tables of entries lines;
 * prog__read's model is a struct c2c_read.
 *
 *   struct c2c_prog prog = { .p.ops = &c2c_prog_ops, .entries = 16384 };
 */
struct c2c_prog {
	struct prog p; /* first: the interface */
	struct c2c_session s;
	__u32 entries; /* --entries */
};

extern const struct prog_ops c2c_prog_ops;

/* What a read of the program fills: the tables into t (initialised, empty), the counters. */
struct c2c_read {
	struct c2c_table *t;
	struct ldlat_c2c_counters cnt;
};

#endif
