#!/usr/bin/env python3
"""Per-operator fidelity of replay, with and without the original's page faults.

For each recording, alternates `mimic replay DIR --page-faults none` and `--page-faults recorded`
ROUNDS times (alternating, so both see the same drift of this machine's speed) and prints the
medians of: per-op geometric-mean error against the profile, the time-weighted per-op error,
the end-to-end error against meta.json's untraced time, and the page faults per iteration
next to the original's.

  bench/replay_per_op.py MIMIC RECORDINGS_DIR [ROUNDS=3] [ITERS=15]
RECORDINGS_DIR holds rec_<workload>/ (`mimic record --workload W --out RECORDINGS_DIR/rec_W`).
"""
import json
import math
import os
import statistics
import subprocess
import sys

WORKLOADS = ["mlp", "transformer", "dlrm", "cnn"]
MODES = ["none", "recorded"]


def replay(mimic, rec, mode, iters):
    out = subprocess.run([mimic, "replay", rec, "--page-faults", mode, "--warmup", "2", "--iters", str(iters),
                          "--json", "-"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def geomean_abs(values):
    values = [abs(v) for v in values if v is not None]
    if not values:
        return float("nan")
    return math.exp(sum(math.log(max(v, 0.01)) for v in values) / len(values))


def main():
    mimic, recs = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    iters = int(sys.argv[4]) if len(sys.argv) > 4 else 15
    summary = {m: {"per_op": [], "e2e": []} for m in MODES}
    print(f"{'workload':12} {'mode':9} {'per_op_geo_pct':>14} {'weighted_pct':>12} {'e2e_pct':>8} "
          f"{'faults/iter':>11} {'original':>8} {'fresh_pages':>11}")
    for w in WORKLOADS:
        rec = os.path.join(recs, "rec_" + w)
        if not os.path.isdir(rec):
            print(f"{w}: no recording in {rec}, skipped")
            continue
        runs = {m: [] for m in MODES}
        for _ in range(rounds):
            for m in MODES:
                runs[m].append(replay(mimic, rec, m, iters))
        for m in MODES:
            r = runs[m]
            med = lambda key: statistics.median(x[key] for x in r if x.get(key) is not None)  # noqa: E731
            per_op, weighted, e2e = med("per_op_error_geomean_pct"), med("per_op_error_weighted_pct"), med("error_pct")
            faults = med("page_faults_per_iter")
            fresh = r[0].get("fresh_pages_per_iter", 0)
            print(f"{w:12} {m:9} {per_op:14.1f} {weighted:12.1f} {e2e:+8.1f} {faults:11.0f} "
                  f"{r[0].get('original_page_faults_per_iter', 0):8.0f} {fresh:11}")
            summary[m]["per_op"].append(per_op)
            summary[m]["e2e"].append(e2e)
    for m in MODES:
        print(f"geometric mean over workloads, {m:9}: per-op {geomean_abs(summary[m]['per_op']):.1f}%, "
              f"end-to-end {geomean_abs(summary[m]['e2e']):.1f}%")


if __name__ == "__main__":
    main()
