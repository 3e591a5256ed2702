// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <ctype.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define HAVE_CPUID 1
#endif

#include "kernel/abi/cpu_id.h"
#include "kernel/abi/sysfs.h"

const char *core_type__name(enum core_type type)
{
	switch (type) {
	case CORE_TYPE_CORE:
		return "core";
	case CORE_TYPE_ATOM:
		return "atom";
	case CORE_TYPE_LOWPOWER:
		return "lowpower";
	default:
		return "any";
	}
}

int core_type__parse(const char *name, enum core_type *type)
{
	if (!strcmp(name, "core"))
		*type = CORE_TYPE_CORE;
	else if (!strcmp(name, "atom"))
		*type = CORE_TYPE_ATOM;
	else if (!strcmp(name, "lowpower"))
		*type = CORE_TYPE_LOWPOWER;
	else
		return -EINVAL;
	return 0;
}

static bool vendor_is_x86(const char *vendor)
{
	return !strcmp(vendor, "GenuineIntel") || !strcmp(vendor, "AuthenticAMD") ||
	       !strcmp(vendor, "HygonGenuine");
}

static void cpu_id__format(struct cpu_id *id)
{
	if (id->stepping >= 0)
		snprintf(id->id, sizeof(id->id), "%s-%u-%X-%X", id->vendor, id->family, id->model,
			 (unsigned int)id->stepping);
	else
		snprintf(id->id, sizeof(id->id), "%s-%u-%X", id->vendor, id->family, id->model);
}

static bool parse_uint(const char *s, size_t len, int base, unsigned int *v)
{
	char buf[16], *end;
	unsigned long x;

	if (!len || len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (!isxdigit((unsigned char)buf[0]))
		return false;
	errno = 0;
	x = strtoul(buf, &end, base);
	if (errno || *end || x > 0xffff)
		return false;
	*v = (unsigned int)x;
	return true;
}

int cpu_id__parse(struct cpu_id *id, const char *text, struct err *err)
{
	const char *p = text, *dash, *comma;
	unsigned int step;
	size_t len;

	memset(id, 0, sizeof(*id));
	id->stepping = -1;
	comma = strchr(text, ',');
	len = comma ? (size_t)(comma - text) : strlen(text);
	if (comma && strcmp(comma, ",hypervisor"))
		goto bad;
	id->hypervisor = comma != NULL;
	/* arm64: the MIDR, as perf's mapfile writes it */
	if (len == 18 && !strncmp(text, "0x", 2)) {
		for (p = text + 2; p < text + len; p++)
			if (!isxdigit((unsigned char)*p))
				goto bad;
		snprintf(id->id, sizeof(id->id), "%.*s", (int)len, text);
		return 0;
	}
	dash = memchr(text, '-', len);
	if (!dash || dash == text || (size_t)(dash - text) >= sizeof(id->vendor))
		goto bad;
	snprintf(id->vendor, sizeof(id->vendor), "%.*s", (int)(dash - text), text);
	p = dash + 1;
	dash = memchr(p, '-', text + len - p);
	if (!dash || !parse_uint(p, dash - p, 10, &id->family))
		goto bad;
	p = dash + 1;
	dash = memchr(p, '-', text + len - p);
	if (!parse_uint(p, (dash ? dash : text + len) - p, 16, &id->model))
		goto bad;
	if (dash) {
		p = dash + 1;
		if (!parse_uint(p, text + len - p, 16, &step))
			goto bad;
		id->stepping = (int)step;
	}
	id->x86 = vendor_is_x86(id->vendor);
	cpu_id__format(id);
	return 0;
bad:
	err__msg(err,
		 "CPU identity '%s' is not VENDOR-FAMILY-MODEL[-STEPPING][,hypervisor] with the "
		 "family in decimal and the model in hex (e.g. GenuineIntel-6-8F, "
		 "AuthenticAMD-26-11), nor an arm64 MIDR (0x00000000410fd0c0)",
		 text);
	return -EINVAL;
}

#ifdef HAVE_CPUID
static void cpu_id__from_cpuid(struct cpu_id *id)
{
	unsigned int eax, ebx, ecx, edx, base_family;

	memset(id, 0, sizeof(*id));
	__cpuid(0, eax, ebx, ecx, edx);
	memcpy(id->vendor, &ebx, 4);
	memcpy(id->vendor + 4, &edx, 4);
	memcpy(id->vendor + 8, &ecx, 4);
	id->vendor[12] = '\0';
	if (eax >= 7) {
		unsigned int a, b, c, d;

		__cpuid_count(7, 0, a, b, c, d);
		id->hybrid = d & (1u << 15);
	}
	__cpuid(1, eax, ebx, ecx, edx);
	base_family = (eax >> 8) & 0xf;
	id->family = base_family;
	if (base_family == 0xf)
		id->family += (eax >> 20) & 0xff;
	id->model = (eax >> 4) & 0xf;
	if (base_family == 0x6 || base_family == 0xf)
		id->model |= ((eax >> 16) & 0xf) << 4;
	id->stepping = (int)(eax & 0xf);
	id->hypervisor = ecx & (1u << 31);
	id->x86 = true;
	cpu_id__format(id);
}

int cpu_id__core_types_by_cpuid(const struct cpumap *cpus, struct cpumap *core, struct cpumap *atom)
{
	cpu_set_t saved, one;
	unsigned int eax, ebx, ecx, edx;
	int i, e = 0;

	core->nr = atom->nr = 0;
	core->cpu = calloc(cpus->nr ? cpus->nr : 1, sizeof(int));
	atom->cpu = calloc(cpus->nr ? cpus->nr : 1, sizeof(int));
	if (!core->cpu || !atom->cpu) {
		e = -ENOMEM;
		goto out;
	}
	if (sched_getaffinity(0, sizeof(saved), &saved)) {
		e = -errno;
		goto out;
	}
	for (i = 0; i < cpus->nr && !e; i++) {
		if (cpus->cpu[i] >= CPU_SETSIZE) {
			e = -E2BIG;
			break;
		}
		CPU_ZERO(&one);
		CPU_SET(cpus->cpu[i], &one);
		if (sched_setaffinity(0, sizeof(one), &one)) {
			e = -errno;
			break;
		}
		__cpuid_count(0x1a, 0, eax, ebx, ecx, edx);
		if ((eax >> 24) == CORE_TYPE_CORE)
			core->cpu[core->nr++] = cpus->cpu[i];
		else if ((eax >> 24) == CORE_TYPE_ATOM)
			atom->cpu[atom->nr++] = cpus->cpu[i];
	}
	if (sched_setaffinity(0, sizeof(saved), &saved) && !e)
		e = -errno;
out:
	if (e) {
		cpumap__free(core);
		cpumap__free(atom);
	}
	return e;
}

int cpu_id__perfmon(const struct cpu_id *id, int *gp, int *fixed)
{
	unsigned int eax, ebx, ecx, edx;

	if (id->overridden || strcmp(id->vendor, "GenuineIntel") || __get_cpuid_max(0, NULL) < 0xa)
		return -EOPNOTSUPP;
	__cpuid(0xa, eax, ebx, ecx, edx);
	if (!(eax & 0xff) || !((eax >> 8) & 0xff))
		return -EOPNOTSUPP;
	*gp = (int)((eax >> 8) & 0xff);
	/* fixed counters are reported from version 2 on */
	*fixed = (eax & 0xff) >= 2 ? (int)(edx & 0x1f) : 0;
	return 0;
}
#else
static void cpu_id__from_cpuid(struct cpu_id *id)
{
	char buf[64];

	memset(id, 0, sizeof(*id));
	id->stepping = -1;
	if (sysfs__read("devices/system/cpu/cpu0/regs/identification/midr_el1", buf, sizeof(buf)) >
	    0)
		snprintf(id->id, sizeof(id->id), "%s", buf);
	else
		snprintf(id->id, sizeof(id->id), "unknown");
}

int cpu_id__core_types_by_cpuid(const struct cpumap *cpus, struct cpumap *core, struct cpumap *atom)
{
	(void)cpus;
	core->nr = atom->nr = 0;
	return -EOPNOTSUPP;
}

int cpu_id__perfmon(const struct cpu_id *id, int *gp, int *fixed)
{
	(void)id;
	(void)gp;
	(void)fixed;
	return -EOPNOTSUPP;
}
#endif

/* The CPUs the kernel's cpu_core and cpu_atom PMUs cover. */
static int cpu_id__core_types_by_sysfs(struct cpu_id *id)
{
	struct err err = {};
	char buf[4096];
	int e;

	if (sysfs__read("bus/event_source/devices/cpu_core/cpus", buf, sizeof(buf)) <= 0)
		return -ENOENT;
	e = cpumap__parse(&id->core, buf, &err);
	if (e)
		return e;
	if (sysfs__read("bus/event_source/devices/cpu_atom/cpus", buf, sizeof(buf)) <= 0 ||
	    cpumap__parse(&id->atom, buf, &err)) {
		cpumap__free(&id->core);
		return -ENOENT;
	}
	snprintf(id->types_from, sizeof(id->types_from), "the cpu_core and cpu_atom PMUs' cpus");
	return 0;
}

int cpu_id__read(struct cpu_id *id, struct err *err)
{
	const char *env = secure_getenv("LDLAT_CPU");
	struct err online_err = {};
	struct cpumap online;
	int e;

	if (env && *env) {
		e = cpu_id__parse(id, env, err);
		if (e) {
			/* name the variable, not only its value */
			err__msg(err, "LDLAT_CPU: %s", err->msg);
			return e;
		}
		id->overridden = true;
		id->hybrid = !cpu_id__core_types_by_sysfs(id);
		return 0;
	}
	cpu_id__from_cpuid(id);
	if (!id->hybrid)
		return 0;
	e = cpumap__online(&online, &online_err);
	if (!e) {
		e = cpu_id__core_types_by_cpuid(&online, &id->core, &id->atom);
		cpumap__free(&online);
	}
	if (!e)
		snprintf(id->types_from, sizeof(id->types_from), "CPUID leaf 0x1A on each CPU");
	else if (cpu_id__core_types_by_sysfs(id))
		id->hybrid = false; /* types unknown: every PMU opens on its own CPUs */
	return 0;
}

void cpu_id__free(struct cpu_id *id)
{
	cpumap__free(&id->core);
	cpumap__free(&id->atom);
}

const struct cpumap *cpu_id__cpus(const struct cpu_id *id, enum core_type type)
{
	if (!id->hybrid)
		return NULL;
	if (type == CORE_TYPE_CORE)
		return &id->core;
	/* lowpower: CPUID calls them atoms; the cpu_lowpower PMU's cpus say which */
	if (type == CORE_TYPE_ATOM)
		return &id->atom;
	return NULL;
}
