// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * check_events - choosing and encoding the load-latency event, without a
 * PMU: event specs in perf's syntax, tools.conf, the CPU identity, and the
 * perf_event_attr each fixture machine (tests/fixtures/sysfs) gets, down to
 * the exact error text where a machine has no usable event.  No root.
 */
#include <check.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bpf/ldlat.h"
#include "kernel/abi/caps.h"
#include "kernel/abi/cpu_id.h"
#include "kernel/abi/evlist.h"
#include "kernel/abi/evspec.h"
#include "kernel/policy/evtable.h"
#include "kernel/policy/source.h"
#include "user/run/toolsconf.h"
#include "tests/lib/testutil.h"
#include "kernel/lib/util.h"

#define WEIGHT_X86 (PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT_STRUCT)

static const char *tools_conf(void)
{
	const char *c = getenv("LDLAT_CONFIG");

	return c && *c ? c : "tools.conf";
}

/* Points sysfs and the CPU identity at a fixture machine. */
static void machine(const char *sysfs, const char *cpu)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "sysfs/%s", sysfs);
	setenv("LDLAT_SYSFS", fixture_path(rel), 1);
	if (cpu)
		setenv("LDLAT_CPU", cpu, 1);
	else
		unsetenv("LDLAT_CPU");
}

static void machine_reset(void)
{
	unsetenv("LDLAT_SYSFS");
	unsetenv("LDLAT_CPU");
}

/* ---- PMU discovery ---------------------------------------------------------- */

START_TEST(test_pmu_discovery)
{
	struct pmu pmu;
	char buf[128];

	machine("skylake-sp", NULL);
	ck_assert_int_eq(pmu__load(&pmu, "cpu"), 0);
	ck_assert(pmu.type == 4 && pmu.max_precise == 3 && pmu.cap_ldlat == -1 && !pmu.cpus.nr);
	ck_assert_str_eq(pmu.cap_name, "skylake");
	ck_assert_int_eq(pmu.nformats, 12);
	pmu_format__snprint(pmu__format(&pmu, "in_tx"), buf, sizeof(buf));
	ck_assert_str_eq(buf, "config:32");
	pmu_format__snprint(pmu__format(&pmu, "frontend"), buf, sizeof(buf));
	ck_assert_str_eq(buf, "config1:0-23");
	ck_assert_str_eq(pmu__alias(&pmu, "mem-stores"), "event=0xd0,umask=0x82");
	pmu__free(&pmu);
	/* an uncore PMU: its cpumask; .unit and .scale are not aliases */
	ck_assert_int_eq(pmu__load(&pmu, "uncore_imc_0"), 0);
	cpumap__snprint(&pmu.cpus, buf, sizeof(buf));
	ck_assert_str_eq(buf, "0,20");
	ck_assert_int_eq(pmu.naliases, 1);
	pmu__free(&pmu);
	ck_assert_int_eq(pmu__load(&pmu, "nosuch"), -ENOENT);
	ck_assert(!pmu__exists("nosuch") && pmu__exists("cpu") && !pmu__exists("../cpu"));
	ck_assert_int_eq(pmu__load_by_type(&pmu, 13), 0);
	ck_assert_str_eq(pmu.name, "uncore_imc_0");
	pmu__free(&pmu);
	ck_assert_int_eq(pmu__load_by_type(&pmu, 99), -ENOENT);

	/* hybrid: each core PMU covers its own CPUs */
	machine("alderlake", NULL);
	ck_assert_int_eq(pmu__load(&pmu, "cpu_atom"), 0);
	cpumap__snprint(&pmu.cpus, buf, sizeof(buf));
	ck_assert_str_eq(buf, "16-23");
	ck_assert_str_eq(pmu.cap_name, "alderlake_hybrid");
	ck_assert_str_eq(pmu__alias(&pmu, "mem-loads"), "event=0xd0,umask=0x5,ldlat=3");
	ck_assert_ptr_null(pmu__format(&pmu, "frontend"));
	pmu__free(&pmu);

	/* AMD: the split event field; IBS caps */
	machine("zen5", NULL);
	ck_assert_int_eq(pmu__load(&pmu, "cpu"), 0);
	pmu_format__snprint(pmu__format(&pmu, "event"), buf, sizeof(buf));
	ck_assert_str_eq(buf, "config:0-7,32-35");
	ck_assert_int_eq(pmu.max_precise, 0);
	pmu__free(&pmu);
	ck_assert_int_eq(pmu__load(&pmu, "ibs_op"), 0);
	ck_assert(pmu.cap_ldlat == 1 && pmu.max_precise == -1);
	pmu_format__snprint(pmu__format(&pmu, "ldlat"), buf, sizeof(buf));
	ck_assert_str_eq(buf, "config1:0-11");
	pmu_format__snprint(pmu__format(&pmu, "swfilt"), buf, sizeof(buf));
	ck_assert_str_eq(buf, "config2:0");
	pmu__free(&pmu);
	machine("zen4", NULL);
	ck_assert_int_eq(pmu__load(&pmu, "ibs_op"), 0);
	ck_assert(pmu.cap_ldlat == -1 && !pmu__format(&pmu, "ldlat"));
	pmu__free(&pmu);

	/* Arm SPE: formats in config, config1 and config2; a cpumask */
	machine("arm-spe", NULL);
	ck_assert_int_eq(pmu__load(&pmu, "arm_spe_0"), 0);
	ck_assert_int_eq(pmu.nformats, 9);
	pmu_format__snprint(pmu__format(&pmu, "min_latency"), buf, sizeof(buf));
	ck_assert_str_eq(buf, "config2:0-11");
	cpumap__snprint(&pmu.cpus, buf, sizeof(buf));
	ck_assert_str_eq(buf, "0-79");
	pmu__free(&pmu);
	machine_reset();
}
END_TEST

/* ---- event specs ---------------------------------------------------------- */

static int encode(const char *text, int idx, struct evspec_attr *out, char *notice, struct err *err)
{
	struct evspec spec;
	int e = evspec__parse(&spec, text, err);

	memset(out, 0, sizeof(*out));
	if (e)
		return e;
	ck_assert_int_lt(idx, spec.nevents);
	e = evspec__encode(&spec.ev[idx], out, notice, 512, err);
	evspec__free(&spec);
	return e;
}

START_TEST(test_evspec_terms)
{
	struct evspec_attr a;
	struct err err = {};
	char notice[512];

	machine("skylake-sp", NULL);
	ck_assert_msg(encode("cpu/event=0xcd,umask=0x1,ldlat=30/pp", 0, &a, notice, &err) == 0,
		      "%s", err.msg);
	ck_assert_uint_eq(a.attr.type, 4);
	ck_assert_uint_eq(a.attr.config, 0x1cd);
	ck_assert_uint_eq(a.attr.config1, 30);
	ck_assert_uint_eq(a.attr.precise_ip, 2);
	ck_assert(!a.attr.exclude_user && !a.attr.exclude_kernel && !a.attr.exclude_guest);
	ck_assert_str_eq(notice, "");
	evspec_attr__free(&a);

	/* an alias, and a term next to it that overrides the alias's own, in either order */
	ck_assert_int_eq(encode("cpu/mem-loads,ldlat=50/P", 0, &a, notice, &err), 0);
	ck_assert_uint_eq(a.attr.config, 0x1cd);
	ck_assert_uint_eq(a.attr.config1, 50);
	ck_assert_uint_eq(a.attr.precise_ip, 3); /* P: caps/max_precise */
	evspec_attr__free(&a);
	ck_assert_int_eq(encode("cpu/ldlat=50,mem-loads/", 0, &a, notice, &err), 0);
	ck_assert_uint_eq(a.attr.config1, 50);
	evspec_attr__free(&a);
	ck_assert_int_eq(encode("cpu/mem-loads/", 0, &a, notice, &err), 0);
	ck_assert_uint_eq(a.attr.config1, 3);
	evspec_attr__free(&a);

	/* single-bit terms: a bare term is 1 */
	ck_assert_int_eq(encode("cpu/event=0x3c,in_tx,in_tx_cp,edge/", 0, &a, notice, &err), 0);
	ck_assert_uint_eq(a.attr.config, 0x3c | (1ull << 32) | (1ull << 33) | (1ull << 18));
	evspec_attr__free(&a);
	/* an alias that uses single bits */
	ck_assert_int_eq(encode("cpu/cycles-ct/", 0, &a, notice, &err), 0);
	ck_assert_uint_eq(a.attr.config, 0x3c | (1ull << 32) | (1ull << 33));
	evspec_attr__free(&a);

	/* perf's own terms */
	ck_assert_int_eq(
		encode("cpu/config=0x1cd,config1=7,period=1000,name=x/", 0, &a, notice, &err), 0);
	ck_assert(a.attr.config == 0x1cd && a.attr.config1 == 7 && a.attr.sample_period == 1000 &&
		  !a.attr.freq && a.rate_set);
	ck_assert_str_eq(a.name, "x");
	evspec_attr__free(&a);
	ck_assert_int_eq(encode("cpu/event=0xc0,freq=99/", 0, &a, notice, &err), 0);
	ck_assert(a.attr.freq && a.attr.sample_freq == 99);
	evspec_attr__free(&a);
	machine_reset();
}
END_TEST

/* AMD's event field is split: event bits 8-11 go to config bits 32-35. */
START_TEST(test_evspec_split_field)
{
	struct evspec_attr a;
	struct err err = {};
	char notice[512];

	machine("zen4", NULL);
	ck_assert_int_eq(encode("cpu/event=0x1a0,umask=0x1/", 0, &a, notice, &err), 0);
	ck_assert_uint_eq(a.attr.config, 0x1000001a0ull);
	evspec_attr__free(&a);
	ck_assert_int_eq(encode("cpu/event=0xfff/", 0, &a, notice, &err), 0);
	ck_assert_uint_eq(a.attr.config, 0xf000000ffull);
	evspec_attr__free(&a);
	ck_assert_int_eq(encode("cpu/event=0x1000/", 0, &a, notice, &err), -ERANGE);
	ck_assert_ptr_nonnull(strstr(err.msg,
				     "value 0x1000 of term 'event' in 'cpu/event=0x1000/' is "
				     "wider than its field (cpu/format/event is "
				     "config:0-7,32-35: at most 0xfff)"));
	evspec_attr__free(&a);
	/* IBS: no terms; ldlat in config1:0-11 on Zen 5 */
	ck_assert_int_eq(encode("ibs_op//", 0, &a, notice, &err), 0);
	ck_assert_uint_eq(a.attr.type, 11);
	ck_assert_uint_eq(a.attr.config, 0);
	evspec_attr__free(&a);
	machine("zen5", NULL);
	ck_assert_int_eq(encode("ibs_op/ldlat=2048,l3missonly/", 0, &a, notice, &err), 0);
	ck_assert_uint_eq(a.attr.config1, 2048);
	ck_assert_uint_eq(a.attr.config, 1ull << 16);
	evspec_attr__free(&a);
	ck_assert_int_eq(encode("ibs_op/ldlat=4096/", 0, &a, notice, &err), -ERANGE);
	evspec_attr__free(&a);
	machine_reset();
}
END_TEST

START_TEST(test_evspec_raw_legacy_mods)
{
	struct evspec_attr a;
	struct err err = {};
	char notice[512], buf[256];
	struct evspec spec;

	machine("skylake-sp", NULL);
	ck_assert_int_eq(encode("r1cd", 0, &a, notice, &err), 0);
	ck_assert(a.attr.type == PERF_TYPE_RAW && a.attr.config == 0x1cd && a.has_pmu);
	ck_assert_str_eq(a.pmu.name, "cpu"); /* the PMU of type 4 gives the caps */
	evspec_attr__free(&a);
	ck_assert_int_eq(encode("r1cd:upp", 0, &a, notice, &err), 0);
	ck_assert(!a.attr.exclude_user && a.attr.exclude_kernel && a.attr.exclude_hv);
	ck_assert_uint_eq(a.attr.precise_ip, 2);
	evspec_attr__free(&a);
	ck_assert_int_eq(encode("cycles:uk", 0, &a, notice, &err), 0);
	ck_assert(a.attr.type == PERF_TYPE_HARDWARE && a.attr.config == PERF_COUNT_HW_CPU_CYCLES);
	ck_assert(!a.attr.exclude_user && !a.attr.exclude_kernel && a.attr.exclude_hv);
	evspec_attr__free(&a);
	ck_assert_int_eq(encode("page-faults:k", 0, &a, notice, &err), 0);
	ck_assert(a.attr.type == PERF_TYPE_SOFTWARE && a.attr.config == PERF_COUNT_SW_PAGE_FAULTS);
	ck_assert(a.attr.exclude_user && !a.attr.exclude_kernel);
	evspec_attr__free(&a);
	ck_assert_int_eq(encode("cpu/event=0xc0/H", 0, &a, notice, &err), 0);
	ck_assert(a.attr.exclude_guest && !a.attr.exclude_host);
	evspec_attr__free(&a);
	ck_assert_int_eq(encode("cpu/event=0xc0/GI", 0, &a, notice, &err), 0);
	ck_assert(a.attr.exclude_host && !a.attr.exclude_guest && a.attr.exclude_idle);
	evspec_attr__free(&a);
	ck_assert_int_eq(encode("cpu/event=0xc0/GH", 0, &a, notice, &err), 0);
	ck_assert(!a.attr.exclude_host && !a.attr.exclude_guest);
	evspec_attr__free(&a);

	/* a precise level above caps/max_precise is lowered, with a notice */
	machine("nehalem", NULL);
	ck_assert_int_eq(encode("cpu/mem-loads/ppp", 0, &a, notice, &err), 0);
	ck_assert_uint_eq(a.attr.precise_ip, 2);
	ck_assert_str_eq(notice, "cpu/mem-loads/ppp: precise level 3 lowered to 2, the most cpu "
				 "offers (caps/max_precise)");
	evspec_attr__free(&a);

	/* groups: the first event leads; group modifiers reach every member */
	machine("sapphire-rapids", NULL);
	ck_assert_int_eq(evspec__parse(&spec,
				       "{cpu/mem-loads-aux/,cpu/mem-loads,ldlat=40/}:pH,cycles",
				       &err),
			 0);
	ck_assert_int_eq(spec.nevents, 3);
	ck_assert(spec.ev[0].leader == 0 && spec.ev[1].leader == 0 && spec.ev[2].leader == 2);
	ck_assert_int_eq(evspec__group_size(&spec, 1), 2);
	ck_assert_int_eq(evspec__group_size(&spec, 2), 1);
	ck_assert(spec.ev[0].mods.precise == 1 && spec.ev[1].mods.host);
	ck_assert_str_eq(spec.ev[1].text, "cpu/mem-loads,ldlat=40/");
	ck_assert_ptr_nonnull(evspec_event__term(&spec.ev[1], "ldlat"));
	ck_assert_ptr_null(evspec_event__term(&spec.ev[0], "ldlat"));
	ck_assert_int_eq(evspec__encode(&spec.ev[0], &a, notice, 512, &err), 0);
	ck_assert_uint_eq(a.attr.config, 0x8203);
	evspec__format(&spec.ev[1], "ldlat=60", &a.attr, buf, sizeof(buf));
	ck_assert_str_eq(buf, "cpu/mem-loads,ldlat=60/pH");
	evspec_attr__free(&a);
	evspec__free(&spec);
	machine_reset();
}
END_TEST

/* Every malformed spec: -EINVAL/-ERANGE and a sentence naming the part. */
static const char *const bad_specs[][2] = {
	{ "", "empty event spec" },
	{ "cpu/event=1", "missing the closing '/' at the end of 'cpu/event=1'" },
	{ "cpu/event=1,/", "expected a term after ',' at '/' (column 13 of 'cpu/event=1,/')" },
	{ "cpu/event=/", "expected a value after '='" },
	{ "cpu/event=1/x", "unknown modifier (u, k, h, G, H, I, D, p, pp, ppp, P) at 'x'" },
	{ "cpu/event=1/pppp", "more than three 'p'" },
	{ "{cpu/event=1/,{cycles}}", "groups do not nest" },
	{ "{cycles", "expected ',' or '}' in a group" },
	{ "cycles,", "expected ',' between events" },
	{ "bogus", "unknown event 'bogus' in 'bogus'" },
	{ "cpu/event=1/ cycles", "unknown modifier" },
	{ "nosuch/event=1/", "unknown PMU 'nosuch' in 'nosuch/event=1/' (PMUs here: breakpoint, "
			     "cpu, kprobe, msr, software, tracepoint, uncore_imc_0, uprobe)" },
	{ "cpu/evnt=1/", "unknown term 'evnt' in 'cpu/evnt=1/' (cpu's terms: any, cmask, edge, "
			 "event, frontend, in_tx, in_tx_cp, inv, ldlat, offcore_rsp, pc, umask;" },
	{ "cpu/event=0x100/", "value 0x100 of term 'event' in 'cpu/event=0x100/' is wider than its "
			      "field (cpu/format/event is config:0-7: at most 0xff)" },
	{ "cpu/ldlat=0x10000/", "value 0x10000 of term 'ldlat' in 'cpu/ldlat=0x10000/' is wider "
				"than its field (cpu/format/ldlat is config1:0-15" },
	{ "cpu/event=zz/", "value 'zz' of term 'event' in 'cpu/event=zz/' is not a number" },
	{ "cpu/period/", "term 'period' in 'cpu/period/' needs a value (period=N)" },
	{ "cpu/config3=1/", "term 'config3' in 'cpu/config3=1/' is not supported by this build" },
	{ "cpu/mem-loads=1/", "unknown term 'mem-loads'" },
};

START_TEST(test_evspec_errors)
{
	struct evspec_attr a;
	struct err err = {};
	char notice[512];
	int e;

	machine("skylake-sp", NULL);
	e = encode(bad_specs[_i][0], 0, &a, notice, &err);
	ck_assert_msg(e == -EINVAL || e == -ERANGE, "'%s': %d", bad_specs[_i][0], e);
	ck_assert_msg(strstr(err.msg, bad_specs[_i][1]), "'%s': want '%s' in: %s", bad_specs[_i][0],
		      bad_specs[_i][1], err.msg);
	evspec_attr__free(&a);
	machine_reset();
}
END_TEST

/* ---- CPU identity --------------------------------------------------------- */

START_TEST(test_cpu_id_parse)
{
	struct cpu_id id;
	struct err err = {};

	ck_assert_int_eq(cpu_id__parse(&id, "GenuineIntel-6-8F", &err), 0);
	ck_assert(id.x86 && id.family == 6 && id.model == 0x8f && id.stepping == -1 &&
		  !id.hypervisor);
	ck_assert_str_eq(id.id, "GenuineIntel-6-8F");
	ck_assert_int_eq(cpu_id__parse(&id, "GenuineIntel-6-55-4", &err), 0);
	ck_assert_str_eq(id.id, "GenuineIntel-6-55-4");
	ck_assert_int_eq(cpu_id__parse(&id, "AuthenticAMD-26-11,hypervisor", &err), 0);
	ck_assert(id.x86 && id.family == 26 && id.model == 0x11 && id.hypervisor);
	ck_assert_str_eq(id.id, "AuthenticAMD-26-11");
	ck_assert_int_eq(cpu_id__parse(&id, "0x00000000410fd0c0", &err), 0);
	ck_assert(!id.x86);
	ck_assert_str_eq(id.id, "0x00000000410fd0c0");
	ck_assert_int_eq(cpu_id__parse(&id, "GenuineIntel-6", &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "CPU identity 'GenuineIntel-6' is not "
					      "VENDOR-FAMILY-MODEL[-STEPPING][,hypervisor]"));
	ck_assert_int_eq(cpu_id__parse(&id, "GenuineIntel-x-8F", &err), -EINVAL);
	ck_assert_int_eq(cpu_id__parse(&id, "GenuineIntel-6-8F,vm", &err), -EINVAL);
	ck_assert_int_eq(cpu_id__parse(&id, "-6-8F", &err), -EINVAL);

	setenv("LDLAT_CPU", "Intel-six", 1);
	ck_assert_int_eq(cpu_id__read(&id, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "LDLAT_CPU: CPU identity 'Intel-six'"));
	unsetenv("LDLAT_CPU");
}
END_TEST

/* Hybrid core types: from the fixture's PMUs with LDLAT_CPU; CPUID on this machine. */
START_TEST(test_cpu_id_core_types)
{
	struct cpu_id id;
	struct cpumap online, core, atom;
	cpu_set_t before, after;
	struct err err = {};
	char buf[64];

	machine("alderlake", "GenuineIntel-6-97");
	ck_assert_int_eq(cpu_id__read(&id, &err), 0);
	ck_assert(id.hybrid && id.overridden);
	cpumap__snprint(cpu_id__cpus(&id, CORE_TYPE_CORE), buf, sizeof(buf));
	ck_assert_str_eq(buf, "0-15");
	cpumap__snprint(cpu_id__cpus(&id, CORE_TYPE_ATOM), buf, sizeof(buf));
	ck_assert_str_eq(buf, "16-23");
	ck_assert_ptr_null(cpu_id__cpus(&id, CORE_TYPE_ANY));
	cpu_id__free(&id);
	machine("skylake-sp", "GenuineIntel-6-55");
	ck_assert_int_eq(cpu_id__read(&id, &err), 0);
	ck_assert(!id.hybrid);
	ck_assert_ptr_null(cpu_id__cpus(&id, CORE_TYPE_CORE));
	cpu_id__free(&id);
	machine_reset();

	/* this machine, through CPUID: leaf 0x1A read on every online CPU, affinity restored */
	ck_assert_int_eq(cpu_id__read(&id, &err), 0);
	ck_assert(id.x86 && !id.overridden && id.stepping >= 0);
	ck_assert_ptr_nonnull(strstr(id.id, id.vendor));
	ck_assert_int_eq(cpumap__online(&online, &err), 0);
	ck_assert_int_eq(sched_getaffinity(0, sizeof(before), &before), 0);
	ck_assert_int_eq(cpu_id__core_types_by_cpuid(&online, &core, &atom), 0);
	ck_assert_int_eq(sched_getaffinity(0, sizeof(after), &after), 0);
	ck_assert(CPU_EQUAL(&before, &after));
	if (!id.hybrid)
		ck_assert_int_eq(core.nr + atom.nr, 0);
	else
		ck_assert_int_eq(core.nr + atom.nr, online.nr);
	cpumap__free(&core);
	cpumap__free(&atom);
	cpumap__free(&online);
	cpu_id__free(&id);
}
END_TEST

/* ---- tools.conf ------------------------------------------------------------ */

static int load_text(struct evtable *t, const char *text, struct err *err, char *path)
{
	FILE *f;
	int e;

	snprintf(path, 256, "/tmp/ldlat-check-events-%d.conf", (int)getpid());
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	e = evtable__load(t, path, err);
	unlink(path);
	return e;
}

#define DEFAULTS "[defaults]\nldlat = 30\nfreq = 4000\npage-faults-period = 1\n"

START_TEST(test_evtable_shipped)
{
	struct evtable t;
	struct cpu_id id;
	const struct evtable_entry *e;
	struct err err = {};

	ck_assert_msg(evtable__load(&t, tools_conf(), &err) == 0, "%s", err.msg);
	ck_assert(t.ldlat == 30 && t.freq == 4000 && !t.period && t.page_faults_period == 1);
	ck_assert_int_ge(t.nentries, 15);
	/* models of each family land in their entry */
	static const char *const want[][3] = {
		{ "GenuineIntel-6-2E", "any", "nehalem-westmere" },
		{ "GenuineIntel-6-2C", "any", "nehalem-westmere" },
		{ "GenuineIntel-6-2A", "any", "sandybridge-broadwell" },
		{ "GenuineIntel-6-4F", "any", "sandybridge-broadwell" },
		{ "GenuineIntel-6-9E-9", "any", "skylake-client" },
		{ "GenuineIntel-6-55-7", "any", "skylake-server" },
		{ "GenuineIntel-6-6A", "any", "icelake" },
		{ "GenuineIntel-6-8F", "any", "sapphire-rapids" },
		{ "GenuineIntel-6-CF-2", "any", "sapphire-rapids" },
		{ "GenuineIntel-6-AD", "any", "granite-rapids" },
		{ "GenuineIntel-6-BF", "core", "alderlake-core" },
		{ "GenuineIntel-6-BF", "atom", "alderlake-atom" },
		{ "GenuineIntel-6-AA", "core", "meteorlake-core" },
		{ "GenuineIntel-6-AA", "atom", "meteorlake-atom" },
		{ "GenuineIntel-6-BE", "any", "gracemont" },
		{ "GenuineIntel-6-AF", "any", "crestmont" },
		{ "AuthenticAMD-23-31", "any", "amd-zen" },
		{ "AuthenticAMD-25-11", "any", "amd-zen" },
		{ "HygonGenuine-24-1", "any", "amd-zen" },
	};
	unsigned int i;
	enum core_type core;

	machine("vm", NULL);
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		ck_assert_int_eq(cpu_id__parse(&id, want[i][0], &err), 0);
		core = CORE_TYPE_ANY;
		if (strcmp(want[i][1], "any"))
			ck_assert_int_eq(core_type__parse(want[i][1], &core), 0);
		e = evtable__lookup(&t, &id, core);
		ck_assert_msg(e && !strcmp(e->name, want[i][2]), "%s: %s, want %s", want[i][0],
			      e ? e->name : "none", want[i][2]);
	}
	/* no entry: an unknown model; a hybrid model asked without a core type */
	ck_assert_int_eq(cpu_id__parse(&id, "GenuineIntel-6-01", &err), 0);
	ck_assert_ptr_null(evtable__lookup(&t, &id, CORE_TYPE_ANY));
	ck_assert_int_eq(cpu_id__parse(&id, "GenuineIntel-6-97", &err), 0);
	ck_assert_ptr_null(evtable__lookup(&t, &id, CORE_TYPE_ANY));
	/* 'requires': the Zen 5 threshold only where ibs_op/caps/ldlat reads 1 */
	ck_assert_int_eq(cpu_id__parse(&id, "AuthenticAMD-26-11", &err), 0);
	machine("zen4", NULL);
	ck_assert_str_eq(evtable__lookup(&t, &id, CORE_TYPE_ANY)->name, "amd-zen");
	machine("zen5", NULL);
	ck_assert_str_eq(evtable__lookup(&t, &id, CORE_TYPE_ANY)->name, "amd-zen5-ldlat");
	machine("arm-spe", NULL);
	ck_assert_int_eq(cpu_id__parse(&id, "0x00000000410fd0c0", &err), 0);
	e = evtable__lookup(&t, &id, CORE_TYPE_ANY);
	ck_assert(e && !strcmp(e->name, "arm-spe") && e->unsupported[0]);
	machine_reset();
	evtable__free(&t);
}
END_TEST

/* Every mistake in a table: -EINVAL and FILE:LINE. */
static const char *const bad_tables[][3] = {
	{ "[defaults]\nldlat = 30\n", "2",
	  "[defaults] must set ldlat, page-faults-period, and one "
	  "of freq and period" },
	{ "[x]\ncpuid = A\nevent = cycles\n", "3", "no [defaults] section" },
	{ DEFAULTS "colour = red\n", "5", "unknown key 'colour' in [defaults]" },
	{ DEFAULTS "[x]\ncpuid = A\nevent = cycles\nflavour = 1\n", "8",
	  "unknown key 'flavour' in [x] (cpuid, core, requires, event," },
	{ DEFAULTS "[x]\ncpuid = A(\nevent = cycles\n", "6",
	  "cpuid = 'A(' is not a regular expression" },
	{ DEFAULTS "[x]\ncpuid = A\nevent = cpu/event=1\n", "7",
	  "event: missing the closing '/' at the end of 'cpu/event=1'" },
	{ DEFAULTS "[x]\ncpuid = A\nevent = cpu/event=1/pp\n", "7",
	  "event = 'cpu/event=1/pp': set the precise level with 'precise =', not p or P" },
	{ DEFAULTS "[x]\ncpuid = A\nevent = {a/b/,c/d/}\n", "7",
	  "event = '{a/b/,c/d/}': one event here (a group leader goes in 'leader =')" },
	{ DEFAULTS "[x]\ncpuid = A\n", "5", "[x] needs either event = or unsupported =" },
	{ DEFAULTS "[x]\nevent = cycles\n", "5", "[x] matches no CPU: give cpuid = or requires =" },
	{ DEFAULTS "[x]\ncpuid = A\nleader = cycles\nunsupported = no\n", "5",
	  "[x] has a leader but no event" },
	{ DEFAULTS "[x]\ncpuid = A\nevent = cycles\nldlat = 9-3\n", "8",
	  "ldlat = '9-3': expected MIN-MAX or MIN-MAX/STEP" },
	{ DEFAULTS "[x]\ncpuid = A\nevent = cycles\nprecise = 4\n", "8",
	  "precise = '4': expected 0 to 3" },
	{ DEFAULTS "[x]\ncpuid = A\nevent = cycles\ncore = big\n", "8",
	  "core = 'big': expected core or atom" },
	{ DEFAULTS "[x]\ncpuid = A\nevent = cycles\n[x]\n", "8",
	  "[x] given twice (first at line 5)" },
	{ DEFAULTS "[defaults]\n", "5", "[defaults] given twice" },
	{ DEFAULTS "[a b]\n", "5", "section name 'a b': use letters, digits, - and _" },
	{ "event = cycles\n", "1", "'event' outside a section" },
	{ DEFAULTS "just words\n", "5", "expected 'key = value', [section] or a # comment" },
	{ DEFAULTS "[x\n", "5", "a section header is [name] alone on its line" },
	{ DEFAULTS "freq = 0\n", "5", "freq = '0': expected a positive number" },
	{ DEFAULTS "[x]\ncpuid = A\nevent = cycles\nldlat-default = on\n", "8",
	  "ldlat-default = 'on': expected off" },
};

START_TEST(test_evtable_errors)
{
	struct evtable t;
	struct err err = {};
	char path[256], want[512];

	ck_assert_int_eq(load_text(&t, bad_tables[_i][0], &err, path), -EINVAL);
	snprintf(want, sizeof(want), "%s:%s: %s", path, bad_tables[_i][1], bad_tables[_i][2]);
	ck_assert_msg(strstr(err.msg, want), "want '%s' in: %s", want, err.msg);
}
END_TEST

START_TEST(test_evtable_minimal)
{
	struct evtable t;
	struct cpu_id id;
	struct err err = {};
	char path[256];

	ck_assert_int_eq(load_text(&t,
				   "# comment\n\n[defaults]\nldlat=5\nperiod = 0x100\n"
				   "page-faults-period = 3\n[mine]\n  cpuid = Foo-1-(2|3)  \n"
				   "event = cpu/event=1/\nldlat = 4-100/2\nprecise = 1\n"
				   "note = hello = world\n",
				   &err, path),
			 0);
	ck_assert(t.ldlat == 5 && t.period == 256 && !t.freq && t.page_faults_period == 3);
	ck_assert_int_eq(t.nentries, 1);
	ck_assert(t.entries[0].ldlat_min == 4 && t.entries[0].ldlat_max == 100 &&
		  t.entries[0].ldlat_step == 2 && t.entries[0].precise == 1);
	ck_assert_str_eq(t.entries[0].note, "hello = world");
	ck_assert_int_eq(cpu_id__parse(&id, "Foo-1-3-7", &err), 0);
	ck_assert(evtable_entry__matches_id(&t.entries[0], id.id));
	ck_assert(!evtable_entry__matches_id(&t.entries[0], "Foo-1-33"));
	ck_assert(!evtable_entry__matches_id(&t.entries[0], "xFoo-1-3"));
	evtable__free(&t);
	ck_assert_int_eq(evtable__load(&t, "/nonexistent/tools.conf", &err), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err.msg, "cannot read /nonexistent/tools.conf"));
}
END_TEST

/* Where the tools look for tools.conf. */
START_TEST(test_toolsconf_search)
{
	struct err err = {};
	char paths[8][4096], dir[256], file[512], sub[512];
	struct evtable t;
	int n;

	n = toolsconf__candidates("/opt/ldlat/bin/ldlat-hist", paths, 8);
	/* no install path is compiled in: make install PREFIX=... needs no rebuild */
	ck_assert_int_eq(n, 3);
	ck_assert_str_eq(paths[0], "/etc/ldlat/tools.conf");
	ck_assert_str_eq(paths[1], "/opt/ldlat/bin/../share/ldlat/tools.conf");
	ck_assert_str_eq(paths[2], "/opt/ldlat/bin/../tools.conf");

	unsetenv("LDLAT_CONFIG");
	ck_assert_int_eq(toolsconf__load(&t, "/nonexistent.conf", NULL, &err), -EINVAL);
	ck_assert_str_eq(err.msg,
			 "--config '/nonexistent.conf': cannot read it: No such file or directory");
	setenv("LDLAT_CONFIG", "/nonexistent.conf", 1);
	ck_assert_int_eq(toolsconf__load(&t, NULL, NULL, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "LDLAT_CONFIG '/nonexistent.conf': cannot read it"));
	unsetenv("LDLAT_CONFIG");

	/* an installed tree: BINDIR/../share/ldlat/tools.conf */
	snprintf(dir, sizeof(dir), "/tmp/ldlat-check-events-%d", (int)getpid());
	snprintf(file, sizeof(file), "%s/share/ldlat", dir);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	ck_assert_int_eq(mkdir(strcat(strcpy(sub, dir), "/share"), 0755), 0);
	ck_assert_int_eq(mkdir(file, 0755), 0);
	strcat(file, "/tools.conf");
	ck_assert_int_eq(mkdir(strcat(strcpy(sub, dir), "/bin"), 0755), 0);
	{
		FILE *f = fopen(file, "w");

		ck_assert_ptr_nonnull(f);
		fputs(DEFAULTS, f);
		fclose(f);
	}
	snprintf(paths[0], sizeof(paths[0]), "%s/bin/ldlat-hist", dir);
	ck_assert_int_eq(toolsconf__load(&t, NULL, paths[0], &err), 0);
	if (access(TOOLSCONF_ETC, F_OK))
		ck_assert_str_eq(t.path, file);
	evtable__free(&t);
	unlink(file);
	snprintf(sub, sizeof(sub), "%s/share/ldlat", dir);
	rmdir(sub);
	snprintf(sub, sizeof(sub), "%s/share", dir);
	rmdir(sub);
	snprintf(sub, sizeof(sub), "%s/bin", dir);
	rmdir(sub);
	rmdir(dir);
	/* no file anywhere: the table built into the binary, the same as tools.conf's */
	if (access(TOOLSCONF_ETC, F_OK)) {
		struct evtable file;

		ck_assert_int_eq(toolsconf__load(&t, NULL, paths[0], &err), 0);
		ck_assert_str_eq(t.path, TOOLSCONF_BUILTIN);
		ck_assert_int_eq(evtable__load(&file, tools_conf(), &err), 0);
		ck_assert_int_eq(t.nentries, file.nentries);
		ck_assert_int_gt(t.nentries, 10);
		ck_assert_uint_eq(t.ldlat, file.ldlat);
		ck_assert_uint_eq(t.page_faults_period, file.page_faults_period);
		evtable__free(&file);
		evtable__free(&t);
	}
}
END_TEST

/* ---- the load-latency event of each fixture machine ------------------------ */

struct golden {
	__u32 type;
	__u64 config, config1;
	int precise;
	bool exclude_guest;
	bool has_leader;
	__u32 leader_type;
	__u64 leader_config;
	const char *cpus; /* "" any */
	const char *name;
	const char *entry; /* the tools.conf entry */
};

struct machine_case {
	const char *sysfs, *cpu;
	__u64 ldlat; /* -L, 0: default */
	int nevents;
	struct golden ev[3];
};

static const struct machine_case machines[] = {
	{ "nehalem",
	  "GenuineIntel-6-1A",
	  0,
	  1,
	  { { 4, 0x100b, 30, 2, true, false, 0, 0, "", "cpu/event=0x0b,umask=0x10,ldlat=30/ppH",
	      "nehalem-westmere" } } },
	{ "skylake-sp",
	  "GenuineIntel-6-55-4",
	  0,
	  1,
	  { { 4, 0x1cd, 30, 2, true, false, 0, 0, "", "cpu/event=0xcd,umask=0x1,ldlat=30/ppH",
	      "skylake-server" } } },
	{ "skylake-sp",
	  "GenuineIntel-6-55-7",
	  90,
	  1,
	  { { 4, 0x1cd, 90, 2, true, false, 0, 0, "", "cpu/event=0xcd,umask=0x1,ldlat=90/ppH",
	      "skylake-server" } } },
	{ "sapphire-rapids",
	  "GenuineIntel-6-8F",
	  0,
	  1,
	  { { 4, 0x1cd, 30, 2, true, true, 4, 0x8203, "", "cpu/event=0xcd,umask=0x1,ldlat=30/ppH",
	      "sapphire-rapids" } } },
	{ "alderlake",
	  "GenuineIntel-6-97",
	  0,
	  2,
	  { { 4, 0x1cd, 30, 2, true, true, 4, 0x8203, "0-15",
	      "cpu_core/event=0xcd,umask=0x1,ldlat=30/ppH", "alderlake-core" },
	    { 10, 0x5d0, 30, 2, true, false, 0, 0, "16-23",
	      "cpu_atom/event=0xd0,umask=0x5,ldlat=30/ppH", "alderlake-atom" } } },
	/* three PMUs: the Crestmont low-power E-cores have cpu_lowpower */
	{ "arrowlake-h",
	  "GenuineIntel-6-C5",
	  0,
	  3,
	  { { 4, 0x1cd, 30, 2, true, false, 0, 0, "0-5",
	      "cpu_core/event=0xcd,umask=0x1,ldlat=30/ppH", "lunarlake-core" },
	    { 10, 0x5d0, 30, 2, true, false, 0, 0, "6-13",
	      "cpu_atom/event=0xd0,umask=0x5,ldlat=30/ppH", "lunarlake-atom" },
	    { 11, 0x5d0, 30, 2, true, false, 0, 0, "14-15",
	      "cpu_lowpower/event=0xd0,umask=0x5,ldlat=30/ppH", "arrowlake-h-lowpower" } } },
	/* Lunar Lake: no cpu_lowpower, so no third event */
	{ "alderlake",
	  "GenuineIntel-6-BD",
	  0,
	  2,
	  { { 4, 0x1cd, 30, 2, true, false, 0, 0, "0-15",
	      "cpu_core/event=0xcd,umask=0x1,ldlat=30/ppH", "lunarlake-core" },
	    { 10, 0x5d0, 30, 2, true, false, 0, 0, "16-23",
	      "cpu_atom/event=0xd0,umask=0x5,ldlat=30/ppH", "lunarlake-atom" } } },
	{ "zen4",
	  "AuthenticAMD-25-11",
	  0,
	  1,
	  { { 11, 0, 0, 0, false, false, 0, 0, "", "ibs_op//", "amd-zen" } } },
	{ "zen5",
	  "AuthenticAMD-26-11",
	  0,
	  1,
	  { { 11, 0, 0, 0, false, false, 0, 0, "", "ibs_op//", "amd-zen5-ldlat" } } },
	{ "zen5",
	  "AuthenticAMD-26-11",
	  256,
	  1,
	  { { 11, 0, 256, 0, false, false, 0, 0, "", "ibs_op/ldlat=256/", "amd-zen5-ldlat" } } },
};

static int resolve(const struct source_opts *o, struct source *src, struct evlist *ev, char *notice,
		   struct err *err)
{
	return source__resolve(o, src, ev, notice, 2048, err);
}

START_TEST(test_machine_golden)
{
	const struct machine_case *m = &machines[_i];
	struct evtable t;
	struct source_opts o = { .kind = SOURCE_LDLAT, .ldlat = m->ldlat };
	struct evlist ev = {};
	struct source src;
	struct err err = {};
	char notice[2048], cpus[64];
	int i;

	ck_assert_int_eq(evtable__load(&t, tools_conf(), &err), 0);
	o.table = &t;
	machine(m->sysfs, m->cpu);
	ck_assert_msg(resolve(&o, &src, &ev, notice, &err) == 0, "%s: %s", m->sysfs, err.msg);
	ck_assert_int_eq(ev.nevsel, m->nevents);
	ck_assert_int_eq(src.nevents, m->nevents);
	ck_assert(src.kind == SOURCE_LDLAT && src.weight_struct);
	ck_assert_uint_eq(src.fields, LDLAT_HAS_ADDR | LDLAT_HAS_LAT | LDLAT_HAS_DSRC);
	for (i = 0; i < m->nevents; i++) {
		const struct golden *g = &m->ev[i];
		const struct evsel *e = &ev.evsel[i];

		ck_assert_msg(strstr(src.ev[i].why, g->entry), "%s", src.ev[i].why);
		ck_assert_uint_eq(e->attr.type, g->type);
		ck_assert_uint_eq(e->attr.config, g->config);
		ck_assert_uint_eq(e->attr.config1, g->config1);
		ck_assert_uint_eq(e->attr.config2, 0);
		ck_assert_uint_eq(e->attr.precise_ip, g->precise);
		ck_assert_uint_eq(e->attr.sample_type, WEIGHT_X86);
		ck_assert_uint_eq(e->attr.exclude_guest, g->exclude_guest);
		ck_assert(!e->attr.exclude_user && !e->attr.exclude_kernel &&
			  !e->attr.exclude_host);
		ck_assert(e->attr.freq && e->attr.sample_freq == 4000);
		ck_assert_int_eq(e->has_leader, g->has_leader);
		if (g->has_leader) {
			ck_assert_uint_eq(e->leader.type, g->leader_type);
			ck_assert_uint_eq(e->leader.config, g->leader_config);
			ck_assert(!e->leader.sample_period && !e->leader.sample_type &&
				  !e->leader.precise_ip);
		}
		cpumap__snprint(&e->cpus, cpus, sizeof(cpus));
		ck_assert_str_eq(cpus, g->cpus);
		ck_assert_str_eq(e->name, g->name);
		ck_assert_int_eq(src.ev[i].has_ldlat, g->config1 != 0);
	}
	evlist__free(&ev);
	source__free(&src);
	evtable__free(&t);
	machine_reset();
}
END_TEST

static int entry_line(const struct evtable *t, const char *name)
{
	int i;

	for (i = 0; i < t->nentries; i++)
		if (!strcmp(t->entries[i].name, name))
			return t->entries[i].line;
	return -1;
}

/* The exact sentence where a machine has no usable event; auto falls back. */
START_TEST(test_machine_no_event)
{
	struct evtable t;
	struct source_opts o = { .kind = SOURCE_LDLAT };
	struct evlist ev = {};
	struct source src;
	struct err err = {};
	char notice[2048], want[2048];

	ck_assert_int_eq(evtable__load(&t, tools_conf(), &err), 0);
	o.table = &t;
	machine("vm", "GenuineIntel-6-CF,hypervisor");
	ck_assert_int_eq(resolve(&o, &src, &ev, notice, &err), -ENOENT);
	snprintf(
		want, sizeof(want),
		"no load-latency event on this machine: %s entry [sapphire-rapids] (line %d) for "
		"this CPU (GenuineIntel-6-CF) uses the 'cpu' PMU, which this kernel does not "
		"export, and no PMU has a mem-loads event (PMUs here: breakpoint, msr, software, "
		"tracepoint, uprobe). This is a virtual machine (hypervisor CPU flag): hypervisors "
		"rarely pass PEBS or IBS through. Use --source page-faults to sample page faults "
		"by address instead, or --source auto",
		t.path, entry_line(&t, "sapphire-rapids"));
	ck_assert_str_eq(err.msg, want);
	ck_assert_int_eq(ev.nevsel, 0);
	source__free(&src);

	machine("arm-spe", "0x00000000410fd0c0");
	ck_assert_int_eq(resolve(&o, &src, &ev, notice, &err), -ENOENT);
	snprintf(want, sizeof(want),
		 "no load-latency event on this machine: ARM SPE (arm_spe) is not supported: it "
		 "writes its records to an AUX buffer and raises no per-sample overflow, so a BPF "
		 "program attached to the event never sees a sample (%s:%d [arm-spe], for "
		 "0x00000000410fd0c0). Use --source page-faults to sample page faults by address "
		 "instead, or --source auto",
		 t.path, entry_line(&t, "arm-spe"));
	ck_assert_str_eq(err.msg, want);
	ck_assert_int_eq(ev.nevsel, 0);
	source__free(&src);

	/* auto: page faults, every one (tools.conf's page-faults-period), and why */
	o.kind = SOURCE_AUTO;
	ck_assert_int_eq(resolve(&o, &src, &ev, notice, &err), 0);
	ck_assert_int_eq(src.kind, SOURCE_PAGE_FAULTS);
	ck_assert_str_eq(notice, "no load-latency event on this machine; sampling page faults "
				 "instead (addresses only, no latency or data source; "
				 "--list-events says why)");
	ck_assert_ptr_nonnull(strstr(notice, "sampling page faults instead"));
	ck_assert_uint_eq(ev.evsel[0].attr.type, PERF_TYPE_SOFTWARE);
	ck_assert_uint_eq(ev.evsel[0].attr.config, PERF_COUNT_SW_PAGE_FAULTS);
	ck_assert_uint_eq(ev.evsel[0].attr.sample_period, 1);
	ck_assert_uint_eq(ev.evsel[0].attr.sample_type, PERF_SAMPLE_ADDR);
	evlist__free(&ev);
	source__free(&src);
	machine_reset();
	evtable__free(&t);
}
END_TEST

/*
 * PEBS off (caps/max_precise 0): a load-latency event is refused, from the
 * table, the kernel's alias or --event, never opened without precise
 * sampling (its samples would carry no address, latency or data source);
 * auto falls back to page faults.
 */
START_TEST(test_machine_no_pebs)
{
	static const char *const cpus[] = { "GenuineIntel-6-55-4", "GenuineIntel-6-99" };
	struct evtable t;
	struct source_opts o = { .kind = SOURCE_LDLAT };
	struct evlist ev = {};
	struct source src;
	struct err err = {};
	char notice[2048], want[2048];
	unsigned int i;

	ck_assert_int_eq(evtable__load(&t, tools_conf(), &err), 0);
	o.table = &t;
	/* the table's entry, then a CPU no entry matches (the alias path) */
	for (i = 0; i < ARRAY_SIZE(cpus); i++) {
		machine("no-pebs", cpus[i]);
		err__clear(&err);
		ck_assert_int_eq(resolve(&o, &src, &ev, notice, &err), -ENOENT);
		ck_assert_int_eq(err__status(&err, -ENOENT), ERR_EXIT_SYSTEM);
		ck_assert_int_eq(ev.nevsel, 0);
		source__free(&src);
	}
	snprintf(want, sizeof(want),
		 "no load-latency event on this machine: cpu's caps/max_precise is 0, so the "
		 "kernel offers no precise sampling (PEBS) and the kernel's alias "
		 "cpu/events/mem-loads would sample no address, latency or data source. Enable "
		 "PEBS in the firmware or update the CPU microcode, or use --source page-faults "
		 "to sample page faults by address instead, or --source auto");
	ck_assert_str_eq(err.msg, want);
	machine("no-pebs", cpus[0]);
	ck_assert_int_eq(resolve(&o, &src, &ev, notice, &err), -ENOENT);
	snprintf(want, sizeof(want), "%s:%d [skylake-server] event", t.path,
		 entry_line(&t, "skylake-server") + 3);
	ck_assert_msg(strstr(err.msg, want) && strstr(err.msg, "caps/max_precise is 0"), "%s",
		      err.msg);
	source__free(&src);

	/* as written with --event, precise or not */
	o.event = "cpu/mem-loads,ldlat=30/p";
	ck_assert_int_eq(resolve(&o, &src, &ev, notice, &err), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err.msg, "--event 'cpu/mem-loads,ldlat=30/p' would sample"));
	source__free(&src);
	o.event = "r1cd";
	ck_assert_int_eq(resolve(&o, &src, &ev, notice, &err), -ENOENT);
	source__free(&src);
	o.event = NULL;

	/* auto: page faults, and the reason */
	o.kind = SOURCE_AUTO;
	ck_assert_int_eq(resolve(&o, &src, &ev, notice, &err), 0);
	ck_assert_int_eq(src.kind, SOURCE_PAGE_FAULTS);
	ck_assert_int_eq(ev.nevsel, 1);
	ck_assert_uint_eq(ev.evsel[0].attr.config, PERF_COUNT_SW_PAGE_FAULTS);
	/* one line; the whole reason (caps/max_precise) is --list-events' */
	ck_assert_msg(strstr(notice, "sampling page faults instead") &&
			      strstr(notice, "--list-events says why") && !strchr(notice, '\n'),
		      "%s", notice);
	evlist__free(&ev);
	source__free(&src);
	machine_reset();
	evtable__free(&t);
}
END_TEST

/* No tools.conf entry: the kernel's alias; an aux leader where the kernel exports one. */
START_TEST(test_alias_path)
{
	struct evtable t;
	struct source_opts o = { .kind = SOURCE_LDLAT, .ldlat = 50 };
	struct evlist ev = {};
	struct source src;
	struct err err = {};
	char notice[2048];
	const struct perf_event_attr *a;

	ck_assert_int_eq(evtable__load(&t, tools_conf(), &err), 0);
	o.table = &t;
	machine("skylake", "GenuineIntel-6-01");
	ck_assert_msg(resolve(&o, &src, &ev, notice, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(ev.nevsel, 1);
	a = &ev.evsel[0].attr;
	ck_assert(a->type == 4 && a->config == 0x1cd && a->config1 == 50 && a->precise_ip == 2);
	ck_assert_uint_eq(a->sample_type, WEIGHT_X86);
	ck_assert(a->freq && a->sample_freq == 4000 && a->exclude_guest);
	ck_assert(!ev.evsel[0].has_leader);
	ck_assert_str_eq(ev.evsel[0].name, "cpu/mem-loads,ldlat=50/ppH");
	ck_assert_ptr_nonnull(strstr(src.ev[0].why,
				     "sysfs alias cpu/events/mem-loads "
				     "(event=0xcd,umask=0x1,ldlat=3): no entry of "));
	ck_assert_ptr_nonnull(strstr(src.ev[0].why, "matches this CPU (GenuineIntel-6-1)"));
	evlist__free(&ev);
	source__free(&src);

	/* a fixed period keeps large PEBS off with a wakeup per sample */
	o.ldlat = 0;
	o.period = 1000;
	ck_assert_int_eq(resolve(&o, &src, &ev, notice, &err), 0);
	a = &ev.evsel[0].attr;
	ck_assert_uint_eq(a->config1, t.ldlat);
	ck_assert(!a->freq && a->sample_period == 1000 && a->wakeup_events == 1 && !a->watermark);
	evlist__free(&ev);
	source__free(&src);

	o.ldlat = 0x10000;
	o.period = 0;
	ck_assert_int_eq(resolve(&o, &src, &ev, notice, &err), -ERANGE);
	ck_assert_str_eq(err.msg,
			 "--ldlat 65536 does not fit cpu's ldlat field (16 bits: config1:0-15)");
	evlist__free(&ev);
	source__free(&src);

	/* Sapphire Rapids without an entry: the kernel's mem-loads-aux leads */
	o.ldlat = 0;
	machine("sapphire-rapids", "GenuineIntel-6-01");
	ck_assert_int_eq(resolve(&o, &src, &ev, notice, &err), 0);
	ck_assert(ev.evsel[0].has_leader && ev.evsel[0].leader.config == 0x8203);
	ck_assert_str_eq(ev.evsel[0].leader_name, "cpu/mem-loads-aux/H");
	evlist__free(&ev);
	source__free(&src);

	/* not x86: latency in weight.full (PERF_SAMPLE_WEIGHT) */
	machine("skylake", "0x00000000410fd0c0");
	ck_assert_int_eq(resolve(&o, &src, &ev, notice, &err), 0);
	ck_assert(!src.weight_struct);
	ck_assert_uint_eq(ev.evsel[0].attr.sample_type,
			  PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT);
	evlist__free(&ev);
	source__free(&src);
	machine_reset();
	evtable__free(&t);
}
END_TEST

/*
 * ldlat-top's sample_ip: every sampling event of every path asks for
 * PERF_SAMPLE_IP besides its own fields, a counting group leader does not.
 */
static const struct {
	const char *sysfs, *cpu, *event;
	enum source_kind kind;
	__u64 fields; /* the sample_type without sample_ip */
} ip_cases[] = {
	{ "skylake-sp", "GenuineIntel-6-55-4", NULL, SOURCE_LDLAT, WEIGHT_X86 }, /* tools.conf */
	{ "alderlake", "GenuineIntel-6-97", NULL, SOURCE_LDLAT, WEIGHT_X86 },	 /* both cores */
	{ "skylake", "GenuineIntel-6-01", NULL, SOURCE_LDLAT, WEIGHT_X86 },	 /* the alias */
	{ "sapphire-rapids", "GenuineIntel-6-8F", "{cpu/mem-loads-aux/,cpu/mem-loads,ldlat=64/}:pp",
	  SOURCE_LDLAT, WEIGHT_X86 }, /* --event, a group */
	{ "skylake", "0x00000000410fd0c0", NULL, SOURCE_LDLAT,
	  PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT },
	{ "vm", "GenuineIntel-6-CF,hypervisor", NULL, SOURCE_AUTO,
	  PERF_SAMPLE_ADDR }, /* fallback */
	{ "skylake-sp", "GenuineIntel-6-55-4", NULL, SOURCE_PAGE_FAULTS, PERF_SAMPLE_ADDR },
};

START_TEST(test_sample_ip)
{
	struct evtable t;
	struct source_opts o = { .kind = ip_cases[_i].kind, .event = ip_cases[_i].event };
	struct evlist ev = {};
	struct source src;
	struct err err = {};
	char notice[2048];
	int i, on;

	ck_assert_int_eq(evtable__load(&t, tools_conf(), &err), 0);
	o.table = &t;
	machine(ip_cases[_i].sysfs, ip_cases[_i].cpu);
	/* bit 0: sample_ip; bit 1: callchain, which the load-latency events take (precise) */
	for (on = 0; on < 4; on++) {
		__u64 chain = (on & 2) && (ip_cases[_i].fields & PERF_SAMPLE_DATA_SRC)
				      ? PERF_SAMPLE_CALLCHAIN
				      : 0;

		o.sample_ip = on & 1;
		o.callchain = on & 2;
		ck_assert_msg(resolve(&o, &src, &ev, notice, &err) == 0, "%s", err.msg);
		ck_assert_int_ge(ev.nevsel, 1);
		for (i = 0; i < ev.nevsel; i++) {
			ck_assert_uint_eq(ev.evsel[i].attr.sample_type,
					  ip_cases[_i].fields | ((on & 1) ? PERF_SAMPLE_IP : 0) |
						  chain);
			ck_assert(!ev.evsel[i].has_leader || !ev.evsel[i].leader.sample_type);
		}
		evlist__free(&ev);
		source__free(&src);
	}
	machine_reset();
	evtable__free(&t);
}
END_TEST

/* Thresholds and precise levels checked before perf_event_open. */
START_TEST(test_validation)
{
	struct evtable t;
	struct source_opts o = { .kind = SOURCE_LDLAT };
	struct evlist ev = {};
	struct source src;
	struct err err = {};
	char notice[2048], want[1024];

	ck_assert_int_eq(evtable__load(&t, tools_conf(), &err), 0);
	o.table = &t;
	machine("skylake-sp", "GenuineIntel-6-55");
	o.ldlat = 1; /* below Intel's minimum: raised, with a notice */
	ck_assert_int_eq(resolve(&o, &src, &ev, notice, &err), 0);
	ck_assert_uint_eq(ev.evsel[0].attr.config1, 3);
	snprintf(want, sizeof(want),
		 "--ldlat 1 raised to 3 cycles, the hardware's minimum (%s:", t.path);
	ck_assert_msg(strstr(notice, want), "%s", notice);
	evlist__free(&ev);
	source__free(&src);
	o.ldlat = 3; /* the minimum itself, and the maximum: taken as they are */
	notice[0] = '\0';
	ck_assert_int_eq(resolve(&o, &src, &ev, notice, &err), 0);
	ck_assert_uint_eq(ev.evsel[0].attr.config1, 3);
	ck_assert_msg(!strstr(notice, "raised"), "%s", notice);
	evlist__free(&ev);
	source__free(&src);
	o.ldlat = 65535;
	ck_assert_int_eq(resolve(&o, &src, &ev, notice, &err), 0);
	ck_assert_uint_eq(ev.evsel[0].attr.config1, 65535);
	evlist__free(&ev);
	source__free(&src);
	o.ldlat = 65536; /* above the table's range */
	ck_assert_int_eq(resolve(&o, &src, &ev, notice, &err), -ERANGE);
	ck_assert_ptr_nonnull(strstr(err.msg,
				     "--ldlat 65536 is above the hardware's maximum of 65535 "
				     "cycles ("));
	ck_assert_ptr_nonnull(strstr(err.msg, " [skylake-server])"));
	evlist__free(&ev);
	source__free(&src);

	/* Zen 5: 128-2048, compared in steps of 128 */
	machine("zen5", "AuthenticAMD-26-11");
	o.ldlat = 200;
	ck_assert_int_eq(resolve(&o, &src, &ev, notice, &err), 0);
	ck_assert_uint_eq(ev.evsel[0].attr.config1, 200);
	ck_assert_str_eq(notice, "--ldlat 200: the hardware compares the threshold in steps of 128 "
				 "cycles (it interrupts from 128); the kernel drops the samples up "
				 "to 200 cycles");
	evlist__free(&ev);
	source__free(&src);
	o.ldlat = 100;
	ck_assert_int_eq(resolve(&o, &src, &ev, notice, &err), 0);
	ck_assert_uint_eq(ev.evsel[0].attr.config1, 128);
	evlist__free(&ev);
	source__free(&src);
	o.ldlat = 2049;
	ck_assert_int_eq(resolve(&o, &src, &ev, notice, &err), -ERANGE);
	ck_assert_ptr_nonnull(
		strstr(err.msg, "--ldlat 2049 is above the hardware's maximum of 2048"));
	evlist__free(&ev);
	source__free(&src);

	/* Zen 4: no threshold at all */
	machine("zen4", "AuthenticAMD-25-11");
	o.ldlat = 200;
	ck_assert_int_eq(resolve(&o, &src, &ev, notice, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "--ldlat 200: "));
	ck_assert_ptr_nonnull(strstr(err.msg,
				     "[amd-zen] event 'ibs_op//' has no hardware latency "
				     "threshold; keep the loads of 200 cycles and more with "
				     "--min-lat 200 instead (filtered in BPF)"));
	evlist__free(&ev);
	source__free(&src);

	/* --event: as written; -L sets its ldlat term; the table's range still applies */
	machine("skylake-sp", "GenuineIntel-6-55");
	o.ldlat = 2;
	o.event = "cpu/mem-loads/P";
	ck_assert_int_eq(resolve(&o, &src, &ev, notice, &err), 0);
	ck_assert_uint_eq(ev.evsel[0].attr.config1, 3);
	ck_assert_uint_eq(ev.evsel[0].attr.precise_ip, 3);
	ck_assert_ptr_nonnull(strstr(src.ev[0].why, "--event cpu/mem-loads/P"));
	evlist__free(&ev);
	source__free(&src);
	o.event = "cpu/mem-loads,ldlat=9/";
	ck_assert_int_eq(resolve(&o, &src, &ev, notice, &err), -EINVAL);
	ck_assert_str_eq(err.msg,
			 "--ldlat 2 and the ldlat term of --event 'cpu/mem-loads,ldlat=9/' "
			 "both set the threshold: give one of them");
	evlist__free(&ev);
	source__free(&src);
	o.ldlat = 0;
	o.event = "cpu/evnt=1/";
	ck_assert_int_eq(resolve(&o, &src, &ev, notice, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "--event 'cpu/evnt=1/': unknown term 'evnt'"));
	evlist__free(&ev);
	source__free(&src);
	o.event = "{a/b/,c/d/,e/f/}";
	ck_assert_int_eq(resolve(&o, &src, &ev, notice, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "give one event, or a group of two"));
	evlist__free(&ev);
	source__free(&src);
	machine_reset();
	evtable__free(&t);
}
END_TEST

/*
 * --event without an ldlat term or a precise modifier, on a load-latency
 * event (the table's, or the PMU's mem-loads alias; a raw r1cd as well): the
 * [defaults] threshold and the table's precise level, each with a notice.
 * What the spec writes stays; an ldlat=0 it writes is raised to the minimum;
 * another event of the same PMU gets neither.
 */
static const struct {
	const char *sysfs, *cpu, *event;
	__u64 ldlat; /* -L */
	__u64 config1;
	int precise;
	const char *notice; /* "": none */
} option_cases[] = {
	{ "skylake-sp", "GenuineIntel-6-55", "cpu/event=0xcd,umask=0x1/", 0, 30, 2,
	  "--event 'cpu/event=0xcd,umask=0x1/': no ldlat term; the default threshold 30 (" },
	{ "skylake-sp", "GenuineIntel-6-55", "cpu/event=0xcd,umask=0x1/", 0, 30, 2,
	  "--event 'cpu/event=0xcd,umask=0x1/': precise level 2 (pp) applied: a load-latency "
	  "event sampled without it carries no data address, latency or data source" },
	{ "skylake-sp", "GenuineIntel-6-55", "cpu/event=0xcd,umask=0x1/pp", 0, 30, 2,
	  "no ldlat term; the default threshold 30" },
	{ "skylake-sp", "GenuineIntel-6-55", "cpu/mem-loads/", 0, 30, 2,
	  "--event 'cpu/mem-loads/': its alias sets ldlat=3; the default threshold 30 (" },
	{ "skylake-sp", "GenuineIntel-6-55", "r1cd", 0, 30, 2, "--event 'r1cd': no ldlat term" },
	{ "skylake-sp", "GenuineIntel-6-55", "cpu/event=0xcd,umask=0x1/p", 64, 64, 1, "" },
	{ "skylake-sp", "GenuineIntel-6-55", "cpu/event=0xcd,umask=0x1,ldlat=40/pp", 0, 40, 2, "" },
	{ "skylake-sp", "GenuineIntel-6-55", "cpu/event=0xcd,umask=0x1,ldlat=0/P", 0, 3, 3,
	  "the threshold 0 of --event 'cpu/event=0xcd,umask=0x1,ldlat=0/P' raised to 3 cycles, "
	  "the hardware's minimum (" },
	{ "skylake-sp", "GenuineIntel-6-55", "cpu/event=0xc0/", 0, 0, 0, "" },
	{ "alderlake", "GenuineIntel-6-97", "cpu_atom/mem-loads/", 0, 30, 2,
	  "its alias sets ldlat=3; the default threshold 30" },
	{ "zen4", "AuthenticAMD-25-11", "ibs_op//", 0, 0, 0, "" },
};

START_TEST(test_option_defaults)
{
	struct evtable t;
	struct source_opts o = { .kind = SOURCE_LDLAT,
				 .event = option_cases[_i].event,
				 .ldlat = option_cases[_i].ldlat };
	struct evlist ev = {};
	struct source src;
	struct err err = {};
	char notice[2048];

	ck_assert_int_eq(evtable__load(&t, tools_conf(), &err), 0);
	o.table = &t;
	machine(option_cases[_i].sysfs, option_cases[_i].cpu);
	ck_assert_msg(resolve(&o, &src, &ev, notice, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(ev.evsel[0].attr.config1, option_cases[_i].config1);
	ck_assert_int_eq(ev.evsel[0].attr.precise_ip, option_cases[_i].precise);
	if (option_cases[_i].notice[0])
		ck_assert_msg(strstr(notice, option_cases[_i].notice), "%s", notice);
	else
		ck_assert_msg(!notice[0], "%s", notice);
	evlist__free(&ev);
	source__free(&src);
	machine_reset();
	evtable__free(&t);
}
END_TEST

/*
 * AMD IBS op periods (Zen 4): a multiple of 16 and at least 0x90, checked
 * before perf_event_open; -c or the event's period= term named.  Frequency
 * mode is the kernel's to calibrate.
 */
START_TEST(test_ibs_period)
{
	static const struct {
		__u64 period;
		const char *event, *err; /* err NULL: accepted */
	} cases[] = {
		{ 1000, NULL,
		  "-c 1000: AMD IBS op sampling takes a period that is a multiple of 16 "
		  "and at least 144 (0x90): use 992" },
		{ 16, NULL,
		  "-c 16: AMD IBS op sampling takes a period that is a multiple of 16 and "
		  "at least 144 (0x90): use 144" },
		{ 136, NULL, "-c 136: " },
		{ 144, NULL, NULL },
		{ 1008, NULL, NULL },
		{ 1ull << 30, NULL, NULL }, /* wider than MaxCnt: the kernel counts it down */
		{ 0, "ibs_op/period=100/",
		  "the period 100 of --event 'ibs_op/period=100/': AMD IBS" },
		{ 0, "ibs_op/period=160/", NULL },
		{ 0, "ibs_op/freq=999/", NULL },
	};
	struct evtable t;
	struct source_opts o = { .kind = SOURCE_LDLAT };
	struct evlist ev = {};
	struct source src;
	struct err err = {};
	char notice[2048];
	unsigned int i;

	ck_assert_int_eq(evtable__load(&t, tools_conf(), &err), 0);
	o.table = &t;
	machine("zen4", "AuthenticAMD-25-11");
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		o.period = cases[i].period;
		o.event = cases[i].event;
		if (!cases[i].err) {
			ck_assert_msg(resolve(&o, &src, &ev, notice, &err) == 0, "%u: %s", i,
				      err.msg);
			ck_assert(ev.evsel[0].attr.freq ||
				  ev.evsel[0].attr.sample_period == cases[i].period ||
				  (!cases[i].period && ev.evsel[0].attr.sample_period == 160));
		} else {
			ck_assert_int_eq(resolve(&o, &src, &ev, notice, &err), -EINVAL);
			ck_assert_msg(strstr(err.msg, cases[i].err), "%u: %s", i, err.msg);
		}
		evlist__free(&ev);
		source__free(&src);
	}
	/* not IBS: any period */
	machine("skylake-sp", "GenuineIntel-6-55");
	o.event = NULL;
	o.period = 1001;
	ck_assert_int_eq(resolve(&o, &src, &ev, notice, &err), 0);
	evlist__free(&ev);
	source__free(&src);
	machine_reset();
	evtable__free(&t);
}
END_TEST

/* --event precise levels above what the PMU offers. */
START_TEST(test_option_precise_cap)
{
	struct evtable t;
	struct source_opts o = { .kind = SOURCE_LDLAT };
	struct evlist ev = {};
	struct source src;
	struct err err = {};
	char notice[2048];

	ck_assert_int_eq(evtable__load(&t, tools_conf(), &err), 0);
	o.table = &t;
	o.event = "cpu/event=0xc0/ppp";
	machine("nehalem", "GenuineIntel-6-1A");
	ck_assert_int_eq(resolve(&o, &src, &ev, notice, &err), 0);
	ck_assert_uint_eq(ev.evsel[0].attr.precise_ip, 2);
	ck_assert_ptr_nonnull(strstr(notice, "precise level 3 lowered to 2"));
	evlist__free(&ev);
	source__free(&src);
	/* a group of two: the first leads (counting), the second samples */
	machine("sapphire-rapids", "GenuineIntel-6-8F");
	o.event = "{cpu/mem-loads-aux/,cpu/mem-loads,ldlat=64/}:pp";
	ck_assert_int_eq(resolve(&o, &src, &ev, notice, &err), 0);
	ck_assert(ev.evsel[0].has_leader && ev.evsel[0].leader.config == 0x8203 &&
		  !ev.evsel[0].leader.precise_ip);
	ck_assert(ev.evsel[0].attr.config1 == 64 && ev.evsel[0].attr.precise_ip == 2);
	evlist__free(&ev);
	source__free(&src);
	machine_reset();
	evtable__free(&t);
}
END_TEST

/*
 * Raises or lowers CAP_SYS_ADMIN and CAP_PERFMON in this process's effective
 * set, as far as its permitted set allows; returns whether caps__perfmon()
 * now answers on.
 */
static bool perfmon_effective(bool on)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
	__u32 admin = 1u << CAP_SYS_ADMIN, perfmon = 1u << (CAP_PERFMON - 32);

	if (!syscall(SYS_capget, &hdr, data)) {
		data[0].effective = on ? data[0].effective | (data[0].permitted & admin)
				       : data[0].effective & ~admin;
		data[1].effective = on ? data[1].effective | (data[1].permitted & perfmon)
				       : data[1].effective & ~perfmon;
		syscall(SYS_capset, &hdr, data);
	}
	return caps__perfmon() == on;
}

/* A failed perf_event_open, in a sentence that says what to change. */
START_TEST(test_open_errors)
{
	static const struct {
		int err;
		unsigned int precise;
		const char *name, *want;
	} cases[] = {
		{ EACCES, 0, "cpu/x/", "Run as root, or give the tool CAP_PERFMON and CAP_BPF" },
		{ ENOENT, 0, "cpu/x/", "this kernel knows no PMU of type 4 with config 0x1cd" },
		{ EOPNOTSUPP, 3, "cpu/x/", "cannot sample this event at precise level 3" },
		{ EOPNOTSUPP, 0, "cpu/x/", "The PMU cannot sample this way on this CPU" },
		{ ENODATA, 2, "cpu/x/",
		  "add 'leader = PMU/event=0x03,umask=0x82/' to the tools.conf" },
		{ EBUSY, 2, "cpu/x/", "the counter is busy" },
		{ EINVAL, 3, "cpu/x/", "Precise level 3 (ppp) keeps an event on counter 0" },
		{ EINVAL, 0, "ibs_op//H", "AMD IBS samples every privilege level" },
		{ EINVAL, 2, "cpu/x/",
		  "check the threshold (config1 0x1e), the precise level (2)" },
	};
	struct evsel ev = {};
	struct err err = {};
	unsigned int i;
	bool had = caps__perfmon();

	/* without the capabilities, EACCES is a privilege to grant */
	ck_assert(perfmon_effective(false));
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		memset(&ev, 0, sizeof(ev));
		ev.attr.type = 4;
		ev.attr.config = 0x1cd;
		ev.attr.config1 = 30;
		ev.attr.precise_ip = cases[i].precise;
		ev.attr.exclude_guest = 1;
		snprintf(ev.name, sizeof(ev.name), "%s", cases[i].name);
		evsel__strerror(&ev, cases[i].err, 3, -1, &err);
		ck_assert_msg(strstr(err.msg, cases[i].want), "%d: %s", cases[i].err, err.msg);
		ck_assert_msg(strstr(err.msg, "on CPU 3"), "%s", err.msg);
	}
	/* with them (as root), a security policy's veto */
	if (perfmon_effective(true)) {
		evsel__strerror(&ev, EACCES, 3, -1, &err);
		ck_assert_msg(strstr(err.msg,
				     "though this process holds CAP_PERFMON or CAP_SYS_ADMIN: "
				     "a security policy refused it"),
			      "%s", err.msg);
	}
	perfmon_effective(had);
}
END_TEST

/* ldlat-hist --list-events on fixtures, and its errors (the binary, as a user runs it). */
START_TEST(test_list_events_cli)
{
	char *argv[] = { (char *)build_path("ldlat-hist"), "--list-events", NULL, NULL, NULL };
	char *out, *err, path[256];
	FILE *f;

	machine("alderlake", "GenuineIntel-6-97");
	ck_assert_int_eq(run(argv, 10, &out, &err), 0);
	ck_assert_ptr_nonnull(strstr(out, "core types     core 0-15, atom 16-23"));
	ck_assert_ptr_nonnull(
		strstr(out, "event 1        cpu_core/event=0xcd,umask=0x1,ldlat=30/ppH"));
	ck_assert_ptr_nonnull(strstr(out, "  leader       cpu_core/event=0x03,umask=0x82/H\n"
					  "    type         4 (cpu_core)\n"
					  "    config       0x8203\n"));
	ck_assert_ptr_nonnull(
		strstr(out, "event 2        cpu_atom/event=0xd0,umask=0x5,ldlat=30/ppH\n"));
	ck_assert_ptr_nonnull(strstr(out, "  type         10 (cpu_atom)\n"
					  "  config       0x5d0\n"
					  "  config1      0x1e\n"
					  "  config2      0x0\n"
					  "  precise_ip   2\n"
					  "  exclude      guest\n"
					  "  sample_type  0x1008008 (ADDR|DATA_SRC|WEIGHT_STRUCT)\n"
					  "  sampling     4000 Hz (freq)\n"
					  "  cpus         16-23\n"
					  "  leader       none\n"));
	free(out);
	free(err);

	/* the default, auto: page faults on a machine without the event, saying why */
	machine("vm", "GenuineIntel-6-CF,hypervisor");
	ck_assert_int_eq(run(argv, 10, &out, &err), 0);
	ck_assert_ptr_nonnull(strstr(out, "source         page-faults"));
	ck_assert_ptr_nonnull(strstr(err, "ldlat-hist: no load-latency event on this machine (a "
					  "virtual machine: hypervisors rarely pass PEBS or IBS "
					  "through); sampling page faults instead"));
	free(out);
	free(err);
	argv[2] = "--source";
	argv[3] = "ldlat";
	ck_assert_int_eq(run(argv, 10, &out, &err), 1);
	ck_assert_ptr_nonnull(strstr(err, "ldlat-hist: no load-latency event on this machine"));
	ck_assert_ptr_nonnull(strstr(out, "cpu            GenuineIntel-6-CF (LDLAT_CPU), x86, "
					  "virtual machine\n"));
	free(out);
	free(err);

	/* bad input: exit 2, the input named */
	argv[2] = "--event";
	argv[3] = "cpu/umask=0x100/";
	machine("sapphire-rapids", "GenuineIntel-6-8F");
	ck_assert_int_eq(run(argv, 10, &out, &err), 2);
	ck_assert_ptr_nonnull(strstr(err, "ldlat-hist: --event 'cpu/umask=0x100/': value 0x100 of "
					  "term 'umask'"));
	free(out);
	free(err);
	snprintf(path, sizeof(path), "/tmp/ldlat-check-events-cli-%d.conf", (int)getpid());
	f = fopen(path, "w");
	fputs(DEFAULTS "[x]\ncpuid = .*\nevent = cpu/event=0x1cd/\n", f);
	fclose(f);
	argv[2] = "--config";
	argv[3] = path;
	ck_assert_int_eq(run(argv, 10, &out, &err), 2);
	ck_assert_msg(strstr(err, ":7 [x] event 'cpu/event=0x1cd/': value 0x1cd of term 'event'"),
		      "%s", err);
	free(out);
	free(err);
	f = fopen(path, "w");
	fputs(DEFAULTS "[x]\ncpuid = .*\nevent = cpu/event=0x1cd\n", f);
	fclose(f);
	ck_assert_int_eq(run(argv, 10, &out, &err), 2);
	ck_assert_ptr_nonnull(strstr(err, ":7: event: missing the closing '/'"));
	free(out);
	free(err);
	unlink(path);
	argv[3] = "/nonexistent.conf";
	ck_assert_int_eq(run(argv, 10, &out, &err), 2);
	ck_assert_ptr_nonnull(strstr(err, "--config '/nonexistent.conf': cannot read it"));
	free(out);
	free(err);
	setenv("LDLAT_CPU", "bogus", 1);
	argv[2] = NULL;
	ck_assert_int_eq(run(argv, 10, &out, &err), 2);
	ck_assert_ptr_nonnull(strstr(err, "LDLAT_CPU: CPU identity 'bogus'"));
	/* the error alone: no half report (an empty cpu line) on stdout */
	ck_assert_msg(!*out, "stdout: %s", out);
	free(out);
	free(err);
	machine_reset();
}
END_TEST

/*
 * Where --source auto falls back to page faults, its notice says
 * "--list-events says why": list-events' why of the page-fault event is
 * the reason --source ldlat gives as its error (each candidate refused:
 * the tools.conf entry, the kernel's alias), less the advice auto followed.
 * On no-pebs that reason is the fixture's caps/max_precise of 0.
 */
START_TEST(test_list_events_fallback_why)
{
	static const struct {
		const char *sysfs, *cpu, *says;
	} cases[] = {
		{ "no-pebs", "GenuineIntel-6-55-4", "cpu's caps/max_precise is 0" },
		{ "no-pebs", "GenuineIntel-6-99", "cpu's caps/max_precise is 0" },
		{ "vm", "GenuineIntel-6-CF,hypervisor", "no PMU has a mem-loads event" },
		{ "arm-spe", "0x00000000410fd0c0", "ARM SPE (arm_spe) is not supported" },
	};
	static const char *const advice[] = { " Use --source page-faults to sample",
					      ", or use --source page-faults to sample" };
	char *ldlat[] = { NULL, "list-events", "--source", "ldlat", NULL };
	char *autos[] = { NULL, "list-events", NULL };
	char *out, *err, *reason, *cut, want[4096], caps[16] = "";
	unsigned int i, t, a;
	FILE *f;

	f = fopen(fixture_path("sysfs/no-pebs/bus/event_source/devices/cpu/caps/max_precise"), "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(caps, sizeof(caps), f));
	fclose(f);
	ck_assert_str_eq(caps, "0\n");
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		machine(cases[i].sysfs, cases[i].cpu);
		ldlat[0] = (char *)build_path("ldlat-hist");
		ck_assert_int_eq(run(ldlat, 10, &out, &err), 1);
		ck_assert_msg(!strncmp(err, "ldlat-hist: ", 12), "%s", err);
		reason = strdup(err + 12);
		reason[strcspn(reason, "\n")] = '\0';
		for (a = 0; a < ARRAY_SIZE(advice); a++)
			if ((cut = strstr(reason, advice[a])))
				*cut = '\0';
		ck_assert_msg(strstr(reason, cases[i].says), "%s: %s", cases[i].sysfs, reason);
		free(out);
		free(err);
		snprintf(want, sizeof(want),
			 "  why          software event page-faults, address only: --source auto "
			 "fell back to it, as there is %s\n",
			 reason);
		for (t = 0; t < 2; t++) {
			autos[0] = (char *)build_path(t ? "ldlat-top" : "ldlat-hist");
			ck_assert_int_eq(run(autos, 10, &out, &err), 0);
			ck_assert_msg(strstr(out, want), "%s %s: want\n%s in:\n%s", autos[0],
				      cases[i].sysfs, want, out);
			ck_assert_msg(strstr(err, "--list-events says why"), "%s", err);
			free(out);
			free(err);
		}
		free(reason);
	}
	machine_reset();
}
END_TEST

/*
 * The word form, ldlat-hist list-events (and ldlat-top's), prints what
 * --list-events does, byte for byte; it takes the options that choose the
 * event and no other.
 */
START_TEST(test_list_events_word)
{
	static const char *const tools[] = { "ldlat-hist", "ldlat-top" };
	char *flag[] = { NULL, "--list-events", "--source", "auto", NULL };
	char *word[] = { NULL, "list-events", "--source", "auto", NULL };
	char *refused[] = { NULL, "list-events", "-p", "1", NULL };
	char *fout, *ferr, *out, *err, want[128];
	unsigned int i;

	machine("sapphire-rapids", "GenuineIntel-6-8F");
	for (i = 0; i < ARRAY_SIZE(tools); i++) {
		flag[0] = word[0] = refused[0] = (char *)build_path(tools[i]);
		ck_assert_int_eq(run(flag, 10, &fout, &ferr), 0);
		ck_assert_ptr_nonnull(strstr(fout, "event 1        cpu/"));
		ck_assert_int_eq(run(word, 10, &out, &err), 0);
		ck_assert_str_eq(out, fout);
		ck_assert_str_eq(err, ferr);
		free(out);
		free(err);
		free(fout);
		free(ferr);
		ck_assert_int_eq(run(refused, 10, &out, &err), 2);
		snprintf(want, sizeof(want), "%s: -p is not an option of '%s list-events'",
			 tools[i], tools[i]);
		ck_assert_msg(strstr(err, want), "want '%s' in: %s", want, err);
		ck_assert_str_eq(out, "");
		free(out);
		free(err);
	}
	machine_reset();
}
END_TEST

static Suite *events_suite(void)
{
	Suite *s = suite_create("events");
	TCase *tc;

	tc = tcase_create("evspec");
	tcase_add_test(tc, test_pmu_discovery);
	tcase_add_test(tc, test_evspec_terms);
	tcase_add_test(tc, test_evspec_split_field);
	tcase_add_test(tc, test_evspec_raw_legacy_mods);
	tcase_add_loop_test(tc, test_evspec_errors, 0, ARRAY_SIZE(bad_specs));
	suite_add_tcase(s, tc);

	tc = tcase_create("cpu");
	tcase_add_test(tc, test_cpu_id_parse);
	tcase_add_test(tc, test_cpu_id_core_types);
	suite_add_tcase(s, tc);

	tc = tcase_create("tools.conf");
	tcase_add_test(tc, test_evtable_shipped);
	tcase_add_loop_test(tc, test_evtable_errors, 0, ARRAY_SIZE(bad_tables));
	tcase_add_test(tc, test_evtable_minimal);
	tcase_add_test(tc, test_toolsconf_search);
	suite_add_tcase(s, tc);

	tc = tcase_create("machines");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_machine_golden, 0, ARRAY_SIZE(machines));
	tcase_add_test(tc, test_machine_no_event);
	tcase_add_test(tc, test_machine_no_pebs);
	tcase_add_test(tc, test_alias_path);
	tcase_add_loop_test(tc, test_sample_ip, 0, ARRAY_SIZE(ip_cases));
	tcase_add_test(tc, test_validation);
	tcase_add_test(tc, test_option_precise_cap);
	tcase_add_test(tc, test_ibs_period);
	tcase_add_loop_test(tc, test_option_defaults, 0, ARRAY_SIZE(option_cases));
	tcase_add_test(tc, test_open_errors);
	tcase_add_test(tc, test_list_events_cli);
	tcase_add_test(tc, test_list_events_fallback_why);
	tcase_add_test(tc, test_list_events_word);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(events_suite());
}
