#!/usr/bin/env python3
"""Two replayer builds on the same recordings, alternating: is a change to the replay better?

replay_accuracy.py records afresh each round, so the recordings differ between two runs of it,
and a replay's per-op figure also moves 16-23% between runs of one binary on one recording.
A change is judged better here when the new build, replaying the very recordings the old one
replays, in alternation (old, new, new, old, ...), comes out nearer the original on most of
them. Recordings come from replay_accuracy.py's OUT_DIR (round<N>/rec_<workload>).

  bench/replay_ab.py OLD_MIMIC NEW_MIMIC REC_DIR[,REC_DIR...] [REPS=1] [OUT_JSON]

Each replay: --host-gaps measured --page-faults recorded --warmup 2 --iters 15 (as
replay_accuracy.py). Printed: each replay's per-op error against the profile and the untraced
op times and its end-to-end error; then per build the mean and median over replays, how many
recordings the new build is nearer on (against the profile), and per workload the op names whose
signed error, median over the new build's replays, is largest. A recording whose replays are all
far off (e.g. > 60% per op) was likely recorded on a disturbed machine: leave it out.
"""
import collections
import json
import math
import statistics
import sys

from benchlib.per_op import name_errors, per_op_summary
from benchlib.replays import replay_report


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    builds = {"old": sys.argv[1], "new": sys.argv[2]}
    recs = sys.argv[3].split(",")
    reps = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    out_json = sys.argv[5] if len(sys.argv) > 5 else None
    reports = {b: collections.defaultdict(list) for b in builds}
    for rec in recs:
        for k in range(reps):
            # ABBA: each build replays first as often as second. With old, new, old, new, one
            # build given as both read nearer the profile second on 18 of 24 fresh recordings
            # (16.8% first, 16.2% second; replay_ab_fresh.sh, 6 rounds): the order was a bias.
            order = list(builds.items()) if k % 2 == 0 else list(builds.items())[::-1]
            for b, mimic in order:
                r = replay_report(mimic, rec, "measured:recorded", 15)
                reports[b][rec].append(r)
                print(f"{rec} {b}: per-op {r['per_op_error_geomean_pct']:.1f}% vs profile, "
                      f"{r['per_op_error_geomean_untraced_pct']:.1f}% vs untraced, "
                      f"{r.get('per_op_error_geomean_profiled_pct') or float('nan'):.1f}% under the profiler vs "
                      f"as recorded, e2e {r['error_pct']:+.1f}%", flush=True)
    if out_json:
        with open(out_json, "w") as f:
            json.dump(reports, f)
    for b in builds:
        print(f"{b}: " + per_op_summary([r for reps_ in reports[b].values() for r in reps_]))
    nearer = sum(statistics.median(r["per_op_error_geomean_pct"] for r in reports["new"][rec]) <
                 statistics.median(r["per_op_error_geomean_pct"] for r in reports["old"][rec]) for rec in recs)
    print(f"new nearer the profile on {nearer} of {len(recs)} recordings")
    by = name_errors(reports["new"])
    for w in sorted({k[0] for k in by}):
        rows = sorted(((k[1], statistics.median(v)) for k, v in by.items() if k[0] == w), key=lambda x: -abs(x[1]))
        print(f"  {w}: " + ", ".join(f"{n} {math.exp(m) * 100 - 100:+.0f}%" for n, m in rows[:8]))


if __name__ == "__main__":
    main()
