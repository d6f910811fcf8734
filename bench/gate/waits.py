#!/usr/bin/env python3
"""waits.py RESULTS.jsonl SAMPLES: the study's load waits against the samples.

For each phase that waited for the load (wait_s of 1 s or more), from the
samples bench/gate/sample.py wrote while the study ran: the load at the
wait's start and end; how long before the gate opened the machine had
been quiet (the CPUs under 5 % busy and under 1 % in iowait over the 5
samples before); after how long PSI's cpu and io avg10 were both under
1 %; and the io stall (PSI "some") during the wait. Then the sums.
"""
import datetime
import json
import sys


def ts(s):
    s = s.replace("Z", "")
    if "." in s:
        a, b = s.split(".")
        s = a + "." + b[:6]
    return datetime.datetime.fromisoformat(s).replace(tzinfo=datetime.timezone.utc).timestamp()


def main():
    recs = [json.loads(line) for line in open(sys.argv[1])]
    q = [list(map(float, line.split())) for line in open(sys.argv[2])]
    tot = dict(waits=0, wait_s=0.0, quiet_s=0.0)
    for r in recs:
        w = r.get("wait_s") or 0
        if w < 1 or not r.get("started"):
            continue
        end = ts(r["started"])
        start = end - w
        rows = [x for x in q if start <= x[0] <= end]
        if len(rows) < 6:
            continue
        quiet_at = psi_at = None
        for k in range(5, len(rows)):
            span = (rows[k][0] - rows[k - 5][0]) * 100 * 2  # jiffies of both CPUs
            busy = (rows[k][8] - rows[k - 5][8]) / span
            iowait = (rows[k][9] - rows[k - 5][9]) / span
            if quiet_at is None and busy < 0.05 and iowait < 0.01:
                quiet_at = rows[k][0]
            if psi_at is None and rows[k][2] < 1 and rows[k][4] < 1:
                psi_at = rows[k][0]
        tot["waits"] += 1
        tot["wait_s"] += w
        tot["quiet_s"] += end - quiet_at if quiet_at else 0
        print("%-14s %-6s wait %5.1f s, load %.2f -> %.2f, quiet %s s before it ended, PSI avg10 under 1 %% after %s s, io stall %.1f s"
              % (r.get("variant"), r["phase"], w, rows[0][1], rows[-1][1],
                 None if quiet_at is None else round(end - quiet_at, 1),
                 None if psi_at is None else round(psi_at - start, 1), (rows[-1][5] - rows[0][5]) / 1e6))
    print("%d waits, %.1f s; the machine was quiet for %.1f s of them" % (tot["waits"], tot["wait_s"], tot["quiet_s"]))


if __name__ == "__main__":
    main()
