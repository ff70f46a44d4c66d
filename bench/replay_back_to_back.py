#!/usr/bin/env python3
"""End-to-end error of replay against the original, measured back to back.

On a shared, loaded machine the untraced time in meta.json and a replay run
minutes later see different contention. This alternates, in the same minute,
the original step (the built-in workload in Python, untraced) and the replay
of its recording (`mimic replay DIR --host-gaps GAPS --page-faults FAULTS`),
ROUNDS times, and compares the medians. MODES (environment) lists the modes as
GAPS:FAULTS; default "recorded:recorded untraced:recorded none:recorded none:none".

  bench/replay_back_to_back.py MIMIC RECORDINGS_DIR [ROUNDS=3] [ITERS=15]
RECORDINGS_DIR holds rec_<workload>/ as written by bench/replay_workloads.sh
(or `mimic record --workload W --out RECORDINGS_DIR/rec_W`).
"""
import importlib
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import torch  # noqa: E402

WORKLOADS = ["mlp", "transformer", "dlrm", "cnn"]
MODES = os.environ.get("MODES", "recorded:recorded untraced:recorded none:recorded none:none").split()


def python_times_ms(step, iters, faults):
    """Times of `iters` calls; appends their minor page faults per call to `faults`."""
    for _ in range(3):
        step()
    times = []
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(iters):
        t0 = time.perf_counter_ns()
        step()
        times.append((time.perf_counter_ns() - t0) / 1e6)
    faults.append((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / iters)
    return times


def replay_times_ms(mimic, rec, mode, iters):
    gaps, faults = mode.split(":")
    out = subprocess.run([mimic, "replay", rec, "--host-gaps", gaps, "--page-faults", faults, "--warmup", "3",
                          "--iters", str(iters), "--json", "-"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)["iteration_ms"]


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
        orig, faults, rep = [], [], {m: [] for m in MODES}
        for _ in range(rounds):
            orig += python_times_ms(step, iters, faults)
            for mode in rep:
                rep[mode] += replay_times_ms(mimic, rec, mode, iters)
        # Median: typical time under the machine's load; min: the least disturbed
        # iteration, the better estimate of each side's own cost when others compete.
        # Page faults cost time on CPU, and this process's allocator state is not the recording's:
        # the original's faults here next to the recording's (meta.json).
        recorded_faults = json.load(open(os.path.join(rec, "meta.json"))).get("untraced_page_faults_per_iter")
        row = {"original_median_ms": round(statistics.median(orig), 3), "original_min_ms": round(min(orig), 3),
               "original_page_faults_per_iter": round(statistics.median(faults), 1),
               "recording_page_faults_per_iter": recorded_faults}
        for mode, v in rep.items():
            row[mode] = {"replay_median_ms": round(statistics.median(v), 3), "replay_min_ms": round(min(v), 3),
                         "error_median_pct": round((statistics.median(v) / statistics.median(orig) - 1) * 100, 2),
                         "error_min_pct": round((min(v) / min(orig) - 1) * 100, 2)}
        result[w] = row
        print(w, json.dumps(row))
    summary = {}
    for mode in MODES:
        for stat in ("median", "min"):
            errs = [abs(result[w][mode]["error_%s_pct" % stat]) for w in WORKLOADS if w in result]
            if errs:
                g = math.exp(sum(math.log(max(e, 1e-3)) for e in errs) / len(errs))
                summary[f"geomean_abs_error_{stat}_pct_{mode}"] = round(g, 2)
                print(f"geometric mean |error| by {stat}, --host-gaps:--page-faults {mode}: {g:.2f}%")
    result["summary"] = summary
    json.dump(result, open(os.path.join(recs, "back_to_back.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
