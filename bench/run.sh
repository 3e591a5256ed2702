#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# make bench: installs what the benchmarks need (perf, bpftrace, bpftool,
# GNU time, Python), builds, measures (bench/bench.py) and writes
# BENCHMARKS.md at the top of the tree, then appends the markdown sections
# of bench/offline.sh, bench/top.py, bench/types.sh, bench/unwind.sh and
# bench/callpaths.sh.  Needs root.  Fails only when something did not run,
# never on a figure.
#
# BENCH_RUNS (default 9) measured rounds; BENCH_PAGES (500000) page faults of
# the fault workload; BENCH_STATS_RUNS (7), BENCH_STARTUP_RUNS (11); bench/top.py:
# TOP_PAGES (300000), TOP_RUNS (5), TOP_CAP (10000).
set -eu
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ]; then
	echo "bench: the benchmarks open perf events and load BPF programs: run 'sudo make bench'" >&2
	exit 1
fi
for cmd in perf bpftrace bpftool python3 /usr/bin/time; do
	command -v "$cmd" >/dev/null 2>&1 || { make deps; break; }
done
make -s bench-tools
# the tree's event table, for the tools and build/bench/ldlat-floor alike
export LDLAT_CONFIG="$PWD/tools.conf"
if ! mountpoint -q /sys/fs/bpf 2>/dev/null; then
	mount -t bpf bpf /sys/fs/bpf 2>/dev/null || true
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ldlat-bench-$$-XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
echo "bench: load average $(cut -d' ' -f1-3 /proc/loadavg) (other work on this machine skews the figures)" >&2
python3 bench/bench.py >"$tmp/main.md"
{
	echo "# Benchmarks"
	echo
	echo "Written by \`make bench\` (bench/run.sh); do not edit by hand: run it again."
	echo
	cat "$tmp/main.md"
} >"$tmp/BENCHMARKS.md"
# the sections of their own: each prints markdown to stdout, progress on stderr
for section in offline.sh top.py types.sh unwind.sh callpaths.sh; do
	echo "bench: bench/$section" >&2
	case $section in
	*.py) run=python3 ;;
	*) run=bash ;;
	esac
	if ! $run "bench/$section" >"$tmp/$section.md"; then
		echo "bench: FAILED: bench/$section did not run to the end" >&2
		exit 1
	fi
	{ echo; cat "$tmp/$section.md"; } >>"$tmp/BENCHMARKS.md"
done
cp "$tmp/BENCHMARKS.md" BENCHMARKS.md
cat BENCHMARKS.md
echo "bench: wrote BENCHMARKS.md" >&2
