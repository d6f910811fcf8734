#!/usr/bin/env python3
"""sample.py OUT: once a second, what says whether the machine is quiet.

Writes one line a second to OUT: unix time, load1, PSI cpu "some" avg10 and
total (µs), PSI io "some" avg10 and total (µs), Dirty and Writeback (KB),
CPU busy jiffies (user+nice+system+irq+softirq, all CPUs) and iowait
jiffies. Run it beside a study with --max-load; bench/gate/waits.py then
says, for each of the study's waits, when the machine went quiet and when
the load gate let the phase start. Stop it with Ctrl-C.
"""
import sys
import time


def some(path):
    for line in open(path):
        if line.startswith("some"):
            f = dict(x.split("=") for x in line.split()[1:])
            return float(f["avg10"]), int(f["total"])
    raise SystemExit(f"{path}: no some line")


def meminfo():
    dirty = writeback = 0
    for line in open("/proc/meminfo"):
        if line.startswith("Dirty:"):
            dirty = int(line.split()[1])
        elif line.startswith("Writeback:"):
            writeback = int(line.split()[1])
    return dirty, writeback


def cpu():
    v = list(map(int, open("/proc/stat").readline().split()[1:]))
    return v[0] + v[1] + v[2] + v[5] + v[6], v[4]


def main():
    out = open(sys.argv[1], "w")
    while True:
        t = time.time()
        load = float(open("/proc/loadavg").read().split()[0])
        c, i = some("/proc/pressure/cpu"), some("/proc/pressure/io")
        d, w = meminfo()
        busy, iowait = cpu()
        out.write(f"{t:.1f} {load} {c[0]} {c[1]} {i[0]} {i[1]} {d} {w} {busy} {iowait}\n")
        out.flush()
        time.sleep(1)


if __name__ == "__main__":
    main()
