#!/bin/sh
# Runs inside a guest of tests/kernels.sh, chrooted into the host's root
# (read-only, over 9p), as root: mounts what the suites expect, reports the
# kernel and the read path ldlat picks on it, runs the suites that load the
# BPF program, then the guest's extra case.  Lines that start with LDLAT-KM
# are for tests/kernels.sh.
#
#   lockdown  raise lockdown to confidentiality (it only goes up): the
#             probe-read path must give way to address-only, which still
#             counts every page; forced onto probe-read
#             (LDLAT_FORCE_ADDR_ONLY=0), the kernel refuses the program:
#             one sentence, exit 1, nothing left behind
#   nojit     turn the BPF JIT off: the kern-ctx program (a kfunc call)
#             is refused: one sentence, exit 1, nothing left behind
set -u
dir=$1
extra=${2:-none}
# suite[:tcase] words, comma-separated (LDLAT_KERNEL_SUITES); default below
suites=${3:-}
cd "$dir" || exit 1
export CI=true HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export LDLAT_CONFIG="$dir/tools.conf"
[ -e /proc/self/mounts ] || mount -t proc proc /proc
[ -d /sys/kernel ] || mount -t sysfs sysfs /sys
[ -e /dev/null ] || mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs shm /dev/shm
mount -t bpf bpf /sys/fs/bpf
mount -t tmpfs cgroup /sys/fs/cgroup
mkdir -p /sys/fs/cgroup/unified
mount -t cgroup2 cgroup2 /sys/fs/cgroup/unified
# Implicit controllers (perf_event) reach new cgroups once the root's
# subtree_control has been written (cgroup_apply_control), as systemd does
# at boot; until then perf_event_open(PERF_FLAG_PID_CGROUP) fails ENOENT.
echo +pids >/sys/fs/cgroup/unified/cgroup.subtree_control
# Transparent huge pages as this project's development machines run them
# (madvise): Debian's kernels default to always, which serves a large
# first-touched array with 2 MiB faults, and the end-to-end tests compare
# page-fault counts with the pages their programs touch and with separate perf
# runs of the same programs.
thp=/sys/kernel/mm/transparent_hugepage/enabled
[ -w $thp ] && echo madvise >$thp
mount -t securityfs securityfs /sys/kernel/security
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
echo "LDLAT-KM release $(uname -r)"
rc=0

path=$(build/ldlat-hist --list-events -v --source page-faults 2>&1 | sed -n 's/^read path *//p')
echo "LDLAT-KM path $path"
# LDLAT_KERNEL_APPEND=ldlat.debug: the mounts, and the program's load with libbpf's log
if grep -q ldlat.debug /proc/cmdline; then
	cat /proc/self/mounts
	build/ldlat-hist -v --event page-faults:u -c 1 --op any -- true 2>&1 |
		grep -v '^libbpf: \(prog\|CO-RE\|sec\|map\)' | tail -80
fi

# The suites that load the program, lean (TCG is slow): the BPF logic
# through test_run and each read path (not check_bpf's timing of the XDP
# entry), the page-fault counts and targets (cgroups among them), pinned
# sets, ldlat-top end to end, the walk of user stacks from unwind tables.
[ -n "$suites" ] || suites=check_bpf:test_run,check_e2e:command,check_e2e:targets,check_pin:sets,check_top:e2e,check_unwind:walk
for s in $(echo "$suites" | tr , ' '); do
	[ "$s" = none ] && continue
	suite=${s%%:*}
	case_=${s#*:}
	[ "$case_" = "$s" ] && case_=
	echo "LDLAT-KM suite $s"
	if [ -n "$case_" ]; then
		CK_RUN_CASE=$case_ tests/run.sh "$suite" || rc=1
	else
		tests/run.sh "$suite" || rc=1
	fi
done

base=0x200000000000
range=$base+1G
progs() { bpftool prog show 2>/dev/null | grep -c '^[0-9]*:'; }
# A refused run: exit 1, one line on stderr naming want, nothing pinned, no program left.
refused() { # want-in-sentence env...
	want=$1
	shift
	before=$(progs)
	pins=$(ls -A /sys/fs/bpf)
	env "$@" build/ldlat-hist --source page-faults -a $range -- \
		build/ldlat-workload --fault-pages 30 --base $base >/tmp/out 2>/tmp/err
	r=$?
	lines=$(wc -l </tmp/err)
	echo "LDLAT-KM refusal: exit $r, $lines line(s), programs $before then $(progs), pins '$pins' then '$(ls -A /sys/fs/bpf)': $(cat /tmp/err)"
	[ $r = 1 ] && [ "$lines" = 1 ] && grep -q "$want" /tmp/err &&
		[ "$(ls -A /sys/fs/bpf)" = "$pins" ] && [ "$(progs)" = "$before" ]
}
case $extra in
lockdown)
	echo confidentiality >/sys/kernel/security/lockdown || rc=1
	p=$(build/ldlat-hist --list-events -v --source page-faults 2>&1 | sed -n 's/^read path *//p')
	echo "LDLAT-KM locked path $p"
	n=$(build/ldlat-hist --source page-faults -a $range -- \
		build/ldlat-workload --fault-pages 30 --base $base 2>/dev/null |
		grep -F "$range" | awk '{ print $1; exit }')
	case $p in address-only*"locked down (confidentiality)"*) ;; *) rc=1 ;; esac
	[ "$n" = 30 ] || rc=1
	if refused "locked down (confidentiality)" LDLAT_FORCE_ADDR_ONLY=0 && [ $rc = 0 ]; then
		echo "LDLAT-KM case lockdown: address-only counted $n of 30 pages; forced probe-read refused"
	else
		echo "LDLAT-KM case lockdown FAILED (path: $p; counted: $n)"
		rc=1
	fi
	;;
nojit)
	if sysctl -qw net.core.bpf_jit_enable=0 && refused "JIT is off"; then
		echo "LDLAT-KM case nojit: refused"
	else
		echo "LDLAT-KM case nojit FAILED"
		rc=1
	fi
	;;
*) echo "LDLAT-KM case none" ;;
esac
echo "LDLAT-KM rc $rc"
