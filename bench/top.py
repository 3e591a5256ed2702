#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""Live ldlat-top against perf on first-touched pages: BENCHMARKS.md's "Live ldlat-top".

A workload writes one byte to each of TOP_PAGES pages (300,000: as many
page faults, each a new data key).  In turn, TOP_RUNS times: the workload
alone, then under each tool (page-faults, period 1).  A tool's CPU is the
user and system time of it and the workload together (its children's
rusage), its ratio that over the workload alone of the same round, and the
row gives the median of the rounds' ratios; perf record + perf report adds
the report's CPU.  Peak RSS is the tool's own (VmHWM of its process, polled
every 1 ms: a peak a report holds for tens of ms is caught; perf report's beside perf record's).  BPF ns per sample: the
program's run_time_ns / run_cnt (kernel.bpf_stats_enabled, bpftool), read
while the tool still runs; BPF_ROUNDS rounds (7), each ldlat-hist, ldlat-top
and an empty program (bpftrace `{}`: what bpf_stats' own timing adds to a
run) in turn, the ratio the median of the rounds' own ratios net of the
empty program (this VM's speed moves by a third from one round to the
next, and all three with it).  Prints the section as markdown.  Root.
"""
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get('LDLAT_BUILD', os.path.join(ROOT, 'build'))
PAGES = int(os.environ.get('TOP_PAGES', '300000'))
RUNS = int(os.environ.get('TOP_RUNS', '5'))
BPF_ROUNDS = int(os.environ.get('BPF_ROUNDS', '7'))
CAP = int(os.environ.get('TOP_CAP', '10000'))
WORKLOAD = [os.path.join(BUILD, 'ldlat-workload'), '--fault-pages', str(PAGES)]
TOP = os.path.join(BUILD, 'ldlat-top')
HIST = os.path.join(BUILD, 'ldlat-hist')


def log(msg):
    print('bench/top.py: ' + msg, file=sys.stderr, flush=True)


def vmhwm(pid):
    try:
        with open('/proc/%d/status' % pid) as f:
            for line in f:
                if line.startswith('VmHWM:'):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def run(argv):
    """(CPU seconds of argv and its children, argv's own peak RSS in KiB)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    hwm = 0
    while p.poll() is None:
        hwm = max(hwm, vmhwm(p.pid))
        time.sleep(0.001)
    err = p.stderr.read().decode(errors='replace')
    if p.returncode:
        sys.exit('bench/top.py: %s exited %d: %s' % (' '.join(argv), p.returncode, err[-500:]))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, hwm


def tools(tmp):
    data = os.path.join(tmp, 'perf.data')
    record = ['perf', 'record', '-q', '-d', '-e', 'page-faults', '-c', '1', '-o', data, '--']
    report = ['perf', 'report', '-i', data, '--stdio', '--sort', 'pid,sym']
    return [
        ('ldlat-hist (for reference)', [[HIST, '--source', 'page-faults', '--'] + WORKLOAD]),
        ('ldlat-top (both tables)', [[TOP, '--source', 'page-faults', '--'] + WORKLOAD]),
        ('ldlat-top --max-keys %d' % CAP,
         [[TOP, '--source', 'page-faults', '--max-keys', str(CAP), '--'] + WORKLOAD]),
        ('perf record -d', [record + WORKLOAD]),
        ('perf record -d + perf report --sort pid,sym', [record + WORKLOAD, report]),
    ]


def bpf_ns(tmp, argv, prog):
    """The BPF program's ns per run while argv runs the workload (bpf_stats)."""
    out = os.path.join(tmp, 'progs.json')
    shell = 'W="$1"; shift; "$@"; bpftool -j prog show > "$W"'
    subprocess.run(argv + ['sh', '-c', shell, 'sh', out] + WORKLOAD, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(out) as f:
        progs = [p for p in json.load(f) if p.get('name') == prog and p.get('run_cnt')]
    if not progs:
        sys.exit('bench/top.py: no program %s ran, by bpftool prog show' % prog)
    # the tool's own: the last loaded (bpftool here names no PIDs; a pinned set may run one too)
    p = max(progs, key=lambda p: p['id'])
    return p['run_time_ns'] / p['run_cnt'], p['run_cnt']


def progs():
    out = subprocess.run(['bpftool', '-j', 'prog', 'show'], check=True, capture_output=True)
    return {p['id']: p for p in json.loads(out.stdout)}


def empty_ns():
    """An empty perf_event program's ns per run over the workload (bpftrace, every CPU)."""
    b = subprocess.Popen(['bpftrace', '-B', 'line', '-e',
                          'software:page-faults:1 { } BEGIN { printf("ready\\n"); }'],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        for line in b.stdout:  # after its "Attaching N probes..."
            if line.strip() == 'ready':
                break
        else:
            sys.exit('bench/top.py: bpftrace did not start')
        before = progs()
        run(WORKLOAD)
        after = progs()
    finally:
        b.terminate()
        b.wait()
    runs = [(a['run_time_ns'] - before[i].get('run_time_ns', 0),
             a['run_cnt'] - before[i].get('run_cnt', 0))
            for i, a in after.items()
            if a.get('type') == 'perf_event' and i in before and
            a.get('run_cnt', 0) - before[i].get('run_cnt', 0) >= PAGES]
    if len(runs) != 1:
        sys.exit('bench/top.py: %d perf_event programs ran on every page fault, want '
                 'bpftrace\'s alone' % len(runs))
    return runs[0][0] / runs[0][1]


def main():
    with tempfile.TemporaryDirectory(prefix='ldlat-bench-top-') as tmp:
        rows = tools(tmp)
        ratios = {name: [] for name, _ in rows}
        rss = {name: [] for name, _ in rows}
        alone = []
        for i in range(RUNS):
            log('round %d of %d' % (i + 1, RUNS))
            base, _ = run(WORKLOAD)
            alone.append(base)
            for name, cmds in rows:
                cpu, peaks = 0.0, []
                for argv in cmds:
                    c, h = run(argv)
                    cpu += c
                    peaks.append(h)
                ratios[name].append(cpu / base)
                rss[name].append(peaks)
        with open('/proc/sys/kernel/bpf_stats_enabled') as f:
            was = f.read().strip()
        try:
            with open('/proc/sys/kernel/bpf_stats_enabled', 'w') as f:
                f.write('1')
            top_ns, hist_ns, none_ns = [], [], []
            for i in range(BPF_ROUNDS):
                log('BPF round %d of %d' % (i + 1, BPF_ROUNDS))
                hist_ns.append(bpf_ns(tmp, [HIST, '--source', 'page-faults', '--'],
                                      'ldlat_sample')[0])
                top_ns.append(bpf_ns(tmp, [TOP, '--source', 'page-faults', '--'],
                                     'ldlat_top')[0])
                none_ns.append(empty_ns())
        finally:
            with open('/proc/sys/kernel/bpf_stats_enabled', 'w') as f:
                f.write(was)
    print('## Live ldlat-top')
    print()
    print('`bench/top.py`: a workload first-touches %s pages (as many page-fault samples, each '
          'a new data key); %d rounds, each the workload alone then under each tool in turn; '
          'CPU is the tool and the workload together (user + system), the ratio the median of '
          'the rounds\' ratios to the workload alone (%.2f s median).  Peak RSS is the '
          'tool\'s own process (VmHWM), median.' % (format(PAGES, ','), RUNS,
                                                   statistics.median(alone)))
    print()
    print('| tool | CPU vs the workload alone | peak RSS |')
    print('|---|---|---|')
    for name, _ in rows:
        peaks = [statistics.median(p[k] for p in rss[name]) for k in range(len(rss[name][0]))]
        print('| %s | %.2fx | %s |' % (name, statistics.median(ratios[name]),
                                        ' + '.join('%.1f MB' % (k / 1024) for k in peaks)))
    print()
    t, h, z = (statistics.median(v) for v in (top_ns, hist_ns, none_ns))
    raw = statistics.median(a / b for a, b in zip(top_ns, hist_ns))
    net = statistics.median((a - c) / (b - c) for a, b, c in zip(top_ns, hist_ns, none_ns))
    print('BPF cost per sample (bpf_stats: run_time_ns / run_cnt; %d rounds, each ldlat-hist, '
          'ldlat-top and an empty program in turn; medians): ldlat-top\'s program %.0f ns '
          '(%s), ldlat-hist\'s %.0f ns (%s), the empty program %.0f ns (bpf_stats\' own '
          'timing).  ldlat-top over ldlat-hist, the median of the rounds\' ratios: %.2fx; '
          'net of the empty program, %.2fx (%.0f against %.0f ns).'
          % (BPF_ROUNDS, t, '-'.join('%.0f' % f(top_ns) for f in (min, max)), h,
             '-'.join('%.0f' % f(hist_ns) for f in (min, max)), z, raw, net, t - z, h - z))
    return 0


if __name__ == '__main__':
    sys.exit(main())
