#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""Soak test: ldlat-top's memory under exec and dlopen churn stays flat.

Runs a system-wide ldlat-top (--source page-faults, a JSON report every
--interval seconds) for --seconds while a shell shim loops over
build/tests/ldlat-dlchurn, which dlopen()s and dlclose()s a set of shared
libraries and exits: every loop is an exec, every round mmap/munmap of each
library.  ldlat-top's RSS (VmRSS) is sampled every second.  The bound: once
warmed up (the first --warmup share of the run), the RSS at the end may
exceed the warmed-up RSS by at most --bound-kib KiB plus --bound-pct percent.
Prints the samples' figures (warmed-up, end, peak, growth per minute) and the
side-band records ldlat-top reports lost; exit status 0 within the bound, 1
beyond it or when a process fails.

Usage (root): soak.py [--build DIR] [--seconds S] [--interval S]
Run it on the optimised build (build/), not the sanitizer one: ASan's
quarantine grows RSS on its own.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIBDIR = '/usr/lib/x86_64-linux-gnu'
LIBS = ['libz.so.1', 'libbz2.so.1', 'liblzma.so.5', 'libzstd.so.1', 'libelf.so.1',
        'libsqlite3.so.0', 'libxml2.so.2', 'libpfm.so.4']


def rss_kib(pid):
    with open('/proc/%d/status' % pid) as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1])
    return None


def lost_counts(doc):
    """The counters of lost or dropped records a JSON report holds, by key path."""
    found = {}

    def walk(o, path):
        if isinstance(o, dict):
            for k, v in o.items():
                walk(v, path + '.' + k if path else k)
        elif isinstance(o, (int, float)) and any(w in path for w in ('lost', 'dropped', 'full')):
            found[path] = o
    walk(doc, '')
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--build', default=os.environ.get('LDLAT_BUILD', os.path.join(ROOT, 'build')))
    ap.add_argument('--seconds', type=float, default=600)
    ap.add_argument('--interval', type=float, default=5)
    ap.add_argument('--warmup', type=float, default=0.25)
    ap.add_argument('--bound-kib', type=int, default=2048)
    ap.add_argument('--bound-pct', type=float, default=5)
    ap.add_argument('--end-bound', type=float, default=2.0,
                    help='seconds ldlat-top may take past its -d to end')
    args = ap.parse_args()
    if os.geteuid() != 0:
        if os.environ.get('CI') == 'true':
            print('soak: needs root (CI=true)', file=sys.stderr)
            return 1
        print('soak: skipped (needs root)')
        return 0
    build = os.path.abspath(args.build)
    libs = [os.path.join(LIBDIR, x) for x in LIBS if os.path.exists(os.path.join(LIBDIR, x))]
    libs.append(os.path.join(build, 'tests/libldlatsym.so'))
    churn = os.path.join(build, 'tests/ldlat-dlchurn')
    env = dict(os.environ)
    env.setdefault('LDLAT_CONFIG', os.path.join(ROOT, 'tools.conf'))
    shim = subprocess.Popen(['sh', '-c', 'while :; do "$@" || exit 1; /bin/true; done', 'shim',
                             churn, '20'] + libs, start_new_session=True)
    top = subprocess.Popen([os.path.join(build, 'ldlat-top'), '--source', 'page-faults', '-i',
                            str(args.interval), '-d', str(args.seconds), '--format', 'json',
                            '-n', '5'], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    samples = []
    t0 = time.monotonic()
    status = 0
    # stderr read as it comes: the run starts at its "sampling ... Ctrl-C to end." line
    started = []
    errlines = []

    outlines = []
    eof = []

    def read_err():
        for line in top.stderr:
            if not started and 'Ctrl-C to end' in line:
                started.append(time.monotonic())
            errlines.append(line)
        eof.append(time.monotonic())  # the tool has exited: its stderr is closed

    def read_out():  # read as it comes: a full pipe would stall the tool
        for line in top.stdout:
            outlines.append(line)
    reader = threading.Thread(target=read_err, daemon=True)
    reader.start()
    out_reader = threading.Thread(target=read_out, daemon=True)
    out_reader.start()
    try:
        while top.poll() is None:
            try:
                samples.append((time.monotonic() - t0, rss_kib(top.pid)))
            except (OSError, TypeError):
                pass
            time.sleep(1)
            if shim.poll() is not None:
                print('soak: the churn loop ended with %s' % shim.returncode, file=sys.stderr)
                status = 1
                break
    finally:
        os.killpg(shim.pid, signal.SIGKILL)
        shim.wait()
        if top.poll() is None:
            top.send_signal(signal.SIGINT)
        top.wait(timeout=60)
        reader.join(timeout=10)
        out_reader.join(timeout=10)
        ended = eof[0] if eof else time.monotonic()
        out = ''.join(outlines)
        err = ''.join(errlines)
    if top.returncode != 0:
        print('soak: ldlat-top exited %d after %.0f s (RSS samples: %s); its stderr ends:\n%s'
              % (top.returncode, time.monotonic() - t0,
                 ' '.join(str(r) for _, r in samples[-5:]), err.strip()[-6000:]),
              file=sys.stderr)
        return 1
    # how long after its -d the run ended: the report, its naming, the teardown (within a
    # second of polling the exit)
    overrun = ended - started[0] - args.seconds if started else None
    if overrun is None:
        print('soak: ldlat-top never said it was sampling', file=sys.stderr)
        return 1
    samples = [(t, r) for t, r in samples if r]
    if len(samples) < 10:
        print('soak: too few RSS samples (%d)' % len(samples), file=sys.stderr)
        return 1
    warm_t = args.seconds * args.warmup
    after = [r for t, r in samples if t >= warm_t]
    warm = min(after[:5])
    end = max(after[-5:])
    peak = max(r for _, r in samples)
    span = samples[-1][0] - warm_t
    growth = end - warm
    limit = args.bound_kib + warm * args.bound_pct / 100
    reports = [ln for ln in out.splitlines() if ln.startswith('{')]
    lost = {}
    if reports:
        try:
            lost = lost_counts(json.loads(reports[-1]))
        except json.JSONDecodeError:
            pass
    print('soak: ldlat-top %.0f s under exec+dlopen churn (%d reports): RSS %d KiB warmed up '
          '(at %.0f s), %d KiB at the end, peak %d KiB; growth %+d KiB (%+.0f KiB/min), '
          'bound %d KiB' % (samples[-1][0], len(reports), warm, warm_t, end, peak, growth,
                            growth * 60 / span if span > 0 else 0, limit))
    if lost:
        print('soak: last report: ' + ', '.join('%s %s' % kv for kv in sorted(lost.items())))
    print('soak: ended %.2f s after its -d (bound %.1f s)' % (overrun, args.end_bound))
    if overrun > args.end_bound:
        print('soak: FAILED: ldlat-top ended %.2f s after its -d %g, more than %.1f s'
              % (overrun, args.seconds, args.end_bound), file=sys.stderr)
        status = 1
    if growth > limit:
        print('soak: FAILED: RSS grew %d KiB, more than %d KiB' % (growth, limit),
              file=sys.stderr)
        status = 1
    return status


if __name__ == '__main__':
    sys.exit(main())
