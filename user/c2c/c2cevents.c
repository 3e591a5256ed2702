// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kernel/abi/evspec.h"
#include "kernel/abi/sysfs.h"
#include "user/c2c/c2cevents.h"

int c2c_stores_evsel(const struct evsel *loads, struct evsel *out, struct err *err)
{
	const char *name = loads->name + (loads->name[0] == '{');
	const char *slash = strchr(name, '/');
	char pmu[64], text[128], path[256], notice[256], buf[128];
	struct evspec_attr a;
	struct evspec spec;
	int e;

	memset(out, 0, sizeof(*out));
	if (!slash || slash == name || (size_t)(slash - name) >= sizeof(pmu))
		return 0;
	snprintf(pmu, sizeof(pmu), "%.*s", (int)(slash - name), name);
	snprintf(path, sizeof(path), "bus/event_source/devices/%s/events/mem-stores", pmu);
	if (sysfs__read(path, buf, sizeof(buf)) < 0)
		return 0;
	snprintf(text, sizeof(text), "%s/mem-stores/P", pmu);
	e = evspec__parse(&spec, text, err);
	if (e)
		return e;
	e = evspec__encode(&spec.ev[0], &a, notice, sizeof(notice), err);
	evspec__free(&spec);
	if (e)
		return e;
	out->attr = a.attr;
	evspec_attr__free(&a);
	/* the samples' fields and rate as the loads' */
	out->attr.sample_type = loads->attr.sample_type;
	out->attr.freq = loads->attr.freq;
	out->attr.sample_period = loads->attr.sample_period;
	out->attr.wakeup_events = loads->attr.wakeup_events;
	out->attr.watermark = loads->attr.watermark;
	out->attr.exclude_guest = loads->attr.exclude_guest;
	out->attr.exclude_kernel = loads->attr.exclude_kernel;
	out->attr.exclude_hv = loads->attr.exclude_hv;
	out->attr.inherit = loads->attr.inherit;
	snprintf(out->name, sizeof(out->name), "%s", text);
	e = cpumap__copy(&out->cpus, &loads->cpus);
	if (e)
		return err__set(err, e, "out of memory");
	return 1;
}
