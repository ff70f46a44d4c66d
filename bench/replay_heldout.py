#!/usr/bin/env python3
"""Replay accuracy on models mimic was not tuned on (bench/heldout_models.py).

Each round records every model afresh (`mimic record --script`) and replays it at once, with
each --host-gaps mode: `measured` with the full per-op report (the pass under the profiler
included), `recorded` and `untraced` for the end-to-end figure only. Prints, per model, the
coverage, the end-to-end error of each mode (median over rounds) and the per-op errors of the
`measured` replay (median over rounds), then the geometric means over models.

  bench/replay_heldout.py MIMIC [ROUNDS=2] [ITERS=15] [OUT_DIR=/tmp/mimic-heldout]
MODELS (environment) picks models, e.g. MODELS="gpt lstm_lm".
"""
import json
import os
import sys

from benchlib.models import HELDOUT, record
from benchlib.replays import replay_report
from benchlib.stats import geomean_of_known, median_or_nan

MODELS = os.environ.get("MODELS", " ".join(HELDOUT)).split()
GAP_MODES = ["measured", "recorded", "untraced"]


def main():
    mimic = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    iters = int(sys.argv[3]) if len(sys.argv) > 3 else 15
    out_dir = sys.argv[4] if len(sys.argv) > 4 else "/tmp/mimic-heldout"
    reports = {(m, g): [] for m in MODELS for g in GAP_MODES}
    for r in range(rounds):
        for m in MODELS:
            rec = os.path.join(out_dir, f"round{r}", m)
            record(mimic, m, rec, ["--force"])
            for g in GAP_MODES:
                # Only the `measured` replay times its ops; the others give the end-to-end figure.
                extra = [] if g == "measured" else ["--no-profiled-pass", "--op-passes", "1"]
                rep = replay_report(mimic, rec, f"{g}:recorded", iters, extra)
                with open(os.path.join(out_dir, f"round{r}", f"replay_{m}_{g}.json"), "w") as f:
                    json.dump(rep, f)
                reports[(m, g)].append(rep)
            print(f"round {r + 1}/{rounds}: {m} recorded and replayed", file=sys.stderr)

    keys = [("per_op_error_geomean_profiled_pct", "per_op_profiled"), ("per_op_error_geomean_pct", "per_op_corrected"),
            ("per_op_error_geomean_untraced_pct", "per_op_untraced")]
    print(f"{'model':10} {'coverage':>12} " + " ".join(f"{'e2e_' + g:>13}" for g in GAP_MODES) + " " +
          " ".join(f"{k[1]:>16}" for k in keys))
    table = {}
    for m in MODELS:
        full = reports[(m, "measured")]
        cov = f"{min(x['ops_replayed'] for x in full)}/{full[0]['ops_total']}"
        row = {g: median_or_nan(x.get("error_pct") for x in reports[(m, g)]) for g in GAP_MODES}
        row.update({k: median_or_nan(x.get(k) for x in full) for k, _ in keys})
        table[m] = row
        skipped = sorted({f"{s['name']} ({s['reason']})" for x in full for s in x.get("ops_skipped", [])})
        print(f"{m:10} {cov:>12} " + " ".join(f"{row[g]:+13.1f}" for g in GAP_MODES) + " " +
              " ".join(f"{row[k]:16.1f}" for k, _ in keys))
        for s in skipped:
            print(f"{'':10} skipped: {s}")
    print(f"{'geomean':10} {'':>12} " + " ".join(f"{geomean_of_known([table[m][g] for m in MODELS]):13.1f}" for g in GAP_MODES)
          + " " + " ".join(f"{geomean_of_known([table[m][k] for m in MODELS]):16.1f}" for k, _ in keys))
    print("(e2e: the replay's median iteration against the recording's untraced median, signed, median over rounds; "
          "geomean row: geometric mean of |error| over models)")


if __name__ == "__main__":
    main()
