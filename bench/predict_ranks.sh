#!/usr/bin/env bash
# Multi-rank prediction against measurement: records a data-parallel step on
# N local ranks over Gloo (ddp_mlp), replays it (mimic replay --nproc N),
# calibrates the ops and Gloo's collectives on this machine, and predicts
# every rank's iteration through the simulator; prints per rank the
# prediction against the replay's iteration time and the original's.
#   bench/predict_ranks.sh BUILD_DIR [NPROC=2] [WORKLOAD=ddp_mlp] [OUT=/tmp/mimic-ranks]
set -euo pipefail
BUILD=${1:-build}
N=${2:-2}
W=${3:-ddp_mlp}
OUT=${4:-/tmp/mimic-ranks}/$W-$N
mimic=$BUILD/mimic
export MIMIC_NO_PROGRESS=1 OPENBLAS_NUM_THREADS=1
mkdir -p "$OUT"
"$mimic" record --workload "$W" --nproc "$N" --out "$OUT/rec" --force > /dev/null
"$mimic" replay "$OUT/rec" --host-gaps measured --json "$OUT/replay.json" > "$OUT/replay.txt"
[ -f "$OUT/net/network_${N}ranks.yml" ] || "$mimic" calibrate --collectives --ranks "$N" --out "$OUT/net" > "$OUT/net.txt"
ranks=()
for r in $(seq 0 $((N - 1))); do ranks+=("$OUT/rec/rank$r"); done
rm -f "$OUT/costs.db"
"$mimic" calibrate "${ranks[@]}" --out "$OUT/costs.db" > /dev/null 2>&1
"$mimic" predict "$OUT/rec" --costs "$OUT/costs.db" --network "$OUT/net/network_${N}ranks.yml" \
    --system "$OUT/net/system_${N}ranks.json" --json "$OUT/predict.json" > "$OUT/predict.txt"
python3 - "$OUT" "$N" <<'PY'
import json, sys
out, n = sys.argv[1], int(sys.argv[2])
pred = json.load(open(f"{out}/predict.json"))["simulation"]["ranks"]
rep = json.load(open(f"{out}/replay.json"))
def replay_ms(r):
    ranks = rep.get("ranks") or []
    return ranks[r].get("median_ms") if r < len(ranks) else None
for r in range(n):
    meta = json.load(open(f"{out}/rec/rank{r}/meta.json"))
    p = pred[r]["finish_ns"] / 1e6
    orig = meta["untraced_median_ms"]
    rm = replay_ms(r)
    line = f"rank {r}: predicted {p:8.3f} ms  original untraced {orig:8.3f} ms ({100 * (p - orig) / orig:+.1f}%)"
    if rm:
        line += f"  replay {rm:8.3f} ms ({100 * (p - rm) / rm:+.1f}%)"
    print(line)
PY
