#!/usr/bin/env python3
"""How close `mimic predict` comes on traces recorded without mimic (PyTorch's own observer and
profiler, bench/foreign_record.py), whose host time nothing measured untraced.

Records each model, then for each in turn: calibrates its own ops, then the OTHER models'
traces, whose replays estimate their untraced gaps from their profiles; the host time per op is
fitted on those estimates (leave one out). Predicts the model from its ET and compares with the
step's untraced time measured in the recording process (truth.json, which mimic never reads),
with and without the fitted host time.

  bench/predict_foreign.py MIMIC [OUT_DIR=/tmp/mimic-predict-foreign]
MODELS (environment) picks models (default: the held-out kinds and the FEATURES steps);
REUSE_RECORDINGS=1 keeps the recordings OUT_DIR already holds.
"""
import json
import os
import sys

from benchlib.commands import run, run_json, threads_env
from benchlib.models import FEATURES, HELDOUT
from benchlib.stats import geomean_abs

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
MODELS = os.environ.get("MODELS", " ".join(HELDOUT + ["mlp", "recsys"] + FEATURES)).split()


def main():
    mimic = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else "/tmp/mimic-predict-foreign"
    env = threads_env(1, MIMIC_NO_PROGRESS="1")
    os.makedirs(out, exist_ok=True)
    recs = {m: os.path.join(out, m) for m in MODELS}
    for m, rec in recs.items():
        if os.environ.get("REUSE_RECORDINGS") == "1" and os.path.exists(os.path.join(rec, "truth.json")):
            continue
        print(f"recording {m}", file=sys.stderr, flush=True)
        run(["/usr/bin/python3", os.path.join(BENCH_DIR, "foreign_record.py"), m, rec, "1"], threads_env(1))
    rows = []
    for m in MODELS:
        db = os.path.join(out, f"costs_without_{m}.db")
        if os.path.exists(db):
            os.remove(db)
        others = [recs[o] for o in MODELS if o != m]
        # Its own ops first; the host fit is the last calibrate's, on the others only.
        run([mimic, "calibrate", recs[m], "--out", db, "--threads", "1", "--no-sweeps"], env)
        run([mimic, "calibrate", *others, "--out", db, "--threads", "1", "--no-sweeps"], env)
        p = run_json([mimic, "predict", recs[m], "--costs", db, "--json", "-"], env)
        with open(os.path.join(recs[m], "truth.json")) as f:
            truth = json.load(f)["untraced_median_ms"]
        host = p["breakdown"].get("host_overhead_ms") or 0.0
        row = {"model": m, "untraced_ms": truth, "predicted_ms": p["iteration_ms"], "host_overhead_ms": host,
               "error_pct": (p["iteration_ms"] / truth - 1) * 100,
               "op_time_alone_error_pct": ((p["iteration_ms"] - host) / truth - 1) * 100}
        rows.append(row)
        print(f"{m:14s} untraced {truth:8.2f} ms  predicted {row['predicted_ms']:8.2f} ms ({row['error_pct']:+6.1f}%), "
              f"host {host:.2f} ms; op time alone {row['op_time_alone_error_pct']:+6.1f}%", flush=True)
    errors = [r["error_pct"] for r in rows]
    alone = [r["op_time_alone_error_pct"] for r in rows]
    print(f"geometric mean |error|: {geomean_abs(errors):.1f}% with the estimated host time "
          f"({sum(abs(e) < 10 for e in errors)} of {len(rows)} within 10%), "
          f"{geomean_abs(alone):.1f}% op time alone ({sum(abs(e) < 10 for e in alone)} within 10%)")
    with open(os.path.join(out, "predict_foreign.json"), "w") as f:
        json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
