#!/usr/bin/env bash
# How long `mimic predict` takes on a big trace (target: a 100,000-node trace
# in under 1 s). The trace is a generated GPT iteration as a PyTorch ET
# (mimic generate --format et), one rank, LAYERS layers (1,024 make about
# 100,000 ops); its costs are calibrated first (not timed here: calibrate
# measures each distinct signature once, and a repeated layer has few).
# usage: bench/predict_speed.sh BUILD_DIR [LAYERS] [RUNS]
set -euo pipefail
build=${1:?usage: predict_speed.sh BUILD_DIR [LAYERS] [RUNS]}
layers=${2:-1024}
runs=${3:-3}
mimic="$build/mimic"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export MIMIC_NO_PROGRESS=1 OPENBLAS_NUM_THREADS=1

"$mimic" generate gpt --ranks 1 --layers "$layers" --hidden 64 --heads 4 --seq 16 --vocab 128 --format et -o "$work/gpt" > /dev/null
nodes=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['nodes']))" "$work/gpt/rank0/et.json")
"$mimic" calibrate "$work/gpt/rank0" --out "$work/costs.db" --quick > /dev/null 2>&1
times=()
for _ in $(seq "$runs"); do
    start=$(date +%s.%N)
    "$mimic" predict "$work/gpt/rank0" --costs "$work/costs.db" --json "$work/p.json" > /dev/null 2>&1
    end=$(date +%s.%N)
    times+=("$(python3 -c "print(f'{$end - $start:.3f}')")")
done
median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
ops=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['ops']['total'])" "$work/p.json")
rss=$( { /usr/bin/time -f '%M' "$mimic" predict "$work/gpt/rank0" --costs "$work/costs.db" > /dev/null; } 2>&1 | tail -1)
echo "predict: $nodes nodes ($ops top-level ops predicted), ${median} s (median of $runs: ${times[*]}), peak RSS $((rss / 1024)) MiB"
