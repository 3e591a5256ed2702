// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "user/run/toolsconf.h"

int toolsconf__candidates(const char *exe, char paths[][4096], int max)
{
	char self[4096], dir[4096];
	ssize_t n;
	int i = 0;

	if (!exe) {
		n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		self[n > 0 ? n : 0] = '\0';
		exe = self;
	}
	snprintf(dir, sizeof(dir), "%s", exe);
	if (i < max)
		snprintf(paths[i++], 4096, "%s", TOOLSCONF_ETC);
	if (exe[0] == '/') {
		char *bindir = dirname(dir);

		if (i < max)
			snprintf(paths[i++], 4096, "%s/../share/ldlat/tools.conf", bindir);
		if (i < max)
			snprintf(paths[i++], 4096, "%s/../tools.conf", bindir);
	}
	return i;
}

static int toolsconf__load_named(struct evtable *t, const char *path, const char *what,
				 struct err *err)
{
	int e = evtable__load(t, path, err);

	if (e && e != -EINVAL && e != -ENOMEM)
		return err__set(err, -EINVAL, "%s '%s': cannot read it: %s", what, path,
				strerror(-e));
	return e;
}

int toolsconf__load(struct evtable *t, const char *explicit, const char *exe, struct err *err)
{
	char paths[8][4096];
	const char *env = secure_getenv("LDLAT_CONFIG");
	int i, n;

	if (explicit)
		return toolsconf__load_named(t, explicit, "--config", err);
	if (env && *env)
		return toolsconf__load_named(t, env, "LDLAT_CONFIG", err);
	n = toolsconf__candidates(exe, paths, 8);
	for (i = 0; i < n; i++) {
		char real[4096];

		if (access(paths[i], F_OK))
			continue;
		return toolsconf__load_named(t, realpath(paths[i], real) ? real : paths[i],
					     "tools.conf", err);
	}
	/* no file: the table this binary was built with (never a stale install path) */
	return evtable__load_text(t, TOOLSCONF_BUILTIN, toolsconf_builtin, err);
}
