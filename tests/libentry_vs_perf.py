#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""ldlat-hist -a LIB on a command, against perf record of the same command.

    libentry_vs_perf.py HIST PROGRAM [RUNS]

A range naming a library is resolved at the program's entry point (where
the loader has mapped every library it links), and counting starts there;
perf record counts the command's whole run from its exec.  perf is given a
uprobe at the program's entry point (the ELF header's e_entry), so that its
own samples say which came before the entry and which after.  Of RUNS runs
(default 5) each way, taken in turn, the medians:

  - ldlat-hist --source page-faults -a libc.so.6 -- PROGRAM: the range's count;
  - perf record -e page-faults -c 1 -d and the uprobe: the samples whose data
    address lies in the range as ldlat resolves it (the lowest to the highest
    address of libc's mappings, from perf's MMAP2 records), after the uprobe's
    sample and over the whole run.

ldlat's median must be perf's after the entry (within one page fault: runs
differ by where ASLR puts libc's data) and below perf's whole run by the
loader's faults in libc (relocations, constructors), which docs/tools.md
states.  Prints the figures; exit 1 if they disagree, 2 if a command failed.
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile


def entry_of(program):
    out = subprocess.run(['readelf', '-h', program], capture_output=True, text=True,
                         check=True).stdout
    return int(re.search(r'Entry point address:\s+(0x[0-9a-f]+)', out).group(1), 16)


def ldlat_count(hist, program):
    p = subprocess.run([hist, '--source', 'page-faults', '-a', 'libc.so.6', '--', program],
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f'libentry_vs_perf: ldlat-hist exited {p.returncode}: {p.stderr}')
    m = re.search(r'^\s*(\d+)\s+libc\.so\.6 \(', p.stdout, re.M)
    if not m:
        sys.exit(f'libentry_vs_perf: no libc.so.6 row in:\n{p.stdout}')
    return int(m.group(1))


def perf_counts(program, event, data):
    subprocess.run(['perf', 'record', '-q', '-e', 'page-faults', '-c', '1', '-d', '-e', event,
                    '-o', data, '--', program], check=True, capture_output=True)
    out = subprocess.run(['perf', 'script', '-i', data, '--show-mmap-events', '-F',
                          'event,addr'], capture_output=True, text=True, check=True).stdout
    lo, hi = None, None
    samples, entered = [], False
    for line in out.splitlines():
        m = re.search(r'PERF_RECORD_MMAP2 .*\[(0x[0-9a-f]+)\((0x[0-9a-f]+)\).*/libc\.so\.6$', line)
        if m:
            start, size = int(m.group(1), 16), int(m.group(2), 16)
            lo = start if lo is None else min(lo, start)
            hi = start + size if hi is None else max(hi, start + size)
            continue
        if 'ldlatentry' in line:
            entered = True
            continue
        m = re.search(r'page-faults:\s+([0-9a-f]+)', line)
        if m:
            samples.append((int(m.group(1), 16), entered))
    if lo is None:
        sys.exit('libentry_vs_perf: perf recorded no mapping of libc.so.6')
    if not any(e for _, e in samples):
        sys.exit('libentry_vs_perf: no sample after the entry probe')
    inside = [e for a, e in samples if lo <= a < hi]
    return sum(inside), len(inside)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    hist, program = sys.argv[1], os.path.realpath(sys.argv[2])
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    group = 'ldlat_' + str(os.getpid())
    event = f'{group}:ldlatentry'
    subprocess.run(['perf', 'probe', '-q', '-x', program, '-a',
                    f'{event}={entry_of(program):#x}'], check=True, capture_output=True)
    try:
        ours, after, whole = [], [], []
        with tempfile.TemporaryDirectory(prefix='ldlat-libentry.') as d:
            for i in range(runs):
                a, w = perf_counts(program, event, os.path.join(d, 'perf.data'))
                after.append(a)
                whole.append(w)
                ours.append(ldlat_count(hist, program))
    finally:
        subprocess.run(['perf', 'probe', '-q', '-d', f'{group}:*'], capture_output=True)
    o, a, w = statistics.median(ours), statistics.median(after), statistics.median(whole)
    print(f'ldlat-hist -a libc.so.6: {ours} (median {o}); perf after the entry: {after} '
          f'(median {a}); perf, the whole run: {whole} (median {w})')
    bad = []
    if abs(o - a) > 1:
        bad.append(f'ldlat-hist counts {o}, perf {a} after the entry point')
    if not o < w:
        bad.append(f'ldlat-hist counts {o}, not fewer than perf over the whole run ({w}): '
                   'the loader\'s faults in libc are counted')
    for b in bad:
        print('libentry_vs_perf: ' + b)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
