#!/usr/bin/env python3
"""pairs.py VARIANT FIGURE OLD1,OLD2,... NEW1,NEW2,...: a change, study by study.

For studies made in turn with two builds (old-1, new-1, old-2, ...), each
study's value of a figure is the median over its open runs of each run's
median (FIGURE: open_ms, total_ms, or any list of an open record); it
prints new over old for each pair of studies, their median and how many
pairs got slower. `manydb compare` pools the runs of every study, which
treats runs of one study as independent; pairs of studies do not.
"""
import gzip
import json
import statistics
import sys


def study_value(path, variant, figure):
    f = gzip.open(path, "rt") if path.endswith(".gz") else open(path)
    with f:
        runs = [statistics.median(r[figure]) for r in map(json.loads, f)
                if r["phase"] == "open" and r.get("variant") == variant and r.get("status") == "ok" and r.get(figure)]
    if not runs:
        sys.exit("%s: no open run of %s with %s" % (path, variant, figure))
    return statistics.median(runs)


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    variant, figure = sys.argv[1], sys.argv[2]
    olds, news = sys.argv[3].split(","), sys.argv[4].split(",")
    if len(olds) != len(news):
        sys.exit("as many old studies as new ones, in the order made")
    ratios = [study_value(n, variant, figure) / study_value(o, variant, figure) for o, n in zip(olds, news)]
    print("%s %s new/old per pair: %s; median %.3f; slower in %d of %d"
          % (variant, figure, " ".join("%.3f" % x for x in ratios), statistics.median(ratios), sum(x > 1 for x in ratios), len(ratios)))


main()
