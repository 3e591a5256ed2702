// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfmon/pfmlib_perf_event.h>

#include "pfm_oracle.h"

const char *pfm_oracle__encode(const char *models, const char *event, struct pfm_encoding *out,
			       char *err, int errlen)
{
	static char model[64];
	char full[256], *copy = strdup(models), *tok, *save = NULL;
	struct perf_event_attr a;
	pfm_perf_encode_arg_t arg;
	const char *used = NULL;
	int e;

	err[0] = '\0';
	for (tok = strtok_r(copy, ",", &save); tok && !used && !err[0];
	     tok = strtok_r(NULL, ",", &save)) {
		/* LIBPFM_FORCE_PMU: encode for that model, whatever this machine is */
		setenv("LIBPFM_FORCE_PMU", tok, 1);
		e = pfm_initialize();
		if (e != PFM_SUCCESS) {
			snprintf(err, errlen, "pfm_initialize: %s", pfm_strerror(e));
			break;
		}
		memset(&a, 0, sizeof(a));
		memset(&arg, 0, sizeof(arg));
		arg.size = sizeof(arg);
		arg.attr = &a;
		snprintf(full, sizeof(full), "%s::%s", tok, event);
		e = pfm_get_os_event_encoding(full, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
		pfm_terminate();
		if (e == PFM_ERR_NOTFOUND)
			continue;
		if (e != PFM_SUCCESS) {
			snprintf(err, errlen, "%s: %s", full, pfm_strerror(e));
			break;
		}
		out->type = a.type;
		out->config = a.config;
		out->config1 = a.config1;
		snprintf(model, sizeof(model), "%s", tok);
		used = model;
	}
	unsetenv("LIBPFM_FORCE_PMU");
	free(copy);
	return used;
}
