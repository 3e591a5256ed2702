#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""Checks ldlat --format json output (JSON Lines on stdin) against the schema
documented in README.md ("JSON output").  Prints one line per problem and
exits 1 if there is any; prints "ok N objects" and exits 0 otherwise.
Also checks the arithmetic the schema promises: bucket counts add up to
count, buckets are in order and disjoint, kept = the sum of the histograms'
counts when every range and class is listed."""
import json
import sys

NUM = (int, float)
DROPS = ["fields_missing", "tgid_filtered", "op_filtered", "no_address", "outside_ranges",
         "below_min", "above_max", "class_filtered"]
problems = []


def need(obj, key, types, where, nullable=False):
    if key not in obj:
        problems.append(f"{where}: no '{key}'")
        return None
    v = obj[key]
    if v is None and nullable:
        return None
    if isinstance(v, bool) and bool not in (types if isinstance(types, tuple) else (types,)):
        problems.append(f"{where}.{key}: {v!r} is a boolean")
        return None
    if not isinstance(v, types):
        problems.append(f"{where}.{key}: {v!r} is not {types}")
        return None
    return v


def check_hist(h, where, latency):
    need(h, "range", int, where, nullable=True)
    need(h, "range_name", str, where)
    cls = need(h, "class", str, where, nullable=True)
    name = need(h, "class_name", str, where, nullable=True)
    if (cls is None) != (name is None):
        problems.append(f"{where}: class and class_name must be null together")
    count = need(h, "count", int, where)
    share = need(h, "share", NUM, where)
    if share is not None and not 0 <= share <= 1:
        problems.append(f"{where}.share: {share} not in [0, 1]")
    need(h, "events", int, where)
    need(h, "event_share", NUM, where, nullable=True)
    if not latency:
        for k in ("measured", "unmeasured", "sum", "mean", "min", "max", "percentiles",
                  "buckets"):
            if h.get(k, 0) is not None:
                problems.append(f"{where}.{k}: must be null without latency")
        return
    measured = need(h, "measured", int, where)
    unmeasured = need(h, "unmeasured", int, where)
    if None not in (count, measured, unmeasured) and measured + unmeasured != count:
        problems.append(f"{where}: measured {measured} + unmeasured {unmeasured} != count")
    need(h, "sum", int, where)
    nothing = measured == 0
    need(h, "mean", NUM, where, nullable=nothing)
    lo = need(h, "min", int, where, nullable=nothing)
    hi = need(h, "max", int, where, nullable=nothing)
    pct = need(h, "percentiles", dict, where, nullable=nothing)
    if pct is not None and lo is not None and hi is not None:
        for p in ("p50", "p90", "p99"):
            v = pct.get(p)
            if isinstance(v, NUM) and not lo <= v <= hi:
                problems.append(f"{where}.percentiles.{p}: {v} outside [min {lo}, max {hi}]")
    if pct is not None:
        for p in ("p50", "p90", "p99"):
            need(pct, p, NUM, where + ".percentiles")
        # at_least: those in the open last bucket, whose value is its lower bound
        at_least = need(pct, "at_least", list, where + ".percentiles") or []
        for p in at_least:
            if p not in ("p50", "p90", "p99"):
                problems.append(f"{where}.percentiles.at_least: {p!r}")
            elif not any(b.get("high", 0) is None and b.get("low") <= pct.get(p)
                         for b in h.get("buckets") or []):
                problems.append(f"{where}.percentiles.{p}: in at_least, but not in an open "
                                "last bucket")
        if all(isinstance(pct.get(p), NUM) for p in ("p50", "p90", "p99")) and \
                not pct["p50"] <= pct["p90"] <= pct["p99"]:
            problems.append(f"{where}.percentiles: not in order: {pct}")
    buckets = need(h, "buckets", list, where)
    if buckets is None:
        return
    total, prev_high = 0, -1
    for i, b in enumerate(buckets):
        bw = f"{where}.buckets[{i}]"
        low = need(b, "low", int, bw)
        high = need(b, "high", int, bw, nullable=True)
        n = need(b, "count", int, bw)
        if low is None or n is None:
            continue
        if low <= prev_high:
            problems.append(f"{bw}: low {low} not above the previous high {prev_high}")
        if high is not None and high < low:
            problems.append(f"{bw}: high {high} below low {low}")
        if n <= 0:
            problems.append(f"{bw}: empty buckets are not listed")
        prev_high = high if high is not None else float("inf")
        total += n
    if measured is not None and total != measured:
        problems.append(f"{where}: buckets add up to {total}, measured is {measured}")


def check(o, where):
    for k, t in (("tool", str), ("time", NUM), ("source", str), ("event", str),
                 ("target", str), ("started", NUM), ("latency", bool), ("unit", str),
                 ("buckets", str), ("by", str), ("filters", dict), ("counters", dict),
                 ("histograms", list), ("interval", dict)):
        need(o, k, t, where)
    iv = o.get("interval", {})
    for k in ("start", "end", "seconds"):
        need(iv, k, NUM, where + ".interval")
    if o.get("buckets") not in ("log-linear", "linear"):
        problems.append(f"{where}.buckets: {o.get('buckets')!r}")
    need(o, "bucket_width", int, where, nullable=o.get("buckets") == "log-linear")
    pe = need(o, "percentile_error", dict, where) or {}
    if pe.get("kind") != ("cycles" if o.get("buckets") == "linear" else "relative"):
        problems.append(f"{where}.percentile_error.kind: {pe.get('kind')!r}")
    need(pe, "bound", NUM, where + ".percentile_error")
    if o.get("weighting") not in ("samples", "period"):
        problems.append(f"{where}.weighting: {o.get('weighting')!r}")
    if o.get("by") not in ("class", "range", "both", "none"):
        problems.append(f"{where}.by: {o.get('by')!r}")
    latency = o.get("latency") is True
    f = o.get("filters", {})
    for i, r in enumerate(need(f, "ranges", list, where + ".filters") or []):
        rw = f"{where}.filters.ranges[{i}]"
        need(r, "index", int, rw)
        need(r, "name", str, rw)
        need(r, "spec", str, rw)
        for j, s in enumerate(need(r, "spans", list, rw) or []):
            lo = need(s, "low", str, f"{rw}.spans[{j}]")
            hi = need(s, "high", str, f"{rw}.spans[{j}]")
            if lo and hi and int(lo, 16) >= int(hi, 16):
                problems.append(f"{rw}.spans[{j}]: empty span {lo}-{hi}")
    need(f, "min_latency", int, where + ".filters")
    need(f, "max_latency", int, where + ".filters", nullable=True)
    need(f, "classes", list, where + ".filters", nullable=not latency)
    need(f, "ops", list, where + ".filters", nullable=True)
    c = o.get("counters", {})
    seen = need(c, "seen", int, where + ".counters")
    kept = need(c, "kept", int, where + ".counters")
    need(c, "seen_period", int, where + ".counters")
    u = need(c, "unseen", dict, where + ".counters", nullable=True)
    if u is not None:
        need(u, "samples", int, where + ".counters.unseen")
        need(u, "estimated", bool, where + ".counters.unseen")
        need(u, "lower_bound", bool, where + ".counters.unseen")
        need(u, "method", str, where + ".counters.unseen")
        need(u, "seen", int, where + ".counters.unseen")
        if "unseen_unknown" in c:
            problems.append(f"{where}.counters: unseen_unknown beside a measured unseen")
    elif "unseen_unknown" in c:  # not measured, and why (a pinned set)
        need(c, "unseen_unknown", str, where + ".counters")
    dropped = need(c, "dropped", dict, where + ".counters") or {}
    for k in DROPS:
        need(dropped, k, int, where + ".counters.dropped")
    if seen is not None and kept is not None and \
            all(isinstance(dropped.get(k), int) for k in DROPS) and \
            seen != kept + sum(dropped[k] for k in DROPS):
        problems.append(f"{where}.counters: seen {seen} != kept {kept} + dropped")
    hists = o.get("histograms", [])
    for i, h in enumerate(hists):
        check_hist(h, f"{where}.histograms[{i}]", latency)
    if o.get("by") in ("range", "none") and kept is not None and \
            sum(h.get("count", 0) for h in hists) != kept:
        problems.append(f"{where}: the histograms' counts do not add up to kept {kept}")
    if "split" in o:  # --by pid|tid|cpu|node|cgroup
        sp = need(o, "split", dict, where) or {}
        key = sp.get("key")
        if key not in ("pid", "tid", "cpu", "node", "cgroup", "region"):
            problems.append(f"{where}.split.key: {key!r}")
        for k in ("rows", "rows_used", "others"):
            need(sp, k, int, where + ".split")
        others = 0
        for i, h in enumerate(hists):
            v = h.get(key)
            if not (isinstance(v, int) or v == "others"):
                problems.append(f"{where}.histograms[{i}].{key}: {v!r}")
            if v == "others":
                others += h.get("count", 0)
        if o.get("by") in ("range", "none") and isinstance(sp.get("others"), int) and \
                others != sp["others"]:
            problems.append(f"{where}.split.others: {sp['others']} != the others rows' {others}")
    if "pinned" in o:
        p = o["pinned"]
        need(p, "dir", str, where + ".pinned")
        need(p, "pid", int, where + ".pinned")
        need(p, "detached", bool, where + ".pinned")
        need(p, "owner_dead", bool, where + ".pinned")
        links = need(p, "links", int, where + ".pinned")
        missing = need(p, "links_missing", int, where + ".pinned")
        if links is not None and missing is not None and not 0 <= missing <= links:
            problems.append(f"{where}.pinned: links_missing {missing} not within 0..{links}")
        need(p, "cgroup_removed", str, where + ".pinned", nullable=True)


def main():
    n = 0
    for lineno, line in enumerate(sys.stdin, 1):
        if not line.strip():
            continue
        try:
            o = json.loads(line)
        except json.JSONDecodeError as e:
            problems.append(f"line {lineno}: not JSON: {e}")
            continue
        if not isinstance(o, dict):
            problems.append(f"line {lineno}: not an object")
            continue
        check(o, f"line {lineno}")
        n += 1
    if not n:
        problems.append("no object")
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"ok {n} objects")
    return 0


if __name__ == "__main__":
    sys.exit(main())
