#!/bin/bash
# End-to-end: mimic obfuscate and mimic cut on a recording made now of a step
# full of its owner's names (tests/python/owner_step.py: labels, module names,
# a custom op library, a custom autograd function and optimizer, all "Acme"),
# and on the real shared traces.
# $1 = mimic binary, $2 = shared traces dir. Exit 77 = skipped.
set -u
MIMIC=$1
TRACES=$2
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# 1. The shared traces: each obfuscates and cuts into an ET the analyzer reads.
for f in pytorch/resnet_et.json.gz pytorch/linear_et.json.gz pytorch/pt2/pt2_et.json; do
    [ -f "$TRACES/$f" ] || continue
    "$MIMIC" obfuscate "$TRACES/$f" -o "$TMP/o.json.gz" --map "$TMP/shared_map.json" > /dev/null || fail "obfuscate $f"
    "$MIMIC" analyze "$TMP/o.json.gz" > /dev/null || fail "analyze the obfuscated $f"
done
if [ -f "$TRACES/pytorch/resnet_et.json.gz" ]; then
    out=$("$MIMIC" cut "$TRACES/pytorch/resnet_et.json.gz" --subtree '## forward ##' -o "$TMP/fwd.json.gz" --json -) || fail "cut resnet"
    echo "$out" | grep -q '"schema": "1.1.0-chakra.0.0.4"' || fail "cut changed the schema: $out"
    "$MIMIC" convert "$TMP/fwd.json.gz" --out "$TMP/fwd" > /dev/null || fail "convert the cut"
    msg=$("$MIMIC" cut "$TRACES/pytorch/resnet_et.json.gz" --ops 'aten::(' -o "$TMP/x.json" 2>&1) && fail "a bad regex was taken"
    echo "$msg" | grep -q "resnet_et.json.gz: field '--ops': not a valid regular expression" || fail "bad regex message: $msg"
    msg=$("$MIMIC" cut "$TRACES/pytorch/resnet_et.json.gz" -o "$TMP/x.json" 2>&1) && fail "a cut with no selection ran"
    echo "$msg" | grep -q "exactly one of" || fail "no-selection message: $msg"
fi

# 2. A recording made now (needs torch in Debian's python).
"$MIMIC" replay --help > /dev/null 2>&1 || { echo "mimic built without libtorch: shared traces checked, recording skipped"; exit 0; }
/usr/bin/python3 -c "import torch" 2> /dev/null || { echo "no torch in /usr/bin/python3: recording skipped"; exit 0; }
"$MIMIC" record --script "$ROOT/tests/python/owner_step.py:make_step" --out "$TMP/rec" --warmup 1 --iters 3 \
    > "$TMP/record.log" 2>&1 || { cat "$TMP/record.log"; fail "record owner_step"; }
zcat "$TMP/rec/et.json.gz" | grep -qi acme || fail "the recording has no owner names to hide"

"$MIMIC" obfuscate "$TMP/rec" -o "$TMP/shared" --map "$TMP/map.json" > "$TMP/obf.log" || fail "obfuscate the recording"
for f in et.json.gz profile.json meta.json op_gaps.json op_faults.json op_layouts.json; do
    [ -f "$TMP/shared/$f" ] || fail "the obfuscated recording lacks $f"
done
leaks=$( (zcat "$TMP/shared/et.json.gz"; cat "$TMP/shared/profile.json" "$TMP/shared/meta.json") | grep -oi '[^"]*acme[^"]*' | sort -u)
[ -z "$leaks" ] || fail "owner strings left: $leaks"
grep -q '"original":"acme_ops::fused_scale"' "$TMP/map.json" || fail "the map lacks the custom op"

# Tools read the same thing: same ops replayable, same iteration, linked profile.
a=$("$MIMIC" analyze "$TMP/rec" --json - | python3 -c "import json,sys; d=json.load(sys.stdin); print(d['nodes'], d['operators'], d['replayable']['ops'], d['replayable']['total'], d['timed'], len(d['iterations']))") \
    || fail "analyze the recording"
b=$("$MIMIC" analyze "$TMP/shared" --json - | python3 -c "import json,sys; d=json.load(sys.stdin); print(d['nodes'], d['operators'], d['replayable']['ops'], d['replayable']['total'], d['timed'], len(d['iterations']))") \
    || fail "analyze the obfuscated recording"
[ "$a" = "$b" ] || fail "analysis differs: original '$a', obfuscated '$b'"
quick=(--warmup 0 --iters 1 --op-passes 1 --profiled-sessions 1 --no-profiled-pass)
ra=$("$MIMIC" replay "$TMP/rec" "${quick[@]}" | grep "top-level replayed") || fail "replay the recording"
rb=$("$MIMIC" replay "$TMP/shared" "${quick[@]}" | grep "top-level replayed") || fail "replay the obfuscated recording"
[ "$ra" = "$rb" ] || fail "replay coverage differs: '$ra' vs '$rb'"

# The owner translates a report on the shared trace back.
"$MIMIC" analyze "$TMP/shared" > "$TMP/report.txt" || fail "report"
grep -q "obf::op_1" "$TMP/report.txt" || fail "the report does not show the alias"
"$MIMIC" obfuscate --reveal "$TMP/report.txt" --map "$TMP/map.json" | grep -q "acme_ops::fused_scale" || fail "reveal"

# A second pass is refused, naming the file.
msg=$("$MIMIC" obfuscate "$TMP/shared/et.json.gz" -o "$TMP/again.json" 2>&1) && fail "obfuscated twice"
echo "$msg" | grep -q "shared/et.json.gz: field 'mimic_obfuscated': this trace is obfuscated already" || fail "second pass message: $msg"

# 3. Cuts of the recording replay: the iteration, and the encoder's subtree.
"$MIMIC" cut "$TMP/rec" --iteration 0 -o "$TMP/step.json" > /dev/null || fail "cut the iteration"
"$MIMIC" replay "$TMP/step.json" "${quick[@]}" | grep -q "ops: [1-9][0-9]* of [1-9][0-9]* top-level replayed" || fail "replay the cut iteration"
"$MIMIC" cut "$TMP/rec" --subtree "nn.Module: AcmeSecretEncoder" -o "$TMP/enc.json" > /dev/null || fail "cut the encoder"
out=$("$MIMIC" replay "$TMP/enc.json" "${quick[@]}") || fail "replay the encoder's cut"
echo "$out" | grep -q "ops: [1-9]" || fail "the encoder's cut replayed nothing: $out"
# A cut of a recording into a directory is a recording: it replays with the original's
# per-op files, and compares with no whole-iteration time that is not its own.
"$MIMIC" cut "$TMP/rec" --iteration 0 -o "$TMP/step_rec" > /dev/null || fail "cut the recording into a directory"
for f in et.json.gz meta.json op_faults.json op_gaps.json op_layouts.json; do
    [ -f "$TMP/step_rec/$f" ] || fail "the cut recording lacks $f"
done
grep -q '"untraced_median_ms"' "$TMP/step_rec/meta.json" && fail "the cut's meta.json keeps the whole iteration's time"
grep -q '"cut":' "$TMP/step_rec/meta.json" || fail "the cut's meta.json does not say what it was cut from"
"$MIMIC" replay "$TMP/step_rec" "${quick[@]}" | grep -q "ops: [1-9][0-9]* of [1-9][0-9]* top-level replayed" || fail "replay the cut recording"
echo "PASS"
