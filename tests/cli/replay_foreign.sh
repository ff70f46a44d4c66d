#!/bin/bash
# End-to-end: a trace recorded as a user without mimic records it (PyTorch's own
# execution-graph observer and torch.profiler, bench/foreign_record.py), replayed with
# default flags. The profile (the legacy "CPU functions" export of a torch without
# Kineto) links; the host-gap mode is `instrumented`; what recording cost is measured and
# taken off the profiled span, and the report says what each side measures.
# $1 = mimic binary, $2 = shared traces dir. Exit 77 = skipped.
set -u
MIMIC=$1
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
"$MIMIC" replay --help > /dev/null 2>&1 || { echo "mimic built without libtorch: skip"; exit 77; }
/usr/bin/python3 -c "import torch" 2> /dev/null || { echo "no torch in /usr/bin/python3: skip"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export OPENBLAS_NUM_THREADS=1

/usr/bin/python3 "$ROOT/bench/foreign_record.py" lstm_lm "$TMP/lstm" 1 > "$TMP/rec.log" 2>&1 || { cat "$TMP/rec.log"; fail "record"; }
"$MIMIC" link "$TMP/lstm/et.json" --profile "$TMP/lstm/profile.json" > "$TMP/link.txt" || fail "link"
grep -q "operators linked *[0-9]* of [0-9]* (100.0%)" "$TMP/link.txt" || fail "the legacy profile did not link: $(cat "$TMP/link.txt")"

"$MIMIC" replay "$TMP/lstm" --threads 1 --iters 2 --op-passes 1 --no-profiled-pass --json "$TMP/replay.json" \
    > "$TMP/replay.txt" 2>&1 || { cat "$TMP/replay.txt"; fail "replay with defaults"; }
grep -q "host gaps instrumented" "$TMP/replay.txt" || fail "default host gaps: $(grep 'host gaps' "$TMP/replay.txt")"
# Under the other tests' load the instrumentation measured here can exceed the whole profiled
# span; then the report says there is no estimate rather than compare with 0 ms.
grep -Eq "untraced, estimated: the profiled span less the recording's instrumentation|original: no untraced estimate: the instrumentation measured here is not less than the profiled span" \
    "$TMP/replay.txt" || fail "the comparison does not say what the original's figure is: $(grep original "$TMP/replay.txt")"
python3 - "$TMP/replay.json" "$TMP/lstm/truth.json" <<'PY' || fail "the estimate of the untraced iteration"
import json, sys
rep, truth = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
gaps = rep["host_gap_model"]
span, estimate, untraced = gaps["traced_span_ms"], rep.get("original_ms"), truth["untraced_median_ms"]
print(f"traced span {span:.2f} ms, estimated untraced {estimate} ms, measured untraced {untraced:.2f} ms, "
      f"replay {rep['median_ms']:.2f} ms, instrumentation {gaps['instrumentation']} {gaps['instrumentation_ms']:.2f} ms")
# The estimate's accuracy is bench/replay_foreign.py's to measure: here, under the other
# tests' load, only that the cost was measured and taken off the span, or, where it came out
# at least the span, that no estimate is claimed.
assert gaps["instrumented"] and gaps["instrumentation_ms"] > 0
assert gaps["replay_traced_ms"] > gaps["replay_untraced_ms"]
if estimate is None:
    assert rep["original_source"].startswith("no untraced estimate") and gaps["instrumentation_ms"] >= span
else:
    assert 0 < estimate < span
assert 0.5 < gaps["original_speed"] < 2
PY

# A profile that holds Python function events (torch 2.x's export of a profile recorded with
# with_stack=True) was recorded at a cost the replay cannot measure: the report says so.
mkdir -p "$TMP/stack" && cp "$TMP/lstm/et.json" "$TMP/stack/"
python3 - "$TMP/lstm/profile.json" "$TMP/stack/profile.json" <<'PY' || fail "a profile with Python events"
import json, sys
doc = json.load(open(sys.argv[1]))
events = doc["traceEvents"] if isinstance(doc, dict) else doc
first = min((e for e in events if e.get("ph") == "X"), key=lambda e: e["ts"])
events.append({"ph": "X", "cat": "python_function", "name": "train.py(12): step", "pid": first["pid"],
               "tid": first["tid"], "ts": first["ts"], "dur": 1})
json.dump(doc, open(sys.argv[2], "w"))
PY
"$MIMIC" replay "$TMP/stack" --threads 1 --iters 1 --op-passes 1 --no-profiled-pass --json "$TMP/stack.json" \
    > "$TMP/stack.txt" 2>&1 || { cat "$TMP/stack.txt"; fail "replay of a profile with Python events"; }
grep -q "warning: the profile holds 1 Python function events" "$TMP/stack.txt" \
    || fail "no warning for Python's stack: $(grep -i warning "$TMP/stack.txt")"
python3 -c "import json, sys; assert json.load(open(sys.argv[1]))['host_gap_model']['python_stack_events'] == 1" \
    "$TMP/stack.json" || fail "python_stack_events in the JSON"
grep -q "warning: the profile holds" "$TMP/replay.txt" && fail "a warning for a profile without Python events"

# calibrate fits host time on such a trace from its replay's estimate of the untraced gaps
# (there is no untraced run to fit on), and predict then counts host time.
"$MIMIC" calibrate "$TMP/lstm" --out "$TMP/costs.db" --quick --no-sweeps --threads 1 > "$TMP/calibrate.txt" 2>&1 \
    || { cat "$TMP/calibrate.txt"; fail "calibrate"; }
grep -q "host time per op: [0-9.-]* us before an op called from Python" "$TMP/calibrate.txt" \
    || fail "no host time fitted on a foreign trace: $(grep 'host time' "$TMP/calibrate.txt")"
"$MIMIC" predict "$TMP/lstm" --costs "$TMP/costs.db" --json "$TMP/predict.json" > /dev/null 2>&1 || fail "predict"
python3 - "$TMP/costs.db" "$TMP/predict.json" <<'PY' || fail "the fitted host time"
import json, sys
db, pred = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
host = db["host"]
print(f"host: {host['python_op_us']:.2f} us per Python op, {host['autograd_op_us']:.2f} per backward op, "
      f"{len(host['per_op_us'])} op names; predicted host overhead {pred['breakdown']['host_overhead_ms']:.3f} ms")
# Fitted on the trace's estimate (its size is bench/predict_foreign.py's to judge: under the
# other tests' load the estimate can come out near zero).
assert host["fitted_on"] and "profile" in host["fitted_on"][0] and host["per_op_us"]
assert host["python_op_us"] >= 0 and pred["breakdown"]["host_overhead_ms"] >= 0
PY

# Without its profile the same ET replays op time only, and says so.
"$MIMIC" replay "$TMP/lstm/et.json" --threads 1 --iters 1 --op-passes 1 --no-profiled-pass > "$TMP/bare.txt" 2>&1 \
    || fail "replay of the ET alone"
grep -q "host gaps none" "$TMP/bare.txt" || fail "ET alone: $(grep 'host gaps' "$TMP/bare.txt")"
msg=$("$MIMIC" replay "$TMP/lstm/et.json" --host-gaps instrumented --iters 1 2>&1) && fail "instrumented without a profile ran"
echo "$msg" | grep -q "needs the trace's profile" || fail "instrumented without a profile: $msg"
echo PASS
