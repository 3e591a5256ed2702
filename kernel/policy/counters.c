// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/policy/counters.h"
#include "kernel/abi/evnames.h"
#include "kernel/abi/pmu.h"
#include "kernel/abi/sysfs.h"
#include "kernel/lib/util.h"

/*
 * Intel core PMUs by the name the kernel gives them (caps/pmu_name, from
 * arch/x86/events/intel/core.c).  Counts per hardware thread, from the SDM's
 * "Architectural Performance Monitoring" chapters: Sandy Bridge to Skylake
 * (and Cascade Lake, which the kernel also calls skylake) partition 8
 * counters between the two threads of a core, so each has 4 while SMT is on
 * in the firmware; Ice Lake and later give every thread 8.  Offcore-response
 * events: OFFCORE_RESPONSE_0/1 (0xb7, 0xbb) up to Ice Lake, OCR (0x2a, 0x2b)
 * from Sapphire Rapids and Alder Lake on.
 */
struct intel_family {
	const char *pmu_name; /* matched as a prefix */
	const char *label;
	int gp_smt, gp_nosmt, fixed, offcore;
	__u8 codes[2];
};

static const struct intel_family intel_families[] = {
	{ "nehalem", "Nehalem", 4, 4, 3, 1, { 0xb7, 0 } },
	{ "westmere", "Westmere", 4, 4, 3, 2, { 0xb7, 0xbb } },
	{ "sandybridge", "Sandy Bridge", 4, 8, 3, 2, { 0xb7, 0xbb } },
	{ "ivybridge", "Ivy Bridge", 4, 8, 3, 2, { 0xb7, 0xbb } },
	{ "haswell", "Haswell", 4, 8, 3, 2, { 0xb7, 0xbb } },
	{ "broadwell", "Broadwell", 4, 8, 3, 2, { 0xb7, 0xbb } },
	{ "skylake", "Skylake", 4, 8, 3, 2, { 0xb7, 0xbb } },
	{ "icelake", "Ice Lake", 8, 8, 4, 2, { 0xb7, 0xbb } },
	{ "sapphire_rapids", "Sapphire Rapids", 8, 8, 4, 2, { 0x2a, 0x2b } },
	{ "granite_rapids", "Granite Rapids", 8, 8, 4, 2, { 0x2a, 0x2b } },
	{ "alderlake_hybrid", "Alder Lake", 8, 8, 4, 2, { 0x2a, 0x2b } },
	{ "meteorlake_hybrid", "Meteor Lake", 8, 8, 4, 2, { 0x2a, 0x2b } },
	{ "silvermont", "Silvermont", 2, 2, 3, 2, { 0xb7, 0xbb } },
	{ "goldmont", "Goldmont", 4, 4, 3, 2, { 0xb7, 0xbb } },
	{ "tremont", "Tremont", 4, 4, 3, 2, { 0xb7, 0xbb } },
};

/* Intel without a table entry: what every core since Sandy Bridge has at least. */
static const struct intel_family intel_unknown = {
	NULL, "Intel core (model not in ldlat's table)", 4, 4, 3, 2, { 0xb7, 0xbb }
};

void counter_facts__init(struct counter_facts *f)
{
	memset(f, 0, sizeof(*f));
	f->family = f->model = -1;
	f->cpuid_gp = f->cpuid_fixed = -1;
	f->smt = f->watchdog = -1;
	f->gp_override = f->fixed_override = f->offcore_override = -1;
}

static int read_int(int (*reader)(const char *, char *, size_t), const char *rel)
{
	char buf[64];

	if (reader(rel, buf, sizeof(buf)) <= 0)
		return -1;
	return atoi(buf);
}

/* The core PMU: "cpu" on most x86 machines, "cpu_core" on hybrid Intel parts. */
static void probe_core_pmu(struct counter_facts *f)
{
	static const char *const names[] = { "cpu", "cpu_core" };
	enum cpu_vendor pmu_vendor = CPU_VENDOR_UNKNOWN;
	const struct pmu_format *ev;
	struct pmu pmu, ibs;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (pmu__load(&pmu, names[i]))
			continue;
		snprintf(f->core_pmu, sizeof(f->core_pmu), "%s", pmu.name);
		f->core_type = pmu.type;
		snprintf(f->pmu_name, sizeof(f->pmu_name), "%s", pmu.cap_name);
		ev = pmu__format(&pmu, "event");
		/* AMD's event select is 12 bits, 4 of them at 32-35 */
		f->amd_event_format = ev && (ev->mask >> 32) == 0xf;
		pmu__free(&pmu);
		break;
	}
	if (!pmu__load(&ibs, "ibs_op")) {
		char buf[16];

		f->zen4_ibs =
			sysfs__read("bus/event_source/devices/ibs_op/caps/zen4_ibs_extensions", buf,
				    sizeof(buf)) >= 0;
		pmu__free(&ibs);
	}
	/*
	 * The kernel's PMU says what counters there are: where it names its
	 * vendor, a CPU identity that disagrees (another machine's, through
	 * LDLAT_CPU, beside a fixture tree) is left out.
	 */
	if (f->pmu_name[0])
		pmu_vendor = CPU_VENDOR_INTEL;
	else if (f->amd_event_format)
		pmu_vendor = CPU_VENDOR_AMD;
	if (pmu_vendor == CPU_VENDOR_UNKNOWN || pmu_vendor == f->vendor)
		return;
	if (f->vendor != CPU_VENDOR_UNKNOWN) {
		char was[64];

		snprintf(was, sizeof(was), "%s", f->ident_src);
		snprintf(f->ident_src, sizeof(f->ident_src),
			 "the PMU's, not the CPU identity %s: they disagree", was);
	} else if (pmu_vendor == CPU_VENDOR_INTEL)
		snprintf(f->ident_src, sizeof(f->ident_src), "%s/caps/pmu_name", f->core_pmu);
	else
		snprintf(f->ident_src, sizeof(f->ident_src),
			 "%s/format/event: AMD's 12-bit event select", f->core_pmu);
	f->vendor = pmu_vendor;
	f->family = f->model = -1;
	f->cpuid_gp = f->cpuid_fixed = -1;
}

void counter_facts__probe(struct counter_facts *f)
{
	probe_core_pmu(f);
	f->smt = read_int(sysfs__read, "devices/system/cpu/smt/active");
	if (sysfs__read("devices/system/cpu/smt/control", f->smt_control, sizeof(f->smt_control)) <
	    0)
		f->smt_control[0] = '\0';
	f->watchdog = read_int(procfs__read, "sys/kernel/nmi_watchdog");
}

static void why(struct counter_model *m, const char *fmt, ...)
{
	va_list ap;

	if (m->nwhy >= COUNTER_WHY_LINES)
		return;
	va_start(ap, fmt);
	vsnprintf(m->why[m->nwhy++], sizeof(m->why[0]), fmt, ap);
	va_end(ap);
}

static const struct intel_family *intel_family(const char *pmu_name)
{
	size_t i;

	for (i = 0; pmu_name[0] && i < ARRAY_SIZE(intel_families); i++)
		if (!strncmp(pmu_name, intel_families[i].pmu_name,
			     strlen(intel_families[i].pmu_name)))
			return &intel_families[i];
	return &intel_unknown;
}

/* SMT off in the firmware: the kernel reports it as not supported. */
static bool smt_off_in_firmware(const struct counter_facts *f)
{
	return f->smt == 0 && !strcmp(f->smt_control, "notsupported");
}

static void offcore_why(struct counter_model *m, const struct counter_facts *f)
{
	char codes[32];

	if (m->noffcore_codes > 1)
		snprintf(codes, sizeof(codes), "0x%02x, 0x%02x", m->offcore_codes[0],
			 m->offcore_codes[1]);
	else
		snprintf(codes, sizeof(codes), "0x%02x", m->offcore_codes[0]);
	why(m,
	    "%d offcore-response register%s per core: LLC and node cache events and "
	    "OFFCORE_RESPONSE/OCR events (event %s) need one, so at most %d per group%s",
	    m->offcore, m->offcore == 1 ? "" : "s", codes, m->offcore,
	    f->smt == 1 ? " (shared with the sibling thread)" : "");
}

static void model_intel(struct counter_model *m, const struct counter_facts *f)
{
	const struct intel_family *fam = intel_family(f->pmu_name);
	bool doubled = fam->gp_nosmt != fam->gp_smt;
	char smt[128];

	snprintf(m->label, sizeof(m->label), "%s", fam->label);
	m->fixed = fam->fixed;
	m->offcore = fam->offcore;
	m->noffcore_codes = fam->codes[1] ? 2 : 1;
	memcpy(m->offcore_codes, fam->codes, 2);
	m->cache_offcore = true;
	if (f->cpuid_gp >= 0) {
		m->gp_hw = f->cpuid_gp;
		m->fixed = f->cpuid_fixed >= 0 ? f->cpuid_fixed : m->fixed;
		why(m, "%d general-purpose and %d fixed counters per thread: CPUID leaf 0xA",
		    m->gp_hw, m->fixed);
		offcore_why(m, f);
		return;
	}
	if (!doubled) {
		m->gp_hw = fam->gp_smt;
		why(m,
		    "%d general-purpose counters per thread, %d fixed: %s (%s/caps/pmu_name '%s')",
		    m->gp_hw, m->fixed, fam->label, f->core_pmu, f->pmu_name);
	} else if (smt_off_in_firmware(f)) {
		m->gp_hw = fam->gp_nosmt;
		why(m,
		    "%d general-purpose counters, %d fixed: %s with SMT off in the firmware "
		    "(smt/control=notsupported) gives one thread all of the core's counters",
		    m->gp_hw, m->fixed, fam->label);
	} else {
		m->gp_hw = fam->gp_smt;
		if (f->smt < 0)
			snprintf(smt, sizeof(smt),
				 "SMT state unknown (no devices/system/cpu/smt), "
				 "taken as on");
		else if (f->smt == 0)
			snprintf(smt, sizeof(smt),
				 "SMT off at run time (smt/control=%s): the "
				 "firmware still splits the counters",
				 f->smt_control);
		else
			snprintf(smt, sizeof(smt), "SMT on (smt/active=1)");
		why(m,
		    "%d general-purpose counters per thread, %d fixed: %s with %s; the core's %d "
		    "are "
		    "split between its threads",
		    m->gp_hw, m->fixed, fam->label, smt, fam->gp_nosmt);
	}
	offcore_why(m, f);
}

static void model_amd(struct counter_model *m, const struct counter_facts *f)
{
	/*
	 * Family 15h and later (every Zen) have the 6 core counters of
	 * PERFCTR_CORE, per thread; no fixed counters, no offcore registers.
	 */
	m->gp_hw = 6;
	m->fixed = 0;
	m->offcore = 0;
	if (f->family >= 0x19 && f->zen4_ibs)
		snprintf(m->label, sizeof(m->label), "AMD Zen 4 or later (family %xh)", f->family);
	else if (f->family >= 0x17)
		snprintf(m->label, sizeof(m->label), "AMD Zen (family %xh)", f->family);
	else if (f->zen4_ibs)
		snprintf(m->label, sizeof(m->label), "AMD Zen 4 or later");
	else
		snprintf(m->label, sizeof(m->label), "AMD core");
	if (f->family >= 0 && f->family < 0x15) {
		m->gp_hw = 4;
		why(m, "4 general-purpose counters: AMD family %xh predates PERFCTR_CORE",
		    f->family);
		return;
	}
	why(m,
	    "6 general-purpose counters per thread, no fixed counter, no offcore register: %s "
	    "(%s%s), whatever SMT",
	    m->label, f->ident_src[0] ? f->ident_src : "CPU identity",
	    f->zen4_ibs ? "; ibs_op/caps/zen4_ibs_extensions" : "");
}

void counter_model__build(struct counter_model *m, const struct counter_facts *f)
{
	memset(m, 0, sizeof(*m));
	m->has_pmu = f->core_pmu[0] != '\0';
	snprintf(m->core_pmu, sizeof(m->core_pmu), "%s", f->core_pmu);
	m->core_type = f->core_type;
	m->vendor = f->vendor;
	m->smt = f->smt;
	m->hypervisor = f->hypervisor;
	if (!m->has_pmu) {
		snprintf(m->label, sizeof(m->label), "no hardware PMU");
		why(m,
		    "no core PMU in %s/bus/event_source/devices (no 'cpu' or 'cpu_core'): "
		    "hardware events cannot be counted here; software events can",
		    sysfs__root());
		return;
	}
	switch (f->vendor) {
	case CPU_VENDOR_INTEL:
		model_intel(m, f);
		break;
	case CPU_VENDOR_AMD:
		model_amd(m, f);
		break;
	default:
		snprintf(m->label, sizeof(m->label), "unknown core PMU '%s'", f->core_pmu);
		m->gp_hw = 4;
		why(m,
		    "4 general-purpose counters assumed: the core PMU '%s' is neither Intel's "
		    "nor AMD's as ldlat knows them",
		    f->core_pmu);
		break;
	}
	if (f->gp_override >= 0 || f->fixed_override >= 0 || f->offcore_override >= 0) {
		if (f->gp_override >= 0)
			m->gp_hw = f->gp_override;
		if (f->fixed_override >= 0)
			m->fixed = f->fixed_override;
		if (f->offcore_override >= 0)
			m->offcore = f->offcore_override;
		why(m, "set by %s: %d general-purpose, %d fixed, %d offcore-response",
		    f->override_src[0] ? f->override_src : "tools.conf", m->gp_hw, m->fixed,
		    m->offcore);
	}
	m->gp = m->gp_hw;
	m->watchdog = f->watchdog > 0;
	if (m->watchdog && m->gp > 0) {
		m->gp--;
		why(m,
		    "NMI watchdog on (kernel.nmi_watchdog=%d): a perf-based hard-lockup detector "
		    "holds a counter on every CPU, and the kernel does not count it when it checks "
		    "a "
		    "group; planned with %d general-purpose counter%s (sysctl "
		    "kernel.nmi_watchdog=0 "
		    "gives the counter back)",
		    f->watchdog, m->gp, m->gp == 1 ? "" : "s");
	}
}

/* The fixed counter of a generic event or its raw encoding (event | umask << 8). */
static int intel_fixed(__u32 type, __u64 config, bool *only)
{
	*only = false;
	if (type == PERF_TYPE_HARDWARE) {
		switch (config) {
		case PERF_COUNT_HW_INSTRUCTIONS:
			return 0;
		case PERF_COUNT_HW_CPU_CYCLES:
			return 1;
		case PERF_COUNT_HW_REF_CPU_CYCLES:
			*only = true;
			return 2;
		}
		return -1;
	}
	/* INST_RETIRED.ANY_P, CPU_CLK_UNHALTED.THREAD_P, and the kernel's ref-cycles pseudo-event */
	switch (config) {
	case 0x00c0:
		return 0;
	case 0x003c:
		return 1;
	case 0x0300:
		*only = true;
		return 2;
	}
	return -1;
}

void counter_model__needs(const struct counter_model *m, const struct perf_event_attr *attr,
			  struct ev_needs *n)
{
	unsigned int cache, op, result;
	bool raw;
	int i;

	memset(n, 0, sizeof(*n));
	n->fixed = -1;
	if (attr->type == PERF_TYPE_SOFTWARE || attr->type == PERF_TYPE_TRACEPOINT) {
		n->kind = EV_SOFTWARE;
		return;
	}
	raw = attr->type == PERF_TYPE_RAW || (m->has_pmu && attr->type == m->core_type);
	if (attr->type != PERF_TYPE_HARDWARE && attr->type != PERF_TYPE_HW_CACHE && !raw) {
		n->kind = EV_OTHER;
		return;
	}
	n->kind = EV_CORE;
	if (m->vendor != CPU_VENDOR_INTEL)
		return;
	if (attr->type != PERF_TYPE_HW_CACHE && m->fixed > 0) {
		n->fixed = intel_fixed(attr->type, attr->config, &n->fixed_only);
		if (n->fixed >= m->fixed) {
			n->fixed = -1;
			n->fixed_only = false;
		}
	}
	if (attr->type == PERF_TYPE_HW_CACHE)
		n->offcore = m->cache_offcore &&
			     evname__cache_decode(attr->config, &cache, &op, &result) &&
			     (cache == PERF_COUNT_HW_CACHE_LL || cache == PERF_COUNT_HW_CACHE_NODE);
	else if (raw)
		for (i = 0; i < m->noffcore_codes; i++)
			n->offcore |= (attr->config & 0xff) == m->offcore_codes[i];
}
