#!/bin/bash
# End-to-end: steps that use a feature of PyTorch (bench/heldout_models.py, FEATURES), each
# recorded as a user without mimic records it (PyTorch's observer and profiler), replay whole:
# every op replayed, none skipped. Each feature once broke the replay:
# - dlrm_sparse: sparse embedding gradients. The replay must make them sparse (checked in the
#   replay's own execution trace, where a sparse tensor has no storage), or SGD's update of a
#   table becomes a dense pass over all of it (the step ran 6x its original time);
# - autocast_mlp: ops under torch.autocast (the backward's bfloat16 GEMMs refused float inputs);
# - bilstm_packed: pack_padded_sequence (its kernel refused lengths that were not sorted);
# - vae: a 0-d float loss times a Python number (the product came out double);
# - quantized_lstm: quantize_dynamic's prepacked weights, recorded only as objects (the
#   LSTM and its head were skipped, their time spent as host work: +255%);
# - spectral_adam: complex weights, read by Adam after the backward's lazy conj of them
#   (view_as_real refused the conjugated view the replay had built);
# - channels_last_seg: a model and input moved to channels-last, which a 1.13 ET does not
#   record: the replay must find the conversions in the trace and make the step's 4-D inputs
#   channels-last (it ran them NCHW, 42% short of the original).
# $1 = mimic binary, $2 = shared traces dir. Exit 77 = skipped.
set -u
MIMIC=$1
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
"$MIMIC" replay --help > /dev/null 2>&1 || { echo "mimic built without libtorch: skip"; exit 77; }
/usr/bin/python3 -c "import torch" 2> /dev/null || { echo "no torch in /usr/bin/python3: skip"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 WARMUP_STEPS=1 UNTRACED_STEPS=2

for model in dlrm_sparse autocast_mlp bilstm_packed vae quantized_lstm spectral_adam channels_last_seg; do
    /usr/bin/python3 "$ROOT/bench/foreign_record.py" "$model" "$TMP/$model" 1 > "$TMP/$model.rec.log" 2>&1 \
        || { cat "$TMP/$model.rec.log"; fail "record $model"; }
    extra=()
    [ "$model" = dlrm_sparse ] && extra=(--record-replay "$TMP/dlrm_replayed")
    "$MIMIC" replay "$TMP/$model" --threads 1 --iters 1 --op-passes 1 --no-profiled-pass "${extra[@]}" \
        --json "$TMP/$model.json" > "$TMP/$model.txt" 2>&1 || { cat "$TMP/$model.txt"; fail "replay $model"; }
    python3 - "$TMP/$model.json" "$model" <<'PY' || fail "$model did not replay whole: $(grep -A5 skipped: "$TMP/$model.txt")"
import json, sys
rep = json.load(open(sys.argv[1]))
print(f"{sys.argv[2]}: {rep['ops_replayed']} of {rep['ops_total']} ops replayed, skipped {rep['ops_skipped']}")
assert rep["ops_replayed"] == rep["ops_total"] and not rep["ops_skipped"]
if sys.argv[2] == "channels_last_seg":
    print(f"  channels-last: {rep.get('channels_last_tensors')} tensors, {rep.get('channels_last_converting_ops')} converting ops")
    assert rep.get("channels_last_tensors", 0) >= 7 and rep.get("channels_last_format") == "channels_last"
else:
    assert "channels_last_tensors" not in rep, "a contiguous model taken for channels-last"
PY
done

# In the replay's own trace, SGD's update of each embedding table reads a tensor with no storage.
python3 - "$TMP/dlrm_replayed/et.json" <<'PY' || fail "the replayed update did not read a sparse gradient"
import json, sys
nodes = json.load(open(sys.argv[1]))["nodes"]
def sparse(t):
    return isinstance(t, list) and len(t) == 6 and t[1:5] == [0, 0, 0, 0]
updates = [n for n in nodes if n["name"] == "aten::add_" and n["inputs"] and n.get("input_shapes", [[]])[0] == [50000, 32]]
print(f"{len(updates)} updates of a [50000, 32] table, {sum(sparse(n['inputs'][1]) for n in updates)} of them by a sparse gradient")
assert updates and all(sparse(n["inputs"][1]) for n in updates)
PY
echo PASS
