#!/usr/bin/env bash
# mimic convert / dump / encode end to end on the shared traces: dump+encode
# gives the same bytes, converted ETs dump as JSON that Python reads, a
# profile adds device nodes, bad input gives one line and exit 1.
# $1 = mimic binary, $2 = shared traces directory. Exit 77 = skip.
set -uo pipefail
mimic="$1"
traces="$2"
[ -d "$traces/chakra" ] || { echo "skip: no shared traces at $traces"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export MIMIC_NO_PROGRESS=1

fail() { echo "FAIL: $*"; exit 1; }

# 1. dump then encode: byte-identical for every shared Chakra file.
for f in "$traces"/chakra/feeder_sample.0.et "$traces"/chakra/microbench/*/*.et; do
    "$mimic" dump "$f" --out "$work/d.json" 2> /dev/null || fail "dump $f"
    "$mimic" encode "$work/d.json" --out "$work/d.et" 2> /dev/null || fail "encode $f"
    cmp -s "$f" "$work/d.et" || fail "round trip changed $f"
done
# dump to stdout is the same JSON
"$mimic" dump "$traces/chakra/microbench/all_reduce/all_reduce.1.et" > "$work/stdout.json" || fail "dump to stdout"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['metadata']['version']=='0.0.4'; assert d['nodes'][0]['type']=='COMM_COLL_NODE'" \
    "$work/stdout.json" || fail "dump JSON shape"

# 1b. Chakra's own JSON forms (tests/data/chakra_json): a jsonizer prefix simulates as the .et
# prefix it came from, and analyze reads Chakra's JSON feeder format.
data="$(cd "$(dirname "$0")/../data/chakra_json" && pwd)"
astra="$traces/../astra/configs"
if [ -d "$astra" ]; then
    for c in all_reduce all_to_all; do
        "$mimic" simulate "$data/microbench/$c" --network "$astra/network/Ring_4npus.yml" \
            --system "$astra/system/ring_fifo_s1_c1.json" --json "$work/sim_json.json" > /dev/null \
            || fail "simulate the jsonizer prefix $c"
        "$mimic" simulate "$traces/chakra/microbench/$c/$c" --network "$astra/network/Ring_4npus.yml" \
            --system "$astra/system/ring_fifo_s1_c1.json" --json "$work/sim_et.json" > /dev/null \
            || fail "simulate the .et prefix $c"
        python3 -c "import json,sys; a,b=(json.load(open(p))['ranks'] for p in sys.argv[1:]); assert a==b and len(a)==4, (a,b)" \
            "$work/sim_json.json" "$work/sim_et.json" || fail "simulate $c: the JSON prefix differs from the .et"
    done
fi
"$mimic" analyze "$data/feeder_format.0.json.gz" --json "$work/feeder.json" > /dev/null || fail "analyze the feeder format"
grep -q '"nodes": *3664' "$work/feeder.json" || fail "feeder format: not 3,664 nodes"

# 2. convert each ET; the result dumps as JSON with its nodes, deps to existing nodes.
for et in linear_et.json.gz resnet_et.json.gz resnet_1gpu_et_1.0.3.json.gz resnet_1gpu_et_1.1.1.json.gz \
          chakra_sample_1.0.2.json.gz pt2/pt2_et.json; do
    [ -f "$traces/pytorch/$et" ] || continue
    "$mimic" convert "$traces/pytorch/$et" --to chakra --out "$work/conv" --json "$work/conv.json" > /dev/null \
        || fail "convert $et"
    [ -f "$work/conv.0.et" ] || fail "convert $et wrote no conv.0.et"
    "$mimic" dump "$work/conv.0.et" --out "$work/conv_dump.json" 2> /dev/null || fail "dump converted $et"
    python3 - "$work/conv_dump.json" "$work/conv.json" <<'EOF' || fail "converted $et"
import json, sys
d = json.load(open(sys.argv[1]))
summary = json.load(open(sys.argv[2]))["outputs"][0]
ids = {n["id"] for n in d["nodes"]}
assert len(d["nodes"]) == summary["nodes"] > 0, (len(d["nodes"]), summary["nodes"])
for n in d["nodes"]:
    assert n["type"] in ("COMP_NODE", "COMM_COLL_NODE", "COMM_SEND_NODE", "COMM_RECV_NODE"), n["type"]
    for dep in n["ctrl_deps"] + n["data_deps"]:
        assert dep in ids and int(dep) < int(n["id"]), (n["id"], dep)
assert d["metadata"]["attr"][0]["name"] == "schema"
EOF
done

# 3. with a profile: device nodes appear.
if [ -f "$traces/pytorch/linear_kineto.json.gz" ]; then
    "$mimic" convert "$traces/pytorch/linear_et.json.gz" --profile "$traces/pytorch/linear_kineto.json.gz" \
        --to chakra --out "$work/linked" --json - > "$work/linked.json" || fail "convert with profile"
    python3 -c "import json,sys; o=json.load(open(sys.argv[1]))['outputs'][0]; assert o['device_nodes']>0, o; assert o['link']['kernels_attached']>0" \
        "$work/linked.json" || fail "no device nodes from the profile"
fi

# 4. bad input: one line naming file and byte offset, exit 1.
expect_error() {  # expect_error "text" command args...
    local want="$1"; shift
    "$mimic" "$@" > "$work/out" 2> "$work/err"
    local code=$?
    [ "$code" -eq 1 ] || { echo "exit $code for: $*"; cat "$work/err"; exit 1; }
    grep -q "$want" "$work/err" || { echo "message without '$want' for: $*"; cat "$work/err"; exit 1; }
    [ "$(wc -l < "$work/err")" -eq 1 ] || { echo "more than one line for: $*"; cat "$work/err"; exit 1; }
}
head -c 100000 "$traces/chakra/feeder_sample.0.et" > "$work/cut.0.et"
expect_error "cut.0.et: byte" dump "$work/cut.0.et"
expect_error "runs past the end" analyze "$work/cut.0.et"
printf '\x07\x0a\x050.0.4\xff\xff\xff\xff\xff\xff' > "$work/varint.0.et"
expect_error "bad varint" dump "$work/varint.0.et"
echo '{"metadata": {"version": "0.0.4"}, "nodes": [{"idd": 1}]}' > "$work/bad.json"
expect_error "nodes\[0\]" encode "$work/bad.json" --out "$work/bad.et"
echo '{"workload_graph": [{"Id": 1, "NodeType": 4}, {"Name": "x", "NodeType": 4}]}' > "$work/feeder.3.json"
expect_error "workload_graph\[1\].Id" analyze "$work/feeder.3.json"
# The feeder format keeps names and durations only: nothing for predict to cost, said so.
expect_error "no operator to cost" predict "$data/feeder_format.0.json.gz" --costs "$work/none.db"
"$mimic" convert "$traces/chakra/feeder_sample.0.et" --to json --out "$work/x" > /dev/null 2>&1 \
    && fail "an unknown --to format was accepted"
echo "ok"
