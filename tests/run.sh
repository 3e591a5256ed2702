#!/bin/sh
# Runs the Check suites named on the command line, or with none: the layout's
# dependency rule (check-deps), one writer per output format (check-writers),
# that both fail on a planted violation (check-selftest), the format
# (check-format), every suite (the files tests/suites/check_*.c: the one list
# of suites), make hwcheck's comparison on recorded inputs (check-hwcheck) and the perf.data reader under libFuzzer for FUZZ_SECONDS
# (fuzz-perfdata); prints each one's summary line.  Suites that need root run
# when this is root; with CI=true they must (see tests/lib/testutil.c).
set -u
cd "$(dirname "$0")/.." || exit 1
# LDLAT_BUILD: the build to test (make test-asan sets it to the sanitizer build)
export LDLAT_BUILD="${LDLAT_BUILD:-$PWD/build}" LDLAT_FIXTURES="$PWD/tests/fixtures" LDLAT_CONFIG="$PWD/tools.conf"
# BPF objects pinned by the tools live on bpffs
if [ "$(id -u)" = 0 ] && ! mountpoint -q /sys/fs/bpf 2>/dev/null; then
	mount -t bpf bpf /sys/fs/bpf 2>/dev/null || true
fi
if [ $# = 0 ]; then
	for f in tests/suites/check_*.c; do
		set -- "$@" "$(basename "$f" .c)"
	done
	set -- check-deps check-writers check-selftest check-format "$@" check-hwcheck check-docs fuzz-perfdata
fi
# perf record keeps a build-ID cache in $HOME/.debug: give the tests a home of their own
test_home=$(mktemp -d /tmp/ldlat-test-home.XXXXXX) || exit 1
trap 'rm -rf "$test_home"' EXIT
chmod 755 "$test_home"
export HOME="$test_home"
# the pages that print the host's CPU must pass on any x86-64 machine:
# run them again as an Intel and as an AMD virtual machine would
check_docs_identities() {
	for id in GenuineIntel-6-A7,hypervisor AuthenticAMD-25-1-1,hypervisor; do
		echo "docs as LDLAT_CPU=$id"
		LDLAT_CPU=$id python3 tests/docs.py README.md docs/events.md docs/hardware.md || return 1
	done
}
run_one() {
	case $1 in
	fuzz-perfdata) tests/fuzz/fuzz.sh ;;
	check-deps) python3 tests/deps.py ;;
	check-writers) python3 tests/writers.py ;;
	check-selftest) python3 tests/checks_selftest.py ;;
	check-format) make -s check-format ;;
	check-hwcheck) python3 tests/hwcheck_check.py ;;
	check-docs) python3 tests/docs.py && check_docs_identities ;;
	*) "$LDLAT_BUILD/tests/$1" ;;
	esac
}
# each failure again at the end, where a log cut to its tail still shows it
status=0 failed=""
: >"$test_home/failures"
for suite in "$@"; do
	echo "== $suite"
	rm -f "$test_home/rc"
	{ run_one "$suite" || echo $? >"$test_home/rc"; } 2>&1 | tee "$test_home/out"
	if [ -e "$test_home/rc" ]; then
		status=1 failed="$failed $suite"
		{
			echo "$suite (exit $(cat "$test_home/rc")):"
			grep -E '^[^ ]+:[0-9]+:[FE]:' "$test_home/out" || tail -n 5 "$test_home/out"
		} | cut -c1-400 >>"$test_home/failures"
	fi
done
if [ $status = 0 ]; then
	echo "all suites passed"
else
	echo "FAILED:$failed" >&2
	cat "$test_home/failures" >&2
fi
exit $status
