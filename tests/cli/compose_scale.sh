#!/bin/bash
# End-to-end: mimic scale on real recordings made now. Four models of different kinds
# (tests/python/batch_models.py: MLP, CNN with batch norm, transformer LM, embedding-bag
# recommender) are recorded at batch B and 2B; B scaled x2 and 2B scaled x0.5 must give
# the top-level ops (name, shapes, size lists) of the real recording at that batch, and
# the scaled trace must replay; the recommender also at B = 64, its layers' width. Bad factors
# and traces fail with one clear line.
# $1 = mimic binary, $2 = shared traces dir. Exit 77 = skipped.
set -u
MIMIC=$1
TRACES=$2
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
compare() { python3 "$ROOT/bench/et_top_level_shapes.py" "$@"; }

# Real shared traces: scaled and read back; a bad factor names the node and size.
if [ -f "$TRACES/pytorch/resnet_et.json.gz" ]; then
    out=$("$MIMIC" scale "$TRACES/pytorch/resnet_et.json.gz" --batch 2 -o "$TMP/r.json.gz") || fail "scale resnet"
    echo "$out" | grep -q "batch 32 -> 64" || fail "resnet's batch: $out"
    "$MIMIC" analyze "$TMP/r.json.gz" > /dev/null || fail "analyze the scaled resnet"
    msg=$("$MIMIC" scale "$TRACES/pytorch/resnet_et.json.gz" --batch 1.3 -o "$TMP/x.json" 2>&1) && fail "a non-whole batch was taken"
    echo "$msg" | grep -q "32 x 1.300000 is not a whole size" || fail "non-whole message: $msg"
fi
if [ -f "$TRACES/pytorch/chakra_sample_1.0.2.json.gz" ]; then
    msg=$("$MIMIC" scale "$TRACES/pytorch/chakra_sample_1.0.2.json.gz" --batch 2 -o "$TMP/x.json" 2>&1) && fail "a trace without data was scaled"
    echo "$msg" | grep -q "chakra_sample_1.0.2.json.gz: field 'inputs': no input data found" || fail "no-data message: $msg"
fi

"$MIMIC" replay --help > /dev/null 2>&1 || { echo "mimic built without libtorch: shared traces checked, recordings skipped"; exit 0; }
/usr/bin/python3 -c "import torch" 2> /dev/null || { echo "no torch in /usr/bin/python3: recordings skipped"; exit 0; }
export OPENBLAS_NUM_THREADS=1
for spec in mlp:64 cnn:16 transformer:8 recsys:128; do
    model=${spec%%:*} b=${spec##*:}
    for batch in $b $((2 * b)); do
        MIMIC_BATCH=$batch "$MIMIC" record --script "$ROOT/tests/python/batch_models.py:$model" --out "$TMP/${model}_$batch" \
            --warmup 1 --iters 3 --threads 1 > "$TMP/rec.log" 2>&1 || { cat "$TMP/rec.log"; fail "record $model at $batch"; }
    done
    "$MIMIC" scale "$TMP/${model}_$b" --batch 2 -o "$TMP/${model}_up.json" > /dev/null || fail "scale $model x2"
    compare "$TMP/${model}_up.json" "$TMP/${model}_$((2 * b))/et.json.gz" || fail "$model scaled x2 differs from the recording at $((2 * b))"
    "$MIMIC" scale "$TMP/${model}_$((2 * b))" --batch 0.5 -o "$TMP/${model}_down.json" > /dev/null || fail "scale $model x0.5"
    compare "$TMP/${model}_down.json" "$TMP/${model}_$b/et.json.gz" || fail "$model scaled x0.5 differs from the recording at $b"
    "$MIMIC" replay "$TMP/${model}_up.json" --warmup 0 --iters 1 --op-passes 1 --profiled-sessions 1 --no-profiled-pass \
        > "$TMP/replay.txt" 2>&1 || { cat "$TMP/replay.txt"; fail "replay $model scaled"; }
    grep -q "top-level replayed (100.00%)" "$TMP/replay.txt" || fail "$model scaled did not replay whole: $(grep top-level "$TMP/replay.txt")"
done
# A batch equal to the layers' width (the recommender's 64-wide layers at B = 64): a bias
# gradient's sum over the batch of a [64, 64] and a transpose of one must not be taken for it.
MIMIC_BATCH=64 "$MIMIC" record --script "$ROOT/tests/python/batch_models.py:recsys" --out "$TMP/recsys_64" \
    --warmup 1 --iters 3 --threads 1 > "$TMP/rec.log" 2>&1 || { cat "$TMP/rec.log"; fail "record recsys at 64"; }
"$MIMIC" scale "$TMP/recsys_64" --batch 2 -o "$TMP/recsys_64_up.json" > /dev/null || fail "scale recsys 64 x2"
compare "$TMP/recsys_64_up.json" "$TMP/recsys_128/et.json.gz" || fail "recsys at B = 64 (= its width) scaled x2 differs from the recording at 128"
"$MIMIC" scale "$TMP/recsys_128" --batch 0.5 -o "$TMP/recsys_128_down.json" > /dev/null || fail "scale recsys 128 x0.5"
compare "$TMP/recsys_128_down.json" "$TMP/recsys_64/et.json.gz" || fail "recsys 128 scaled x0.5 differs from the recording at 64"
echo "PASS"
