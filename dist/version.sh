#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# Prints ldlat's version, the one string -V, the man pages and the Debian
# package carry: the release number in the file VERSION, then how far the
# tree is from that release, as git describe counts it.
#
#   0.9.0                    the commit that set VERSION, unmodified
#   0.9.0+5.g01fc7b7         5 commits after it; 01fc7b7 is the commit
#   0.9.0+5.g01fc7b7.dirty   the same with changes not committed
#   0.9.0+shallow.g01fc7b7   a shallow clone that lacks the commit that set VERSION
#   0.9.0+nogit              a copy without .git or .tarball-version
#
# make tarball writes the version of the commit it archives into
# .tarball-version, which comes first (gnulib's git-version-gen does the
# same): a tarball imported into a packaging repository keeps its own.
# git is asked only when SRCDIR is the top of its work tree, never for a
# repository the tree was copied into.
#
# The string starts with the release's digit and holds only [0-9A-Za-z.+],
# so it is a valid Debian upstream version whatever the hash starts with,
# and dpkg --compare-versions orders it as the commits of a branch:
# 0.9.0 < 0.9.0+1.gX < 0.9.0+2.gY < 0.9.1.
#
#   dist/version.sh [--committed] [SRCDIR]
#
# --committed: the version of the commit checked out, whatever the work tree
# holds (make tarball archives that commit).
set -eu
committed=
[ "${1:-}" != --committed ] || { committed=1 && shift; }
src=$(cd "${1:-.}" && pwd -P)

fail() {
	echo "version.sh: $*" >&2
	exit 1
}

if [ -f "$src/.tarball-version" ]; then
	version=$(cat "$src/.tarball-version")
	printf '%s\n' "$version" | grep -Eqx '[0-9]+(\.[0-9]+)*(\+[0-9A-Za-z.]+)?' ||
		fail "$src/.tarball-version: '$version' is not a version this script writes"
	echo "$version"
	exit 0
fi

[ -f "$src/VERSION" ] || fail "$src/VERSION is missing: it holds the release number (0.9.0)"
release=$(cat "$src/VERSION")
printf '%s\n' "$release" | grep -Eqx '[0-9]+(\.[0-9]+)*' ||
	fail "$src/VERSION: '$release' is not a release number (digits and dots: 0.9.0)"

top=$(git -C "$src" rev-parse --show-toplevel 2>/dev/null || true)
if [ -z "$top" ] || [ "$(cd "$top" && pwd -P)" != "$src" ] ||
	! head=$(git -C "$src" rev-parse --short HEAD 2>/dev/null); then
	echo "$release+nogit"
	exit 0
fi

# the commit that last changed VERSION; in a shallow clone that did not
# fetch it, git sees the file appear at the clone's boundary
base=$(git -C "$src" log -1 --format=%H -- VERSION)
shallow=$(git -C "$src" rev-parse --git-path shallow)
case $shallow in /*) ;; *) shallow=$src/$shallow ;; esac
if [ -z "$base" ]; then
	# VERSION not committed yet: every commit counts, and the tree differs from HEAD
	count=$(git -C "$src" rev-list --count HEAD)
elif [ -f "$shallow" ] && grep -qx "$base" "$shallow"; then
	count=shallow
else
	count=$(git -C "$src" rev-list --count "$base..HEAD")
fi
dirty=
if [ -z "$committed" ] &&
	{ [ -z "$base" ] || [ -n "$(git -C "$src" status --porcelain --untracked-files=no)" ]; }; then
	dirty=.dirty
fi

if [ "$count" = 0 ] && [ -z "$dirty" ]; then
	echo "$release"
else
	echo "$release+$count.g$head$dirty"
fi
