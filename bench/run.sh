#!/usr/bin/env bash
# Runs mimic's benchmarks on demand (never as unit tests) and prints their
# figures: ET reading speed and memory (real traces, a generated 1 GB ET and,
# with BIG=1, a 4.6 GB one past simdjson's 4 GiB document limit), Chakra read
# and write speed, Kineto reading and linking, analyze wall time, the
# replayer's per-op overhead, and (with REPLAY=1, several minutes) replay
# accuracy: single-process back to back with the original, and multi-rank.
#   bench/run.sh BUILD_DIR            (make bench)
set -euo pipefail
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TRACES=${MIMIC_TRACES_DIR:-$ROOT/../shared/traces}
DATA=$BUILD/bench-data
mkdir -p "$DATA"
export MIMIC_NO_PROGRESS=1

echo "== ET reader (MB/s of uncompressed JSON, peak RSS / JSON size)"
if [ ! -f "$DATA/et_1gb.json" ]; then
    python3 "$ROOT/bench/make_big_et.py" "$TRACES/pytorch/resnet_1gpu_et_1.1.1.json.gz" "$DATA/et_1gb.json" 1000
fi
for f in "$TRACES"/pytorch/*.json.gz "$DATA/et_1gb.json"; do
    "$BUILD/bench/et_reader_bench" "$f"
done
if [ "${BIG:-0}" = 1 ]; then
    [ -f "$DATA/et_4600mb.json" ] ||
        python3 "$ROOT/bench/make_big_et.py" "$TRACES/pytorch/resnet_1gpu_et_1.1.1.json.gz" "$DATA/et_4600mb.json" 4600
    [ -f "$DATA/et_4600mb.json.gz" ] || gzip -1 -k "$DATA/et_4600mb.json"
    "$BUILD/bench/et_reader_bench" "$DATA/et_4600mb.json" "$DATA/et_4600mb.json.gz"
fi

echo "== Chakra read/write (items_per_second = Chakra nodes/s)"
"$BUILD/bench/chakra_bench" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
echo "== Chakra read of feeder_sample, min and median thread CPU time per read (steadier on a drifting VM)"
MIMIC_TRACES_DIR="$TRACES" "$BUILD/bench/chakra_read_steady_bench" "" 200

echo "== Kineto reader and linker"
"$BUILD/bench/kineto_bench" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true

echo "== mimic analyze on the largest shared ET (wall seconds)"
for i in 1 2 3; do
    /usr/bin/time -f "%e s, %M KB peak" "$BUILD/mimic" analyze "$TRACES/pytorch/resnet_1gpu_et_1.1.1.json.gz" > /dev/null
done

if [ -x "$BUILD/bench/replay_overhead_bench" ]; then
    echo "== replayer overhead per op over a bare callBoxed (us)"
    "$BUILD/bench/replay_overhead_bench" 2000 15
fi

if [ "${REPLAY:-0}" = 1 ] && [ -x "$BUILD/mimic-torch" ]; then
    echo "== replay accuracy end to end, 1, 2 and 4 ranks: original and replay in alternating blocks (bench/replay_paired.py)"
    /usr/bin/python3 "$ROOT/bench/replay_paired.py" "$BUILD/mimic" 24 5 "$DATA/replay-paired"
    echo "== replay accuracy per op, fresh recordings (bench/replay_accuracy.py)"
    /usr/bin/python3 "$ROOT/bench/replay_accuracy.py" "$BUILD/mimic" 3 15 "$DATA/replay-accuracy"
fi
