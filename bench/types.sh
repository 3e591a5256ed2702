#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# bench/types.sh - what ldlat-top --by type and --by srcline cost in user
# space per distinct instruction address (build/bench/ldlat-types: every
# memory-accessing instruction of each file, each new to the cache, as a
# report's kernel table would bring them), and the typed share of real
# code.  Prints a markdown section to stdout (bench/run.sh appends it to
# BENCHMARKS.md); progress on stderr.
#
#   bench/types.sh [FILE...]   (default: ldlat-top itself, the -O2 test
#                               program, the C library)
#
# The BPF side is not measured here: --by type and --by srcline name the
# rows of the code table --by ip fills, with the same program and maps.
set -u
cd "$(dirname "$0")/.." || exit 1
make -s build/bench/ldlat-types build/tests/ldlat-typeprog-O2 >&2 || exit 1
if [ $# = 0 ]; then
	libc=$(ldd build/ldlat-top | sed -n 's/.*libc\.so\.6 => \([^ ]*\).*/\1/p')
	set -- build/ldlat-top build/tests/ldlat-typeprog-O2 ${libc:+"$libc"}
fi
echo "bench/types.sh: ${*}" >&2
out=$(build/bench/ldlat-types --srcline "$@") || exit 1
echo "## ldlat-top --by type and --by srcline: cost per distinct instruction address"
echo
echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') by \`bench/types.sh\` on $(uname -sr):"
echo "\`build/bench/ldlat-types --srcline FILE...\` types every instruction with a memory"
echo "operand of each file once, cold (each address new to the cache), as a report does"
echo "for each distinct address of its code table; a report's cost is this per address"
echo "it has not met before, and nothing per sample. The BPF program and its maps are"
echo "those of \`--by ip\`: the cost per sample in the kernel is the same."
echo
echo '```'
echo "$out"
echo '```'
