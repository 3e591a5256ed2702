/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * pprof.h - the one pprof writer: a profile as profile.proto describes it
 * (Go's pprof, Grafana Pyroscope and Parca read it), built up from
 * mappings, functions, locations and samples, then packed by protobuf-c
 * (from the profile.proto of Debian's golang-github-google-pprof-dev, see
 * the Makefile) and gzipped, as the format wants it on disk.
 *
 * A sample is a call path of locations, leaf first, a value per sample
 * type, and labels (a key with a string, or a number and its unit).  The
 * same mapping, function, location or sample (the same locations and
 * labels) given twice is one: a sample given again adds its values.  Every
 * string is escaped as the text report escapes it (kernel/lib/unctrl.h: a
 * control character or a byte that is not UTF-8 as \n or \xNN), so a name
 * a process chose reaches a terminal or a backend's UTF-8 check harmless.
 *
 * Nothing else in the tree builds a profile.proto message (make
 * check-writers, make check-deps: only pprof.c includes the generated
 * header).
 */
#ifndef LDLAT_PPROF_H
#define LDLAT_PPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

struct pprof;

/* What a value counts, in what unit: {"samples", "count"}, {"latency", "cycles"}. */
struct pprof_value_type {
	const char *type;
	const char *unit;
};

#define PPROF_MAX_VALUES 4

struct pprof_opts {
	struct pprof_value_type sample_type[PPROF_MAX_VALUES];
	size_t nsample_types;
	size_t default_sample_type; /* index into sample_type: what a viewer shows first */
	struct pprof_value_type
		period_type;  /* the events a sample stands for ("mem-loads", "count") */
	__s64 period;	      /* events between two samples (0: not one period) */
	__s64 time_nanos;     /* when the profile began, ns since the epoch (UTC) */
	__s64 duration_nanos; /* how long it covers */
};

/* A sample's label: key and str, or key, num and unit (NULL: none). */
struct pprof_label {
	const char *key;
	const char *str;
	__s64 num;
	const char *unit;
};

/* A new, empty profile, or NULL when out of memory. */
struct pprof *pprof__new(const struct pprof_opts *o);
void pprof__free(struct pprof *p);

/* Sets the span the profile covers (pprof_opts' time_nanos and duration_nanos). */
void pprof__set_span(struct pprof *p, __s64 time_nanos, __s64 duration_nanos);

/* Appends a comment (free text a viewer shows). Returns 0 or -ENOMEM. */
int pprof__comment(struct pprof *p, const char *text);

/*
 * A mapping's id: the image (file, build ID as hex; NULL or "" when
 * unknown) mapped at [start, limit) from file_offset.  has_functions says
 * its locations are named already, so that a backend need not symbolize
 * them.  Returns the id (from 1), or 0 when out of memory.
 */
__u64 pprof__mapping(struct pprof *p, __u64 start, __u64 limit, __u64 file_offset, const char *file,
		     const char *build_id, bool has_functions);

/* A function's id by its name (system_name, file: NULL when unknown); 0 when out of memory. */
__u64 pprof__function(struct pprof *p, const char *name, const char *system_name, const char *file);

/*
 * A location's id: address (0: none, as for a frame that names a loss) in
 * mapping (0: none known), named function.  0 when out of memory.
 */
__u64 pprof__location(struct pprof *p, __u64 mapping, __u64 address, __u64 function);

/*
 * Adds a sample: its path of nlocs locations, the leaf first, a value per
 * sample type, its labels.  Returns 0 or -ENOMEM.
 */
int pprof__sample(struct pprof *p, const __u64 *locs, size_t nlocs, const __s64 *values,
		  const struct pprof_label *labels, size_t nlabels);

/* How many distinct samples it holds. */
size_t pprof__samples(const struct pprof *p);

/*
 * The profile packed and gzipped into *buf (malloc'd, *len bytes).
 * Returns 0, or -ENOMEM.
 */
int pprof__encode(const struct pprof *p, void **buf, size_t *len);

/* The profile packed and gzipped, written to out. Returns 0, -ENOMEM, or -EIO (out's error). */
int pprof__write(const struct pprof *p, FILE *out);

#endif
