#!/usr/bin/env python3
"""
hwcheck.py - the hardware self-check (make hwcheck): does ldlat-hist, on this
machine's load-latency PMU, see what perf sees?

  hwcheck.py [--seconds S] [--report FILE] [--keep DIR]
      On a machine with a load-latency event, runs the bundled pointer chase
      (build/ldlat-workload --chase: L1-, L2-, L3- and DRAM-sized buffers)
      twice: under ldlat-hist (live, the BPF program) and under
      perf mem -t load record.  The perf side is perf's own: the samples per
      memory level and snoop as perf mem report counts them, and each
      sample's latency as perf script prints it, each level of perf's words
      taken as the ldlat class(es) it names (perf_level_classes).  Compares each
      class's share of the samples and its p50 and p90 latency, prints a
      verdict table, and writes a report file (default
      build/hwcheck-report.txt) to attach to a bug.  Exit 0 when every class
      agrees, 1 when one differs.  Without a load-latency event: one line
      saying so, exit 0.

  hwcheck.py --recording FILE [--report FILE]
      One perf.data file both ways: ldlat-hist --input FILE against perf's
      own reading of FILE (perf mem report, perf script).  The samples are
      the same, so the counts must be equal class by class and latency
      bucket by latency bucket.  Used by the tests on a recording of real
      hardware (tests/fixtures/recordings).

  hwcheck.py --compare LIVE.json PERF.json [--report FILE]
      Only the comparison, of two 'ldlat-hist --by class --format json'
      outputs.  Used by the tests of the comparison itself.

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
import re
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

# perf's words for a level (perf mem report's "Memory access", perf script's
# LVL; perf 6.1 prints the legacy and the level-number names joined by " or ",
# newer perf the level number's alone) and the ldlat classes each names,
# first match wins: a remote source by its distance where perf names it,
# HITM by the snoop, then the level.  A level not here is a row of its own
# that no ldlat class can match.
REMOTE_LEVELS = (('Remote Cache (1 hop)', ('remote-cache-1hop',)),
                 ('Remote Cache (2 hops)', ('remote-cache-2hop',)),
                 ('Remote RAM (1 hop)', ('remote-ram-1hop',)),
                 ('Remote RAM (2 hops)', ('remote-ram-2hop',)),
                 ('RAM', ('remote-ram', 'remote-ram-1hop', 'remote-ram-2hop',
                          'remote-ram-3hop')),
                 ('L3', ('remote-cache', 'remote-cache-1hop', 'remote-cache-2hop',
                         'remote-cache-3hop', 'remote-ram-1hop')),
                 ('Any cache', ('remote-cache', 'remote-cache-1hop', 'remote-cache-2hop',
                                'remote-cache-3hop')))
LOCAL_LEVELS = (('L1', 'l1'), ('LFB/MAB', 'lfb'), ('L2', 'l2'), ('L3', 'l3'), ('L4', 'l4'),
                ('Local RAM', 'local-ram'), ('RAM', 'local-ram'), ('PMEM', 'pmem'),
                ('CXL', 'cxl'), ('I/O', 'io'), ('Uncached', 'uncached'),
                ('Any cache', 'any-cache'), ('MSC', 'msc'))


def perf_level_classes(level, snoop):
    """The ldlat classes perf's level and snoop words name, or None."""
    level = level.strip()
    remote = level.startswith('Remote ')
    if remote:
        level = level[len('Remote '):]
    outcome = level.rsplit(' ', 1)[-1]
    if outcome in ('hit', 'miss'):
        level = level[:-len(outcome) - 1]
    alts = set(level.split(' or '))
    snoops = set(snoop.strip().split(' or '))
    if outcome == 'miss':
        return ('miss',) if not remote else None
    if outcome != 'hit':
        return None
    if remote:
        if 'HitM' in snoops:
            return ('remote-hitm',)
        for name, cls in REMOTE_LEVELS:
            if name in alts:
                return cls
        return None
    if 'HitM' in snoops:
        return ('local-hitm',)
    for name, cls in LOCAL_LEVELS:
        if name in alts:
            return (cls,)
    return None


def run_perf(argv, what):
    r = run(argv)
    if r.returncode:
        sys.exit('hwcheck: %s failed (exit %d): %s' % (what, r.returncode, r.stderr.strip()))
    return r.stdout


def perf_view(data):
    """
    perf's own reading of a recording: {(level, snoop): count} as perf mem
    report counts the samples, {(level, snoop): [latency, ...]} as perf
    script prints them (the two must agree), and perf mem report's text.
    """
    text = run_perf(['perf', 'mem', 'report', '-i', data, '--stdio', '--sort', 'mem,snoop',
                     '-x', ';'], 'perf mem report')
    counts = {}
    for line in text.splitlines():
        if line.startswith('#') or line.count(';') != 3:
            continue
        _, n, level, snoop = (f.strip() for f in line.split(';'))
        counts[(level, snoop)] = counts.get((level, snoop), 0) + int(n)
    lat = {}
    for line in run_perf(['perf', 'script', '-i', data, '-F', 'data_src,weight'],
                         'perf script').splitlines():
        m = re.search(r'\|LVL (.*?)\|SNP (.*?)\|.*\s(\d+)\s*$', line)
        if m:
            lat.setdefault((m.group(1).strip(), m.group(2).strip()), []).append(
                int(m.group(3)))
    if {k: len(v) for k, v in lat.items()} != counts:
        sys.exit('hwcheck: perf mem report and perf script disagree on %s:\n%s\n%s' %
                 (data, counts, {k: len(v) for k, v in lat.items()}))
    return counts, lat, text


def nearest_rank(values, q):
    v = sorted(values)
    return v[max(0, math.ceil(q * len(v)) - 1)]


def groups_of(perf_keys, live_classes):
    """
    Rows to compare: each a set of ldlat classes, those perf's words name
    (merged where two levels name a class in common) and, alone, each live
    class perf named none of; and each of perf's (level, snoop) keys' row.
    """
    rows = []
    for key in perf_keys:
        cls = perf_level_classes(*key)
        rows.append(set(cls) if cls else {'perf: %s / %s' % key})
    merged = True
    while merged:
        merged = False
        for i in range(len(rows)):
            for j in range(i + 1, len(rows)):
                if rows[i] & rows[j]:
                    rows[i] |= rows.pop(j)
                    merged = True
                    break
            if merged:
                break
    for c in live_classes:
        if not any(c in r for r in rows):
            rows.append({c})
    token = {}
    for r in rows:
        for c in r:
            token[c] = '+'.join(sorted(r))
    return token


def grouped(lc, token):
    """ldlat's classes summed into the rows token names."""
    out = {}
    for c, (n, p50, p90, name, buckets) in lc.items():
        t = token.get(c, c)
        if t not in out:
            out[t] = [0, p50, p90, name, []]
        else:  # several classes in one row: percentiles from the summed buckets
            out[t][1] = out[t][2] = None
        out[t][0] += n
        out[t][4] = merge_buckets(out[t][4], buckets)
    for t, v in out.items():
        if v[1] is None and v[0]:
            v[1], v[2] = bucket_quantile(v[4], 0.5), bucket_quantile(v[4], 0.9)
    return {t: tuple(v) for t, v in out.items()}


def merge_buckets(a, b):
    by = {}
    for x in a + b:
        k = (x['low'], x['high'])
        by[k] = by.get(k, 0) + x['count']
    return [{'low': k[0], 'high': k[1], 'count': n} for k, n in sorted(by.items())]


def bucket_quantile(buckets, q):
    total = sum(b['count'] for b in buckets)
    seen = 0
    for b in buckets:
        seen += b['count']
        if seen >= q * total:
            return b['low'] if b['high'] is None else (b['low'] + b['high']) / 2
    return None


def perf_classes(lat, token):
    """perf's samples as rows: {row: (count, p50, p90, perf's words, exact buckets)}."""
    acc = {}
    for key, values in lat.items():
        cls = perf_level_classes(*key)
        t = token[cls[0]] if cls else token['perf: %s / %s' % key]
        acc.setdefault(t, ([], '%s / %s' % key))[0].extend(values)
    out = {}
    for t, (values, words) in acc.items():
        buckets = [{'low': v, 'high': v, 'count': values.count(v)} for v in sorted(set(values))]
        out[t] = (len(values), nearest_rank(values, 0.5), nearest_rank(values, 0.9), words,
                  buckets)
    return out


def perf_side(live_doc, data):
    """ldlat's classes and perf's view of data as the same rows, and perf mem report's text."""
    counts, lat, text = perf_view(data)
    lc = classes(live_doc)
    token = groups_of(list(counts), lc)
    return grouped(lc, token), perf_classes(lat, token), text


def compare_exact(lc, pc):
    """One recording both ways: the differences of count, row by row and bucket by bucket."""
    bad = []
    for t in sorted(set(lc) | set(pc)):
        ln, pn = lc.get(t, NONE)[0], pc.get(t, NONE)[0]
        if ln != pn:
            bad.append('%s: ldlat %d samples, perf %d' % (t, ln, pn))
            continue
        weights = [b['low'] for b in pc.get(t, NONE)[4] for _ in range(b['count'])]
        for b in lc.get(t, NONE)[4]:
            hi = b['high'] if b['high'] is not None else float('inf')
            n = sum(1 for w in weights if b['low'] <= w <= hi)
            if n != b['count']:
                bad.append('%s: ldlat %d samples at %s-%s cycles, perf %d' %
                           (t, b['count'], b['low'], b['high'], n))
    return bad


def as_classes(x):
    return classes(x) if 'histograms' in x else x


def compare(live, perf):
    """Rows (token, name, live n, share, p50, p90, perf n, share, p50, p90, verdict), and PASS."""
    lc, pc = as_classes(live), as_classes(perf)
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


def main_recording(a):
    live, live_text = hist_json(['--input', a.recording], 'ldlat-hist --input')
    lc, pc, report = perf_side(live, a.recording)
    rows, ok = compare(lc, pc)
    bad = compare_exact(lc, pc)
    rows = [r[:-1] + ('COUNT DIFFERS',) if any(b.startswith(r[0] + ':') for b in bad) else r
            for r in rows]
    text = table(rows, ok and not bad) + ''.join('DIFFERS: %s\n' % b for b in bad)
    sys.stdout.write(text)
    if a.report:
        write_report(a.report, [('verdict', text), ('ldlat-hist --input (JSON)', live_text),
                                ('perf mem report --sort mem,snoop', report)])
    return 0 if ok and not bad else 1


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
    lc, pc, report = perf_side(live, data)
    rows, ok = compare(lc, pc)
    text = table(rows, ok)
    sys.stdout.write(text)
    write_report(a.report, [('machine', '\n'.join(machine_facts())),
                            ('event', run([HIST, '--list-events']).stdout),
                            ('verdict', text),
                            ('ldlat-hist live (JSON)', live_text),
                            ('perf mem report --sort mem,snoop', report)])
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('--compare', nargs=2, metavar=('LIVE.json', 'PERF.json'))
    p.add_argument('--recording', metavar='FILE')
    p.add_argument('--report', default=None)
    p.add_argument('--seconds', type=float, default=4.0)
    p.add_argument('--keep', metavar='DIR', help='keep perf.data in DIR')
    a = p.parse_args()
    if a.compare:
        return main_compare(a)
    if a.recording:
        return main_recording(a)
    if not a.report:
        a.report = os.path.join(BUILD, 'hwcheck-report.txt')
    return main_hw(a)


if __name__ == '__main__':
    sys.exit(main())
