// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * check_package - what make deb ships, judged by Debian's own tools.
 *
 * The version (no root): -V of the packaged tools, the package's Version,
 * its man pages and changelog say one string, which dpkg accepts; on a
 * repository of the test's own, the string is git describe's count and
 * hash after the release in VERSION, valid for dpkg whether the hash starts
 * with a letter or a digit, ordered by dpkg as the commits, exactly the
 * release on its commit, .dirty with changes, and from .tarball-version or
 * with +nogit where there is no git of the tree's own.
 *
 * The install (root): build/ldlat.deb installed with apt-get into a clean
 * Debian system of this machine's release (tests/pkgroot.sh: debootstrap,
 * an overlay per run), its dependencies resolved from the archive; the
 * tools run from where dpkg put them (-V, --help, a real page-fault run,
 * the tools.conf they read); man, systemd and bash-completion find the
 * pages, units and completion; then purged, and the system's files are the
 * ones it had before.
 */
#include <check.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/lib/testutil.h"
#include "kernel/lib/util.h"

#define BASE	   "0x200000000000"
#define BASE_RANGE BASE "+16M"

static const char *const tools[] = { "ldlat-hist", "ldlat-top", "ldlat-stat", "ldlat-c2c" };

/*
 * Runs the command line with sh for up to 'seconds', in the Debian system of
 * pkgroot_work when given (tests/pkgroot.sh run); sh()'s contract otherwise.
 */
static int vrun(double seconds, char **out, char **err, const char *pkgroot_work, const char *fmt,
		va_list ap)
{
	char cmd[8192], pkgroot[4200], *o = NULL, *e = NULL;
	char *argv[] = { "sh", "-c", cmd, NULL };
	char *in_root[] = { pkgroot, "run", (char *)pkgroot_work, "sh", "-c", cmd, NULL };
	int rc;

	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	snprintf(pkgroot, sizeof(pkgroot), "%s/tests/pkgroot.sh", srcdir());
	rc = run(pkgroot_work ? in_root : argv, seconds, &o, &e);
	if (rc && !err)
		fprintf(stderr, "test: '%s'%s exited %d: %s%s\n", cmd,
			pkgroot_work ? " (in the Debian root)" : "", rc, o, e);
	if (out)
		*out = o;
	else
		free(o);
	if (err)
		*err = e;
	else
		free(e);
	return rc;
}

/* sh() for up to 'seconds': builds, debootstrap and apt-get take longer than 60 s */
static int shx(double seconds, char **out, char **err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int shx(double seconds, char **out, char **err, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vrun(seconds, out, err, NULL, fmt, ap);
	va_end(ap);
	return rc;
}

/* the last newline off */
static char *chomp(char *s)
{
	size_t n = strlen(s);

	if (n && s[n - 1] == '\n')
		s[n - 1] = '\0';
	return s;
}

/* ---- the version: no root ------------------------------------------------ */

/* make deb's package: the version -V prints is the package's, its man pages' and changelog's */
START_TEST(test_version_agree)
{
	char dir[] = "/tmp/ldlat-pkgx-XXXXXX", *version, *out, want[256];
	const char *src = srcdir();
	unsigned int i;

	ck_assert_int_eq(shx(600, NULL, NULL, "make -s -C '%s' deb >/dev/null", src), 0);
	ck_assert_int_eq(shx(30, &version, NULL, "dpkg-deb -f '%s/build/ldlat.deb' Version", src),
			 0);
	chomp(version);
	ck_assert_msg(shx(10, NULL, NULL, "dpkg --validate-version '%s'", version) == 0, "%s",
		      version);
	/* the tree's version, as make computes it */
	ck_assert_int_eq(shx(30, &out, NULL, "sh '%s/dist/version.sh' '%s'", src, src), 0);
	ck_assert_str_eq(chomp(out), version);
	free(out);

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(shx(30, NULL, NULL, "dpkg-deb -x '%s/build/ldlat.deb' %s", src, dir), 0);
	for (i = 0; i < ARRAY_SIZE(tools); i++) {
		ck_assert_int_eq(shx(10, &out, NULL, "%s/usr/bin/%s -V", dir, tools[i]), 0);
		snprintf(want, sizeof(want), "%s %s\n", tools[i], version);
		ck_assert_str_eq(out, want);
		free(out);
		ck_assert_int_eq(
			shx(10, &out, NULL, "zcat %s/usr/share/man/man8/%s.8.gz", dir, tools[i]),
			0);
		snprintf(want, sizeof(want), " \"ldlat %s\" ", version);
		ck_assert_msg(strstr(out, want), "%s.8 lacks %s", tools[i], want);
		free(out);
	}
	ck_assert_int_eq(shx(10, &out, NULL, "zcat %s/usr/share/man/man5/tools.conf.5.gz", dir), 0);
	ck_assert_msg(strstr(out, want), "tools.conf.5 lacks %s", want);
	free(out);
	ck_assert_int_eq(shx(10, &out, NULL, "zcat %s/usr/share/doc/ldlat/changelog.gz", dir), 0);
	snprintf(want, sizeof(want), "ldlat (%s) ", version);
	ck_assert_msg(!strncmp(out, want, strlen(want)), "%s", out);
	free(out);
	free(version);
	ck_assert_int_eq(shx(30, NULL, NULL, "rm -rf %s", dir), 0);
}
END_TEST

/* make check-deb: lintian finds no error or warning; mkdeb.sh refuses what Debian would */
START_TEST(test_lintian)
{
	char *out, *err;

	ck_assert_int_eq(shx(600, &out, &err, "make -s -C '%s' check-deb", srcdir()), 0);
	ck_assert_ptr_nonnull(strstr(out, "check-deb: lintian finds no error or warning"));
	free(out);
	free(err);
	/* a bare hash that starts with a letter: not a Debian version */
	ck_assert_int_eq(
		shx(30, &out, &err, "'%s/dist/mkdeb.sh' /nonexistent a140885 /dev/null", srcdir()),
		1);
	ck_assert_ptr_nonnull(strstr(err, "mkdeb.sh: 'a140885' is not a Debian version"));
	free(out);
	free(err);
}
END_TEST

/*
 * A repository of the test's own, holding the Makefile and dist/version.sh
 * of this tree, VERSION 1.2.3 committed: the version scheme on a history the
 * test makes.  git -c: no identity or configuration of the machine needed.
 */
#define GIT "git -c user.name=ldlat-test -c user.email=test@ldlat.invalid -c commit.gpgsign=false"

static void repo_make(char *dir)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(shx(30, NULL, NULL,
			     "cd %s && git init -q && mkdir dist && cp '%s/Makefile' . && "
			     "cp '%s/dist/version.sh' dist/ && echo 1.2.3 > VERSION && "
			     "git add . && " GIT " commit -q -m 'release 1.2.3'",
			     dir, srcdir(), srcdir()),
			 0);
}

/* what make puts into -V in the tree at dir (its build/version) */
static char *version_of(const char *dir)
{
	char *out;

	ck_assert_int_eq(shx(60, NULL, NULL, "make -s -C %s build/version", dir), 0);
	ck_assert_int_eq(shx(10, &out, NULL, "cat %s/build/version", dir), 0);
	return chomp(out);
}

static char *head_of(const char *dir)
{
	char *out;

	ck_assert_int_eq(shx(10, &out, NULL, "git -C %s rev-parse --short HEAD", dir), 0);
	return chomp(out);
}

static bool dpkg_lt(const char *a, const char *b)
{
	return shx(10, NULL, NULL, "dpkg --compare-versions '%s' lt '%s'", a, b) == 0;
}

/*
 * Commit after commit: the version is git describe's count and hash after
 * the release (tagged here, for git describe to count from), valid for dpkg
 * whatever the hash starts with, and ordered by dpkg as the commits are.
 * A package built with a hash that starts with a letter passes lintian.
 */
START_TEST(test_version_describe)
{
	char dir[] = "/tmp/ldlat-version-XXXXXX", *prev, *v, *desc, want[256], hash[64];
	char stage[] = "/tmp/ldlat-stage-XXXXXX", *letter = NULL, *out, *err;
	unsigned int n, i;
	bool digit = false;

	repo_make(dir);
	prev = version_of(dir);
	ck_assert_str_eq(prev, "1.2.3");
	ck_assert_int_eq(shx(10, NULL, NULL, "cd %s && " GIT " tag -a v1.2.3 -m 1.2.3", dir), 0);
	/* a hash is hex: each commit's first digit is a letter 6 times in 16 */
	for (i = 1; i <= 64 && !(letter && digit); i++) {
		ck_assert_int_eq(shx(10, NULL, NULL,
				     "cd %s && " GIT " commit -q --allow-empty -m 'c%u'", dir, i),
				 0);
		v = version_of(dir);
		ck_assert_int_eq(
			shx(10, &desc, NULL, "git -C %s describe --long --match v1.2.3 HEAD", dir),
			0);
		ck_assert_msg(sscanf(desc, "v1.2.3-%u-g%63s", &n, hash) == 2, "%s", desc);
		ck_assert_uint_eq(n, i);
		snprintf(want, sizeof(want), "1.2.3+%u.g%s", n, hash);
		ck_assert_str_eq(v, want);
		ck_assert_msg(shx(10, NULL, NULL, "dpkg --validate-version '%s'", v) == 0, "%s", v);
		ck_assert_msg(dpkg_lt(prev, v), "dpkg orders %s after %s", prev, v);
		if (hash[0] >= 'a' && hash[0] <= 'f' && !letter)
			letter = strdup(v);
		if (hash[0] >= '0' && hash[0] <= '9')
			digit = true;
		free(desc);
		free(prev);
		prev = v;
	}
	ck_assert_msg(letter && digit, "64 commits without a hash of each kind");
	free(prev);

	/* the package, with this tree's tools, at the version of a hash starting with a letter */
	ck_assert_ptr_nonnull(mkdtemp(stage));
	ck_assert_int_eq(shx(600, NULL, NULL,
			     "make -s -C '%s' install DESTDIR=%s/root PREFIX=/usr >/dev/null && "
			     "'%s/dist/mkdeb.sh' %s/root '%s' %s/ldlat.deb >/dev/null",
			     srcdir(), stage, srcdir(), stage, letter, stage),
			 0);
	ck_assert_int_eq(shx(10, &out, NULL, "dpkg-deb -f %s/ldlat.deb Version", stage), 0);
	ck_assert_str_eq(chomp(out), letter);
	free(out);
	ck_assert_msg(shx(120, &out, &err, "lintian --fail-on error,warning %s/ldlat.deb", stage) ==
			      0,
		      "lintian on version %s: %s%s", letter, out, err);
	free(out);
	free(err);
	free(letter);
	ck_assert_int_eq(shx(30, NULL, NULL, "rm -rf %s %s", dir, stage), 0);
}
END_TEST

/*
 * The next release is exactly its number and sorts after every build
 * before it; changes not committed add .dirty; make tarball archives the
 * commit, its .tarball-version read first, and a tree without it and without
 * git of its own (here inside another repository) says +nogit.  A VERSION
 * that is not a release number stops the build.
 */
START_TEST(test_version_release)
{
	char dir[] = "/tmp/ldlat-version-XXXXXX", tree[256], *before, *v, *head, want[256];
	char *out, *err;

	repo_make(dir);
	ck_assert_int_eq(shx(10, NULL, NULL,
			     "cd %s && " GIT " commit -q --allow-empty -m c1 && " GIT
			     " commit -q --allow-empty -m c2",
			     dir),
			 0);
	before = version_of(dir);
	head = head_of(dir);
	snprintf(want, sizeof(want), "1.2.3+2.g%s", head);
	ck_assert_str_eq(before, want);
	free(head);

	ck_assert_int_eq(
		shx(10, NULL, NULL,
		    "cd %s && echo 1.2.4 > VERSION && " GIT " commit -q -am 'release 1.2.4'", dir),
		0);
	v = version_of(dir);
	ck_assert_str_eq(v, "1.2.4");
	ck_assert_msg(dpkg_lt(before, v), "dpkg orders %s after %s", before, v);
	free(before);
	before = v;

	ck_assert_int_eq(shx(10, NULL, NULL, "echo '# a change' >> %s/Makefile", dir), 0);
	v = version_of(dir);
	head = head_of(dir);
	snprintf(want, sizeof(want), "1.2.4+0.g%s.dirty", head);
	ck_assert_str_eq(v, want);
	ck_assert_msg(dpkg_lt(before, v), "dpkg orders %s after %s", before, v);
	ck_assert_int_eq(shx(10, NULL, NULL, "dpkg --validate-version '%s'", v), 0);
	free(head);
	free(before);
	free(v);

	/* the tarball of the commit, made from the changed tree, unpacked inside the repository */
	ck_assert_int_eq(shx(60, &out, NULL, "make -s -C %s tarball", dir), 0);
	ck_assert_str_eq(out, "build/ldlat-1.2.4.tar.gz\n");
	free(out);
	ck_assert_int_eq(
		shx(10, NULL, NULL,
		    "mkdir %s/build/x && tar -xzf %s/build/ldlat-1.2.4.tar.gz -C %s/build/x", dir,
		    dir, dir),
		0);
	snprintf(tree, sizeof(tree), "%s/build/x/ldlat-1.2.4", dir);
	/* the commit's files, not the change */
	ck_assert_int_eq(shx(10, NULL, &err, "grep -c 'a change' %s/Makefile", tree), 1);
	free(err);
	v = version_of(tree);
	ck_assert_str_eq(v, "1.2.4");
	free(v);
	ck_assert_int_eq(shx(10, NULL, NULL, "rm %s/.tarball-version %s/build/version", tree, tree),
			 0);
	v = version_of(tree);
	ck_assert_str_eq(v, "1.2.4+nogit");
	free(v);

	/* not a release number: make stops, naming the file */
	ck_assert_int_eq(shx(10, NULL, NULL, "echo v1.3 > %s/VERSION", tree), 0);
	ck_assert_int_ne(shx(30, &out, &err, "make -s -C %s build/version", tree), 0);
	ck_assert_msg(strstr(err, "VERSION: 'v1.3' is not a release number"), "%s", err);
	free(out);
	free(err);
	ck_assert_int_eq(shx(30, NULL, NULL, "rm -rf %s", dir), 0);
}
END_TEST

/*
 * A shallow clone that lacks the release's commit, or whose boundary is that
 * commit, cannot count: it says so (+shallow), valid for dpkg; one that holds
 * the release's commit and its parent counts as a full clone.
 */
START_TEST(test_version_shallow)
{
	static const struct {
		int depth;
		const char *want;
	} clones[] = { { 1, "1.2.4+shallow.g" }, { 4, "1.2.4+shallow.g" }, { 5, "1.2.4+3.g" } };
	char dir[] = "/tmp/ldlat-version-XXXXXX", clone[256], *v, *head, want[256];
	unsigned int i;

	/* 1.2.3, c1, release 1.2.4, c2, c3, c4 */
	repo_make(dir);
	ck_assert_int_eq(shx(10, NULL, NULL,
			     "cd %s && " GIT
			     " commit -q --allow-empty -m c1 && echo 1.2.4 > VERSION "
			     "&& " GIT " commit -q -am 'release 1.2.4' && for i in 2 3 4; do " GIT
			     " commit -q --allow-empty -m c$i || exit 1; done",
			     dir),
			 0);
	head = head_of(dir);
	for (i = 0; i < ARRAY_SIZE(clones); i++) {
		snprintf(clone, sizeof(clone), "%s/depth%d", dir, clones[i].depth);
		ck_assert_int_eq(shx(30, NULL, NULL, "git clone -q --depth %d file://%s %s",
				     clones[i].depth, dir, clone),
				 0);
		v = version_of(clone);
		snprintf(want, sizeof(want), "%s%s", clones[i].want, head);
		ck_assert_msg(!strcmp(v, want), "--depth %d: %s, not %s", clones[i].depth, v, want);
		ck_assert_int_eq(shx(10, NULL, NULL, "dpkg --validate-version '%s'", v), 0);
		free(v);
	}
	free(head);
	ck_assert_int_eq(shx(30, NULL, NULL, "rm -rf %s", dir), 0);
}
END_TEST

/* ---- the install: root, in a Debian system of the test's own ------------- */

static char work[4096];	  /* tests/pkgroot.sh new's folder: io/ is the system's /mnt */
static char version[256]; /* the package's */

/* sh() in the Debian system, for up to 'seconds' */
static int in_root(double seconds, char **out, char **err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int in_root(double seconds, char **out, char **err, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vrun(seconds, out, err, work, fmt, ap);
	va_end(ap);
	return rc;
}

/*
 * The files of the system, but what dpkg, apt and man-db keep of their own
 * (their databases, caches, logs) and the run-time folders
 */
#define SNAPSHOT                                                                                   \
	"find / -xdev \\( -path /var/lib/dpkg -o -path /var/lib/apt -o -path /var/cache -o "       \
	"-path /var/log -o -path /tmp -o -path /run -o -path /mnt \\) -prune -o -print | "         \
	"LC_ALL=C sort"

/* once for the case: the package built, the base system made, a system for this run */
static void install_setup(void)
{
	const char *src = srcdir();
	char *out;

	ck_assert_int_eq(shx(600, NULL, NULL, "make -s -C '%s' deb >/dev/null", src), 0);
	ck_assert_int_eq(shx(900, NULL, NULL, "'%s/tests/pkgroot.sh' base", src), 0);
	ck_assert_int_eq(shx(60, &out, NULL, "'%s/tests/pkgroot.sh' new %d", src, (int)getpid()),
			 0);
	snprintf(work, sizeof(work), "%s", chomp(out));
	free(out);
	ck_assert_int_eq(shx(30, NULL, NULL, "cp '%s/build/ldlat.deb' '%s' %s/io/", src,
			     build_path("ldlat-workload"), work),
			 0);
	ck_assert_int_eq(shx(30, &out, NULL, "dpkg-deb -f %s/io/ldlat.deb Version", work), 0);
	snprintf(version, sizeof(version), "%s", chomp(out));
	free(out);
}

static void install_teardown(void)
{
	if (work[0])
		shx(60, NULL, NULL, "rm -rf --one-file-system %s", work);
}

/*
 * apt-get installs the package and what it depends on from the archive
 * (dpkg underneath): every file of the package is where dpkg -L says
 */
START_TEST(test_install)
{
	char *out, *err;

	ck_assert_int_eq(in_root(120, NULL, NULL, SNAPSHOT " > /mnt/before"), 0);
	ck_assert_msg(in_root(600, &out, &err,
			      "apt-get install -y -q --no-install-recommends /mnt/ldlat.deb") == 0,
		      "apt-get install failed (a package the cached lists name may have left "
		      "the mirror: rm -rf /var/cache/ldlat/pkgroot makes the system again):\n%s%s",
		      out, err);
	free(out);
	free(err);
	ck_assert_int_eq(
		in_root(30, &out, NULL, "dpkg-query -W -f '${db:Status-Abbrev}${Version}' ldlat"),
		0);
	ck_assert_msg(!strncmp(out, "ii ", 3) && !strcmp(out + 3, version), "%s", out);
	free(out);
	/* the package's paths (dpkg-deb) are the ones dpkg installed */
	ck_assert_int_eq(in_root(30, &out, NULL,
				 "dpkg-deb -c /mnt/ldlat.deb | awk '{ print $6 }' | "
				 "sed -e 's|^\\./|/|' -e 's|/$||' -e 's|^$|/.|' | LC_ALL=C sort "
				 "> /tmp/deb && dpkg -L ldlat | LC_ALL=C sort > /tmp/dpkg && "
				 "diff /tmp/deb /tmp/dpkg && wc -l < /tmp/deb"),
			 0);
	ck_assert_int_gt(atoi(out), 20);
	free(out);
}
END_TEST

/* the tools as a user finds them: on PATH, -V, --help, a real run, the tools.conf they read */
START_TEST(test_tools_run)
{
	char *out, *err, want[512];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tools); i++) {
		ck_assert_int_eq(in_root(30, &out, NULL, "command -v %s", tools[i]), 0);
		snprintf(want, sizeof(want), "/usr/bin/%s\n", tools[i]);
		ck_assert_str_eq(out, want);
		free(out);
		ck_assert_int_eq(in_root(30, &out, NULL, "%s -V", tools[i]), 0);
		snprintf(want, sizeof(want), "%s %s\n", tools[i], version);
		ck_assert_str_eq(out, want);
		free(out);
		ck_assert_int_eq(in_root(30, &out, NULL, "%s --help", tools[i]), 0);
		snprintf(want, sizeof(want), "Usage: %s ", tools[i]);
		ck_assert_msg(!strncmp(out, want, strlen(want)), "%s", out);
		free(out);
	}
	/* the workload's first touches, counted exactly: perf events and BPF from the package */
	ck_assert_int_eq(in_root(60, &out, &err,
				 "ldlat-hist --source page-faults -a " BASE_RANGE
				 " -- /mnt/ldlat-workload --fault-pages 50 --base " BASE),
			 0);
	ck_assert_msg(count_for(out, BASE_RANGE) == 50, "%s\n%s", out, err);
	free(out);
	free(err);
	/* the table dpkg installed is the one the tools read */
	ck_assert_int_eq(in_root(30, &out, NULL,
				 "ldlat-hist list-events --source page-faults && "
				 "dpkg -S /usr/share/ldlat/tools.conf"),
			 0);
	ck_assert_msg(strstr(out, "tools.conf     /usr/share/ldlat/tools.conf\n"), "%s", out);
	ck_assert_msg(strstr(out, "ldlat: /usr/share/ldlat/tools.conf\n"), "%s", out);
	free(out);
}
END_TEST

/* man finds every page by name, and shows the package's version */
START_TEST(test_man)
{
	char *out, *p, want[512];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tools); i++) {
		ck_assert_int_eq(in_root(30, &out, NULL, "man -w %s", tools[i]), 0);
		snprintf(want, sizeof(want), "/usr/share/man/man8/%s.8.gz\n", tools[i]);
		ck_assert_str_eq(out, want);
		free(out);
	}
	ck_assert_int_eq(in_root(30, &out, NULL, "man -w 5 tools.conf"), 0);
	ck_assert_str_eq(out, "/usr/share/man/man5/tools.conf.5.gz\n");
	free(out);
	ck_assert_int_eq(in_root(30, &out, NULL, "MANWIDTH=100 man ldlat-hist | col -b"), 0);
	ck_assert_ptr_nonnull(strstr(out, "SYNOPSIS"));
	ck_assert_ptr_nonnull(strstr(out, "-e, --event=SPEC"));
	/* the footer: the version, then the date */
	snprintf(want, sizeof(want), "\nldlat %s", version);
	p = strstr(out, want);
	ck_assert_msg(p && isspace((unsigned char)p[strlen(want)]), "no '%s' footer: %.300s",
		      want + 1, out + (strlen(out) > 300 ? strlen(out) - 300 : 0));
	free(out);
	ck_assert_int_eq(in_root(30, &out, NULL, "MANWIDTH=100 man 5 tools.conf | col -b"), 0);
	ck_assert_ptr_nonnull(strstr(out, "page-faults-period = N"));
	free(out);
}
END_TEST

/* systemd finds the units, and verifies them against the installed files */
START_TEST(test_units)
{
	static const char *const units[] = { "ldlat-hist@.service", "ldlat-textfile@.service",
					     "ldlat-textfile@.timer" };
	char *out, *err, want[256];
	unsigned int i;

	ck_assert_int_eq(in_root(30, &out, NULL, "systemctl list-unit-files 'ldlat*'"), 0);
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		snprintf(want, sizeof(want), "\n%s ", units[i]);
		ck_assert_msg(strstr(out, want), "%s not found by systemd:\n%s", units[i], out);
	}
	free(out);
	/* the commands they run and the page they name are the installed ones */
	ck_assert_msg(in_root(60, &out, &err,
			      "systemd-analyze verify ldlat-hist@x.service "
			      "ldlat-textfile@x.service ldlat-textfile@x.timer") == 0 &&
			      !*out && !*err,
		      "%s%s", out, err);
	free(out);
	free(err);
	ck_assert_int_eq(in_root(30, &out, NULL,
				 "grep -h '^ExecStart=/usr/bin/ldlat-hist ' "
				 "/usr/lib/systemd/system/ldlat-hist@.service "
				 "/usr/lib/systemd/system/ldlat-textfile@.service | wc -l && "
				 "for d in $(sed -n 's/^Documentation=file://p' "
				 "/usr/lib/systemd/system/ldlat-*); do test -f $d || exit 1; done"),
			 0);
	ck_assert_str_eq(out, "2\n");
	free(out);
}
END_TEST

/* bash-completion loads the completion of each tool by its name, where it looks */
START_TEST(test_completion)
{
	char *out, want[256];
	unsigned int i;

	ck_assert_int_eq(
		in_root(30, &out, NULL,
			"bash -c 'source /usr/share/bash-completion/bash_completion; "
			"for t in ldlat-hist ldlat-top ldlat-stat ldlat-c2c; do "
			"_completion_loader $t; complete -p $t; done; "
			"COMP_WORDS=(ldlat-hist --sou); COMP_CWORD=1; COMP_LINE=\"ldlat-hist "
			"--sou\"; "
			"COMP_POINT=${#COMP_LINE}; _ldlat; echo \"reply: ${COMPREPLY[*]}\"'"),
		0);
	for (i = 0; i < ARRAY_SIZE(tools); i++) {
		snprintf(want, sizeof(want), "complete -F _ldlat %s\n", tools[i]);
		ck_assert_msg(strstr(out, want), "%s", out);
	}
	ck_assert_msg(strstr(out, "reply: --source=\n"), "%s", out);
	free(out);
}
END_TEST

/*
 * dpkg --purge: dpkg forgets the package; with what apt-get installed for
 * it removed too, the system holds the files it held before
 */
START_TEST(test_purge)
{
	char *out, *err;

	ck_assert_int_eq(in_root(120, NULL, NULL, "dpkg --purge ldlat"), 0);
	ck_assert_int_eq(in_root(30, &out, &err, "dpkg -L ldlat"), 1);
	ck_assert_msg(strstr(err, "package 'ldlat' is not installed"), "%s", err);
	free(out);
	free(err);
	ck_assert_int_eq(in_root(300, NULL, NULL, "apt-get autoremove --purge -y -q"), 0);
	ck_assert_int_eq(in_root(120, NULL, NULL, SNAPSHOT " > /mnt/after"), 0);
	ck_assert_msg(
		in_root(30, &out, &err, "diff /mnt/before /mnt/after") == 0,
		"the system's files after the purge differ from before the install:\n%.2000s%s",
		out, err);
	free(out);
	free(err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("package");
	TCase *tc;

	tc = tcase_create("version");
	tcase_set_timeout(tc, 900);
	tcase_add_test(tc, test_version_agree);
	tcase_add_test(tc, test_lintian);
	tcase_add_test(tc, test_version_describe);
	tcase_add_test(tc, test_version_release);
	tcase_add_test(tc, test_version_shallow);
	suite_add_tcase(s, tc);

	if (need_root("check_package's install (debootstrap, mounts, perf events and BPF)")) {
		/* in order: each step uses what the one before it left */
		tc = tcase_create("install");
		tcase_set_timeout(tc, 900);
		tcase_add_unchecked_fixture(tc, install_setup, install_teardown);
		tcase_add_test(tc, test_install);
		tcase_add_test(tc, test_tools_run);
		tcase_add_test(tc, test_man);
		tcase_add_test(tc, test_units);
		tcase_add_test(tc, test_completion);
		tcase_add_test(tc, test_purge);
		suite_add_tcase(s, tc);
	}
	return run_suite(s);
}
