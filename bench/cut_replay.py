#!/usr/bin/env python3
"""Does a cut replay as its region did inside the full replay (issue: cut within 5%)?

For each built-in model: record it, replay the recording with per-op times, then cut regions
out of it with `mimic cut` (each a recording directory, so it replays with the original's page
faults and layouts, as the full replay does) and replay each alone. A region is a top-level op's
subtree (the largest ops by replay time) or a block of consecutive top-level ops (the
forward pass, `--nodes A..B`). Compared: the region's op time inside the full replay (sum of
its top-level ops' per-op times) against the cut's op time replayed alone.

This VM moves between speed levels over seconds to minutes, so one replay against another run a
minute later differs by up to 14% on its own. The replays therefore run in ROUNDS rounds, each
the full recording and then every cut, one after another; each side is the median over the
rounds. The floor under the cut's error: the full replay's median over the even rounds against
its median over the odd ones, what two sets of replays of one trace differ by.

usage: bench/cut_replay.py BUILD_DIR [--models mlp,cnn,transformer] [--regions 3] [--rounds 4] [--json OUT]
Environment: KEEP_DIR=DIR keeps each recording, cut and op-times file there.
Run on a quiet machine: timings of other processes' load swamp a 5% target.
"""
import contextlib
import json
import os
import statistics
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


def region_us(times, ids):
    by_id = {o["node_id"]: o for o in times}
    return sum(by_id[i]["replay_us"] for i in ids if i in by_id)


def main():
    args = parse_args("mlp,cnn,transformer", "regions", 3, extra=[("rounds", 4)])
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
            regions = []
            for o in sorted(full, key=lambda o: -o["replay_us"])[: args.regions]:
                regions.append(("op " + o["name"], ["--subtree", str(o["node_id"])], [o["node_id"]]))
            block = top_level_forward_block(et, full)
            if block:
                ids = [o["node_id"] for o in full if block[0] <= o["node_id"] <= block[1]]
                regions.append((f"forward block {block[0]}..{block[1]}", ["--nodes", f"{block[0]}..{block[1]}"], ids))
            cuts = []
            for k, (_, selector, _) in enumerate(regions):
                cuts.append(os.path.join(tmp, f"{model}_cut{k}"))  # a directory: the cut as a recording
                run([mimic, "cut", rec, *selector, "-o", cuts[-1]], env)
            inside = [[] for _ in regions]  # per region, its time in each round's full replay
            alone = [[] for _ in regions]
            ops = [0 for _ in regions]
            for r in range(args.rounds):
                times = op_times(mimic, rec, os.path.join(tmp, f"{model}_full_r{r}.json"), env)
                for k, (_, _, ids) in enumerate(regions):
                    inside[k].append(region_us(times, ids))
                for k, cut in enumerate(cuts):
                    cut_times = op_times(mimic, cut, os.path.join(tmp, f"{model}_cut{k}_r{r}.json"), env)
                    alone[k].append(sum(o["replay_us"] for o in cut_times))
                    ops[k] = len(cut_times)
            for k, (label, _, _) in enumerate(regions):
                inside_us, alone_us = statistics.median(inside[k]), statistics.median(alone[k])
                even_us, odd_us = statistics.median(inside[k][0::2]), statistics.median(inside[k][1::2] or inside[k])
                err = error_pct(alone_us, inside_us) if inside_us else float("nan")
                floor = error_pct(odd_us, even_us) if even_us else float("nan")
                results.append({"model": model, "region": label, "ops": ops[k], "rounds": args.rounds,
                                "inside_full_replay_us": inside_us, "cut_alone_us": alone_us, "error_pct": err,
                                "inside_full_replay_rounds_us": inside[k], "cut_alone_rounds_us": alone[k],
                                "full_replay_odd_vs_even_rounds_error_pct": floor})
                print(f"{model:12s} {label:40s} {ops[k]:4d} ops  inside {inside_us:10.1f} us  alone {alone_us:10.1f} us  {err:+6.1f}%"
                      f"  (full replay, odd rounds against even: {floor:+6.1f}%)", flush=True)
    within, mean, worst = abs_error_summary([r["error_pct"] for r in results], 5)
    f_within, f_mean, f_worst = abs_error_summary([r["full_replay_odd_vs_even_rounds_error_pct"] for r in results], 5)
    summary = {"regions": len(results), "mean_abs_error_pct": mean, "max_abs_error_pct": worst, "within_5pct": within,
               "full_replay_odd_vs_even_rounds": {"mean_abs_error_pct": f_mean, "max_abs_error_pct": f_worst,
                                                  "within_5pct": f_within}}
    print(f"cut alone: {within} of {len(results)} regions within 5%; mean |error| {mean:.1f}%, max {worst:.1f}%")
    print(f"full replay, odd rounds against even: {f_within} of {len(results)} within 5%; mean |error| {f_mean:.1f}%, "
          f"max {f_worst:.1f}%")
    write_json(args.json, {"results": results, "summary": summary})


if __name__ == "__main__":
    main()
