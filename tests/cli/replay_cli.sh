#!/bin/bash
# End-to-end: mimic replay and mimic diff on a real shared trace, on an ET with
# nothing to replay, and on a fresh recording of the built-in MLP (replayed,
# re-recorded and diffed against the original).
# $1 = mimic binary, $2 = shared traces dir. Exit 77 = skipped.
set -u
MIMIC=$1
TRACES=$2
"$MIMIC" replay --help > /dev/null 2>&1 || { echo "mimic built without libtorch: skip"; exit 77; }
command -v python3 > /dev/null || { echo "no python3 to read JSON: skip"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

json_get() {  # file, python expression over `d`
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}

# Sends each command to a paced program (PREFIX.go.rank0, see bench/replay_paired.py), reads
# its reply line into REPLIES, then says "stop". Fails when a reply does not come in TIMEOUT s.
drive_paced() {  # prefix, timeout, command...
    local prefix=$1 timeout=$2 line
    shift 2
    REPLIES=()
    exec 3> "$prefix.go.rank0" 4< "$prefix.done.rank0"
    for command in "$@"; do
        echo "$command" >&3
        if ! read -r -t "$timeout" line <&4; then
            exec 3>&- 4<&-
            return 1
        fi
        REPLIES+=("$line")
    done
    echo stop >&3
    exec 3>&- 4<&-
}

# 1. A real GPU trace on this CPU; the 0.5-GFLOP matmuls are left out to keep it short.
LINEAR=$TRACES/pytorch/linear_et.json.gz
if [ -f "$LINEAR" ]; then
    "$MIMIC" replay "$LINEAR" --exclude '^aten::(mm|linear)$' --warmup 0 --iters 2 --op-passes 3 \
        --json "$TMP/linear.json" > "$TMP/linear.txt" || fail "replay of linear_et failed"
    [ "$(json_get "$TMP/linear.json" "d['op_passes']")" = 3 ] || fail "--op-passes 3 not in the report"
    grep -q "per-op median of 3 passes" "$TMP/linear.txt" || fail "the text report does not say the per-op passes"
    for key in iteration_ms median_ms original_ms error_pct ops_total ops_replayed ops_skipped; do
        [ "$(json_get "$TMP/linear.json" "'$key' in d")" = True ] || fail "JSON report lacks $key"
    done
    [ "$(json_get "$TMP/linear.json" "len(d['iteration_ms'])")" = 2 ] || fail "iteration_ms should hold 2 times"
    [ "$(json_get "$TMP/linear.json" "d['ops_replayed']")" = 258 ] || fail "linear: expected 258 replayed ops"
    # A bare ET has no untraced time to take host time from: one clear error.
    if "$MIMIC" replay "$LINEAR" --host-gaps untraced --iters 1 > "$TMP/untraced.out" 2>&1; then
        fail "--host-gaps untraced without meta.json succeeded"
    fi
    grep -q "field 'untraced_median_ms'" "$TMP/untraced.out" || fail "--host-gaps untraced error: $(cat "$TMP/untraced.out")"
    grep -q "258 of 258 top-level replayed" "$TMP/linear.txt" || fail "text report: coverage line"
    # With its GPU profile: the times do not compare with this CPU's, and no pass under the profiler runs.
    if [ -f "$TRACES/pytorch/linear_kineto.json.gz" ]; then
        "$MIMIC" replay "$LINEAR" --profile "$TRACES/pytorch/linear_kineto.json.gz" --max-ops 40 --warmup 0 --iters 1 \
            --op-passes 1 --json "$TMP/linear_prof.json" > /dev/null 2>&1 || fail "replay of linear_et with its profile failed"
        [ "$(json_get "$TMP/linear_prof.json" "not d['times_comparable'] and d['per_op_error_geomean_pct'] is not None and d['per_op_error_geomean_profiled_pct'] is None")" = True ] \
            || fail "linear: a GPU profile's times were compared under the profiler on CPU"
    fi
fi

# 2. An ET with no operator at all: an error exit naming the reason.
cat > "$TMP/empty.json" <<'JSON'
{"schema": "1.0.1", "pid": 1, "time": "2024-01-01 00:00:00", "start_ts": 0, "nodes": [
 {"name": "[pytorch|profiler|execution_graph|process]", "id": 1, "rf_id": 0, "parent": 1, "fw_parent": 0, "seq_id": -1,
  "scope": 7, "tid": 0, "fw_tid": 0, "op_schema": "", "inputs": [], "input_shapes": [], "input_types": [],
  "outputs": [], "output_shapes": [], "output_types": []},
 {"name": "ProfilerStep#1", "id": 2, "rf_id": 1, "parent": 1, "fw_parent": 0, "seq_id": -1, "scope": 7, "tid": 1,
  "fw_tid": 0, "op_schema": "", "inputs": [], "input_shapes": [], "input_types": [], "outputs": [],
  "output_shapes": [], "output_types": []}], "finish_ts": 1}
JSON
if "$MIMIC" replay "$TMP/empty.json" > "$TMP/empty.out" 2>&1; then fail "replay of an ET with no op succeeded"; fi
grep -q "nothing to replay" "$TMP/empty.out" || fail "no reason given: $(cat "$TMP/empty.out")"

# 3. A fresh recording, replayed with recorded host gaps, re-recorded and diffed.
if "$MIMIC" record --workload mlp --out "$TMP/mlp" --warmup 1 --iters 3 > "$TMP/record.log" 2>&1; then
    "$MIMIC" replay "$TMP/mlp" --host-gaps recorded --iters 2 --json "$TMP/mlp.json" --record-replay "$TMP/mlp_replay" \
        > "$TMP/mlp.txt" 2>&1 || fail "replay of a fresh recording failed: $(cat "$TMP/mlp.txt")"
    [ "$(json_get "$TMP/mlp.json" "d['ops_replayed'] == d['ops_total'] > 0")" = True ] || fail "mlp: not every op replayed"
    # The recording profiles three sessions of five iterations: each op's profile time is its median over the fifteen.
    [ "$(json_get "$TMP/mlp.json" "d['profile_iterations']")" = 15 ] || fail "mlp: profile times are not medians over 15 profiled iterations"
    grep -q "median over 15 profiled iterations" "$TMP/mlp.txt" || fail "mlp: the text report does not say the profile times are medians"
    [ "$(json_get "$TMP/mlp.json" "d['original_source']")" = "meta.json untraced median" ] || fail "mlp: original time not from meta.json"
    # Both machines, the original's (meta.json) and this replay's, each naming the BLAS loaded at run
    # time; recorded and replayed here with the same threads and environment, they agree on every field.
    [ "$(json_get "$TMP/mlp.json" "d['machines']['original']['blas']['library'] == d['machines']['replay']['blas']['library'] != '' and d['machines']['differences'] == []")" = True ] \
        || fail "mlp: machines: $(grep -E 'machine|warning' "$TMP/mlp.txt")"
    grep -q "machine (original): .*BLAS " "$TMP/mlp.txt" && grep -q "machine (replay): .*BLAS " "$TMP/mlp.txt" \
        || fail "mlp: the text report does not print both machines"
    # Memory: the estimate is printed before allocating and is in the report; above --max-memory the
    # replay refuses at once, naming the node of the peak; a size that is not one names the option.
    grep -q "memory needed (estimated from the trace): .* MiB, the peak live set .* MiB after node [0-9]* and a copy of" "$TMP/mlp.txt" \
        || fail "mlp: no memory estimate printed"
    [ "$(json_get "$TMP/mlp.json" "0 < d['estimated_peak_bytes'] <= d['peak_rss_bytes']")" = True ] \
        || fail "mlp: estimated_peak_bytes missing or above the peak RSS"
    if "$MIMIC" replay "$TMP/mlp" --max-memory 64K --iters 1 > "$TMP/maxmem.txt" 2>&1; then fail "--max-memory 64K did not refuse"; fi
    grep -q "et.json.gz: node [0-9]*: field '--max-memory': the replay needs an estimated .* MiB .*, more than 0.1 MiB (--max-memory)" \
        "$TMP/maxmem.txt" || fail "--max-memory refusal: $(cat "$TMP/maxmem.txt")"
    # A limit with room for the live set but not for the copy of the starting values: the replay
    # runs, filling those inputs afresh before each iteration, and holds no copy.
    peak_mib=$(sed -n 's/.*memory needed (estimated from the trace): .* MiB, the peak live set \([0-9.]*\) MiB after.*/\1/p' "$TMP/mlp.txt")
    resident_mib=$(sed -n 's/.* and a copy of the \([0-9.]*\) MiB there from the start.*/\1/p' "$TMP/mlp.txt")
    between=$(python3 -c "print(int(($peak_mib + $resident_mib / 2) * 1048576))")
    "$MIMIC" replay "$TMP/mlp" --max-memory "$between" --iters 2 --op-passes 1 --no-profiled-pass --json "$TMP/refill.json" \
        > "$TMP/refill.txt" 2>&1 || fail "a limit between the live set and the copy refused: $(cat "$TMP/refill.txt")"
    grep -q "no room within .* for a copy of the $resident_mib MiB there from the start .*, so they are filled with fresh values" \
        "$TMP/refill.txt" || fail "refill not announced: $(head -3 "$TMP/refill.txt")"
    [ "$(json_get "$TMP/refill.json" "d['ops_replayed'] == d['ops_total'] and d['pool_bytes'] + $resident_mib * 1048576 / 2 < $(json_get "$TMP/mlp.json" "d['pool_bytes']") and d['estimated_peak_bytes'] < $(json_get "$TMP/mlp.json" "d['estimated_peak_bytes']")")" = True ] \
        || fail "refill: ops, pool or estimate as with the copy: $(json_get "$TMP/refill.json" "(d['ops_replayed'], d['pool_bytes'], d['estimated_peak_bytes'])")"
    if "$MIMIC" replay "$TMP/mlp" --max-memory lots > "$TMP/maxmem2.txt" 2>&1; then fail "--max-memory lots accepted"; fi
    grep -q "'lots' is not a memory size" "$TMP/maxmem2.txt" || fail "bad --max-memory: $(cat "$TMP/maxmem2.txt")"
    # --threads N: the report states the threads and names the field that differs from the original's.
    orig_threads=$(json_get "$TMP/mlp/meta.json" "d['machine']['intra_op_threads']")
    threads=$((orig_threads + 1))
    "$MIMIC" replay "$TMP/mlp" --threads $threads --iters 1 --op-passes 1 --no-profiled-pass --max-ops 10 \
        --json "$TMP/mlp_threads.json" > "$TMP/mlp_threads.txt" 2>&1 || fail "--threads $threads failed: $(cat "$TMP/mlp_threads.txt")"
    [ "$(json_get "$TMP/mlp_threads.json" "d['threads'] == $threads and d['machines']['replay']['intra_op_threads'] == $threads")" = True ] \
        || fail "--threads $threads not applied"
    grep -q "^  warning: machines differ: intra_op_threads $orig_threads (original) vs $threads (replay)$" "$TMP/mlp_threads.txt" \
        || fail "--threads $threads: no warning naming intra_op_threads: $(grep -E 'machine|warning' "$TMP/mlp_threads.txt")"
    # diff of two recordings: both machines, and a warning per field that differs.
    cp -r "$TMP/mlp" "$TMP/mlp_other_blas"
    python3 - "$TMP/mlp_other_blas/meta.json" <<'PYEOF' || fail "could not edit meta.json"
import json, sys
doc = json.load(open(sys.argv[1]))
doc["machine"]["blas"] = {"library": "reference", "path": "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3", "config": None, "threads": None}
json.dump(doc, open(sys.argv[1], "w"))
PYEOF
    lib=$(json_get "$TMP/mlp/meta.json" "d['machine']['blas']['library']")
    "$MIMIC" diff "$TMP/mlp" "$TMP/mlp_other_blas" --json "$TMP/diff_blas.json" > "$TMP/diff_blas.txt" || fail "diff of two recordings failed"
    if [ "$lib" != reference ]; then
        grep -q "^  warning: machines differ: blas $lib (A) vs reference (B)$" "$TMP/diff_blas.txt" \
            || fail "diff: no warning naming blas: $(cat "$TMP/diff_blas.txt")"
        [ "$(json_get "$TMP/diff_blas.json" "[x['field'] for x in d['machines']['differences']]")" = "['blas']" ] \
            || fail "diff: machines' differences $(json_get "$TMP/diff_blas.json" "d['machines']['differences']")"
    fi
    [ "$(json_get "$TMP/mlp.json" "d['page_faults_per_iter'] >= 0 and d['original_page_faults_per_iter'] >= 0")" = True ] \
        || fail "mlp: page faults per iteration not reported for both sides"
    [ "$(json_get "$TMP/mlp.json" "0 < d['host_gap_model']['cpu_share'] <= 1")" = True ] || fail "mlp: no CPU share for the gaps"
    # The recording has the original's page faults per op: the replay gives them as fresh pages.
    [ -f "$TMP/mlp/op_faults.json" ] || fail "mlp: the recording has no op_faults.json"
    [ "$(json_get "$TMP/mlp.json" "d['page_faults_mode'] == 'recorded' and d['fresh_pages_per_iter'] >= 0 and d['original_op_page_faults'] >= 0")" = True ] \
        || fail "mlp: fresh pages not reported: $(cat "$TMP/mlp.txt")"
    # The original's tensor layouts (a 1.13 ET has no strides) reach every top-level op's tensors.
    [ -f "$TMP/mlp/op_layouts.json" ] || fail "mlp: the recording has no op_layouts.json"
    [ "$(json_get "$TMP/mlp.json" "d['recorded_layout_ops'] >= 0.9 * d['ops_total'] and d['recorded_layout_tensors'] > 0 and d['recorded_layout_mismatched_ops'] == 0")" = True ] \
        || fail "mlp: recorded layouts not applied to every op: $(cat "$TMP/mlp.txt")"
    # The untraced calls' host time, as the recorder timed it.
    "$MIMIC" replay "$TMP/mlp" --host-gaps measured --iters 1 --json "$TMP/mlp_measured.json" > "$TMP/measured.txt" 2>&1 \
        || fail "--host-gaps measured failed: $(cat "$TMP/measured.txt")"
    [ "$(json_get "$TMP/mlp_measured.json" "d['host_gap_model']['measured'] and d['host_gap_model']['corrected_gaps_ms'] > 0")" = True ] \
        || fail "mlp: --host-gaps measured gave no measured gaps"
    # Per op: the untraced durations are a second reference, and --op-times lists every replayed op.
    [ "$(json_get "$TMP/mlp.json" "d['per_op_error_geomean_untraced_pct'] >= 0 and any('untraced_us' in r for r in d['per_op'])")" = True ] \
        || fail "mlp: no per-op comparison with the untraced op times"
    # Per op under torch's own profiler, set up as the recorder's, against the profile as recorded:
    # every replayed op of the recording is one the profiler saw as a top-level call.
    [ "$(json_get "$TMP/mlp.json" "d['per_op_error_geomean_profiled_pct'] >= 0 and all('replay_profiled_us' in r for r in d['per_op'] if r['count'] and 'profile_raw_us' in r)")" = True ] \
        || fail "mlp: no per-op pass under the profiler: $(cat "$TMP/mlp.txt")"
    grep -q "under torch's profiler" "$TMP/mlp.txt" || fail "mlp: the text report does not give the pass under the profiler"
    "$MIMIC" replay "$TMP/mlp" --iters 1 --no-profiled-pass --json "$TMP/mlp_noprof.json" > /dev/null 2>&1 || fail "--no-profiled-pass failed"
    [ "$(json_get "$TMP/mlp_noprof.json" "d['per_op_error_geomean_profiled_pct'] is None and not any('replay_profiled_us' in r for r in d['per_op'])")" = True ] \
        || fail "mlp: --no-profiled-pass still ran the pass under the profiler"
    "$MIMIC" replay "$TMP/mlp" --iters 1 --op-times "$TMP/op_times.json" > /dev/null 2>&1 || fail "--op-times failed"
    [ "$(json_get "$TMP/op_times.json" "len(d['ops']) == $(json_get "$TMP/mlp.json" "d['ops_replayed']") and all(o['replay_us'] >= 0 and o['profile_us'] is not None for o in d['ops']) and sum(o['untraced_us'] is not None for o in d['ops']) >= 0.9 * len(d['ops'])")" = True ] \
        || fail "mlp: --op-times does not list every replayed op with its references"
    [ "$(json_get "$TMP/op_times.json" "all(o['replay_profiled_us'] > 0 for o in d['ops'])")" = True ] \
        || fail "mlp: --op-times lacks the times under the profiler"
    # Each op's page faults, the original's (op_faults.json pairs every op of a fresh recording) and the replay's.
    [ "$(json_get "$TMP/op_times.json" "all(o['replay_page_faults'] >= 0 and o['original_page_faults'] >= 0 for o in d['ops'])")" = True ] \
        || fail "mlp: --op-times lacks each op's page faults"
    # The untraced op times get a per-op pass of their own when their calls faulted elsewhere than
    # the profiled iteration: made so here by giving every untraced op one fault more than its
    # profiled call took (not only the first: op_gaps.json also names ops outside the replayed step).
    cp -r "$TMP/mlp" "$TMP/mlp_faults"
    python3 - "$TMP/mlp_faults/op_faults.json" "$TMP/mlp_faults/op_gaps.json" <<'PYEOF' || fail "could not edit op_gaps.json"
import json, sys
profiled = dict(json.load(open(sys.argv[1]))["faults"])
path = sys.argv[2]
doc = json.load(open(path))
for row in doc["gaps"]:
    row[4] = profiled.get(row[0], 0) + 1
json.dump(doc, open(path, "w"))
PYEOF
    "$MIMIC" replay "$TMP/mlp_faults" --iters 1 --json "$TMP/mlp_faults.json" --op-times "$TMP/op_times_faults.json" \
        > "$TMP/mlp_faults.txt" 2>&1 || fail "replay with other untraced faults failed: $(cat "$TMP/mlp_faults.txt")"
    [ "$(json_get "$TMP/mlp_faults.json" "d['untraced_op_pass'] and d['per_op_error_geomean_untraced_pct'] >= 0")" = True ] \
        || fail "mlp: untraced calls' faults differ, but no pass of their own: $(cat "$TMP/mlp_faults.txt")"
    [ "$(json_get "$TMP/op_times_faults.json" "all(o['replay_untraced_pass_us'] >= 0 for o in d['ops'])")" = True ] \
        || fail "mlp: --op-times lacks the untraced pass's times"
    grep -q "against a pass given their calls' page faults" "$TMP/mlp_faults.txt" || fail "mlp: the text report does not say so"
    # The profile's durations are to the nanosecond (the profiler's own whole microseconds are truncated).
    [ "$(json_get "$TMP/op_times.json" "any(o['profile_raw_us'] != int(o['profile_raw_us']) for o in d['ops'])")" = True ] \
        || fail "mlp: profile durations are whole microseconds"
    # Subnormal floats are flushed by default (the replay's synthetic values make them); --denormals keep leaves IEEE arithmetic.
    [ "$(json_get "$TMP/mlp.json" "d['denormals']")" = flush ] || fail "mlp: denormals not flushed by default"
    "$MIMIC" replay "$TMP/mlp" --page-faults none --denormals keep --iters 1 --json "$TMP/mlp_nopf.json" > /dev/null 2>&1 || fail "--page-faults none failed"
    [ "$(json_get "$TMP/mlp_nopf.json" "d['denormals']")" = keep ] || fail "mlp: --denormals keep not applied"
    [ "$(json_get "$TMP/mlp_nopf.json" "d['page_faults_mode'] == 'none' and 'fresh_pages_per_iter' not in d")" = True ] \
        || fail "mlp: --page-faults none still gave fresh pages"
    echo '{"faults": [[1, -3]]}' > "$TMP/mlp/op_faults.json"
    if "$MIMIC" replay "$TMP/mlp" --iters 1 > "$TMP/badfaults.out" 2>&1; then fail "a bad op_faults.json was accepted"; fi
    grep -q "op_faults.json.*faults\[0\]" "$TMP/badfaults.out" || fail "bad op_faults.json: $(cat "$TMP/badfaults.out")"
    rm "$TMP/mlp/op_faults.json"
    mv "$TMP/mlp/op_gaps.json" "$TMP/op_gaps.json"
    if "$MIMIC" replay "$TMP/mlp" --host-gaps measured --iters 1 > "$TMP/nogaps.out" 2>&1; then fail "--host-gaps measured without op_gaps.json succeeded"; fi
    grep -q "field 'op_gaps.json'" "$TMP/nogaps.out" || fail "--host-gaps measured without op_gaps.json: $(cat "$TMP/nogaps.out")"
    mv "$TMP/op_gaps.json" "$TMP/mlp/op_gaps.json"
    "$MIMIC" replay "$TMP/mlp" --host-gaps untraced --iters 2 --json "$TMP/mlp_untraced.json" > "$TMP/mlp_untraced.txt" 2>&1 \
        || fail "replay with --host-gaps untraced failed: $(cat "$TMP/mlp_untraced.txt")"
    [ "$(json_get "$TMP/mlp_untraced.json" "d['host_gap_model']['from_untraced'] and d['host_gap_model']['untraced_ms'] > 0")" = True ] \
        || fail "mlp: --host-gaps untraced did not take the host time from the untraced run"
    # Paced: the timed iterations run in the blocks a benchmark driver asks for (bench/replay_paired.py).
    mkfifo "$TMP/pace.go.rank0" "$TMP/pace.done.rank0"
    "$MIMIC" replay "$TMP/mlp" --pace "$TMP/pace" --json "$TMP/paced.json" > "$TMP/paced.txt" 2>&1 &
    replay_pid=$!
    drive_paced "$TMP/pace" 120 "run 1 2" "run 0 1" ops || fail "paced replay: a command had no reply"
    first=${REPLIES[0]} second=${REPLIES[1]} ops=${REPLIES[2]}
    wait $replay_pid || fail "paced replay failed: $(cat "$TMP/paced.txt")"
    [ "$(echo $first | wc -w)" = 2 ] && [ "$(echo $second | wc -w)" = 1 ] || fail "paced replay replied '$first' and '$second'"
    [ "$(json_get "$TMP/paced.json" "len(d['iteration_ms']) == 3 and d['iters'] == 3")" = True ] \
        || fail "paced replay: the report does not hold the three timed iterations"
    # "ops": one per-op pass, every replayed op as ET_NODE_ID:US.
    [ "$(echo "$ops" | tr ' ' '\n' | grep -cE '^[0-9]+:[0-9.]+$')" = "$(json_get "$TMP/paced.json" "d['ops_replayed']")" ] \
        || fail "paced replay: ops replied '$ops'"
    # The original's side: the recording process stays, times untraced calls, and with the probe each op.
    mkfifo "$TMP/orig.go.rank0" "$TMP/orig.done.rank0"
    "$MIMIC" record --workload mlp --out "$TMP/mlp_paced" --warmup 1 --iters 2 --pace "$TMP/orig" > "$TMP/orig.log" 2>&1 &
    record_pid=$!
    drive_paced "$TMP/orig" 300 "run 0 2" ops || fail "paced recording: a command had no reply"
    orig_times=${REPLIES[0]} orig_ops=${REPLIES[1]}
    wait $record_pid || fail "paced recording failed: $(cat "$TMP/orig.log")"
    [ "$(echo $orig_times | wc -w)" = 2 ] || fail "paced recording replied '$orig_times'"
    paired=$(echo "$orig_ops" | tr ' ' '\n' | grep -cE '^[0-9]+:[0-9.]+$')
    [ "$paired" -ge "$(json_get "$TMP/mlp.json" "int(0.9 * d['ops_total'])")" ] || fail "paced recording: ops replied '$orig_ops'"
    "$MIMIC" diff "$TMP/mlp" "$TMP/mlp_replay/et.json" --json "$TMP/diff.json" > "$TMP/diff.txt" || fail "diff failed"
    [ "$(json_get "$TMP/diff.json" "d['identical']")" = True ] || fail "replay ran other ops than the original: $(cat "$TMP/diff.txt")"
else
    echo "note: mimic record unavailable here, fresh-recording part skipped: $(tail -1 "$TMP/record.log")"
fi
echo "ok"
