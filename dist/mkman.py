#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""Writes a tool's man page (section 8) from its --help, so that the page
and the options the binary takes cannot drift apart, or tools.conf(5) from
the comment at the top of tools.conf.

  mkman.py tool BINARY VERSION DATE OUT
  mkman.py conf TOOLS.CONF VERSION DATE OUT
"""
import os
import re
import subprocess
import sys
import textwrap

SEE_ALSO = ['ldlat-hist', 'ldlat-top', 'ldlat-stat', 'ldlat-c2c']
NAMES = {
    'ldlat-hist': 'load-latency histograms per data source, built in the kernel',
    'ldlat-top': 'the code and the data behind slow loads',
    'ldlat-stat': 'count cache and memory events in groups the counters can hold',
    'ldlat-c2c': 'cache lines cores contend for, and loads per NUMA node',
}


def esc(text):
    """Text as roff: backslashes escaped, hyphens of options kept as minus."""
    text = text.replace('\\', '\\e')
    text = re.sub(r'(?<![\w])-(?=[-\w?])', r'\\-', text)
    return text.replace('\\--', '\\-\\-')


def line(text):
    """A paragraph as roff input lines of at most 80 bytes."""
    out = []
    for ln in textwrap.wrap(esc(text), 78, break_long_words=False, break_on_hyphens=False):
        out.append('\\&' + ln if ln.startswith(('.', "'")) else ln)
    return '\n'.join(out)


def verbatim(text):
    text = esc(text)
    return '\\&' + text if text.startswith(('.', "'")) else text


def help_text(binary, *args):
    env = dict(os.environ, ARGP_HELP_FMT='rmargin=1000', LC_ALL='C')
    return subprocess.run([binary, *args, '--help'], env=env, check=True,
                          capture_output=True, text=True).stdout


def split_help(text):
    """(usage, doc, groups [(title, [(opts, text)])], commands, examples, tail)."""
    lines = text.splitlines()
    usage = lines[0][len('Usage: '):]
    i = 1
    doc = []
    while i < len(lines) and lines[i].strip():
        doc.append(lines[i])
        i += 1
    groups, cur = [], None
    while i < len(lines) and not lines[i].startswith('Mandatory or optional'):
        ln = lines[i]
        i += 1
        if not ln.strip():
            continue
        m = re.match(r'^ (\S.*):$', ln)
        if m:
            cur = (m.group(1), [])
            groups.append(cur)
            continue
        m = re.match(r'^\s+(-\S.*?)(?:\s{2,}(\S.*))?$', ln)
        if m:
            if cur is None:
                cur = ('Other', [])
                groups.append(cur)
            cur[1].append([m.group(1).strip(), m.group(2) or ''])
        elif cur and cur[1]:
            cur[1][-1][1] += ' ' + ln.strip()
    rest = lines[i + 1:]
    commands, examples, tail, where = [], [], [], None
    for ln in rest:
        if ln.startswith('Commands ('):
            where = commands
            continue
        if ln.startswith('Examples:'):
            where = examples
            continue
        if not ln.strip():
            if where is examples or where is commands:
                where = tail
            continue
        if where is None:
            where = tail
        where.append(ln)
    return usage, doc, groups, commands, examples, tail


def synopsis(usage):
    """[OPTION...] [-- COMMAND [ARGS...]] with the placeholders in italics."""
    return re.sub(r'\b([A-Z]{2,})\b', r'\\fI\1\\fR', esc(usage))


def tool_page(binary, version, date):
    name = os.path.basename(binary)
    usage, doc, groups, commands, examples, tail = split_help(help_text(binary))
    out = ['.\\" generated from %s --help by dist/mkman.py' % name,
           '.TH %s 8 %s "ldlat %s" "System Administration"' % (name.upper(), date, version),
           '.SH NAME',
           '%s \\- %s' % (name, NAMES.get(name, name)),
           '.SH SYNOPSIS',
           '.B %s' % name,
           synopsis(usage.split(' ', 1)[1] if ' ' in usage else ''),
           ]
    for c in commands:
        m = re.match(r'^\s+(\S+)(?: ([A-Z]+))?\s{2,}', c)
        if not m or '(the default)' in c:
            continue
        out += ['.br', '.B %s %s' % (name, m.group(1)),
                ('\\fI%s\\fR ' % m.group(2) if m.group(2) else '') + '[\\fIOPTION\\fR...]']
    out += ['.SH DESCRIPTION', line(' '.join(doc))]
    if tail:
        out += ['.PP', line(' '.join(t.strip() for t in tail))]
    if commands:
        out += ['.SH COMMANDS',
                line("Each command takes its own options: '%s COMMAND --help' lists them; "
                     "an option of another command is refused." % name)]
        for c in commands:
            m = re.match(r'^\s+(\S+(?: [A-Z]+)?)\s{2,}(.*)$', c)
            if not m:
                continue
            out += ['.TP', '.B %s' % esc(m.group(1)), line(m.group(2))]
    out.append('.SH OPTIONS')
    for title, opts in groups:
        out.append('.SS %s' % esc(title))
        for opts_, text in opts:
            out += ['.TP', '.B %s' % esc(opts_).replace('"', '\\(dq'), line(text)]
    if examples:
        out += ['.SH EXAMPLES', '.EX']
        out += [verbatim(e.strip()) for e in examples]
        out.append('.EE')
    out += ['.SH FILES',
            '.TP', '.I /etc/ldlat/tools.conf',
            line('the event table and defaults an administrator keeps; then '
                 'BINDIR/../share/ldlat/tools.conf, then the copy built into the tool '
                 '(see tools.conf(5))'),
            '.SH SEE ALSO',
            ',\n'.join('.BR %s (%s)' % (t, s) for t, s in
                       [(t, 8) for t in SEE_ALSO if t != name] + [('tools.conf', 5),
                                                                  ('perf-mem', 1)])]
    return '\n'.join(out) + '\n'


def conf_page(path, version, date):
    text = open(path).read().splitlines()
    body = []
    for ln in text:
        if not ln.startswith('#'):
            break
        body.append(ln[2:] if ln.startswith('# ') else ln[1:])
    title = body[0]
    body = body[1:]
    while body and not body[0].strip():
        body.pop(0)
    out = ['.\\" generated from tools.conf by dist/mkman.py',
           '.TH TOOLS.CONF 5 %s "ldlat %s" "File Formats"' % (date, version),
           '.SH NAME',
           'tools.conf \\- %s' % esc(title.split(' - ', 1)[1].rstrip('.')),
           '.SH DESCRIPTION']
    para = []

    def flush():
        if para:
            out.append(line(' '.join(p.strip() for p in para)))
            para.clear()
    i = 0
    while i < len(body):
        ln = body[i]
        if not ln.strip():
            flush()
            if not out[-1].startswith(('.SH', '.SS', '.PP', '.fi')):
                out.append('.PP')
        elif ln.startswith('  '):
            flush()
            out.append('.nf')
            while i < len(body) and body[i].startswith('  '):
                out.append(verbatim(body[i]))
                i += 1
            out.append('.fi')
            continue
        elif re.match(r'^\[\S+\] - ', ln):
            flush()
            if out[-1] == '.PP':
                out.pop()
            out += ['.SS %s' % esc(ln.split(' - ')[0])]
            para.append(ln.split(' - ', 1)[1])
        else:
            para.append(ln)
        i += 1
    flush()
    out += ['.SH EXAMPLES', line('The [defaults] section as shipped:'), '.EX']
    shown = False
    for ln in text:
        if ln == '[defaults]':
            shown = True
        elif shown and not ln.strip():
            break
        if shown:
            out.append(verbatim(ln))
    out += ['.EE', '.SH SEE ALSO',
            ',\n'.join('.BR %s (8)' % t for t in SEE_ALSO)]
    return '\n'.join(out) + '\n'


def main():
    kind, src, version, date, dst = sys.argv[1:6]
    page = tool_page(src, version, date) if kind == 'tool' else conf_page(src, version, date)
    with open(dst + '.tmp', 'w') as f:
        f.write(page)
    os.replace(dst + '.tmp', dst)


if __name__ == '__main__':
    main()
