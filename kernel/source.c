// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source.h"
#include "pmu.h"
#include "sysfs.h"
#include "../bpf/ldlat.h"

const char *source__name(enum source_kind kind)
{
	switch (kind) {
	case SOURCE_LDLAT:
		return "ldlat";
	case SOURCE_PAGE_FAULTS:
		return "page-faults";
	default:
		return "auto";
	}
}

bool host__is_vm(void)
{
	char line[8192];
	bool vm = false;
	FILE *f = fopen("/proc/cpuinfo", "re");

	if (!f)
		return false;
	while (!vm && fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags", 5) && strstr(line, " hypervisor"))
			vm = true;
	fclose(f);
	return vm;
}

static void source__set_rate(struct perf_event_attr *attr, const struct source_opts *o,
			     __u64 dflt_period, __u64 dflt_freq)
{
	if (o->freq || (!o->period && dflt_freq)) {
		attr->freq = 1;
		attr->sample_freq = o->freq ? o->freq : dflt_freq;
	} else {
		attr->sample_period = o->period ? o->period : dflt_period;
	}
}

static int source__page_faults(const struct source_opts *o, struct source *src,
			       struct evlist *evlist)
{
	struct evsel ev = {};

	ev.attr.size = sizeof(ev.attr);
	ev.attr.type = PERF_TYPE_SOFTWARE;
	ev.attr.config = PERF_COUNT_SW_PAGE_FAULTS;
	ev.attr.sample_type = PERF_SAMPLE_ADDR | (o->sample_ip ? PERF_SAMPLE_IP : 0);
	source__set_rate(&ev.attr, o, SOURCE_DEFAULT_PF_PERIOD, 0);
	if (ev.attr.freq)
		snprintf(ev.name, sizeof(ev.name), "page-faults (%llu Hz)",
			 (unsigned long long)ev.attr.sample_freq);
	else
		snprintf(ev.name, sizeof(ev.name), "page-faults (period %llu)",
			 (unsigned long long)ev.attr.sample_period);
	src->kind = SOURCE_PAGE_FAULTS;
	src->fields = LDLAT_HAS_ADDR;
	src->weight_struct = false;
	snprintf(src->why, sizeof(src->why), "software event page-faults, address only");
	return evlist__add(evlist, &ev);
}

/*
 * The load-latency event from the kernel's own alias (events/mem-loads, which
 * Intel core PMUs export with the threshold as the 'ldlat' term).  The full
 * per-model table comes from tools.conf.
 */
static int source__ldlat_alias(const struct source_opts *o, struct source *src,
			       struct evlist *evlist, char *err, size_t errlen)
{
	__u64 ldlat = o->ldlat ? o->ldlat : SOURCE_DEFAULT_LDLAT;
	char **names;
	int i, n, found = 0, e = 0;
	const char *alias;
	struct pmu pmu;

	n = pmu__list(&names);
	if (n < 0) {
		snprintf(err, errlen, "cannot list PMUs in %s/bus/event_source/devices: %s",
			 sysfs__root(), strerror(-n));
		return n;
	}
	for (i = 0; i < n && !e; i++) {
		struct evsel ev = {};
		const struct pmu_format *lf;

		if (pmu__load(&pmu, names[i]))
			continue;
		alias = pmu__alias(&pmu, "mem-loads");
		if (!alias) {
			pmu__free(&pmu);
			continue;
		}
		ev.attr.size = sizeof(ev.attr);
		ev.attr.type = pmu.type;
		e = pmu__apply_terms(&pmu, alias, &ev.attr, err, errlen);
		lf = pmu__format(&pmu, "ldlat");
		if (!e && lf) {
			e = pmu_format__encode(lf, ldlat, &ev.attr);
			if (e == -ERANGE)
				snprintf(err, errlen,
					 "--ldlat %llu does not fit %s's ldlat field (%d bits)",
					 (unsigned long long)ldlat, pmu.name,
					 __builtin_popcountll(lf->mask));
		}
		if (e) {
			pmu__free(&pmu);
			break;
		}
		/* mem-loads is a PEBS event: it needs precise_ip >= 1 */
		ev.attr.precise_ip = pmu.max_precise > 0 ? (pmu.max_precise > 3 ? 3 : pmu.max_precise) : 2;
		ev.attr.exclude_guest = 1;
		ev.attr.sample_type = PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT_STRUCT |
				      (o->sample_ip ? PERF_SAMPLE_IP : 0);
		source__set_rate(&ev.attr, o, 0, SOURCE_DEFAULT_LDLAT_HZ);
		/*
		 * Large PEBS: with a fixed period and no wakeup the kernel batches PEBS
		 * records and runs the BPF program only on the last of each batch.
		 * Frequency mode keeps it off; a fixed period keeps it off with a
		 * wakeup on every sample (wakeup_events = 1, watermark = 0).
		 */
		if (!ev.attr.freq) {
			ev.attr.wakeup_events = 1;
			ev.attr.watermark = 0;
		}
		snprintf(ev.name, sizeof(ev.name), "%s/mem-loads,ldlat=%llu/%s", pmu.name,
			 (unsigned long long)ldlat,
			 ev.attr.precise_ip >= 3 ? "ppp" : ev.attr.precise_ip == 2 ? "pp" : "p");
		if (pmu.cpus.nr) {
			ev.cpus = pmu.cpus;
			pmu.cpus.cpu = NULL;
			pmu.cpus.nr = 0;
		}
		e = evlist__add(evlist, &ev);
		cpumap__free(&ev.cpus);
		if (!found)
			snprintf(src->why, sizeof(src->why), "sysfs alias %s/events/mem-loads (%s)",
				 pmu.name, alias);
		found++;
		pmu__free(&pmu);
	}
	pmu__list_free(names, n);
	if (e)
		return e;
	if (!found) {
		char pmus[1024];

		pmu__list_snprint(pmus, sizeof(pmus));
		snprintf(err, errlen,
			 "no load-latency event on this machine: no PMU has a mem-loads event "
			 "(PMUs here: %s).%s Use --source page-faults to sample page faults by "
			 "address instead, or --source auto",
			 pmus,
			 host__is_vm() ? " This is a virtual machine (hypervisor CPU flag): "
					 "hypervisors rarely pass PEBS or IBS through."
				       : "");
		return -ENOENT;
	}
	src->kind = SOURCE_LDLAT;
	src->fields = LDLAT_HAS_ADDR | LDLAT_HAS_LAT | LDLAT_HAS_DSRC;
	src->weight_struct = true;
	return 0;
}

int source__resolve(const struct source_opts *opts, struct source *src, struct evlist *evlist,
		    char *notice, size_t noticelen, char *err, size_t errlen)
{
	int e;

	if (noticelen)
		notice[0] = '\0';
	if (opts->kind == SOURCE_PAGE_FAULTS)
		return source__page_faults(opts, src, evlist);
	e = source__ldlat_alias(opts, src, evlist, err, errlen);
	if (e == -ENOENT && opts->kind == SOURCE_AUTO) {
		snprintf(notice, noticelen,
			 "no load-latency PMU here%s; sampling page faults instead "
			 "(addresses only, no latency or data source)",
			 host__is_vm() ? " (virtual machine)" : "");
		return source__page_faults(opts, src, evlist);
	}
	return e;
}
