#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""Writes a copy of a perf.data file with its samples moved before its side band.

    perfdata_samples_first.py IN OUT

perf record writes each CPU's ring buffer in turn, so a file's records are
in time order per CPU only: a thread's sample taken on one CPU may come in
the file before the MMAP2 record, written from another CPU's buffer, of the
code it ran.  perf sorts the records by time before it reads them (its
ordered events).  This copy takes that to its end: every PERF_RECORD_SAMPLE,
in its order, goes right before the first MMAP, COMM, FORK, EXIT or MMAP2
record, and the records keep their bytes and times, so perf script reads
the copy as it reads IN.  A reader that applies the side band in file order
meets each sample before the process that took it.
"""
import struct
import sys

SAMPLE = 9
SIDEBAND = {1, 3, 4, 7, 10}  # MMAP, COMM, EXIT, FORK, MMAP2


def main():
    src, dst = sys.argv[1], sys.argv[2]
    with open(src, 'rb') as f:
        data = bytearray(f.read())
    if data[:8] != b'PERFILE2':
        sys.exit(f'{src}: not a perf.data file (PERFILE2)')
    # struct perf_file_header: magic, size, attr_size, attrs, data {offset, size}, ...
    off, size = struct.unpack_from('<QQ', data, 40)
    recs, at = [], off
    while at < off + size:
        rtype, _, rsize = struct.unpack_from('<IHH', data, at)
        if rsize < 8 or at + rsize > off + size:
            sys.exit(f'{src}: a record at {at:#x} runs past the data section')
        recs.append((rtype, bytes(data[at:at + rsize])))
        at += rsize
    first = next((i for i, r in enumerate(recs) if r[0] in SIDEBAND), len(recs))
    samples = [r for r in recs if r[0] == SAMPLE]
    rest = [r for r in recs if r[0] != SAMPLE]
    first = sum(1 for r in recs[:first] if r[0] != SAMPLE)
    out = rest[:first] + samples + rest[first:]
    data[off:off + size] = b''.join(r[1] for r in out)
    with open(dst, 'wb') as f:
        f.write(data)
    print(f'{len(samples)} samples moved before {len(rest) - first} other records')


if __name__ == '__main__':
    main()
