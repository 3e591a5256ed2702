/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * pfm_oracle.h - libpfm4's encoding of an event for the first of several
 * models that knows it, the independent oracle check_pfm compares the
 * sysfs-based encodings with (through kernel/abi/pfm.h).
 */
#ifndef LDLAT_PFM_ORACLE_H
#define LDLAT_PFM_ORACLE_H

#include "kernel/abi/pfm.h"

/*
 * Encodes event for the first libpfm4 model in models (comma-separated) that
 * knows it.  Returns the model used (static storage), or NULL when none
 * knows it; err gets libpfm4's message when one knows the event but cannot
 * encode it (then NULL too).
 */
const char *pfm_oracle__encode(const char *models, const char *event, struct pfm_encoding *out,
			       struct err *err);

#endif
