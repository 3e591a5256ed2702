#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# A clean Debian system of this machine's release and architecture, to install
# build/ldlat.deb in as a user would (check_package).  As root.
#
#   tests/pkgroot.sh base         makes the base system if it is not there yet
#                                 (debootstrap: minbase, plus man-db,
#                                 bash-completion and systemd, whose lookups the
#                                 test asks; once, about 40 s with the mirror)
#                                 and prints its path
#   tests/pkgroot.sh new PID      a fresh WORK folder for the process PID, after
#                                 removing those of processes that died
#   tests/pkgroot.sh run WORK CMD...
#                                 runs CMD chrooted in the system, with only PATH,
#                                 HOME, LANG and TERM set: an overlay over the
#                                 base, whose changes go to WORK/upper (the base
#                                 stays as debootstrap left it), WORK/io on /mnt
#
# The base and the packages apt-get downloads into it are kept in
# LDLAT_PKGROOT_CACHE (/var/cache/ldlat/pkgroot): later runs need no network.
# Remove that folder to make the base again from the mirror (LDLAT_DEBIAN_MIRROR,
# http://deb.debian.org, as tests/kernels.sh).  Every mount is made in a mount
# namespace of the command's own (unshare), so nothing stays mounted on the host
# whatever kills it; a base is built in a folder named after its builder, and
# renamed once complete.
set -eu
cache=${LDLAT_PKGROOT_CACHE:-/var/cache/ldlat/pkgroot}
mirror=${LDLAT_DEBIAN_MIRROR:-http://deb.debian.org}
archives=$cache/archives

die() {
	echo "pkgroot.sh: $*" >&2
	exit 1
}

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, mounts, chroot)"
# shellcheck disable=SC1091
release=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[ -n "$release" ] || die "/etc/os-release names no VERSION_CODENAME: not a Debian release"
base=$cache/$release-$(dpkg --print-architecture)

# Removes the folders PREFIX-PID whose process is gone (a run killed midway);
# nothing is mounted in them (mounts die with their namespace), and rm stays
# on their file system whatever.
remove_stale() {
	for d in "$1"-*; do
		[ -d "$d" ] || continue
		pid=${d##*-}
		case $pid in '' | *[!0-9]*) continue ;; esac
		kill -0 "$pid" 2>/dev/null || rm -rf --one-file-system "$d"
	done
}

case ${1:-} in
base)
	if [ ! -f "$base/.complete" ]; then
		command -v debootstrap >/dev/null || die "debootstrap is missing: make deps installs it"
		mkdir -p "$cache" "$archives"
		remove_stale "$base.tmp"
		tmp=$base.tmp-$$
		echo "pkgroot.sh: making a $release system in $base with debootstrap from $mirror" >&2
		if ! unshare --mount debootstrap --variant=minbase \
			--include=man-db,bash-completion,systemd --cache-dir="$archives" \
			"$release" "$tmp" "$mirror/debian" >"$cache/debootstrap.log" 2>&1; then
			tail -n 5 "$cache/debootstrap.log" >&2
			rm -rf --one-file-system "$tmp"
			die "debootstrap failed (log: $cache/debootstrap.log); it needs $mirror once"
		fi
		# debootstrap leaves a copy of each package in the system too
		find "$tmp/var/cache/apt/archives" -maxdepth 1 -name '*.deb' -delete
		touch "$tmp/.complete"
		# another run that finished first keeps its base
		mv -T "$tmp" "$base" 2>/dev/null || rm -rf --one-file-system "$tmp"
	fi
	echo "$base"
	;;
new)
	[ $# = 2 ] || die "usage: $0 new PID"
	remove_stale /tmp/ldlat-pkgroot
	work=/tmp/ldlat-pkgroot-$2
	rm -rf --one-file-system "$work"
	mkdir -m 0700 "$work"
	mkdir "$work/upper" "$work/overlay" "$work/root" "$work/io"
	echo "$work"
	;;
run)
	[ $# -ge 3 ] || die "usage: $0 run WORK CMD..."
	work=$2
	shift 2
	[ -f "$base/.complete" ] || die "no base system: $0 base makes it"
	[ -d "$work/upper" ] || die "$work: not a folder $0 new made"
	exec unshare --mount sh -eu -c '
		base=$1 work=$2 archives=$3
		shift 3
		r=$work/root
		mount -t overlay overlay \
			-o "lowerdir=$base,upperdir=$work/upper,workdir=$work/overlay" "$r"
		mount -t proc proc "$r/proc"
		mount --rbind /sys "$r/sys"
		mount --rbind /dev "$r/dev"
		mount --bind "$work/io" "$r/mnt"
		mount --bind "$archives" "$r/var/cache/apt/archives"
		cp /etc/resolv.conf "$r/etc/resolv.conf"
		exec chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
			LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive "$@"
	' sh "$base" "$work" "$archives" "$@"
	;;
*)
	die "usage: $0 base | new PID | run WORK CMD..."
	;;
esac
