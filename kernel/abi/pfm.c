// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfmon/pfmlib_perf_event.h>

#include "kernel/abi/pfm.h"

/*
 * libpfm4 is opened on first use rather than linked: the loader applies its
 * tables' 40,000 relocations at start-up, some 2 MiB of resident pages in
 * every tool, while only vendor event names need it.
 */
static struct {
	void *handle;
	__typeof__(pfm_initialize) *initialize;
	__typeof__(pfm_terminate) *terminate;
	__typeof__(pfm_strerror) *strerror;
	__typeof__(pfm_get_pmu_info) *get_pmu_info;
	__typeof__(pfm_get_event_info) *get_event_info;
	__typeof__(pfm_get_os_event_encoding) *get_os_event_encoding;
	char why[256]; /* why it could not be opened */
} lib;

static int pfm_status = -1; /* PFM_SUCCESS once initialised */

static bool pfm__open(void)
{
	void *h;

	if (lib.handle)
		return true;
	h = dlopen("libpfm.so.4", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(lib.why, sizeof(lib.why), "%s (Debian: install libpfm4)", dlerror());
		return false;
	}
	lib.initialize = dlsym(h, "pfm_initialize");
	lib.terminate = dlsym(h, "pfm_terminate");
	lib.strerror = dlsym(h, "pfm_strerror");
	lib.get_pmu_info = dlsym(h, "pfm_get_pmu_info");
	lib.get_event_info = dlsym(h, "pfm_get_event_info");
	lib.get_os_event_encoding = dlsym(h, "pfm_get_os_event_encoding");
	if (!lib.initialize || !lib.terminate || !lib.strerror || !lib.get_pmu_info ||
	    !lib.get_event_info || !lib.get_os_event_encoding) {
		snprintf(lib.why, sizeof(lib.why), "libpfm.so.4 lacks a function: %s", dlerror());
		dlclose(h);
		return false;
	}
	lib.handle = h;
	return true;
}

static int pfm__init(void)
{
	if (pfm_status != PFM_SUCCESS)
		pfm_status = pfm__open() ? lib.initialize() : PFM_ERR_NOINIT;
	return pfm_status;
}

/* Why pfm__init failed, or libpfm4's words for another status. */
static const char *pfm__strerror(int r)
{
	return lib.handle ? lib.strerror(r) : lib.why;
}

/* The next call starts libpfm4 again (it reads LIBPFM_FORCE_PMU when it starts). */
static void pfm__reset(void)
{
	if (pfm_status == PFM_SUCCESS)
		lib.terminate();
	pfm_status = -1;
}

void pfm__pmus(char *buf, size_t len)
{
	pfm_pmu_info_t info;
	size_t off = 0;
	int p;

	if (len)
		buf[0] = '\0';
	if (pfm__init() != PFM_SUCCESS) {
		snprintf(buf, len, "none (libpfm4 did not start)");
		return;
	}
	for (p = PFM_PMU_NONE; p < PFM_PMU_MAX && off < len; p++) {
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (lib.get_pmu_info(p, &info) != PFM_SUCCESS || !info.is_present)
			continue;
		off += snprintf(buf + off, len - off, "%s%s", off ? ", " : "", info.name);
	}
	if (!off)
		snprintf(buf, len, "none");
}

int pfm__encode(const char *name, struct pfm_encoding *enc, struct err *err)
{
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	pfm_event_info_t einfo;
	pfm_pmu_info_t pinfo;
	char *fstr = NULL, pmus[512];
	int r;

	memset(enc, 0, sizeof(*enc));
	r = pfm__init();
	if (r != PFM_SUCCESS)
		return err__set(err, -EIO,
				"libpfm4 cannot start (%s): vendor event names are unavailable",
				pfm__strerror(r));
	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	attr.size = sizeof(attr);
	arg.attr = &attr;
	arg.fstr = &fstr;
	arg.size = sizeof(arg);
	/* user and kernel, as perf counts by default */
	r = lib.get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (r != PFM_SUCCESS) {
		free(fstr);
		pfm__pmus(pmus, sizeof(pmus));
		if (r == PFM_ERR_NOTFOUND) {
			err__msg(err,
				 "libpfm4 knows no event '%s' for this CPU (its tables here: %s). "
				 "Check the name with libpfm4's showevtinfo, or set "
				 "LIBPFM_FORCE_PMU "
				 "to encode for another model",
				 name, pmus);
			return -ENOENT;
		}
		return err__set(err, -EINVAL, "event '%s': libpfm4 cannot encode it: %s", name,
				pfm__strerror(r));
	}
	enc->type = attr.type;
	enc->config = attr.config;
	enc->config1 = attr.config1;
	enc->config2 = attr.config2;
	enc->exclude_user = attr.exclude_user;
	enc->exclude_kernel = attr.exclude_kernel;
	enc->exclude_hv = attr.exclude_hv;
	snprintf(enc->fqname, sizeof(enc->fqname), "%s", fstr ? fstr : name);
	free(fstr);

	memset(&einfo, 0, sizeof(einfo));
	einfo.size = sizeof(einfo);
	memset(&pinfo, 0, sizeof(pinfo));
	pinfo.size = sizeof(pinfo);
	if (lib.get_event_info(arg.idx, PFM_OS_PERF_EVENT_EXT, &einfo) == PFM_SUCCESS &&
	    lib.get_pmu_info(einfo.pmu, &pinfo) == PFM_SUCCESS) {
		snprintf(enc->pmu, sizeof(enc->pmu), "%s", pinfo.name);
		enc->pmu_counters = pinfo.num_cntrs;
		enc->pmu_fixed = pinfo.num_fixed_cntrs;
		enc->core = pinfo.type == PFM_PMU_TYPE_CORE;
	}
	return 0;
}

int pfm__encode_for(const char *model, const char *name, struct pfm_encoding *enc, struct err *err)
{
	const char *was = getenv("LIBPFM_FORCE_PMU");
	char saved[128] = "";
	int e;

	if (was)
		snprintf(saved, sizeof(saved), "%s", was);
	pfm__reset();
	setenv("LIBPFM_FORCE_PMU", model, 1);
	e = pfm__encode(name, enc, err);
	pfm__reset();
	if (was)
		setenv("LIBPFM_FORCE_PMU", saved, 1);
	else
		unsetenv("LIBPFM_FORCE_PMU");
	return e;
}
