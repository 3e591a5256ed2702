#!/usr/bin/env python3
"""
writers.py - checks that each format has one writer (make check-writers, run
by make test).

JSON is written by user/report/json.c, OpenMetrics and the Prometheus text
format (the same lines but for counters and the end) by
user/report/openmetrics.c, and both escape through user/report/escape.c.
Anywhere else in the tools (user/, kernel/, bench/), a JSON member name in a
string, literal or computed ("\\"key\\":", "\\"%s\\":"), a label
("name=\\""), a # HELP, # TYPE, # UNIT or # EOF line, or a call to the
escaping functions is a document built by hand.

perf stat -x's lines (fields between separators) are written by
user/report/csv.c.  Elsewhere, a string literal of four or more conversions
joined by one separator character, empty fields allowed ("%llu,,%s,%s,%.2f",
or with ';') is such a line built by hand (three, as "rgb(%d,%d,%d)", is
not; nor a benchmark's tab-separated lines for its scripts).

pprof profiles (profile.proto) are built by user/report/pprof.c alone, the
one file that includes the header protoc-c generates (tests/deps.py): a
call into protobuf-c or one of the generated perftools__profiles__
functions or types elsewhere is a profile built by hand.

Text tables are laid out by user/report/table.c.  Elsewhere, a string
literal (outside a scanf) with two conversions of a fixed width ("%10s ...
%-22s"), or one conversion of a width, fixed or given at run time, followed
by a gap of two spaces ("%12llu  %s", "%*s  %s", "%-*s  %s"), is a table row
laid out by hand.  Not flagged: a single padded number inside a cell
("# %8.3f %s/sec"), a range inside one cell with run-time widths
("%*llu -> %-*llu"), a padded field with single-space gaps (the help
listing's "  %-13s %s%s\\n"), and spaces written into the literal itself
(--list-events' "config       0x%llx").  Lines are read one at a time: a
row split over two adjacent literals ("%-10s" then "  %s" on the next line)
is not seen.

A report's format is chosen by user/report/output.c alone: each tool
declares the renderer of each format it has (struct output_formats), and
output.c picks one, refuses a format the tool lacks and answers what a
format implies (output__text, output__totals, ...).  Anywhere else, a
format constant (OUTPUT_TEXT, OUTPUT_JSON, ...) other than a format set
("format = OUTPUT_SVG") or a set's bit ("1u << OUTPUT_JSON"), a format
compared ("->format ==") or a switch on one is a choice by format made by
hand.

Prints each one with its file and line; exits 1 if there is one.  --root DIR
checks the tree at DIR instead of this one (tests/checks_selftest.py
plants violations in a copy).
"""
import argparse
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the tree
from sources import sources  # noqa: E402

# a printf conversion, for a key computed at run time ("\"%s\":")
CONVERSION = r'%[-+ #0]*(?:[0-9]+|\*)?(?:\.(?:[0-9]+|\*))?(?:hh|h|ll|l|z|j|t|L)?[diouxXfeEgGcsp]'
# a conversion of a fixed width: %10s, %-22s, %6.2f, %12llu (not %02x, zero-filled)
FIXED = r'%-?[1-9][0-9]*(?:\.[0-9]+)?(?:hh|h|ll|l|z|j)?[diouxXfeEgGs]'
# one of a width fixed or given at run time: also %*s, %-*s (not %.*s, a precision)
PADDED = r'%-?(?:[1-9][0-9]*|\*)(?:\.(?:[0-9]+|\*))?(?:hh|h|ll|l|z|j)?[diouxXfeEgGs]'
WRITERS = {
    'user/report/json.c', 'user/report/json.h',
    'user/report/openmetrics.c', 'user/report/openmetrics.h',
    'user/report/escape.c', 'user/report/escape.h',
    'user/report/table.c', 'user/report/table.h',
    'user/report/svg.c', 'user/report/svg.h',
    'user/report/csv.c', 'user/report/csv.h',
    'user/report/pprof.c', 'user/report/pprof.h',
}
FOLDERS = ('user/', 'kernel/', 'bench/')
# the one module that chooses a renderer by the format
CHOOSER = {'user/report/output.c', 'user/report/output.h'}
FORMAT_CONSTANT = re.compile(r'\bOUTPUT_(?:TEXT|JSON|OPENMETRICS|PROMETHEUS|FOLDED|SVG|CSV)\b')
# where a format constant may stand: a format set, or a bit of a set of formats
FORMAT_DECLARED = re.compile(r'\bformat\s*=\s*OUTPUT_\w+|\b1u?\s*<<\s*OUTPUT_\w+')
FORMAT_CHOSEN = re.compile(r'\bformat\s*[!=]=|switch\s*\([^)]*\bformat\b')


def format_chosen_by_hand(line):
    """Whether a line chooses by the format: a constant neither set nor a set's bit."""
    if FORMAT_CHOSEN.search(line):
        return True
    declared = FORMAT_DECLARED.sub('', line)
    return bool(FORMAT_CONSTANT.search(declared))
# four or more conversions joined by one separator character: a CSV line by hand
CSV_ROW = re.compile(CONVERSION + r'(?P<s>[,;])(?P=s)*' + CONVERSION
                     + r'(?:(?P=s)+' + CONVERSION + r'){2,}')
BY_HAND = [
    (re.compile(r'\\"(?:[A-Za-z_][A-Za-z0-9_]*|' + CONVERSION + r')\\"\s*:'),
     'a JSON member written by hand'),
    (re.compile(r'[A-Za-z_][A-Za-z0-9_]*=\\"'), 'an OpenMetrics label written by hand'),
    (re.compile(r'"[^"\n]*# (HELP|TYPE|UNIT|EOF)\b'), 'an OpenMetrics line written by hand'),
    (re.compile(r'\b(json_string|label_value)\s*\('), 'escaping outside the writers'),
    (re.compile(r'\b(?:perftools__profiles__|Perftools__Profiles__|PERFTOOLS__PROFILES__|protobuf_c_)'),
     'a pprof profile built outside user/report/pprof.c'),
]


TABLE_ROW = re.compile(FIXED + r'.*' + FIXED + r'|' + PADDED + r'(?:%%)?  +\S')
STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


def csv_row_by_hand(line):
    return any(CSV_ROW.search(m.group(1)) for m in STRING.finditer(line))


def table_row_by_hand(line):
    if 'scanf' in line:
        return False
    return any(TABLE_ROW.search(m.group(1)) for m in STRING.finditer(line))


def main():
    ap = argparse.ArgumentParser(description='Checks that each output format has one writer.')
    ap.add_argument('--root', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'),
                    help='the top of the tree to check (default: this one)')
    root = ap.parse_args().root
    os.chdir(root)
    files = sources('.')
    if not files:
        print(f'check-writers: no .c or .h file under {root}')
        return 1
    files = [f for f in files if f.startswith(FOLDERS) and f not in WRITERS]
    errors = []
    for f in files:
        with open(f, encoding='utf-8') as fh:
            for n, line in enumerate(fh, 1):
                for pattern, what in BY_HAND:
                    if pattern.search(line):
                        errors.append(f'{f}:{n}: {what}: {line.strip()}')
                if csv_row_by_hand(line):
                    errors.append(f'{f}:{n}: a CSV line written by hand: {line.strip()}')
                if table_row_by_hand(line):
                    errors.append(f'{f}:{n}: a text-table row laid out by hand: {line.strip()}')
                if f not in CHOOSER and format_chosen_by_hand(line):
                    errors.append(f'{f}:{n}: a choice by the format outside output.c: '
                                  f'{line.strip()}')
    for e in errors:
        print(e)
    if errors:
        print('check-writers: JSON goes through user/report/json.h, OpenMetrics through '
              'user/report/openmetrics.h, pprof through user/report/pprof.h, CSV through '
              'user/report/csv.h, text tables '
              'through user/report/table.h, and the choice of a format\'s renderer through '
              'user/report/output.h')
        return 1
    print(f'check-writers: {len(files)} files, no JSON, OpenMetrics, pprof, CSV or text table '
          'written outside the writers, no format chosen outside output.c')
    return 0


if __name__ == '__main__':
    sys.exit(main())
