#!/usr/bin/env python3
"""
deps.py - checks the dependency rule of the layout (make check-deps, run by
make test).

Every project include is written as its path from the top of the tree
("kernel/abi/pmu.h"; "bpf/ldlat.skel.h" for what the build generates; never
"../" or a path from the including file's folder), and points down the
layers below, never up or sideways:

  vmlinux/       the kernel's types from BTF
  bpf/           the program, and the contract: ldlat.h, ldlat_pin.h
  kernel/lib      the error value, notices, util.h: what every layer uses
  kernel/abi      the perf ABI, sysfs, /proc, perf.data
  kernel/policy   which events to open on this machine, and how to group them
  user/symbols    ELF symbols, /proc/PID/maps, address ranges
  user/report     snapshots and the report formats
  user/run        a run's life cycle: options, target, command, BPF session
  user/offline    perf.data samples through the same logic
  user/hist, user/top, user/stat, user/c2c   each tool's main and the modules only it uses

A folder may include its own files and those of any layer below it, but
(each folder's README.md says so):

  kernel/lib includes nothing of the project but kernel/lib;
  of bpf/, a folder outside it includes bpf/ldlat.h, bpf/c2c.h and bpf/unwind.h
    (the unwind tables' layout) only; user/run,
    user/hist, user/top, user/c2c, tests/ and bench/ also bpf/ldlat_pin.h and
    the generated skeletons bpf/ldlat.skel.h and bpf/c2c.skel.h;
  bpf/perf_mem_defs.h (generated) is included only in bpf/ (by ldlat.h);
  vmlinux/vmlinux.h only in bpf/ldlat.bpf.c and bpf/c2c.bpf.c.

Of user/, only user/run/prog.c attaches a BPF program to perf events
(bpf_program__attach_perf_event, PERF_EVENT_IOC_SET_BPF, BPF_LINK_CREATE):
every tool's program goes through prog__attach, so that no copy of the
attach code drops the mark that makes a refusal the system's failure.

The tools' folders never include each other.  bench/ and tests/ may
include anything else in the tree, and nothing outside tests/ includes
tests/; inside tests/, a folder includes its own files and tests/lib's.
Modules (a .c and its .h) never include each other in a circle, inside a
folder either.

One process model: of user/, only user/symbols/machine.c (machine__process)
applies the side band's records, live or from a file.  No other file of
user/ names PERF_RECORD_MMAP, _MMAP2, _COMM, _FORK or _EXIT outside a
comment, or parses those records itself (perf_file__parse_mmap, _comm,
_task), and none but the model's storage (procmaps.c) changes a process
as a record would (procmaps__exec, _fork, _exit, _comm, _forget): a
reader hands each record to the machine, decoded by kernel/abi's
sideband.c or perf_file__parse_sideband.

Prints each violation, naming the file; exits 1 if there is one.  --root DIR checks the tree at DIR instead of this one
(tests/checks_selftest.py plants violations in a copy).
"""
import argparse
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the tree
from sources import sources  # noqa: E402

LAYERS = [
    ['vmlinux'],
    ['bpf'],
    ['kernel/lib'],
    ['kernel/abi'],
    ['kernel/policy'],
    ['user/symbols'],
    ['user/report'],
    ['user/run'],
    ['user/offline'],
    ['user/hist', 'user/top', 'user/stat', 'user/c2c'],
]
RANK = {d: i for i, ds in enumerate(LAYERS) for d in ds}
GENERATED = {'bpf/ldlat.skel.h', 'bpf/c2c.skel.h', 'bpf/perf_mem_defs.h'}
# what a folder outside bpf/ may include of bpf/; the others: bpf/ldlat.h
CONTRACT = {'bpf/ldlat.h', 'bpf/c2c.h', 'bpf/unwind.h'}
FROM_BPF = {'bpf/ldlat.h', 'bpf/c2c.h', 'bpf/unwind.h', 'bpf/ldlat_pin.h', 'bpf/ldlat.skel.h', 'bpf/c2c.skel.h'}
WHOLE_CONTRACT = ('user/run', 'user/hist', 'user/top', 'user/c2c', 'tests', 'bench')
# a header only one folder or file includes
ONLY_IN = {
    'bpf/perf_mem_defs.h': 'bpf/',
    'vmlinux/vmlinux.h': ('bpf/ldlat.bpf.c', 'bpf/c2c.bpf.c'),
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# attaching a program to a perf event, and the one file of user/ that does
ATTACH = re.compile(r'\bbpf_program__attach_perf_event|\bPERF_EVENT_IOC_SET_BPF\b|'
                    r'\bBPF_LINK_CREATE\b|\bbpf_link_create\b')
ATTACHER = 'user/run/prog.c'
# the process model: the one file of user/ that applies side-band records
PROCESS_MODEL = ('user/symbols/machine.c', 'user/symbols/machine.h')
SIDEBAND_RECORD = re.compile(r'\bPERF_RECORD_(?:MMAP2?|COMM|FORK|EXIT)\b'
                             r'|\bperf_file__parse_(?:mmap|comm|task)\b'
                             r'|\bprocmaps__(?:exec|fork|exit|comm|forget)\b')
MODEL_STORAGE = ('user/symbols/procmaps.c', 'user/symbols/procmaps.h')
COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)


def sideband_outside_model(path, text):
    """The lines of a file of user/ that name a side-band record type in code."""
    if not within(path, ('user',)) or path in PROCESS_MODEL:
        return []
    code = COMMENT.sub(lambda m: '\n' * m.group(0).count('\n'), text)
    return [f'{path}:{code.count(chr(10), 0, m.start()) + 1}: names {m.group(0)}: only the process '
            'model (user/symbols/machine.c, machine__process) applies side-band records'
            for m in SIDEBAND_RECORD.finditer(code)
            if not (path in MODEL_STORAGE and m.group(0).startswith('procmaps__'))]


def folder(path):
    d = os.path.dirname(path)
    while d and d not in RANK and not d.startswith(('tests', 'bench')):
        d = os.path.dirname(d)
    return d


def within(path, places):
    return any(path == p or path.startswith(p + '/') for p in places)


def from_top(inc):
    return not inc.startswith(('/', './')) and '..' not in inc.split('/') \
        and os.path.normpath(inc) == inc


def module(path):
    return os.path.splitext(path)[0]


def main():
    ap = argparse.ArgumentParser(description='Checks the dependency rule of the layout.')
    ap.add_argument('--root', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'),
                    help='the top of the tree to check (default: this one)')
    root = ap.parse_args().root
    os.chdir(root)
    files = sources('.')
    if not files:
        print(f'check-deps: no .c or .h file under {root}')
        return 1
    files = [f for f in files if not f.startswith('vmlinux/')]
    errors = []
    graph = {}
    why = {}
    for f in files:
        src = folder(f)
        with open(f, encoding='utf-8') as fh:
            text = fh.read()
        errors += sideband_outside_model(f, text)
        if within(f, ('user',)) and f != ATTACHER and ATTACH.search(text):
            errors.append(f'{f}: attaches a BPF program to perf events: only {ATTACHER} does '
                          '(prog__attach, through a struct prog_ops)')
        for inc in INCLUDE.findall(text):
            if not from_top(inc) or (inc not in GENERATED and not os.path.isfile(inc)):
                errors.append(f'{f}: #include "{inc}" is not a path from the top of the tree')
                continue
            dst = folder(inc)
            if module(inc) != module(f):
                graph.setdefault(module(f), set()).add(module(inc))
                why.setdefault((module(f), module(inc)), f'{f} includes {inc}')
            only = ONLY_IN.get(inc)
            only = (only,) if isinstance(only, str) else only
            if only and not within(f, tuple(o.rstrip('/') for o in only)):
                errors.append(f'{f}: includes {inc}: only {", ".join(only)} includes it')
                continue
            if dst == 'bpf' and src not in ('bpf', 'kernel/lib') and inc not in ONLY_IN:
                may = FROM_BPF if within(src, WHOLE_CONTRACT) else CONTRACT
                if inc not in may:
                    errors.append(f'{f}: includes {inc}: of bpf/, {src}/ includes only '
                                  + ', '.join(sorted(may)))
                    continue
            if within(src, ('tests',)):
                if within(dst, ('tests',)) and dst not in (src, 'tests/lib'):
                    errors.append(f'{f}: includes {inc}: of tests/, {src}/ includes only its own '
                                  'files and tests/lib/')
                continue
            if within(dst, ('tests',)):
                errors.append(f'{f}: includes {inc}: nothing outside tests/ includes tests/')
            elif within(dst, ('bench',)) and src != 'bench':
                errors.append(f'{f}: includes {inc}: only tests/ and bench/ include bench/')
            elif src == 'bench':
                continue
            elif src not in RANK or dst not in RANK:
                errors.append(f'{f}: includes {inc}: a folder the rule does not place')
            elif src == 'kernel/lib' and dst != src:
                errors.append(f'{f}: includes {inc}: kernel/lib/ includes nothing of the '
                              'project but kernel/lib/')
            elif dst != src and RANK[dst] >= RANK[src]:
                way = 'sideways' if RANK[dst] == RANK[src] else 'up'
                errors.append(f'{f}: includes {inc}: {src}/ may not include {dst}/ ({way})')
    # circles between modules
    state = {}
    stack = []

    def visit(m):
        state[m] = 1
        stack.append(m)
        for n in sorted(graph.get(m, ())):
            if state.get(n) == 1:
                cyc = stack[stack.index(n):] + [n]
                errors.append('a circle of includes: ' + ' -> '.join(cyc) + ' ('
                              + '; '.join(why[e] for e in zip(cyc, cyc[1:])) + ')')
            elif n not in state:
                visit(n)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)
    for e in errors:
        print('check-deps: ' + e)
    if errors:
        print(f'check-deps: {len(errors)} violation(s) of the layout rule (tests/deps.py)')
        return 1
    print(f'check-deps: {len(files)} files, {sum(len(v) for v in graph.values())} includes '
          'between modules, all pointing down the layers, no circle; side-band records '
          'applied by the process model alone')
    return 0


if __name__ == '__main__':
    sys.exit(main())
