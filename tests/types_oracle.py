#!/usr/bin/env python3
"""ldlat-top --by type and --by srcline against tools that are not ldlat.

    types_oracle.py type TOP.json PERF.data BINARY [--dso NAME] [--nodebug]
    types_oracle.py srcline TOP.json PERF.data
    types_oracle.py annotate TOP.json PERF.data BINARY FUNC
    types_oracle.py pahole TOP.json PERF.data BINARY [--least N]
    types_oracle.py pprof PROFILE PERF.data BINARY [--dso NAME] [--nodebug]
    types_oracle.py c2c C2C.json PERF.data BINARY TYPE ADDRESS [--text C2C.txt] [--same]
    types_oracle.py annotype TOP.json PERF.data BINARY TYPE [--text TOP.txt]

TOP.json is ldlat-top --format json -n 0 of PERF.data's samples (its
--input, or a live run of the same program when PERF.data is perf record's
of it).  perf script gives each sample's instruction address and file
(PERF_RECORD_MMAP2 records turn it into the file's own address); objdump -dl
of BINARY (the one with debug info: for a stripped NAME, the file it was
stripped from) gives the instruction and source line there; the line's
comment "type: struct conn.rx_bytes" gives the label expected; pahole gives
the offsets of that member, which the row's offset must fall in.

type: every label of the program's comments has exactly the samples perf
recorded on the lines that carry it, each at a store objdump decodes with a
memory destination.  --nodebug: NAME has no debug info: none of those
labels appears, and the untyped "no debug info" samples are at least
perf's samples in NAME.

srcline: the rows by source line, summed by base name and line, are perf
script's srcline field's (addr2line's) for every user-space sample, where
llvm-dwarfdump --lookup agrees with perf (it settles where they differ); and
rows whose code addr2line -i says was inlined name "func (inlined)".
annotate: ldlat-top --annotate FUNC's rows are objdump's instructions of
FUNC, each with the samples perf recorded at it, and a sampled store's
label is its line's comment.
pahole: a real program's rows (no comments to read): each row of a struct,
union or class of BINARY's has its offset inside the member pahole places
there (--least rows at least, default 2).
pprof: PROFILE is ldlat-top --format pprof of PERF.data's samples, read by
go tool pprof -raw: its samples summed by their labels type and member
("struct outer" and "in.x" are the row "struct outer.in.x") are checked as
type checks the rows (no offsets: a label has none); and every sample but
a lost path's carries a type or an untyped label.
c2c: C2C.json is ldlat-c2c --all -n 0 --format json of PERF.data's
samples (or of a live run of the program perf recorded); struct TYPE of
BINARY lies at ADDRESS in the program.  Each sample perf script gives in
that struct is on its line (the line size glibc's sysconf gives, as perf
c2c takes it) in a Pareto entry of the same process, offset and code
address, with perf's count; its data is struct TYPE and the member pahole
places at the sample's address less ADDRESS, with its offset in that
member.  --text: ldlat-c2c's text of the same samples names those members
at those offsets in the line's "data:" line.  --same: C2C.json counted
exactly perf's samples (--input): its untyped "kernel code" samples are
perf's samples at kernel addresses, and the typed and untyped samples sum
to every sample.
annotype: TOP.json is ldlat-top --annotate-type TYPE --format json: its
block of BINARY is pahole's layout of TYPE (pahole -C of it and of each
struct, union or class member and base class in turn: every member's
offset from the type's start, size, name and type, in pahole's order and
nesting), and each member's samples are those perf recorded on stores
whose line's comment names a member of TYPE at an offset inside it (the
labelled member's offset by pahole; for an array member, the displacement
objdump shows in the store): a parent holds its members'.  --text: the text
of the same run has the block's header and a line per member with the
same samples, offset and size.
Prints what it compared; exit status 0 when all agree, 1 otherwise.
"""
import collections
import json
import os
import re
import subprocess
import sys


def run(*argv):
    return subprocess.run(argv, check=True, capture_output=True, text=True).stdout


def perf_samples(perf_data, srcline=False):
    """[(pid, ip, dso path, file offset or None, srcline)] with the mappings perf recorded.

    srcline: 'file:line' as perf script prints it (srcline=True), None where
    perf knows no line (it writes an address, or DSO[offset]) or not asked.
    """
    maps = collections.defaultdict(list)
    out = []
    mm = re.compile(r'^\s*(\d+)\s+PERF_RECORD_MMAP2? [-\d]+/\d+: \[0x([0-9a-f]+)\(0x([0-9a-f]+)\) '
                    r'@ (0x[0-9a-f]+|0)\b.*\]: (\S+) (.*)$')
    fields = 'pid,ip,dso,srcline' if srcline else 'pid,ip,dso'
    lines = run('perf', 'script', '-i', perf_data, '--show-mmap-events', '-F', fields).splitlines()
    for i, line in enumerate(lines):
        m = mm.match(line)
        if m:
            pid, start, length, pgoff, prot, path = m.groups()
            maps[int(pid)].append((int(start, 16), int(length, 16), int(pgoff, 16), path))
            continue
        m = re.match(r'^\s*(\d+)\s+([0-9a-f]+) \((.*)\)$', line)
        if not m:
            continue
        pid, ip, dso = int(m.group(1)), int(m.group(2), 16), m.group(3)
        off = None
        for start, length, pgoff, path in maps[pid]:
            if start <= ip < start + length and path == dso:
                off = ip - start + pgoff
        src = lines[i + 1].strip() if srcline and i + 1 < len(lines) else ''
        out.append((pid, ip, dso, off, src if re.match(r'^[^\s\[]+:[1-9]\d*$', src) else None))
    return out


def debug_file(path):
    """The file with path's DWARF: itself, or the one under /usr/lib/debug by its build ID."""
    if '.debug_info' in run('readelf', '-SW', path):
        return path
    m = re.search(r'Build ID: ([0-9a-f]+)', run('readelf', '-n', path))
    if m:
        d = f'/usr/lib/debug/.build-id/{m.group(1)[:2]}/{m.group(1)[2:]}.debug'
        if os.path.exists(d):
            return d
    return None


def llvm_line(path, vaddr):
    """'file:line' of vaddr in path by llvm-dwarfdump --lookup (base name), or None."""
    d = debug_file(path)
    if not d:
        return None
    out = run('llvm-dwarfdump', f'--lookup={vaddr:#x}', d)
    m = re.search(r"Line info: file '([^']+)', line (\d+)", out)
    return f'{os.path.basename(m.group(1))}:{m.group(2)}' if m else None


def file_vaddr(binary, off):
    """The p_vaddr of file offset off, from readelf's PT_LOAD headers."""
    for line in run('readelf', '-lW', binary).splitlines():
        f = line.split()
        if f and f[0] == 'LOAD':
            o, v, sz = int(f[1], 16), int(f[2], 16), int(f[4], 16)
            if o <= off < o + sz:
                return off - o + v
    return None


def objdump_lines(binary):
    """{address: (source file, line, instruction text)} from objdump -dl."""
    insns = {}
    src = None
    for line in run('objdump', '-dlw', '--no-show-raw-insn', binary).splitlines():
        m = re.match(r'^(/\S+|\S+\.\w+):(\d+)( \(discriminator \d+\))?$', line)
        if m:
            src = (m.group(1), int(m.group(2)))
            continue
        m = re.match(r'^\s+([0-9a-f]+):\s+(.*)$', line)
        if m and src:
            insns[int(m.group(1), 16)] = (src[0], src[1], m.group(2).strip())
        elif re.match(r'^[0-9a-f]+ <', line):
            src = None
    return insns


def comment_label(path, lineno, cache={}):
    if path not in cache:
        with open(path) as f:
            cache[path] = f.read().splitlines()
    m = re.search(r'/\* type: (.*?) \*/', cache[path][lineno - 1])
    return m.group(1) if m else None


def pahole_members(binary, tname, cache={}):
    """[(name, type, offset, size)] of tname's members (base classes as '<ancestor>' rows)."""
    key = (binary, tname)
    if key in cache:
        return cache[key]
    members, stack = [], []
    text = run('pahole', '-C', tname, binary)
    for line in text.splitlines()[1:]:
        s = line.strip()
        m = re.match(r'^/\* (?:class|struct) (\S+)\s+<ancestor>; \*/\s+/\*\s+(\d+)\s+(\d+) \*/', s)
        if m:
            members.append(('<ancestor>', m.group(1), int(m.group(2)), int(m.group(3))))
            continue
        if re.match(r'^(struct|union) \{$', s):
            stack.append(len(members))
            continue
        m = re.match(r'^\} (\w+);\s+/\*\s+(\d+)\s+(\d+) \*/', s)
        if m and stack:
            first = stack.pop()
            inner = members[first:]
            del members[first:]
            off = int(m.group(2))
            members.append((m.group(1), None, off, int(m.group(3))))
            members.extend((m.group(1) + '.' + n, t, off + o, z) for n, t, o, z in inner)
            continue
        m = re.match(r'^(.*?)\s+(\w+)(\[\d+\])*;\s+/\*\s+(\d+)\s+(\d+) \*/', s)
        if m:
            members.append((m.group(2), m.group(1).strip(), int(m.group(4)), int(m.group(5))))
    cache[key] = members
    return members


def member_range(binary, tname, path):
    """pahole's [offset, offset + size) of member path ("in.x") of tname."""
    first, _, rest = path.partition('.')
    for name, t, off, size in pahole_members(binary, tname):
        if name == path:
            return off, off + size
        if name == first and rest and t and re.match(r'^(struct|union|class) ', t):
            lo, hi = member_range(binary, t.split(' ', 1)[1], rest)
            return off + lo, off + hi
    for name, t, off, size in pahole_members(binary, tname):
        if name == '<ancestor>':
            try:
                lo, hi = member_range(binary, t, path)
                return off + lo, off + hi
            except KeyError:
                pass
    raise KeyError(f'{tname} has no member {path} (pahole)')


def check_type(top, perf_data, binary, dso, nodebug):
    rows = {r['label']: r for r in top['types']['rows']}
    untyped = top['types']['untyped_samples']
    samples = perf_samples(perf_data)
    insns = objdump_lines(binary)
    mine = [s for s in samples if os.path.basename(s[2]) == dso]
    ok = True
    if not mine:
        print(f'perf recorded no sample in {dso}')
        return False
    if nodebug:
        labels = {comment_label(f, l) for f, l, _ in insns.values() if os.path.exists(f)}
        labels.discard(None)
        typed = sorted(set(rows) & labels)
        nd = untyped.get('no debug info', 0)
        # the others without debug info: where perf knows no source line either
        lineless = sum(1 for s in perf_samples(perf_data, True)
                       if os.path.basename(s[2]) not in (dso, '[kernel.kallsyms]') and not s[4])
        print(f'{dso}: {len(mine)} samples by perf, {lineless} elsewhere on no line; '
              f'ldlat-top: {nd} untyped for no debug info; '
              f'labels of the program in the rows: {typed or "none"}')
        return not typed and len(mine) <= nd <= len(mine) + lineless
    expect = collections.Counter()
    for _, _, _, off, _ in mine:
        va = file_vaddr(binary, off) if off is not None else None
        if va not in insns:
            continue
        f, l, text = insns[va]
        label = comment_label(f, l) if os.path.exists(f) else None
        if not label:
            continue
        # a store: objdump's last operand is the memory destination
        if not re.search(r',\s*(-?0x[0-9a-f]+)?\(%\w+(,%\w+,\d)?\)$', text) and \
           not re.search(r',\s*-?0x[0-9a-f]+\(%rip\)', text):
            print(f'{label}: the sample at {va:#x} is "{text}", not a store (objdump)')
            ok = False
        expect[label] += 1
    for label in sorted(expect):
        r = rows.get(label)
        got = r['samples'] if r else 0
        verdict = 'ok' if got == expect[label] else 'DIFFERS'
        line = f'{label}: perf+objdump {expect[label]}, ldlat-top {got} {verdict}'
        if got != expect[label]:
            ok = False
        if r and 'offset' in r:
            tname, _, member = label.partition('.')
            lo, hi = member_range(binary, tname.split(' ', 1)[1], member)
            inside = r['offset'] is not None and lo <= r['offset'] < hi
            line += f'; offset {r["offset"]} in pahole\'s [{lo}, {hi}) {"ok" if inside else "NO"}'
            ok = ok and inside
        print(line)
    if not expect:
        print('no sample on a line with a type comment')
        ok = False
    return ok


def pprof_types(profile):
    """The profile's samples as type rows: {'rows': [{label, samples}], 'untyped_samples': {why: n}}.

    go tool pprof -raw prints each sample's values (samples/count first) and
    then its labels, "key:[value]" each ("member:[slots[].len]" too).
    """
    rows, untyped = collections.Counter(), collections.Counter()
    unlabelled = 0
    samples = []
    for line in run('go', 'tool', 'pprof', '-raw', profile).split('Mappings')[0].splitlines():
        m = re.match(r'^\s+(\d+)(?: \d+)*: [\d ]*$', line)
        if m:
            samples.append([int(m.group(1)), {}])
        elif samples and ':[' in line:
            samples[-1][1].update(re.findall(r'(\w+):\[(.*?)\](?= \w+:\[|\s*$)', line.strip()))
    for n, labels in samples:
        if 'type' in labels:
            member = labels.get('member')
            sep = ' ' if member and member[0] in '+-' else '.'
            rows[labels['type'] + (sep + member if member else '')] += n
        elif 'untyped' in labels:
            untyped[labels['untyped']] += n
        elif 'lost' not in labels:
            unlabelled += n
    print(f'pprof: {sum(n for n, _ in samples)} samples, {sum(rows.values())} typed, '
          f'{sum(untyped.values())} untyped, {unlabelled} with neither label')
    return {'types': {'rows': [{'label': k, 'samples': v} for k, v in rows.items()],
                      'untyped_samples': dict(untyped)}}, unlabelled == 0


def addr2line_inlined(path, vaddrs):
    """{vaddr: number of frames addr2line -i gives} for vaddrs of path."""
    if not vaddrs:
        return {}
    out = run('addr2line', '-i', '-f', '-a', '-e', path, *[f'{v:#x}' for v in vaddrs])
    frames, cur = {}, None
    lines = out.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith('0x'):
            cur = int(lines[i], 16)
            frames[cur] = 0
            i += 1
            continue
        frames[cur] += 1
        i += 2
    return frames


def check_srcline(top, perf_data):
    rows = top['srclines']['rows']
    got = collections.Counter()
    inlined = collections.Counter()
    for r in rows:
        if r['kernel']:
            continue
        key = f'{os.path.basename(r["file"])}:{r["line"]}' if r['file'] else '??:0'
        got[key] += r['samples']
        if r['function'].endswith(' (inlined)'):
            inlined[key] += r['samples']
    samples = [s for s in perf_samples(perf_data, True) if s[2] != '[kernel.kallsyms]']
    want = collections.Counter(s[4] or '??:0' for s in samples)
    # Where the two differ, a second reader of the line table settles which
    # file a line is of: binutils (perf's addr2line) names the unit's file
    # for some lines of a header in DWARF 5 tables, where llvm-dwarfdump and
    # gdb name the header
    for key in sorted(set(got) | set(want)):
        if got[key] == want[key] or key == '??:0':
            continue
        for s in samples:
            if s[4] != key or s[3] is None or not s[2].startswith('/'):
                continue
            va = file_vaddr(s[2], s[3])
            other = llvm_line(s[2], va) if va is not None else None
            if other and other != key:
                print(f'{os.path.basename(s[2])} {va:#x}: perf {key}, llvm-dwarfdump {other}')
                want[key] -= 1
                want[other] += 1
    ok = True
    for key in sorted(set(got) | set(want)):
        if got[key] != want[key]:
            print(f'{key}: perf and llvm-dwarfdump {want[key]}, ldlat-top {got[key]} DIFFERS')
            ok = False
    print(f'{sum(want.values())} user samples on {len(want)} lines by perf; '
          f'{"the same" if ok else "not the same"} by ldlat-top')
    # inlined: addr2line -i on each sample of each file perf saw
    byfile = collections.defaultdict(list)
    for _, _, dso, off, _ in samples:
        if off is not None and dso.startswith('/'):
            va = file_vaddr(dso, off)
            if va is not None:
                byfile[dso].append(va)
    deep = collections.Counter()
    for dso, vas in byfile.items():
        frames = addr2line_inlined(dso, sorted(set(vas)))
        for va in vas:
            if frames.get(va, 0) > 1:
                deep[dso] += 1
    print(f'samples in inlined code by addr2line -i: {sum(deep.values())}; '
          f'in rows named "(inlined)" by ldlat-top: {sum(inlined.values())}')
    return ok and sum(deep.values()) == sum(inlined.values())


def check_annotate(top, perf_data, binary, func):
    """--annotate FUNC's rows against objdump's instructions of FUNC and perf's samples."""
    ann = top['annotate']
    dso = os.path.basename(binary)
    m = re.search(r'^([0-9a-f]+) <' + re.escape(func) + r'>:\n((?:\s+[0-9a-f]+:.*\n)+)',
                  run('objdump', '-dwC', '--no-show-raw-insn', binary), re.M)
    # the function's extent by its symbol (nm): objdump also lists the padding after it
    sym = [ln.split() for ln in run('nm', '-SC', binary).splitlines()
           if ln.split(None, 3)[3:] == [func]]
    if not m or not sym:
        print(f'objdump or nm has no function {func}')
        return False
    lo, size = int(sym[0][0], 16), int(sym[0][1], 16)
    want_addrs = [int(x, 16) for x in re.findall(r'^\s+([0-9a-f]+):', m.group(2), re.M)
                  if lo <= int(x, 16) < lo + size]
    got_addrs = [int(r['address'], 16) for r in ann['rows']]
    ok = want_addrs == got_addrs
    print(f'{func}: {len(want_addrs)} instructions by objdump, {len(got_addrs)} by ldlat-top: '
          f'{"the same addresses" if ok else "NOT the same addresses"}')
    insns = objdump_lines(binary)
    per_ip = collections.Counter()
    for _, _, path, off, _ in perf_samples(perf_data):
        if os.path.basename(path) == dso and off is not None:
            va = file_vaddr(binary, off)
            if va in want_addrs:
                per_ip[va] += 1
    for r in ann['rows']:
        a = int(r['address'], 16)
        if r['samples'] != per_ip[a]:
            print(f'{a:#x}: perf {per_ip[a]} samples, ldlat-top {r["samples"]} DIFFERS')
            ok = False
        if per_ip[a] and a in insns:
            f, l, _ = insns[a]
            label = comment_label(f, l) if os.path.exists(f) else None
            if label and label != r['label']:
                print(f'{a:#x}: line {l} says {label}, ldlat-top {r["label"]} DIFFERS')
                ok = False
            elif label:
                print(f'{a:#x}: {per_ip[a]} samples, {label} ok')
    if ann['samples'] != sum(per_ip.values()):
        print(f'the function: perf {sum(per_ip.values())}, ldlat-top {ann["samples"]} DIFFERS')
        ok = False
    return ok


def check_pahole(top, binary, least):
    """Each typed row of a type of BINARY's (pahole -C finds it): its offset is in the member's."""
    checked, ok = 0, True
    for r in top['types']['rows']:
        t, member, off = r['type'], r['member'], r['offset']
        if not t or not member or off is None or not re.match(r'^(struct|union|class) ', t):
            continue
        name = t.split(' ', 1)[1]
        if not run('pahole', '-C', name, binary).strip():
            continue  # a type of another file's (the C library's)
        try:
            lo, hi = member_range(binary, name, member.replace('[]', ''))
        except KeyError as e:
            print(f'{r["label"]}: {e}')
            ok = False
            continue
        good = lo <= off < hi
        print(f'{r["label"]}: {r["samples"]} samples, offset {off} in pahole\'s [{lo}, {hi}) '
              f'{"ok" if good else "NO"}')
        ok = ok and good
        checked += 1
    t = top['types']
    print(f'typed: {t["typed_samples"]} of {t["samples"]} samples; {checked} rows of '
          f'{os.path.basename(binary)}\'s types checked')
    return ok and checked >= least


def c2c_samples(perf_data):
    """[(pid, tid, data address, ip)] of perf script."""
    out = []
    for line in run('perf', 'script', '-i', perf_data, '-F', 'pid,tid,addr,ip').splitlines():
        m = re.match(r'^\s*(\d+)/(\d+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s*$', line)
        if m:
            out.append((int(m.group(1)), int(m.group(2)), int(m.group(3), 16), int(m.group(4), 16)))
    return out


def member_at(binary, tname, off):
    """The innermost member of struct tname at byte off ("in.x"), by pahole; None in a hole."""
    best = None
    for name, _, moff, size in pahole_members(binary, tname):
        if name != '<ancestor>' and moff <= off < moff + size and (not best or len(name) > len(best)):
            best = name
    return best


def check_c2c(c2c, perf_data, binary, tname, base, text, same):
    ls = int(run('getconf', 'LEVEL1_DCACHE_LINESIZE').strip() or 0) or 64
    size = int(re.search(r'/\* size: (\d+)', run('pahole', '-C', tname, binary)).group(1))
    samples = c2c_samples(perf_data)
    want = collections.Counter()
    for pid, _, addr, ip in samples:
        if base <= addr < base + size:
            want[(pid, addr & ~(ls - 1), addr & (ls - 1), ip, member_at(binary, tname, addr - base))] += 1
    lines = {(l.get('pid'), l['address'] & ~(ls - 1)): l for l in c2c['shared_lines']}
    ok = bool(want)
    if not want:
        print(f'perf recorded no sample in struct {tname} at {base:#x}')
    for (pid, line, off, ip, member), n in sorted(want.items()):
        l = lines.get((pid, line))
        ents = [e for e in (l['pareto'] if l else []) if e['offset'] == off and e['ip'] == ip and
                e['pid'] == pid]
        d = ents[0]['data'] if len(ents) == 1 else None
        good = d is not None and ents[0]['records'] == n and d['type'] == f'struct {tname}' and \
            d['member'] == member
        if good:
            lo, hi = member_range(binary, tname, member)
            good = d['offset'] is not None and lo <= d['offset'] < hi
        print(f'line {line:#x} +{off:#x} ip {ip:#x}: perf {n} samples in struct {tname}.{member}; '
              f'ldlat-c2c {[(e["records"], e["data"]["label"], e["data"]["offset"]) for e in ents]} '
              f'{"ok" if good else "NO"}')
        ok = ok and good
    if text:
        with open(text) as f:
            txt = f.read()
        for pid, line in sorted({(k[0], k[1]) for k in want}):
            m = re.search(rf'^#\d+ {line:#x}  PID {pid}  .*\n  data: (.*)$', txt, re.M)
            names = {f'struct {tname}.{k[4]} ({k[2]:#x})' for k in want if k[:2] == (pid, line)}
            good = bool(m) and all(x in m.group(1).split(', ') for x in names)
            print(f'text, line {line:#x}: data: {m.group(1) if m else None}; perf and pahole: '
                  f'{sorted(names)} {"ok" if good else "NO"}')
            ok = ok and good
    if same:
        kernel = sum(1 for s in samples if s[3] >= 0xffff800000000000)
        untyped = c2c['untyped_samples']
        entries = sum(e['records'] for l in c2c['shared_lines'] for e in l['pareto'])
        good = untyped.get('kernel code', 0) == kernel and \
            c2c['typed_samples'] + sum(untyped.values()) == entries == len(samples)
        print(f'samples: perf {len(samples)}, {kernel} in the kernel; ldlat-c2c: typed '
              f'{c2c["typed_samples"]}, untyped {untyped}, in entries {entries} {"ok" if good else "NO"}')
        ok = ok and good
    return ok


def pahole_tree(binary, tname, base=0, depth=1):
    """pahole -C tname's members as a tree: [(name, type, offset from the outermost, size, children)]."""
    text = run('pahole', '-C', tname, binary)
    top, stack = [], []
    cur = top
    for line in text.splitlines()[1:]:
        s = line.strip()
        m = re.match(r'^/\* ((?:class|struct) (\S+))\s+<ancestor>; \*/\s+/\*\s+(\d+)\s+(\d+) \*/', s)
        if m:
            off = base + int(m.group(3))
            cur.append((None, m.group(1), off, int(m.group(4)),
                        pahole_tree(binary, m.group(2), off, depth + 1)))
            continue
        m = re.match(r'^(struct|union) \{$', s)
        if m:
            stack.append((cur, m.group(1)))
            cur = []
            continue
        m = re.match(r'^\} (\w+);\s+/\*\s+(\d+)\s+(\d+) \*/', s)
        if m and stack:
            inner = cur
            cur, kind = stack.pop()
            off = int(m.group(2))
            # pahole writes an inline member's offsets from its own start
            def shift(nodes, by):
                return [(n, t, o + by, z, shift(c, by)) for n, t, o, z, c in nodes]
            cur.append((m.group(1), f'{kind} (anonymous)', base + off, int(m.group(3)),
                        shift(inner, base + off - base)))
            continue
        m = re.match(r'^(.*?)\s+(\w+)((?:\[\d+\])*);\s+/\*\s+(\d+)\s+(\d+) \*/', s)
        if m:
            t, dims = m.group(1).strip(), m.group(3)
            off = base + int(m.group(4))
            kids = []
            km = re.match(r'^(struct|union|class) (\S+)$', t)
            if km and not dims and depth < 16:
                kids = pahole_tree(binary, km.group(2), off, depth + 1)
            cur.append((m.group(2), t + dims, off, int(m.group(5)), kids))
    return top


def flatten(nodes, depth=1):
    for n, t, o, z, c in nodes:
        yield n, t, o, z, depth
        yield from flatten(c, depth + 1)


def check_annotype(top, perf_data, binary, tname, text):
    """--annotate-type TYPE's block of BINARY: pahole's layout, perf's samples per member."""
    ann = top['annotate_type']
    dso = os.path.basename(binary)
    blocks = [b for b in ann['blocks'] if os.path.basename(b['dso']) == dso]
    if len(blocks) != 1:
        print(f'{len(blocks)} blocks of {dso} in ldlat-top\'s answer, not one')
        return False
    blk = blocks[0]
    tree = pahole_tree(binary, tname.split(' ', 1)[1])
    m = re.search(r'/\* size: (\d+)', run('pahole', '-C', tname.split(' ', 1)[1], binary))
    # pahole says no size of a union: its largest member's
    size = int(m.group(1)) if m else max(o + z for _, _, o, z, _ in tree)
    want = [(None, tname, 0, size, 0)] + list(flatten(tree))

    def walk(m):
        yield m
        for c in m['children']:
            yield from walk(c)
    got = list(walk(blk['members'][0]))
    ok = len(got) == len(want)
    print(f'{tname} in {dso}: {len(want)} members by pahole, {len(got)} by ldlat-top')
    for (n, t, o, z, d), g in zip(want, got):
        same = (n == g['name'] and o == g['offset'] and z == g['size'] and d == g['depth'] and
                (n is not None or d == 0 or g['base_class'] or 'anonymous' in t) and
                ('anonymous' in t or t == g['type']))
        if not same:
            print(f'  pahole {n} {t} +{o} {z} depth {d}; ldlat-top {g["name"]} {g["type"]} '
                  f'+{g["offset"]} {g["size"]} depth {g["depth"]} DIFFERS')
            ok = False
    # the offsets perf's samples touched, by their lines' labels and pahole
    insns = objdump_lines(binary)
    offsets = []
    for _, _, path, off, _ in perf_samples(perf_data):
        va = file_vaddr(binary, off) if off is not None and os.path.basename(path) == dso else None
        if va not in insns:
            continue
        f, l, itext = insns[va]
        label = comment_label(f, l) if os.path.exists(f) else None
        if not label or label.partition('.')[0] != tname:
            continue
        member = label.partition('.')[2]
        lo, hi = member_range(binary, tname.split(' ', 1)[1], member)
        at = lo
        leaf = [x for x in flatten(pahole_tree(binary, tname.split(' ', 1)[1]))
                if x[2] == lo and x[3] == hi - lo and x[0] == member.split('.')[-1]]
        dm = re.search(r',\s*(0x[0-9a-f]+)\(%(r\w+)\)$', itext)
        if leaf and '[' in leaf[0][1] and dm and dm.group(2) not in ('rsp', 'rbp', 'rip') \
           and lo <= int(dm.group(1), 16) < hi:
            at = int(dm.group(1), 16)
        offsets.append(at)
    print(f'perf: {len(offsets)} samples on lines of {tname}\'s members, at offsets '
          f'{sorted(collections.Counter(offsets).items())}')
    if blk['samples'] != len(offsets) or blk['unplaced_samples']:
        print(f'the block: perf {len(offsets)}, ldlat-top {blk["samples"]} '
              f'({blk["unplaced_samples"]} at no offset) DIFFERS')
        ok = False
    if not offsets:
        ok = False
    for (n, t, o, z, d), g in zip(want, got):
        exp = sum(1 for a in offsets if o <= a < o + z)
        verdict = 'ok' if exp == g['samples'] else 'DIFFERS'
        if exp or g['samples'] or verdict != 'ok':
            print(f'  {"  " * d}{n or t} [+{o}, {z}): perf {exp}, ldlat-top {g["samples"]} {verdict}')
        ok = ok and exp == g['samples']
    if text:
        with open(text) as f:
            lines = f.read().splitlines()
        head = [i for i, x in enumerate(lines)
                if x.startswith(f"Annotate type: '{tname}' in {dso} ({blk['samples']} samples")]
        rows = []
        if head:
            for x in lines[head[0] + 3:]:
                m = re.match(r'^\s*(\d+)\s+[\d.]+%\s+\S+\s+\S+\s+(\d+)\s+(\d+)  ', x)
                if not m:
                    if x.strip() == '};' or x.strip().startswith('};'):
                        continue
                    break
                rows.append(tuple(int(v) for v in m.groups()))
        wantrows = [(g['samples'], g['offset'], g['size']) for g in got]
        tok = bool(head) and rows == wantrows
        print(f'text: header {"found" if head else "MISSING"}, {len(rows)} member lines '
              f'{"the same" if tok else "NOT the same"}')
        ok = ok and tok
    return ok


def main():
    args = sys.argv[1:]
    mode, top_json, perf_data = args[0], args[1], args[2]
    if mode == 'c2c':
        with open(top_json) as f:
            c2c = json.load(f)
        text = args[args.index('--text') + 1] if '--text' in args else None
        return 0 if check_c2c(c2c, perf_data, args[3], args[4], int(args[5], 16), text,
                              '--same' in args) else 1
    if mode == 'annotype':
        with open(top_json) as f:
            top = json.load(f)
        text = args[args.index('--text') + 1] if '--text' in args else None
        return 0 if check_annotype(top, perf_data, args[3], args[4], text) else 1
    labelled = True
    if mode == 'pprof':
        top, labelled = pprof_types(top_json)
    else:
        with open(top_json) as f:
            top = json.load(f)
    if mode == 'srcline':
        return 0 if check_srcline(top, perf_data) else 1
    binary = args[3]
    if mode == 'pahole':
        least = int(args[args.index('--least') + 1]) if '--least' in args else 2
        return 0 if check_pahole(top, binary, least) else 1
    if mode == 'annotate':
        return 0 if check_annotate(top, perf_data, binary, args[4]) else 1
    dso = os.path.basename(binary)
    if '--dso' in args:
        dso = args[args.index('--dso') + 1]
    ok = check_type(top, perf_data, binary, dso, '--nodebug' in args)
    return 0 if ok and labelled else 1


if __name__ == '__main__':
    sys.exit(main())
