#!/bin/bash
# Bad input through the command line: for every broken file, each command that
# reads it prints exactly one line "mimic: error: <file>: ..." on stderr and
# exits 1: never a signal (crash), never a hang (timeout), never a silent 0.
# Usage: bad_input.sh MIMIC_BINARY [TRACES_DIR]
set -uo pipefail
mimic="$1"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0
checked=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

has_command() { "$mimic" "$1" --help >/dev/null 2>&1; }

# bad FILE CMD...: CMD must exit 1 with one "mimic: error:" line naming FILE.
bad() {
    local file="$1"; shift
    local code
    timeout 120 "$@" >"$tmp/out" 2>"$tmp/err"; code=$?
    checked=$((checked + 1))
    local what="$*"
    what="${what//$tmp\//}"
    if [ "$code" -eq 124 ]; then fail "$what: timed out after 120 s (hang?)"; return; fi
    if [ "$code" -ge 128 ]; then fail "$what: killed by signal $((code - 128))"; cat "$tmp/err" | head -5; return; fi
    [ "$code" -eq 1 ] || fail "$what: exit code $code, wanted 1"
    local lines
    lines=$(wc -l <"$tmp/err")
    [ "$lines" -eq 1 ] || { fail "$what: $lines lines on stderr, wanted 1:"; head -5 "$tmp/err"; }
    grep -q "^mimic: error: .*$(basename "$file")" "$tmp/err" ||
        fail "$what: stderr is not 'mimic: error: ...$(basename "$file")...': $(head -c 300 "$tmp/err")"
}

# readable FILE CMD...: a file that is odd but readable (warnings allowed): exit 0, no signal.
readable() {
    local file="$1"; shift
    local code
    timeout 120 "$@" >"$tmp/out" 2>"$tmp/err"; code=$?
    checked=$((checked + 1))
    local what="$*"
    what="${what//$tmp\//}"
    if [ "$code" -ge 124 ]; then fail "$what: exit $code (hang or signal)"; return; fi
    [ "$code" -eq 0 ] || fail "$what: exit code $code, wanted 0: $(head -c 300 "$tmp/err")"
    grep -q . < <(grep -v "^mimic: warning: " "$tmp/err") && fail "$what: unexpected stderr: $(head -c 300 "$tmp/err")"
}

commands=()
for c in analyze convert dump link; do has_command "$c" && commands+=("$c"); done
if [ ${#commands[@]} -eq 0 ]; then echo "skip: $mimic has none of analyze/convert/dump/link"; exit 77; fi
has() { [[ " ${commands[*]} " == *" $1 "* ]]; }

# ------------------------------------------------------------------ inputs
cd "$tmp" || exit 1
node='{"id": 5, "name": "aten::relu", "ctrl_deps": 1, "inputs": {"values": [[6,7,0,4,4,"cpu"]], "shapes": [[2,2]], "types": ["Tensor(float)"]}, "outputs": {"values": [], "shapes": [], "types": []}, "attrs": [{"name": "rf_id", "type": "uint64", "value": 1}, {"name": "op_schema", "type": "string", "value": "aten::relu(Tensor self) -> Tensor"}]}'
root='{"id": 1, "name": "[pytorch|profiler|execution_trace|process]", "ctrl_deps": 1, "inputs": {"values": [], "shapes": [], "types": []}, "outputs": {"values": [], "shapes": [], "types": []}, "attrs": []}'
et() { printf '{"schema": "1.1.1-chakra.0.0.4", "pid": 1, "time": "x", "start_ts": 1, "nodes": [%s], "finish_ts": 2}' "$1"; }
et "$root, $node" >good_et.json
printf '{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 1, "tid": 1, "ts": 10, "dur": 5, "args": {"Record function id": 1}}]}' >good_kineto.json

: >empty.json
et "$root, $node" | gzip -c >whole.json.gz
head -c $(($(stat -c %s whole.json.gz) / 2)) whole.json.gz >truncated.json.gz
et "$root, $node" | head -c 200 >truncated.json
et "$root, ${node/\"ctrl_deps\": 1/\"ctrl_deps\": 1,}" >malformed.json
et "$root, ${node/\"ctrl_deps\": 1/\"ctrl_deps\": \"one\"}" >wrong_type.json
et "$root, ${node/"[2,2]"/"[2,-2]"}" >negative_shape.json
et "$root, ${node/"[6,7,0,4,4"/"[6,7,0,-4,4"}" >negative_numel.json
printf '\x00\x01\x02\x03 not a trace at all' >garbage.bin
python3 - <<'EOF'
import gzip
node = open("good_et.json").read()
# 10 million elements in one input list
big = ",".join(["0"] * 10_000_000)
head, _, tail = node.partition('"values": [[6,7,0,4,4,"cpu"]]')
open("huge_list.json", "w").write(head + '"values": [[' + big + ']]' + tail.replace('"Tensor(float)"', '"GenericList[Int]"'))
open("nonutf8.json", "wb").write(node.encode().replace(b'aten::relu"', b'aten::\xff\xfe"', 1))

def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | 0x80 if n else b)
        if not n:
            return bytes(out)

meta = b"\x0a\x050.0.4"                     # GlobalMetadata{version: "0.0.4"}
node = b"\x08\x01\x12\x02n1\x18\x04"        # Node{id: 1, name: "n1", type: COMP_NODE}
good = varint(len(meta)) + meta + varint(len(node)) + node
open("good.0.et", "wb").write(good)
open("bad_varint.0.et", "wb").write(good + b"\xff" * 6)
open("len_4g.0.et", "wb").write(good + varint(0xFFFFFFFF) + b"tiny")
open("len_past_end.0.et.gz", "wb").write(gzip.compress(good + varint((1 << 30) - 1) + b"tiny"))
open("bad_message.0.et", "wb").write(good + b"\x05\x0a\xff\xff\xff\x0f")
whole = gzip.compress(good * 1 + b"".join(varint(len(node)) + node for _ in range(200)))
open("truncated.0.et.gz", "wb").write(whole[: len(whole) * 2 // 3])

# gzip bombs: concatenated members, 1 GB unpacked from about 1 MB
a_member = gzip.compress(b"a" * (1 << 20))
zero_member = gzip.compress(b"\0" * (1 << 20))
with open("bomb_string.json.gz", "wb") as f:
    f.write(gzip.compress(b'{"schema": "1.0.1", "nodes": [{"name": "'))
    for _ in range(1024):
        f.write(a_member)
    f.write(gzip.compress(b'"}]}'))
with open("bomb_zeros.json.gz", "wb") as f:
    for _ in range(1024):
        f.write(zero_member)

# profiler traces
open("kineto_malformed.json", "w").write('{"traceEvents": [{"ph": "X",, "cat": "cpu_op"}]}')
open("kineto_ts_type.json", "w").write(
    '{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": {"x": 1}, "dur": 1}]}')
open("kineto_not_list.json", "w").write('{"traceEvents": 7}')
kin = gzip.compress(open("good_kineto.json", "rb").read())
open("kineto_truncated.json.gz", "wb").write(kin[: len(kin) // 2])
EOF

# A parent that is not in the trace, or parents in a cycle: errors naming the node and field.
et "$root, ${node/\"ctrl_deps\": 1/\"ctrl_deps\": 99}" >dangling_parent.json
cycle_a=${node/\"ctrl_deps\": 1/\"ctrl_deps\": 6}
cycle_b=${node/\"id\": 5/\"id\": 6}
et "$root, $cycle_a, ${cycle_b/\"ctrl_deps\": 1/\"ctrl_deps\": 5}" >parent_cycle.json

# ------------------------------------------------------------------ checks
traces_bad=(empty.json truncated.json.gz truncated.json malformed.json nonutf8.json wrong_type.json
            negative_shape.json negative_numel.json garbage.bin huge_list.json bomb_string.json.gz bomb_zeros.json.gz
            bad_varint.0.et len_4g.0.et len_past_end.0.et.gz bad_message.0.et truncated.0.et.gz missing.json
            dangling_parent.json parent_cycle.json)
for f in "${traces_bad[@]}"; do
    has analyze && bad "$f" "$mimic" analyze "$f"
    has convert && bad "$f" "$mimic" convert "$f" --to chakra --out "$tmp/converted"
done
if has dump; then
    for f in empty.json bad_varint.0.et len_4g.0.et len_past_end.0.et.gz bad_message.0.et truncated.0.et.gz; do
        bad "$f" "$mimic" dump "$f" --out "$tmp/dump.json"
    done
fi
for f in kineto_malformed.json kineto_ts_type.json kineto_not_list.json kineto_truncated.json.gz empty.json good_et.json; do
    has analyze && bad "$f" "$mimic" analyze good_et.json --profile "$f"
    has link && bad "$f" "$mimic" link good_et.json --profile "$f"
done
for f in good_et.json good.0.et; do
    has analyze && readable "$f" "$mimic" analyze "$f"
done
if has analyze; then
    err=$("$mimic" analyze dangling_parent.json 2>&1 >/dev/null)
    [[ "$err" == *"node 5: field 'ctrl_deps': parent 99 is not in the trace"* ]] ||
        fail "dangling_parent.json: error does not name node 5, field ctrl_deps and parent 99: $err"
    err=$("$mimic" analyze parent_cycle.json 2>&1 >/dev/null)
    [[ "$err" == *"node 5: field 'ctrl_deps': parent links form a cycle: 5 -> 6 -> 5"* ]] ||
        fail "parent_cycle.json: error does not name node 5, field ctrl_deps and the cycle: $err"
    checked=$((checked + 2))
fi

echo "$checked runs checked, $failures failures"
[ "$failures" -eq 0 ]
