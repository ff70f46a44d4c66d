#!/usr/bin/env python3
"""Does a trace with layers trimmed (scale --keep-layers) or repeated (--repeat-layers) replay like
a real recording with that many layers?

For an MLP and a transformer LM of tests/python/batch_models.py, recorded with 4 and 2 layers
($MIMIC_LAYERS): keep 2 of the 4, repeat the 2 to 4, check the top-level ops equal the real
recording's (et_top_level_shapes.py), then replay each result and the real recording's ET (both
as ETs alone, 1 thread) alternately, REPEATS times each, and compare. This VM runs at one of two
speeds from minute to minute, so the figure is the median of the per-pair ratios (each pair
replayed back to back), with each side's own median beside it.

usage: bench/layers_replay.py BUILD_DIR [--models mlp,transformer] [--repeats 5] [--json OUT]
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

from benchlib.commands import run, threads_env
from benchlib.compose_bench import parse_args, write_json
from benchlib.models import BENCH_DIR, record, test_step
from benchlib.replays import replay_ms


def iteration_ms(mimic, et, env):
    return replay_ms(mimic, et, ["--threads", "1", "--no-profiled-pass", "--warmup", "2", "--iters", "15"], "replay median", env)


def main():
    args = parse_args("mlp,transformer", "repeats", 5)
    mimic = args.mimic
    env = threads_env(1)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for model in args.models.split(","):
            ets = {}
            for layers in (4, 2):
                rec = os.path.join(tmp, f"{model}_{layers}")
                record(mimic, test_step("batch_models.py", model), rec, ["--threads", "1"], dict(env, MIMIC_LAYERS=str(layers)))
                ets[layers] = os.path.join(tmp, f"{model}_{layers}.json.gz")
                shutil.copy(os.path.join(rec, "et.json.gz"), ets[layers])  # the ET alone, as the results are
            for how, flag, src, dst in (("keep", "--keep-layers", 4, 2), ("repeat", "--repeat-layers", 2, 4)):
                made = os.path.join(tmp, f"{model}_{how}{dst}.json")
                run([mimic, "scale", ets[src], flag, str(dst), "-o", made], env)
                same = subprocess.run([sys.executable, os.path.join(BENCH_DIR, "et_top_level_shapes.py"), made, ets[dst]],
                                      stdout=subprocess.PIPE, text=True).returncode == 0
                pairs = [(iteration_ms(mimic, made, env), iteration_ms(mimic, ets[dst], env)) for _ in range(args.repeats)]
                ratio = statistics.median(100 * (a / b - 1) for a, b in pairs)
                a, b = statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs)
                row = {"model": model, "how": how, "from_layers": src, "to_layers": dst, "same_ops": same,
                       "made_replay_ms": a, "real_replay_ms": b, "paired_error_pct": ratio}
                rows.append(row)
                print(f"{model:12s} {how:6s} {src} -> {dst} layers  ops {'equal' if same else 'DIFFER'}  made {a:8.3f} ms"
                      f"  real {b:8.3f} ms  median of paired ratios {ratio:+6.1f}%", flush=True)
    write_json(args.json, rows)


if __name__ == "__main__":
    main()
