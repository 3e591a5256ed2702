#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""ldlat-top's data rows against perf report --mem-mode --sort dso_daddr.

    datarows_vs_perf.py TOP PERF.data EXE

Each sample of perf script (with its mmap events, in time order, a newer
mapping cutting out of older ones what it covers, as in the kernel) is put in the mapping that held its address
when it was taken, under two rules that differ in two ways, each stated in
docs/tools.md:

- perf's: a sample taken in kernel mode (a user page the kernel touched,
  as execve and read() do) is looked up among the kernel's maps, so its
  data DSO is [unknown]; an anonymous mapping is anon, also where it holds
  a file's .bss;
- ldlat's: such a sample is in the process's mapping it lies in; the part
  of the anonymous mapping after a file's last mapping that the file's last
  PT_LOAD segment covers (its .bss beyond the file's pages: readelf -lW)
  is the file's.

perf report's counts per data DSO must be the first rule's (which checks
the model against perf), ldlat-top report's (its variables and mappings
summed by DSO) the second's.  And the rows say where they are: the image
row of EXE (an executable linked at a fixed address) starts where perf's
mmap event of its first page says, not at 0; the [anon] row's address plus
its hottest offset is the line of the anonymous memory with the most
samples, and it counts as many lines as the samples touch (two anonymous
mappings hold different lines at the same offset).  Prints each disagreement; exit 1 if any.
"""
import collections
import json
import os
import re
import subprocess
import sys

KERNEL = 0xffff800000000000
MMAP = re.compile(r'^\s*(\d+)\s+[\d.]+: PERF_RECORD_MMAP2 \d+/\d+: \[0x([0-9a-f]+)\(0x([0-9a-f]+)\)'
                  r' @ (?:0x)?([0-9a-f]+) .*\]: \S+ (.*)$')
SAMPLE = re.compile(r'^\s*(\d+)\s+[\d.]+:\s+([0-9a-f]+)\s+([0-9a-f]+)\s*$')


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout


def page_up(x):
    return (x + 4095) & ~4095


def loads(path, cache={}):
    """PT_LOAD segments (vaddr, filesz, memsz) of path, by readelf -lW."""
    if path not in cache:
        segs = []
        try:
            out = run(['readelf', '-lW', path])
        except (OSError, subprocess.CalledProcessError):
            out = ''
        for line in out.splitlines():
            f = line.split()
            if len(f) >= 6 and f[0] == 'LOAD':
                segs.append((int(f[2], 16), int(f[4], 16), int(f[5], 16)))
        cache[path] = segs
    return cache[path]


def dso_key(name):
    if name == '//anon':
        return 'anon'
    if name.startswith('['):
        return name
    return os.path.basename(name)


def model(data):
    """Per sample: (perf's DSO, ldlat's DSO, address, in anon by ldlat's rule)."""
    maps = collections.defaultdict(list)  # pid -> [(start, end, pgoff, name)], none overlapping
    out = []
    text = run(['perf', 'script', '-i', data, '--show-mmap-events', '-F', 'pid,time,ip,addr'])
    for line in text.splitlines():
        m = MMAP.match(line)
        if m:
            pid, start, size, pgoff, name = m.groups()
            start, size = int(start, 16), int(size, 16)
            end, pgoff = start + size, int(pgoff, 16)
            kept = []
            for lo, hi, off, nm in maps[int(pid)]:  # what the new mapping leaves of each
                if lo < start:
                    kept.append((lo, min(hi, start), off, nm))
                if hi > end:
                    cut = max(lo, end)
                    kept.append((cut, hi, off + (cut - lo) if nm.startswith('/') else off, nm))
            maps[int(pid)] = kept + [(start, end, pgoff, name.strip())]
            continue
        m = SAMPLE.match(line)
        if not m:
            continue
        pid, addr, ip = int(m.group(1)), int(m.group(2), 16), int(m.group(3), 16)
        held = [mp for mp in maps[pid] if mp[0] <= addr < mp[1]]
        mine = dso_key(held[-1][3]) if held else '[unknown]'
        if mine == 'anon':
            for path in {mp[3] for mp in maps[pid] if mp[3].startswith('/')}:
                segs = loads(path)
                first = [mp for mp in maps[pid] if mp[3] == path and mp[2] == 0]
                if not segs or not first:
                    continue
                bias = first[-1][0] - (min(s[0] for s in segs) & ~4095)
                last_map = max(mp[1] for mp in maps[pid] if mp[3] == path)
                end = bias + page_up(max(s[0] + s[2] for s in segs))
                if last_map <= addr < end:
                    mine = os.path.basename(path)
        theirs = '[unknown]' if ip >= KERNEL else (dso_key(held[-1][3]) if held else '[unknown]')
        out.append((theirs, mine, addr, list(maps[pid])))
    return out


def main():
    top, data, exe = sys.argv[1], sys.argv[2], sys.argv[3]
    samples = model(data)
    bad = []
    perf = collections.Counter()
    for line in run(['perf', 'report', '-i', data, '--mem-mode', '--sort', 'dso_daddr', '-F',
                     'sample,dso_daddr', '--stdio', '-q']).splitlines():
        f = line.split()
        if len(f) == 2 and f[0].isdigit():
            perf[f[1]] += int(f[0])
    want_perf = collections.Counter(s[0] for s in samples)
    want_ours = collections.Counter(s[1] for s in samples)
    rows = json.loads(run([top, 'report', data, '--by', 'data', '-n', '0', '--format',
                           'json']))['data']['rows']
    ours = collections.Counter()
    for r in rows:
        key = r['in'] if r['kind'] == 'variable' else r['object']
        ours['anon' if key == '[anon]' else dso_key(key)] += r['samples']
    for name, got, want in (('perf report', perf, want_perf), ('ldlat-top', ours, want_ours)):
        for k in sorted(set(got) | set(want)):
            if got[k] != want[k]:
                bad.append(f'{name} {k}: {got[k]}, by its rule {want[k]}')
    # the executable's image row starts at its first page's mapping
    starts = {mp[0] for s in samples for mp in s[3] if mp[3].endswith('/' + exe) and mp[2] == 0}
    image = [r for r in rows if r['kind'] == 'mapping' and r['object'] == exe]
    if not image or len(starts) != 1 or int(image[0]['address'], 16) not in starts:
        bad.append(f'{exe} image row at {[r["address"] for r in image]}, perf mmap {starts}')
    # the [anon] row's hottest line is the line of anonymous memory with most samples
    lines = collections.Counter(s[2] & ~63 for s in samples if s[1] == 'anon')
    hot = lines.most_common(2)
    anon = [r for r in rows if r['object'] == '[anon]']
    if len(hot) < 2 or hot[0][1] == hot[1][1]:
        bad.append(f'no one hottest anonymous line: {hot}')
    elif not anon or int(anon[0]['address'], 16) + anon[0]['hottest_offset'] != hot[0][0]:
        bad.append(f'[anon] row {[(r["address"], r["hottest_offset"]) for r in anon]}, '
                   f'hottest line by perf script {hex(hot[0][0])} ({hot[0][1]} samples)')
    if anon and anon[0]['blocks'] != len(lines):
        bad.append(f'[anon] row of {anon[0]["blocks"]} lines, perf script\'s samples touch '
                   f'{len(lines)}')
    print(f'{len(samples)} samples; perf report {dict(perf)}; ldlat-top {dict(ours)}')
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
