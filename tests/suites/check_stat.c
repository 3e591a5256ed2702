// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * check_stat - ldlat-stat and the counting path: perf's event names, libpfm4
 * encodings for other models, the counter model and the group planner on
 * fixture machines (Skylake with SMT and the NMI watchdog on; Skylake with
 * SMT off; Zen 4), the scaling arithmetic and its error, the multiplexing
 * interval (a fixture copy, and the software PMU's own file), and real
 * counting runs on this machine with software events: a workload that
 * faults N pages is counted exactly N times.  The runs need root.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/lib/clicase.h"
#include "tests/lib/testutil.h"
#include "kernel/policy/counters.h"
#include "kernel/abi/counts.h"
#include "kernel/abi/evnames.h"
#include "kernel/policy/evresolve.h"
#include "kernel/abi/muxint.h"
#include "kernel/policy/muxlock.h"
#include "kernel/abi/pfm.h"
#include "kernel/policy/plan.h"
#include "user/stat/statreport.h"
#include "kernel/lib/util.h"

#define BASE "0x200000000000"

static const char *stat_tool(void)
{
	return build_path("ldlat-stat");
}

/* Points sysfs and /proc at fixtures (tests run forked: the environment is the test's own). */
static void use_fixture(const char *sysfs, const char *proc)
{
	static char s[4096], p[4096];

	snprintf(s, sizeof(s), "%s", fixture_path(sysfs));
	snprintf(p, sizeof(p), "%s/counters/%s", fixture_path(""), proc);
	setenv("LDLAT_SYSFS", s, 1);
	setenv("LDLAT_PROCFS", p, 1);
}

static void model_of(struct counter_model *m, const char *sysfs, const char *proc)
{
	struct counter_facts f;

	use_fixture(sysfs, proc);
	counter_facts__init(&f);
	counter_facts__probe(&f);
	counter_model__build(m, &f);
}

/* ---- perf's names ------------------------------------------------------- */

START_TEST(test_cache_names)
{
	/* perf list's names, in perf's order */
	static const char *const want[] = {
		"L1-dcache-loads",
		"L1-dcache-load-misses",
		"L1-dcache-stores",
		"L1-dcache-store-misses",
		"L1-dcache-prefetches",
		"L1-dcache-prefetch-misses",
		"L1-icache-loads",
		"L1-icache-load-misses",
		"L1-icache-prefetches",
		"L1-icache-prefetch-misses",
		"LLC-loads",
		"LLC-load-misses",
		"LLC-stores",
		"LLC-store-misses",
		"LLC-prefetches",
		"LLC-prefetch-misses",
		"dTLB-loads",
		"dTLB-load-misses",
		"dTLB-stores",
		"dTLB-store-misses",
		"dTLB-prefetches",
		"dTLB-prefetch-misses",
		"iTLB-loads",
		"iTLB-load-misses",
		"branch-loads",
		"branch-load-misses",
		"node-loads",
		"node-load-misses",
		"node-stores",
		"node-store-misses",
		"node-prefetches",
		"node-prefetch-misses",
	};
	struct perf_event_attr a;
	struct err err = {};
	char name[64], canon[64];
	__u64 configs[64];
	int n = evname__cache_all(configs, 64), i;

	ck_assert_int_eq(n, 32);
	for (i = 0; i < n; i++) {
		ck_assert(evname__name(PERF_TYPE_HW_CACHE, configs[i], name, sizeof(name)));
		ck_assert_str_eq(name, want[i]);
		memset(&a, 0, sizeof(a));
		ck_assert_int_eq(evname__lookup(want[i], &a, canon, sizeof(canon), &err), 0);
		ck_assert_int_eq(a.type, PERF_TYPE_HW_CACHE);
		ck_assert_uint_eq(a.config, configs[i]);
		ck_assert_str_eq(canon, want[i]);
	}
}
END_TEST

static const struct {
	const char *name;
	__u32 type;
	__u64 config;
	const char *canon;
} aliases[] = {
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cycles" },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "branches" },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
	  "branches" },
	{ "idle-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND,
	  "stalled-cycles-backend" },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, "ref-cycles" },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "context-switches" },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "page-faults" },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, "minor-faults" },
	{ "L1-data-load-miss", PERF_TYPE_HW_CACHE, 0x10000, "L1-dcache-load-misses" },
	{ "l1d-loads", PERF_TYPE_HW_CACHE, 0x0, "L1-dcache-loads" },
	{ "llc-LOADS", PERF_TYPE_HW_CACHE, 0x2, "LLC-loads" },
	{ "LLC-misses", PERF_TYPE_HW_CACHE, 0x10002, "LLC-load-misses" },
	{ "L2-stores", PERF_TYPE_HW_CACHE, 0x102, "LLC-stores" },
	{ "LLC-misses-store", PERF_TYPE_HW_CACHE, 0x10102, "LLC-store-misses" },
	{ "Data-TLB-store-misses", PERF_TYPE_HW_CACHE, 0x10103, "dTLB-store-misses" },
	{ "L1-dcache-speculative-read-miss", PERF_TYPE_HW_CACHE, 0x10200,
	  "L1-dcache-prefetch-misses" },
	{ "branch-loads", PERF_TYPE_HW_CACHE, 0x5, "branch-loads" },
	{ "node", PERF_TYPE_HW_CACHE, 0x6, "node-loads" },
};

START_TEST(test_name_aliases)
{
	struct perf_event_attr a = {};
	struct err err = {};
	char canon[64];

	ck_assert_msg(evname__lookup(aliases[_i].name, &a, canon, sizeof(canon), &err) == 0,
		      "%s: %s", aliases[_i].name, err.msg);
	ck_assert_int_eq(a.type, aliases[_i].type);
	ck_assert_uint_eq(a.config, aliases[_i].config);
	ck_assert_str_eq(canon, aliases[_i].canon);
}
END_TEST

START_TEST(test_name_errors)
{
	struct perf_event_attr a = {};
	struct err err = {};
	char canon[64];

	/* ops the kernel does not define for that cache */
	ck_assert_int_eq(evname__lookup("L1-icache-stores", &a, canon, sizeof(canon), &err),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "'L1-icache-stores'"));
	ck_assert_ptr_nonnull(strstr(err.msg, "no store operation for the L1-icache cache"));
	ck_assert_int_eq(evname__lookup("iTLB-prefetches", &a, canon, sizeof(canon), &err),
			 -EINVAL);
	ck_assert_int_eq(evname__lookup("branch-store-misses", &a, canon, sizeof(canon), &err),
			 -EINVAL);
	/* not names of this kind at all */
	ck_assert_int_eq(evname__lookup("LLC-loads-loads", &a, canon, sizeof(canon), &err),
			 -ENOENT);
	ck_assert_int_eq(
		evname__lookup("MEM_INST_RETIRED:ALL_LOADS", &a, canon, sizeof(canon), &err),
		-ENOENT);
	ck_assert_int_eq(evname__lookup("L1-dcachex", &a, canon, sizeof(canon), &err), -ENOENT);
}
END_TEST

/* ---- libpfm4 ---------------------------------------------------------- */

/*
 * Encodings for Skylake from Intel's event tables (SDM vol. 3B, 19.3; the
 * perfmon JSON): MEM_INST_RETIRED.ALL_LOADS event 0xD0 umask 0x81;
 * LONGEST_LAT_CACHE.MISS 0x2E/0x41; OFFCORE_RESPONSE_0 0xB7/0x01 with the
 * request and response bits in MSR_OFFCORE_RSP_0 (config1): demand data
 * read (bit 0), L3 miss to local DRAM with any snoop (bits 26, 31-37).
 * AMD Zen 4: LS_DISPATCH 0x29, umask LD_DISPATCH 0x01 (the PPR).
 */
START_TEST(test_pfm_skylake)
{
	struct pfm_encoding enc;
	struct err err = {};

	setenv("LIBPFM_FORCE_PMU", "skl", 1);
	ck_assert_msg(pfm__encode("MEM_INST_RETIRED:ALL_LOADS", &enc, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(enc.type, PERF_TYPE_RAW);
	ck_assert_uint_eq(enc.config & 0xffff, 0x81d0);
	ck_assert_str_eq(enc.pmu, "skl");
	ck_assert(enc.core);
	ck_assert_int_eq(enc.pmu_fixed, 3);
	ck_assert_msg(pfm__encode("LONGEST_LAT_CACHE:MISS", &enc, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(enc.config & 0xffff, 0x412e);
	ck_assert_msg(pfm__encode("OFFCORE_RESPONSE_0:DMND_DATA_RD:L3_MISS_LOCAL", &enc, &err) == 0,
		      "%s", err.msg);
	ck_assert_uint_eq(enc.config & 0xffff, 0x01b7);
	ck_assert_uint_eq(enc.config1, 0x3f84000001ull);
	ck_assert_ptr_nonnull(strstr(enc.fqname, "skl::OFFCORE_RESPONSE_0:DMND_DATA_RD"));
}
END_TEST

START_TEST(test_pfm_zen4)
{
	struct pfm_encoding enc;
	struct err err = {};

	setenv("LIBPFM_FORCE_PMU", "amd64_fam19h_zen4", 1);
	ck_assert_msg(pfm__encode("LS_DISPATCH:LD_DISPATCH", &enc, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(enc.type, PERF_TYPE_RAW);
	ck_assert_uint_eq(enc.config & 0xffff, 0x0129);
	ck_assert_int_eq(enc.pmu_counters, 6);
	ck_assert_int_eq(enc.pmu_fixed, 0);
}
END_TEST

START_TEST(test_pfm_errors)
{
	struct pfm_encoding enc;
	struct err err = {};

	setenv("LIBPFM_FORCE_PMU", "skl", 1);
	ck_assert_int_eq(pfm__encode("NO_SUCH_EVENT:ANY", &enc, &err), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err.msg, "'NO_SUCH_EVENT:ANY'"));
	ck_assert_ptr_nonnull(strstr(err.msg, "skl"));
	ck_assert_ptr_nonnull(strstr(err.msg, "LIBPFM_FORCE_PMU"));
	ck_assert_int_eq(pfm__encode("MEM_INST_RETIRED:NO_SUCH_UMASK", &enc, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "'MEM_INST_RETIRED:NO_SUCH_UMASK'"));
}
END_TEST

START_TEST(test_count_specs)
{
	struct count_spec *s = NULL;
	struct err err = {};
	int n = 0;

	setenv("LIBPFM_FORCE_PMU", "skl", 1);
	ck_assert_int_eq(count_specs__parse("cycles,LLC-load-misses,page-faults", &s, &n, &err), 0);
	ck_assert_int_eq(count_specs__parse("MEM_INST_RETIRED:ALL_LOADS", &s, &n, &err), 0);
	ck_assert_int_eq(n, 4);
	ck_assert_int_eq(s[0].attr.type, PERF_TYPE_HARDWARE);
	ck_assert_int_eq(s[1].attr.type, PERF_TYPE_HW_CACHE);
	ck_assert_int_eq(s[2].attr.type, PERF_TYPE_SOFTWARE);
	ck_assert_int_eq(s[3].attr.type, PERF_TYPE_RAW);
	ck_assert_str_eq(s[3].name, "MEM_INST_RETIRED:ALL_LOADS");
	ck_assert_ptr_nonnull(strstr(s[3].pfm, "skl::MEM_INST_RETIRED:ALL_LOADS"));
	/* a bad list adds nothing */
	ck_assert_int_eq(count_specs__parse("cycles,bogus-event", &s, &n, &err), -EINVAL);
	ck_assert_int_eq(n, 4);
	ck_assert_ptr_nonnull(strstr(err.msg, "unknown event 'bogus-event'"));
	ck_assert_int_eq(count_specs__parse("", &s, &n, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "empty event list"));
	ck_assert_int_eq(count_specs__parse(",", &s, &n, &err), -EINVAL);
	ck_assert_int_eq(count_specs__add_all_cache(&s, &n), 0);
	ck_assert_int_eq(n, 36);
	free(s);
}
END_TEST

/* ---- the counter model ---------------------------------------------------- */

START_TEST(test_model_skylake_smt_watchdog)
{
	struct counter_model m;

	model_of(&m, "counters/skylake-smt-on", "proc-watchdog-on");
	ck_assert(m.has_pmu);
	ck_assert_int_eq(m.vendor, CPU_VENDOR_INTEL);
	ck_assert_str_eq(m.label, "Skylake");
	ck_assert_int_eq(m.gp_hw, 4);
	ck_assert_int_eq(m.gp, 3);
	ck_assert_int_eq(m.fixed, 3);
	ck_assert_int_eq(m.offcore, 2);
	ck_assert(m.watchdog);
	ck_assert_int_eq(m.nwhy, 3);
	ck_assert_ptr_nonnull(strstr(m.why[0], "SMT on"));
	ck_assert_ptr_nonnull(strstr(m.why[2], "NMI watchdog on"));
}
END_TEST

START_TEST(test_model_skylake_smt_off)
{
	struct counter_model m;

	model_of(&m, "counters/skylake-smt-off", "proc-watchdog-off");
	ck_assert_int_eq(m.gp_hw, 8);
	ck_assert_int_eq(m.gp, 8);
	ck_assert(!m.watchdog);
	ck_assert_ptr_nonnull(strstr(m.why[0], "SMT off in the firmware"));
	/* with the watchdog on, one fewer */
	model_of(&m, "counters/skylake-smt-off", "proc-watchdog-on");
	ck_assert_int_eq(m.gp, 7);
}
END_TEST

START_TEST(test_model_zen4)
{
	struct counter_model m;

	model_of(&m, "counters/zen4", "proc-watchdog-off");
	ck_assert_int_eq(m.vendor, CPU_VENDOR_AMD);
	ck_assert_int_eq(m.gp_hw, 6);
	ck_assert_int_eq(m.gp, 6);
	ck_assert_int_eq(m.fixed, 0);
	ck_assert_int_eq(m.offcore, 0);
	ck_assert_ptr_nonnull(strstr(m.label, "Zen 4"));
}
END_TEST

static char *run_plan(const char *cpu, const char *sysfs, const char *proc, char *const extra[],
		      int want_rc, char **err)
{
	char *argv[16] = { (char *)stat_tool(), "--plan" }, *out;
	int n = 2, rc;

	while (extra && *extra)
		argv[n++] = *extra++;
	argv[n] = NULL;
	use_fixture(sysfs, proc);
	if (cpu)
		setenv("LDLAT_CPU", cpu, 1);
	else
		unsetenv("LDLAT_CPU");
	rc = run(argv, 30, &out, err);
	ck_assert_msg(rc == want_rc, "exit %d (want %d): %s\n%s", rc, want_rc, out, *err);
	return out;
}

/* The CPU's identity (LDLAT_CPU) names the family; the PMU wins when they disagree. */
START_TEST(test_model_identity)
{
	char *extra[] = { "-e", "cycles", NULL }, *out, *err;

	out = run_plan("AuthenticAMD-25-11", "counters/zen4", "proc-watchdog-off", extra, 0, &err);
	ck_assert_msg(strstr(out, "AMD Zen 4 or later (family 19h)"), "%s", out);
	ck_assert_ptr_nonnull(strstr(out, "AuthenticAMD-25-11, LDLAT_CPU"));
	free(out);
	free(err);
	out = run_plan("GenuineIntel-6-55", "counters/zen4", "proc-watchdog-off", extra, 0, &err);
	ck_assert_msg(strstr(out, "not the CPU identity GenuineIntel-6-55"), "%s", out);
	ck_assert_ptr_nonnull(strstr(out, "6 general-purpose counters per group"));
	free(out);
	free(err);
	out = run_plan("nonsense", "counters/zen4", "proc-watchdog-off", extra, 2, &err);
	ck_assert_msg(strstr(err, "ldlat-stat: LDLAT_CPU: CPU identity 'nonsense'"), "%s", err);
	free(out);
	free(err);
}
END_TEST

/* tools.conf's counters keys for this CPU's entry override the model. */
START_TEST(test_model_toolsconf)
{
	char path[128], cmd[512], *out, *err;
	char *extra[] = { "--config", path, "--all-cache", NULL };

	snprintf(path, sizeof(path), "/tmp/ldlat-stat-conf-%d", getpid());
	/* the repository's table, with counters for the Skylake client entry */
	snprintf(cmd, sizeof(cmd),
		 "sed '/^\\[skylake-client\\]/a counters = 2\\nfixed-counters = 0\\n"
		 "offcore-registers = 1' %s > %s",
		 fixture_path("../../tools.conf"), path);
	ck_assert_int_eq(system(cmd), 0);
	out = run_plan("GenuineIntel-6-5E", "counters/skylake-smt-on", "proc-watchdog-off", extra,
		       0, &err);
	ck_assert_msg(strstr(out, "2 general-purpose counters per group, 0 fixed, 1 "
				  "offcore-response"),
		      "%s", out);
	ck_assert_ptr_nonnull(strstr(out, "set by [skylake-client] in "));
	free(out);
	free(err);
	/* another CPU: its entry has no counters keys, the model stands */
	out = run_plan("GenuineIntel-6-55", "counters/skylake-smt-on", "proc-watchdog-off", extra,
		       0, &err);
	ck_assert_msg(strstr(out, "4 general-purpose counters per group"), "%s", out);
	free(out);
	free(err);
	/* a malformed value: FILE:LINE, exit 2 */
	snprintf(cmd, sizeof(cmd), "sed -i 's/^counters = 2$/counters = lots/' %s", path);
	ck_assert_int_eq(system(cmd), 0);
	out = run_plan("GenuineIntel-6-5E", "counters/skylake-smt-on", "proc-watchdog-off", extra,
		       2, &err);
	ck_assert_msg(strstr(err, path) && strstr(err, "counters = 'lots'"), "%s", err);
	free(out);
	free(err);
	unlink(path);
}
END_TEST

START_TEST(test_model_facts)
{
	struct counter_facts f;
	struct counter_model m;

	/* SMT turned off at run time: the firmware still split the counters */
	counter_facts__init(&f);
	snprintf(f.core_pmu, sizeof(f.core_pmu), "cpu");
	snprintf(f.pmu_name, sizeof(f.pmu_name), "skylake");
	f.vendor = CPU_VENDOR_INTEL;
	f.smt = 0;
	snprintf(f.smt_control, sizeof(f.smt_control), "off");
	counter_model__build(&m, &f);
	ck_assert_int_eq(m.gp, 4);
	/* Ice Lake: 8 per thread whatever SMT */
	snprintf(f.pmu_name, sizeof(f.pmu_name), "icelake");
	f.smt = 1;
	counter_model__build(&m, &f);
	ck_assert_int_eq(m.gp, 8);
	ck_assert_int_eq(m.fixed, 4);
	/* CPUID leaf 0xA wins over the table */
	f.cpuid_gp = 6;
	f.cpuid_fixed = 3;
	counter_model__build(&m, &f);
	ck_assert_int_eq(m.gp, 6);
	ck_assert_int_eq(m.fixed, 3);
	ck_assert_ptr_nonnull(strstr(m.why[0], "CPUID leaf 0xA"));
	/* an override (tools.conf) wins over both, the watchdog still takes one */
	f.gp_override = 2;
	f.watchdog = 1;
	counter_model__build(&m, &f);
	ck_assert_int_eq(m.gp_hw, 2);
	ck_assert_int_eq(m.gp, 1);
	/* Sapphire Rapids' offcore events are OCR, 0x2a and 0x2b */
	counter_facts__init(&f);
	snprintf(f.core_pmu, sizeof(f.core_pmu), "cpu");
	snprintf(f.pmu_name, sizeof(f.pmu_name), "sapphire_rapids");
	f.vendor = CPU_VENDOR_INTEL;
	counter_model__build(&m, &f);
	ck_assert_int_eq(m.offcore_codes[0], 0x2a);
	ck_assert_int_eq(m.offcore_codes[1], 0x2b);
	/* no core PMU: nothing to plan with */
	model_of(&m, "sysfs/vm", "proc-watchdog-off");
	ck_assert(!m.has_pmu);
	ck_assert_ptr_nonnull(strstr(m.why[0], "no core PMU"));
}
END_TEST

START_TEST(test_needs)
{
	struct counter_model intel, amd;
	struct perf_event_attr a = {};
	struct ev_needs n;
	struct err err = {};
	char canon[64];

	model_of(&intel, "counters/skylake-smt-on", "proc-watchdog-off");
	model_of(&amd, "counters/zen4", "proc-watchdog-off");
#define NEEDS(m, name)                                                                             \
	do {                                                                                       \
		memset(&a, 0, sizeof(a));                                                          \
		ck_assert_int_eq(evname__lookup(name, &a, canon, sizeof(canon), &err), 0);         \
		counter_model__needs(&(m), &a, &n);                                                \
	} while (0)
	NEEDS(intel, "instructions");
	ck_assert_int_eq(n.kind, EV_CORE);
	ck_assert_int_eq(n.fixed, 0);
	NEEDS(intel, "cycles");
	ck_assert_int_eq(n.fixed, 1);
	ck_assert(!n.fixed_only);
	NEEDS(intel, "ref-cycles");
	ck_assert_int_eq(n.fixed, 2);
	ck_assert(n.fixed_only);
	NEEDS(intel, "LLC-load-misses");
	ck_assert(n.offcore);
	ck_assert_int_eq(n.fixed, -1);
	NEEDS(intel, "node-stores");
	ck_assert(n.offcore);
	NEEDS(intel, "L1-dcache-loads");
	ck_assert(!n.offcore);
	NEEDS(intel, "page-faults");
	ck_assert_int_eq(n.kind, EV_SOFTWARE);
	NEEDS(amd, "LLC-load-misses");
	ck_assert_int_eq(n.kind, EV_CORE);
	ck_assert(!n.offcore);
	NEEDS(amd, "cycles");
	ck_assert_int_eq(n.fixed, -1);
#undef NEEDS
	/* raw: OFFCORE_RESPONSE_0 and _1 need a register, other events do not */
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_RAW;
	a.config = 0x01bb;
	counter_model__needs(&intel, &a, &n);
	ck_assert(n.offcore);
	a.config = 0x81d0;
	counter_model__needs(&intel, &a, &n);
	ck_assert(!n.offcore);
	a.config = 0x003c; /* CPU_CLK_UNHALTED.THREAD_P: fixed counter 1 */
	counter_model__needs(&intel, &a, &n);
	ck_assert_int_eq(n.fixed, 1);
	/* the ibs_op PMU is not the core PMU */
	a.type = 11;
	counter_model__needs(&amd, &a, &n);
	ck_assert_int_eq(n.kind, EV_OTHER);
}
END_TEST

/* ---- the planner ------------------------------------------------------------ */

struct plan_case {
	const char *sysfs, *proc;
	int gp, offcore, groups;
};

/*
 * The seed's machine (Skylake, SMT and the watchdog on: 3 counters, 2
 * offcore registers) needs 16 groups: access and miss counts stay together,
 * and a pair does not fit the counter the offcore pairs leave.  With SMT off
 * (8) and on Zen 4 (6) the offcore registers, or 32 / 6, set the count.
 * Nehalem has a single offcore register: its LLC pairs are split.
 */
static const struct plan_case plan_cases[] = {
	{ "counters/skylake-smt-on", "proc-watchdog-on", 3, 2, 16 },
	{ "counters/skylake-smt-off", "proc-watchdog-off", 8, 2, 6 },
	{ "counters/zen4", "proc-watchdog-off", 6, 0, 6 },
	{ "sysfs/nehalem", "proc-watchdog-off", 4, 1, 12 },
	{ "sysfs/sapphire-rapids", "proc-watchdog-on", 7, 2, 6 },
};

/* Every HW_CACHE event (and a few more), planned on each fixture machine. */
START_TEST(test_plan_all_cache)
{
	const struct plan_case *pc = &plan_cases[_i];
	struct counter_model m;
	struct count_spec *specs = NULL;
	struct plan_input in[64];
	struct ev_needs needs;
	struct plan p;
	struct err err = {};
	int n = 0, i, j, g, seen[64] = { 0 }, ngp, noff, nfixed;
	unsigned int fixed_used;

	model_of(&m, pc->sysfs, pc->proc);
	ck_assert_int_eq(m.gp, pc->gp);
	ck_assert_int_eq(m.offcore, pc->offcore);
	ck_assert_int_eq(count_specs__add_all_cache(&specs, &n), 0);
	ck_assert_int_eq(n, 32);
	for (i = 0; i < n; i++)
		in[i] = (struct plan_input){ specs[i].name, specs[i].attr, -1 };
	ck_assert_int_eq(plan__build(&p, &m, in, n, &err), 0);
	ck_assert_int_eq(p.ngroups, pc->groups);
	for (g = 0; g < p.ngroups; g++) {
		ngp = noff = nfixed = 0;
		fixed_used = 0;
		for (j = 0; j < p.groups[g].n; j++) {
			i = p.groups[g].ev[j];
			seen[i]++;
			ck_assert_int_eq(p.group_of[i], g);
			counter_model__needs(&m, &in[i].attr, &needs);
			noff += needs.offcore;
			if (needs.fixed >= 0 && !(fixed_used & (1u << needs.fixed)))
				fixed_used |= 1u << needs.fixed, nfixed++;
			else
				ngp++;
		}
		ck_assert_msg(noff <= m.offcore, "group %d: %d offcore events, %d registers", g,
			      noff, m.offcore);
		ck_assert_msg(ngp <= m.gp, "group %d: %d general-purpose events, %d counters", g,
			      ngp, m.gp);
		ck_assert(p.groups[g].why[0]);
	}
	for (i = 0; i < n; i++)
		ck_assert_msg(seen[i] == 1, "%s is in %d groups", in[i].name, seen[i]);
	/* an access and its miss count share a group, where two offcore events fit one */
	for (i = 0; i < n; i += 2) {
		counter_model__needs(&m, &in[i].attr, &needs);
		if (needs.offcore && m.offcore < 2)
			ck_assert_int_ne(p.group_of[i], p.group_of[i + 1]);
		else
			ck_assert_msg(p.group_of[i] == p.group_of[i + 1], "%s and %s apart",
				      in[i].name, in[i + 1].name);
	}
	plan__free(&p);
	free(specs);
}
END_TEST

/* Fixed counters: instructions, cycles and ref-cycles ride along for free. */
START_TEST(test_plan_fixed_and_software)
{
	struct counter_model m;
	struct count_spec *specs = NULL;
	struct plan_input in[16];
	struct plan p;
	struct err err = {};
	int n = 0, i;

	model_of(&m, "counters/skylake-smt-on", "proc-watchdog-on");
	ck_assert_int_eq(count_specs__parse("L1-dcache-loads,L1-dcache-load-misses,dTLB-loads,"
					    "instructions,cycles,ref-cycles,page-faults,task-clock",
					    &specs, &n, &err),
			 0);
	for (i = 0; i < n; i++)
		in[i] = (struct plan_input){ specs[i].name, specs[i].attr, -1 };
	ck_assert_int_eq(plan__build(&p, &m, in, n, &err), 0);
	/* one group for the software events, one for the 6 hardware ones: 3 gp + 3 fixed */
	ck_assert_int_eq(p.ngroups, 2);
	ck_assert_int_eq(p.groups[0].kind, EV_SOFTWARE);
	ck_assert_int_eq(p.groups[0].n, 2);
	ck_assert_int_eq(p.groups[1].n, 6);
	ck_assert_int_eq(p.groups[1].gp, 3);
	ck_assert_uint_eq(p.groups[1].fixed_mask, 7);
	plan__free(&p);
	free(specs);
}
END_TEST

/* A group the user wrote is kept, or refused when it can never be scheduled. */
START_TEST(test_plan_user_groups)
{
	struct counter_model m;
	struct count_spec *specs = NULL;
	struct plan_input in[16];
	struct plan p;
	struct err err = {};
	int n = 0, i;

	model_of(&m, "counters/skylake-smt-on", "proc-watchdog-on");
	ck_assert_int_eq(count_specs__parse("LLC-loads,LLC-load-misses,node-loads,L1-dcache-loads,"
					    "L1-dcache-load-misses,dTLB-loads,dTLB-load-misses",
					    &specs, &n, &err),
			 0);
	for (i = 0; i < n; i++)
		in[i] = (struct plan_input){ specs[i].name, specs[i].attr, -1 };
	/* {LLC-loads,LLC-load-misses,node-loads}: three offcore events, two registers */
	in[0].user_group = in[1].user_group = in[2].user_group = 0;
	ck_assert_int_eq(plan__build(&p, &m, in, n, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg,
				     "group {LLC-loads,LLC-load-misses,node-loads} can never "
				     "be scheduled"));
	ck_assert_ptr_nonnull(strstr(err.msg, "3 of its events need an offcore-response register"));
	ck_assert_ptr_nonnull(strstr(err.msg, "Skylake has 2"));
	/* four general-purpose events beside the watchdog: 3 counters */
	in[0].user_group = in[1].user_group = in[2].user_group = -1;
	for (i = 3; i < 7; i++)
		in[i].user_group = 1;
	ck_assert_int_eq(plan__build(&p, &m, in, n, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "its 4 hardware events need more than the 3 "
					      "general-purpose counters"));
	ck_assert_ptr_nonnull(strstr(err.msg, "beside the NMI watchdog"));
	/* one that fits is kept as written, and the planner leaves it alone */
	in[6].user_group = -1;
	ck_assert_int_eq(plan__build(&p, &m, in, n, &err), 0);
	ck_assert(p.groups[p.group_of[3]].user);
	ck_assert_int_eq(p.groups[p.group_of[3]].n, 3);
	ck_assert_int_ne(p.group_of[6], p.group_of[3]);
	plan__free(&p);
	free(specs);
}
END_TEST

/* ---- scaling --------------------------------------------------------------- */

START_TEST(test_scaling)
{
	struct count c = { .val = 1000, .ena = 3000000, .run = 1000000 };
	struct count never = { .val = 0, .ena = 5000, .run = 0 };
	struct count always = { .val = 777, .ena = 5000, .run = 5000 };
	struct count later = { .val = 1500, .ena = 4000000, .run = 1500000 }, d;

	ck_assert_double_eq_tol(count__scaled(&c), 3000.0, 1e-9);
	ck_assert_double_eq_tol(count__running(&c), 1.0 / 3.0, 1e-12);
	ck_assert_double_eq(count__scaled(&never), 0.0);
	ck_assert_double_eq(count__running(&never), 0.0);
	ck_assert_double_eq(count__scaled(&always), 777.0);
	ck_assert_double_eq(count__running(&always), 1.0);
	/* large values: no overflow in the product */
	c = (struct count){ .val = 1ull << 62, .ena = 1ull << 40, .run = 1ull << 39 };
	ck_assert_double_eq_tol(count__scaled(&c), ldexp(1.0, 63), ldexp(1.0, 20));
	d = count__sub(&later, &(struct count){ .val = 1000, .ena = 3000000, .run = 1000000 });
	ck_assert_uint_eq(d.val, 500);
	ck_assert_uint_eq(d.ena, 1000000);
	ck_assert_uint_eq(d.run, 500000);
	ck_assert_double_eq_tol(count__scaled(&d), 1000.0, 1e-9);
}
END_TEST

START_TEST(test_scaling_error)
{
	struct count_series s = {};
	struct count t = {};
	/* three ticks, each 10 ns enabled and 5 ns running, at rates 20, 60, 40 per ns */
	static const __u64 dv[] = { 100, 300, 200 };
	int i;

	for (i = 0; i < 3; i++) {
		t.val += dv[i];
		t.ena += 10;
		t.run += 5;
		count_series__tick(&s, &t);
	}
	ck_assert_int_eq(s.k, 3);
	ck_assert_double_eq_tol(s.mean, 40.0, 1e-9);
	ck_assert_double_eq_tol(count__scaled(&t), 1200.0, 1e-9);
	/* 15 ns unseen x sd 20 / sqrt(3) */
	ck_assert_double_eq_tol(count_series__error(&s, &t), 15.0 * 20.0 / sqrt(3.0), 1e-9);
	/* a steady rate: no error even though multiplexed */
	memset(&s, 0, sizeof(s));
	memset(&t, 0, sizeof(t));
	for (i = 0; i < 4; i++) {
		t.val += 50;
		t.ena += 10;
		t.run += 5;
		count_series__tick(&s, &t);
	}
	ck_assert_double_eq_tol(count_series__error(&s, &t), 0.0, 1e-9);
	/* a tick in which the group was off the counters adds no rate */
	t.ena += 10;
	count_series__tick(&s, &t);
	ck_assert_int_eq(s.k, 4);
	/* fewer than two rates: unknown; always running: none */
	memset(&s, 0, sizeof(s));
	t = (struct count){ .val = 10, .ena = 10, .run = 5 };
	count_series__tick(&s, &t);
	ck_assert(count_series__error(&s, &t) < 0);
	t.run = 10;
	ck_assert_double_eq(count_series__error(&s, &t), 0.0);
}
END_TEST

/*
 * What a multiplexed run on hardware prints, from known counts: this VM
 * never multiplexes, so the rows are built from counts set by hand.
 */
START_TEST(test_render_scaled)
{
	struct counter_model m;
	struct count_spec *specs = NULL;
	struct counting c;
	struct stat_report r = {
		.c = &c, .mode = STAT_MULTIPLEX, .target_desc = "test", .elapsed = 2.0, .mux_ms = 4
	};
	struct stat_row rows[8];
	struct err err = {};
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int n = 0, i, g;

	model_of(&m, "counters/skylake-smt-on", "proc-watchdog-on");
	ck_assert_int_eq(count_specs__parse("{L1-dcache-loads,dTLB-loads},{L1-dcache-load-misses,"
					    "dTLB-load-misses},{LLC-loads,LLC-load-misses},"
					    "instructions",
					    &specs, &n, &err),
			 0);
	ck_assert_int_eq(counting__init(&c, specs, n, &m), 0);
	ck_assert_int_eq(counting__plan(&c, &err), 0);
	ck_assert_int_eq(c.plan.ngroups, 4);
	for (g = 0; g < c.plan.ngroups; g++)
		c.groups[g].counted = true;
	/* L1-dcache-loads: seen a third of the time in 3 readings, at rates that vary */
	for (i = 0; i < 3; i++) {
		c.ev[0].total.val += (i + 1) * 2 * 1000 / 6;
		c.ev[0].total.ena += 1000000;
		c.ev[0].total.run += 1000000 / 3;
		count_series__tick(&c.ev[0].series, &c.ev[0].total);
	}
	/* L1-dcache-load-misses, in another group: 50 of them, running half the time */
	c.ev[2].total = (struct count){ .val = 50, .ena = 3000000, .run = 1500000 };
	/* dTLB-load-misses: enabled, never on a counter */
	c.ev[3].total = (struct count){ .val = 0, .ena = 3000000, .run = 0 };
	/* LLC-loads and misses together, always running */
	c.ev[4].total = (struct count){ .val = 400, .ena = 3000000, .run = 3000000 };
	c.ev[5].total = (struct count){ .val = 100, .ena = 3000000, .run = 3000000 };
	c.ev[1].unsupported = true;
	snprintf(c.ev[1].reason, sizeof(c.ev[1].reason), "a reason");
	c.ev[6].total = (struct count){ .val = 7, .ena = 10, .run = 10 };
	stat_report__rows(&r, rows);
	ck_assert_int_eq(rows[0].state, ROW_COUNTED);
	ck_assert(rows[0].scaled);
	ck_assert_double_eq_tol(rows[0].running, 1.0 / 3.0, 1e-6);
	ck_assert_double_eq_tol(rows[0].value,
				(double)c.ev[0].total.val * (double)c.ev[0].total.ena /
					(double)c.ev[0].total.run,
				1e-6);
	ck_assert(rows[0].error > 0);
	ck_assert_double_eq_tol(rows[2].value, 100.0, 1e-9);
	ck_assert(rows[2].error < 0); /* one reading: unknown */
	ck_assert(rows[2].ratio_pct && rows[2].ratio_apart);
	ck_assert_double_eq_tol(rows[2].ratio, 100.0 / rows[0].value * 100.0, 1e-9);
	ck_assert_int_eq(rows[3].state, ROW_NOT_COUNTED);
	ck_assert_int_eq(rows[1].state, ROW_UNSUPPORTED);
	ck_assert(!rows[5].scaled && rows[5].error == 0);
	ck_assert_double_eq_tol(rows[5].ratio, 25.0, 1e-9);
	ck_assert(!rows[5].ratio_apart);
	f = open_memstream(&text, &len);
	render_stat_text(f, &r);
	fclose(f);
	ck_assert_msg(strstr(text, "(4 groups, multiplexed: the kernel rotates them every 4 ms)"),
		      "%s", text);
	ck_assert_msg(strstr(text, "(33.33%, ±"), "%s", text);
	ck_assert_msg(strstr(text, "(50.00%, error unknown)"), "%s", text);
	/* perf stat's words for a read miss of its five caches */
	ck_assert_msg(strstr(text, "of all L1-dcache accesses (other group)"), "%s", text);
	ck_assert_msg(strstr(text, "#   25.00% of all LL-cache accesses"), "%s", text);
	/* no clock counted: perf derives no rate, and neither does this */
	ck_assert_msg(!strstr(text, "/sec"), "%s", text);
	ck_assert_msg(strstr(text, "<not counted>  dTLB-load-misses"), "%s", text);
	ck_assert_msg(strstr(text, "never on a counter"), "%s", text);
	ck_assert_msg(strstr(text, "<not supported>  dTLB-loads"), "%s", text);
	ck_assert_msg(strstr(text, "is scaled by time_enabled/time_running"), "%s", text);
	free(text);
	counting__free(&c);
	free(specs);
}
END_TEST

/*
 * The derived figures of hardware events, which this VM cannot count, from
 * known counts, as perf stat 6.1 defines them (tools/perf/util/stat-shadow.c):
 * cycles over task-clock ns in GHz, instructions per cycle, branch-misses
 * of all branches, any other count per second of task-clock (K, M, G as
 * units.c's convert_unit_double), task-clock over the wall time in CPUs.
 */
START_TEST(test_render_perf_figures)
{
	struct counter_model m;
	struct count_spec *specs = NULL;
	struct counting c;
	struct stat_report r = {
		.c = &c, .mode = STAT_MULTIPLEX, .target_desc = "test", .elapsed = 4.0
	};
	struct stat_row rows[8];
	struct err err = {};
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int n = 0, i, g;
	/* task-clock 2 s of CPU in a 4 s run; 6e9 cycles; 3e9 instructions; ... */
	static const __u64 vals[] = { 2000000000ull, 6000000000ull, 3000000000ull, 500000000ull,
				      5000000ull,    1500ull,	    900ull };

	model_of(&m, "counters/skylake-smt-on", "proc-watchdog-on");
	ck_assert_int_eq(count_specs__parse("task-clock,cycles,instructions,branches,branch-misses,"
					    "page-faults,L1-dcache-store-misses",
					    &specs, &n, &err),
			 0);
	ck_assert_int_eq(counting__init(&c, specs, n, &m), 0);
	ck_assert_int_eq(counting__plan(&c, &err), 0);
	for (g = 0; g < c.plan.ngroups; g++)
		c.groups[g].counted = true;
	for (i = 0; i < n; i++)
		c.ev[i].total = (struct count){ .val = vals[i], .ena = 10, .run = 10 };
	stat_report__rows(&r, rows);
	ck_assert_str_eq(rows[0].ratio_unit, "CPUs utilized");
	ck_assert_double_eq_tol(rows[0].ratio, 0.5, 1e-12);
	ck_assert_str_eq(rows[1].ratio_unit, "GHz");
	ck_assert_double_eq_tol(rows[1].ratio, 3.0, 1e-12);
	ck_assert_str_eq(rows[2].ratio_unit, "insn per cycle");
	ck_assert_double_eq_tol(rows[2].ratio, 0.5, 1e-12);
	ck_assert_str_eq(rows[3].ratio_unit, "/sec");
	ck_assert_double_eq_tol(rows[3].ratio, 250e6, 1e-3);
	ck_assert_str_eq(rows[4].ratio_unit, "of all branches");
	ck_assert_double_eq_tol(rows[4].ratio, 1.0, 1e-12);
	ck_assert_double_eq_tol(rows[5].ratio, 750.0, 1e-9);
	/* a store miss without its accesses: no figure (perf gives none either) */
	ck_assert_str_eq(rows[6].ratio_unit, "");
	f = open_memstream(&text, &len);
	render_stat_text(f, &r);
	fclose(f);
	ck_assert_msg(strstr(text, "#    0.500 CPUs utilized"), "%s", text);
	ck_assert_msg(strstr(text, "#    3.000 GHz"), "%s", text);
	ck_assert_msg(strstr(text, "#    0.50  insn per cycle"), "%s", text);
	ck_assert_msg(strstr(text, "#  250.000 M/sec"), "%s", text);
	ck_assert_msg(strstr(text, "#    1.00% of all branches"), "%s", text);
	ck_assert_msg(strstr(text, "#  750.000 /sec"), "%s", text);
	free(text);
	text = NULL;
	f = open_memstream(&text, &len);
	render_stat_csv(f, &r);
	fclose(f);
	ck_assert_msg(strstr(text, "2000.00,msec,task-clock,10,100.00,0.500,CPUs utilized\n"), "%s",
		      text);
	ck_assert_msg(strstr(text, "\n3000000000,,instructions,10,100.00,0.50,insn per cycle\n"),
		      "%s", text);
	ck_assert_msg(strstr(text, "\n5000000,,branch-misses,10,100.00,1.00,of all branches\n"),
		      "%s", text);
	ck_assert_msg(strstr(text, "\n500000000,,branches,10,100.00,250.000,M/sec\n"), "%s", text);
	ck_assert_msg(strstr(text, "\n900,,L1-dcache-store-misses,10,100.00,,\n"), "%s", text);
	free(text);
	counting__free(&c);
	free(specs);
}
END_TEST

/* ---- the multiplexing interval, on a copy of a fixture -------------------- */

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static int read_int_file(const char *path)
{
	char buf[32] = "";
	FILE *f = fopen(path, "r");

	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), f));
	fclose(f);
	return atoi(buf);
}

static struct mux_sysfs mux;

/* A sysfs root with one PMU, 'cpu', whose interval is 4 ms. */
static void mux_fixture(void)
{
	mux_sysfs_make(&mux, "stat-mux", "cpu", NULL);
	setenv("LDLAT_SYSFS", mux.root, 1);
}

START_TEST(test_muxint_fixture)
{
	struct muxint_saved saved = {};
	struct err err = {};
	int ms;

	mux_fixture();
	ck_assert_int_eq(muxint__get("cpu", &ms), 0);
	ck_assert_int_eq(ms, 4);
	ck_assert_int_eq(muxint__set(&saved, "cpu", 10, &err), 0);
	ck_assert_int_eq(read_int_file(mux.file), 10);
	/* a second setting keeps the value from before the run */
	ck_assert_int_eq(muxint__set(&saved, "cpu", 20, &err), 0);
	ck_assert_int_eq(read_int_file(mux.file), 20);
	ck_assert_int_eq(saved.n, 1);
	ck_assert_int_eq(muxint__restore(&saved), 0);
	ck_assert_int_eq(read_int_file(mux.file), 4);
	ck_assert_int_eq(muxint__restore(&saved), 0);
	ck_assert_int_eq(read_int_file(mux.file), 4);
	/* a PMU without the file: named, and nothing to put back */
	ck_assert_int_eq(muxint__set(&saved, "nopmu", 10, &err), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err.msg, "PMU 'nopmu' has no perf_event_mux_interval_ms"));
	ck_assert_int_eq(saved.n, 0);
	mux_sysfs_remove(&mux);
}
END_TEST

/* The file's bytes as they are (up to 255), for a comparison with what was written. */
static const char *file_bytes(const char *path)
{
	static char buf[256];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
	n = read(fd, buf, sizeof(buf) - 1);
	ck_assert_int_ge(n, 0);
	buf[n] = '\0';
	close(fd);
	return buf;
}

/* A PID that is no process's now: a child of this test, reaped. */
static int dead_pid(void)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (!pid)
		_exit(0);
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
	return pid;
}

/*
 * ldlat-stat recover writes only what the lock record names as
 * ROOT/bus/event_source/devices/PMU/perf_event_mux_interval_ms: a forged
 * record naming another file (outside the sysfs root, ".." as the PMU, a
 * PMU of two components, a symbolic link as the file) is refused, exit 2
 * naming the record, and the file is untouched.  A real one is put back
 * whole: "4" over "1000" leaves no "000".
 */
static const char *const forged_paths[] = {
	"%s/victim",
	"%s/bus/event_source/devices/../perf_event_mux_interval_ms",
	"%s/bus/event_source/devices/cpu/../cpu/perf_event_mux_interval_ms",
	"%s/bus/event_source/devices/evil/perf_event_mux_interval_ms",
	"%s/bus/event_source/devices/cpu/perf_event_mux_interval_ms/",
	"%s/bus/event_source/devices/cpu/perf_event_mux_interval_ms", /* another sysfs root */
};

START_TEST(test_recover_forged_record)
{
	char lock[400], target[600], victim[400], *out, *err;
	char *recover[] = { (char *)stat_tool(), "recover", NULL };
	FILE *f;

	mux_fixture();
	snprintf(lock, sizeof(lock), "%s/muxlock", mux.root);
	setenv("LDLAT_MUXLOCK", lock, 1);
	/* the file a forged record aims at, holding what the record says was set */
	snprintf(victim, sizeof(victim), "%s/victim", mux.root);
	write_file(victim, "7\n");
	ck_assert_int_eq(
		sh(NULL, NULL,
		   "cd %s/bus/event_source && cp %s perf_event_mux_interval_ms && "
		   "mkdir devices/evil && ln -s %s devices/evil/perf_event_mux_interval_ms",
		   mux.root, victim, victim),
		0);
	write_file(mux.file, "7\n");
	if (_i == ARRAY_SIZE(forged_paths) - 1)
		snprintf(target, sizeof(target), forged_paths[_i], "/tmp/ldlat-other-sysfs");
	else
		snprintf(target, sizeof(target), forged_paths[_i], mux.root);
	f = fopen(lock, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "owner %d 12345\ninterval 4 7 %s\n", dead_pid(), target);
	fclose(f);
	ck_assert_int_eq(run(recover, 30, &out, &err), 2);
	ck_assert_msg(strstr(err, lock) && strstr(err, target) && strstr(err, "nothing put back"),
		      "%s", err);
	free(out);
	free(err);
	ck_assert_str_eq(file_bytes(victim), "7\n");
	ck_assert_str_eq(file_bytes(mux.file), "7\n");
	snprintf(target, sizeof(target), "%s/bus/event_source/perf_event_mux_interval_ms",
		 mux.root);
	ck_assert_str_eq(file_bytes(target), "7\n");
	/* the record stays, for root to look at */
	ck_assert_msg(strstr(file_bytes(lock), "interval 4 7 "), "%s", file_bytes(lock));

	/* a real record, and a value longer than the one put back */
	write_file(mux.file, "1000\n");
	f = fopen(lock, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "owner %d 12345\ninterval 4 1000 %s\n", dead_pid(), mux.file);
	fclose(f);
	ck_assert_int_eq(run(recover, 30, &out, &err), 0);
	ck_assert_msg(strstr(out, "back to 4 (PID "), "%s", out);
	free(out);
	free(err);
	ck_assert_str_eq(file_bytes(mux.file), "4\n");
	ck_assert_str_eq(file_bytes(lock), "");
	unsetenv("LDLAT_MUXLOCK");
	mux_sysfs_remove(&mux);
}
END_TEST

/*
 * The environment a tool reads (LDLAT_MUXLOCK, LDLAT_SYSFS, LDLAT_CPU ...)
 * goes through secure_getenv: a copy of ldlat-stat given a capability
 * (setcap: the kernel marks its run AT_SECURE) run by another user ignores
 * LDLAT_MUXLOCK, while the same copy without it follows it.
 */
START_TEST(test_secure_environment)
{
	char *out, *err;
	const char *copy;
	char dir[300];

	if (!need_root("setcap and setpriv"))
		return;
	copy = reachable_copy(stat_tool());
	snprintf(dir, sizeof(dir), "%s", copy);
	*strrchr(dir, '/') = '\0';
	/* a directory as the lock file: the run that follows LDLAT_MUXLOCK cannot open it */
	ck_assert_int_eq(sh(NULL, NULL, "mkdir -p %s/lockdir", dir), 0);
#define AS_NOBODY "setpriv --reuid=65534 --regid=65534 --clear-groups "
	ck_assert_int_eq(
		sh(&out, &err, "LDLAT_MUXLOCK=%s/lockdir " AS_NOBODY "%s recover", dir, copy), 1);
	ck_assert_msg(strstr(err, "lockdir: Is a directory"), "%s", err);
	free(out);
	free(err);
	ck_assert_int_eq(sh(NULL, NULL, "setcap cap_perfmon+ep %s", copy), 0);
	sh(&out, &err, "LDLAT_MUXLOCK=%s/lockdir " AS_NOBODY "%s recover", dir, copy);
	ck_assert_msg(!strstr(out, "lockdir") && !strstr(err, "lockdir"), "%s%s", out, err);
	ck_assert_msg(strstr(out, "nothing to recover") || strstr(err, MUXLOCK_PATH), "%s%s", out,
		      err);
	free(out);
	free(err);
	ck_assert_int_eq(sh(NULL, NULL, "setcap -r %s && rmdir %s/lockdir", copy, dir), 0);
#undef AS_NOBODY
}
END_TEST

/* ---- the tool: bad input and --plan (no root needed) ---------------------- */

/* Bad input, refused before anything is opened: exit 2, a sentence that starts "ldlat-stat: ". */
#define STAT_BAD(args, message)                                                                    \
	{                                                                                          \
		.cmd = "$STAT " args, .rc = 2, .err = { message },                                 \
		.err_starts = "ldlat-stat: ", .seconds = 30                                        \
	}

static const struct cli_case usage_errors[] = {
	STAT_BAD("-e bogus-event", "unknown event 'bogus-event'"),
	{ .argv = { "$STAT", "-e", "" },
	  .rc = 2,
	  .err = { "empty event list" },
	  .err_starts = "ldlat-stat: ",
	  .seconds = 30 },
	STAT_BAD("-e L1-icache-stores", "no store operation for the L1-icache cache"),
	/* a valid line, kept to show the difference with the next (exit 0: not run) */
	{ .cmd = "$STAT --per-group -- true" },
	STAT_BAD("--per-group", "--per-group counts each group in turn"),
	STAT_BAD("--per-group --mux-interval 5 -- true", "--mux-interval applies to --multiplex"),
	STAT_BAD("--mux-interval 0", "--mux-interval '0' is not a number of milliseconds"),
	STAT_BAD("--multiplex --per-group", "--multiplex and --per-group both given"),
	STAT_BAD("-C 0 -p 1", "-C cannot be combined with -p"),
	STAT_BAD("--per-group -i 1 -- true", "-i applies to --multiplex"),
	STAT_BAD("-x, --format json -- true", "-x writes perf stat's CSV: not with --format json"),
	{ .argv = { "$STAT", "-x", "", "--", "true" },
	  .rc = 2,
	  .err = { "--field-separator: empty separator" },
	  .err_starts = "ldlat-stat: ",
	  .seconds = 30 },
};

START_TEST(test_usage_errors)
{
	if (!usage_errors[_i].rc)
		return; /* a valid line, kept to show the difference with the next */
	cli_case__check(&usage_errors[_i]);
}
END_TEST

/* A {group} that can never be scheduled: bad input, named, before anything is opened. */
START_TEST(test_group_never_fits)
{
	char *argv[] = { (char *)stat_tool(),
			 "-e",
			 "{LLC-loads,LLC-load-misses,node-loads},cycles",
			 "--",
			 "true",
			 NULL };
	char *out, *err;

	use_fixture("counters/skylake-smt-on", "proc-watchdog-on");
	ck_assert_int_eq(run(argv, 30, &out, &err), 2);
	ck_assert_msg(strstr(err, "ldlat-stat: group {LLC-loads,LLC-load-misses,node-loads} can "
				  "never be scheduled"),
		      "%s", err);
	free(out);
	free(err);
	argv[2] = "{L1-dcache-loads,L1-dcache-load-misses,dTLB-loads,dTLB-load-misses}";
	ck_assert_int_eq(run(argv, 30, &out, &err), 2);
	ck_assert_msg(strstr(err, "need more than the 3 general-purpose counters Skylake gives a "
				  "group beside the NMI watchdog"),
		      "%s", err);
	free(out);
	free(err);
}
END_TEST

/* --plan on each fixture machine: one group per line, none over the counters. */
START_TEST(test_plan_cli)
{
	const struct plan_case *pc = &plan_cases[_i];
	char *argv[] = { (char *)stat_tool(), "--all-cache", "--plan", NULL };
	char *out, *err, *line, *save = NULL, *name, *nsave;
	int groups = 0, events = 0, llc, gp;

	use_fixture(pc->sysfs, pc->proc);
	ck_assert_int_eq(run(argv, 30, &out, &err), 0);
	ck_assert_msg(strstr(out, "# counter model: "), "%s", out);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] != '{')
			continue;
		ck_assert_msg(strstr(line, "}\t# "), "no why: %s", line);
		*strchr(line, '}') = '\0';
		groups++;
		llc = gp = 0;
		for (name = strtok_r(line + 1, ",", &nsave); name;
		     name = strtok_r(NULL, ",", &nsave)) {
			events++;
			gp++;
			llc += !strncmp(name, "LLC-", 4) || !strncmp(name, "node-", 5);
		}
		/* Intel: at most 2 LLC and node events in a group (1 on Nehalem); AMD: no limit */
		ck_assert_msg(!pc->offcore || llc <= pc->offcore, "%d LLC events: %s", llc,
			      line + 1);
		ck_assert_msg(gp <= pc->gp, "%d events over %d counters: %s", gp, pc->gp, line + 1);
	}
	ck_assert_int_eq(groups, pc->groups);
	ck_assert_int_eq(events, 32);
	free(out);
	free(err);
}
END_TEST

/*
 * ldlat-stat plan is ldlat-stat --plan: the same plan, byte for byte; it
 * counts nothing, so it takes no target, duration or command.
 */
START_TEST(test_plan_word)
{
	char *flag[] = { (char *)stat_tool(), "--all-cache", "--plan", NULL };
	char *word[] = { (char *)stat_tool(), "plan", "--all-cache", NULL };
	char *refused[][6] = {
		{ (char *)stat_tool(), "plan", "--all-cache", "-d", "1", NULL },
		{ (char *)stat_tool(), "--plan", "--per-group", NULL },
		{ (char *)stat_tool(), "plan", "--", "true", NULL },
	};
	static const char *const want[] = {
		"ldlat-stat: -d is not an option of 'ldlat-stat plan'",
		"ldlat-stat: --per-group is not an option of 'ldlat-stat plan' (--plan)",
		"ldlat-stat: a command ('true') is not an argument of 'ldlat-stat plan'",
	};
	char *fout, *ferr, *out, *err;
	unsigned int i;

	use_fixture(plan_cases[0].sysfs, plan_cases[0].proc);
	ck_assert_int_eq(run(flag, 30, &fout, &ferr), 0);
	ck_assert_msg(strstr(fout, "# counter model: "), "%s", fout);
	ck_assert_int_eq(run(word, 30, &out, &err), 0);
	ck_assert_str_eq(out, fout);
	ck_assert_str_eq(err, ferr);
	free(out);
	free(err);
	free(fout);
	free(ferr);
	for (i = 0; i < ARRAY_SIZE(refused); i++) {
		ck_assert_int_eq(run(refused[i], 30, &out, &err), 2);
		ck_assert_msg(strstr(err, want[i]), "want '%s' in: %s", want[i], err);
		ck_assert_str_eq(out, "");
		free(out);
		free(err);
	}
}
END_TEST

/* ---- real runs on this machine (root) --------------------------------------- */

/* The count printed before name ("2,500  page-faults"), -1 when absent. */
static long count_of(const char *out, const char *name)
{
	char pat[128], digits[64];
	const char *p, *line;
	size_t n = 0;

	/* "  name" ending the row or before its ratio */
	snprintf(pat, sizeof(pat), "  %s", name);
	for (p = strstr(out, pat); p && p[strlen(pat)] != ' ' && p[strlen(pat)] != '\n';
	     p = strstr(p + 1, pat))
		;
	if (!p)
		return -1;
	for (line = p; line > out && line[-1] != '\n'; line--)
		;
	for (; line < p && n + 1 < sizeof(digits); line++)
		if (*line >= '0' && *line <= '9')
			digits[n++] = *line;
		else if (*line != ',' && *line != ' ')
			return -1;
	digits[n] = '\0';
	return n ? strtol(digits, NULL, 10) : -1;
}

/* Runs sh -c cmd; its exit code. */
static void start_stat(struct child *s, char *const argv[])
{
	ck_assert_msg(child_spawn_started(s, argv, 30), "ldlat-stat did not start: %s", s->errbuf);
}

/* A workload that faults N pages, counted through -p: exactly N page faults. */
START_TEST(test_page_faults_exact)
{
	static const char *const pages[] = { "1", "100", "2500" };
	struct child w, s;
	char pid[32];
	char *wargv[] = { (char *)build_path("ldlat-workload"),
			  "--wait",
			  "--lock",
			  "--fault-pages",
			  (char *)pages[_i],
			  "--base",
			  BASE,
			  NULL };
	char *sargv[] = {
		(char *)stat_tool(), "-e", "page-faults,minor-faults,major-faults", "-p", pid, NULL
	};

	if (!need_root("ldlat-stat runs"))
		return;
	child_spawn(&w, wargv);
	/* past its loader and mlockall: the fault pages are all that is left */
	ck_assert(child_wait_stderr(&w, "waiting", 30));
	snprintf(pid, sizeof(pid), "%d", w.pid);
	start_stat(&s, sargv);
	ck_assert(child_go(&w));
	ck_assert_int_eq(child_finish(&w, 60), 0);
	/* the process's exit ends the run */
	ck_assert_int_eq(child_finish(&s, 60), 0);
	ck_assert_msg(count_of(s.errbuf, "page-faults") == atol(pages[_i]), "%s", s.errbuf);
	ck_assert_msg(count_of(s.errbuf, "minor-faults") == atol(pages[_i]), "%s", s.errbuf);
	ck_assert_msg(count_of(s.errbuf, "major-faults") == 0, "%s", s.errbuf);
	/* software events always run: nothing is scaled */
	ck_assert_ptr_null(strstr(s.errbuf, "%,"));
	child_free(&w);
	child_free(&s);
}
END_TEST

/* -G: the workload inside the cgroup, exactly; the one outside, not at all. */
START_TEST(test_cgroup_exact)
{
	struct child in, out, s;
	char path[256], rel[256];
	char *inargv[] = { (char *)build_path("ldlat-workload"),
			   "--wait",
			   "--lock",
			   "--fault-pages",
			   "64",
			   "--base",
			   BASE,
			   NULL };
	char *outargv[] = { (char *)build_path("ldlat-workload"),
			    "--wait",
			    "--lock",
			    "--fault-pages",
			    "32",
			    "--base",
			    BASE,
			    NULL };
	char *sargv[] = { (char *)stat_tool(), "-e", "page-faults", "-G", rel, NULL };

	if (!need_root("ldlat-stat -G"))
		return;
	ck_assert_int_eq(cgroup_make(path, sizeof(path), "stat"), 0);
	snprintf(rel, sizeof(rel), "%s", strrchr(path, '/') + 1);
	child_spawn(&in, inargv);
	child_spawn(&out, outargv);
	ck_assert(child_wait_stderr(&in, "waiting", 30));
	ck_assert(child_wait_stderr(&out, "waiting", 30));
	ck_assert_int_eq(cgroup_enter(path, in.pid), 0);
	start_stat(&s, sargv);
	ck_assert(child_go(&in));
	ck_assert(child_go(&out));
	ck_assert_int_eq(child_finish(&in, 60), 0);
	ck_assert_int_eq(child_finish(&out, 60), 0);
	kill(s.pid, SIGINT);
	ck_assert_int_eq(child_finish(&s, 60), 0);
	ck_assert_msg(count_of(s.errbuf, "page-faults") == 64, "%s\n%s", s.errbuf, s.errbuf);
	child_free(&in);
	child_free(&out);
	child_free(&s);
	cgroup_remove(path);
}
END_TEST

/*
 * -G with -C: the cgroup's workload, held on one CPU, is counted exactly on
 * that CPU (loop 0) and not at all on another (loop 1; with a single CPU
 * online there is no other, and only loop 0 can be checked).
 */
START_TEST(test_cgroup_cpus)
{
	struct child w, s;
	int cpu[2], ncpu = cpus_allowed(cpu, 2);
	char path[256], rel[256], on[16], at[16];
	char *wargv[] = { "taskset",
			  "-c",
			  at,
			  (char *)build_path("ldlat-workload"),
			  "--wait",
			  "--lock",
			  "--fault-pages",
			  "64",
			  "--base",
			  BASE,
			  NULL };
	char *sargv[] = { (char *)stat_tool(), "-e", "page-faults", "-G", rel, "-C", on, NULL };

	if (!need_root("ldlat-stat -G -C"))
		return;
	ck_assert_int_ge(ncpu, 1);
	if (_i >= ncpu) {
		fprintf(stderr, "check_stat: one CPU online: -G -C of another CPU not checked\n");
		return;
	}
	snprintf(at, sizeof(at), "%d", cpu[0]);
	snprintf(on, sizeof(on), "%d", cpu[_i]);
	ck_assert_int_eq(cgroup_make(path, sizeof(path), "statcpu"), 0);
	snprintf(rel, sizeof(rel), "%s", strrchr(path, '/') + 1);
	child_spawn(&w, wargv);
	ck_assert(child_wait_stderr(&w, "waiting", 30));
	ck_assert_int_eq(cgroup_enter(path, w.pid), 0);
	start_stat(&s, sargv);
	ck_assert(child_go(&w));
	ck_assert_int_eq(child_finish(&w, 60), 0);
	kill(s.pid, SIGINT);
	ck_assert_int_eq(child_finish(&s, 60), 0);
	/* on the other CPU, the cgroup never ran while the event was enabled */
	if (_i)
		ck_assert_msg(strstr(s.errbuf, "<not counted>  page-faults") ||
				      count_of(s.errbuf, "page-faults") == 0,
			      "-C %s: %s\n%s", on, s.errbuf, s.errbuf);
	else
		ck_assert_msg(count_of(s.errbuf, "page-faults") == 64, "-C %s: %s\n%s", on,
			      s.errbuf, s.errbuf);
	ck_assert_ptr_nonnull(strstr(s.errbuf, " on CPUs "));
	child_free(&w);
	child_free(&s);
	cgroup_remove(path);
}
END_TEST

/* Hardware events on a machine without a PMU: said in a sentence, not dropped. */
START_TEST(test_no_pmu)
{
	char *only_hw[] = {
		(char *)stat_tool(), "-e", "cycles,LLC-load-misses", "--", "true", NULL
	};
	char *mixed[] = {
		(char *)stat_tool(), "-e", "cycles,page-faults", "--", "sh", "-c", "exit 3", NULL
	};
	char *out, *err;

	if (!need_root("ldlat-stat runs"))
		return;
	if (access("/sys/bus/event_source/devices/cpu", F_OK) == 0 ||
	    access("/sys/bus/event_source/devices/cpu_core", F_OK) == 0)
		return; /* a machine with a core PMU: nothing to check here */
	ck_assert_int_eq(run(only_hw, 30, &out, &err), 1);
	ck_assert_msg(strstr(err, "ldlat-stat: none of the 2 events can be counted here"), "%s",
		      err);
	ck_assert_msg(strstr(err, "ldlat-stat: cycles: no hardware PMU on this"), "%s", err);
	ck_assert_msg(strstr(err, "only software events can be counted here"), "%s", err);
	free(out);
	free(err);
	/* with a software event beside: a row that says why, and the command's status */
	ck_assert_int_eq(run(mixed, 30, &out, &err), 3);
	ck_assert_msg(strstr(err, "<not supported>  cycles"), "%s", err);
	ck_assert_msg(strstr(err, "no hardware PMU on this"), "%s", err);
	ck_assert_msg(count_of(err, "page-faults") > 0, "%s", err);
	free(out);
	free(err);
	/* a vendor event encoded for another model: same sentence */
	setenv("LIBPFM_FORCE_PMU", "skl", 1);
	only_hw[2] = "MEM_INST_RETIRED:ALL_LOADS";
	ck_assert_int_eq(run(only_hw, 30, &out, &err), 1);
	ck_assert_msg(strstr(err, "MEM_INST_RETIRED:ALL_LOADS: no hardware PMU"), "%s", err);
	free(out);
	free(err);
}
END_TEST

#define SW_MUX "/sys/bus/event_source/devices/software/perf_event_mux_interval_ms"

/*
 * The lock ldlat-stat --mux-interval takes, for this test: other test runs
 * on the machine (and their ldlat-stats) wait their turn, and the ldlat-stats
 * this test starts, its descendants, go ahead under it.
 */
static int mux_lock_wait(void)
{
	int fd = open(MUXLOCK_PATH, O_RDWR | O_CREAT | O_CLOEXEC, 0600), i;

	ck_assert_msg(fd >= 0, "cannot open " MUXLOCK_PATH ": %s", strerror(errno));
	for (i = 0; i < 600 && flock(fd, LOCK_EX | LOCK_NB); i++)
		usleep(100000);
	ck_assert_msg(i < 600, "another run held " MUXLOCK_PATH " for a minute");
	return fd;
}

/*
 * --mux-interval on this machine's software PMU (the only one here with
 * counting events): set during the run, put back after it and after Ctrl-C;
 * refused while a run that is not an ancestor holds the lock.
 */
START_TEST(test_mux_interval_restored)
{
	char ms[16], script[256], *out, *err;
	char *argv[] = { (char *)stat_tool(),
			 "--mux-interval",
			 ms,
			 "-e",
			 "page-faults",
			 "--",
			 "sh",
			 "-c",
			 script,
			 NULL };
	char *sleeper[] = { (char *)stat_tool(),
			    "--mux-interval",
			    ms,
			    "-e",
			    "page-faults",
			    "--",
			    "sleep",
			    "60",
			    NULL };
	struct child s;
	int orig, lock;

	if (!need_root("ldlat-stat --mux-interval"))
		return;
	if (access(SW_MUX, W_OK))
		return; /* no such file on this kernel: the fixture test covers the logic */
	lock = mux_lock_wait();
	orig = read_int_file(SW_MUX);
	/*
	 * a run that is not this test's descendant (setsid -f: reparented to
	 * init, so this process must not be a subreaper) is refused
	 */
	child_adopt = false;
	ck_assert_int_eq(sh(&out, NULL,
			    "d=$(mktemp -d /tmp/ldlat-muxlock-%d.XXXXXX) && setsid -f sh -c "
			    "'%s --mux-interval %d -e page-faults -- true </dev/null >'$d'/out "
			    "2>&1; echo $? >'$d'/rc' && i=0 && while [ ! -s $d/rc ] && [ $i -lt "
			    "600 ]; do sleep 0.1; i=$((i + 1)); done; cat $d/rc $d/out; rm -rf $d",
			    (int)getpid(), stat_tool(), orig + 7),
			 0);
	child_adopt = true;
	snprintf(script, sizeof(script), "another run (PID %d) is changing", (int)getpid());
	ck_assert_msg(!strncmp(out, "1\n", 2) && strstr(out, script) && strstr(out, MUXLOCK_PATH),
		      "%s", out);
	ck_assert_int_eq(read_int_file(SW_MUX), orig);
	free(out);
	snprintf(ms, sizeof(ms), "%d", orig + 3);
	snprintf(script, sizeof(script), "echo during=$(cat %s)", SW_MUX);
	ck_assert_int_eq(run(argv, 30, &out, &err), 0);
	ck_assert_msg(strstr(out, "during=") && atoi(strstr(out, "during=") + 7) == orig + 3, "%s",
		      out);
	ck_assert_int_eq(read_int_file(SW_MUX), orig);
	free(out);
	free(err);
	/* Ctrl-C */
	snprintf(ms, sizeof(ms), "%d", orig + 5);
	start_stat(&s, sleeper);
	ck_assert_int_eq(read_int_file(SW_MUX), orig + 5);
	kill(s.pid, SIGINT);
	ck_assert_int_eq(child_finish(&s, 30), 0);
	ck_assert_int_eq(read_int_file(SW_MUX), orig);
	ck_assert_msg(strstr(s.errbuf, "page-faults"), "%s", s.errbuf);
	child_free(&s);
	/* SIGTERM too */
	start_stat(&s, sleeper);
	kill(s.pid, SIGTERM);
	ck_assert_int_eq(child_finish(&s, 30), 0);
	ck_assert_int_eq(read_int_file(SW_MUX), orig);
	child_free(&s);
	close(lock);
}
END_TEST

/*
 * -i into a pipe: each report arrives as it is printed, in every format: the
 * reader has the first one alone, not in a 4 KiB block of stdio's buffer,
 * and more while the run goes on.  _i: text, json, openmetrics.  The text
 * goes to standard error unless --output names a file: /dev/stdout here.
 */
START_TEST(test_intervals_stream)
{
	static const char *const fmts[] = { "text", "json", "openmetrics" };
	static const char *const marks[] = { " seconds:\n", "\"tool\":\"ldlat-stat\"", "# EOF\n" };
	char *argv[] = { (char *)stat_tool(),
			 "-e",
			 "page-faults",
			 "-i",
			 "0.5",
			 "--format",
			 (char *)fmts[_i],
			 "--output",
			 "/dev/stdout",
			 "--",
			 "sleep",
			 "60",
			 NULL };
	struct child s;

	if (!need_root("ldlat-stat runs"))
		return;
	start_stat(&s, argv);
	ck_assert_msg(child_wait_stdout(&s, marks[_i], 1, 30), "%s", s.outbuf);
	ck_assert_msg(s.outlen < 4096, "%zu bytes at once: %s", s.outlen, s.outbuf);
	ck_assert_msg(child_wait_stdout(&s, marks[_i], 3, 30), "%s", s.outbuf);
	ck_assert_int_eq(waitpid(s.pid, NULL, WNOHANG), 0); /* still running */
	kill(s.pid, SIGINT);
	ck_assert_int_eq(child_finish(&s, 30), 0);
	child_free(&s);
}
END_TEST

/* A report that cannot be written (stdout on /dev/full) is an error, exit 1, for every tool. */
START_TEST(test_stdout_full)
{
	static const char *const cmds[] = {
		/* ldlat-stat's text goes to standard error, as perf stat's: JSON to stdout */
		"$LDLAT_BUILD/ldlat-stat -e page-faults -i 0.2 --format json -- sleep 10 "
		">/dev/full",
		"$LDLAT_BUILD/ldlat-stat -e page-faults --format json -- true >/dev/full",
		"$LDLAT_BUILD/ldlat-hist --source page-faults -- true >/dev/full",
		"$LDLAT_BUILD/ldlat-top --source page-faults -- true >/dev/full",
	};
	char *out, *err;
	unsigned int i;

	if (!need_root("ldlat-stat, ldlat-hist and ldlat-top runs"))
		return;
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		ck_assert_msg(sh(&out, &err, "%s", cmds[i]) == 1, "%s: %s", cmds[i], err);
		ck_assert_msg(strstr(err, "cannot write the report to standard output: No space "
					  "left on device"),
			      "%s: %s", cmds[i], err);
		free(out);
		free(err);
	}
}
END_TEST

/* --per-group: the command once per group, nothing scaled, and it says so. */
START_TEST(test_per_group)
{
	char *argv[] = { (char *)stat_tool(),
			 "--per-group",
			 "-e",
			 "{page-faults,minor-faults},{major-faults,context-switches}",
			 "--",
			 "sh",
			 "-c",
			 "echo ran; exit 5",
			 NULL };
	char *out, *err, *p;
	int runs = 0;

	if (!need_root("ldlat-stat runs"))
		return;
	ck_assert_int_eq(run(argv, 60, &out, &err), 5);
	for (p = out; (p = strstr(p, "ran\n")); p++)
		runs++;
	ck_assert_int_eq(runs, 2);
	ck_assert_msg(strstr(err, "(one run per group, 2 runs; counts are not scaled)"), "%s", err);
	ck_assert_msg(count_of(err, "page-faults") > 0, "%s", err);
	ck_assert_msg(count_of(err, "page-faults") == count_of(err, "minor-faults"), "%s", err);
	ck_assert_ptr_nonnull(strstr(err, "one run per group"));
	free(out);
	free(err);
}
END_TEST

/* Ctrl-C during --per-group: what ran is reported, the groups that did not run say so. */
START_TEST(test_per_group_interrupted)
{
	char *argv[] = { (char *)stat_tool(),
			 "--per-group",
			 "-e",
			 "{page-faults,minor-faults},{major-faults,context-switches}",
			 "--",
			 "sleep",
			 "60",
			 NULL };
	struct child s;

	if (!need_root("ldlat-stat runs"))
		return;
	start_stat(&s, argv);
	kill(s.pid, SIGINT);
	ck_assert_int_eq(child_finish(&s, 30), 0);
	ck_assert_msg(strstr(s.errbuf, "page-faults"), "%s", s.errbuf);
	ck_assert_msg(strstr(s.errbuf, "<not counted>  major-faults"), "%s", s.errbuf);
	ck_assert_msg(strstr(s.errbuf, "the runs were interrupted"), "%s", s.errbuf);
	child_free(&s);
}
END_TEST

/*
 * Without privilege: the command's own events count user space only (:u,
 * as perf does), and the whole machine is refused with the sentence.
 */
START_TEST(test_unprivileged)
{
	char *own[] = { "setpriv",
			"--reuid=65534",
			"--regid=65534",
			"--clear-groups",
			"--inh-caps=-all",
			(char *)reachable_copy(stat_tool()),
			"-e",
			"page-faults",
			"--",
			(char *)reachable_copy(build_path("ldlat-workload")),
			"--fault-pages",
			"100",
			"--base",
			BASE,
			NULL };
	char *machine[] = { "setpriv",
			    "--reuid=65534",
			    "--regid=65534",
			    "--clear-groups",
			    "--inh-caps=-all",
			    (char *)reachable_copy(stat_tool()),
			    "-e",
			    "page-faults",
			    "-d",
			    "1",
			    NULL };
	char paranoid[16] = "";
	char *out, *err;
	FILE *f;

	if (!need_root("ldlat-stat as another user"))
		return;
	f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	if (f) {
		if (!fgets(paranoid, sizeof(paranoid), f))
			paranoid[0] = '\0';
		fclose(f);
	}
	if (atoi(paranoid) < 2)
		return; /* this kernel lets anyone count the kernel: nothing to fall back from */
	ck_assert_int_eq(run(own, 30, &out, &err), 0);
	ck_assert_msg(count_of(err, "page-faults:u") >= 100, "%s\n%s", out, err);
	ck_assert_ptr_nonnull(strstr(err, "page-faults:u counts user space only"));
	free(out);
	free(err);
	ck_assert_int_eq(run(machine, 30, &out, &err), 2);
	ck_assert_msg(
		strstr(err, "ldlat-stat: cannot open page-faults on CPU 0: Permission denied"),
		"%s", err);
	ck_assert_ptr_nonnull(strstr(err, "perf_event_paranoid is"));
	free(out);
	free(err);
}
END_TEST

/*
 * Intervals, a duration, the command's status.  An interval in which the
 * command slept (its events enabled for no time) counted 0, not '<not
 * counted>' as a failure would.
 */
START_TEST(test_intervals_and_status)
{
	char *iv[] = { (char *)stat_tool(),
		       "-e",
		       "page-faults,task-clock",
		       "-i",
		       "0.2",
		       "--",
		       "sleep",
		       "1",
		       NULL };
	char *dur[] = {
		(char *)stat_tool(), "-e", "context-switches", "-C", "0", "-d", "0.3", NULL
	};
	char *out, *err, *p;
	int blocks = 0;

	if (!need_root("ldlat-stat runs"))
		return;
	ck_assert_int_eq(run(iv, 30, &out, &err), 0);
	for (p = err; (p = strstr(p, " seconds:\n")); p++)
		blocks++;
	ck_assert_msg(blocks >= 3, "%d intervals: %s", blocks, err);
	ck_assert_ptr_nonnull(strstr(err, "Counter stats for command 'sleep'"));
	ck_assert_msg(!strstr(err, "<not counted>"), "%s", err);
	ck_assert_msg(strstr(err, "(the target did not run in this interval)"), "%s", err);
	free(out);
	free(err);
	/* as JSON Lines: one object per interval, then the run's */
	ck_assert_int_eq(
		sh(&out, &err, "%s",
		   "$LDLAT_BUILD/ldlat-stat -e page-faults -i 0.2 --format json -- sleep 1 "
		   "2>/dev/null | jq -s -e 'length >= 4 and (.[0].interval.end > 0) and "
		   "(.[-1].interval == null) and all(.[]; .events[0].name == "
		   "\"page-faults\" and .events[0].state == \"counted\") and any(.[]; "
		   ".events[0].count == 0)' >/dev/null"),
		0);
	free(out);
	free(err);
	ck_assert_int_eq(run(dur, 30, &out, &err), 0);
	ck_assert_msg(count_of(err, "context-switches") >= 0, "%s", err);
	ck_assert_ptr_nonnull(strstr(err, "Counter stats for CPUs 0"));
	free(out);
	free(err);
	/* the whole machine: something switched somewhere in half a second */
	dur[3] = "-d";
	dur[4] = "0.5";
	dur[5] = NULL;
	ck_assert_int_eq(run(dur, 30, &out, &err), 0);
	ck_assert_msg(count_of(err, "context-switches") > 0, "%s", err);
	ck_assert_msg(strstr(err, "Counter stats for system-wide"), "%s", err);
	free(out);
	free(err);
}
END_TEST

/*
 * --format json and openmetrics, written with --output: exact counts in the
 * documented JSON fields (checked with jq), an exposition promtool accepts.
 */
START_TEST(test_formats)
{
	char file[128], pid[32], cmd[1024], *out, *err;
	char *fmt = _i ? "openmetrics" : "json";
	struct child w, s;
	char *wargv[] = { (char *)build_path("ldlat-workload"),
			  "--wait",
			  "--lock",
			  "--fault-pages",
			  "77",
			  "--base",
			  BASE,
			  NULL };
	char *sargv[] = { (char *)stat_tool(),
			  "-e",
			  "{page-faults,minor-faults},cs,cycles",
			  "--format",
			  fmt,
			  "--output",
			  file,
			  "-p",
			  pid,
			  NULL };

	if (!need_root("ldlat-stat runs"))
		return;
	snprintf(file, sizeof(file), "/tmp/ldlat-stat-%d.%s", getpid(), _i ? "prom" : "json");
	child_spawn(&w, wargv);
	ck_assert(child_wait_stderr(&w, "waiting", 30));
	snprintf(pid, sizeof(pid), "%d", w.pid);
	start_stat(&s, sargv);
	ck_assert(child_go(&w));
	ck_assert_int_eq(child_finish(&w, 60), 0);
	ck_assert_int_eq(child_finish(&s, 60), 0);
	ck_assert_str_eq(s.outbuf, ""); /* all of it went to the file */
	if (!_i)
		snprintf(cmd, sizeof(cmd),
			 "jq -e '.tool == \"ldlat-stat\" and .mode == \"multiplex\" and "
			 "(.groups | length) >= 2 and .groups[0].events == [\"page-faults\", "
			 "\"minor-faults\"] and .groups[0].why == \"as written (2 events)\" and "
			 ".events[0].name == \"page-faults\" and .events[0].count == 77 and "
			 ".events[0].raw == 77 and .events[0].running == 1 and "
			 ".events[0].scaled == false and .events[0].group == 1 and "
			 ".events[1].count == 77 and .events[2].state == \"counted\" and "
			 "(.events[3].state == \"counted\" or (.events[3].state == \"not "
			 "supported\" "
			 "and (.events[3].reason | length) > 0)) and "
			 "(.counter_model.general_purpose | type) == \"number\"' %s",
			 file);
	else
		snprintf(cmd, sizeof(cmd),
			 "promtool check metrics < %s && grep -q "
			 "'^ldlat_stat_events{target=\"PID %s (1 thread)\",event=\"page-faults\","
			 "group=\"1\"} 77$' %s",
			 file, pid, file);
	ck_assert_msg(sh(&out, &err, "%s", cmd) == 0, "%s\n%s\nstat: %s", out, err, s.errbuf);
	free(out);
	free(err);
	unlink(file);
	child_free(&w);
	child_free(&s);
}
END_TEST

/* ---- beside perf stat: the same program, field by field ------------------ */

/*
 * The fields of the CSV line (perf stat -x,) of event in text: how many
 * (at most max), or 0 when no line names it.  Lines that are not CSV (a
 * notice) are passed over.
 */
static int csv_line(const char *text, const char *event, char fields[][128], int max)
{
	const char *line = text, *nl, *p, *comma;
	int n;

	for (; *line; line = nl + 1) {
		nl = strchrnul(line, '\n');
		for (n = 0, p = line; n < max && p <= nl; n++, p = comma + 1) {
			comma = memchr(p, ',', nl - p);
			if (!comma)
				comma = nl;
			snprintf(fields[n], 128, "%.*s", (int)(comma - p), p);
			if (comma == nl) {
				n++;
				break;
			}
		}
		if (n >= 3 && !strcmp(fields[2], event))
			return n;
		if (!*nl)
			break;
	}
	return 0;
}

/* A CSV metric's value in units, its prefix (K/sec, M/sec) applied. */
static double csv_rate(const char *value, const char *unit)
{
	double v = atof(value);

	return unit[0] == 'G' ? v * 1e9 : unit[0] == 'M' ? v * 1e6 : unit[0] == 'K' ? v * 1e3 : v;
}

/*
 * The same command under perf stat -x, and ldlat-stat -x,: the same seven
 * fields a line, the same units and the same derived figures, as perf
 * defines them: a rate per second of task-clock, "CPUs utilized" a clock
 * over the run's wall time.  The command sleeps first, so that a rate per
 * second of the wall clock would read ten times lower than perf's.
 */
START_TEST(test_perf_csv)
{
	static const char *const events[] = { "task-clock", "page-faults", "context-switches" };
	char pf[8][128], lf[8][128], *pout, *perr, *lout, *lerr;
	const char *cmd = "sh -c 'sleep 0.3; exec %s --fault-pages 3000 --base " BASE "'";
	char command[512];
	double prate, lrate;
	unsigned int i;
	int np, nl;

	if (!need_root("ldlat-stat and perf stat runs"))
		return;
	snprintf(command, sizeof(command), cmd, build_path("ldlat-workload"));
	ck_assert_int_eq(sh(&pout, &perr,
			    "perf stat -x, -e task-clock,page-faults,"
			    "context-switches -- %s",
			    command),
			 0);
	ck_assert_int_eq(sh(&lout, &lerr,
			    "%s -x, -e task-clock,page-faults,"
			    "context-switches -- %s",
			    stat_tool(), command),
			 0);
	/* both on standard error: the command's standard output is its own */
	ck_assert_str_eq(pout, "");
	ck_assert_str_eq(lout, "");
	for (i = 0; i < ARRAY_SIZE(events); i++) {
		np = csv_line(perr, events[i], pf, 8);
		nl = csv_line(lerr, events[i], lf, 8);
		ck_assert_msg(np == 7, "perf: %s", perr);
		ck_assert_msg(nl == np, "%s: %d fields, perf %d:\n%s\nperf:\n%s", events[i], nl, np,
			      lerr, perr);
		ck_assert_str_eq(lf[1], pf[1]); /* the unit: msec or none */
		ck_assert_str_eq(lf[4], pf[4]); /* the share it ran: 100.00 */
		/* the run time in ns, a whole number */
		ck_assert_msg(strspn(lf[3], "0123456789") == strlen(lf[3]) && atof(lf[3]) > 0, "%s",
			      lf[3]);
	}
	/* task-clock: CPUs utilized, a small share of a run that mostly sleeps */
	csv_line(perr, "task-clock", pf, 8);
	csv_line(lerr, "task-clock", lf, 8);
	ck_assert_str_eq(lf[6], "CPUs utilized");
	ck_assert_str_eq(lf[6], pf[6]);
	ck_assert_msg(atof(lf[5]) > atof(pf[5]) / 3 && atof(lf[5]) < atof(pf[5]) * 3,
		      "ldlat %s, perf %s CPUs utilized", lf[5], pf[5]);
	ck_assert_msg(fabs(atof(lf[0]) * 1e6 - atof(lf[3])) < 0.02e6, "%s msec, run %s ns", lf[0],
		      lf[3]);
	/* page-faults: a rate per second of task-clock; both K/sec here */
	csv_line(perr, "page-faults", pf, 8);
	csv_line(lerr, "page-faults", lf, 8);
	ck_assert_str_eq(lf[6], pf[6]);
	prate = csv_rate(pf[5], pf[6]);
	lrate = csv_rate(lf[5], lf[6]);
	ck_assert_msg(lrate > prate / 3 && lrate < prate * 3, "ldlat %s %s, perf %s %s", lf[5],
		      lf[6], pf[5], pf[6]);
	/* and ldlat's is its own count over its own task-clock, as perf's definition has it */
	{
		char tc[8][128];

		csv_line(lerr, "task-clock", tc, 8);
		ck_assert_msg(fabs(lrate - atof(lf[0]) / (atof(tc[0]) / 1e3)) < 0.01 * lrate,
			      "%s faults in %s msec: %s %s", lf[0], tc[0], lf[5], lf[6]);
	}
	free(pout);
	free(perr);
	free(lout);
	free(lerr);
	/* without a clock, perf derives no rate: two empty fields; nor does ldlat-stat */
	ck_assert_int_eq(sh(&pout, &perr, "perf stat -x, -e page-faults -- true"), 0);
	ck_assert_int_eq(sh(&lout, &lerr, "%s -x, -e page-faults -- true", stat_tool()), 0);
	ck_assert_int_eq(csv_line(perr, "page-faults", pf, 8), 7);
	ck_assert_int_eq(csv_line(lerr, "page-faults", lf, 8), 7);
	ck_assert_str_eq(lf[5], pf[5]);
	ck_assert_str_eq(lf[6], pf[6]);
	ck_assert_str_eq(lf[6], "");
	free(pout);
	free(perr);
	free(lout);
	free(lerr);
}
END_TEST

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/*
 * The page faults of a command's whole run, its exec's own included: perf
 * stat's count and ldlat-stat's, each run nine times in turn, have the
 * same median.  Both run under setarch -R (the command inherits it): with
 * its stack and mappings placed at random a count moves by one to three
 * from run to run (perf 64-67 and ldlat-stat 64-67 over nine runs each),
 * enough for two medians of nine to differ by two; in place they are one
 * count, run after run (63 and 63 here).
 */
START_TEST(test_perf_exec_faults)
{
	long p[9], l[9];
	char f[8][128], *out, *err;
	int i;

	if (!need_root("ldlat-stat and perf stat runs"))
		return;
	for (i = 0; i < 9; i++) {
		ck_assert_int_eq(
			sh(&out, &err,
			   "setarch -R perf stat -x, -e page-faults -- %s --fault-pages 10",
			   build_path("ldlat-workload")),
			0);
		ck_assert_msg(csv_line(err, "page-faults", f, 8) == 7, "%s", err);
		p[i] = atol(f[0]);
		free(out);
		free(err);
		ck_assert_int_eq(sh(&out, &err,
				    "setarch -R %s -x, -e page-faults -- %s --fault-pages 10",
				    stat_tool(), build_path("ldlat-workload")),
				 0);
		ck_assert_msg(csv_line(err, "page-faults", f, 8) == 7, "%s", err);
		l[i] = atol(f[0]);
		free(out);
		free(err);
	}
	qsort(p, 9, sizeof(*p), cmp_long);
	qsort(l, 9, sizeof(*l), cmp_long);
	ck_assert_msg(p[4] == l[4], "median page faults: perf %ld, ldlat-stat %ld", p[4], l[4]);
}
END_TEST

/*
 * Where the report goes: standard error, the command's standard output
 * left as it is, as perf stat does; and perf's user and sys lines after
 * the elapsed time.
 */
START_TEST(test_perf_streams)
{
	char *pout, *perr, *lout, *lerr;

	if (!need_root("ldlat-stat and perf stat runs"))
		return;
	ck_assert_int_eq(sh(&pout, &perr, "perf stat -e page-faults -- echo hello"), 0);
	ck_assert_int_eq(sh(&lout, &lerr, "%s -e page-faults -- echo hello", stat_tool()), 0);
	ck_assert_str_eq(lout, pout);
	ck_assert_str_eq(lout, "hello\n");
	ck_assert_msg(strstr(perr, "page-faults") && strstr(lerr, "page-faults"), "%s", lerr);
	ck_assert_msg(strstr(perr, " seconds user\n") && strstr(perr, " seconds sys\n"), "%s",
		      perr);
	ck_assert_msg(strstr(lerr, " seconds user\n") && strstr(lerr, " seconds sys\n"), "%s",
		      lerr);
	ck_assert_msg(strstr(lerr, " seconds time elapsed") < strstr(lerr, " seconds user"), "%s",
		      lerr);
	free(pout);
	free(perr);
	free(lout);
	free(lerr);
}
END_TEST

/* ldlat-hist --loads: the counting event beside the sampling one. */
START_TEST(test_hist_loads)
{
	char *exact[] = { (char *)build_path("ldlat-hist"),
			  "--source",
			  "page-faults",
			  "--loads=page-faults",
			  "-a",
			  BASE "+16M",
			  "--",
			  (char *)build_path("ldlat-workload"),
			  "--fault-pages",
			  "300",
			  "--base",
			  BASE,
			  NULL };
	char *period[] = { (char *)build_path("ldlat-hist"),
			   "--source",
			   "page-faults",
			   "-c",
			   "10",
			   "--loads=minor-faults",
			   "--",
			   (char *)build_path("ldlat-workload"),
			   "--fault-pages",
			   "1000",
			   "--base",
			   BASE,
			   NULL };
	char *dflt[] = { (char *)build_path("ldlat-hist"),
			 "--source",
			 "page-faults",
			 "--loads",
			 "--",
			 "true",
			 NULL };
	char *out, *err, *p;
	long loads, above;

	if (!need_root("ldlat-hist --loads"))
		return;
	/* period 1: every fault a sample, so the share is exactly 100% */
	ck_assert_int_eq(run(exact, 60, &out, &err), 0);
	p = strstr(out, "loads (page-faults): ");
	ck_assert_msg(p, "%s\n%s", out, err);
	loads = strtol(p + strlen("loads (page-faults): "), NULL, 10);
	ck_assert_int_ge(loads, 300);
	p = strstr(p, "sampled page-faults: ");
	ck_assert_ptr_nonnull(p);
	above = strtol(p + strlen("sampled page-faults: "), NULL, 10);
	ck_assert_int_eq(above, loads);
	ck_assert_ptr_nonnull(strstr(p, "= 100.0000% of them"));
	free(out);
	free(err);
	/* period 10: samples x 10 is within one period of the count */
	ck_assert_int_eq(run(period, 60, &out, &err), 0);
	p = strstr(out, "loads (minor-faults): ");
	ck_assert_msg(p, "%s\n%s", out, err);
	loads = strtol(p + strlen("loads (minor-faults): "), NULL, 10);
	p = strstr(p, "sampled page-faults: ");
	ck_assert_ptr_nonnull(p);
	above = strtol(p + strlen("sampled page-faults: "), NULL, 10);
	ck_assert_int_eq(above % 10, 0);
	ck_assert_msg(above <= loads && loads - above < 10, "%ld of %ld", above, loads);
	ck_assert_ptr_nonnull(strstr(p, "samples x period 10"));
	free(out);
	free(err);
	/* the machine-readable formats carry it too */
	ck_assert_int_eq(
		sh(&out, &err, "%s",
		   "set -e; H=$LDLAT_BUILD/ldlat-hist; W=$LDLAT_BUILD/ldlat-workload; "
		   "$H --source page-faults --loads=page-faults --format json -- $W "
		   "--fault-pages 50 --base " BASE " 2>/dev/null | jq -e '.loads.event == "
		   "\"page-faults\" and .loads.fraction == 1 and .loads.count == .loads.above'"
		   " >/dev/null; "
		   "$H --source page-faults --loads=page-faults --format prometheus -- $W "
		   "--fault-pages 50 --base " BASE " 2>/dev/null > /tmp/ldlat-loads-$$.prom; "
		   "promtool check metrics < /tmp/ldlat-loads-$$.prom; "
		   "grep -q '^ldlat_loads_sampled_ratio{.*event=\"page-faults\"} 1.000000000$' "
		   "/tmp/ldlat-loads-$$.prom; rm -f /tmp/ldlat-loads-$$.prom"),
		0);
	free(out);
	free(err);
	/* this CPU's retired-loads event: libpfm4 has none here, or no PMU counts it */
	ck_assert_int_eq(run(dflt, 30, &out, &err), 1);
	ck_assert_msg(strstr(err, "ldlat-hist: --loads: "), "%s", err);
	free(out);
	free(err);
}
END_TEST

/* The number of times what occurs in s, and the sum of the numbers right after it. */
static int sum_after(const char *s, const char *what, long *sum)
{
	int n = 0;

	*sum = 0;
	for (const char *p = s; (p = strstr(p, what)); p++, n++)
		*sum += strtol(p + strlen(what), NULL, 10);
	return n;
}

/*
 * ldlat-hist --loads with -i: every report (each interval, and the last
 * partial one, new samples or not) carries the loads of its own span, so the
 * reports add up to the run; -i S,COUNT too; in JSON each line.
 */
START_TEST(test_hist_loads_intervals)
{
	char script[4200];
	char *tail[] = { (char *)build_path("ldlat-hist"),
			 "--source",
			 "page-faults",
			 "--loads=page-faults",
			 "-i",
			 "0.3",
			 "--",
			 "sh",
			 "-c",
			 script,
			 NULL };
	char *count[] = { (char *)build_path("ldlat-hist"),
			  "--source",
			  "page-faults",
			  "--loads=page-faults",
			  "-i",
			  "0.2,2",
			  "--format",
			  "text",
			  "--",
			  "sleep",
			  "30",
			  NULL };
	char *out, *err;
	long loads, sampled, seen;
	int reports;

	if (!need_root("ldlat-hist --loads -i"))
		return;
	snprintf(script, sizeof(script), "%s --fault-pages 300 --base %s; sleep 0.7",
		 build_path("ldlat-workload"), BASE);
	ck_assert_int_eq(run(tail, 60, &out, &err), 0);
	reports = sum_after(out, "filters: ", &seen);
	ck_assert_msg(reports >= 3, "%s\n%s", out, err);
	ck_assert_int_eq(sum_after(out, "loads (page-faults): ", &loads), reports);
	ck_assert_int_eq(sum_after(out, "sampled page-faults: ", &sampled), reports);
	/* each report its own span: they add up to the run's faults, counted once */
	ck_assert_msg(loads == sampled && loads == seen && loads >= 300, "%s", out);
	ck_assert_ptr_null(strstr(out, "scaled")); /* no share of a span it never ran in */
	free(out);
	free(err);

	ck_assert_int_eq(run(count, 60, &out, &err), 0);
	ck_assert_int_eq(sum_after(out, "filters: ", &seen), 2);
	ck_assert_msg(sum_after(out, "loads (page-faults): ", &loads) == 2, "%s", out);
	free(out);
	free(err);
	count[7] = "json";
	ck_assert_int_eq(run(count, 60, &out, &err), 0);
	/* each report's loads: the event's own count, the samples seen at period 1 */
	ck_assert_msg(jq_true(out, "[., inputs] | length == 2 and .[0].loads.count > 0 and "
				   "all(.[]; .loads.event == \"page-faults\" and "
				   ".loads.count == .counters.seen)"),
		      "%.1000s", out);
	ck_assert_int_eq(sum_after(out, "\"loads\":{", &loads), 2);
	free(out);
	free(err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("stat");
	TCase *tc;

	tc = tcase_create("names");
	tcase_add_test(tc, test_cache_names);
	tcase_add_loop_test(tc, test_name_aliases, 0, ARRAY_SIZE(aliases));
	tcase_add_test(tc, test_name_errors);
	tcase_add_test(tc, test_pfm_skylake);
	tcase_add_test(tc, test_pfm_zen4);
	tcase_add_test(tc, test_pfm_errors);
	tcase_add_test(tc, test_count_specs);
	suite_add_tcase(s, tc);

	tc = tcase_create("plan");
	tcase_add_test(tc, test_model_skylake_smt_watchdog);
	tcase_add_test(tc, test_model_skylake_smt_off);
	tcase_add_test(tc, test_model_zen4);
	tcase_add_test(tc, test_model_identity);
	tcase_add_test(tc, test_model_toolsconf);
	tcase_add_test(tc, test_group_never_fits);
	tcase_add_test(tc, test_model_facts);
	tcase_add_test(tc, test_needs);
	tcase_add_loop_test(tc, test_plan_all_cache, 0, ARRAY_SIZE(plan_cases));
	tcase_add_test(tc, test_plan_fixed_and_software);
	tcase_add_test(tc, test_plan_user_groups);
	tcase_add_loop_test(tc, test_plan_cli, 0, ARRAY_SIZE(plan_cases));
	tcase_add_test(tc, test_plan_word);
	suite_add_tcase(s, tc);

	tc = tcase_create("counts");
	tcase_add_test(tc, test_scaling);
	tcase_add_test(tc, test_scaling_error);
	tcase_add_test(tc, test_render_scaled);
	tcase_add_test(tc, test_render_perf_figures);
	tcase_add_test(tc, test_muxint_fixture);
	tcase_add_loop_test(tc, test_recover_forged_record, 0, ARRAY_SIZE(forged_paths));
	tcase_add_loop_test(tc, test_usage_errors, 0, ARRAY_SIZE(usage_errors));
	suite_add_tcase(s, tc);

	tc = tcase_create("runs");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_page_faults_exact, 0, 3);
	tcase_add_test(tc, test_cgroup_exact);
	tcase_add_loop_test(tc, test_cgroup_cpus, 0, 2);
	tcase_add_test(tc, test_no_pmu);
	tcase_add_test(tc, test_mux_interval_restored);
	tcase_add_test(tc, test_secure_environment);
	tcase_add_test(tc, test_per_group);
	tcase_add_test(tc, test_per_group_interrupted);
	tcase_add_test(tc, test_unprivileged);
	tcase_add_test(tc, test_intervals_and_status);
	tcase_add_loop_test(tc, test_intervals_stream, 0, 3);
	tcase_add_test(tc, test_stdout_full);
	tcase_add_test(tc, test_hist_loads);
	tcase_add_test(tc, test_hist_loads_intervals);
	tcase_add_loop_test(tc, test_formats, 0, 2);
	suite_add_tcase(s, tc);

	tc = tcase_create("perf");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_perf_csv);
	tcase_add_test(tc, test_perf_exec_faults);
	tcase_add_test(tc, test_perf_streams);
	suite_add_tcase(s, tc);

	return run_suite(s);
}
