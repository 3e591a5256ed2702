#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""Mutation testing of the core: does a planted bug fail a suite?

Each mutation in tests/mutants/mutations.txt replaces one exact piece of
text of one file (it must occur exactly once: a mutation whose text is no
longer there, or is there twice, is an error, reported as such, so that the
list follows the code).  The tree (the files git knows of, and build/ to
build on) is copied once to a scratch folder; each mutation is applied
there, the tree built (make tests), the suites it names run, and the file
put back.  A mutant is killed when a suite fails;
it survives when every suite passes.  Mutations marked 'equivalent' (no
behaviour can tell them apart) are left out of the rate; a mutation that
does not build (the compiler, not a test, refused it) is an error, like
one out of date.

Usage: mutants.py [--mutants all|N] [--seed S] [--only ID,...] [--lock FILE] [--keep] [--list FILE]
  N: a random sample of N mutations (CI); the kill rate is of those run.
Prints each mutant's fate and the kill rate; exit status 0 when the rate of
the non-equivalent mutants run is at least --target percent (95), at least
one was counted, and no mutation is out of date, else 1; 2 when --only names
a mutation the list does not hold.  Suites that need root run when this is
root (tests/run.sh): on a shared machine give --lock /tmp/ldlat-tests.lock,
which each of those suites then holds while it runs (not the builds).
"""
import argparse
import fcntl
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIST = os.path.join(ROOT, 'tests/mutants/mutations.txt')
# suites, and test cases (SUITE@CASE) of suites that need root, that load no BPF program,
# open no perf event and change no sysctl: they run without the lock
NO_ROOT = {'check_unit', 'check_output', 'check_events', 'check_c2c@input', 'check_callpath@render',
           'check_top@symbols'}


def parse_list(path):
    """Blocks: '== ID FILE [SUITE[@CASE] ...]', optional '# note' and 'equivalent: why'
    lines, then '<<<' old text '===' new text '>>>' (verbatim, tabs kept)."""
    muts = []
    cur = None
    mode = None
    with open(path) as f:
        lines = f.read().split('\n')
    for ln in lines:
        if mode in ('old', 'new'):
            if ln == '===' and mode == 'old':
                mode = 'new'
                continue
            if ln == '>>>':
                mode = None
                muts.append(cur)
                continue
            cur[mode].append(ln)
            continue
        if ln.startswith('== '):
            words = ln[3:].split()
            cur = {'id': words[0], 'file': words[1], 'suites': words[2:], 'old': [], 'new': [],
                   'note': '', 'equivalent': None}
        elif ln.startswith('# ') and cur is not None:
            cur['note'] += ln[2:] + ' '
        elif ln.startswith('equivalent:') and cur is not None:
            cur['equivalent'] = ln.split(':', 1)[1].strip()
        elif ln == '<<<':
            mode = 'old'
    for m in muts:
        m['old'] = '\n'.join(m['old'])
        m['new'] = '\n'.join(m['new'])
    return muts


def copy_tree(dst):
    files = subprocess.run(['git', 'ls-files', '--cached', '--others', '--exclude-standard'],
                           cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    for rel in files:
        src = os.path.join(ROOT, rel)
        os.makedirs(os.path.dirname(os.path.join(dst, rel)), exist_ok=True)
        # a link as a link: the fixtures link folders of one machine into another's
        if os.path.islink(src):
            os.symlink(os.readlink(src), os.path.join(dst, rel))
            continue
        if not os.path.isfile(src):
            continue
        shutil.copy2(src, os.path.join(dst, rel))
    if os.path.isdir(os.path.join(ROOT, 'build')):
        shutil.copytree(os.path.join(ROOT, 'build'), os.path.join(dst, 'build'), symlinks=True,
                        ignore=shutil.ignore_patterns('fuzz'))


def run(cmd, cwd, timeout, env=None):
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired as e:
        return 124, 'timed out after %d s' % timeout


def only_timeouts(out):
    """A suite's output whose failures are all Check's timeouts."""
    failed = [ln for ln in out.split('\n') if re.search(r':[EF]:', ln)]
    return bool(failed) and all('timeout expired' in ln for ln in failed)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--mutants', default='all')
    ap.add_argument('--seed', type=int, default=None)
    ap.add_argument('--only', default='')
    ap.add_argument('--target', type=float, default=95)
    ap.add_argument('--keep', action='store_true', help='keep the scratch tree')
    ap.add_argument('--suite-timeout', type=int, default=900)
    ap.add_argument('--lock', default='', help='flock this file around suites that need root')
    ap.add_argument('--list', default=LIST, help='the mutations (tests/mutants/mutations.txt)')
    args = ap.parse_args()
    muts = parse_list(args.list)
    ids = [m['id'] for m in muts]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        print('mutants: ids given twice: %s' % ', '.join(sorted(dup)), file=sys.stderr)
        return 1
    # every mutation must still apply: checked on the whole list, whatever is run
    stale = []
    for m in muts:
        with open(os.path.join(ROOT, m['file'])) as f:
            n = f.read().count(m['old'])
        if n != 1:
            stale.append('%s: %s holds its text %d times (want 1)' % (m['id'], m['file'], n))
    chosen = [m for m in muts if m['file'] and not any(s.startswith(m['id'] + ':')
                                                        for s in stale)]
    if args.only:
        want = set(x for x in args.only.split(',') if x)
        unknown = sorted(want - set(ids))
        if unknown or not want:
            print('mutants: --only %s: no such mutation%s in %s' %
                  (args.only, (' ' + ', '.join(unknown)) if unknown else '',
                   args.list), file=sys.stderr)
            return 2
        chosen = [m for m in chosen if m['id'] in want]
        if not [m for m in chosen if not m['equivalent']]:
            print('mutants: --only %s: each is marked equivalent (or out of date): a run '
                  'would count nothing' % args.only, file=sys.stderr)
            return 2
    elif args.mutants != 'all':
        seed = args.seed if args.seed is not None else int(time.time())
        rng = random.Random(seed)
        chosen = [m for m in chosen if not m['equivalent']]
        chosen = rng.sample(chosen, min(int(args.mutants), len(chosen)))
        print('mutants: a sample of %d (seed %d)' % (len(chosen), seed))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    tmp = tempfile.mkdtemp(prefix='ldlat-mutants.')
    os.chmod(tmp, 0o755)
    t0 = time.monotonic()
    results = []
    try:
        copy_tree(tmp)
        env = dict(os.environ)
        env.pop('LDLAT_BUILD', None)
        rc, out = run(['make', '-s', '-j%d' % (os.cpu_count() or 2), 'tests'], tmp, 1800)
        t_copy = time.monotonic() - t0
        if rc != 0:
            print(out[-3000:])
            print('mutants: the unmutated copy does not build', file=sys.stderr)
            return 1
        for m in chosen:
            path = os.path.join(tmp, m['file'])
            with open(path) as f:
                orig = f.read()
            with open(path, 'w') as f:
                f.write(orig.replace(m['old'], m['new'], 1))
            t1 = time.monotonic()
            waited = 0.0  # for the lock: another run's time, not this mutant's
            rc, out = run(['make', '-s', '-j%d' % (os.cpu_count() or 2), 'tests'], tmp, 1800)
            if rc != 0:
                # a mutation that does not compile tests nothing: it is to be rewritten
                fate, why = 'unbuilt', out.strip().split('\n')[-1][:160]
            else:
                # one suite at a time, in the order listed, up to the first that fails;
                # SUITE@CASE: only that test case of the suite (Check's CK_RUN_CASE);
                # with --lock, the suites that need root hold the lock while they run
                rc, out = 0, ''
                for x in m['suites']:
                    suite, _, case = x.partition('@')
                    e = dict(env)
                    if case:
                        e['CK_RUN_CASE'] = case
                    lock = None
                    if args.lock and suite not in NO_ROOT and x not in NO_ROOT:
                        # taken here, so that the time waiting for it is not the suite's
                        lock = open(args.lock, 'a')
                        tw = time.monotonic()
                        fcntl.flock(lock, fcntl.LOCK_EX)
                        waited += time.monotonic() - tw
                    try:
                        rc, out = run(['tests/run.sh', suite], tmp, args.suite_timeout, e)
                        # failed only by Check's timeouts: a busy machine, or a hang the
                        # mutation made; once more with 4 times the time, to tell which
                        if rc != 0 and only_timeouts(out):
                            e['CK_TIMEOUT_MULTIPLIER'] = '4'
                            rc, out = run(['tests/run.sh', suite], tmp, args.suite_timeout, e)
                    finally:
                        if lock:
                            lock.close()
                    if rc == 124:
                        out += '\n%s timed out after %d s' % (suite, args.suite_timeout)
                    if rc != 0:
                        break
                failed = [ln for ln in out.split('\n') if re.search(r':[EF]:', ln)]
                # the reason: an assertion rather than a timeout, where there is one
                failed.sort(key=lambda ln: 'timeout expired' in ln)
                if rc != 0:
                    fate = 'killed'
                    why = failed[0][:160] if failed else out.strip().split('\n')[-1][:160]
                else:
                    fate, why = 'survived', ''
            if m['equivalent']:
                fate += ' (equivalent: %s)' % m['equivalent']
            with open(path, 'w') as f:
                f.write(orig)
            took = time.monotonic() - t1 - waited
            results.append((m, fate, why, took))
            print('%-28s %-9s %4.0f s%s  %s%s' % (m['id'], fate.split()[0], took,
                                                   ' (+%.0f s waiting for the lock)' % waited
                                                   if waited >= 1 else '', m['note'].strip()[:70],
                                                   ('\n    ' + why) if why else ''), flush=True)
        # put the copy's build back to the unmutated tree for the next run
    finally:
        if args.keep:
            print('mutants: the scratch tree is %s' % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    unbuilt = [r[0]['id'] for r in results if r[1].startswith('unbuilt')]
    counted = [r for r in results if not r[0]['equivalent'] and not r[1].startswith('unbuilt')]
    killed = [r for r in counted if r[1].startswith('killed')]
    # nothing counted (every mutant run equivalent or unbuilt, or none run) measures
    # nothing: a rate of 0, never 100
    rate = 100.0 * len(killed) / len(counted) if counted else 0.0
    for s in stale:
        print('mutants: ERROR: out of date: ' + s)
    for i in unbuilt:
        print('mutants: ERROR: %s does not build: a mutation must compile to test anything' % i)
    surv = [r[0]['id'] for r in counted if not r[1].startswith('killed')]
    mean = sum(r[3] for r in results) / len(results) if results else 0.0
    print('mutants: %d run in %.0f s (%.0f s a mutant on average, not counting the wait for '
          'the lock; %.0f s for the copy and its build), %d equivalent; killed %d of %d: %.0f%% '
          '(target %.0f%%)%s%s'
          % (len(results), time.monotonic() - t0, mean, t_copy, len(results) - len(counted),
             len(killed),
             len(counted), rate, args.target, '; survivors: ' + ', '.join(surv) if surv else '',
             '; %d out of date' % len(stale) if stale else ''))
    if not counted:
        print('mutants: ERROR: no mutant was counted (none run, or each equivalent or '
              'unbuilt): nothing measured')
    return 0 if counted and rate >= args.target and not stale and not unbuilt else 1


if __name__ == '__main__':
    sys.exit(main())
