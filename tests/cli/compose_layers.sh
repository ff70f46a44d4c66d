#!/bin/bash
# End-to-end: mimic scale --keep-layers and --repeat-layers on real recordings made now. An MLP
# (512-wide hidden layers) and a transformer LM (tests/python/batch_models.py) are recorded with
# 4, 2 and 1 layers; the 4-layer trace trimmed to 2 and to 1, and the 2-layer one repeated to 4,
# must give the top-level ops (name, shapes, size lists) of the real recording with that many
# layers, and must replay whole. Traces with
# no repeated layer, with layers one op serves at once, and out-of-range counts fail with one
# clear line.
# $1 = mimic binary, $2 = shared traces dir. Exit 77 = skipped.
set -u
MIMIC=$1
TRACES=$2
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
compare() { python3 "$ROOT/bench/et_top_level_shapes.py" "$@"; }
expect_error() {  # expect_error WANT ARGS...: exit 1 and one line containing WANT
    local want=$1
    shift
    local msg rc
    msg=$("$MIMIC" scale "$@" 2>&1)
    rc=$?
    [ $rc = 1 ] && [ "$(echo "$msg" | wc -l)" = 1 ] && echo "$msg" | grep -q -- "$want" || fail "scale $*: rc $rc: $msg"
}

if [ -f "$TRACES/pytorch/chakra_sample_1.0.2.json.gz" ]; then
    expect_error "no repeated layer found" "$TRACES/pytorch/chakra_sample_1.0.2.json.gz" --keep-layers 1 -o "$TMP/x.json"
fi
if [ -f "$TRACES/pytorch/resnet_et.json.gz" ]; then
    # DDP copies every layer's gradient into one flat bucket: its layers cannot be told apart.
    expect_error "node 3840: field 'inputs': touches the tensors of layers" "$TRACES/pytorch/resnet_et.json.gz" --keep-layers 1 -o "$TMP/x.json"
fi
if [ -f "$TRACES/pytorch/linear_et.json.gz" ]; then
    # 21 Linear+ReLU layers on a GPU, SGD as one _foreach_add_ over every parameter: 2 kept,
    # the foreach lists keep the 2 layers' weights and biases, and the result reads back.
    "$MIMIC" scale "$TRACES/pytorch/linear_et.json.gz" --keep-layers 2 -o "$TMP/linear2.json.gz" --json "$TMP/linear2.json" > /dev/null \
        || fail "keep 2 of linear_et"
    python3 - "$TMP/linear2.json" "$TMP/linear2.json.gz" <<'PY' || fail "linear_et trimmed"
import gzip, json, sys
s = json.load(open(sys.argv[1]))
assert (s["layers_before"], s["layers_after"], s["ops_per_layer"]) == (21, 2, 2), s
assert s["inputs_materialised"] == 0, s
d = json.load(gzip.open(sys.argv[2]))
foreach = [n for n in d["nodes"] if n["name"].startswith("aten::_foreach_")]
assert len(foreach) == 1 and [len(v) for v in foreach[0]["input_shapes"][:2]] == [4, 4], foreach[0]["input_shapes"]
assert foreach[0]["input_types"][0].count("Tensor") == 4, foreach[0]["input_types"][0]
assert sum(n["name"] == "aten::linear" for n in d["nodes"]) == 2
PY
    "$MIMIC" analyze "$TMP/linear2.json.gz" > /dev/null || fail "analyze the trimmed linear_et"
    # And 21 made 25: the foreach lists get the 4 copies' weights and biases after the last layer's.
    "$MIMIC" scale "$TRACES/pytorch/linear_et.json.gz" --repeat-layers 25 -o "$TMP/linear25.json.gz" > /dev/null \
        || fail "repeat linear_et to 25"
    python3 - "$TMP/linear25.json.gz" <<'PY' || fail "linear_et repeated"
import gzip, json, sys
d = json.load(gzip.open(sys.argv[1]))
foreach = [n for n in d["nodes"] if n["name"].startswith("aten::_foreach_")][0]
assert [len(v) for v in foreach["inputs"][:2]] == [50, 50], [len(v) for v in foreach["inputs"][:2]]
assert foreach["input_types"][1].count("Tensor") == 50
assert len({t[1] for t in foreach["inputs"][0]}) == 50 and len({t[1] for t in foreach["inputs"][1]}) == 50
assert sum(n["name"] == "aten::linear" for n in d["nodes"]) == 25
PY
    "$MIMIC" analyze "$TMP/linear25.json.gz" > /dev/null || fail "analyze the repeated linear_et"
fi
expect_error "give --batch X, --keep-layers K or --repeat-layers K" "$TRACES/pytorch/resnet_et.json.gz" -o "$TMP/x.json"

"$MIMIC" replay --help > /dev/null 2>&1 || { echo "mimic built without libtorch: shared traces checked, recordings skipped"; exit 0; }
/usr/bin/python3 -c "import torch" 2> /dev/null || { echo "no torch in /usr/bin/python3: recordings skipped"; exit 0; }
export OPENBLAS_NUM_THREADS=1
for model in mlp transformer; do
    for layers in 4 2 1; do
        MIMIC_LAYERS=$layers "$MIMIC" record --script "$ROOT/tests/python/batch_models.py:$model" --out "$TMP/${model}_$layers" \
            --warmup 1 --iters 3 --threads 1 > "$TMP/rec.log" 2>&1 || { cat "$TMP/rec.log"; fail "record $model with $layers layers"; }
    done
    for keep in 2 1; do
        out=$("$MIMIC" scale "$TMP/${model}_4" --keep-layers $keep -o "$TMP/${model}_keep$keep.json") || fail "keep $keep of $model"
        echo "$out" | grep -q "layers 4 -> $keep" || fail "$model's layers: $out"
        compare "$TMP/${model}_keep$keep.json" "$TMP/${model}_$keep/et.json.gz" \
            || fail "$model with $keep of 4 layers kept differs from the recording with $keep"
    done
    "$MIMIC" replay "$TMP/${model}_keep2.json" --warmup 0 --iters 1 --op-passes 1 --profiled-sessions 1 --no-profiled-pass \
        > "$TMP/replay.txt" 2>&1 || { cat "$TMP/replay.txt"; fail "replay $model trimmed"; }
    grep -q "top-level replayed (100.00%)" "$TMP/replay.txt" || fail "$model trimmed did not replay whole: $(grep top-level "$TMP/replay.txt")"
    expect_error "the trace has 4 repeated layers; cannot keep 5" "$TMP/${model}_4" --keep-layers 5 -o "$TMP/x.json"
    # The other way: 2 layers made 4, against the real 4-layer recording, and replayed whole.
    out=$("$MIMIC" scale "$TMP/${model}_2" --repeat-layers 4 -o "$TMP/${model}_repeat4.json") || fail "repeat $model to 4"
    echo "$out" | grep -q "layers 2 -> 4" || fail "$model's layers: $out"
    compare "$TMP/${model}_repeat4.json" "$TMP/${model}_4/et.json.gz" || fail "$model repeated to 4 layers differs from the recording with 4"
    python3 - "$TMP/${model}_repeat4.json" "$TMP/${model}_4/et.json.gz" <<'PY' || fail "$model repeated: ids and tensors"
import gzip, json, sys
def load(path):
    return json.load(gzip.open(path) if path.endswith(".gz") else open(path))["nodes"]
def tensors(values, out):
    if isinstance(values, list) and len(values) == 6 and all(isinstance(x, int) for x in values[:5]):
        out.append(values)
    elif isinstance(values, list):
        for v in values:
            tensors(v, out)
    return out
def held(nodes):
    """Storages read before any op made them: parameters, gradients, optimizer state, data."""
    made, held = set(), set()
    for n in sorted(nodes, key=lambda n: n["id"]):
        held |= {t[1] for t in tensors(n["inputs"], []) if t[3] > 1 and t[1] not in made}
        made |= {t[1] for t in tensors(n["outputs"], [])}
    return len(held)
repeated, real = load(sys.argv[1]), load(sys.argv[2])
ids = [n["id"] for n in repeated]
assert len(set(ids)) == len(ids), "duplicate node ids"
assert all(n["parent"] in set(ids) for n in repeated), "a parent that is no node"
# Every copied layer holds parameters, gradients and state of its own, as the real 4 layers do.
# A layer holds a dozen or more (weights, gradients, Adam's two moments); 1.13 numbers storages
# by address, so a recording whose allocator hands a read storage's address to a new one
# counts one fewer or more (206 against 207 in one clean-clone run).
assert abs(held(repeated) - held(real)) <= 2, (held(repeated), held(real))
PY
    "$MIMIC" convert "$TMP/${model}_repeat4.json" --out "$TMP/${model}_repeat4_chakra" > /dev/null 2>&1 || fail "convert $model repeated"
    "$MIMIC" replay "$TMP/${model}_repeat4.json" --warmup 0 --iters 1 --op-passes 1 --profiled-sessions 1 --no-profiled-pass \
        > "$TMP/replay.txt" 2>&1 || { cat "$TMP/replay.txt"; fail "replay $model repeated"; }
    grep -q "top-level replayed (100.00%)" "$TMP/replay.txt" || fail "$model repeated did not replay whole: $(grep top-level "$TMP/replay.txt")"
    expect_error "the trace has 4 repeated layers; --repeat-layers 3 must be more" "$TMP/${model}_4" --repeat-layers 3 -o "$TMP/x.json"
    expect_error "give --keep-layers or --repeat-layers, not both" "$TMP/${model}_4" --keep-layers 2 --repeat-layers 6 -o "$TMP/x.json"
    # Both at once: trimmed, then its batch doubled.
    "$MIMIC" scale "$TMP/${model}_4" --keep-layers 2 --batch 2 -o "$TMP/${model}_both.json" > /dev/null || fail "$model: layers and batch at once"
done
echo "PASS"
