#!/bin/bash
# mimic record's behaviour around the recording: --force, bad options, a missing interpreter or
# torch, a user's --script, and a distributed rank that dies (the others must stop, no orphans).
set -uo pipefail
mimic="$1"
here="$(cd "$(dirname "$0")" && pwd)"
pytests="$here/../python"
python="${MIMIC_PYTHON:-/usr/bin/python3}"
"$python" -c "import torch" 2>/dev/null || { echo "skip: $python cannot import torch"; exit 77; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect CODE PATTERN CMD...: runs CMD, wants exit CODE ("nonzero" for any) and PATTERN in its output
expect() {
    local want="$1" pattern="$2"; shift 2
    local out code
    out="$("$@" 2>&1)"; code=$?
    if [ "$want" = nonzero ]; then [ "$code" -ne 0 ] || fail "$* exited 0"; else
        [ "$code" -eq "$want" ] || fail "$* exited $code, wanted $want"; fi
    # A here-string, not a pipe: under pipefail, grep -q leaving early made echo's SIGPIPE the status.
    grep -q -- "$pattern" <<< "$out" || fail "$*: output lacks '$pattern': $out"
}

quick=(--warmup 1 --iters 2)

# an existing non-empty directory needs --force; --force replaces our files and keeps others
mkdir -p "$tmp/old" && echo keep > "$tmp/old/notes.txt" && echo stale > "$tmp/old/meta.json"
expect nonzero "use --force" "$mimic" record --workload cnn --out "$tmp/old" "${quick[@]}"
grep -q stale "$tmp/old/meta.json" || fail "refused recording still touched meta.json"
expect 0 "linked to ET rf_ids" "$mimic" record --workload cnn --out "$tmp/old" "${quick[@]}" --force
grep -q '"workload": "cnn"' "$tmp/old/meta.json" || fail "--force did not rewrite meta.json"
[ -f "$tmp/old/notes.txt" ] || fail "--force removed a file mimic did not write"

# bad requests fail before creating anything
expect nonzero "choose from mlp" "$mimic" record --workload nope --out "$tmp/nope"
expect nonzero "is distributed: use --nproc" "$mimic" record --workload ddp_mlp --out "$tmp/nope"
expect nonzero "runs on one process" "$mimic" record --workload mlp --nproc 2 --out "$tmp/nope"
expect nonzero "no such file" "$mimic" record --script "$tmp/missing.py:f" --out "$tmp/nope"
expect nonzero "profiled-iters" "$mimic" record --workload mlp --profiled-iters 0 --out "$tmp/nope"
expect nonzero "profiled-sessions" "$mimic" record --workload mlp --profiled-sessions 0 --out "$tmp/nope"
[ -e "$tmp/nope" ] && fail "a rejected request created its output directory"

# no interpreter, no torch, no package: one clear line each
expect 1 "Python interpreter not found" env MIMIC_PYTHON="$tmp/no-python" "$mimic" record --workload mlp --out "$tmp/x"
mkdir -p "$tmp/fake/torch" && echo 'raise ImportError("torch hidden by the test")' > "$tmp/fake/torch/__init__.py"
expect 3 "cannot import torch" env PYTHONPATH="$tmp/fake" "$mimic" record --workload mlp --out "$tmp/x"
expect 1 "no mimic_record package" env MIMIC_PYTHON_DIR="$tmp" "$mimic" record --workload mlp --out "$tmp/x"

# a user's script: a step factory, and a function that is the step
expect 0 "linked to ET rf_ids" "$mimic" record --script "$pytests/user_step.py:make_step" --out "$tmp/s1" "${quick[@]}" \
    --profiled-iters 2 --profiled-sessions 2
"$python" "$pytests/check_recording.py" "$tmp/s1" --workload "script:$pytests/user_step.py:make_step" || fail "check s1"
"$python" -c "import json, sys; sys.exit(len(json.load(open(sys.argv[1]))['profiled_iterations_ms']) != 4)" "$tmp/s1/meta.json" \
    || fail "--profiled-iters 2 --profiled-sessions 2 did not profile four iterations"
expect 0 "linked to ET rf_ids" "$mimic" record --script "$pytests/user_step.py:one_step" --out "$tmp/s2" "${quick[@]}"
"$python" "$pytests/check_recording.py" "$tmp/s2" --workload "script:$pytests/user_step.py:one_step" || fail "check s2"
grep -q '"warmup": 0' "$tmp/s2/meta.json" || fail "one_step's first call should count as the warmup"
# a step whose profiled calls are far apart (disturbed): profiled again, at most three times per session
expect 0 "disturbed, profiling again (3/3)" "$mimic" record --script "$pytests/user_step.py:uneven_step" --out "$tmp/s3" \
    "${quick[@]}" --profiled-iters 3 --profiled-sessions 1
"$python" "$pytests/check_recording.py" "$tmp/s3" --workload "script:$pytests/user_step.py:uneven_step" || fail "check s3"
grep -q '"profiled_attempts": 3' "$tmp/s3/meta.json" || fail "an uneven step should be profiled three times"

# a rank that dies: the launcher names it, stops the others, leaves no process behind
start=$(date +%s)
expect 1 "rank 1 failed first (exit code 7)" "$mimic" record --script "$pytests/user_step.py:failing_on_rank_1" \
    --nproc 2 --out "$tmp/dist" --warmup 3 --iters 2
elapsed=$(( $(date +%s) - start ))
[ "$elapsed" -lt 60 ] || fail "stopping after a failed rank took ${elapsed} s"
sleep 0.5
if pgrep -f -- "$tmp/dist" >/dev/null; then fail "ranks still running after the launcher returned"; fi

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "all record CLI checks passed"
