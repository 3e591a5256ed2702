// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * check_pfm - the encodings cross-checked against an independent oracle,
 * libpfm4: for each fixture machine and threshold, the load-latency event
 * tools.conf and sysfs give must have the config and config1 libpfm4
 * computes from its own event tables for that model (LIBPFM_FORCE_PMU makes
 * it encode for a model other than this machine's).  libpfm4 is linked into
 * this test only.  No root.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/abi/evspec.h"
#include "kernel/policy/evtable.h"
#include "kernel/policy/source.h"
#include "tests/lib/pfm_oracle.h"
#include "tests/lib/testutil.h"
#include "kernel/lib/util.h"

/* libpfm4's encoding of ev for the first model it knows; NULL when it knows none. */
static const char *pfm_encode(const char *models, const char *ev, struct pfm_encoding *o)
{
	struct err err = {};
	const char *model = pfm_oracle__encode(models, ev, o, &err);

	ck_assert_msg(!err.msg[0], "libpfm4: %s", err.msg);
	return model;
}

struct pfm_case {
	const char *sysfs, *cpu;
	int event;		/* which of the machine's load-latency events */
	const char *models;	/* libpfm4 models, the first it knows is used */
	const char *pfm_event;	/* libpfm4's name for the same event, %llu: the threshold */
	const char *pfm_leader; /* the group leader, or NULL */
};

static const struct pfm_case cases[] = {
	{ "nehalem", "GenuineIntel-6-1A", 0, "nhm",
	  "MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD:ldlat=%llu", NULL },
	{ "skylake-sp", "GenuineIntel-6-55-4", 0, "skx",
	  "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=%llu", NULL },
	{ "sapphire-rapids", "GenuineIntel-6-8F", 0, "spr",
	  "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=%llu", "LD_BLOCKS:STORE_FORWARD" },
	/* Alder Lake's P-core is Golden Cove, Sapphire Rapids' core: spr where adl_glc is unknown */
	{ "alderlake", "GenuineIntel-6-97", 0, "adl_glc,spr",
	  "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=%llu", "LD_BLOCKS:STORE_FORWARD" },
	{ "alderlake", "GenuineIntel-6-97", 1, "adl_grt",
	  "MEM_UOPS_RETIRED:LOAD_LATENCY:ldlat=%llu", NULL },
};

static const unsigned long long thresholds[] = { 3, 30, 128, 1000, 65535 };

START_TEST(test_ldlat_events_against_libpfm)
{
	const struct pfm_case *c = &cases[_i];
	struct source_opts o = { .kind = SOURCE_LDLAT };
	const struct evsel *ev;
	struct evtable t;
	struct evlist evl = {};
	struct source src;
	struct pfm_encoding want;
	struct err err = {};
	char notice[2048], name[256], sysfs[128];
	const char *model = NULL, *conf = getenv("LDLAT_CONFIG");
	unsigned int i;

	ck_assert_int_eq(evtable__load(&t, conf && *conf ? conf : "tools.conf", &err), 0);
	o.table = &t;
	snprintf(sysfs, sizeof(sysfs), "sysfs/%s", c->sysfs);
	setenv("LDLAT_SYSFS", fixture_path(sysfs), 1);
	setenv("LDLAT_CPU", c->cpu, 1);
	for (i = 0; i < ARRAY_SIZE(thresholds); i++) {
		o.ldlat = thresholds[i];
		ck_assert_msg(source__resolve(&o, &src, &evl, notice, sizeof(notice), &err) == 0,
			      "%s: %s", c->sysfs, err.msg);
		ck_assert_int_gt(evl.nevsel, c->event);
		ev = &evl.evsel[c->event];
		snprintf(name, sizeof(name), c->pfm_event, thresholds[i]);
		model = pfm_encode(c->models, name, &want);
		if (!model) {
			/* Debian 12's libpfm4 4.13 has no Alder Lake tables */
			fprintf(stderr,
				"check_pfm: not cross-checked: %s event %d, libpfm4 knows "
				"none of %s\n",
				c->sysfs, c->event, c->models);
			evlist__free(&evl);
			source__free(&src);
			break;
		}
		ck_assert_msg(ev->attr.config == want.config && ev->attr.config1 == want.config1,
			      "%s (%s) -L %llu: ours config 0x%llx config1 0x%llx, libpfm4 %s::%s "
			      "config 0x%llx config1 0x%llx",
			      c->sysfs, ev->name, thresholds[i],
			      (unsigned long long)ev->attr.config,
			      (unsigned long long)ev->attr.config1, model, name,
			      (unsigned long long)want.config, (unsigned long long)want.config1);
		/* libpfm4 encodes core events as PERF_TYPE_RAW, the type of the core PMU */
		if (ev->attr.type != 10)
			ck_assert_uint_eq(ev->attr.type, want.type);
		if (c->pfm_leader) {
			ck_assert(pfm_encode(c->models, c->pfm_leader, &want));
			ck_assert(ev->has_leader);
			ck_assert_uint_eq(ev->leader.config, want.config);
			ck_assert_uint_eq(ev->leader.config1, want.config1);
		} else {
			ck_assert(!ev->has_leader);
		}
		evlist__free(&evl);
		source__free(&src);
	}
	unsetenv("LDLAT_SYSFS");
	unsetenv("LDLAT_CPU");
	evtable__free(&t);
}
END_TEST

/*
 * AMD: libpfm4 has no IBS tables, so the core PMU's encodings are checked,
 * through the zen4 fixture's format (the event field split over config bits
 * 0-7 and 32-35), by the same encoder that encodes ibs_op.
 */
START_TEST(test_amd_core_events_against_libpfm)
{
	static const char *const pairs[][2] = {
		{ "cpu/event=0x29,umask=0x1/", "LS_DISPATCH:LD_DISPATCH" },
		{ "cpu/event=0x29,umask=0x7/",
		  "LS_DISPATCH:LD_DISPATCH:STORE_DISPATCH:LD_ST_DISPATCH" },
		{ "cpu/event=0x1a0,umask=0x1/", "DISPATCH_STALLS_1:FE_NO_OPS" },
		{ "cpu/event=0x1a0,umask=0x1e/", "DISPATCH_STALLS_1:BE_STALLS" },
		{ "cpu/event=0x120,umask=0x1/",
		  "P0_FREQ_CYCLES_NOT_IN_HALT" }, /* the kernel's ref-cycles */
		{ "cpu/event=0x76/", "CYCLES_NOT_IN_HALT" },
	};
	struct evspec spec;
	struct evspec_attr a;
	struct pfm_encoding want;
	struct err err = {};
	char notice[512];
	unsigned int i;

	setenv("LDLAT_SYSFS", fixture_path("sysfs/zen4"), 1);
	for (i = 0; i < ARRAY_SIZE(pairs); i++) {
		ck_assert_int_eq(evspec__parse(&spec, pairs[i][0], &err), 0);
		ck_assert_msg(evspec__encode(&spec.ev[0], &a, notice, sizeof(notice), &err) == 0,
			      "%s", err.msg);
		ck_assert(pfm_encode("amd64_fam19h_zen4", pairs[i][1], &want));
		ck_assert_msg(a.attr.config == want.config && a.attr.type == want.type,
			      "%s: ours 0x%llx, libpfm4 %s 0x%llx", pairs[i][0],
			      (unsigned long long)a.attr.config, pairs[i][1],
			      (unsigned long long)want.config);
		evspec_attr__free(&a);
		evspec__free(&spec);
	}
	unsetenv("LDLAT_SYSFS");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pfm");
	TCase *tc = tcase_create("libpfm4");

	tcase_add_loop_test(tc, test_ldlat_events_against_libpfm, 0, ARRAY_SIZE(cases));
	tcase_add_test(tc, test_amd_core_events_against_libpfm);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
