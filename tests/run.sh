#!/bin/sh
# Runs every Check suite; prints each suite's summary line.  Suites that need
# root run when this is root; with CI=true they must (see tests/testutil.c).
set -u
cd "$(dirname "$0")/.." || exit 1
export LDLAT_BUILD="$PWD/build" LDLAT_FIXTURES="$PWD/tests/fixtures"
# BPF objects pinned by the tools live on bpffs
if [ "$(id -u)" = 0 ] && ! mountpoint -q /sys/fs/bpf 2>/dev/null; then
	mount -t bpf bpf /sys/fs/bpf 2>/dev/null || true
fi
status=0
for suite in check_unit check_bpf check_e2e check_top; do
	echo "== $suite"
	"build/tests/$suite" || status=1
done
if [ $status = 0 ]; then echo "all suites passed"; else echo "FAILED" >&2; fi
exit $status
