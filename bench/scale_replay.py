#!/usr/bin/env python3
"""Does a trace scaled to another batch replay like a real recording at that batch?

For each model of tests/python/batch_models.py: record at batch B and 2B, `mimic scale` B by
2 (and 2B by 0.5), check the top-level ops equal the real recording's (et_top_level_shapes.py),
then replay the scaled ET and the real recording's ET the same way (ET alone, 1 thread) and
compare their op times; the real recording's untraced time (meta.json) is printed beside.

usage: bench/scale_replay.py BUILD_DIR [--models mlp,cnn,transformer,recsys] [--repeats 3] [--json OUT]
Run on a quiet machine.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BATCH = {"mlp": 64, "cnn": 16, "transformer": 8, "recsys": 128}


def run(cmd, env):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{r.stdout[-3000:]}")
    return r.stdout


def op_time_ms(mimic, et, env):
    out = run([mimic, "replay", et, "--threads", "1", "--no-profiled-pass", "--warmup", "2", "--iters", "5"], env)
    return float(re.search(r"op time ([0-9.]+) ms", out).group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--models", default="mlp,cnn,transformer,recsys")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json")
    args = ap.parse_args()
    mimic = os.path.join(args.build, "mimic")
    script = os.path.join(HERE, "..", "tests", "python", "batch_models.py")
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for model in args.models.split(","):
            b = BATCH[model]
            recs = {}
            for batch in (b, 2 * b):
                recs[batch] = os.path.join(tmp, f"{model}_{batch}")
                run([mimic, "record", "--script", f"{script}:{model}", "--out", recs[batch], "--threads", "1"],
                    dict(env, MIMIC_BATCH=str(batch)))
            for factor, src, dst in ((2, b, 2 * b), (0.5, 2 * b, b)):
                scaled = os.path.join(tmp, f"{model}_x{factor}.json")
                run([mimic, "scale", recs[src], "--batch", str(factor), "-o", scaled], env)
                same = subprocess.run([sys.executable, os.path.join(HERE, "et_top_level_shapes.py"), scaled,
                                       os.path.join(recs[dst], "et.json.gz")], stdout=subprocess.PIPE, text=True)
                real_et = os.path.join(recs[dst], "et.json.gz")
                pairs = [(op_time_ms(mimic, scaled, env), op_time_ms(mimic, real_et, env)) for _ in range(args.repeats)]
                s = statistics.median(p[0] for p in pairs)
                r = statistics.median(p[1] for p in pairs)
                untraced = json.load(open(os.path.join(recs[dst], "meta.json"))).get("untraced_median_ms")
                row = {"model": model, "factor": factor, "from_batch": src, "to_batch": dst, "same_ops": same.returncode == 0,
                       "scaled_replay_ms": s, "real_replay_ms": r, "error_pct": (s / r - 1) * 100,
                       "real_untraced_ms": untraced}
                rows.append(row)
                print(f"{model:12s} {src:4d} -> {dst:4d}  ops {'equal' if row['same_ops'] else 'DIFFER'}  scaled {s:8.3f} ms"
                      f"  real {r:8.3f} ms  {row['error_pct']:+6.1f}%  (real untraced {untraced} ms)", flush=True)
    errs = [abs(r["error_pct"]) for r in rows]
    print(f"{sum(e <= 10 for e in errs)} of {len(rows)} within 10%; mean |error| {statistics.mean(errs):.1f}%, max {max(errs):.1f}%")
    if args.json:
        json.dump(rows, open(args.json, "w"), indent=1)


if __name__ == "__main__":
    main()
