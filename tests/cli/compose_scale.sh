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
# Under load, 1.13 hands a new tensor the id and address of one just freed. Here the last
# threshold_backward's [64, 64] output takes the key of the transposed view before it (whose
# batch sits in dimension 1), as a CI run recorded: it must still scale as its inputs say.
python3 - "$TMP/recsys_64/et.json.gz" "$TMP/collide.json" <<'PY' || fail "could not make the colliding recording"
import gzip, json, sys
d = json.load(gzip.open(sys.argv[1]))
nodes = sorted(d["nodes"], key=lambda n: n["id"])
grad = t_key = out_key = start = None  # a ReLU's gradient, its transpose, the next ReLU gradient
for n in nodes:
    if n["name"] == "aten::threshold_backward" and n["output_shapes"] == [[64, 64]]:
        if grad is None:
            grad = n["outputs"][0][:2]
        elif t_key is not None and out_key is None:
            out_key, start = n["outputs"][0][:2], n["id"]
    elif n["name"] == "aten::t" and grad is not None and t_key is None and n["inputs"][0][:2] == grad:
        t_key = n["outputs"][0][:2]
assert t_key and out_key and out_key != t_key, (grad, t_key, out_key)
def sub(v):
    if isinstance(v, list):
        if len(v) == 6 and v[:2] == out_key:
            return t_key + v[2:]
        return [sub(x) for x in v]
    return v
for n in d["nodes"]:
    if n["id"] >= start:
        n["inputs"], n["outputs"] = sub(n["inputs"]), sub(n["outputs"])
json.dump(d, open(sys.argv[2], "w"))
PY
"$MIMIC" scale "$TMP/collide.json" --batch 2 -o "$TMP/collide_up.json" > /dev/null || fail "scale the colliding recsys 64 x2"
compare "$TMP/collide_up.json" "$TMP/recsys_128/et.json.gz" || fail "a new tensor on a freed view's key took the view's batch dimension"
"$MIMIC" scale "$TMP/recsys_128" --batch 0.5 -o "$TMP/recsys_128_down.json" > /dev/null || fail "scale recsys 128 x0.5"
compare "$TMP/recsys_128_down.json" "$TMP/recsys_64/et.json.gz" || fail "recsys 128 scaled x0.5 differs from the recording at 64"
echo "PASS"
