#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""ldlat-top's function names against perf report's, on one perf.data file.

    names_vs_perf.py TOP PERF.data STYLE DSO[,DSO]

STYLE is ldlat-top's --demangle: short against perf report's own names,
no against perf report --no-demangle's, full against those names put
through c++filt (binutils' demangler, the full signature).  For each
function of the DSOs named (file names), the samples ldlat-top report
gives it in JSON (--by ip), in its text table and at the leaf of its folded
call paths must be the samples perf report gives it (perf's rows summed by
name: two overloads are two rows of one name).  Rows without a name either
side ([unknown], an address, a PLT entry without a symbol) are not
compared, nor in folded paths a name that another DSO has too (a frame
does not say its DSO: ld.so has a _start as well).  Prints each disagreement; exit 1 if any.
"""
import json
import subprocess
import sys


def perf_rows(data, style, dsos):
    cmd = ['perf', 'report', '-i', data, '--stdio', '-q', '--no-children', '--sort', 'sym,dso',
           '-F', 'sample,sym,dso', '-g', 'none']
    if style != 'short':
        cmd.insert(2, '--no-demangle')
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    if style == 'full':
        out = subprocess.run(['c++filt'], input=out, capture_output=True, text=True,
                             check=True).stdout
    rows, elsewhere = {}, set()
    for line in out.splitlines():
        if '[.] ' not in line:
            continue
        count, rest = line.split('[.] ', 1)
        name, dso = rest.rstrip().rsplit(None, 1)
        name = name.strip()
        if dso in dsos and named(name):
            rows[name] = rows.get(name, 0) + int(count)
        elif dso not in dsos:
            elsewhere.add(name)
    return rows, elsewhere


def named(name):
    return not (name.startswith('0x') or name.startswith('[') or name.startswith('@plt'))


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout


def main():
    top, data, style, dsos = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(',')
    base = [top, 'report', data, '--demangle', style, '-n', '0']
    theirs, elsewhere = perf_rows(data, style, dsos)
    ours = {'json': {}, 'text': {}, 'folded': {}}
    for r in json.loads(run(base + ['--by', 'ip', '--format', 'json']))['code']['rows']:
        if r['dso'].rsplit('/', 1)[-1] in dsos and named(r['function']):
            ours['json'][r['function']] = ours['json'].get(r['function'], 0) + r['samples']
    for line in run(base + ['--by', 'ip']).splitlines():
        # SAMPLES SHARE ... [.] FUNCTION  DSO (a name may hold spaces: the DSO is the last word)
        if '[.] ' not in line or not line.split()[0].isdigit():
            continue
        name, dso = line.split('[.] ', 1)[1].rstrip().rsplit(None, 1)
        name = name.strip()
        if dso.rsplit('/', 1)[-1] in dsos and named(name):
            ours['text'][name] = ours['text'].get(name, 0) + int(line.split()[0])
    for line in run(base + ['--format', 'folded']).splitlines():
        path, count = line.rsplit(' ', 1)
        leaf = path.rsplit(';', 1)[-1]
        if leaf in theirs and leaf not in elsewhere:
            ours['folded'][leaf] = ours['folded'].get(leaf, 0) + int(count)
    bad = []
    if not theirs:
        bad.append(f'perf report names no function of {dsos}')
    for form, rows in ours.items():
        for name in sorted(set(rows) | set(theirs)):
            if form == 'folded' and (name not in theirs or name in elsewhere):
                continue
            if rows.get(name, 0) != theirs.get(name, 0):
                bad.append(f'{form} {name!r}: ldlat-top {rows.get(name, 0)}, '
                           f'perf {theirs.get(name, 0)}')
    print(f'{style}: {len(theirs)} functions, {sum(theirs.values())} samples')
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
