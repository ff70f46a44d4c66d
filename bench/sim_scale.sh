#!/usr/bin/env bash
# How mimic simulate's time and memory grow with ranks and with nodes per
# rank, on the data-parallel workload of bench/sim_workload.py (each layer
# 100 us of compute overlapped with a 64 MiB all-reduce, or a 16 MiB
# all-to-all; Ring(8) x Switch(RANKS/8), 4 splits, 2 active chunks).
#   bench/sim_scale.sh BUILD_DIR [ASTRA_SIM_BINARY]
# With ASTRA-sim's AstraSim_Unaware given, also runs it on the inputs it can
# finish here (up to 256 ranks) and checks that every rank's finish time is the same.
set -euo pipefail
BUILD=${1:-build}
ASTRA=${2:-}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DATA=$BUILD/bench-data/sim
mkdir -p "$DATA"
export MIMIC_NO_PROGRESS=1
mimic=$BUILD/mimic

run() {  # name ranks layers size collective [extra mimic args]
    local name=$1 ranks=$2 layers=$3 size=$4 coll=$5; shift 5
    local dir=$DATA/$name
    [ -f "$dir/workload.$((ranks - 1)).et" ] || python3 "$ROOT/bench/sim_workload.py" "$mimic" "$dir" "$ranks" "$layers" "$size" "$coll" > /dev/null
    local t
    /usr/bin/time -o "$dir/time.txt" -f "%e %M" "$mimic" simulate "$dir/workload" --network "$dir/network.yml" \
        --system "$dir/system.json" --json "$dir/mimic.json" "$@" > /dev/null 2> "$dir/stderr.txt"
    t=$(tail -1 "$dir/time.txt")
    local finish
    finish=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['iteration_ns'])" "$dir/mimic.json")
    printf "%-14s %6d ranks %5d layers %-11s %8.2f s %8.0f MB  iteration %d ns %s\n" "$name" "$ranks" "$layers" "$coll" \
        "${t% *}" "$(echo "${t#* } / 1024" | bc -l)" "$finish" "$*"
}

echo "== rank-symmetric workloads (every rank runs the same graph: simulated once)"
for r in 64 256 1024 4096 16384; do run "ar_r$r" "$r" 100 67108864 all_reduce; done
run a2a_r1024 1024 20 16777216 all_to_all
for l in 10 1000 10000; do run "ar_r1024_l$l" 1024 "$l" 67108864 all_reduce; done
echo "== every rank simulated (--every-rank): the general engine"
for r in 16 64 256; do run "ar_r$r" "$r" 100 67108864 all_reduce --every-rank; done
run a2a_r64 64 20 16777216 all_to_all --every-rank

if [ -n "$ASTRA" ]; then
    echo "== ASTRA-sim on the same inputs (AstraSim_Unaware)"
    for name in ar_r64 ar_r256 a2a_r64; do
        dir=$DATA/$name
        echo '{"memory-type": "NO_MEMORY_EXPANSION"}' > "$dir/memory.json"
        /usr/bin/time -o "$dir/astra-time.txt" -f "%e %M" "$ASTRA" --workload-configuration="$dir/workload" \
            --system-configuration="$dir/system.json" --remote-memory-configuration="$dir/memory.json" \
            --network-configuration="$dir/network.yml" --logging-folder="$dir/astra-log" > "$dir/astra.txt" 2>&1
        t=$(tail -1 "$dir/astra-time.txt")
        same=$(python3 - "$dir/astra.txt" "$dir/mimic.json" <<'PY'
import json, re, sys
astra = {int(m.group(1)): int(m.group(2)) for m in re.finditer(r"sys\[(\d+)\] finished, (\d+) cycles", open(sys.argv[1]).read())}
mimic = {r["rank"]: r["finish_ns"] for r in json.load(open(sys.argv[2]))["ranks"]}
print("same finish on all %d ranks" % len(mimic) if astra == mimic else "DIFFERENT: %d ranks differ" % sum(astra.get(k) != v for k, v in mimic.items()))
PY
)
        printf "%-14s ASTRA-sim %8.2f s %8.0f MB  %s\n" "$name" "${t% *}" "$(echo "${t#* } / 1024" | bc -l)" "$same"
    done
fi
