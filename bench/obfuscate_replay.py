#!/usr/bin/env python3
"""Does an obfuscated recording replay like the original (issue: within 2%)?

Records tests/python/owner_step.py (a step full of its owner's names) and built-in models,
obfuscates each recording with `mimic obfuscate`, then replays original and obfuscated
alternately, REPEATS times each (the same flags: the recording's page faults and host gaps
as recorded), and compares the medians of their replay iteration times.

usage: bench/obfuscate_replay.py BUILD_DIR [--models owner,mlp,cnn] [--repeats 7] [--json OUT]
"""
import os
import statistics
import tempfile

from benchlib.commands import run, threads_env
from benchlib.compose_bench import parse_args, write_json
from benchlib.models import record, test_step
from benchlib.replays import replay_ms
from benchlib.stats import error_pct


def replay_median_ms(mimic, rec, env):
    return replay_ms(mimic, rec, ["--threads", "1", "--no-profiled-pass", "--host-gaps", "recorded"], "replay median", env)


def main():
    args = parse_args("owner,mlp,cnn", "repeats", 7)
    mimic = args.mimic
    env = threads_env(1)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for model in args.models.split(","):
            rec, obf = os.path.join(tmp, model), os.path.join(tmp, model + "_obf")
            what = test_step("owner_step.py", "make_step") if model == "owner" else model
            record(mimic, what, rec, ["--threads", "1"], env)
            run([mimic, "obfuscate", rec, "-o", obf, "--map", os.path.join(tmp, "map.json")], env)
            original, shared = [], []
            for _ in range(args.repeats):
                original.append(replay_median_ms(mimic, rec, env))
                shared.append(replay_median_ms(mimic, obf, env))
            a, b = statistics.median(original), statistics.median(shared)
            spread = (max(original) - min(original)) / a * 100
            rows.append({"model": model, "original_replay_ms": a, "obfuscated_replay_ms": b, "difference_pct": error_pct(b, a),
                         "original_run_spread_pct": spread})
            print(f"{model:8s} original {a:8.3f} ms  obfuscated {b:8.3f} ms  {error_pct(b, a):+5.1f}%"
                  f"  (original's runs spread {spread:.0f}%)", flush=True)
    write_json(args.json, rows)


if __name__ == "__main__":
    main()
