#!/usr/bin/python3
"""
openmetrics_parse.py - reads an OpenMetrics exposition on stdin and parses it
with the strict OpenMetrics parser of Debian's python3-prometheus-client
(run it with /usr/bin/python3, whose packages those are): the families'
TYPE and their samples' suffixes must agree, counters be named x_total,
and the text end with # EOF.  Prints each family and its type; exits 1
with the parser's sentence on the first error.
"""
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the tree
from prometheus_client.openmetrics.parser import text_string_to_metric_families  # noqa: E402


def main():
    text = sys.stdin.read()
    try:
        for family in text_string_to_metric_families(text):
            print(family.name, family.type, len(family.samples))
    except Exception as e:  # the parser raises ValueError and others, each with its sentence
        print(f'openmetrics_parse: {e}', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
