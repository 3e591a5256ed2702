#!/usr/bin/env python3
"""
hwcheck.py - the hardware self-check (make hwcheck): does ldlat-hist, on this
machine's load-latency PMU, see what perf sees?

  hwcheck.py [--seconds S] [--report FILE] [--keep DIR]
      On a machine with a load-latency event, runs the bundled pointer chase
      (build/ldlat-workload --chase: L1-, L2-, L3- and DRAM-sized buffers)
      twice: under ldlat-hist (live, the BPF program) and under
      perf mem -t load record.  perf's recording is read back by ldlat-hist --input
      (the same classifier; the offline reader is tested against
      perf script elsewhere) and perf mem report prints its own view for the
      report.  Compares each class's share of the samples and its p50 and
      p90 latency, prints a verdict table, and writes a report file
      (default build/hwcheck-report.txt) to attach to a bug.  Exit 0 when
      every class agrees, 1 when one differs.  Without a load-latency event:
      one line saying so, exit 0.

  hwcheck.py --compare LIVE.json PERF.json [--report FILE]
      Only the comparison, of two 'ldlat-hist --by class --format json'
      outputs (LIVE: ldlat-hist's own run; PERF: perf's recording).  Used by
      the tests on recorded inputs.

Agreement, per class: the shares differ by at most 3 standard errors of the
difference (two binomial proportions) plus 2 points; a class with
MIN_SAMPLES samples on one side is not missing on the other; and, with
MIN_SAMPLES on both sides, each side's p50 and p90 sit in the other side's
histogram at a rank within 3 standard errors plus 5 points of 0.5 and 0.9
(or the two differ by at most 8 cycles).  Ranks, not ratios of cycles: they
hold for a narrow peak and for a spread over decades alike.  Two runs of a
workload are two samples of it, so the bounds leave room for that: the check
is for a path that is wrong (a class that vanishes or appears, latencies off
by a factor), not for noise.
"""
import argparse
import datetime
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get('LDLAT_BUILD', os.path.join(ROOT, 'build'))
HIST = os.path.join(BUILD, 'ldlat-hist')
WORKLOAD = os.path.join(BUILD, 'ldlat-workload')
MIN_SAMPLES = 30
SHARE_POINTS = 0.02
SIGMAS = 3.0
RANK_POINTS = 0.05
PCT_ABS = 8.0


def classes(doc):
    """{class token: (count, p50, p90, name, buckets)} of an ldlat-hist --by class JSON output."""
    out = {}
    for h in doc.get('histograms', []):
        if h.get('class') is None:
            continue
        p = h.get('percentiles') or {}
        out[h['class']] = (h.get('count', 0), p.get('p50'), p.get('p90'), h.get('class_name'),
                           h.get('buckets') or [])
    return out


def share_ok(n1, t1, n2, t2):
    s1, s2 = n1 / t1, n2 / t2
    p = (n1 + n2) / (t1 + t2)
    se = math.sqrt(p * (1 - p) * (1 / t1 + 1 / t2))
    return abs(s1 - s2) <= SHARE_POINTS + SIGMAS * se


def cdf(buckets, x):
    """The share of a histogram's samples below x (uniform within a bucket)."""
    total = sum(b['count'] for b in buckets)
    below = 0.0
    for b in buckets:
        lo, hi = b['low'], b['high'] if b['high'] is not None else b['low']
        if x > hi:
            below += b['count']
        elif x >= lo:
            below += b['count'] * (x - lo + 0.5) / (hi - lo + 1)
    return below / total if total else 0.0


def rank_ok(q, v, n, other, m):
    """Whether value v, quantile q of n samples, sits near rank q among the other's m."""
    if v is None:
        return False
    return abs(cdf(other, v) - q) <= RANK_POINTS + SIGMAS * math.sqrt(q * (1 - q) *
                                                                      (1 / n + 1 / m))


def latency_ok(a, b):
    na, a50, a90, _, ab = a
    nb, b50, b90, _, bb = b
    for q, va, vb in ((0.5, a50, b50), (0.9, a90, b90)):
        if va is not None and vb is not None and abs(va - vb) <= PCT_ABS:
            continue
        if not (rank_ok(q, va, na, bb, nb) and rank_ok(q, vb, nb, ab, na)):
            return False
    return True


NONE = (0, None, None, None, [])


def compare(live, perf):
    """Rows (token, name, live n, share, p50, p90, perf n, share, p50, p90, verdict), and PASS."""
    lc, pc = classes(live), classes(perf)
    lt = sum(v[0] for v in lc.values())
    pt = sum(v[0] for v in pc.values())
    rows, ok = [], lt > 0 and pt > 0
    for tok in sorted(set(lc) | set(pc), key=lambda t: -(lc.get(t, NONE)[0] + pc.get(t, NONE)[0])):
        lv, pv = lc.get(tok, NONE), pc.get(tok, NONE)
        ln, pn = lv[0], pv[0]
        if not ln and not pn:
            continue
        verdict = 'ok'
        if not lt or not pt:
            verdict = 'SHARE DIFFERS (no samples on one side)'
        elif max(ln, pn) >= MIN_SAMPLES and not min(ln, pn):
            verdict = 'SHARE DIFFERS (missing on one side)'
        elif not share_ok(ln, lt, pn, pt):
            verdict = 'SHARE DIFFERS'
        elif ln < MIN_SAMPLES or pn < MIN_SAMPLES:
            verdict = 'ok (few samples: latency not compared)'
        elif not latency_ok(lv, pv):
            verdict = 'LATENCY DIFFERS'
        if 'DIFFERS' in verdict:
            ok = False
        rows.append((tok, lv[3] or pv[3], ln, ln / lt if lt else 0.0, lv[1], lv[2], pn,
                     pn / pt if pt else 0.0, pv[1], pv[2], verdict))
    return rows, ok


def fmt(v):
    return '-' if v is None else '%.0f' % v


def table(rows, ok):
    lines = ['%-18s %8s %6s %7s %7s  %8s %6s %7s %7s  %s' %
             ('class', 'ldlat n', 'share', 'p50', 'p90', 'perf n', 'share', 'p50', 'p90',
              'verdict')]
    for tok, _, ln, ls, l50, l90, pn, ps, p50, p90, v in rows:
        lines.append('%-18s %8d %5.1f%% %7s %7s  %8d %5.1f%% %7s %7s  %s' %
                     (tok, ln, 100 * ls, fmt(l50), fmt(l90), pn, 100 * ps, fmt(p50), fmt(p90),
                      v))
    lines.append('verdict: %s' % ('PASS: ldlat-hist and perf agree on every class' if ok else
                                  'FAIL: ldlat-hist and perf disagree (see the rows marked '
                                  'DIFFERS); attach this report to a bug'))
    return '\n'.join(lines) + '\n'


def run(argv, **kw):
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def machine_facts():
    facts = ['date: %s' % datetime.datetime.now(datetime.timezone.utc).isoformat(),
             'kernel: %s' % ' '.join(platform.uname())]
    try:
        with open('/proc/cpuinfo') as f:
            for line in f:
                if line.startswith(('vendor_id', 'cpu family', 'model', 'stepping',
                                    'microcode')):
                    facts.append(line.strip())
                if not line.strip():
                    break
    except OSError:
        pass
    r = run(['git', '-C', ROOT, 'describe', '--always', '--dirty'])
    facts.append('ldlat: %s' % (r.stdout.strip() or 'unknown revision'))
    if shutil.which('perf'):
        facts.append(run(['perf', '--version']).stdout.strip())
    return facts


def write_report(path, sections):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, 'w') as f:
        for title, text in sections:
            f.write('==== %s\n%s\n' % (title, text.rstrip('\n')))
    print('hwcheck: report written to %s' % path)


def hist_json(args, what):
    r = run([HIST, '--by', 'class', '--format', 'json'] + args)
    if r.returncode:
        sys.exit('hwcheck: %s failed (exit %d): %s' % (what, r.returncode, r.stderr.strip()))
    # the report is the last JSON line (a command's own output may come first)
    lines = [l for l in r.stdout.splitlines() if l.startswith('{')]
    if not lines:
        sys.exit('hwcheck: %s printed no JSON: %s' % (what, r.stdout.strip()))
    return json.loads(lines[-1]), lines[-1] + '\n'


def main_compare(a):
    with open(a.compare[0]) as f:
        live = json.load(f)
    with open(a.compare[1]) as f:
        perf = json.load(f)
    rows, ok = compare(live, perf)
    text = table(rows, ok)
    sys.stdout.write(text)
    if a.report:
        write_report(a.report, [('verdict', text)])
    return 0 if ok else 1


def main_hw(a):
    for path in (HIST, WORKLOAD):
        if not os.access(path, os.X_OK):
            sys.exit('hwcheck: %s is missing: run make tests first' % path)
    r = run([HIST, '--list-events'])
    if 'no load-latency event' in r.stderr or r.returncode:
        why = r.stderr.strip().split('\n')[0].replace('ldlat-hist: ', '')
        print('hwcheck: no load-latency PMU here, nothing to check (%s)' % why.split('. ')[0])
        return 0
    if not shutil.which('perf'):
        sys.exit('hwcheck: perf is missing (Debian: apt-get install linux-perf)')
    work = a.keep or tempfile.mkdtemp(prefix='ldlat-hwcheck.')
    os.makedirs(work, exist_ok=True)
    # the chase prints its ns per load: keep it out of ldlat-hist's JSON
    chase = ['sh', '-c', 'exec "$0" --chase --seconds "$1" >/dev/null', WORKLOAD,
             str(a.seconds)]
    live, live_text = hist_json(['--'] + chase, 'ldlat-hist on the pointer chase')
    data = os.path.join(work, 'perf.data')
    # loads only, as ldlat-hist keeps (perf mem samples stores too by default)
    r = run(['perf', 'mem', '-t', 'load', 'record', '-o', data, '--'] + chase)
    if r.returncode:
        sys.exit('hwcheck: perf mem record failed (exit %d): %s' % (r.returncode,
                                                                     r.stderr.strip()))
    perf, perf_text = hist_json(['--input', data], 'ldlat-hist --input on perf\'s recording')
    report = run(['perf', 'mem', 'report', '-i', data, '--stdio', '--sort', 'mem'])
    rows, ok = compare(live, perf)
    text = table(rows, ok)
    sys.stdout.write(text)
    write_report(a.report, [('machine', '\n'.join(machine_facts())),
                            ('event', run([HIST, '--list-events']).stdout),
                            ('verdict', text),
                            ('ldlat-hist live (JSON)', live_text),
                            ('perf mem record, read by ldlat-hist --input (JSON)', perf_text),
                            ('perf mem report --sort mem', report.stdout + report.stderr)])
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('--compare', nargs=2, metavar=('LIVE.json', 'PERF.json'))
    p.add_argument('--report', default=None)
    p.add_argument('--seconds', type=float, default=4.0)
    p.add_argument('--keep', metavar='DIR', help='keep perf.data in DIR')
    a = p.parse_args()
    if a.compare:
        return main_compare(a)
    if not a.report:
        a.report = os.path.join(BUILD, 'hwcheck-report.txt')
    return main_hw(a)


if __name__ == '__main__':
    sys.exit(main())
