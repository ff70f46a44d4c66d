#!/usr/bin/env python3
"""Replay of traces mimic did not record, with default flags, against the original's untraced time.

Each model is recorded afresh with PyTorch's own execution-graph observer and profiler
(bench/foreign_record.py: an ET and the profiler's Chrome export, nothing of mimic's recorder),
half of them under a profiler schedule (a ProfilerStep#N around the step), half in one plain
profile() block. The step's untraced time is measured in the same process, before and after the
recording (truth.json, which mimic never reads). Then `mimic replay DIR --threads N` with
nothing else; its median iteration is compared with that time. Prints the BLAS in use, each
model's error and the geometric mean of |error|, per thread count.

  bench/replay_foreign.py MIMIC [THREADS=1,2] [OUT_DIR=/tmp/mimic-foreign]
MODELS (environment) picks models (default: one of each kind the issue names).
"""
import json
import os
import sys

from benchlib.commands import run, run_json, threads_env
from benchlib.stats import error_pct, geomean_of_known

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
# The six kinds the issue names first (a CNN, a depthwise CNN, an LSTM language model, a
# transformer with AdamW, an MLP, an embedding-bag recommender), then the other held-out models
# (bench/heldout_models.py, tests/python/batch_models.py).
MODELS = os.environ.get("MODELS", "resnet18 mobilenet lstm_lm gpt mlp recsys gru_seq unet vit tcn dcgan gnn "
                                  "seq2seq mixer cnn transformer").split()


def record(model, out, threads, profiler_step):
    argv = ["/usr/bin/python3", os.path.join(BENCH_DIR, "foreign_record.py"), model, out, str(threads)]
    run(argv + (["--profiler-step"] if profiler_step else []), threads_env(threads))
    with open(os.path.join(out, "truth.json")) as f:
        return json.load(f)


def main():
    mimic = sys.argv[1]
    thread_counts = [int(t) for t in (sys.argv[2] if len(sys.argv) > 2 else "1,2").split(",")]
    out_dir = sys.argv[3] if len(sys.argv) > 3 else "/tmp/mimic-foreign"
    blas = None
    rows = []
    for threads in thread_counts:
        for k, model in enumerate(MODELS):
            rec = os.path.join(out_dir, f"{model}_t{threads}")
            truth = record(model, rec, threads, profiler_step=k % 2 == 1)
            rep = run_json([mimic, "replay", rec, "--threads", str(threads), "--json", "-"], threads_env(threads))
            with open(os.path.join(out_dir, f"replay_{model}_t{threads}.json"), "w") as f:
                json.dump(rep, f)
            blas = blas or (rep.get("machines", {}).get("replay") or {}).get("blas", {}).get("config")
            gaps = rep["host_gap_model"]
            rows.append({"model": model, "threads": threads, "profiler_step": truth["profiler_step"],
                         "untraced_ms": truth["untraced_median_ms"], "replay_ms": rep["median_ms"],
                         "estimated_untraced_ms": rep.get("original_ms"), "host_gaps": rep["host_gaps"],
                         "traced_span_ms": gaps.get("traced_span_ms"),
                         "original_page_faults": truth.get("untraced_page_faults_median"),
                         "replay_page_faults": rep.get("page_faults_per_iter"),
                         "error_pct": error_pct(rep["median_ms"], truth["untraced_median_ms"]),
                         "estimate_error_pct": error_pct(rep["original_ms"], truth["untraced_median_ms"])
                         if rep.get("original_ms") else float("nan")})
            r = rows[-1]
            print(f"{model} at {threads} thread(s): replay {r['replay_ms']:.2f} ms against {r['untraced_ms']:.2f} ms "
                  f"untraced ({r['error_pct']:+.1f}%); page faults per step: original {r['original_page_faults']}, "
                  f"replay {r['replay_page_faults']}", file=sys.stderr)
    print(f"BLAS: {blas}")
    print(f"{'model':10} {'threads':>7} {'step':>5} {'traced_ms':>10} {'untraced_ms':>11} {'estimate_ms':>11} "
          f"{'replay_ms':>9} {'estimate':>9} {'replay':>8}")
    for r in rows:
        print(f"{r['model']:10} {r['threads']:>7} {'yes' if r['profiler_step'] else 'no':>5} "
              f"{r['traced_span_ms'] or float('nan'):>10.2f} {r['untraced_ms']:>11.2f} "
              f"{r['estimated_untraced_ms'] or float('nan'):>11.2f} {r['replay_ms']:>9.2f} "
              f"{r['estimate_error_pct']:>+8.1f}% {r['error_pct']:>+7.1f}%")
    for threads in thread_counts:
        mine = [r for r in rows if r["threads"] == threads]
        print(f"geometric mean |error| at {threads} thread(s): replay "
              f"{geomean_of_known([r['error_pct'] for r in mine]):.1f}%, untraced estimate "
              f"{geomean_of_known([r['estimate_error_pct'] for r in mine]):.1f}%")
    with open(os.path.join(out_dir, "replay_foreign.json"), "w") as f:
        json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
