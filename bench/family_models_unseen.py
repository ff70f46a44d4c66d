#!/usr/bin/env python3
"""How well `mimic predict`'s family models time op shapes they never measured, with and without
calibrate's shape sweep, on one set of measurements (so the machine's drift between calibrations
does not enter the comparison).

Records the models, times every op signature of all of them once (`calibrate --no-sweeps`,
bare.db), then adds the shape sweep to a copy (sweep.db: the same measurements plus the sweep's).
For each model, `mimic predict REC --unseen` hides the model's own signatures and predicts each
of its ops from the rest (the other models' ops, and the sweep in sweep.db); the per-op error
against the op's own measurement, per family, and the iteration error are printed for both.

  bench/family_models_unseen.py MIMIC [OUT_DIR=/tmp/mimic-unseen] [--mimic-b OTHER_MIMIC]
MODELS (environment) picks models (default: the four built-ins and the twelve held-out models).
--mimic-b predicts the same databases with a second mimic binary (e.g. before a model change).
"""
import math
import os
import shutil
import sys

from benchlib.commands import run, run_json, threads_env
from benchlib.models import BUILTIN, HELDOUT, record

MODELS = os.environ.get("MODELS", " ".join(BUILTIN + HELDOUT)).split()


def geomean(values):
    values = [max(abs(v), 0.01) for v in values]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--mimic-b")]
    mimic = args[0]
    out = args[1] if len(args) > 1 else "/tmp/mimic-unseen"
    binaries = {"": mimic}
    for a in sys.argv[1:]:
        if a.startswith("--mimic-b="):
            binaries[" (b)"] = a.split("=", 1)[1]
    env = threads_env(1, MIMIC_NO_PROGRESS="1")
    os.makedirs(out, exist_ok=True)
    recs = {}
    for m in MODELS:
        recs[m] = os.path.join(out, m)
        if not os.path.exists(os.path.join(recs[m], "meta.json")):
            print(f"recording {m}", file=sys.stderr, flush=True)
            record(mimic, m, recs[m], ["--force", "--threads", "1"], env)
    bare, sweep = os.path.join(out, "bare.db"), os.path.join(out, "sweep.db")
    if not os.path.exists(bare):
        run([mimic, "calibrate", *recs.values(), "--out", bare, "--threads", "1", "--no-sweeps"], env)
    if not os.path.exists(sweep):
        shutil.copy(bare, sweep)
        run([mimic, "calibrate", *recs.values(), "--out", sweep, "--threads", "1"], env)
    summary = {}
    for tag, binary in binaries.items():
        for name, db in (("no sweep", bare), ("sweep", sweep)):
            label = name + tag
            op_errors, it_errors = [], []
            for m in MODELS:
                p = run_json([binary, "predict", recs[m], "--costs", db, "--unseen", "--json", "-"], env)
                fams = {f: v for f, v in p.get("unseen_per_op_error_pct", {}).items() if f != "all"}
                it_errors.append(p["error_pct"])
                op_errors += [(f, v) for f, v in fams.items()]
                print(f"{label:16s} {m:12s} iteration {p['error_pct']:+7.1f}%  per-op geomean |error| by family: "
                      + ", ".join(f"{f} {v['geomean_abs_error_pct']:.0f}% ({v['ops']})" for f, v in sorted(fams.items())), flush=True)
            summary[label] = (geomean(it_errors), op_errors)
    print()
    for label, (it_geo, op_errors) in summary.items():
        by_family = {}
        for f, v in op_errors:
            by_family.setdefault(f, []).append((v["geomean_abs_error_pct"], v["ops"]))
        fam_text = ", ".join(
            f"{f} {math.exp(sum(n * math.log(max(g, 0.01)) for g, n in vs) / sum(n for _, n in vs)):.0f}%"
            for f, vs in sorted(by_family.items()))
        all_ops = [(g, n) for vs in by_family.values() for g, n in vs]
        total = math.exp(sum(n * math.log(max(g, 0.01)) for g, n in all_ops) / sum(n for _, n in all_ops))
        print(f"{label:16s} iteration geomean |error| {it_geo:.1f}%; unseen ops geomean |error| {total:.1f}% ({fam_text})")


if __name__ == "__main__":
    main()
