#!/usr/bin/env bash
# mimic calibrate + predict end to end: a recording made now is calibrated
# (its ops timed through the replayer), predicted from its ET with the JSON
# fields scripts use, calibrated again without re-timing; a GPU trace's
# kernels estimated from a device spec; bad input: one line, exit 1.
# $1 = mimic binary, $2 = shared traces directory. Exit 77 = skip.
set -uo pipefail
mimic="$1"
traces="$2"
python="${MIMIC_PYTHON:-/usr/bin/python3}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export MIMIC_NO_PROGRESS=1
# One BLAS thread, as the recording and calibration are at one intra-op thread: torch's
# set_num_threads leaves OpenBLAS's own pool at the core count, and two OpenBLAS threads
# beside another test on a 2-core machine timed the MLP's GEMMs 10-15x slow (two CI runs
# predicted 35 ms for a 3 ms step while cli.compose_scale replayed beside them).
export OPENBLAS_NUM_THREADS=1
fail() { echo "FAIL: $*"; exit 1; }

if "$python" -c "import torch" 2> /dev/null && [ -x "$(dirname "$mimic")/mimic-torch" ]; then
    "$mimic" record --workload mlp --out "$work/mlp" --warmup 1 --iters 3 > /dev/null 2>&1 || fail "record mlp"
    "$mimic" calibrate "$work/mlp" --out "$work/costs.db" --quick > "$work/cal.txt" 2> "$work/cal.err" || fail "calibrate: $(cat "$work/cal.err")"
    grep -q "signatures" "$work/cal.txt" || fail "calibrate output: $(cat "$work/cal.txt")"
    grep -q "fitted on 1 recordings" "$work/cal.txt" || fail "host time not fitted: $(cat "$work/cal.txt")"
    # The shape sweep: every op family measured, conv and embedding too though the MLP has none.
    grep -q "mimic calibrate: shape sweep of [0-9]* ops (.*conv.*embedding.*gemm.*norm.*optimizer.*softmax" "$work/cal.err" \
        || fail "no shape sweep: $(grep sweep "$work/cal.err")"
    python3 -c "import json,sys; f={o['family'] for o in json.load(open(sys.argv[1]))['ops']}; assert {'gemm','conv','embedding','norm','softmax','elementwise','reduction','optimizer','copy'} <= f, f" \
        "$work/costs.db" || fail "the sweep's families are not in the database"
    "$mimic" predict "$work/mlp" --costs "$work/costs.db" --json "$work/p.json" > "$work/p.txt" || fail "predict"
    python3 - "$work/p.json" <<'PY' || fail "predict JSON: $(cat "$work/p.json")"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["iteration_ms"] > 0
assert p["breakdown"]["compute_ms"] > 0 and p["breakdown"]["host_overhead_ms"] > 0
assert p["ops"]["measured"] == p["ops"]["total"] > 0, p["ops"]
assert p["critical_path"] and p["critical_path"][0]["share"] > 0
assert abs(p["error_pct"]) < 1000
PY
    grep -q "predicted iteration" "$work/p.txt" || fail "predict text"
    # What if the batch were twice as large: the trace rewritten at 2x, more time, no comparison with
    # the original (another batch); with --network it is refused, naming the option.
    "$mimic" predict "$work/mlp" --costs "$work/costs.db" --batch-scale 2 --json "$work/p2.json" > "$work/p2.txt" 2> "$work/p2.err" \
        || fail "predict --batch-scale 2: $(cat "$work/p2.err")"
    [[ "$(cat "$work/p2.err")" =~ batch\ ([0-9]+)\ -\>\ ([0-9]+) ]] && [ "${BASH_REMATCH[2]}" = $((BASH_REMATCH[1] * 2)) ] \
        || fail "--batch-scale: $(cat "$work/p2.err")"
    python3 -c "import json,sys; b=json.load(open(sys.argv[1])); assert b['batch_scale'] == 2 and b['iteration_ms'] > 0 and 'error_pct' not in b, b" \
        "$work/p2.json" || fail "--batch-scale JSON"
    # No less GEMM time at 2x. Both sides from the same family models (--unseen): the 1x trace's
    # own signatures were timed while other tests ran, the 2x shapes mostly were not timed at all,
    # so a measured 1x against a modelled 2x compares the machine's load, not two batches. Even
    # one model's curve can fall between two size bins when the sweep was timed under load (a CI
    # run: 17.1 ms at 1x, 9.9 ms at 2x); predict then holds such ops at their 1x time and says so.
    for scale in 1 2; do
        "$mimic" predict "$work/mlp" --costs "$work/costs.db" --batch-scale $scale --unseen --json "$work/u$scale.json" > /dev/null 2>&1 \
            || fail "predict --batch-scale $scale --unseen"
    done
    python3 - "$work/u1.json" "$work/u2.json" <<'PY' || fail "--batch-scale 2 predicts less GEMM time than 1 from the same models"
import json, sys
one, two = (json.load(open(f)) for f in sys.argv[1:])
a, b = (p["breakdown"]["compute_by_family_ms"]["gemm"] for p in (one, two))
assert b >= a, (a, b)
assert b > a or two["ops"]["held_to_recorded_batch"] > 0, (a, b, two["ops"])
assert "held_to_recorded_batch" not in one["ops"]
PY
    # --what-if: one prediction per value, ranked fastest first; a value that cannot be predicted
    # (no measurements at 2 threads) is listed with its reason and makes the exit code 1.
    "$mimic" predict "$work/mlp" --costs "$work/costs.db" --what-if batch-scale=2,0.5,1 --json "$work/w.json" > "$work/w.txt" 2> "$work/w.err" \
        || fail "--what-if batch-scale: $(cat "$work/w.err")"
    python3 - "$work/w.json" <<'PY' || fail "--what-if JSON: $(cat "$work/w.json")"
import json, sys
w = json.load(open(sys.argv[1]))
r = w["results"]
assert w["what_if"] == "batch-scale" and sorted(x["value"] for x in r) == ["0.5", "1", "2"], w
assert [x["rank"] for x in r] == [1, 2, 3] and [x["iteration_ms"] for x in r] == sorted(x["iteration_ms"] for x in r), r
one = next(x for x in r if x["value"] == "1")
assert one["family_model_ops"] == 0 and one["ops"] > 0 and one["breakdown"]["compute_ms"] > 0, one
PY
    grep -q "what if batch-scale were each of 3 values" "$work/w.txt" && grep -q "fastest" "$work/w.txt" || fail "--what-if table: $(cat "$work/w.txt")"
    if "$mimic" predict "$work/mlp" --costs "$work/costs.db" --what-if threads=1,2 > "$work/w2.txt" 2> "$work/w2.err"; then
        fail "--what-if threads=1,2 without 2-thread measurements exited 0"; fi
    grep -q "threads = 2: not predicted: .*has no measurements at 2 threads" "$work/w2.txt" || fail "--what-if threads: $(cat "$work/w2.txt")"
    for bad in "batch=1,2:unknown setting" "threads=1:two values or more" "threads=1,1.5:not a whole number" "batch-scale=1,1:given twice" \
               "ranks=2,4:need --network and --system"; do
        if "$mimic" predict "$work/mlp" --costs "$work/costs.db" --what-if "${bad%%:*}" > /dev/null 2> "$work/bad.err"; then
            fail "--what-if ${bad%%:*} accepted"; fi
        grep -q "what-if.*${bad#*:}" "$work/bad.err" || fail "--what-if ${bad%%:*}: $(cat "$work/bad.err")"
    done
    # ranks: one network file per rank count, {ranks} in its path.
    mkdir -p "$work/net"
    for n in 2 4; do
        printf 'topology: [ Switch ]\nnpus_count: [ %d ]\nbandwidth: [ 1.0 ]\nlatency: [ 50000 ]\n' "$n" > "$work/net/network_${n}ranks.yml"
    done
    printf '{"scheduling-policy": "LIFO", "collective-optimization": "localBWAware", "endpoint-delay": 1, "active-chunks-per-dimension": 1, "preferred-dataset-splits": 1, "all-reduce-implementation": ["ring"], "reduce-scatter-implementation": ["direct"], "all-gather-implementation": ["ring"], "all-to-all-implementation": ["direct"], "local-mem-bw": 100}\n' \
        > "$work/net/system.json"
    "$mimic" predict "$work/mlp" --costs "$work/costs.db" --network "$work/net/network_{ranks}ranks.yml" --system "$work/net/system.json" \
        --what-if ranks=2,4 --json "$work/wr.json" > /dev/null 2> "$work/wr.err" || fail "--what-if ranks: $(cat "$work/wr.err")"
    python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results']; assert sorted(x['value'] for x in r) == ['2', '4'] and all(x['iteration_ms'] > 0 for x in r), r" \
        "$work/wr.json" || fail "--what-if ranks JSON: $(cat "$work/wr.json")"
    # Many ranks: the critical path is the chain that set the last rank's
    # finish (ending at it); two ranks on one core run their ops at half speed.
    net2=(--network "$work/net/network_2ranks.yml" --system "$work/net/system.json")
    "$mimic" predict "$work/mlp" --costs "$work/costs.db" --ranks 2 "${net2[@]}" --json "$work/own.json" > "$work/own.txt" 2>&1 \
        || fail "predict --ranks 2: $(cat "$work/own.txt")"
    grep -q "critical path of rank" "$work/own.txt" || fail "no critical path printed: $(cat "$work/own.txt")"
    "$mimic" predict "$work/mlp" --costs "$work/costs.db" --ranks 2 "${net2[@]}" --ranks-per-host 2 --cores-per-host 1 \
        --json "$work/shared.json" > /dev/null 2>&1 || fail "predict --ranks-per-host"
    python3 - "$work/own.json" "$work/shared.json" <<'PY' || fail "critical path or shared cores"
import json, sys
own, shared = (json.load(open(p)) for p in sys.argv[1:3])
path = own["critical_path"]
assert path and all(p["op_us"] >= 0 and p["name"] for p in path), path[:3]
end_us = path[-1]["start_us"] + path[-1]["op_us"]
assert abs(end_us / 1e3 - own["iteration_ms"]) < 1e-3, (end_us, own["iteration_ms"])
assert all(a["start_us"] + a["op_us"] <= b["start_us"] + 1e-6 for a, b in zip(path, path[1:])), "path overlaps itself"
assert own["host_cores"]["ranks_per_host"] == 1 and shared["host_cores"]["ranks_per_host"] == 2, (own["host_cores"], shared["host_cores"])
assert shared["iteration_ms"] > own["iteration_ms"] * 1.3, (shared["iteration_ms"], own["iteration_ms"])
PY
    # Two ranks' ETs from PyTorch's own tools (no meta.json): predict says it
    # gave each rank cores of its own, and nothing when told how they shared one.
    data="$(cd "$(dirname "$0")/../data/gloo_sync_collectives" && pwd)"
    mkdir -p "$work/foreign"
    cp "$data/manual_async_rank0.et.json.gz" "$data/manual_async_rank1.et.json.gz" "$work/foreign/"
    "$mimic" predict "$work/foreign" --costs "$work/costs.db" "${net2[@]}" > "$work/foreign.txt" 2>&1 \
        || fail "predict of two foreign ranks: $(cat "$work/foreign.txt")"
    grep -q "hosts are not recorded" "$work/foreign.txt" || fail "no word on unknown hosts: $(cat "$work/foreign.txt")"
    "$mimic" predict "$work/foreign" --costs "$work/costs.db" "${net2[@]}" --ranks-per-host 2 --cores-per-host 2 \
        > "$work/foreign2.txt" 2>&1 || fail "predict of two foreign ranks sharing a host: $(cat "$work/foreign2.txt")"
    if grep -q "hosts are not recorded" "$work/foreign2.txt"; then fail "warned with --ranks-per-host given"; fi
    # Calibrated at 2x too (calibrate --batch-scales): every op of the 2x step is a measured signature.
    "$mimic" calibrate "$work/mlp" --out "$work/costs2.db" --quick --batch-scales 2 > /dev/null 2> "$work/cal3.err" \
        || fail "calibrate --batch-scales: $(cat "$work/cal3.err")"
    "$mimic" predict "$work/mlp" --costs "$work/costs2.db" --batch-scale 2 --json "$work/p4.json" > /dev/null 2>&1 || fail "predict on costs2.db"
    python3 -c "import json,sys; o=json.load(open(sys.argv[1]))['ops']; assert o['measured'] == o['total'] > 0 and o['family_model'] == 0, o" \
        "$work/p4.json" || fail "calibrate --batch-scales did not measure the 2x shapes"
    if "$mimic" predict "$work/mlp" --costs "$work/costs.db" --batch-scale 2 --network x.yml --system y.json > /dev/null 2> "$work/p3.err"; then
        fail "--batch-scale with --network accepted"; fi
    grep -q "field '--batch-scale'" "$work/p3.err" || fail "--batch-scale with --network: $(cat "$work/p3.err")"
    # No cost database yet: one line that says how to make one.
    if "$mimic" predict "$work/mlp" --costs "$work/none.db" > /dev/null 2> "$work/p5.err"; then fail "predict without a cost database"; fi
    grep -q "none.db: field '--costs': no cost database here: measure this machine first with 'mimic calibrate" "$work/p5.err" \
        || fail "predict without a cost database: $(cat "$work/p5.err")"
    # Converted without a profile, host ops are timed by the cost model, and say so.
    "$mimic" convert "$work/mlp/et.json.gz" --to chakra --out "$work/chakra" --costs "$work/costs.db" > /dev/null 2> "$work/conv.err" \
        || fail "convert --costs"
    grep -q "timed by the cost model" "$work/conv.err" || fail "convert --costs: $(cat "$work/conv.err")"
    "$mimic" dump "$work/chakra.0.et" --out "$work/chakra.json" 2> /dev/null || fail "dump"
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); n=[x for x in d['nodes'] if x['type']=='COMP_NODE']; assert sum(int(x.get('duration_micros','0')) for x in n) > 0" \
        "$work/chakra.json" || fail "converted durations are all 0"
    # Every signature is known now: nothing is timed again.
    "$mimic" calibrate "$work/mlp" --out "$work/costs.db" --quick > /dev/null 2> "$work/cal2.err" || fail "calibrate again"
    [ "$(grep -c "already measured" "$work/cal2.err")" = 2 ] || fail "re-timed known signatures: $(cat "$work/cal2.err")"
fi

if [ -f "$traces/pytorch/resnet_kineto.json.gz" ]; then
    "$mimic" predict "$traces/pytorch/resnet_et.json.gz" --profile "$traces/pytorch/resnet_kineto.json.gz" --json "$work/g.json" \
        > "$work/g.txt" || fail "GPU estimate"
    grep -q "ESTIMATED for NVIDIA GeForce RTX 2080 Ti" "$work/g.txt" || fail "GPU estimate text: $(head -3 "$work/g.txt")"
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['estimate'] and d['by_family']['conv']['kernels'] > 0" "$work/g.json" \
        || fail "GPU estimate JSON"
    echo '{"name": "bad"}' > "$work/bad.json"
    out=$("$mimic" predict "$traces/pytorch/resnet_et.json.gz" --profile "$traces/pytorch/resnet_kineto.json.gz" --device "$work/bad.json" 2>&1); rc=$?
    [ $rc = 1 ] && echo "$out" | grep -q "bad.json" && echo "$out" | grep -q "match" || fail "bad device spec: $rc $out"
    # Which GPU: every device ranked by its estimated kernel time, newer ones first.
    "$mimic" predict "$traces/pytorch/resnet_et.json.gz" --profile "$traces/pytorch/resnet_kineto.json.gz" \
        --what-if device=rtx2080ti,h100_sxm,a100_40gb --json "$work/wd.json" > "$work/wd.txt" 2> /dev/null || fail "--what-if device"
    python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results']; assert [x['value'] for x in r] == ['h100_sxm', 'a100_40gb', 'rtx2080ti'] and all(x['estimated_kernel_ms'] > 0 for x in r), r" \
        "$work/wd.json" || fail "--what-if device JSON: $(cat "$work/wd.json")"
    grep -q "ESTIMATED" "$work/wd.txt" || fail "--what-if device text: $(cat "$work/wd.txt")"
fi
out=$("$mimic" predict "$traces/pytorch/linear_et.json.gz" --costs "$work/none.db" 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q "none.db" || fail "missing cost database: $rc $out"
echo "predict_cli: ok"
