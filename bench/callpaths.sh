#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# bench/callpaths.sh - ldlat-top --input on a real recording with call
# chains, against perf report on the same file: CPU seconds and peak RSS,
# at N samples and about 4N (is the reader linear?).  Prints a markdown
# section to stdout (bench/run.sh appends it to BENCHMARKS.md); progress on
# stderr.
#
#   bench/callpaths.sh                       # python3 building 20M and 80M strings
#   CALLPATHS_ITEMS=5000000 CALLPATHS_RUNS=3 bench/callpaths.sh
#
# The recordings: perf record -e page-faults -c 1 -d -g of python3 building
# a list of CALLPATHS_ITEMS strings, then 4 times as many (about 6 GiB of
memory at the default; the sample counts grow a little less than 4x, the
interpreter's start being the same): every first touch
# of the interpreter's heap is a sample with its data address and a call
# chain (frame pointers: Debian's python3 has few, so chains are short, as
# a user's would be).  Each reader runs on one core, from a warm page cache;
# figures are medians of CALLPATHS_RUNS runs, ratios of medians in this run.
set -u
cd "$(dirname "$0")/.." || exit 1

items=${CALLPATHS_ITEMS:-20000000}
runs=${CALLPATHS_RUNS:-3}
top=build/ldlat-top
dir=$(mktemp -d "${TMPDIR:-/tmp}/ldlat-bench-callpaths.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
for need in perf python3 taskset /usr/bin/time; do
	command -v $need >/dev/null || { echo "bench/callpaths.sh: $need is missing (make deps)" >&2; exit 1; }
done
make -s all >&2 || exit 1
cpu=$(taskset -pc $$ | sed 's/.*: //; s/[,-].*//')

record() { # $1 file, $2 items
	perf record -q -e page-faults -c 1 -d -g -o "$1" -- \
		python3 -c "x = [str(i) for i in range($2)]" >/dev/null 2>"$dir/err" || {
		echo "bench/callpaths.sh: perf record failed:" >&2
		cat "$dir/err" >&2
		return 1
	}
}
samples() { perf report -i "$1" --stats 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }'; }

median() { sort -n | awk '{ v[NR] = $1 } END { printf "%.3f", v[int((NR + 1) / 2)] }'; }
# median CPU seconds (user + system) and peak RSS (KiB) of $runs runs of the rest
measure() {
	local i
	: >"$dir/times"
	for ((i = 0; i < runs; i++)); do
		cat "$file" >/dev/null # warm
		if ! /usr/bin/time -f '%U %S %M' -o "$dir/t" taskset -c "$cpu" "$@" \
			>/dev/null 2>"$dir/err"; then
			echo "bench/callpaths.sh: $* failed:" >&2
			cat "$dir/err" >&2
			return 1
		fi
		tail -n 1 "$dir/t" >>"$dir/times"
	done
	echo "$(awk '{ print $1 + $2 }' "$dir/times" | median) $(awk '{ print $3 }' "$dir/times" | median)"
}

readers=(
	"perf report --stdio --no-children -g --sort sym"
	"$top --input FILE --by ip --call-graph"
	"perf report --stdio -g --sort pid,sym"
	"$top --input FILE --call-graph"
	"perf report --stdio --mem-mode --sort pid,symbol_daddr"
	"$top --input FILE"
)
declare -A cpu_s rss n_samples
for size in 1 4; do
	file=$dir/rec$size.data
	echo "bench/callpaths.sh: recording python3 building $((items * size)) strings" >&2
	record "$file" $((items * size)) || exit 1
	n_samples[$size]=$(samples "$file")
	for r in "${!readers[@]}"; do
		cmd=${readers[$r]}
		if [[ $cmd == perf* ]]; then
			cmd="$cmd -i $file"
		else
			cmd=${cmd/FILE/$file}
		fi
		echo "bench/callpaths.sh: $cmd ($runs runs)" >&2
		# shellcheck disable=SC2086 # the command's words
		out=$(measure $cmd) || exit 1
		read -r "cpu_s[$r,$size]" "rss[$r,$size]" <<<"$out"
	done
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f×", a / b; else printf "-" }'; }
mib() { awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }
echo "## ldlat-top --input with call paths, against perf report"
echo
echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') by \`bench/callpaths.sh\` on $(uname -sr): \`perf record"
echo "-e page-faults -c 1 -d -g\` of \`python3 -c 'x = [str(i) for i in range(N)]'\`, N = $items"
echo "(${n_samples[1]} samples) and $((items * 4)) (${n_samples[4]} samples); each reader on one core, from a"
echo "warm page cache, CPU seconds (user + system) and peak RSS, medians of $runs runs.  Each"
echo "ldlat-top row is compared with the perf report row above it: the same question (functions"
echo "with their call paths; the same by process; code and data lines)."
echo
echo "| reader | CPU s, N | CPU s, 4N | growth per sample⁽¹⁾ | vs perf (CPU, 4N) | RSS MiB, N | RSS MiB, 4N | vs perf (RSS, 4N) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for r in "${!readers[@]}"; do
	peer=$((r - r % 2))
	shown=${readers[$r]#build/}
	growth=$(awk -v a="${cpu_s[$r,4]}" -v b="${cpu_s[$r,1]}" -v m="${n_samples[4]}" -v n="${n_samples[1]}" \
		'BEGIN { if (b > 0 && n > 0) printf "%.2f×", (a / b) / (m / n); else printf "-" }')
	echo "| \`$shown\` | ${cpu_s[$r,1]} | ${cpu_s[$r,4]} | $growth |" \
		"$(ratio "${cpu_s[$r,4]}" "${cpu_s[$peer,4]}") | $(mib "${rss[$r,1]}") | $(mib "${rss[$r,4]}") |" \
		"$(ratio "${rss[$r,4]}" "${rss[$peer,4]}") |"
done
echo
echo "⁽¹⁾ the CPU time's growth from N to 4N over the samples' growth: 1× is linear."
echo
echo "ldlat-top names each distinct stack of a file once (a stack's IPs and process image"
echo "are its key), and keeps one entry per distinct key: its memory follows the distinct"
echo "stacks and lines, perf report's the samples."
