/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * stdfds.h - standard input, output and error open before anything else is.
 *
 * A tool started with one of them closed (ldlat-hist ... >&-) would give
 * that number to the first file it opens: a sysfs file, a perf event, a
 * BPF map, the multiplexing lock, and print the report into it (or fail
 * with that file's error, "Invalid argument").  So the first thing main
 * does is open /dev/null on each one that is closed, in the direction
 * opposite to its use (standard input for writing, standard output and
 * error for reading): what the tool and its command write there fails as
 * on a closed descriptor (EBADF: "cannot write the report to standard
 * output: Bad file descriptor", exit 1), and nothing else gets its number.
 */
#ifndef LDLAT_STDFDS_H
#define LDLAT_STDFDS_H

/* Opens /dev/null on each of fds 0-2 that is closed; exits 1 if it cannot. */
void stdfds__open(const char *tool);

#endif
