#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""same_report.py REF.json GOT.json [partitions|ranks|steady]: is GOT (a `syncemu run --json`
report) REF's, less what says how the run ran (wall time, frame rate, partitions, lcores, ranks,
windows, what auto chose; with steady, the events run), and (with partitions or ranks) did GOT
really run cut into partitions or over MPI ranks, (with steady) in a steady window?
Prints "same" or "differs: WHY"; exits 0 for same, 1 else."""
import json
import sys

HOW = {"wall_s", "mframes_per_s", "partitions", "lcores", "ranks", "windows", "lookahead_ns",
       "partitions_busy_s", "partition_busiest_s", "lcore_sleeps", "partition_steals",
       "partitions_auto", "fast_forward"}


def clean(o):
    if isinstance(o, dict):
        return {k: clean(v) for k, v in o.items() if k not in HOW}
    if isinstance(o, list):
        return [clean(x) for x in o
                if not (isinstance(x, str) and
                        x.startswith(("engine: ", "partitions = auto: ", "fast-forward: ", "steady: ")))]
    return o


def why(ref, got):
    if ref.get("runs") == got.get("runs"):
        return "outside the runs: " + next(k for k in {**ref, **got} if ref.get(k) != got.get(k))
    for i, (a, b) in enumerate(zip(ref["runs"], got["runs"])):
        for k in a:
            if a.get(k) != b.get(k):
                return "run %d key %s" % (i, k)
    return "the number of runs"


def main():
    raw = json.load(open(sys.argv[2]))
    mode = sys.argv[3] if len(sys.argv) > 3 else ""
    if mode == "steady":
        HOW.add("events")
    ref, got = clean(json.load(open(sys.argv[1]))), clean(raw)
    if mode == "partitions" and not all(r["partitions"] > 1 and r["windows"] > 0
                                        for r in raw["runs"]):
        print("differs: not cut into partitions")
    elif mode == "ranks" and not all(r["ranks"] > 1 and r["windows"] > 0 for r in raw["runs"]):
        print("differs: not run over ranks")
    elif mode == "steady" and not all(r["fast_forward"]["steady_window_ns"] for r in raw["runs"]):
        print("differs: not run in a steady window")
    elif got != ref:
        print("differs:", why(ref, got))
    else:
        print("same")
        return 0
    return 1


sys.exit(main())
