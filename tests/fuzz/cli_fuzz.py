#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""Command-line fuzzer: random options and values for each tool and mode.

Each case runs one tool with a random mode (sample, show, unpin, report,
list-events; count and plan for ldlat-stat, in their word and flag forms)
and a few random options with values drawn from valid ones, edge values
and garbage (empty, negative, huge, a newline, a very long string).  A case
passes when:

  - the tool exits 0, 1 or 2 (the commands it runs exit 0 or 1 only);
  - on 1 or 2, stderr ends with one line 'ldlat-X: <sentence>' (argp's
    "Try `...'" hint may follow);
  - no sanitizer report is printed (AddressSanitizer, LeakSanitizer, UBSan);
  - it ends within --timeout seconds (10): live runs get -d or a command;
  - perf_event_mux_interval_ms is as it was, and nothing is left under the
    fuzzer's bpffs folder but what --pin ... --detach promised.

Usage: cli_fuzz.py [--build DIR] [--count N] [--seconds S] [--seed N]
Live cases need root (they are left out otherwise).  A failing case is
printed as a shell command line to rerun it.  Exit status 0 when every case
passed, 1 otherwise.
"""
import argparse
import glob
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAN_MARKS = ('ERROR: AddressSanitizer', 'ERROR: LeakSanitizer', 'runtime error:',
             'SUMMARY: UndefinedBehaviorSanitizer', 'AddressSanitizer:DEADLYSIGNAL')
GARBAGE = ['', '0', '-1', '1', '18446744073709551616', '0x', '0x10', 'abc', ' ', 'a\nb',
           '%s%n%x', 'x' * 5000, '1e3', '0.5', 'nan', 'inf', '-0', '1,2', ',', ' 1',
           '\u00e9', '4294967296', '9' * 40]


def vals(*valid):
    return list(valid)


COMMON = {
    '--config': None,  # filled in main(): real and broken files
    '-c': vals('1', '1000', '0', '100000'),
    '--event': vals('cpu/event=0xcd,umask=0x1/pp', 'r1cd', '{cpu/mem-loads-aux/,cpu/mem-loads/}',
                    'page-faults', 'cpu/event=0x1ff/', 'nopmu/x=1/', 'cpu/'),
    '-F': vals('1', '1000', '0', '100000000'),
    '-L': vals('3', '0', '65535', '65536'),
    '--source': vals('ldlat', 'page-faults', 'auto', 'page-faults', 'page-faults', 'x'),
    '-C': vals('0', '1', '0-1', '0,1', '1-0', '99', '0-4095', '0-', '-'),
    '-G': vals('/', '/nonexistent', 'system.slice', '../..', 'init.scope'),
    '--inherit': [None],
    '-p': None,  # filled per case: real PIDs
    '-a': vals('[heap]', '[stack]', '0x1000-0x2000', '0x7f0000000000+1G', '2000-1000',
               'libc.so.6', '/nonexistent', '0+0', 'ffffffffffffffff+1', '0x1000+0x10', '1+1T'),
    '--max-lat': vals('0', '100', '4294967296', '-1'),
    '--min-lat': vals('0', '100', '4294967295', '-1'),
    '--op': vals('load', 'store', 'pfetch', 'exec', 'any', 'load,store', 'x', 'load,'),
    '-s': vals('ram', 'hitm', 'l1,l2', 'all', 'remote-ram-any', 'cache,ram', 'xyz', 'l1,xyz',
               'unknown', 'miss'),
    '-d': vals('0', '0.1', '0.3', '-1', 'x', '1e-9', '0.0000001', '0.2s'),
    '-i': vals('0.1', '0.1,2', '0,1', '0.1,0', 'x', '1,x', '0.05,3'),
    '-v': [None],
    '--format': vals('text', 'json', 'openmetrics', 'x'),
    '--output': None,  # filled in main()
}
HIST = dict(COMMON)
HIST.update({
    '--loads': [None, '=MEM_INST_RETIRED:ALL_LOADS', '=x'],
    '--by': vals('class', 'range', 'both', 'none', 'x'),
    '--linear': vals('1', '10', '0', '-1', '100000'),
    '--pin': None,  # filled in main()
    '--detach': [None],
    '--delta': [None],
})
TOP = dict(COMMON)
TOP.update({
    '--by': vals('ip', 'data', 'both', 'x'),
    '--data-by': vals('object', 'block', 'x'),
    '--debuginfo-path': vals('', ':.debug:/usr/lib/debug', '/nonexistent', 'rel'),
    '--entries': vals('0', '1', '4096', '2147483648', '-1'),
    '--granularity': vals('line', 'page', 'x'),
    '-n': vals('0', '5', '-1', '1000000'),
    '--sort': vals('samples', 'latency', 'total', 'x'),
    '--format': vals('text', 'json', 'folded', 'svg', 'openmetrics', 'x'),
    '--call-graph': [None],
    '--weight': vals('samples', 'latency', 'x'),
    '--heatmap': None,  # filled in main()
    '--heatmap-by': vals('all', 'class', 'x'),
})
STAT = {k: COMMON[k] for k in ('--config', '-C', '-G', '--inherit', '-p', '-d', '-i', '-v',
                               '--format', '--output')}
STAT.update({
    '--all-cache': [None],
    '-e': vals('page-faults', 'cycles', 'L1-dcache-load-misses', 'MEM_INST_RETIRED:ALL_LOADS',
               '{page-faults,minor-faults}', 'r1cd', 'cpu/event=0xd0,umask=0x81/', 'x', '{a',
               'page-faults,,', 'software/page-faults/'),
    '--multiplex': [None],
    '--mux-interval': vals('1', '4', '0', '-1', '100000'),
    '--per-group': [None],
})
TOOLS = {'ldlat-hist': HIST, 'ldlat-top': TOP, 'ldlat-stat': STAT}
MODES = {
    'ldlat-hist': ['sample', 'sample', 'sample', 'show', 'unpin', 'report', 'list-events'],
    'ldlat-top': ['sample', 'sample', 'sample', 'report', 'list-events'],
    'ldlat-stat': ['count', 'count', 'count', 'plan'],
}
# commands a case may run: each exits 0 or 1
COMMANDS = [['true'], ['false'], ['sleep', '0.2'], ['sh', '-c', 'ls / >/dev/null'],
            ['/nonexistent-command']]


def read_mux():
    vals = {}
    for p in glob.glob('/sys/bus/event_source/devices/*/perf_event_mux_interval_ms'):
        try:
            with open(p) as f:
                vals[p] = f.read().strip()
        except OSError:
            pass
    return vals


class Fuzzer:
    def __init__(self, args):
        self.build = os.path.abspath(args.build)
        self.rng = random.Random(args.seed)
        self.root = os.geteuid() == 0
        self.tmp = tempfile.mkdtemp(prefix='ldlat-clifuzz.')
        os.chmod(self.tmp, 0o755)
        self.bpffs = '/sys/fs/bpf/ldlat-clifuzz-%d' % os.getpid()
        self.timeout = args.timeout
        self.failures = []
        self.codes = {}
        self.sleeper = subprocess.Popen(['sleep', '3600'])
        bad = os.path.join(self.tmp, 'bad.conf')
        with open(bad, 'w') as f:
            f.write('[defaults]\nperiod = x\n[[[\n')
        corpus = sorted(glob.glob(os.path.join(ROOT, 'tests/fuzz/corpus/*')))
        self.inputs = corpus + ['/dev/null', '/nonexistent', self.tmp]
        for d in (HIST, TOP, STAT):
            d['--config'] = [os.path.join(ROOT, 'tools.conf'), '/nonexistent', '/dev/null', bad]
            d['--output'] = [os.path.join(self.tmp, 'out'), '/dev/full', '/nonexistent/dir/x',
                             self.tmp, os.path.join(self.tmp, 'out.prom')]
        TOP['--heatmap'] = [os.path.join(self.tmp, 'heat.svg'), '/nonexistent/dir/x', self.tmp,
                             os.path.join(self.tmp, 'out')]
        HIST['--pin'] = [os.path.join(self.bpffs, 'a'), os.path.join(self.bpffs, 'b'),
                         os.path.join(self.tmp, 'notbpffs'), '']

    def pids(self):
        r = self.rng.random()
        if r < 0.4:
            return str(self.sleeper.pid)
        if r < 0.6:
            return ','.join([str(self.sleeper.pid)] * self.rng.randint(2, 20))
        return self.rng.choice(['1', '0', '-1', '99999999', str(self.sleeper.pid) + ',x', ''])

    def value(self, table, opt):
        if opt == '-p':
            return self.pids()
        choices = table[opt]
        if choices == [None]:
            return None
        if self.rng.random() < 0.12 and opt not in ('-d', '-i'):
            return self.rng.choice(GARBAGE)
        return self.rng.choice(choices)

    def case(self):
        tool = self.rng.choice(sorted(TOOLS))
        table = TOOLS[tool]
        mode = self.rng.choice(MODES[tool])
        argv = [os.path.join(self.build, tool)]
        flag_form = self.rng.random() < 0.5
        live = mode in ('sample', 'count')
        operand = None
        if mode in ('show', 'unpin'):
            operand = self.rng.choice([os.path.join(self.bpffs, 'a'), os.path.join(self.bpffs, 'b'),
                                       '/sys/fs/bpf', self.tmp, '/nonexistent', ''])
        elif mode == 'report':
            operand = self.rng.choice(self.inputs)
        if mode not in ('sample', 'count'):
            if flag_form:
                flag = {'show': '--show', 'unpin': '--unpin', 'report': '--input',
                        'list-events': '--list-events', 'plan': '--plan'}[mode]
                argv += [flag] + ([operand] if operand is not None else [])
            else:
                argv += [mode] + ([operand] if operand is not None else [])
        elif self.rng.random() < 0.2:
            argv.append(mode)
        nopt = self.rng.choice([0, 1, 1, 2, 2, 3, 3, 4, 5, 7])
        opts = sorted(table)
        for _ in range(nopt):
            opt = self.rng.choice(opts)
            v = self.value(table, opt)
            if v is None:
                argv.append(opt)
            elif opt == '--loads':
                argv.append(opt + v)
            elif opt.startswith('--') and self.rng.random() < 0.5:
                argv.append(opt + '=' + v)
            else:
                argv += [opt, v]
            if opt == '-a' and self.rng.random() < 0.1:
                argv += ['-a', '0x1000+1'] * self.rng.randint(1, 17)
        if self.rng.random() < 0.05:
            argv.append(self.rng.choice(['--bogus', '-Z', 'extra-word', '--help', '--usage']))
        command = None
        if live:
            if self.rng.random() < 0.5:
                command = self.rng.choice(COMMANDS)
            else:
                argv += ['-d', '0.3']
        elif self.rng.random() < 0.1:
            command = ['true']
        if command:
            argv += ['--'] + command
        return tool, mode, argv, live

    def run_case(self, n):
        tool, mode, argv, live = self.case()
        if live and not self.root:
            return
        mux = read_mux() if self.root else {}
        env = dict(os.environ)
        env.setdefault('LDLAT_CONFIG', os.path.join(ROOT, 'tools.conf'))
        env['ASAN_OPTIONS'] = 'detect_leaks=1:exitcode=99:' + env.get('ASAN_OPTIONS', '')
        env['UBSAN_OPTIONS'] = 'print_stacktrace=1:halt_on_error=1:exitcode=98:' + \
            env.get('UBSAN_OPTIONS', '')
        t0 = time.monotonic()
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, start_new_session=True, env=env,
                             cwd=self.tmp)
        hung = False
        try:
            out, err = p.communicate(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            hung = True
            os.killpg(p.pid, signal.SIGTERM)
            try:
                out, err = p.communicate(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                out, err = p.communicate()
        took = time.monotonic() - t0
        try:
            os.killpg(p.pid, signal.SIGKILL)  # what the case left in its group
        except ProcessLookupError:
            pass
        rc = p.returncode
        err = err.decode('utf-8', 'replace')
        self.codes[rc] = self.codes.get(rc, 0) + 1
        why = []
        if hung:
            why.append('still running after %d s' % self.timeout)
        if rc not in (0, 1, 2):
            why.append('exit status %d' % rc)
        for m in SAN_MARKS:
            if m in err:
                why.append('sanitizer report (%s)' % m)
                break
        # ldlat-stat's report goes to stderr, as perf stat's does: a run of `-- false` that
        # printed it whole ends with the command's own status, 1, after the report's last line
        ends = err.rstrip('\n').split('\n')[-1].strip()
        own_status = (rc == 1 and os.path.basename(argv[0]) == 'ldlat-stat' and '--' in argv
                      and argv[argv.index('--') + 1:] == ['false'] and ends.endswith(' seconds sys'))
        if rc in (1, 2) and not hung and not own_status:
            # argp's hint, which it may wrap over two lines
            body = re.sub(r"Try `[^']*' or `[^']*' for\s+more\s+information\.\s*$", '', err)
            lines = [ln for ln in body.rstrip('\n').split('\n') if ln]
            last = lines[-1] if lines else ''
            m = re.match(re.escape(os.path.basename(argv[0])) + r'( [a-z-]+)?: (.*)$', last)
            if not m or not m.group(2).strip():
                why.append('exit %d without a one-line message ending stderr (last line %r)'
                           % (rc, last[:200]))
        if mux and read_mux() != mux:
            why.append('perf_event_mux_interval_ms changed: %r -> %r' % (mux, read_mux()))
            for path, v in mux.items():
                try:
                    with open(path, 'w') as f:
                        f.write(v)
                except OSError:
                    pass
        detach = '--detach' in argv and rc == 0
        if self.root and os.path.isdir(self.bpffs) and not detach:
            left = [os.path.join(d, f) for d, _, fs in os.walk(self.bpffs) for f in fs]
            # a --detach'ed set of an earlier case may still be there: unpinned below
            if left and not self.detached:
                why.append('left pinned: %s' % ', '.join(left[:4]))
        if detach:
            self.detached = True
        if why:
            self.failures.append((n, argv, rc, why, err[-2000:]))
        if self.root and os.path.isdir(self.bpffs) and (not detach or self.rng.random() < 0.5):
            self.unpin_all()
        return took

    def unpin_all(self):
        for d in ('a', 'b'):
            path = os.path.join(self.bpffs, d)
            if os.path.exists(path):
                subprocess.run([os.path.join(self.build, 'ldlat-hist'), '--unpin', path],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30)
        shutil.rmtree(self.bpffs, ignore_errors=True)
        self.detached = False

    def close(self):
        self.sleeper.kill()
        self.sleeper.wait()
        if self.root:
            self.unpin_all()
        shutil.rmtree(self.tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--build', default=os.environ.get('LDLAT_BUILD', os.path.join(ROOT, 'build')))
    ap.add_argument('--count', type=int, default=0, help='cases to run (0: until --seconds)')
    ap.add_argument('--seconds', type=float, default=60)
    ap.add_argument('--seed', type=int, default=None)
    ap.add_argument('--timeout', type=float, default=10)
    args = ap.parse_args()
    if args.seed is None:
        args.seed = int(time.time())
    fz = Fuzzer(args)
    fz.detached = False
    t0 = time.monotonic()
    n = 0
    try:
        while True:
            if args.count and n >= args.count:
                break
            if not args.count and time.monotonic() - t0 >= args.seconds:
                break
            fz.run_case(n)
            n += 1
    finally:
        fz.close()
    for n_, argv, rc, why, err in fz.failures[:20]:
        print('case %d: %s' % (n_, '; '.join(why)))
        print('  ' + ' '.join(shlex.quote(a) for a in argv))
        print('  stderr: ' + err.strip().replace('\n', '\n          ')[-1500:])
    codes = ', '.join('%s: %d' % (k, v) for k, v in sorted(fz.codes.items()))
    print('cli-fuzz: %d cases in %.0f s (seed %d; exit statuses %s), %d failed'
          % (n, time.monotonic() - t0, args.seed, codes, len(fz.failures)))
    return 1 if fz.failures else 0


if __name__ == '__main__':
    sys.exit(main())
