// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "user/run/countermodel.h"
#include "user/run/toolsconf.h"
#include "kernel/abi/cpu_id.h"

static void facts__identity(struct counter_facts *f, const struct cpu_id *id)
{
	int gp, fixed;

	f->hypervisor = id->hypervisor;
	if (!id->x86)
		return;
	if (!strcmp(id->vendor, "GenuineIntel"))
		f->vendor = CPU_VENDOR_INTEL;
	else if (!strcmp(id->vendor, "AuthenticAMD") || !strcmp(id->vendor, "HygonGenuine"))
		f->vendor = CPU_VENDOR_AMD;
	else
		return;
	f->family = (int)id->family;
	f->model = (int)id->model;
	snprintf(f->ident_src, sizeof(f->ident_src), "%s, %s", id->id,
		 id->overridden ? "LDLAT_CPU" : "CPUID");
	/* a fixture tree stands for another machine than the one CPUID describes */
	if (!secure_getenv("LDLAT_SYSFS") && !cpu_id__perfmon(id, &gp, &fixed)) {
		f->cpuid_gp = gp;
		f->cpuid_fixed = fixed;
	}
}

static int facts__toolsconf(struct counter_facts *f, const struct cpu_id *id, const char *config,
			    struct err *err)
{
	const struct evtable_entry *en;
	struct evtable t;
	int e = toolsconf__load(&t, config, NULL, err);

	if (e == -ENOENT && !config)
		return 0; /* no table anywhere: nothing overrides the model */
	if (e)
		return e;
	en = evtable__lookup(&t, id, id->hybrid ? CORE_TYPE_CORE : CORE_TYPE_ANY);
	if (en) {
		f->gp_override = en->counters;
		f->fixed_override = en->fixed_counters;
		f->offcore_override = en->offcore_registers;
		snprintf(f->override_src, sizeof(f->override_src), "[%s] in %s", en->name, t.path);
	}
	evtable__free(&t);
	return 0;
}

int countermodel__build(struct counter_model *m, const char *config, struct err *err)
{
	struct counter_facts f;
	struct cpu_id id;
	int e;

	counter_facts__init(&f);
	e = cpu_id__read(&id, err);
	if (e)
		return e;
	facts__identity(&f, &id);
	e = facts__toolsconf(&f, &id, config, err);
	cpu_id__free(&id);
	if (e)
		return e;
	counter_facts__probe(&f);
	counter_model__build(m, &f);
	return 0;
}
