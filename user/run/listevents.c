// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "user/run/listevents.h"
#include "user/run/session.h"
#include "user/run/toolsconf.h"
#include "kernel/abi/pmu.h"
#include "kernel/abi/sysfs.h"
#include "kernel/lib/util.h"
#include "kernel/lib/notice.h"

/* The PMU a perf_event_attr type belongs to. */
static void type__name(__u32 type, char *buf, size_t len)
{
	struct pmu pmu;

	if (!pmu__load_by_type(&pmu, type)) {
		snprintf(buf, len, "%s", pmu.name);
		pmu__free(&pmu);
		return;
	}
	snprintf(buf, len, "%s",
		 type == PERF_TYPE_HARDWARE   ? "hardware"
		 : type == PERF_TYPE_SOFTWARE ? "software"
		 : type == PERF_TYPE_RAW      ? "raw"
					      : "?");
}

static void sample_type__snprint(__u64 st, char *buf, size_t len)
{
	static const struct {
		__u64 bit;
		const char *name;
	} bits[] = {
		{ PERF_SAMPLE_IP, "IP" },
		{ PERF_SAMPLE_TID, "TID" },
		{ PERF_SAMPLE_TIME, "TIME" },
		{ PERF_SAMPLE_ADDR, "ADDR" },
		{ PERF_SAMPLE_CALLCHAIN, "CALLCHAIN" },
		{ PERF_SAMPLE_CPU, "CPU" },
		{ PERF_SAMPLE_PERIOD, "PERIOD" },
		{ PERF_SAMPLE_WEIGHT, "WEIGHT" },
		{ PERF_SAMPLE_DATA_SRC, "DATA_SRC" },
		{ PERF_SAMPLE_PHYS_ADDR, "PHYS_ADDR" },
		{ PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT_STRUCT" },
	};
	size_t off = snprintf(buf, len, "0x%llx", (unsigned long long)st);
	unsigned int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(bits) && off < len; i++)
		if (st & bits[i].bit)
			off += snprintf(buf + off, len - off, "%s%s", n++ ? "|" : " (",
					bits[i].name);
	if (n && off < len)
		snprintf(buf + off, len - off, ")");
}

static void attr__print(FILE *out, const char *indent, const struct perf_event_attr *a)
{
	char type[64], st[256];

	type__name(a->type, type, sizeof(type));
	fprintf(out, "%stype         %u (%s)\n", indent, a->type, type);
	fprintf(out, "%sconfig       0x%llx\n", indent, (unsigned long long)a->config);
	fprintf(out, "%sconfig1      0x%llx\n", indent, (unsigned long long)a->config1);
	fprintf(out, "%sconfig2      0x%llx\n", indent, (unsigned long long)a->config2);
	fprintf(out, "%sprecise_ip   %u\n", indent, a->precise_ip);
	if (a->exclude_user || a->exclude_kernel || a->exclude_hv || a->exclude_guest ||
	    a->exclude_host || a->exclude_idle)
		fprintf(out, "%sexclude     %s%s%s%s%s%s\n", indent, a->exclude_user ? " user" : "",
			a->exclude_kernel ? " kernel" : "", a->exclude_hv ? " hv" : "",
			a->exclude_guest ? " guest" : "", a->exclude_host ? " host" : "",
			a->exclude_idle ? " idle" : "");
	if (a->sample_type) {
		sample_type__snprint(a->sample_type, st, sizeof(st));
		fprintf(out, "%ssample_type  %s\n", indent, st);
	}
	if (a->freq)
		fprintf(out, "%ssampling     %llu Hz (freq)\n", indent,
			(unsigned long long)a->sample_freq);
	else if (a->sample_period)
		fprintf(out, "%ssampling     every %llu events (wakeup_events %u)\n", indent,
			(unsigned long long)a->sample_period, a->wakeup_events);
	else
		fprintf(out, "%ssampling     none (counts)\n", indent);
}

static void cpu__print(FILE *out, const struct cpu_id *id)
{
	char core[256], atom[256];

	fprintf(out, "cpu            %s%s%s%s\n", id->id, id->overridden ? " (LDLAT_CPU)" : "",
		id->x86 ? ", x86" : "", id->hypervisor ? ", virtual machine" : "");
	if (id->hybrid) {
		cpumap__snprint(&id->core, core, sizeof(core));
		cpumap__snprint(&id->atom, atom, sizeof(atom));
		fprintf(out, "core types     core %s, atom %s (from %s)\n", core, atom,
			id->types_from);
	}
}

int list_events(FILE *out, struct cli *cli, const char *tool)
{
	struct evtable table;
	struct evlist evlist = {};
	struct source src;
	struct err err = {};
	char notice[2048], cpus[512], *line, *save = NULL;
	const struct evsel *ev;
	int e, i;

	e = toolsconf__load(&table, cli->config, NULL, &err);
	if (e)
		return err__report(&err, e, tool, stderr);
	cli->source.table = &table;
	e = source__resolve(&cli->source, &src, &evlist, notice, sizeof(notice), &err);
	if (e && !src.cpu.id[0]) {
		/* no CPU to report on (a bad LDLAT_CPU): the error alone, no half report */
		goto out;
	}
	fprintf(out, "tools.conf     %s\n", table.path);
	fprintf(out, "sysfs          %s%s\n", sysfs__root(),
		strcmp(sysfs__root(), "/sys") ? " (LDLAT_SYSFS)" : "");
	cpu__print(out, &src.cpu);
	if (cli->verbose) {
		char why[512];
		enum session_path path = session__read_path(why, sizeof(why));

		fprintf(out, "read path      %s (%s)\n", session__path_name(path), why);
	}
	for (line = strtok_r(notice, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		notice__print(stderr, tool, "%s", line);
	if (e)
		goto out;
	fprintf(out, "source         %s (%s)\n", source__name(src.kind),
		src.weight_struct ? "latency from weight.var1_dw" : "latency from weight.full");
	for (i = 0; i < evlist.nevsel; i++) {
		ev = &evlist.evsel[i];
		fprintf(out, "event %d        %s\n", i + 1, ev->name);
		if (i < src.nevents) {
			const struct source_event *se = &src.ev[i];

			fprintf(out, "  why          %s\n", se->why);
			if (se->note[0])
				fprintf(out, "  note         %s\n", se->note);
			if (se->has_ldlat && se->has_range && se->ldlat_step > 1)
				fprintf(out,
					"  threshold    %llu cycles (hardware range %llu-%llu, in "
					"steps "
					"of %llu)\n",
					(unsigned long long)se->ldlat,
					(unsigned long long)se->ldlat_min,
					(unsigned long long)se->ldlat_max,
					(unsigned long long)se->ldlat_step);
			else if (se->has_ldlat && se->has_range)
				fprintf(out,
					"  threshold    %llu cycles (hardware range %llu-%llu)\n",
					(unsigned long long)se->ldlat,
					(unsigned long long)se->ldlat_min,
					(unsigned long long)se->ldlat_max);
			else if (se->has_ldlat)
				fprintf(out, "  threshold    %llu cycles\n",
					(unsigned long long)se->ldlat);
			else
				fprintf(out, "  threshold    none (every sampled load)\n");
		} else {
			fprintf(out, "  why          %s\n", src.why);
		}
		attr__print(out, "  ", &ev->attr);
		if (ev->cpus.nr) {
			cpumap__snprint(&ev->cpus, cpus, sizeof(cpus));
			fprintf(out, "  cpus         %s\n", cpus);
		} else {
			fprintf(out, "  cpus         any\n");
		}
		if (ev->has_leader) {
			fprintf(out, "  leader       %s\n", ev->leader_name);
			attr__print(out, "    ", &ev->leader);
		} else {
			fprintf(out, "  leader       none\n");
		}
	}
out:
	evlist__free(&evlist);
	source__free(&src);
	evtable__free(&table);
	return err__report(&err, e, tool, stderr);
}
