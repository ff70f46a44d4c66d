#!/usr/bin/env bash
# mimic generate end to end: every model kind and parallelism mix written and
# simulated to the end with its communicator groups; the --json summary's
# sizes against the formulas (derived here in Python, independently of
# mimic); --from expanding a shared trace as simulate --ranks does; bad
# options (one line naming the option, exit 1); and, with libtorch, tiny
# generated ETs replayed on 1 and 2 ranks.
# $1 = mimic binary, $2 = shared traces directory. Exit 77 = skip.
set -uo pipefail
mimic="$1"
traces="$2"
command -v python3 > /dev/null || { echo "skip: no python3 to read JSON"; exit 77; }
src="$(cd "$(dirname "$0")/../.." && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export MIMIC_NO_PROGRESS=1
fail() { echo "FAIL: $*"; exit 1; }
sys="$src/data/examples/system_ring.json"

net() {  # ranks -> a one-switch network file
    printf 'topology: [ Switch ]\nnpus_count: [ %s ]\nbandwidth: [ 100 ]\nlatency: [ 1000 ]\n' "$1" > "$work/net$1.yml"
    echo "$work/net$1.yml"
}

# 1. Each model and mix: generate, then simulate to the end (exit 0, every rank finished).
gen_sim() {  # name ranks generate-args...
    local name=$1 ranks=$2
    shift 2
    "$mimic" generate "$@" -o "$work/$name" --json "$work/$name.json" > "$work/$name.txt" 2>&1 || fail "generate $name: $(cat "$work/$name.txt")"
    "$mimic" simulate "$work/$name" --network "$(net "$ranks")" --system "$sys" --comm-groups "$work/$name.comm_groups.json" \
        --json "$work/$name.sim.json" > "$work/$name.sim.txt" 2>&1 || fail "simulate $name: $(cat "$work/$name.sim.txt")"
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert len(d['ranks']) == $ranks and d['iteration_ns'] > 0, d" \
        "$work/$name.sim.json" || fail "simulate $name: $(cat "$work/$name.sim.txt")"
}
gen_sim gpt 16 gpt --ranks 16 --tp 2 --pp 2 --layers 4 --hidden 512 --heads 8 --seq 256 --micro-batches 4
gen_sim gpipe 8 gpt --ranks 8 --pp 4 --layers 8 --hidden 256 --heads 4 --seq 128 --schedule gpipe
gen_sim llama 8 llama --ranks 8 --tp 2 --pp 2 --layers 4 --hidden 512 --heads 8 --kv-heads 2 --seq 256 --zero
gen_sim fsdp 8 gpt --ranks 8 --layers 2 --hidden 256 --heads 4 --seq 128 --fsdp
gen_sim moe 16 moe --ranks 16 --tp 2 --ep 4 --layers 2 --hidden 512 --heads 8 --seq 256 --ffn 1024 --experts 8
gen_sim dlrm 8 dlrm --ranks 8 --tables 26 --micro-batch 512

# 2. Sizes in the summary against the formulas.
python3 - "$work" <<'PY' || fail "summary sizes"
import json, sys
w = sys.argv[1]
g = json.load(open(f"{w}/gpt.json"))
assert (g["ranks"], g["dp"], g["tp"], g["pp"]) == (16, 4, 2, 2) and g["files"] == 16
act = 1 * 256 * 512 * 2  # micro_batch x seq x hidden x bf16
first, last = g["rank_kinds"]
assert first["ranks"] == "0-7" and last["ranks"] == "8-15"
# 2 layers per stage, 2 all-reduces forward and 2 backward each, 4 micro-batches; the first stage
# embeds; the last stage's cross-entropy all-reduces 3 fp32 per token.
assert first["collectives"]["tp"]["all_reduce_bytes"] == (2 * 4 + 1) * 4 * act, first
assert last["collectives"]["tp"]["all_reduce_bytes"] == 2 * 4 * 4 * act + 3 * 4 * 256 * 4, last
# The tied embedding's gradients, summed by the two stages (50257 padded to 50432 = 128 x 2 x 197).
for k in (first, last):
    assert k["collectives"]["emb"]["all_reduce_bytes"] == 50432 // 2 * 512 * 2, k
assert first["sends"] == 4 and first["send_bytes"] == 4 * act and first["recv_bytes"] == 4 * act
# DDP: every parameter this rank holds, once, in dtype bytes.
assert first["collectives"]["dp"]["all_reduce_bytes"] == first["params"] * 2
m = json.load(open(f"{w}/moe.json"))
k = m["rank_kinds"][0]
routed = 1 * 256 * 2 * 512 * 2  # tokens x top_k x hidden x bf16
assert k["collectives"]["ep"]["all_to_all_bytes"] == 4 * 2 * 1 * routed, k  # 4 per layer, 2 layers, 1 micro-batch
d = json.load(open(f"{w}/dlrm.json"))
for k in d["rank_kinds"]:
    assert k["collectives"]["world"]["all_to_all_bytes"] == 2 * 512 * 26 * 128 * 2, k
assert d["distinct_encodings"] == 2  # 26 tables: 4 on ranks 0-1, 3 on the rest
assert d["sizes"]["table_ranks"] == [t % 8 for t in range(26)] and d["sizes"]["table_rows"] == [1000000] * 26, d["sizes"]
l = json.load(open(f"{w}/llama.json"))
for k in l["rank_kinds"]:
    dp = k["collectives"]["dp"]
    assert dp["reduce_scatter_bytes"] == k["params"] * 2 and dp["all_gather_calls"] == dp["reduce_scatter_calls"], k
groups = json.load(open(f"{w}/gpt.comm_groups.json"))
assert groups["1"] == [0, 1] and [0, 2, 4, 6] in groups.values() and [0, 8] in groups.values(), groups
PY

# 3. --from: a recorded trace expanded to 4 ranks simulates as simulate --ranks 4 does.
et="$traces/pytorch/resnet_et.json.gz"
if [ -f "$et" ]; then
    "$mimic" generate --from "$et" --profile "$traces/pytorch/resnet_kineto.json.gz" --ranks 4 -o "$work/from" \
        --json "$work/from.json" > /dev/null 2>&1 || fail "generate --from"
    "$mimic" simulate "$work/from" --network "$(net 4)" --system "$sys" --json "$work/from.sim.json" > /dev/null 2>&1 || fail "simulate --from"
    "$mimic" simulate "$et" --profile "$traces/pytorch/resnet_kineto.json.gz" --ranks 4 --network "$(net 4)" --system "$sys" \
        --json "$work/direct.sim.json" > /dev/null 2>&1 || fail "simulate --ranks"
    a=$(python3 -c "import json; print(json.load(open('$work/from.sim.json'))['iteration_ns'])")
    b=$(python3 -c "import json; print(json.load(open('$work/direct.sim.json'))['iteration_ns'])")
    [ "$a" = "$b" ] && [ "$a" -gt 0 ] || fail "--from simulates to $a ns, simulate --ranks to $b ns"
fi

# 4. Bad options: one line naming the option, exit 1.
bad() {  # expected-text generate-args...
    local want=$1
    shift
    out=$("$mimic" generate "$@" -o "$work/bad" 2>&1); rc=$?
    [ $rc = 1 ] && [ "$(echo "$out" | wc -l)" = 1 ] && echo "$out" | grep -q -- "$want" || fail "bad '$*': rc $rc: $out"
}
bad "--ranks: 12 ranks are not --dp 2" gpt --ranks 12 --dp 2 --tp 2 --pp 2
bad "--heads: 16 heads do not split over --tp 3" gpt --ranks 3 --tp 3
bad "--layers: 24 layers do not split into --pp 5" gpt --ranks 5 --pp 5
bad "--ep:" moe --ranks 4 --ep 3 --experts 6
bad "--tp:" dlrm --ranks 4 --tp 2
bad "model:" bert --ranks 2
bad "--dtype:" gpt --dtype fp8
bad "--table-rows: has 2 entries for 3 tables" dlrm --ranks 2 --tables 3 --table-rows 10,20
bad "--shard-tables: rank 2 is not one of the 2 ranks" dlrm --ranks 2 --shard-tables 0,2
bad "--shard-tables: rank 1 holds no table" dlrm --ranks 2 --shard-tables 0,0 --format et
bad "--tp: does not apply to --from" --from "$work/gpt.0.et" --ranks 4 --tp 2

# 5. Replay of tiny generated ETs on 1 and 2 ranks (needs mimic-torch).
if "$mimic" replay --help > /dev/null 2>&1; then
    replay_et() {  # name [what]: replays $work/<name> on its ranks into $work/<name>.replay.json, or fails
        timeout 300 "$mimic" replay "$work/$1" --warmup 1 --iters 2 --timeout-s 60 --json "$work/$1.replay.json" > "$work/$1.replay.txt" 2>&1 \
            || fail "replay of ${2:-$1}: $(tail -5 "$work/$1.replay.txt")"
    }
    tiny="--layers 2 --hidden 32 --heads 4 --seq 8 --vocab 64 --micro-batch 2 --dtype fp32 --format et"
    # shellcheck disable=SC2086
    "$mimic" generate gpt --ranks 1 $tiny -o "$work/et1" > /dev/null 2>&1 || fail "generate --format et, 1 rank"
    timeout 300 "$mimic" replay "$work/et1" --warmup 1 --iters 2 --json "$work/et1.replay.json" > "$work/et1.replay.txt" 2>&1 \
        || fail "replay of the 1-rank ET: $(tail -5 "$work/et1.replay.txt")"
    for mix in "--tp 2" "--dp 2"; do
        # shellcheck disable=SC2086
        "$mimic" generate gpt --ranks 2 $mix $tiny -o "$work/et2" > /dev/null 2>&1 || fail "generate --format et, 2 ranks $mix"
        replay_et et2 "the 2-rank ET ($mix)"
        python3 - "$work/et2.replay.json" <<'PY' || fail "2-rank replay report ($mix)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["world_size"] == 2 and len(d["ranks"]) == 2, d.keys()
assert d["summary"]["collective_coverage_pct"] == 100.0, d["summary"]
for r in d["ranks"]:
    assert r["ops_replayed"] == r["ops_total"], (r["ops_replayed"], r["ops_total"])
    assert r["collectives"], "no collective replayed"
PY
        rm -rf "$work/et2"
    done
    # Pipelines of 2 stages, tensor-parallel in each, with their pair and embedding groups:
    # GPipe, and 1F1B, whose neighbouring stages send to each other at once.
    for schedule in gpipe 1f1b; do
        # shellcheck disable=SC2086
        "$mimic" generate gpt --ranks 4 --pp 2 --tp 2 --schedule $schedule --micro-batches 3 $tiny -o "$work/et4" > /dev/null 2>&1 \
            || fail "generate --format et, 2 stages, $schedule"
        replay_et et4 "the 2-stage $schedule ET"
        python3 - "$work/et4.replay.json" <<'PY' || fail "2-stage $schedule replay report"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["world_size"] == 4 and d["summary"]["collective_coverage_pct"] == 100.0, d["summary"]
for r in d["ranks"]:
    assert r["ops_replayed"] == r["ops_total"], (r["ops_replayed"], r["ops_total"])
    kinds = {c["collective"] for c in r["collectives"]}
    assert {"send", "recv", "all_reduce"} <= kinds, kinds
PY
        rm -rf "$work/et4"
    done
    # A DLRM whose tables have their own sizes, sharded unevenly: 3 tables on rank 0, 1 on rank 1.
    "$mimic" generate dlrm --ranks 2 --format et --dtype fp32 --micro-batch 16 --emb-dim 8 --bottom-mlp 16-8 --top-mlp 16-1 \
        --table-rows 500,2000,100,800 --table-pooling 4,1,8,2 --shard-tables 0,1,0,0 -o "$work/dlrm2" > /dev/null 2>&1 \
        || fail "generate dlrm --format et"
    replay_et dlrm2 "the 2-rank DLRM ET"
    python3 - "$work/dlrm2.replay.json" <<'PY' || fail "2-rank DLRM replay report"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["world_size"] == 2 and d["summary"]["collective_coverage_pct"] == 100.0, d["summary"]
for r in d["ranks"]:
    assert r["ops_replayed"] == r["ops_total"] and r["runtime_errors"] == 0, (r["ops_replayed"], r["ops_total"])
    kinds = [c["collective"] for c in r["collectives"]]
    assert kinds == ["all_to_all", "all_to_all", "all_reduce"], kinds
PY
else
    echo "note: mimic built without libtorch; the ET replay part is skipped"
fi
echo "ok"
