#!/usr/bin/env python3
"""How close `mimic predict` comes to a step's measured untraced time, from
its ET alone, on models recorded at test time.

Records each model (the four built-ins and the twelve of heldout_models.py),
measures every op signature once through the replayer (`mimic calibrate`),
then, for each model in turn, fits the host time per op on the OTHER models'
recordings only (leave one out) and predicts the model's iteration from its
ET, against the recording's untraced median iteration time (meta.json).
Prints per-model error, the geometric mean of |error|, the BLAS and threads.

  bench/predict_accuracy.py MIMIC [THREADS=1] [OUT_DIR=/tmp/mimic-predict]
MODELS (environment) picks models, e.g. MODELS="mlp cnn gpt"; REUSE_RECORDINGS=1 keeps the
recordings OUT_DIR already holds (to compare two builds' models on the same recordings).
"""
import json
import os
import shutil
import sys

from benchlib.commands import run, run_json, threads_env
from benchlib.models import BUILTIN, HELDOUT, record
from benchlib.stats import geomean_abs

MODELS = os.environ.get("MODELS", " ".join(BUILTIN + HELDOUT)).split()


def main():
    mimic = sys.argv[1]
    threads = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    env = threads_env(threads, MIMIC_NO_PROGRESS="1")
    out = sys.argv[3] if len(sys.argv) > 3 else "/tmp/mimic-predict"
    os.makedirs(out, exist_ok=True)
    recs = {}
    for m in MODELS:
        recs[m] = os.path.join(out, f"t{threads}", m)
        if os.environ.get("REUSE_RECORDINGS") == "1" and os.path.exists(os.path.join(recs[m], "meta.json")):
            continue
        print(f"recording {m} ({threads} thread{'s' if threads > 1 else ''})", file=sys.stderr, flush=True)
        record(mimic, m, recs[m], ["--force", "--threads", str(threads)], env)
    all_db = os.path.join(out, f"costs_t{threads}.db")
    if os.path.exists(all_db):
        os.remove(all_db)
    run([mimic, "calibrate", *recs.values(), "--out", all_db, "--threads", str(threads)], env)
    errors = {}
    blas = "?"
    for m in MODELS:
        loo_db = os.path.join(out, f"costs_t{threads}_without_{m}.db")
        shutil.copy(all_db, loo_db)
        others = [recs[o] for o in MODELS if o != m]
        # Every signature is in the database: this only refits the host time, on the others.
        run([mimic, "calibrate", *others, "--out", loo_db], env)
        p = run_json([mimic, "predict", recs[m], "--costs", loo_db, "--json", "-"], env)
        meta = json.load(open(os.path.join(recs[m], "meta.json")))
        blas = (meta.get("machine") or {}).get("blas", {}).get("library", "?")
        errors[m] = p["error_pct"]
        print(f"{m:12s} predicted {p['iteration_ms']:8.3f} ms  untraced {p['original_untraced_ms']:8.3f} ms  "
              f"error {p['error_pct']:+6.1f}%  (compute {p['breakdown']['compute_ms']:.3f}, host {p['breakdown']['host_overhead_ms']:.3f} ms;"
              f" {p['ops']['measured']} measured ops)", flush=True)
    geo = geomean_abs(errors.values())
    worst = max(errors, key=lambda k: abs(errors[k]))
    print(f"geomean |error| {geo:.1f}% over {len(errors)} models, worst {worst} {errors[worst]:+.1f}%; "
          f"{threads} intra-op thread(s), BLAS {blas}")


if __name__ == "__main__":
    main()
