#!/usr/bin/env python3
"""Does a cut replay as its region did inside the full replay (issue: cut within 5%)?

For each built-in model: record it, replay the recording with per-op times, then cut regions
out of it with `mimic cut` (each a recording directory, so it replays with the original's page
faults and layouts, as the full replay does) and replay each alone. A region is a top-level op's
subtree (the largest ops by replay time) or a block of consecutive top-level ops (the
forward pass, `--nodes A..B`). Compared: the region's op time inside the full replay (sum of
its top-level ops' per-op times) against the cut's op time replayed alone. The full recording is
replayed a second time in a fresh process, and the same region's time there against the first
is printed too: what two replays of one trace differ by, the floor under the cut's error.

usage: bench/cut_replay.py BUILD_DIR [--models mlp,cnn,transformer] [--regions 3] [--json OUT]
Environment: KEEP_DIR=DIR keeps each recording, cut and op-times file there.
Run on a quiet machine: timings of other processes' load swamp a 5% target.
"""
import contextlib
import json
import os
import tempfile

from benchlib.commands import run, threads_env
from benchlib.compose_bench import parse_args, write_json
from benchlib.models import record
from benchlib.stats import abs_error_summary, error_pct


def op_times(mimic, rec, out, env):
    run([mimic, "replay", rec, "--threads", "1", "--op-times", out, "--warmup", "2", "--iters", "5",
         "--op-passes", "9", "--no-profiled-pass"], env)
    return json.load(open(out))["ops"]


def top_level_forward_block(et_path, ops):
    """The ids of the first top-level op to the last one before the loss: the forward pass."""
    names = [(o["node_id"], o["name"]) for o in ops]
    loss = next((i for i, (_, n) in enumerate(names) if "loss" in n or "nll" in n), None)
    if not loss or loss < 2:
        return None
    first = next((i for i, (_, n) in enumerate(names) if n not in ("aten::empty", "aten::zeros", "aten::zero_", "aten::fill_")), 0)
    return names[first][0], names[loss - 1][0]


def main():
    args = parse_args("mlp,cnn,transformer", "regions", 3)
    mimic = args.mimic
    env = threads_env(1)
    results = []
    keep = os.environ.get("KEEP_DIR")  # keep the recordings, cuts and op times there
    with (contextlib.nullcontext(keep) if keep else tempfile.TemporaryDirectory()) as tmp:
        os.makedirs(tmp, exist_ok=True)
        for model in args.models.split(","):
            rec = os.path.join(tmp, model)
            record(mimic, model, rec, ["--threads", "1"], env)
            et = os.path.join(rec, "et.json.gz")
            full = op_times(mimic, rec, os.path.join(tmp, model + "_full.json"), env)
            again = {o["node_id"]: o for o in op_times(mimic, rec, os.path.join(tmp, model + "_full_again.json"), env)}
            by_id = {o["node_id"]: o for o in full}
            regions = []
            for o in sorted(full, key=lambda o: -o["replay_us"])[: args.regions]:
                regions.append(("op " + o["name"], ["--subtree", str(o["node_id"])], [o["node_id"]]))
            block = top_level_forward_block(et, full)
            if block:
                ids = [i for i in by_id if block[0] <= i <= block[1]]
                regions.append((f"forward block {block[0]}..{block[1]}", ["--nodes", f"{block[0]}..{block[1]}"], ids))
            for k, (label, selector, ids) in enumerate(regions):
                cut = os.path.join(tmp, f"{model}_cut{k}")  # a directory: the cut as a recording
                run([mimic, "cut", rec, *selector, "-o", cut], env)
                alone = op_times(mimic, cut, os.path.join(tmp, f"{model}_cut{k}_times.json"), env)
                inside_us = sum(by_id[i]["replay_us"] for i in ids if i in by_id)
                again_us = sum(again[i]["replay_us"] for i in ids if i in again)
                alone_us = sum(o["replay_us"] for o in alone)
                err = error_pct(alone_us, inside_us) if inside_us else float("nan")
                floor = error_pct(again_us, inside_us) if inside_us else float("nan")
                results.append({"model": model, "region": label, "ops": len(alone), "inside_full_replay_us": inside_us,
                                "inside_second_full_replay_us": again_us, "cut_alone_us": alone_us, "error_pct": err,
                                "second_full_replay_error_pct": floor})
                print(f"{model:12s} {label:40s} {len(alone):4d} ops  inside {inside_us:10.1f} us  alone {alone_us:10.1f} us  {err:+6.1f}%"
                      f"  (second full replay {again_us:10.1f} us, {floor:+6.1f}%)", flush=True)
    within, mean, worst = abs_error_summary([r["error_pct"] for r in results], 5)
    f_within, f_mean, f_worst = abs_error_summary([r["second_full_replay_error_pct"] for r in results], 5)
    summary = {"regions": len(results), "mean_abs_error_pct": mean, "max_abs_error_pct": worst, "within_5pct": within,
               "second_full_replay": {"mean_abs_error_pct": f_mean, "max_abs_error_pct": f_worst, "within_5pct": f_within}}
    print(f"cut alone: {within} of {len(results)} regions within 5%; mean |error| {mean:.1f}%, max {worst:.1f}%")
    print(f"second full replay: {f_within} of {len(results)} regions within 5%; mean |error| {f_mean:.1f}%, max {f_worst:.1f}%")
    write_json(args.json, {"results": results, "summary": summary})


if __name__ == "__main__":
    main()
