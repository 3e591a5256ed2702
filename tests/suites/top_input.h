/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* top_input.h - check_top's cases for ldlat-top --input (tests/suites/top_input.c). */
#ifndef LDLAT_TOP_INPUT_H
#define LDLAT_TOP_INPUT_H

#include <check.h>
#include <stdbool.h>

/*
 * Adds the cases to s: written files and bad input always, files Debian's
 * perf records here when root.  Makes the suite's directory (suite_dir_make),
 * which suite_dir_remove removes after the run.
 */
void top_input_tcases(Suite *s, bool root);

#endif
