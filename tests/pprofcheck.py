#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""pprofcheck.py - reads a pprof profile with Go's own pprof (go tool pprof,
Debian's golang-go) and prints what it read, in a form a test compares.

  pprofcheck.py traces FILE [--index TYPE] [--labels]
  pprofcheck.py tags FILE [--index TYPE]
  pprofcheck.py top FILE [--index TYPE]
  pprofcheck.py header FILE

traces: `go tool pprof -traces` read back into one line per call path, its
frames outermost first joined by ';' (as folded stacks are) and its value:
"frame;frame;leaf N", the traces of the same path summed (with --labels each
line starts with its labels, "{key=value,...} ", and only the traces of the
same path and labels are summed), sorted.  tags: `-tags`, one line per
label value, "key value N".  top: `-top` with every node kept, one line per
function, "name flat cum".  header: `-raw`'s header and sample types, one
"key: value" line each (PeriodType, Period, Time, Duration, the sample
types with "[dflt]" on the default, and a line per mapping, sorted: "mapping
START LIMIT OFFSET FILE BUILDID"; a profile without one gets pprof's own,
"mapping 0x0 0x0 0x0").  --index: the sample type to read (pprof's
-sample_index), the default type when not given; --unit U: values in U
(pprof's -unit), the suffix taken off.  Go runs with its caches in a
temporary folder, no module proxy and no other toolchain (GOPROXY=off,
GOTOOLCHAIN=local): a fresh machine without network reads the same.  A value is pprof's as it
printed it: a count unscaled, another unit as pprof scales it.

Exits 1 when go tool pprof fails or prints what this does not parse.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

UNIT = None  # --unit: the suffix pprof prints on each value, taken off


def go_env(tmp):
    """A Go of this machine alone: its caches under tmp, no network, no other toolchain."""
    env = dict(os.environ)
    for k in ('GOFLAGS', 'GOROOT_FINAL'):
        env.pop(k, None)
    env.update(GOPATH=os.path.join(tmp, 'gopath'), GOCACHE=os.path.join(tmp, 'gocache'),
               GOENV='off', GOPROXY='off', GOTOOLCHAIN='local', GOTELEMETRY='off',
               PPROF_TMPDIR=tmp, HOME=env.get('HOME') or tmp)
    return env


def pprof(args):
    with tempfile.TemporaryDirectory(prefix='pprofcheck-') as tmp:
        r = subprocess.run(['go', 'tool', 'pprof'] + args, capture_output=True, text=True,
                           errors='surrogateescape', timeout=120, env=go_env(tmp))
    if r.returncode != 0:
        sys.exit(f'pprofcheck: go tool pprof {" ".join(args)} exited {r.returncode}: '
                 f'{r.stderr.strip()}')
    return r.stdout


LABEL = re.compile(r'^ *([A-Za-z_][\w.-]*):  (.*)$')
VALUE = re.compile(r'^ *(\S+)   (.*)$')
FRAME = re.compile(r'^ {13}(.*)$')


def traces(text, with_labels):
    blocks = text.split('-----------+-------------------------------------------------------\n')
    if len(blocks) < 2:
        sys.exit('pprofcheck: no trace in the output:\n' + text)
    paths = {}
    for b in blocks[1:]:
        if not b.strip():
            continue
        labels, frames, value = [], [], None
        for line in b.rstrip('\n').split('\n'):
            if value is None:
                m = LABEL.match(line)
                if m:
                    labels.append(f'{m.group(1)}={m.group(2)}')
                    continue
                m = VALUE.match(line)
                if not m:
                    sys.exit(f'pprofcheck: not a label or a first frame: {line!r}')
                value, frames = m.group(1), [m.group(2)]
            else:
                m = FRAME.match(line)
                if not m:
                    sys.exit(f'pprofcheck: not a frame: {line!r}')
                frames.append(m.group(1))
        if value is None:
            sys.exit(f'pprofcheck: a trace without a value: {b!r}')
        key = ';'.join(reversed(frames))
        if with_labels:
            key = '{' + ','.join(sorted(labels)) + '} ' + key
        if UNIT and value.endswith(UNIT):
            value = value[:-len(UNIT)]
        paths.setdefault(key, []).append(value)
    out = []
    for k in sorted(paths):
        vs = paths[k]
        if all(re.fullmatch(r'-?\d+', v) for v in vs):
            out.append(f'{k} {sum(int(v) for v in vs)}')
        else:  # scaled values are printed as pprof printed them
            out.append(f'{k} {"+".join(vs)}')
    return out


TAG_KEY = re.compile(r'^ (\S+): Total (\S+)$')
TAG_VALUE = re.compile(r'^ +(\S+) \( *[\d.]+%\): (.*)$')


def tags(text):
    out, key = [], None
    for line in text.split('\n'):
        if not line.strip():
            continue
        m = TAG_KEY.match(line)
        if m:
            key = m.group(1)
            continue
        m = TAG_VALUE.match(line)
        if not m or key is None:
            sys.exit(f'pprofcheck: not a tag line: {line!r}')
        out.append(f'{key} {m.group(2)} {m.group(1)}')
    return out


TOP = re.compile(r'^ *(\S+) +\S+% +\S+% +(\S+) +\S+%  (.*)$')


def top(text):
    out, started = [], False
    for line in text.split('\n'):
        if re.match(r'^ +flat +flat% +sum% +cum +cum%$', line):
            started = True
            continue
        if not started or not line.strip():
            continue
        m = TOP.match(line)
        if not m:
            sys.exit(f'pprofcheck: not a -top line: {line!r}')
        out.append(f'{m.group(3)} {m.group(1)} {m.group(2)}')
    if not started:
        sys.exit('pprofcheck: no -top table in:\n' + text)
    return sorted(out)


def header(text):
    out, section = [], None
    for line in text.split('\n'):
        if line in ('Samples:', 'Locations', 'Mappings'):
            section = line
            continue
        if section is None:
            if line.strip():
                out.append(line)
        elif section == 'Samples:' and not out[-1].startswith('types:'):
            out.append('types: ' + line.strip())
        elif section == 'Mappings' and line.strip():
            m = re.match(r'^\d+: (0x[0-9a-f]+)/(0x[0-9a-f]+)/(0x[0-9a-f]+) (.*?)(?: \[.*\])?$',
                         line)
            if not m:
                sys.exit(f'pprofcheck: not a mapping line: {line!r}')
            out.append(('mapping ' + ' '.join(m.groups())).rstrip())
    # pprof moves the main binary's mapping first, by its own guess: sorted here
    return [line for line in out if not line.startswith('mapping ')] + \
        sorted(line for line in out if line.startswith('mapping '))


def main():
    ap = argparse.ArgumentParser(description="Reads a pprof profile with Go's pprof.")
    ap.add_argument('what', choices=['traces', 'tags', 'top', 'header'])
    ap.add_argument('file')
    ap.add_argument('--index', help='the sample type to read (-sample_index)')
    ap.add_argument('--labels', action='store_true', help='traces: with their labels')
    ap.add_argument('--unit', help='traces: values in UNIT (pprof -unit), printed bare')
    a = ap.parse_args()
    global UNIT
    UNIT = a.unit
    idx = [f'-sample_index={a.index}'] if a.index else []
    if a.unit:
        idx.append(f'-unit={a.unit}')
    if a.what == 'traces':
        lines = traces(pprof(['-traces'] + idx + [a.file]), a.labels)
    elif a.what == 'tags':
        lines = tags(pprof(['-tags'] + idx + [a.file]))
    elif a.what == 'top':
        lines = top(pprof(['-top', '-nodecount=0', '-nodefraction=0', '-edgefraction=0']
                          + idx + [a.file]))
    else:
        lines = header(pprof(['-raw', a.file]))
    sys.stdout.write(''.join(line + '\n' for line in lines))
    return 0


if __name__ == '__main__':
    sys.exit(main())
