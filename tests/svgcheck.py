#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""svgcheck.py - checks an SVG that ldlat-top drew (a flame graph or a heat map).

  svgcheck.py FILE [--total N] [--frame NAME=N ...] [--frames N] [--script]
              [--cells N] [--png PNG [--min-colours N]]

The file must parse as XML with an <svg> root.  --total: the root's
data-total.  --frame NAME=N: a frame (g.f) whose title starts with NAME has
data-n N (summed over frames of that name).  --frames: how many frames.
--script: the search and zoom script is there.  --cells: how many heat-map
cells (rect.c) and that their data-n sum to the root's data-total;
--cells-max: the same with at most N cells.  --png: a
PNG a browser rendered from it is not blank: it decodes (zlib, no other
package) and has at least --min-colours distinct pixel colours (default 8).
Prints what it found; exits 1 on the first mismatch.
"""
import argparse
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

NS = '{http://www.w3.org/2000/svg}'


def fail(msg):
    print('svgcheck: ' + msg)
    sys.exit(1)


def png_colours(path):
    """Distinct colours of an 8-bit RGB or RGBA, non-interlaced PNG."""
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        fail(path + ' is not a PNG')
    pos, idat, ihdr = 8, b'', None
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            ihdr = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat += body
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = ihdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        fail('%s: PNG of depth %d, colour type %d, interlace %d not handled' %
             (path, depth, ctype, interlace))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    colours = set()
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pr) & 255
        for x in range(0, stride, bpp):
            colours.add(bytes(line[x:x + 3]))
        prev = line
    return w, h, len(colours)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('file')
    ap.add_argument('--total', type=int)
    ap.add_argument('--frame', action='append', default=[])
    ap.add_argument('--frames', type=int)
    ap.add_argument('--script', action='store_true')
    ap.add_argument('--cells', type=int)
    ap.add_argument('--cells-max', type=int)
    ap.add_argument('--png')
    ap.add_argument('--min-colours', type=int, default=8)
    a = ap.parse_args()
    try:
        root = ET.parse(a.file).getroot()
    except ET.ParseError as e:
        fail('%s is not XML: %s' % (a.file, e))
    if root.tag != NS + 'svg':
        fail('the root is %s, not svg' % root.tag)
    frames = [g for g in root.iter(NS + 'g') if g.get('class') == 'f']
    total = int(root.get('data-total', '-1'))
    print('svgcheck: total %d, %d frames' % (total, len(frames)))
    if a.total is not None and total != a.total:
        fail('total %d, expected %d' % (total, a.total))
    if a.frames is not None and len(frames) != a.frames:
        fail('%d frames, expected %d' % (len(frames), a.frames))
    for spec in a.frame:
        name, want = spec.rsplit('=', 1)
        got = sum(int(g.get('data-n')) for g in frames
                  if g.find(NS + 'title').text.startswith(name + ' ('))
        if got != int(want):
            fail('frame %s: %d, expected %s' % (name, got, want))
    if a.script:
        scripts = [s.text or '' for s in root.iter(NS + 'script')]
        if not any('function search(' in s and 'function zoom(' in s for s in scripts):
            fail('no search and zoom script')
    if a.cells is not None or a.cells_max is not None:
        cells = [r for r in root.iter(NS + 'rect') if r.get('class') == 'c']
        if a.cells is not None and len(cells) != a.cells:
            fail('%d cells, expected %d' % (len(cells), a.cells))
        if a.cells_max is not None and not 0 < len(cells) <= a.cells_max:
            fail('%d cells, expected 1 to %d' % (len(cells), a.cells_max))
        s = sum(int(c.get('data-n')) for c in cells)
        if s != total:
            fail('cells sum to %d, the total is %d' % (s, total))
    if a.png:
        w, h, n = png_colours(a.png)
        print('svgcheck: %s is %dx%d with %d colours' % (a.png, w, h, n))
        if n < a.min_colours:
            fail('%s has %d colours: blank' % (a.png, n))
    return 0


if __name__ == '__main__':
    sys.exit(main())
