#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""Runs every command the README and the docs/ pages show, and checks that
what it prints has the shape the page shows.

A command is a line of a fenced block that starts with '$ ' (a line ending
in a backslash continues it); the lines after it, up to the next command or
the end of the block, are what it printed.  The commands of a file run in
order, from the top of the source tree, in one process environment, so a
block may set up what the next one uses (a pinned set, a perf.data file).
A block right after the visible line '*Not run by the docs check: REASON.*'
is not run: REASON says why (it needs a load-latency PMU, say); each is
printed and counted.  A hidden marker (an HTML comment) is refused: the
reader must see which examples were not run.

The shape of a line: numbers, hex addresses, paths and histogram bars
stand for any; spaces are collapsed.  The first line the page shows, and
four in five of the others, must have the shape of a line the command
printed now (rows naming what this machine ran may differ), and 'echo $?'
must print what the page shows.  With --update, the pages get what the commands print now instead.

  tests/docs.py [--update] [FILE.md ...]   (default: README.md and every docs/*.md)
"""
import glob
import os
import re
import struct
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SKIP = re.compile(r'^\*Not run by the docs check: (.*)\.\*$')
HIDDEN_SKIP = re.compile(r'^<!-- docs: skip')

def shape(line):
    # paths differ between checkouts and runs: any absolute path is one token
    line = re.sub(r'(?<![\w.])/[\w.+-]+(?:/[\w.+-]*)*', '/P', line)
    line = re.sub(r'0x[0-9a-fA-F]+', '0x#', line)
    # ldlat's version (dist/version.sh): 0.9.0, 0.9.0+5.g01fc7b7.dirty, 0.9.0+nogit
    line = re.sub(r'\b\d+\.\d+\.\d+(?:\+(?:\d+|shallow)\.g[0-9a-f]{4,}(?:\.dirty)?|\+nogit)?'
                  r'(?![\w.])', 'V', line)
    line = re.sub(r'\b[0-9a-f]{7,}(-dirty)?\b', '#', line)  # git hashes, build IDs
    line = re.sub(r'\d+(\.\d+)?', '#', line)
    line = re.sub(r'\*+', '*', line)
    line = re.sub(r'\bPID #|pid #', 'PID #', line)
    return re.sub(r'\s+', ' ', line).strip()


def blocks(lines):
    """(start, end, skip reason or None) of each fenced block: lines[start+1:end]."""
    i, out = 0, []
    while i < len(lines):
        if lines[i].startswith('```'):
            j = i + 1
            while j < len(lines) and not lines[j].startswith('```'):
                j += 1
            m = SKIP.match(lines[i - 1]) if i else None
            out.append((i, j, m.group(1) if m else None))
            i = j + 1
        else:
            i += 1
    return out


def commands(lines, start, end):
    """(first line, line after the command, line after its output, command text)."""
    out, i = [], start + 1
    while i < end:
        if not lines[i].startswith('$ '):
            i += 1
            continue
        first, cmd = i, lines[i][2:]
        while cmd.endswith('\\') and i + 1 < end:
            i += 1
            cmd = cmd + '\n' + lines[i]  # bash joins the lines at the backslash
        i += 1
        body = i
        while i < end and not lines[i].startswith('$ '):
            i += 1
        out.append((first, body, i, cmd))
    return out


def run(cmd, env):
    try:
        p = subprocess.run(['bash', '-c', cmd], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=120,
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return 124, ['(docs.py: no end after 120 seconds)']
    return p.returncode, p.stdout.rstrip('\n').split('\n') if p.stdout.strip() else []


# a path only a development checkout has: its clone directory (before
# tools.conf, say), a mktemp -d directory; a reader sees the installed ones
CHECKOUT_PATH = re.compile(r'(?<![\w.])(?:/work/|/tmp/tmp\.|%s/)|'
                           r'(?<![\w.])/(?![\w/]*(?:etc|share)/ldlat/)[\w./+-]*/tools\.conf\b'
                           % re.escape(ROOT))


def kernel_build_id():
    """The running kernel's GNU build ID (hex), from its notes; None where unreadable."""
    try:
        notes = open('/sys/kernel/notes', 'rb').read()
    except OSError:
        return None
    off = 0
    while off + 12 <= len(notes):
        namesz, descsz, kind = struct.unpack_from('<III', notes, off)
        off += 12
        name = notes[off:off + namesz]
        off += (namesz + 3) & ~3
        desc = notes[off:off + descsz]
        off += (descsz + 3) & ~3
        if kind == 3 and name.rstrip(b'\0') == b'GNU' and desc:
            return desc.hex()
    return None


KERNEL_BUILD_ID = kernel_build_id()


def checkout_paths(path, lines):
    failures = ['%s:%d: quotes a development checkout\'s path, not one a user sees: %s' % (
        path, i + 1, line.strip()) for i, line in enumerate(lines) if CHECKOUT_PATH.search(line)]
    # the build ID of the kernel the page was written on: no reader's kernel has it
    if KERNEL_BUILD_ID:
        failures += ['%s:%d: quotes this machine\'s kernel build ID (%s), not one a user sees: %s' % (
            path, i + 1, KERNEL_BUILD_ID[:12], line.strip()) for i, line in enumerate(lines)
            if KERNEL_BUILD_ID[:16] in line.lower()]
    return failures


def check_file(path, update):
    lines = open(os.path.join(ROOT, path)).read().split('\n')
    env = dict(os.environ)
    failures, ran, skipped, last_rc = checkout_paths(path, lines), 0, 0, 0
    failures += ['%s:%d: a hidden skip marker: write \'*Not run by the docs check: REASON.*\' '
                 'on the line before the block' % (path, i + 1)
                 for i, line in enumerate(lines) if HIDDEN_SKIP.match(line)]
    edits = []
    for start, end, reason in blocks(lines):
        cmds = commands(lines, start, end)
        if not cmds:
            continue
        if reason:
            skipped += len(cmds)
            print('%s:%d: skipped (%s)' % (path, start + 1, reason))
            continue
        for k, (first, body, after, cmd) in enumerate(cmds):
            ran += 1
            shown = lines[body:after]
            if cmd.strip() == 'echo $?':
                got = [str(last_rc)]
            else:
                last_rc, got = run(cmd, env)
                # a status the page does not show must be success
                shows_rc = k + 1 < len(cmds) and cmds[k + 1][3].strip() == 'echo $?'
                if last_rc != 0 and not shows_rc and not update:
                    failures.append('%s:%d: $ %s\n  exited %d, and the page does not show '
                                    'its status (echo $?)\n  the run printed:\n%s' % (
                                        path, first + 1, cmd.split('\n')[0], last_rc,
                                        '\n'.join('    ' + g for g in got[-20:])))
            if update:
                edits.append((body, after, got))
                continue
            have = {shape(g) for g in got}
            lines_shown = [s for s in shown if s.strip()]
            missing = [s for s in lines_shown if shape(s) not in have]
            # rows that name what this machine ran (a kernel function, a PID's
            # library) may differ: at most one in five lines
            if lines_shown and (len(missing) * 5 > len(lines_shown) or
                                shape(lines_shown[0]) not in have):
                failures.append('%s:%d: $ %s\n  the page shows, not printed now:\n%s\n'
                                '  the run printed:\n%s' % (
                                    path, first + 1, cmd.split('\n')[0],
                                    '\n'.join('    ' + m for m in missing[:10]),
                                    '\n'.join('    ' + g for g in got[:40])))
    if update:
        for body, after, got in reversed(edits):
            lines[body:after] = got
        with open(os.path.join(ROOT, path), 'w') as f:
            f.write('\n'.join(lines))
    return ran, skipped, failures


def main():
    args = sys.argv[1:]
    if os.geteuid() != 0:
        # the pages' commands load BPF programs and open perf events
        if os.environ.get('CI') == 'true':
            print('FAIL: tests/docs.py needs root, and CI=true: it must run in CI',
                  file=sys.stderr)
            return 1
        print('SKIPPED: tests/docs.py needs root (CI=true makes this fatal)')
        return 0
    update = '--update' in args
    files = [a for a in args if a != '--update'] or ['README.md'] + sorted(
        os.path.relpath(f, ROOT) for f in glob.glob(os.path.join(ROOT, 'docs', '*.md')))
    total = skipped = 0
    failures = []
    for f in files:
        r, s, fl = check_file(f, update)
        total += r
        skipped += s
        failures += fl
    for fl in failures:
        print(fl, file=sys.stderr)
    print('docs: %d commands in %d files %s, %d skipped with their reason%s' % (
        total, len(files), 'run and rewritten' if update else 'run', skipped,
        '' if not failures else '; %d printed another shape' % len(failures)))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
