#!/bin/sh
# make test-kernels: boots Debian's own kernels under QEMU (TCG: no KVM
# needed) and runs the suites that load the BPF program inside each, to show
# the program passes each kernel's verifier, reads what each kernel gives it,
# and picks the read path each kernel can serve (docs/kernels.md).
#
# The guest is the kernel and a busybox initramfs that mounts this machine's
# root read-only over 9p (virtio) and chroots into it: the guest runs the
# very binaries built here, with every library and tool the suites use, on
# its own kernel (its own verifier, BPF JIT, perf events, cgroups, bpffs).
# tests/kernels-guest.sh is what runs inside; it prints marked lines on the
# serial console, which this script reads.
#
# Kernel packages are fetched once with apt-get download (a private package
# list: this machine's apt sources are not touched) into LDLAT_KERNEL_CACHE,
# /var/cache/ldlat/kernels by default.  LDLAT_KERNELS picks kernels by
# their names below (default: all).
set -eu
cd "$(dirname "$0")/.."
top=$PWD
cache=${LDLAT_KERNEL_CACHE:-/var/cache/ldlat/kernels}
work=$top/build/kernels
mirror=${LDLAT_DEBIAN_MIRROR:-http://deb.debian.org}
start=$(date +%s)

# name, package pattern (newest match), the read path it must get, the
# guest's extra case, the suites (tests/kernels-guest.sh; "-": its default).
# 5.10 leaves out pinned sets (perf-event BPF links, which pins are, came in
# 5.15: libbpf attaches by ioctl there) and check_e2e's command case (its
# --event test asks for PERF_SAMPLE_WEIGHT_STRUCT, which came in 5.12).
kernels='
6.1 linux-image-6.1.0-[0-9]*-amd64-unsigned probe-read lockdown -
6.12 linux-image-6.12.[0-9]*+deb12-amd64-unsigned kern-ctx nojit -
5.10 linux-image-5.10.0-[0-9]*-amd64-unsigned probe-read none check_bpf:test_run,check_e2e:targets,check_top:e2e,check_unwind:walk
'
want=${LDLAT_KERNELS:-6.1 6.12 5.10}

die() {
	echo "test-kernels: $*" >&2
	exit 1
}

[ "$(id -u)" = 0 ] || die "needs root (apt-get download into $cache, and the suites run as root in the guest)"
for t in qemu-system-x86_64 busybox apt-get dpkg-deb cpio modinfo xz; do
	command -v $t >/dev/null || die "$t is missing: make deps installs it"
done
busybox=$(command -v busybox)
# the initramfs has no libraries: busybox-static's
ldd "$busybox" >/dev/null 2>&1 && die "$busybox is not static: install busybox-static (make deps)"
[ -x build/ldlat-hist ] && [ -x build/tests/check_bpf ] || die "build the tests first: make tests"

# The package lists, private to the cache: bookworm (6.1, and 6.12 from
# its security updates), bullseye (5.10).  Refreshed once a day.
mkdir -p "$cache/apt/lists/partial" "$cache/apt/cache/archives/partial" "$work"
cat >"$cache/apt/sources.list" <<EOF
deb $mirror/debian bookworm main
deb $mirror/debian-security bookworm-security main
deb $mirror/debian bullseye main
deb $mirror/debian-security bullseye-security main
EOF
APT="-o Dir::Etc::SourceList=$cache/apt/sources.list -o Dir::Etc::SourceParts=/nonexistent
 -o Dir::State::Lists=$cache/apt/lists -o Dir::Cache=$cache/apt/cache -o Debug::NoLocking=1
 -o APT::Sandbox::User=root"
if [ -z "$(find "$cache/apt/lists" -name '*Packages*' -mtime -1 2>/dev/null | head -1)" ]; then
	# shellcheck disable=SC2086
	apt-get $APT update -q >"$work/apt-update.log" 2>&1 ||
		die "apt-get update of the kernel package lists failed (see $work/apt-update.log)"
fi

# Unpacks vmlinuz and the modules the guest needs (9p over virtio) from a
# package, and lists those modules in load order.
unpack() { # deb dir
	rm -rf "$2.tmp" && mkdir -p "$2.tmp"
	dpkg-deb --fsys-tarfile "$1" | tar -x -C "$2.tmp" --wildcards './boot/vmlinuz-*' \
		'./lib/modules/*/kernel/fs/9p/*' './lib/modules/*/kernel/net/9p/9pnet.ko*' \
		'./lib/modules/*/kernel/net/9p/9pnet_virtio.ko*' './lib/modules/*/kernel/fs/netfs/*' \
		'./lib/modules/*/kernel/fs/fscache/*' './lib/modules/*/kernel/drivers/virtio/*' \
		2>/dev/null || true
	mv "$2.tmp"/boot/vmlinuz-* "$2.tmp/vmlinuz" || return 1
	find "$2.tmp/lib" -name '*.ko.xz' -exec xz -d {} +
	mkdir -p "$2.tmp/mods"
	find "$2.tmp/lib" -name '*.ko' -exec mv {} "$2.tmp/mods/" \;
	rm -rf "$2.tmp/lib" "$2.tmp/boot"
	# load order: each module after what it depends on (those it has)
	: >"$2.tmp/order"
	add() {
		grep -qx "$1" "$2.tmp/order" && return 0
		[ -f "$2.tmp/mods/$1.ko" ] || return 0
		for d in $(modinfo -F depends "$2.tmp/mods/$1.ko" | tr , ' '); do
			add "$d" "$2"
		done
		echo "$1" >>"$2.tmp/order"
	}
	for m in virtio_pci 9pnet_virtio 9p; do add $m "$2"; done
	rm -rf "$2" && mv "$2.tmp" "$2"
}

# The initramfs: busybox and /init, the same for every kernel but the modules.
mkinit() { # dir
	r=$1/root
	rm -rf "$r" && mkdir -p "$r/bin" "$r/mods" "$r/proc" "$r/sys" "$r/dev" "$r/host"
	cp "$busybox" "$r/bin/busybox"
	cp "$1"/mods/*.ko "$r/mods/" 2>/dev/null || true
	cp "$1/order" "$r/order"
	cat >"$r/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in $(cat /order); do insmod /mods/$m.ko || echo "LDLAT-KM insmod $m failed"; done
dir=$(sed -n 's/.*ldlat.dir=\([^ ]*\).*/\1/p' /proc/cmdline)
case_=$(sed -n 's/.*ldlat.case=\([^ ]*\).*/\1/p' /proc/cmdline)
suites=$(sed -n 's/.*ldlat.suites=\([^ ]*\).*/\1/p' /proc/cmdline)
if mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000,cache=loose host /host; then
	mount -t proc proc /host/proc
	mount -t sysfs sys /host/sys
	mount -t devtmpfs dev /host/dev
	# the tree (a clone under /tmp or /root, say) stays in sight under the
	# guest's own writable /tmp, /run and /root
	mkdir -p /tree && mount -o bind "/host$dir" /tree
	mount -t tmpfs tmp /host/tmp
	mount -t tmpfs run /host/run
	mount -t tmpfs home /host/root
	if [ ! -e "/host$dir/tests/kernels-guest.sh" ]; then
		mkdir -p "/host$dir" && mount -o bind /tree "/host$dir"
	fi
	chroot /host /bin/sh "$dir/tests/kernels-guest.sh" "$dir" "$case_" "$suites"
else
	echo "LDLAT-KM rc 1 (cannot mount the host's root over 9p)"
fi
echo o >/proc/sysrq-trigger
poweroff -f
EOF
	chmod 755 "$r/init"
	(cd "$r" && find . | cpio -o -H newc 2>/dev/null | gzip -1) >"$1/initramfs.gz"
}

rm -f "$work/failed"
for name in $want; do
	line=$(echo "$kernels" | awk -v n="$name" '$1 == n')
	[ -n "$line" ] || die "LDLAT_KERNELS: no kernel named $name (known: 6.1 6.12 5.10)"
	# shellcheck disable=SC2086
	set -- $line
	pattern=$2 path=$3 extra=$4 suites=$5
	[ "$suites" = - ] && suites=
	[ -n "${LDLAT_KERNEL_SUITES:-}" ] && suites=$LDLAT_KERNEL_SUITES
	t0=$(date +%s)
	# shellcheck disable=SC2086
	pkg=$(apt-cache $APT pkgnames linux-image- | grep -x "$pattern" | sort -V | tail -1)
	[ -n "$pkg" ] || die "no package matches $pattern in the Debian lists"
	deb=$(ls "$cache/${pkg}_"*.deb 2>/dev/null | tail -1)
	if [ -z "$deb" ]; then
		echo "test-kernels: downloading $pkg"
		# shellcheck disable=SC2086
		(cd "$cache" && apt-get $APT download -q "$pkg" >"$work/download.log" 2>&1) ||
			die "apt-get download $pkg failed (see $work/download.log)"
		deb=$(ls "$cache/${pkg}_"*.deb | tail -1)
	fi
	k=$work/$name
	if [ ! -f "$k/vmlinuz" ] || [ "$(cat "$k/deb" 2>/dev/null)" != "$deb" ]; then
		unpack "$deb" "$k" || die "cannot unpack $deb"
		echo "$deb" >"$k/deb"
	fi
	mkinit "$k"
	log=$k/console.log
	# TCG on two cores: -smp 2 gives the cpu-list and cgroup tests two CPUs.
	# Multi-threaded TCG has been seen to hit the int3 of a kernel text patch
	# in flight (an oops in __schedule while a static key changed, before
	# any suite had failed): a guest whose kernel panicked runs again, once,
	# with one TCG thread, and both consoles are kept.
	for accel in tcg tcg,thread=single; do
		timeout 900 qemu-system-x86_64 -accel $accel -cpu max -m 2G -smp 2 -nographic \
			-no-reboot -kernel "$k/vmlinuz" -initrd "$k/initramfs.gz" \
			-append "console=ttyS0 quiet loglevel=1 panic=-1 ldlat.dir=$top ldlat.case=$extra ldlat.suites=$suites ${LDLAT_KERNEL_APPEND:-}" \
			-virtfs local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap \
			-nic none </dev/null >"$log" 2>&1 || true
		tr -d '\r' <"$log" >"$log.txt"
		grep -q 'Kernel panic' "$log.txt" || break
		[ $accel = tcg ] || break
		cp "$log.txt" "$log.panic.txt"
		echo "test-kernels: $name: the guest's kernel panicked ($(grep -m1 -o 'Oops: [^[]*' "$log.txt")); running it again with one TCG thread (console: $log.panic.txt)"
	done
	secs=$(($(date +%s) - t0))
	got=$(sed -n 's/.*LDLAT-KM path \([^ ]*\).*/\1/p' "$log.txt" | head -1)
	rc=$(sed -n 's/^LDLAT-KM rc \([0-9]*\).*/\1/p' "$log.txt" | tail -1)
	release=$(sed -n 's/.*LDLAT-KM release //p' "$log.txt" | head -1)
	# every suite's summary line, summed
	sum=$(grep -E '^[0-9]+%: Checks: ' "$log.txt" | awk -F'[:,] *' '
		{ c += $3; f += $5; e += $7 }
		END { if (c) printf "%d%%: Checks: %d, Failures: %d, Errors: %d", (c - f - e) * 100 / c, c, f, e }')
	ok=yes
	[ "$got" = "$path" ] || ok=no
	[ "$rc" = 0 ] || ok=no
	[ -n "$sum" ] || ok=no
	echo "test-kernels: ${release:-$name}: read path ${got:-none} (want $path), ${sum:-no Check summary}, $extra case: $(sed -n 's/^LDLAT-KM case //p' "$log.txt" | head -1), ${secs} s"
	if [ $ok = no ]; then
		echo "test-kernels: $name FAILED; the guest's console:" >&2
		grep -v '^LDLAT-KM ok' "$log.txt" | tail -60 >&2
		echo fail >>"$work/failed"
	fi
done
if [ -f "$work/failed" ]; then
	rm -f "$work/failed"
	echo "test-kernels: FAILED ($(($(date +%s) - start)) s)" >&2
	exit 1
fi
echo "test-kernels: all kernels passed in $(($(date +%s) - start)) s"
