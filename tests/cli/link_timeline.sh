#!/usr/bin/env bash
# mimic link and mimic timeline on the real GPU traces, on a fresh recording
# (when torch is there), and on bad input.
# $1 = mimic binary, $2 = shared traces directory. Exit 77 = skip.
set -uo pipefail
mimic="$1"
traces="$2"
[ -d "$traces/pytorch" ] || { echo "skip: no shared traces at $traces"; exit 77; }
command -v python3 >/dev/null || { echo "skip: python3 not found"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
die() { echo "FAIL: $*"; exit 1; }
pt="$traces/pytorch"

# Link rates on the real traces (measured: linear 928/928, resnet 8384/14389).
"$mimic" link "$pt/linear_et.json.gz" --profile "$pt/linear_kineto.json.gz" > "$work/table.txt" || die "link linear"
grep -q "^linked  *928  (100.0%)" "$work/table.txt" || { cat "$work/table.txt"; die "linear table"; }
"$mimic" link "$pt/linear_et.json.gz" --profile "$pt/linear_kineto.json.gz" --json "$work/linear.json" > /dev/null || die "link --json FILE"
"$mimic" link "$pt/resnet_et.json.gz" --profile "$pt/resnet_kineto.json.gz" --json > "$work/resnet.json" || die "link resnet"
python3 - "$work/linear.json" "$work/resnet.json" <<'PY' || die "link JSON"
import json, sys
lin = json.load(open(sys.argv[1]))["inputs"][0]["link"]
res = json.load(open(sys.argv[2]))["inputs"][0]["link"]
assert lin["linkable"] == 928 and lin["linked"] >= 919, lin
m = lin["by_method"]
assert m["in_order"] + m["sequence_number"] == lin["linked"] and m["record_function_id"] == 0, m
assert m["sequence_number"] >= 100, m
assert 200 <= lin["device"]["kernels_attached"] <= 400, lin["device"]
assert {(t["et_tid"], t["profile_tid"]) for t in lin["threads"]} == {(1, 24248), (2, 24270)}
assert res["linkable"] == 14389 and res["linked"] >= res["linkable"] * 0.55, res
assert abs(res["link_rate"] - res["linked"] / res["linkable"]) < 1e-12
PY

# The timeline: valid Chrome trace JSON with host ops and kernels.
"$mimic" timeline "$pt/linear_et.json.gz" --profile "$pt/linear_kineto.json.gz" --out "$work/tl.json" > /dev/null 2>&1 \
    || die "timeline"
python3 - "$work/tl.json" <<'PY' || die "timeline JSON"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
host = [e for e in ev if e["ph"] == "X" and "et_id" in e["args"]]
dev = [e for e in ev if e["ph"] == "X" and "et_id" not in e["args"]]
assert len(host) == 928, len(host)
assert len(dev) >= 200 and all(e["cat"] in ("kernel", "gpu_memcpy", "gpu_memset") for e in dev)
assert all(e["ts"] >= 0 and e["dur"] >= 0 for e in host + dev)
PY

# A fresh recording links fully by record-function id, and in order gives the same.
python="${MIMIC_PYTHON:-/usr/bin/python3}"
if "$python" -c "import torch" 2>/dev/null; then
    "$mimic" record --workload mlp --out "$work/rec" --warmup 1 --iters 2 > /dev/null 2> "$work/rec.err" \
        || { cat "$work/rec.err"; die "record mlp"; }
    "$mimic" link "$work/rec" --json "$work/rf.json" > /dev/null || die "link recording"
    "$mimic" link "$work/rec" --no-rf-id --json "$work/order.json" > /dev/null || die "link recording in order"
    python3 - "$work/rf.json" "$work/order.json" <<'PY' || die "recording link"
import json, sys
rf = json.load(open(sys.argv[1]))["inputs"][0]["link"]
order = json.load(open(sys.argv[2]))["inputs"][0]["link"]
assert rf["linkable"] > 100 and rf["by_method"]["record_function_id"] == rf["linkable"], rf
assert order["by_method"]["in_order"] + order["by_method"]["sequence_number"] == rf["linkable"], order
PY
    "$mimic" timeline "$work/rec" --out "$work/rec_tl.json" > /dev/null 2>&1 || die "timeline of a recording"
else
    echo "note: no torch for $python; recording part skipped"
fi

# Bad input: one line naming the problem, exit 1.
expect_error() {  # expect_error "message part" args...
    local want="$1"; shift
    "$mimic" "$@" > "$work/out" 2> "$work/err"
    local code=$?
    [ "$code" -eq 1 ] || { cat "$work/err"; die "exit $code for: $*"; }
    grep -q "$want" "$work/err" || { cat "$work/err"; die "no '$want' for: $*"; }
}
expect_error "no profile to link" link "$pt/linear_et.json.gz"
expect_error "not a profiler trace\|execution trace" link "$pt/linear_et.json.gz" --profile "$pt/resnet_et.json.gz"
head -c 200000 "$pt/linear_kineto.json.gz" > "$work/cut.json.gz"
expect_error "cut.json.gz" link "$pt/linear_et.json.gz" --profile "$work/cut.json.gz"
echo '{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "ts": [1]}]}' > "$work/bad_ts.json"
expect_error "field 'ts'" link "$pt/linear_et.json.gz" --profile "$work/bad_ts.json"
expect_error "pass it with --profile" link "$pt/linear_kineto.json.gz" --profile "$pt/linear_kineto.json.gz"
expect_error "pass --profile" timeline "$pt/linear_et.json.gz" --out "$work/x.json"
echo '{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "nothing::here", "ts": 1, "dur": 1}]}' > "$work/other.json"
expect_error "no node has linked timing" timeline "$pt/linear_et.json.gz" --profile "$work/other.json" --out "$work/x.json"
echo "ok"
