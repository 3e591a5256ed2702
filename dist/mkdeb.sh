#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# Builds the Debian package from a tree 'make install DESTDIR=STAGE PREFIX=/usr'
# filled: binaries stripped, man pages and changelog compressed, the library
# dependencies from dpkg-shlibdeps, md5sums; then dpkg-deb.
#
#   dist/mkdeb.sh STAGE VERSION OUT.deb
set -eu
stage=$1 version=$2 out=$3
maintainer=${DEB_MAINTAINER:-ldlat maintainers <ldlat@users.noreply.github.com>}
arch=$(dpkg --print-architecture)
doc=$stage/usr/share/doc/ldlat

# The package's version is the tools' own (dist/version.sh writes one that
# Debian accepts as it is): -V, the man pages and dpkg -l say the same.  No
# hyphen: a Debian revision would make it another string.
debver=$version
if ! dpkg --validate-version "$debver" 2>/dev/null || [ "${debver#*-}" != "$debver" ]; then
	echo "mkdeb.sh: '$version' is not a Debian version without revision (dist/version.sh)" >&2
	exit 1
fi

strip --remove-section=.comment --remove-section=.note --strip-unneeded \
	"$stage"/usr/bin/ldlat-hist "$stage"/usr/bin/ldlat-top "$stage"/usr/bin/ldlat-stat \
	"$stage"/usr/bin/ldlat-c2c
gzip -9nf "$stage"/usr/share/man/man8/*.8 "$stage"/usr/share/man/man5/*.5
install -d "$doc"
{
	echo "Files: *"
	echo "Copyright: 2024-$(date -u +%Y) the ldlat authors"
	echo "License: GPL-2.0-only or BSD-2-Clause"
	echo " See /usr/share/common-licenses/GPL-2 for the GPL, version 2."
} | sed '1i Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n' \
	>"$doc/copyright"
date=$(date -u -R -d "@${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}")
printf 'ldlat (%s) unstable; urgency=medium\n\n  * Built from %s.\n\n -- %s  %s\n' \
	"$debver" "$version" "$maintainer" "$date" | gzip -9n >"$doc/changelog.gz"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/debian" "$stage/DEBIAN"
printf 'Source: ldlat\n\nPackage: ldlat\nArchitecture: any\n' >"$tmp/debian/control"
bins=$(cd "$stage" && pwd)/usr/bin
depends=$(cd "$tmp" && dpkg-shlibdeps -O "$bins/ldlat-hist" "$bins/ldlat-top" \
	"$bins/ldlat-stat" "$bins/ldlat-c2c" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
cat >"$stage/DEBIAN/control" <<CONTROL
Package: ldlat
Version: $debver
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $size
Depends: $depends
Recommends: curl
Section: admin
Priority: optional
Homepage: https://github.com/ldlat/ldlat
Description: load-latency histograms per data source, built in the kernel by BPF
 ldlat-hist, ldlat-top, ldlat-stat and ldlat-c2c sample the CPU's load-latency
 event (Intel PEBS, AMD IBS) or page faults, and count the samples in the kernel
 with a BPF program: latency histograms per data source (L1, L2, L3, local
 or remote RAM, another core's modified line), the code and the data behind
 slow loads, the cache lines cores contend for (HITM, false sharing), and
 cache events in groups the counters can hold.
CONTROL
(cd "$stage" && find usr -type f -exec md5sum {} + | LC_ALL=C sort -k2) >"$stage/DEBIAN/md5sums"
chmod 0644 "$stage/DEBIAN/control" "$stage/DEBIAN/md5sums"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$out" >/dev/null
echo "$out"
