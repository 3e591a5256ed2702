#!/bin/sh
# Runs the perf.data reader's libFuzzer target for FUZZ_SECONDS (default 60)
# on the committed seeds (tests/fuzz/corpus), writing what it finds to a
# scratch corpus so the committed one stays as it is.  A crash, a leak or an
# out-of-bounds read fails the run; the input that caused it is kept in
# build/fuzz/ (crash-*, leak-*, timeout-*) for a regression seed.
set -u
cd "$(dirname "$0")/../.." || exit 1
seconds=${FUZZ_SECONDS:-60}
build=${LDLAT_BUILD:-build}
work=$build/fuzz
rm -rf "$work/corpus"
mkdir -p "$work/corpus" || exit 1
out=$("$build/tests/fuzz-perfdata" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
	-max_len=65536 -print_final_stats=1 -artifact_prefix="$work/" \
	"$work/corpus" tests/fuzz/corpus 2>&1)
status=$?
runs=$(printf '%s\n' "$out" | sed -n 's/^stat::number_of_executed_units: *//p')
cov=$(printf '%s\n' "$out" | sed -n 's/^#[0-9]*.*DONE *cov: \([0-9]*\).*/\1/p' | tail -n 1)
if [ $status != 0 ]; then
	printf '%s\n' "$out" | tail -n 40
	echo "fuzz-perfdata: FAILED after ${runs:-?} inputs (the input is in $work/)" >&2
	exit 1
fi
echo "fuzz-perfdata: ${runs:-?} inputs in ${seconds} s, coverage ${cov:-?} edges, no crash"
