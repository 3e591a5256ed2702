#!/bin/sh
# make demo: ldlat-hist --source auto on the bundled workload, which walks
# buffers sized for L1, L2, L3 and DRAM by pointer chasing, at fixed
# addresses so that each gets its own -a range.
set -eu
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ]; then
	echo "demo: ldlat-hist needs root (or CAP_PERFMON and CAP_BPF): run 'sudo make demo'" >&2
	exit 1
fi
base=0x200000000000
set -x
build/ldlat-hist --source auto --by both \
	-a 0x200000000000+1G -a 0x200040000000+1G -a 0x200080000000+1G -a 0x2000c0000000+1G \
	-- build/ldlat-workload --chase --base $base --seconds 2 --print-ranges
