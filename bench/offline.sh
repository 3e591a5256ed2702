#!/bin/bash
# bench/offline.sh - how fast ldlat-hist --input reads perf.data, against
# perf script printing the same fields from the same file.  Prints a markdown
# section to stdout (bench/run.sh includes it in BENCHMARKS.md); progress on
# stderr.
#
#   bench/offline.sh                 # 5,000,000 samples, 5 runs of each (3 of perf script)
#   OFFLINE_SAMPLES=10000000 OFFLINE_RUNS=7 bench/offline.sh
#
# The file is written by build/tests/gen-perfdata: samples laid out as perf
# mem record writes them on Intel (cpu/mem-loads,ldlat=30/P with
# IP|TID|TIME|ADDR|ID|CPU|PERIOD|IDENTIFIER|DATA_SRC|WEIGHT_STRUCT), cycling
# through every data source the kernel emits and latencies over 20 octaves
# (hard on branch prediction: a worst case for the classify and bucket
# code).  Every run reads it from a warm page cache, on one core (taskset).
# Numbers are medians; the ratio is of the medians in this one run.
set -u
cd "$(dirname "$0")/.." || exit 1

samples=${OFFLINE_SAMPLES:-5000000}
runs=${OFFLINE_RUNS:-5}
perf_runs=${OFFLINE_PERF_RUNS:-3}
dir=$(mktemp -d "${TMPDIR:-/tmp}/ldlat-bench-offline.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
file=$dir/perf.data
hist=build/ldlat-hist
top=build/ldlat-top
C2C=build/ldlat-c2c
gen=build/tests/gen-perfdata

for need in perf taskset; do
	command -v $need >/dev/null || { echo "bench/offline.sh: $need is missing (make deps)" >&2; exit 1; }
done
make -s all "$gen" >&2 || exit 1

echo "bench/offline.sh: writing $samples samples to $file" >&2
"$gen" --samples "$samples" "$file" || exit 1
size=$(stat -c %s "$file")
cpu=$(taskset -pc $$ | sed 's/.*: //; s/[,-].*//')

# median wall and CPU seconds of $1 runs of the rest, output discarded
median() { sort -n | awk '{ v[NR] = $1 } END { printf "%.3f", v[int((NR + 1) / 2)] }'; }
measure() {
	local n=$1 i t
	shift
	: >"$dir/times"
	for ((i = 0; i < n; i++)); do
		cat "$file" >/dev/null # warm
		t=$( { TIMEFORMAT='%R %U %S'; time taskset -c "$cpu" "$@" >/dev/null 2>"$dir/err"; } 2>&1 )
		if grep -qv '^ldlat-\(hist\|top\): note' "$dir/err"; then
			echo "bench/offline.sh: $* failed:" >&2
			cat "$dir/err" >&2
			return 1
		fi
		echo "$t" >>"$dir/times"
	done
	echo "$(awk '{ print $1 }' "$dir/times" | median) $(awk '{ print $2 + $3 }' "$dir/times" | median)"
}

filters=(-a 0x7f0000000000+1G -a 0x7f0040000000+1G -a 0x7f0080000000+512M -p 1000,1001,1002
	 --min-lat 16 --max-lat 100000 -s l3,hitm,ram,remote-cache --by both)

echo "bench/offline.sh: perf script ($perf_runs runs)" >&2
out=$(measure "$perf_runs" perf script -i "$file" -F pid,addr,weight,data_src) || exit 1
read -r perf_wall perf_cpu <<<"$out"
echo "bench/offline.sh: ldlat-hist --input ($runs runs)" >&2
out=$(measure "$runs" "$hist" --input "$file") || exit 1
read -r hist_wall hist_cpu <<<"$out"
out=$(measure "$runs" "$hist" --input "$file" "${filters[@]}") || exit 1
read -r filt_wall filt_cpu <<<"$out"
echo "bench/offline.sh: ldlat-top --input ($runs runs)" >&2
out=$(measure "$runs" "$top" --input "$file" --by ip) || exit 1
read -r topip_wall topip_cpu <<<"$out"
out=$(measure "$runs" "$top" --input "$file") || exit 1
read -r top_wall top_cpu <<<"$out"

# ldlat-top --input against perf report on the same file: median wall and peak RSS
measure_rss() {
	local n=$1 i
	shift
	: >"$dir/rss"
	for ((i = 0; i < n; i++)); do
		cat "$file" >/dev/null # warm
		/usr/bin/time -f '%e %M' -o "$dir/t" taskset -c "$cpu" "$@" >/dev/null 2>"$dir/err" || {
			echo "bench/offline.sh: $* failed:" >&2
			cat "$dir/err" >&2
			return 1
		}
		cat "$dir/t" >>"$dir/rss"
	done
	echo "$(awk '{ print $1 }' "$dir/rss" | median) $(awk '{ print $2 }' "$dir/rss" | median)"
}
echo "bench/offline.sh: perf report and ldlat-top --input, peak memory ($perf_runs runs)" >&2
out=$(measure_rss "$perf_runs" perf report -i "$file" --stdio --sort pid,sym) || exit 1
read -r prep_wall prep_kb <<<"$out"
out=$(measure_rss "$perf_runs" "$top" --input "$file" --by ip -n 0) || exit 1
read -r topr_wall topr_kb <<<"$out"
out=$(measure_rss "$perf_runs" perf report -i "$file" --stdio --mem-mode --sort pid,symbol_daddr) ||
	exit 1
read -r prepd_wall prepd_kb <<<"$out"
out=$(measure_rss "$perf_runs" "$top" --input "$file" --by data --data-by block -n 0) || exit 1
read -r toprd_wall toprd_kb <<<"$out"
out=$(measure_rss "$perf_runs" "$top" --input "$file" --by data) || exit 1
read -r topro_wall topro_kb <<<"$out"

# ldlat-c2c --input against ldlat-hist --input and perf c2c report, and each reader's peak memory
# at N and 4N samples: perf c2c record's layout (gen-perfdata --c2c), N samples over 64 lines
c2c_n=${OFFLINE_C2C_SAMPLES:-$((samples / 5))}
c2c1=$dir/c2c1.data
c2c4=$dir/c2c4.data
echo "bench/offline.sh: writing $c2c_n and $((4 * c2c_n)) c2c samples" >&2
"$gen" --c2c --samples "$c2c_n" "$c2c1" || exit 1
"$gen" --c2c --samples $((4 * c2c_n)) "$c2c4" || exit 1
file_was=$file
file=$c2c1
echo "bench/offline.sh: ldlat-c2c, ldlat-hist --input and perf c2c report ($runs runs)" >&2
out=$(measure_rss "$runs" "$hist" --input "$c2c1") || exit 1
read -r ch1_wall ch1_kb <<<"$out"
out=$(measure_rss "$runs" "$C2C" --input "$c2c1" -n 0) || exit 1
read -r cc1_wall cc1_kb <<<"$out"
out=$(measure_rss "$runs" "$top" --input "$c2c1") || exit 1
read -r ct1_wall ct1_kb <<<"$out"
out=$(measure_rss "$perf_runs" perf c2c report -i "$c2c1" --stdio -f --no-source) || exit 1
read -r pc1_wall pc1_kb <<<"$out"
file=$c2c4
out=$(measure_rss "$runs" "$hist" --input "$c2c4") || exit 1
read -r ch4_wall ch4_kb <<<"$out"
out=$(measure_rss "$runs" "$C2C" --input "$c2c4" -n 0) || exit 1
read -r cc4_wall cc4_kb <<<"$out"
out=$(measure_rss "$runs" "$top" --input "$c2c4") || exit 1
read -r ct4_wall ct4_kb <<<"$out"
file=$file_was

rate() { awk -v n="$samples" -v s="$1" 'BEGIN { if (s <= 0) { printf "-"; exit } r = n / s;
	if (r >= 1e6) printf "%.1f M", r / 1e6; else printf "%.0f k", r / 1e3 }'; }
mib() { awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }
ratio2() { awk -v a="$1" -v b="$2" 'BEGIN { if (b <= 0) printf "-"; else printf "%.2f×", a / b }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b <= 0) printf "-"; else printf "%.0f×", a / b }'; }

cat <<MD
## Offline analysis: ldlat-hist and ldlat-top --input against perf script

One file of $(printf "%'d" "$samples") samples ($(awk -v s="$size" 'BEGIN { printf "%.0f MB", s / 1e6 }')) laid out as \`perf mem record\` writes them on
Intel (\`cpu/mem-loads,ldlat=30/P\`, sample_type IP|TID|TIME|ADDR|ID|CPU|PERIOD|IDENTIFIER|DATA_SRC|WEIGHT_STRUCT),
written by \`build/tests/gen-perfdata\`: every data source the kernel emits, latencies over 20 octaves.
Read from a warm page cache, pinned to one core (CPU $cpu), median of $runs runs ($perf_runs for perf script),
on $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), Linux $(uname -r), $(perf version 2>/dev/null).
\`perf script\` only prints the four fields the histograms need (pid, addr, weight, data_src): turning
its text into histograms would cost more on top. \`bench/offline.sh\` reproduces this table.

| reader | work | wall s | CPU s | samples/s (wall) | samples/s (CPU) | vs perf script (wall) |
|---|---|---:|---:|---:|---:|---:|
| \`perf script -F pid,addr,weight,data_src\` | parse, print the fields | $perf_wall | $perf_cpu | $(rate "$perf_wall") | $(rate "$perf_cpu") | 1× |
| \`ldlat-hist --input\` | parse, classify, histogram by class | $hist_wall | $hist_cpu | $(rate "$hist_wall") | $(rate "$hist_cpu") | $(ratio "$perf_wall" "$hist_wall") |
| \`ldlat-hist --input\` with filters¹ | the same through 3 ranges, 3 processes, a latency window, 4 classes | $filt_wall | $filt_cpu | $(rate "$filt_wall") | $(rate "$filt_cpu") | $(ratio "$perf_wall" "$filt_wall") |
| \`ldlat-top --input --by ip\` | parse, classify, the (process, IP) table, name and print its rows | $topip_wall | $topip_cpu | $(rate "$topip_wall") | $(rate "$topip_cpu") | $(ratio "$perf_wall" "$topip_wall") |
| \`ldlat-top --input\` | the same and the (process, line) table: an entry per line touched² | $top_wall | $top_cpu | $(rate "$top_wall") | $(rate "$top_cpu") | $(ratio "$perf_wall" "$top_wall") |

¹ \`${filters[*]}\`

² The generated addresses are spread over 4 GiB: nearly every sample touches a line of its own, so the
data table holds about one entry per sample, each named and folded into rows (ldlat-top's tables keep
one entry per distinct key, live or offline); a real program's loads fall on far fewer lines.

### ldlat-top --input against perf report

The same file, the same core, median of $perf_runs runs each, peak resident memory from \`/usr/bin/time -f %M\`
(the file is mapped: its pages count once read).  Code: one row per (process, function); data: one row
per (process, cache line), every row printed.  ldlat-top's data table is named and written out to
\`/tmp\` in sorted runs of 262,144 lines and merged at the end, so its memory does not grow with the
lines touched.

| reader | wall s | peak RSS MiB | vs perf report (wall) | vs perf report (memory) |
|---|---:|---:|---:|---:|
| \`perf report --stdio --sort pid,sym\` | $prep_wall | $(mib "$prep_kb") | 1× | 1× |
| \`ldlat-top --input --by ip -n 0\` | $topr_wall | $(mib "$topr_kb") | $(ratio2 "$prep_wall" "$topr_wall") | $(ratio2 "$prep_kb" "$topr_kb") |
| \`perf report --stdio --mem-mode --sort pid,symbol_daddr\` | $prepd_wall | $(mib "$prepd_kb") | 1× | 1× |
| \`ldlat-top --input --by data --data-by block -n 0\` | $toprd_wall | $(mib "$toprd_kb") | $(ratio2 "$prepd_wall" "$toprd_wall") | $(ratio2 "$prepd_kb" "$toprd_kb") |
| \`ldlat-top --input --by data\` (a row per variable or mapping, 20 printed) | $topro_wall | $(mib "$topro_kb") | $(ratio2 "$prepd_wall" "$topro_wall") | $(ratio2 "$prepd_kb" "$topro_kb") |

### ldlat-c2c --input, and memory as files grow

Files laid out as \`perf c2c record\` writes them (\`gen-perfdata --c2c\`: loads and stores over 64 cache
lines, every thread and CPU touching them), of $(printf "%'d" "$c2c_n") and $(printf "%'d" $((4 * c2c_n))) samples, the same core, median of
$runs runs ($perf_runs for perf), peak resident memory from \`/usr/bin/time -f %M\`.  Each reader gives the
file's pages back as it passes them (a window of 8 MiB), so its memory does not grow with the file.

| reader | wall s, N | wall s, 4N | 4N / N (wall) | vs ldlat-hist (wall, N) | peak RSS MiB, N | peak RSS MiB, 4N | 4N / N (memory) |
|---|---:|---:|---:|---:|---:|---:|---:|
| \`ldlat-hist --input\` | $ch1_wall | $ch4_wall | $(ratio2 "$ch4_wall" "$ch1_wall") | 1× | $(mib "$ch1_kb") | $(mib "$ch4_kb") | $(ratio2 "$ch4_kb" "$ch1_kb") |
| \`ldlat-c2c --input -n 0\` | $cc1_wall | $cc4_wall | $(ratio2 "$cc4_wall" "$cc1_wall") | $(ratio2 "$cc1_wall" "$ch1_wall") | $(mib "$cc1_kb") | $(mib "$cc4_kb") | $(ratio2 "$cc4_kb" "$cc1_kb") |
| \`ldlat-top --input\` | $ct1_wall | $ct4_wall | $(ratio2 "$ct4_wall" "$ct1_wall") | $(ratio2 "$ct1_wall" "$ch1_wall") | $(mib "$ct1_kb") | $(mib "$ct4_kb") | $(ratio2 "$ct4_kb" "$ct1_kb") |
| \`perf c2c report --stdio -f --no-source\` | $pc1_wall | - | - | $(ratio2 "$pc1_wall" "$ch1_wall") | $(mib "$pc1_kb") | - | - |
MD
