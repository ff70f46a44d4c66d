#!/usr/bin/env bash
# Multi-rank prediction of steps recorded without mimic: MODEL on N local Gloo
# ranks with PyTorch's own observer and profiler (bench/foreign_ddp_record.py:
# mlp and cnn under DDP, manual with a synchronous all_reduce per gradient,
# manual_async with async_op calls), then, as a user would:
#   mimic calibrate --collectives REC   the collectives the recording runs, on this machine
#   mimic calibrate REC/rank*           the ops' costs and host time (from the profiles)
#   mimic predict REC --network ... --system ... --ranks-per-host N --cores-per-host CORES
# (a foreign trace names no host: the ranks are said to share this machine's cores, as they
# did) and prints each rank's prediction against its untraced step timed in the recording
# processes (truth.json, which mimic never reads).
#   bench/predict_foreign_ranks.sh BUILD_DIR [MODEL=mlp] [NPROC=2] [OUT=/tmp/mimic-foreign-ranks]
set -euo pipefail
BUILD=${1:-build}
MODEL=${2:-mlp}
N=${3:-2}
OUT=${4:-/tmp/mimic-foreign-ranks}/$MODEL-$N
mimic=$BUILD/mimic
export MIMIC_NO_PROGRESS=1 OPENBLAS_NUM_THREADS=1
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$OUT" && mkdir -p "$OUT"
echo "recording $MODEL on $N ranks" >&2
/usr/bin/python3 "$here/foreign_ddp_record.py" "$MODEL" "$OUT/rec" "$N" 1 > "$OUT/record.txt" 2>&1
echo "calibrating the collectives the recording runs" >&2
"$mimic" calibrate --collectives "$OUT/rec" --ranks "$N" --out "$OUT/net" > "$OUT/net.txt" 2>&1
ranks=()
for r in $(seq 0 $((N - 1))); do ranks+=("$OUT/rec/rank$r"); done
echo "calibrating the ops" >&2
"$mimic" calibrate "${ranks[@]}" --out "$OUT/costs.db" > "$OUT/costs.txt" 2>&1
"$mimic" predict "$OUT/rec" --costs "$OUT/costs.db" --network "$OUT/net/network_${N}ranks.yml" \
    --system "$OUT/net/system_${N}ranks.json" --ranks-per-host "$N" --cores-per-host "$(nproc)" \
    --json "$OUT/predict.json" > "$OUT/predict.txt" 2>&1
python3 - "$OUT" "$N" "$MODEL" <<'PY'
import json, sys
out, n, model = sys.argv[1], int(sys.argv[2]), sys.argv[3]
pred = json.load(open(f"{out}/predict.json"))["simulation"]["ranks"]
print(f"{model} on {n} ranks")
print(f"{'rank':>4} {'untraced_ms':>11} {'predict_ms':>10} {'error':>8}")
for r in range(n):
    truth = json.load(open(f"{out}/rec/rank{r}/truth.json"))["untraced_median_ms"]
    p = pred[r]["finish_ns"] / 1e6 if pred[r].get("finished", True) else float("nan")
    print(f"{r:>4} {truth:>11.2f} {p:>10.2f} {100 * (p - truth) / truth:>+7.1f}%")
PY
