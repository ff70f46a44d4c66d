#!/usr/bin/env python3
"""What-if predictions against real runs: batch 2x and 0.5x, and 2 threads from a 1-thread trace.

For each model of tests/python/batch_models.py, recorded at test time at batch B, 2B and B/2 on
1 thread, and at B on 2 threads (OPENBLAS_NUM_THREADS follows):
  - batch: `mimic predict REC_B --batch-scale X` with the costs calibrated on REC_B and the shape
    sweep (shapes never measured come from their family's model), on REC_B alone
    (`--no-sweeps`: family models fitted on its own shapes only), and again after `mimic calibrate REC_B
    --batch-scales X` has measured the scaled trace's new signatures; each against the real
    recording's untraced iteration time (meta.json);
  - threads: `mimic calibrate REC_B --threads 2`, then `mimic predict REC_B --threads 2`, against
    the 2-thread recording's untraced time.

usage: bench/predict_whatif.py BUILD_DIR [--models mlp,cnn,transformer,recsys] [--json OUT]
Run on a quiet machine; about 5 minutes per model on 2 cores.
"""
import json
import os
import tempfile

from benchlib.commands import run_json, run, threads_env
from benchlib.compose_bench import parse_args, write_json
from benchlib.models import record, test_step
from benchlib.stats import abs_error_summary, error_pct, geomean_abs

BATCH = {"mlp": 64, "cnn": 16, "transformer": 8, "recsys": 128}


def untraced_ms(rec):
    return json.load(open(os.path.join(rec, "meta.json")))["untraced_median_ms"]


def predicted_ms(mimic, rec, costs, flags, env):
    return run_json([mimic, "predict", rec, "--costs", costs, "--json", "-", *flags], env)["iteration_ms"]


def main():
    args = parse_args("mlp,cnn,transformer,recsys", "repeats", 1)
    mimic = args.mimic
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for model in args.models.split(","):
            b = BATCH[model]
            step = test_step("batch_models.py", model)
            recs = {}
            for batch, threads in ((b, 1), (2 * b, 1), (b // 2, 1), (b, 2)):
                recs[batch, threads] = os.path.join(tmp, f"{model}_{batch}_t{threads}")
                record(mimic, step, recs[batch, threads], ["--threads", str(threads)],
                       threads_env(threads, MIMIC_BATCH=str(batch)))
            env1 = threads_env(1)
            base = recs[b, 1]
            # The trace's own ops once, then the sweep added to a copy: the two databases share
            # every measurement of the trace's ops and differ by the sweep's points alone.
            bare_costs = os.path.join(tmp, f"{model}_no_sweeps.db")
            run([mimic, "calibrate", base, "--out", bare_costs, "--quick", "--no-sweeps"], env1)
            costs = os.path.join(tmp, f"{model}.db")
            run(["cp", bare_costs, costs])
            run([mimic, "calibrate", base, "--out", costs, "--quick"], env1)
            for factor, batch in ((2, 2 * b), (0.5, b // 2)):
                real = untraced_ms(recs[batch, 1])
                family = predicted_ms(mimic, base, costs, ["--batch-scale", str(factor)], env1)
                bare = predicted_ms(mimic, base, bare_costs, ["--batch-scale", str(factor)], env1)
                measured_costs = os.path.join(tmp, f"{model}_x{factor}.db")
                run(["cp", costs, measured_costs])
                run([mimic, "calibrate", base, "--out", measured_costs, "--quick", "--batch-scales", str(factor)], env1)
                measured = predicted_ms(mimic, base, measured_costs, ["--batch-scale", str(factor)], env1)
                for how, ms in (("no sweeps", bare), ("family models", family), ("calibrated", measured)):
                    row = {"model": model, "what_if": f"batch x{factor}", "costs": how, "predicted_ms": ms,
                           "real_untraced_ms": real, "error_pct": error_pct(ms, real)}
                    rows.append(row)
                    print(f"{model:12s} batch {b} x{factor:<4} ({how:13s}) predicted {ms:8.3f} ms  real {real:8.3f} ms"
                          f"  {row['error_pct']:+6.1f}%", flush=True)
            env2 = threads_env(2)
            run([mimic, "calibrate", base, "--out", costs, "--quick", "--threads", "2"], env2)
            real = untraced_ms(recs[b, 2])
            ms = predicted_ms(mimic, base, costs, ["--threads", "2"], env2)
            row = {"model": model, "what_if": "threads 2", "costs": "calibrated", "predicted_ms": ms,
                   "real_untraced_ms": real, "error_pct": error_pct(ms, real)}
            rows.append(row)
            print(f"{model:12s} 1 -> 2 threads       predicted {ms:8.3f} ms  real {real:8.3f} ms  {row['error_pct']:+6.1f}%",
                  flush=True)
    def summary(label, errs):
        within, mean, worst = abs_error_summary(errs, 15)
        print(f"{label}: {within} of {len(errs)} within 15%, geomean |error| {geomean_abs(errs):.1f}%, "
              f"mean {mean:.1f}%, max {worst:.1f}%")

    for what in ("no sweeps", "family models", "calibrated"):
        summary(f"batch what-if, {what}",
                [r["error_pct"] for r in rows if r["costs"] == what and r["what_if"].startswith("batch")])
    summary("threads what-if", [r["error_pct"] for r in rows if r["what_if"] == "threads 2"])
    write_json(args.json, rows)


if __name__ == "__main__":
    main()
