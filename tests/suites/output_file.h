/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* output_file.h - check_output's cases for --output FILE (tests/suites/output_file.c). */
#ifndef LDLAT_OUTPUT_FILE_H
#define LDLAT_OUTPUT_FILE_H

#include <check.h>

/*
 * Adds the cases to s, in a directory under dir (which the suite removes):
 * what --output does with each kind of file, the modes it gives, and that
 * no signal leaves a temporary file.
 */
void output_file_tcases(Suite *s, const char *dir);

#endif
