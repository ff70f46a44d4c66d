#!/usr/bin/env python3
"""Does an obfuscated recording replay like the original (issue: within 2%)?

Records tests/python/owner_step.py (a step full of its owner's names) and built-in models,
obfuscates each recording with `mimic obfuscate`, then replays original and obfuscated
alternately, REPEATS times each (the same flags: the recording's page faults and host gaps
as recorded), and compares the medians of their replay iteration times.

usage: bench/obfuscate_replay.py BUILD_DIR [--models owner,mlp,cnn] [--repeats 7] [--json OUT]
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


def run(cmd, env):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{r.stdout[-3000:]}")
    return r.stdout


def replay_ms(mimic, rec, env):
    out = run([mimic, "replay", rec, "--threads", "1", "--no-profiled-pass", "--host-gaps", "recorded"], env)
    return float(re.search(r"replay median ([0-9.]+) ms", out).group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--models", default="owner,mlp,cnn")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--json")
    args = ap.parse_args()
    mimic = os.path.join(args.build, "mimic")
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for model in args.models.split(","):
            rec, obf = os.path.join(tmp, model), os.path.join(tmp, model + "_obf")
            what = (["--script", os.path.join(HERE, "..", "tests", "python", "owner_step.py") + ":make_step"]
                    if model == "owner" else ["--workload", model])
            run([mimic, "record", *what, "--out", rec, "--threads", "1"], env)
            run([mimic, "obfuscate", rec, "-o", obf, "--map", os.path.join(tmp, "map.json")], env)
            original, shared = [], []
            for _ in range(args.repeats):
                original.append(replay_ms(mimic, rec, env))
                shared.append(replay_ms(mimic, obf, env))
            a, b = statistics.median(original), statistics.median(shared)
            spread = (max(original) - min(original)) / a * 100
            rows.append({"model": model, "original_replay_ms": a, "obfuscated_replay_ms": b, "difference_pct": (b / a - 1) * 100,
                         "original_run_spread_pct": spread})
            print(f"{model:8s} original {a:8.3f} ms  obfuscated {b:8.3f} ms  {(b / a - 1) * 100:+5.1f}%"
                  f"  (original's runs spread {spread:.0f}%)", flush=True)
    if args.json:
        json.dump(rows, open(args.json, "w"), indent=1)


if __name__ == "__main__":
    main()
