#!/usr/bin/env python3
"""
hwcheck_check.py - tests hwcheck.py's comparison on recorded inputs (run by
tests/run.sh as check-hwcheck; no root, no PMU).

First the recording of real hardware (tests/fixtures/recordings, a
Skylake-SP load-latency run): hwcheck.py --recording compares ldlat-hist
--input's classes with perf's own reading of the same file (perf mem
report's samples per level, perf script's latencies): every class and
latency bucket must hold the same samples.  A classification fault in
bpf/ldlat.h fails it (LFB taken as L1: "l1: ldlat 9 samples, perf 4").

Then the comparison itself, on perf.data files written by
build/tests/gen-perfdata (every data source each platform's kernel emits,
tests/lib/datasrc_cases.h) and read by ldlat-hist --input --by class
--format json on both sides.  The same file on both sides must PASS with
every row 'ok'; a side that lost a class (-s without l1) must FAIL on that
class's share; a side whose latencies are shifted (--min-lat) must FAIL on
latency; two files of different lengths from the same generator must
PASS.  The hardware path runs with stand-ins for ldlat-hist's live run, the
workload and perf mem record (LDLAT_BUILD and PATH; perf mem report and
perf script are perf's own, on the recording): its report holds each
section and its exit status follows the verdict.  Then hwcheck.py on this
machine: with no load-latency event it prints one line and exits 0.
Prints a line per failed case and a summary; exits 1 on a failure.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import hwcheck  # noqa: E402

BUILD = hwcheck.BUILD
failed = []


def check(cond, what):
    if not cond:
        failed.append(what)
        print('FAIL: %s' % what)


def hist_input(path, extra=()):
    r = subprocess.run([hwcheck.HIST, '--input', path, '--by', 'class', '--format', 'json'] +
                       list(extra), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode:
        sys.exit('ldlat-hist --input %s: %s' % (path, r.stderr))
    return json.loads(r.stdout)


RECORDING = os.path.join(HERE, 'fixtures', 'recordings', 'skylake-sp-load-latency.data')


def main():
    gen = os.path.join(BUILD, 'tests', 'gen-perfdata')
    tmp = tempfile.mkdtemp(prefix='ldlat-hwcheck-test.')

    # the recording, ldlat's classes against perf's levels
    r = subprocess.run([sys.executable, os.path.join(HERE, 'hwcheck.py'), '--recording',
                        RECORDING], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    check(r.returncode == 0 and 'verdict: PASS' in r.stdout and 'DIFFERS' not in r.stdout,
          'the recording: ldlat-hist --input and perf agree on every sample\n' + r.stdout +
          r.stderr)
    live = hist_input(RECORDING)
    lc, pc, _ = hwcheck.perf_side(live, RECORDING)
    check(sorted(lc) == ['l1', 'l2', 'l3', 'lfb'] and sum(v[0] for v in pc.values()) == 14 and
          not hwcheck.compare_exact(lc, pc),
          'the recording: 14 samples, L1, LFB, L2 and L3 both ways: %s %s' % (lc, pc))
    # the exact comparison sees a sample moved between classes or buckets
    moved = dict(lc)
    moved['l2'] = (2,) + lc['l2'][1:]
    moved['l3'] = (3,) + lc['l3'][1:]
    check(hwcheck.compare_exact(moved, pc) == ['l2: ldlat 2 samples, perf 1',
                                               'l3: ldlat 3 samples, perf 4'],
          'a sample moved from l3 to l2 is seen: %s' % hwcheck.compare_exact(moved, pc))
    shifted = dict(pc)
    shifted['l2'] = pc['l2'][:4] + ([{'low': 300, 'high': 300, 'count': 1}],)
    check(hwcheck.compare_exact(lc, shifted) != [], 'a latency moved to another bucket is seen')
    # perf's words for the levels ldlat's classes name
    for words, cls in ((('L1 or L1 hit', 'None'), ('l1',)),
                       (('LFB/MAB or LFB/MAB hit', 'None'), ('lfb',)),
                       (('L3 or L3 hit', 'HitM'), ('local-hitm',)),
                       (('Local RAM or RAM hit', 'Hit'), ('local-ram',)),
                       (('Remote L3 or Remote Cache (1 hop) or L3 hit', 'Hit'),
                        ('remote-cache-1hop',)),
                       (('Remote Remote RAM (1 hop) or RAM hit', 'None or Miss'),
                        ('remote-ram-1hop',)),
                       (('Remote L3 or Remote Cache (1 hop) or L3 hit', 'HitM'),
                        ('remote-hitm',)),
                       (('L3 miss', 'N/A'), ('miss',)),
                       (('N/A or N/A', 'N/A'), None)):
        check(hwcheck.perf_level_classes(*words) == cls,
              'perf\'s %s / %s is %s: %s' % (words + (cls, hwcheck.perf_level_classes(*words))))
    a, b = os.path.join(tmp, 'a.data'), os.path.join(tmp, 'b.data')
    for path, n in ((a, '40000'), (b, '30000')):
        subprocess.run([gen, '--samples', n, path], check=True, stdout=subprocess.DEVNULL)
    base = hist_input(a)

    rows, ok = hwcheck.compare(base, base)
    check(ok and rows and all(r[-1].startswith('ok') for r in rows), 'same input: PASS')
    check(sum(r[2] for r in rows) == base['counters']['kept'], 'rows cover every kept sample')
    check('l2-mhb' in [r[0] for r in rows] and 'io' in [r[0] for r in rows],
          'the newest classes are compared too')

    rows, ok = hwcheck.compare(base, hist_input(b))
    check(ok, 'two recordings of the same generator: PASS\n' + hwcheck.table(rows, ok))

    every = [c for c in hwcheck.classes(base) if c != 'l1']
    rows, ok = hwcheck.compare(base, hist_input(a, ['-s', ','.join(every)]))
    bad = [r for r in rows if 'DIFFERS' in r[-1]]
    check(not ok and [r[0] for r in bad] == ['l1'] and bad[0][-1].startswith('SHARE DIFFERS'),
          'a class lost on one side: FAIL on its share only\n' + hwcheck.table(rows, ok))

    rows, ok = hwcheck.compare(base, hist_input(a, ['--min-lat', '4096']))
    check(not ok and any(r[-1] == 'LATENCY DIFFERS' for r in rows),
          'latencies shifted on one side: FAIL on latency\n' + hwcheck.table(rows, ok))

    # the command line: --compare, its exit status and report file
    la, lb = os.path.join(tmp, 'live.json'), os.path.join(tmp, 'perf.json')
    with open(la, 'w') as f:
        json.dump(base, f)
    with open(lb, 'w') as f:
        json.dump(hist_input(a, ['-s', ','.join(every)]), f)
    rep = os.path.join(tmp, 'report.txt')
    r = subprocess.run([sys.executable, os.path.join(HERE, 'hwcheck.py'), '--compare', la, lb,
                        '--report', rep], stdout=subprocess.PIPE, text=True)
    check(r.returncode == 1 and 'verdict: FAIL' in r.stdout and os.path.exists(rep),
          '--compare: exit 1, the verdict, the report')
    r = subprocess.run([sys.executable, os.path.join(HERE, 'hwcheck.py'), '--compare', la, la],
                       stdout=subprocess.PIPE, text=True)
    check(r.returncode == 0 and 'verdict: PASS' in r.stdout, '--compare: exit 0 on agreement')

    # the hardware path, with stand-ins for ldlat-hist, the workload and perf
    # that answer as they would on a machine with a PMU: the report and exit
    # status follow the comparison
    # perf mem record "records" the recording; perf mem report and perf
    # script are perf's own; ldlat-hist's live run prints the classes of the
    # recording (agree) or of the generator's file (disagree)
    perf = shutil.which('perf')
    for agree in (True, False):
        stub = os.path.join(tmp, 'stub')
        os.makedirs(stub, exist_ok=True)
        with open(os.path.join(tmp, 'live.json'), 'w') as f:
            json.dump(live if agree else base, f)
        scripts = {
            'ldlat-hist': '#!/bin/sh\n'
                          'case "$*" in\n'
                          '*--list-events*) echo "event 1        cpu/mem-loads,ldlat=30/P" ;;\n'
                          '*) echo "L1 1.0 ns/load"; cat %s ;;\n'
                          'esac\n' % os.path.join(tmp, 'live.json'),
            'ldlat-workload': '#!/bin/sh\nexit 0\n',
            'perf': '#!/bin/sh\n'
                    'case "$*" in\n'
                    '--version) echo "perf version stand-in" ;;\n'
                    'mem\\ -t\\ load\\ record*) cp %s "$6" ;;\n'
                    '*) exec %s "$@" ;;\n'
                    'esac\n' % (RECORDING, perf),
        }
        for name, text in scripts.items():
            path = os.path.join(stub, name)
            with open(path, 'w') as f:
                f.write(text)
            os.chmod(path, 0o755)
        rep = os.path.join(tmp, 'hw-report.txt')
        env = dict(os.environ, LDLAT_BUILD=stub, PATH=stub + os.pathsep + os.environ['PATH'])
        r = subprocess.run([sys.executable, os.path.join(HERE, 'hwcheck.py'), '--report', rep],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        text = open(rep).read() if os.path.exists(rep) else ''
        check(r.returncode == (0 if agree else 1) and
              ('verdict: PASS' if agree else 'verdict: FAIL') in r.stdout and
              all(t in text for t in ('==== machine', 'perf version stand-in',
                                      '==== event', 'cpu/mem-loads', '==== verdict',
                                      '==== ldlat-hist live (JSON)',
                                      '==== perf mem report --sort mem,snoop',
                                      'LFB/MAB or LFB/MAB hit')),
              'the hardware path (agree=%s): exit %d, %s %s\n%s' % (agree, r.returncode,
                                                                  r.stdout, r.stderr, text))
        for f in os.listdir(stub):
            os.unlink(os.path.join(stub, f))
        os.rmdir(stub)

    # this machine: a load-latency PMU or not
    r = subprocess.run([sys.executable, os.path.join(HERE, 'hwcheck.py')],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    nopmu = not any(os.path.exists('/sys/bus/event_source/devices/%s/events/mem-loads' % p)
                    for p in ('cpu', 'cpu_core', 'cpu_atom')) and \
        not os.path.exists('/sys/bus/event_source/devices/ibs_op')
    if nopmu:
        check(r.returncode == 0 and r.stdout.count('\n') == 1 and
              r.stdout.startswith('hwcheck: no load-latency PMU here'),
              'no PMU: one line, exit 0: %r %r' % (r.stdout, r.stderr))
    for f in os.listdir(tmp):
        os.unlink(os.path.join(tmp, f))
    os.rmdir(tmp)
    print('check-hwcheck: %s' % ('%d case(s) failed' % len(failed) if failed else
                                 'comparison tested on recorded inputs, all cases pass'))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
