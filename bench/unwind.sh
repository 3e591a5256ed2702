#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# bench/unwind.sh - what ldlat-top --call-graph=dwarf costs, beside perf
# record --call-graph dwarf on the same workload: GCC's cc1 (Debian's,
# built without frame pointers, its stacks 15 to 40 frames deep) compiling
# a preprocessed file of this tree at -O2, its page faults sampled with
# period 1.  Prints a markdown section to stdout (bench/run.sh appends it
# to BENCHMARKS.md); progress on stderr.  Needs root.
#
# The BPF program's time per sample is the kernel's own count
# (kernel.bpf_stats_enabled: run_time_ns / run_cnt of ldlat_top, read while
# the run goes on, the last reading kept); the mean user-stack depth is
# that of the folded stacks (ldlat-top's, and perf script's folded the same
# way); CPU seconds and file size are GNU time's and the file's.  Both tools
# run their command without address-space randomization (setarch -R), as
# check_unwind does: perf script's unwinding of cc1 found 18.9 frames on
# some layouts and 8.1 on others (stopping in libc), run to run.
set -u
cd "$(dirname "$0")/.." || exit 1
make -s all >&2 || exit 1
TOP=build/ldlat-top
CC1=$(gcc -print-prog-name=cc1)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ldlat-unwind-bench-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
gcc -E -std=gnu11 -D_GNU_SOURCE -iquote . -iquote build user/top/topreport.c -o "$tmp/w.i" || exit 1
WORK="$CC1 -quiet -O2 $tmp/w.i -o /dev/null"
GCCWORK="gcc -O2 -c $tmp/w.i -o $tmp/w.o"
RUN=$WORK
stats=$(cat /proc/sys/kernel/bpf_stats_enabled)
sysctl -qw kernel.bpf_stats_enabled=1 || exit 1

# the mean user frames per sample of folded stacks (kernel frames end in _[k])
depth() {
	awk '{ n = $NF; $NF = ""; k = split($0, f, ";"); u = 0
	       for (i = 2; i <= k; i++) if (f[i] !~ /_\[k\] *$/) u++
	       s += n; d += n * u } END { if (s) printf "%.2f", d / s; else print "-" }' "$1"
}

# ldlat-top with the options given: "ns/sample samples cpu-seconds depth"
top_run() {
	# no table cache: each run compiles its tables, as a first run does
	LDLAT_UNWIND_CACHE= /usr/bin/time -f '%U %S' -o "$tmp/time" setarch -R $TOP --source page-faults "$@" --format folded \
		--output "$tmp/top.folded" -- $RUN 2>"$tmp/top.err" &
	pid=$!
	last=""
	while kill -0 "$pid" 2>/dev/null; do
		r=$(bpftool prog show name ldlat_top 2>/dev/null |
			sed -n 's/.*run_time_ns \([0-9]*\) run_cnt \([0-9]*\).*/\1 \2/p' | head -1)
		[ -n "$r" ] && last=$r
		sleep 0.02
	done
	wait "$pid" || { cat "$tmp/top.err" >&2; return 1; }
	set -- $last
	cpu=$(awk '{ printf "%.2f", $1 + $2 }' "$tmp/time")
	# the samples walked before their tables were in: "sent/walked again"
	dfr=$(sed -n 's/.*; \([0-9]*\) deferred before their tables were in (\([0-9]*\) walked again.*/\1\/\2/p' \
		"$tmp/top.err" | head -1)
	echo "$(($1 / $2)) $2 $cpu $(depth "$tmp/top.folded") ${dfr:--}"
}

# perf record --call-graph dwarf of $1 and perf script's unwinding: "samples rec-cpu bytes script-cpu depth"
perf_run() {
	# 32 MiB of buffer, as check_unwind gives it: with the default, perf loses records on
	# gcc -c (491 samples in a run), its paths then cut short
	/usr/bin/time -f '%U %S' -o "$tmp/time" setarch -R perf record -q -m 8192 -o "$tmp/perf.data" -e page-faults -c 1 \
		--call-graph dwarf -- $1 >/dev/null 2>&1 || return 1
	rec=$(awk '{ printf "%.2f", $1 + $2 }' "$tmp/time")
	size=$(stat -c %s "$tmp/perf.data")
	/usr/bin/time -f '%U %S' -o "$tmp/time" sh -c "perf script -i $tmp/perf.data --no-inline \
		-F comm,ip,sym >$tmp/perf.script 2>/dev/null" || return 1
	scr=$(awk '{ printf "%.2f", $1 + $2 }' "$tmp/time")
	n=$(grep -c '^[^ 	]' "$tmp/perf.script")
	awk 'function flush() { if (c != "") { p = c; for (i = nf; i >= 1; i--) p = p ";" f[i]; cnt[p]++ } c = ""; nf = 0 }
	     /^$/ { flush(); next }
	     /^[^ \t]/ { flush(); c = $0; sub(/ +$/, "", c); next }
	     { ip = $1; $1 = ""; sub(/^ /, ""); name = $0 == "" ? "[unknown]" : $0
	       if (length(ip) == 16 && ip ~ /^ffff/) name = name "_[k]"; f[++nf] = name }
	     END { flush(); for (p in cnt) print p, cnt[p] }' "$tmp/perf.script" >"$tmp/perf.folded"
	echo "$n $rec $size $scr $(depth "$tmp/perf.folded")"
}

echo "bench/unwind.sh: $WORK" >&2
rows=""
for mode in "--call-graph=fp" "--call-graph=dwarf --max-stack 16" "--call-graph=dwarf --max-stack 64"; do
	echo "bench/unwind.sh: ldlat-top $mode" >&2
	r=$(top_run $mode) || exit 1
	set -- $r
	rows="$rows| \`ldlat-top $mode\` | $1 | $2 | $3 | - | $4 | $5 |
"
done
echo "bench/unwind.sh: perf record --call-graph dwarf" >&2
r=$(perf_run "$WORK") || exit 1
set -- $r
rows="$rows| \`perf record -e page-faults -c 1 --call-graph dwarf\` | - | $1 | $2 | $3 | - | - |
| \`perf script\` of that file (the unwinding) | - | $1 | $4 | - | $5 | - |
"

# gcc's driver, which execs cc1 and as during the run: their first samples are deferred
echo "bench/unwind.sh: ldlat-top --call-graph=dwarf -- $GCCWORK" >&2
gccrows=""
RUN=$GCCWORK
r=$(top_run --call-graph=dwarf) || exit 1
set -- $r
gccrows="$gccrows| \`ldlat-top --call-graph=dwarf\` | $1 | $2 | $3 | - | $4 | $5 |
"
echo "bench/unwind.sh: perf record --call-graph dwarf -- $GCCWORK" >&2
r=$(perf_run "$GCCWORK") || exit 1
set -- $r
gccrows="$gccrows| \`perf record -e page-faults -c 1 --call-graph dwarf\` | - | $1 | $2 | $3 | - | - |
| \`perf script\` of that file (the unwinding) | - | $1 | $4 | - | $5 | - |
"
sysctl -qw kernel.bpf_stats_enabled="$stats"

echo "## ldlat-top --call-graph=dwarf: the cost of walking user stacks in the kernel"
echo
echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') by \`bench/unwind.sh\` on $(uname -sr):"
echo "Debian's \`cc1\` (GCC $(gcc -dumpversion), built without frame pointers) compiling"
echo "\`user/top/topreport.c\`, preprocessed, at \`-O2\`; its page faults sampled with period 1."
echo "BPF ns/sample: the kernel's run time of the program per run (\`kernel.bpf_stats_enabled\`),"
echo "the whole program (accounting, tables, the path's store), not the walk alone."
echo "CPU s: the tool's own user and system time (ldlat-top's includes compiling the"
echo "unwind tables of cc1, $(stat -c %s "$CC1") bytes, and its libraries, with no table cache:"
echo "\`LDLAT_UNWIND_CACHE=\`; a cached table is read instead of compiled); perf's file holds"
echo "8 KiB of stack per sample, unwound afterwards by \`perf script\`."
echo
echo "| run | BPF ns/sample | samples | CPU s | file bytes | mean user frames | deferred: sent / walked again |"
echo "|---|---|---|---|---|---|---|"
printf '%s' "$rows"
echo
echo "The same through gcc's driver (\`$(echo "$GCCWORK" | sed "s|$tmp/||g")\`), which execs cc1 and"
echo "as during the run: a sample taken before the new program's tables are in is walked"
echo "by frame pointers in the kernel and also sent with 8 KiB of its stack, then walked"
echo "again in user space once they are (docs/callpaths.md, 'Deferred samples'); the"
echo "deferred column says how many of each.  No table cache here either."
echo
echo "| run | BPF ns/sample | samples | CPU s | file bytes | mean user frames | deferred: sent / walked again |"
echo "|---|---|---|---|---|---|---|"
printf '%s' "$gccrows"
