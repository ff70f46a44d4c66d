#!/usr/bin/env python3
"""End-to-end error of replay against the original, measured back to back.

On a shared, loaded machine the untraced time in meta.json and a replay run
minutes later see different contention. This alternates, in the same minute,
the original step (the built-in workload in Python, untraced) and the replay
of its recording (`mimic replay DIR --host-gaps MODE`), ROUNDS times, and
compares the medians.

  bench/replay_back_to_back.py MIMIC RECORDINGS_DIR [ROUNDS=3] [ITERS=15]
RECORDINGS_DIR holds rec_<workload>/ as written by bench/replay_workloads.sh
(or `mimic record --workload W --out RECORDINGS_DIR/rec_W`).
"""
import importlib
import json
import math
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import torch  # noqa: E402

WORKLOADS = ["mlp", "transformer", "dlrm", "cnn"]


def python_median_ms(step, iters):
    for _ in range(3):
        step()
    times = []
    for _ in range(iters):
        t0 = time.perf_counter_ns()
        step()
        times.append((time.perf_counter_ns() - t0) / 1e6)
    return statistics.median(times)


def replay_median_ms(mimic, rec, mode, iters):
    out = subprocess.run([mimic, "replay", rec, "--host-gaps", mode, "--warmup", "3", "--iters", str(iters),
                          "--json", "-"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)["median_ms"]


def main():
    mimic, recs = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    iters = int(sys.argv[4]) if len(sys.argv) > 4 else 15
    torch.set_num_threads(1)
    result = {}
    for w in WORKLOADS:
        rec = os.path.join(recs, "rec_" + w)
        if not os.path.isdir(rec):
            print(f"{w}: no recording in {rec}, skipped")
            continue
        step = importlib.import_module("mimic_record.workloads." + w).build()
        orig, rep = [], {"recorded": [], "none": []}
        for _ in range(rounds):
            orig.append(python_median_ms(step, iters))
            for mode in rep:
                rep[mode].append(replay_median_ms(mimic, rec, mode, iters))
        o = statistics.median(orig)
        row = {"original_ms": round(o, 3), "original_rounds_ms": [round(x, 3) for x in orig]}
        for mode, v in rep.items():
            r = statistics.median(v)
            row[mode] = {"replay_ms": round(r, 3), "rounds_ms": [round(x, 3) for x in v],
                         "error_pct": round((r - o) / o * 100, 2)}
        result[w] = row
        print(w, json.dumps(row))
    for mode in ("recorded", "none"):
        errs = [abs(r[mode]["error_pct"]) for r in result.values()]
        if errs:
            g = math.exp(sum(math.log(max(e, 1e-3)) for e in errs) / len(errs))
            result["geomean_abs_error_pct_" + mode] = round(g, 2)
            print(f"geometric mean |error| with --host-gaps {mode}: {g:.2f}%")
    json.dump(result, open(os.path.join(recs, "back_to_back.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
