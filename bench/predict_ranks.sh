#!/usr/bin/env bash
# Multi-rank simulation and prediction against measurement. Records a
# data-parallel step on N local ranks over Gloo (ddp_mlp), replays it
# REPEATS times (each a fresh set of processes, 40 timed iterations), fits
# Gloo's collectives on this machine into ASTRA-sim network files
# (calibrate --collectives REC: the kinds and sizes the recording runs),
# then gives every rank's iteration time two ways:
#   simulate  the recording converted (its profiled op times) on the fitted network
#   predict   the ops' costs calibrated on this machine, scheduled by the same engine
# and prints each against the median of the replays and against the original.
# The replays' own spread is printed too: on a shared 2-core VM one run moves
# by 20% or more, so a single replay is no reference.
#   bench/predict_ranks.sh BUILD_DIR [NPROC=2] [WORKLOAD=ddp_mlp] [OUT=/tmp/mimic-ranks] [REPEATS=5]
set -euo pipefail
BUILD=${1:-build}
N=${2:-2}
W=${3:-ddp_mlp}
OUT=${4:-/tmp/mimic-ranks}/$W-$N
REPEATS=${5:-5}
mimic=$BUILD/mimic
export MIMIC_NO_PROGRESS=1 OPENBLAS_NUM_THREADS=1
mkdir -p "$OUT"
echo "recording $W on $N ranks" >&2
"$mimic" record --workload "$W" --nproc "$N" --out "$OUT/rec" --force > /dev/null
for k in $(seq 1 "$REPEATS"); do
    echo "replay $k of $REPEATS" >&2
    "$mimic" replay "$OUT/rec" --host-gaps measured --iters 40 --json "$OUT/replay$k.json" > "$OUT/replay$k.txt"
done
if [ ! -f "$OUT/net/network_${N}ranks.yml" ]; then
    echo "calibrating Gloo collectives on $N ranks (the ones the recording runs)" >&2
    "$mimic" calibrate --collectives "$OUT/rec" --out "$OUT/net" > "$OUT/net.txt" 2>&1
fi
net=(--network "$OUT/net/network_${N}ranks.yml" --system "$OUT/net/system_${N}ranks.json")
"$mimic" simulate "$OUT/rec" "${net[@]}" --json "$OUT/simulate.json" > "$OUT/simulate.txt"
ranks=()
for r in $(seq 0 $((N - 1))); do ranks+=("$OUT/rec/rank$r"); done
rm -f "$OUT/costs.db"
echo "calibrating the ops" >&2
"$mimic" calibrate "${ranks[@]}" --out "$OUT/costs.db" > /dev/null 2>&1
"$mimic" predict "$OUT/rec" --costs "$OUT/costs.db" "${net[@]}" --json "$OUT/predict.json" > "$OUT/predict.txt"
python3 - "$OUT" "$N" "$REPEATS" <<'PY'
import json, statistics, sys
out, n, repeats = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
sim = json.load(open(f"{out}/simulate.json"))["ranks"]
pred = json.load(open(f"{out}/predict.json"))["simulation"]["ranks"]
replays = [json.load(open(f"{out}/replay{k}.json"))["ranks"] for k in range(1, repeats + 1)]
def pct(a, b):
    return f"{100 * (a - b) / b:+6.1f}%"
print(f"{'rank':>4} {'replay_ms':>10} {'spread_ms':>13} {'original_ms':>11} "
      f"{'simulate_ms':>11} {'vs_replay':>9} {'predict_ms':>10} {'vs_replay':>9} {'vs_original':>11}")
for r in range(n):
    times = sorted(rep[r]["median_ms"] for rep in replays)
    replay = statistics.median(times)
    orig = json.load(open(f"{out}/rec/rank{r}/meta.json"))["untraced_median_ms"]
    s = sim[r]["finish_ns"] / 1e6 if sim[r].get("finished", True) else float("nan")
    p = pred[r]["finish_ns"] / 1e6 if pred[r].get("finished", True) else float("nan")
    print(f"{r:>4} {replay:>10.3f} {times[0]:>6.2f}-{times[-1]:<6.2f} {orig:>11.3f} "
          f"{s:>11.3f} {pct(s, replay):>9} {p:>10.3f} {pct(p, replay):>9} {pct(p, orig):>11}")
PY
