#!/usr/bin/env python3
"""summarize.py - combine several run_foundation.sh report directories.

    bench/summarize.py report/foundation-A report/foundation-B ... > summary.md

For every figure (program, PEs, test, row) it prints the median over runs of
the per-run median, with the min..max of the per-run medians, the same for
the ratio to the run's baseline, and for every target how many runs met it.
"""
import json
import os
import statistics
import sys


def load(dirs):
    runs = []
    for d in dirs:
        for name in sorted(os.listdir(d)):
            if name.endswith(".json"):
                with open(os.path.join(d, name)) as f:
                    runs.append((d, json.load(f)))
    return runs


def fmt(v):
    if v is None:
        return "-"
    a = abs(v)
    if a >= 1000:
        return "%.0f" % v
    if a >= 10:
        return "%.1f" % v
    return "%.3g" % v


def spread(values):
    values = [v for v in values if v is not None]
    if not values:
        return "-", "-"
    med = statistics.median(values)
    return fmt(med), "%s..%s" % (fmt(min(values)), fmt(max(values)))


def main(dirs):
    runs = load(dirs)
    figures = {}
    targets = {}
    raw = {}
    for d, r in runs:
        key0 = (r["program"], r["npes"])
        raw.setdefault(key0, []).append(
            (r["raw_pingpong_one_way_ns"]["before"]["median"],
             r["raw_pingpong_one_way_ns"]["after"]["median"]))
        for row in r["results"]:
            key = key0 + (row["test"], row["row"], row["unit"])
            f = figures.setdefault(key, {"median": [], "ratio": [], "wrong": 0,
                                         "base": [], "base_name": None})
            f["median"].append(row["median"])
            f["ratio"].append(row["ratio"])
            f["wrong"] += row["wrong"]
            if row["baseline"]:
                f["base"].append(row["baseline"]["median"])
                f["base_name"] = row["baseline"]["name"]
        for t in r["targets"]:
            key = key0 + (t["name"],)
            targets.setdefault(key, []).append(t)

    print("| program | PEs | test | row | unit | median | min..max over runs | baseline "
          "(median) | ratio median | ratio min..max | #wrong |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for key in sorted(figures, key=lambda k: (k[0], k[1])):
        f = figures[key]
        m, mm = spread(f["median"])
        rm, rmm = spread(f["ratio"])
        b, _ = spread(f["base"])
        print("| %s | %d | %s | %s | %s | %s | %s | %s %s | %s | %s | %d |" % (
            key[0], key[1], key[2], key[3], key[4], m, mm, f["base_name"] or "", b, rm, rmm,
            f["wrong"]))

    print()
    print("| program | PEs | raw one-way before (median, min..max over runs) | after |")
    print("|---|---|---|---|")
    for key in sorted(raw):
        b = [x[0] for x in raw[key]]
        a = [x[1] for x in raw[key]]
        print("| %s | %d | %s ns (%s) | %s ns (%s) |" % ((key[0], key[1]) + spread(b) +
                                                         spread(a)))

    print()
    print("| target | program | PEs | measured median (min..max) | target | met in runs |")
    print("|---|---|---|---|---|---|")
    for key in sorted(targets):
        ts = targets[key]
        m, mm = spread([t["measured"] for t in ts])
        met = sum(1 for t in ts if t["met"])
        print("| %s | %s | %d | %s %s (%s) | %s %s %s | %d of %d |" % (
            key[2], key[0], key[1], m, ts[0]["unit"], mm, ts[0]["cmp"], fmt(ts[0]["target"]),
            ts[0]["unit"], met, len(ts)))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
