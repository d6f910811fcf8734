#!/usr/bin/env python3
"""ab.py A1.jsonl,A2.jsonl B1.jsonl,B2.jsonl: two gates side by side.

Each side is one or more results files (gzipped or not) of the same study made under one
gate (say --gate load, then --gate quiet, run alternately). For each
study: its wall time, how long it waited and before how many phases,
manydb's own share (the end record's budget) and its open runs' spread
(below); a phase counts as waited for when it waited 2.5 s or more (a
quiet gate's one window is 2 s). Then, per variant, the
figures a noisy machine moves most, the median create and the median
warm open, each run's median on its own:
  - steadiness within a study: the largest over the smallest of a
    variant's open runs (its 3 warm runs), a median over the variants;
  - the sides against each other: each variant's median over a side's
    runs, B over A, beside the same ratio between two studies of one side
    (A2 over A1, B2 over B1), which is what noise alone gives.
"""
import gzip
import json
import statistics
import sys


def load(path):
    """The records of a results file, gzipped (.gz) or not."""
    f = gzip.open(path, "rt") if path.endswith(".gz") else open(path)
    with f:
        return [json.loads(line) for line in f]


def study_line(path, recs):
    end = next(r for r in recs if r["phase"] == "end")
    b = end["budget"]
    w = b.get("in_workers") or {}
    engine = b["engine_s"] + w.get("untimed_s", 0)
    waiting = b["wait_s"] + w.get("settle_s", 0) + w.get("release_s", 0)
    own = b["wall_s"] - engine - waiting - b.get("failed_s", 0) - b.get("rebuild_s", 0)
    waited = sum(1 for r in recs if r["phase"] not in ("env", "end") and (r.get("wait_s") or 0) >= 2.5)
    gate = next(r for r in recs if r["phase"] == "env")["config"].get("gate", "load")
    spread = statistics.median(max(v) / min(v) for k, v in medians(recs).items() if k[1] == "open")
    print("%-22s gate %-5s wall %5.0f s, waited %5.1f s (2.5 s or more before %3d phases), own %5.1f s (%.2f %%), open runs' spread %.3f"
          % (path.split("/")[-1], gate, b["wall_s"], b["wait_s"], waited, own, 100 * own / b["wall_s"], spread))


def medians(recs):
    """{(variant, figure): [median of each run]} for create and warm open."""
    out = {}
    for r in recs:
        if r.get("status") != "ok" or r.get("setting", "default") != "default":
            continue
        if r["phase"] == "create" and r.get("create_ms"):
            out.setdefault((r["variant"], "create"), []).append(statistics.median(r["create_ms"]))
        if r["phase"] == "open" and r.get("open_ms") and r.get("cache", "warm") == "warm":
            out.setdefault((r["variant"], "open"), []).append(statistics.median(r["open_ms"]))
    return out


def side(paths):
    studies = []
    for p in paths:
        recs = load(p)
        study_line(p, recs)
        studies.append(medians(recs))
    return studies


def pooled(studies, key):
    xs = [x for s in studies for x in s.get(key, [])]
    return statistics.median(xs) if xs else None


def main():
    a = side(sys.argv[1].split(","))
    b = side(sys.argv[2].split(","))
    keys = sorted(set(a[0]) & set(b[0]))
    spread = {"A": [], "B": []}
    print("\n%-16s %-6s %9s %9s %7s %7s %7s" % ("variant", "figure", "A ms", "B ms", "B/A", "A2/A1", "B2/B1"))
    ratios = {"B/A": [], "A2/A1": [], "B2/B1": []}
    for k in keys:
        for name, st in (("A", a), ("B", b)):
            if k[1] == "open":
                spread[name] += [max(s[k]) / min(s[k]) for s in st if k in s and min(s[k]) > 0]
        ma, mb = pooled(a, k), pooled(b, k)
        row = [mb / ma]
        ratios["B/A"].append(mb / ma)
        for name, st in (("A2/A1", a), ("B2/B1", b)):
            r = statistics.median(st[1][k]) / statistics.median(st[0][k]) if len(st) > 1 and k in st[1] else float("nan")
            row.append(r)
            ratios[name].append(r)
        print("%-16s %-6s %9.3f %9.3f %7.3f %7.3f %7.3f" % (k[0], k[1], ma, mb, *row))
    print("\nopen runs within a study, largest over smallest, median over variants: A %.3f (%d), B %.3f (%d)"
          % (statistics.median(spread["A"]), len(spread["A"]), statistics.median(spread["B"]), len(spread["B"])))
    for name, rs in ratios.items():
        dev = [abs(r - 1) for r in rs if r == r]
        if not dev:
            continue
        print("%-6s median |ratio - 1| %.3f, largest %.3f" % (name, statistics.median(dev), max(dev)))


if __name__ == "__main__":
    main()
