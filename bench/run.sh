#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# make bench: installs what the benchmarks need (perf, bpftrace, bpftool,
# GNU time, Python), builds, measures (bench/bench.py) and writes
# BENCHMARKS.md at the top of the tree; with bench/offline.sh, bench/top.py
# and bench/types.sh present, their markdown sections are appended.  Needs
# root.  Fails only when something did not run, never on a figure.
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
if [ -f bench/offline.sh ]; then
	echo "bench: bench/offline.sh" >&2
	# its own interpreter when executable (#!), else sh
	if [ -x bench/offline.sh ]; then offline=bench/offline.sh; else offline="sh bench/offline.sh"; fi
	if ! $offline >"$tmp/offline.md"; then
		echo "bench: FAILED: bench/offline.sh did not run to the end" >&2
		exit 1
	fi
	{ echo; cat "$tmp/offline.md"; } >>"$tmp/BENCHMARKS.md"
fi
if [ -f bench/top.py ]; then
	echo "bench: bench/top.py" >&2
	if ! python3 bench/top.py >"$tmp/top.md"; then
		echo "bench: FAILED: bench/top.py did not run to the end" >&2
		exit 1
	fi
	{ echo; cat "$tmp/top.md"; } >>"$tmp/BENCHMARKS.md"
fi
if [ -f bench/types.sh ]; then
	echo "bench: bench/types.sh" >&2
	if ! sh bench/types.sh >"$tmp/types.md"; then
		echo "bench: FAILED: bench/types.sh did not run to the end" >&2
		exit 1
	fi
	{ echo; cat "$tmp/types.md"; } >>"$tmp/BENCHMARKS.md"
fi
cp "$tmp/BENCHMARKS.md" BENCHMARKS.md
cat BENCHMARKS.md
echo "bench: wrote BENCHMARKS.md" >&2
