#!/usr/bin/env python3
"""Replay of data-parallel traces mimic did not record, with default flags, rank by rank.

Each model is recorded afresh on NPROC local ranks over Gloo with DistributedDataParallel,
PyTorch's own execution-graph observer and profiler in each rank (bench/foreign_ddp_record.py:
rank<r>/et.json and profile.json, nothing of mimic's recorder), and each rank's untraced step is
timed in the same processes, before and after the recording (truth.json, which mimic never
reads). Then `mimic replay DIR` with nothing else: it finds the ranks, pairs each ET with its
profile, and replays them over Gloo. Prints each rank's replayed iteration against its untraced
step, the page faults per step on both sides, and the geometric mean of |error|.

  bench/replay_foreign_ranks.py MIMIC [NPROC=2] [OUT_DIR=/tmp/mimic-foreign-ranks] [REPEATS=1]
MODELS (environment) picks models (default: mlp cnn).
"""
import json
import os
import sys

from benchlib.commands import run, run_json, threads_env
from benchlib.stats import error_pct, geomean_of_known

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
MODELS = os.environ.get("MODELS", "mlp cnn").split()


def main():
    mimic = sys.argv[1]
    nproc = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    out_dir = sys.argv[3] if len(sys.argv) > 3 else "/tmp/mimic-foreign-ranks"
    repeats = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    env = threads_env(1, MIMIC_NO_PROGRESS="1")
    rows = []
    for model in MODELS:
        for k in range(repeats):
            rec = os.path.join(out_dir, f"{model}_{nproc}r_{k}")
            run(["/usr/bin/python3", os.path.join(BENCH_DIR, "foreign_ddp_record.py"), model, rec, str(nproc), "1"], env)
            rep = run_json([mimic, "replay", rec, "--json", "-"], env)
            for r in rep["ranks"]:
                with open(os.path.join(rec, f"rank{r['rank']}", "truth.json")) as f:
                    truth = json.load(f)
                rows.append({"model": model, "round": k, "rank": r["rank"], "host_gaps": r["host_gaps"],
                             "untraced_ms": truth["untraced_median_ms"], "replay_ms": r["median_ms"],
                             "original_page_faults": truth.get("untraced_page_faults_median"),
                             "replay_page_faults": r.get("page_faults_per_iter"),
                             "error_pct": error_pct(r["median_ms"], truth["untraced_median_ms"])})
                x = rows[-1]
                print(f"{model} round {k} rank {x['rank']}: replay {x['replay_ms']:.2f} ms against {x['untraced_ms']:.2f} ms "
                      f"untraced ({x['error_pct']:+.1f}%)", file=sys.stderr)
    print(f"{'model':6} {'round':>5} {'rank':>4} {'host_gaps':>12} {'untraced_ms':>11} {'replay_ms':>9} "
          f"{'faults_orig':>11} {'faults_replay':>13} {'error':>7}")
    for r in rows:
        print(f"{r['model']:6} {r['round']:>5} {r['rank']:>4} {r['host_gaps']:>12} {r['untraced_ms']:>11.2f} "
              f"{r['replay_ms']:>9.2f} {r['original_page_faults']:>11} {r['replay_page_faults']:>13} {r['error_pct']:>+6.1f}%")
    errors = [r["error_pct"] for r in rows]
    print(f"{nproc} ranks: geometric mean |error| {geomean_of_known(errors):.1f}%, "
          f"{sum(abs(e) <= 10 for e in errors)} of {len(errors)} ranks within 10%")
    with open(os.path.join(out_dir, "replay_foreign_ranks.json"), "w") as f:
        json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
