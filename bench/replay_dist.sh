#!/usr/bin/env bash
# Multi-rank replay accuracy: records each built-in distributed workload at 2
# and 4 ranks (Gloo on loopback), replays it with `mimic replay --nproc`, and
# prints per rank the replay's median iteration against the original's
# untraced median, plus collective coverage and bus bandwidth per collective.
# Usage: bench/replay_dist.sh [MIMIC] [OUT_DIR]   (run on a quiet machine)
#   HOST_GAPS=none|recorded|untraced|measured (default none) is passed to --host-gaps,
#   PAGE_FAULTS=recorded|none (default recorded) to --page-faults;
#   KEEP=1 replays the recordings already in OUT_DIR instead of recording anew.
# This machine's speed drifts by tens of percent over minutes, so the
# workload is also timed again, untraced, right after the replay ("after"):
# the error against the mean of the untraced medians before and after the
# replay (bracketing it) is printed next to the error against the recording's.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
mimic="${1:-$here/../build/mimic}"
out="${2:-$(mktemp -d)}"
python=/usr/bin/python3
mkdir -p "$out"
for nproc in 2 4; do
    for workload in ddp_mlp dlrm_dist; do
        dir="$out/$workload$nproc"
        if [ "${KEEP:-0}" != 1 ] || [ ! -d "$dir" ]; then
            rm -rf "$dir"
            # Through `mimic record`, which loads the probe (op_faults, op_layouts, op_gaps).
            "$mimic" record --workload "$workload" --nproc "$nproc" --out "$dir" --warmup 3 --iters 10 \
                > "$dir.record.log" 2>&1
        fi
        "$mimic" replay "$dir" --warmup 3 --iters 10 --host-gaps "${HOST_GAPS:-none}" --page-faults "${PAGE_FAULTS:-recorded}" --json "$dir.json" > "$dir.txt"
        rm -rf "$dir.after"
        PYTHONPATH="$here/../python" "$python" -m mimic_record --workload "$workload" --nproc "$nproc" --out "$dir.after" \
            --warmup 3 --iters 10 > "$dir.after.log" 2>&1
        "$python" - "$dir.json" "$workload" "$nproc" "$dir.after" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
s = d["summary"]
errs = [r["error_pct"] for r in s["per_rank"]]
after = [json.load(open(os.path.join(sys.argv[4], f"rank{r}", "meta.json")))["untraced_median_ms"]
         for r in range(len(s["per_rank"]))]
bracketed = [(r["median_ms"] / ((r["original_ms"] + a) / 2) - 1) * 100 for r, a in zip(s["per_rank"], after)]
print(f"{sys.argv[2]:10} {sys.argv[3]} ranks: replay/original ms " +
      " ".join(f"{r['median_ms']:.2f}/{r['original_ms']:.2f}" for r in s["per_rank"]) +
      f"  error% {' '.join(f'{e:+.1f}' for e in errs)}" +
      f"  original after: {' '.join(f'{a:.2f}' for a in after)} ms, error vs mean% {' '.join(f'{e:+.1f}' for e in bracketed)}" +
      f"  collectives {s['collective_coverage_pct']:.0f}%  " +
      " ".join(f"{c['collective']}({c['pg_name']}) busbw {c['busbw_GBps']:.3f} GB/s" for c in s["collectives"]))
PY
    done
done
