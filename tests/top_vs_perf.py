#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""ldlat-top's JSON against perf report on a recording of the same program.

    top_vs_perf.py TOP.json PERF.data [TOLERANCE]

Every function row either side holding at least 0.2% of the samples, by
(function, DSO file name), must agree within TOLERANCE percentage points of
the total (default 1); both tables must hold as many samples as perf
recorded, within TOLERANCE percent, with none left unattributed.  (perf
names a variable only inside a file-backed mapping and calls .bss beyond
the file 'anon', so data rows are checked by the tests' own programs.)
Code without a symbol: ldlat-top names it by its ELF address (what objdump
and addr2line take), perf report by its offset in the file (map_ip: the IP
less the mapping's start plus its file offset).  The two differ in an
executable linked at a fixed address (non-PIE, such as Debian's python3.11:
ldlat-top 0x5de72f, perf 0x1de72f), so ldlat-top's address is turned into
the file offset through the file's program headers before they are matched.
Prints each disagreement; exit 1 if any.
"""
import json
import os
import subprocess
import sys


def perf_rows(data, sort, mem=False):
    cmd = ['perf', 'report', '-i', data, '--stdio', '-q', '--sort', sort, '-F',
           'sample,' + sort]
    if mem:
        cmd.insert(2, '--mem-mode')
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    rows = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) < 2 or not f[0].isdigit():
            continue
        n = int(f[0])
        rest = f[1:]
        if rest and rest[0] in ('[.]', '[k]'):
            rest = rest[1:]
        key = tuple(rest[:2]) if sort.count(',') else (rest[0] if rest else '',)
        if key and key[0].startswith('0x'):
            key = (hex(int(key[0], 16)),) + key[1:]
        rows[key] = rows.get(key, 0) + n
    return rows


def load_segments(path, cache={}):
    """The file's PT_LOAD segments as (vaddr, memsz, offset), from readelf -lW."""
    if path not in cache:
        segs = []
        try:
            out = subprocess.run(['readelf', '-lW', path], capture_output=True, text=True,
                                 check=True).stdout
        except (OSError, subprocess.CalledProcessError):
            out = ''
        for line in out.splitlines():
            f = line.split()
            if len(f) >= 6 and f[0] == 'LOAD':
                segs.append((int(f[2], 16), int(f[5], 16), int(f[1], 16)))
        cache[path] = segs
    return cache[path]


def file_offset(path, vaddr):
    """perf's name for an ELF address of path: its offset in the file."""
    for start, size, off in load_segments(path):
        if start <= vaddr < start + size:
            return vaddr - start + off
    return vaddr


def main():
    top = json.load(open(sys.argv[1]))
    data = sys.argv[2]
    tol = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
    bad = []
    for t in ('code', 'data'):
        na = top[t]['not_attributed']
        if na['table_full'] or na['update_failed']:
            bad.append(f'{t}: {na} not attributed')
    ours = {}
    for r in top['code']['rows']:
        name = r['function']
        if name.startswith('0x'):
            name = hex(file_offset(r['dso'], int(name, 16)))
        key = (name, os.path.basename(r['dso']))
        ours[key] = ours.get(key, 0) + r['samples']
    theirs = perf_rows(data, 'sym,dso')
    total_o = top['code']['samples']
    total_t = sum(theirs.values())
    for key in set(ours) | set(theirs):
        po = 100.0 * ours.get(key, 0) / max(total_o, 1)
        pt = 100.0 * theirs.get(key, 0) / max(total_t, 1)
        if max(po, pt) >= 0.2 and abs(po - pt) > tol:
            bad.append(f'code {key}: ldlat-top {po:.2f}%, perf {pt:.2f}%')
    for t in ('code', 'data'):
        n = top[t]['samples']
        if abs(n - total_t) > tol / 100.0 * total_t:
            bad.append(f'{t}: ldlat-top {n} samples, perf {total_t}')
    print(f'{len(ours)} functions, {total_o} samples (perf {total_t})')
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
