#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""Soak test: ldlat-top's memory under exec and dlopen churn stays flat.

Runs ldlat-top (--source page-faults, a JSON report every --interval
seconds) for --seconds while a shell shim loops over
build/tests/ldlat-dlchurn, which dlopen()s and dlclose()s a set of shared
libraries and exits: every loop is an exec, every round mmap/munmap of each
library.  The loop runs in a cgroup of its own and ldlat-top watches that
cgroup (-G), so what other programs of a busy machine do (a compile beside
the test raised the floor by 17 MB in two minutes, on trees with and without
a leak) does not enter its tables; --system-wide watches the whole machine
instead.  ldlat-top's RSS (VmRSS) is sampled every second.  The bound: once
warmed up (the first --warmup share of the run), the RSS floor at the end
(the smallest sample of the last --window seconds) may exceed the floor once
warm (of the first --window seconds after the warm-up) by at most --bound-kib
KiB plus --bound-pct percent: a report or a burst raises the RSS for a moment,
a leak raises the floor.  Prints the figures (floors, peak, growth per minute)
and the side-band records ldlat-top reports lost; exit status 0 within the
bound, 1 beyond it or when a process fails.  Every child (the loop, the
program it runs, ldlat-top) ends with the script, however it ends.

Usage (root): soak.py [--build DIR] [--seconds S] [--interval S] [--system-wide]
                     [--top-args 'OPTIONS'] [--peak-bound-kib KIB]
Run it on the optimised build (build/), not the sanitizer one: ASan's
quarantine grows RSS on its own.
"""
import argparse
import ctypes
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


def smaps_kib(pid):
    """Rss, Anonymous and the file-backed rest of /proc/PID/smaps_rollup, in KiB."""
    got = {}
    with open('/proc/%d/smaps_rollup' % pid) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 2 and parts[0] in ('Rss:', 'Anonymous:'):
                got[parts[0][:-1]] = int(parts[1])
    return got


PR_SET_PDEATHSIG = 1


def dies_with_us(sig):
    """A preexec_fn: the child gets sig when this process ends, however it ends (SIGKILL too)."""
    libc = ctypes.CDLL(None, use_errno=True)
    parent = os.getpid()

    def f():
        libc.prctl(PR_SET_PDEATHSIG, sig)
        if os.getppid() != parent:  # ended before the prctl
            os.kill(os.getpid(), sig)
    return f


def cgroup2_mount():
    """Where the cgroup v2 hierarchy is mounted (/sys/fs/cgroup, or .../unified), or None."""
    with open('/proc/self/mountinfo') as f:
        for line in f:
            fields = line.split()
            sep = fields.index('-')
            if fields[sep + 1] == 'cgroup2':
                return fields[4]
    return None


def joins(cgroup_dir):
    """A preexec_fn part: the child moves itself into cgroup_dir before it runs anything."""
    def f():
        with open(os.path.join(cgroup_dir, 'cgroup.procs'), 'w') as procs:
            procs.write('0')
    return f


def cgroup_remove(cgroup_dir, timeout=30):
    """Removes cgroup_dir once its processes are gone (they may take a moment to be reaped)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            os.rmdir(cgroup_dir)
            return
        except FileNotFoundError:
            return
        except OSError:
            if time.monotonic() > deadline:
                print('soak: cannot remove %s: it still holds processes' % cgroup_dir,
                      file=sys.stderr)
                return
            time.sleep(0.1)


def on_signal(sig, frame):
    raise SystemExit(128 + sig)  # through the finally that ends the children


def lost_counts(doc):
    """The counters of lost or dropped records a JSON report holds, by key path."""
    found = {}

    def walk(o, path):
        if isinstance(o, dict):
            for k, v in o.items():
                walk(v, path + '.' + k if path else k)
        elif isinstance(o, (int, float)) and any(w in path for w in ('lost', 'dropped', 'full', 'max_keys')):
            found[path] = o
    walk(doc, '')
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--build', default=os.environ.get('LDLAT_BUILD', os.path.join(ROOT, 'build')))
    ap.add_argument('--seconds', type=float, default=600)
    ap.add_argument('--interval', type=float, default=5)
    ap.add_argument('--warmup', type=float, default=0.25)
    ap.add_argument('--window', type=int, default=15,
                    help='samples (seconds) whose smallest is the floor, at each end')
    ap.add_argument('--bound-kib', type=int, default=2048)
    ap.add_argument('--bound-pct', type=float, default=5)
    ap.add_argument('--end-bound', type=float, default=2.0,
                    help='seconds ldlat-top may take past its -d to end')
    ap.add_argument('--trace', help='write "seconds VmRSS Anonymous" (KiB) each second here')
    ap.add_argument('--top-args', default='',
                    help='more options for ldlat-top, split at blanks (--max-keys 20000)')
    ap.add_argument('--peak-bound-kib', type=int,
                    help='also fail when the RSS peaks above this (with --max-keys: its bound)')
    ap.add_argument('--system-wide', action='store_true',
                    help='ldlat-top watches the whole machine, not the churn\'s cgroup')
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
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)
    soak.shim = soak.top = None
    soak.cgroup = None
    if not args.system_wide:
        mnt = cgroup2_mount()
        if not mnt:
            print('soak: no cgroup v2 hierarchy is mounted (or run with --system-wide)',
                  file=sys.stderr)
            return 1
        # a cgroup an earlier run left (a SIGKILLed script cannot remove its own), when empty
        for name in os.listdir(mnt):
            if name.startswith('ldlat-soak-') and not os.path.exists(
                    '/proc/' + name[len('ldlat-soak-'):]):
                cgroup_remove(os.path.join(mnt, name), timeout=0)
        soak.cgroup = (mnt, '/ldlat-soak-%d' % os.getpid())
        os.mkdir(mnt + soak.cgroup[1])
    try:
        return soak(args, build, churn, libs, env)
    finally:
        # every child, on every way out: the loop and what it runs are one process group
        if soak.shim:
            try:
                os.killpg(soak.shim.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            soak.shim.wait()
        if soak.top and soak.top.poll() is None:
            soak.top.kill()
            soak.top.wait()
        if soak.cgroup:
            cgroup_remove(soak.cgroup[0] + soak.cgroup[1])


def soak(args, build, churn, libs, env):
    # the loop in a process group of its own; if this script is SIGKILLed, sh dies with it
    # (the ldlat-dlchurn it runs then ends its rounds and exits)
    dies = dies_with_us(signal.SIGKILL)
    join = joins(soak.cgroup[0] + soak.cgroup[1]) if soak.cgroup else lambda: None

    def shim_starts():
        dies()
        join()
    soak.shim = subprocess.Popen(['sh', '-c', 'while :; do "$@" || exit 1; /bin/true; done',
                                  'shim', churn, '20'] + libs, start_new_session=True,
                                 preexec_fn=shim_starts)
    shim = soak.shim
    target = ['-G', soak.cgroup[1]] if soak.cgroup else []
    soak.top = subprocess.Popen([os.path.join(build, 'ldlat-top'), '--source', 'page-faults',
                                 '-i', str(args.interval), '-d', str(args.seconds), '--format',
                                 'json', '-n', '5'] + args.top_args.split() + target, env=env,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True,
                                preexec_fn=dies_with_us(signal.SIGTERM))
    top = soak.top
    samples = []
    trace = open(args.trace, 'w') if args.trace else None
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
                if trace:
                    sm = smaps_kib(top.pid)
                    trace.write('%.1f %d %d\n' % (samples[-1][0], samples[-1][1],
                                                   sm.get('Anonymous', 0)))
                    trace.flush()
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
        soak.shim = None
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
    # The floor of a window (its smallest sample) is what the tool keeps: a report, a burst
    # of another program's activity raise the RSS for a moment and give it back, a leak
    # raises the floor.  Growth: the last window's floor over the first one's after warm-up.
    warm_t = args.seconds * args.warmup
    after = [r for t, r in samples if t >= warm_t]
    win = max(1, min(args.window, len(after) // 2))
    warm = min(after[:win])
    end = min(after[-win:])
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
    print('soak: ldlat-top (%s) %.0f s under exec+dlopen churn (%d reports): RSS floor %d KiB '
          'warmed up (%d s from %.0f s), %d KiB at the end (last %d s), peak %d KiB; growth '
          '%+d KiB (%+.0f KiB/min), bound %d KiB' % (
              '-G ' + soak.cgroup[1] if soak.cgroup else 'system-wide',
              samples[-1][0], len(reports), warm, win, warm_t, end, win, peak, growth,
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
    if args.peak_bound_kib and peak > args.peak_bound_kib:
        print('soak: FAILED: RSS peaked at %d KiB, more than %d KiB' % (peak, args.peak_bound_kib),
              file=sys.stderr)
        status = 1
    return status


if __name__ == '__main__':
    sys.exit(main())
