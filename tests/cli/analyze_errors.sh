#!/usr/bin/env bash
# mimic analyze on what it cannot analyse: one line naming the problem, exit 1, no crash.
# $1 = mimic binary, $2 = shared traces directory. Exit 77 = skip.
set -uo pipefail
mimic="$1"
traces="$2"
[ -d "$traces/pytorch" ] || { echo "skip: no shared traces at $traces"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

expect_error() {  # expect_error "what the message must contain" args...
    local want="$1"; shift
    "$mimic" analyze "$@" > "$work/out" 2> "$work/err"
    local code=$?
    if [ "$code" -ne 1 ]; then echo "exit $code for: $*"; cat "$work/err"; exit 1; fi
    if ! grep -q "$want" "$work/err"; then echo "message without '$want' for: $*"; cat "$work/err"; exit 1; fi
}

expect_error "no such file" "$work/missing.json"
mkdir "$work/empty"
expect_error "no trace in this directory" "$work/empty"
: > "$work/empty.json"
expect_error "empty file" "$work/empty.json"
# A profile alone is analysed as one: its operators, timed by itself.
"$mimic" analyze "$traces/pytorch/linear_kineto.json.gz" > "$work/alone.txt" 2> "$work/err" || { cat "$work/err"; exit 1; }
grep -q "kineto_profile" "$work/alone.txt" || { echo "a profile alone not analysed as one"; cat "$work/alone.txt"; exit 1; }
grep -q "profile paired by itself" "$work/alone.txt" || { echo "no pairing line"; cat "$work/alone.txt"; exit 1; }
expect_error "exactly one trace" "$traces/chakra/microbench/all_reduce" --profile "$traces/pytorch/linear_kineto.json.gz"
head -c 3000 "$traces/pytorch/linear_et.json.gz" > "$work/truncated.json.gz"
expect_error "truncated.json.gz" "$work/truncated.json.gz"
mkdir "$work/rec"
cp "$traces/pytorch/linear_et.json.gz" "$work/rec/et.json.gz"
echo '{"rank": "one"}' > "$work/rec/meta.json"
expect_error "rank" "$work/rec"
echo "[1, 2" > "$work/rec/meta.json"
expect_error "meta.json" "$work/rec"
# --json into a directory that does not exist
"$mimic" analyze "$traces/pytorch/pt2/pt2_et.json" --json "$work/no/such/dir/out.json" > /dev/null 2> "$work/err"
[ $? -eq 1 ] && grep -q "cannot write" "$work/err" || { echo "bad --json path not reported"; cat "$work/err"; exit 1; }
echo "ok"
