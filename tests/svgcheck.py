#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""svgcheck.py - checks an SVG that ldlat-top drew (a flame graph or a heat map).

  svgcheck.py FILE [--total N] [--frame NAME=N ...] [--frames N] [--script]
              [--cells N] [--geometry] [--folded FOLDED]
              [--png PNG [--min-colours N]]

The file must parse as XML with an <svg> root.  --total: the root's
data-total.  --frame NAME=N: a frame (g.f) whose title starts with NAME has
data-n N (summed over frames of that name).  --frames: how many frames.
--script: the search and zoom script is there.  --cells: how many heat-map
cells (rect.c) and that their data-n sum to the root's data-total;
--cells-max: the same with at most N cells.

--geometry: the frames as drawn, by their rects alone: the root spans the
width but for equal margins; each frame's width is its data-n's share of the
total times the root's width, within a pixel; each frame but the root lies
within the x-range of a frame one row below it (its parent: rows are the
root's height apart, callers below callees) and its children's counts sum to
at most its own; each label is the frame's name (its title up to " (N
..."), the start of it followed by "..", or empty, and no wider than the
frame at 7 pixels a character.  --folded FOLDED: the call paths the frames
draw (each frame's count less its children's is the count of the path from
the root's child to it) are FOLDED's lines, path and count (the folded
stacks of the same call paths; the root, "all", is no frame of theirs).

--png: a PNG a browser rendered from the SVG at its size, one pixel a unit
(decoded here: zlib, no other package): it has at least --min-colours
distinct pixel colours (default 8), and inside every frame 20 pixels wide or
more, on the frame's second pixel row (above its label's glyphs) at the
frame's centre, the pixel is the frame's fill colour; a heat map's: at each
cell's centre, its fill colour.  Prints what it found;
exits 1 on the first mismatch.
"""
import argparse
import re
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

NS = '{http://www.w3.org/2000/svg}'


def fail(msg):
    print('svgcheck: ' + msg)
    sys.exit(1)


def png_pixels(path):
    """The rows of RGB triples of an 8-bit RGB or RGBA, non-interlaced PNG."""
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
    rows = []
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
        rows.append([tuple(line[x:x + 3]) for x in range(0, stride, bpp)])
        prev = line
    return w, h, rows


def frame_geometry(g):
    """A frame's name, count, x, y, width, height, fill (r, g, b) and label."""
    r, t, title = g.find(NS + 'rect'), g.find(NS + 'text'), g.find(NS + 'title').text
    name = title[:title.rindex(' (')]
    fill = parse_fill(r.get('fill'), 'frame ' + title)
    return dict(name=name, n=int(g.get('data-n')), x=float(r.get('x')), y=float(r.get('y')),
                w=float(r.get('width')), h=float(r.get('height')), fill=fill,
                label=(t.text or '') if t is not None else '')


def check_geometry(root, frames, total):
    """The checks of --geometry; returns the frames with their parents (index or None)."""
    width = float(root.get('width'))
    fs = [frame_geometry(g) for g in frames]
    if not fs:
        fail('no frames')
    base = max(fs, key=lambda f: (f['y'], f['w']))
    left, full = base['x'], base['w']
    if abs(left + full - (width - left)) > 0.01 or left > 0.05 * width:
        fail('the root spans %.2f to %.2f of a width of %.0f' % (left, left + full, width))
    if base['n'] != total:
        fail('the root counts %d, the total is %d' % (base['n'], total))
    step = None
    for f in fs:
        if f is not base and f['y'] < base['y'] and (step is None or base['y'] - f['y'] < step):
            step = base['y'] - f['y']
    for i, f in enumerate(fs):
        want = f['n'] / total * full
        if abs(f['w'] - want) > 1.0:
            fail('frame %s: %.2f pixels wide for %d of %d, expected %.2f' %
                 (f['name'], f['w'], f['n'], total, want))
        if f['label'] and not (f['label'] == f['name'] or
                               (f['label'].endswith('..') and
                                f['name'].startswith(f['label'][:-2]))):
            fail('frame %s: label %r' % (f['name'], f['label']))
        if len(f['label']) * 7.0 > f['w']:
            fail('frame %s: label %r is wider than %.2f pixels' % (f['name'], f['label'], f['w']))
        f['parent'] = None
        if f is base:
            continue
        below = [j for j, p in enumerate(fs)
                 if abs(p['y'] - (f['y'] + step)) < 0.01 and p['x'] - 0.01 <= f['x'] and
                 f['x'] + f['w'] <= p['x'] + p['w'] + 0.01]
        if len(below) != 1:
            fail('frame %s at x %.2f y %.1f: %d frames a row below hold it' %
                 (f['name'], f['x'], f['y'], len(below)))
        f['parent'] = below[0]
    for j, p in enumerate(fs):
        kids = sum(f['n'] for f in fs if f['parent'] == j)
        if kids > p['n']:
            fail('frame %s counts %d, its children %d' % (p['name'], p['n'], kids))
    print('svgcheck: geometry of %d frames: root %.2f-%.2f, rows %.1f apart' %
          (len(fs), left, left + full, step or 0))
    return fs, base


def check_folded(fs, base, path):
    """The paths the frames draw against the folded stacks in path."""
    want = {}
    for line in open(path):
        if line.strip():
            stack, n = line.rstrip('\n').rsplit(' ', 1)
            want[stack] = want.get(stack, 0) + int(n)
    drawn = {}
    for i, f in enumerate(fs):
        if f is base:
            continue
        own = f['n'] - sum(c['n'] for c in fs if c['parent'] == i)
        if not own:
            continue
        names, p = [], f
        while p is not base:
            names.append(p['name'])
            p = fs[p['parent']]
        stack = ';'.join(reversed(names))
        drawn[stack] = drawn.get(stack, 0) + own
    if drawn != want:
        diff = sorted(set(drawn.items()) ^ set(want.items()))
        fail('the frames draw other paths than %s: %s' % (path, diff[:10]))
    print('svgcheck: the frames draw the %d folded stacks of %s' % (len(want), path))


def parse_fill(fill, what):
    m = re.match(r'rgb\((\d+),(\d+),(\d+)\)$', fill or '')
    if m:
        return tuple(int(v) for v in m.groups())
    if re.match(r'#[0-9a-fA-F]{6}$', fill or ''):
        return tuple(int(fill[i:i + 2], 16) for i in (1, 3, 5))
    fail('%s: fill %r' % (what, fill))


def check_png(path, fs, min_colours, min_w=20):
    w, h, rows = png_pixels(path)
    colours = {p for row in rows for p in row}
    print('svgcheck: %s is %dx%d with %d colours' % (path, w, h, len(colours)))
    if len(colours) < min_colours:
        fail('%s has %d colours: blank' % (path, len(colours)))
    checked = 0
    for f in fs:
        if f['w'] < min_w:
            continue
        x, y = int(f['x'] + f['w'] / 2), int(f['y']) + 1
        if not (0 <= x < w and 0 <= y < h):
            fail('frame %s at %d,%d is outside the %dx%d PNG' % (f['name'], x, y, w, h))
        got = rows[y][x]
        if any(abs(a - b) > 2 for a, b in zip(got, f['fill'])):
            fail('frame %s: the pixel at %d,%d is rgb%s, its fill rgb%s' %
                 (f['name'], x, y, got, f['fill']))
        checked += 1
    if not checked:
        fail('no frame %d pixels wide to look at in %s' % (min_w, path))
    print('svgcheck: %d frames drawn in their fill colour' % checked)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('file')
    ap.add_argument('--total', type=int)
    ap.add_argument('--frame', action='append', default=[])
    ap.add_argument('--frames', type=int)
    ap.add_argument('--script', action='store_true')
    ap.add_argument('--cells', type=int)
    ap.add_argument('--cells-max', type=int)
    ap.add_argument('--geometry', action='store_true')
    ap.add_argument('--folded')
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
    if a.geometry or a.folded or (a.png and frames):
        fs, base = check_geometry(root, frames, total)
        if a.folded:
            check_folded(fs, base, a.folded)
    if a.png:
        cells = [r for r in root.iter(NS + 'rect') if r.get('class') == 'c']
        if frames:
            check_png(a.png, fs, a.min_colours)
        elif cells:
            # a heat map's cells as frames: each drawn in its fill colour at its centre
            fs = [dict(name=c.find(NS + 'title').text, x=float(c.get('x')),
                       y=float(c.get('y')) + float(c.get('height')) / 2 - 1,
                       w=float(c.get('width')), fill=parse_fill(c.get('fill'), 'cell'))
                  for c in cells if float(c.get('height')) >= 6]
            check_png(a.png, fs, a.min_colours, 3)
        else:
            w, h, rows = png_pixels(a.png)
            n = len({p for row in rows for p in row})
            print('svgcheck: %s is %dx%d with %d colours' % (a.png, w, h, n))
            if n < a.min_colours:
                fail('%s has %d colours: blank' % (a.png, n))
    return 0


if __name__ == '__main__':
    sys.exit(main())
