#!/usr/bin/env python3
"""Does a trace scaled to another batch replay like a real recording at that batch?

For each model of tests/python/batch_models.py: record at batch B and 2B, `mimic scale` B by
2 (and 2B by 0.5), check the top-level ops equal the real recording's (et_top_level_shapes.py),
then replay the scaled ET and the real recording's ET the same way (ET alone, 1 thread) and
compare their op times; the real recording's untraced time (meta.json) is printed beside.

usage: bench/scale_replay.py BUILD_DIR [--models mlp,cnn,transformer,recsys] [--repeats 3] [--json OUT]
Run on a quiet machine.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

from benchlib.commands import run, threads_env
from benchlib.compose_bench import parse_args, write_json
from benchlib.models import BENCH_DIR, record, test_step
from benchlib.replays import replay_ms
from benchlib.stats import abs_error_summary, error_pct

BATCH = {"mlp": 64, "cnn": 16, "transformer": 8, "recsys": 128}


def op_time_ms(mimic, et, env):
    return replay_ms(mimic, et, ["--threads", "1", "--no-profiled-pass", "--warmup", "2", "--iters", "5"], "op time", env)


def main():
    args = parse_args("mlp,cnn,transformer,recsys", "repeats", 3)
    mimic = args.mimic
    env = threads_env(1)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for model in args.models.split(","):
            b = BATCH[model]
            recs = {}
            for batch in (b, 2 * b):
                recs[batch] = os.path.join(tmp, f"{model}_{batch}")
                record(mimic, test_step("batch_models.py", model), recs[batch], ["--threads", "1"],
                       dict(env, MIMIC_BATCH=str(batch)))
            for factor, src, dst in ((2, b, 2 * b), (0.5, 2 * b, b)):
                scaled = os.path.join(tmp, f"{model}_x{factor}.json")
                run([mimic, "scale", recs[src], "--batch", str(factor), "-o", scaled], env)
                same = subprocess.run([sys.executable, os.path.join(BENCH_DIR, "et_top_level_shapes.py"), scaled,
                                       os.path.join(recs[dst], "et.json.gz")], stdout=subprocess.PIPE, text=True)
                real_et = os.path.join(recs[dst], "et.json.gz")
                pairs = [(op_time_ms(mimic, scaled, env), op_time_ms(mimic, real_et, env)) for _ in range(args.repeats)]
                s = statistics.median(p[0] for p in pairs)
                r = statistics.median(p[1] for p in pairs)
                untraced = json.load(open(os.path.join(recs[dst], "meta.json"))).get("untraced_median_ms")
                row = {"model": model, "factor": factor, "from_batch": src, "to_batch": dst, "same_ops": same.returncode == 0,
                       "scaled_replay_ms": s, "real_replay_ms": r, "error_pct": error_pct(s, r),
                       "real_untraced_ms": untraced}
                rows.append(row)
                print(f"{model:12s} {src:4d} -> {dst:4d}  ops {'equal' if row['same_ops'] else 'DIFFER'}  scaled {s:8.3f} ms"
                      f"  real {r:8.3f} ms  {row['error_pct']:+6.1f}%  (real untraced {untraced} ms)", flush=True)
    within, mean, worst = abs_error_summary([r["error_pct"] for r in rows], 10)
    print(f"{within} of {len(rows)} within 10%; mean |error| {mean:.1f}%, max {worst:.1f}%")
    write_json(args.json, rows)


if __name__ == "__main__":
    main()
