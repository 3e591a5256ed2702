// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/pfm_oracle.h"

const char *pfm_oracle__encode(const char *models, const char *event, struct pfm_encoding *out,
			       struct err *err)
{
	static char model[64];
	struct err why = {};
	char full[256], *copy = strdup(models), *tok, *save = NULL;
	const char *used = NULL;
	int e;

	err__clear(err);
	for (tok = strtok_r(copy, ",", &save); tok && !used && !err->msg[0];
	     tok = strtok_r(NULL, ",", &save)) {
		snprintf(full, sizeof(full), "%s::%s", tok, event);
		e = pfm__encode_for(tok, full, out, &why);
		if (e == -ENOENT)
			continue;
		if (e) {
			*err = why;
			break;
		}
		snprintf(model, sizeof(model), "%s", tok);
		used = model;
	}
	free(copy);
	return used;
}
