// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "user/run/countermodel.h"
#include "user/run/loads.h"
#include "kernel/lib/util.h"

static const char *const retired_loads[] = {
	"MEM_INST_RETIRED:ALL_LOADS",
	"MEM_UOPS_RETIRED:ALL_LOADS",
	"MEM_INST_RETIRED:LOADS",
	"LS_DISPATCH:LD_DISPATCH",
};

int loads__init(struct loads *l, const char *spec, const char *config, struct err *err)
{
	struct counter_model model;
	struct count_spec *specs = NULL;
	struct err e1 = {};
	size_t i;
	int n = 0, e = -EINVAL;

	memset(l, 0, sizeof(*l));
	if (spec) {
		e = count_specs__parse(spec, &specs, &n, &e1);
		if (e)
			err__msg(err, "--loads: %s", e1.msg);
		if (!e && n != 1)
			e = err__set(err, -EINVAL, "--loads=%s: name one event", spec);
	} else {
		for (i = 0; i < ARRAY_SIZE(retired_loads) && e; i++)
			e = count_specs__parse(retired_loads[i], &specs, &n, &e1);
		if (e)
			err__msg(
				err,
				"--loads: libpfm4 knows no retired-loads event for this CPU (tried "
				"MEM_INST_RETIRED:ALL_LOADS, MEM_UOPS_RETIRED:ALL_LOADS, "
				"MEM_INST_RETIRED:LOADS, LS_DISPATCH:LD_DISPATCH). Name one with "
				"--loads=EVENT");
	}
	if (e) {
		free(specs);
		/* no such event for this CPU is the machine's limit, not bad input */
		return e == -ENOMEM ? e : spec ? -EINVAL : -ENOENT;
	}
	e = countermodel__build(&model, config, err);
	if (!e)
		e = counting__init(&l->counting, specs, n, &model);
	free(specs);
	if (!e)
		l->active = true;
	return e;
}

const char *loads__event(const struct loads *l)
{
	return l->counting.nev ? l->counting.ev[0].spec.name : "";
}

int loads__start(struct loads *l, const struct target *target, bool on_exec, struct err *err)
{
	int e = counting__probe(&l->counting, target, err), i;

	if (e)
		return e;
	if (l->counting.ev[0].unsupported)
		return err__set(err, -EOPNOTSUPP, "--loads: %s cannot be counted here: %s",
				loads__event(l), l->counting.ev[0].reason);
	e = counting__plan(&l->counting, err);
	for (i = 0; on_exec && i < l->counting.nev; i++)
		l->counting.ev[i].spec.attr.enable_on_exec = 1;
	if (!e)
		e = counting__open(&l->counting, -1, target, err);
	if (!e && !on_exec)
		e = counting__enable(&l->counting, -1);
	return e;
}

int loads__read(struct loads *l)
{
	int e = counting__read(&l->counting, -1);

	if (!e)
		l->total = l->counting.ev[0].total;
	return e;
}

int loads__stop(struct loads *l)
{
	counting__disable(&l->counting, -1);
	return loads__read(l);
}

void loads__share(const struct loads *l, const struct count *c, const char *what, double above,
		  const char *how, struct loads_share *out)
{
	out->event = loads__event(l);
	out->loads = count__scaled(c);
	/* a span it never ran in has nothing to scale */
	out->running = c->ena ? count__running(c) : 1.0;
	out->what = what;
	out->above = above;
	out->how = how;
}

void loads__free(struct loads *l)
{
	if (l->active)
		counting__free(&l->counting);
	l->active = false;
}
