#!/usr/bin/env bash
# mimic simulate end to end: an ASTRA-sim case through the command line (its
# own option names too), PyTorch traces converted in memory and through
# `mimic convert` giving the same times, a 2-rank DDP recording simulated,
# what-ifs, the timeline, and bad input (one line, exit 1).
# $1 = mimic binary, $2 = shared traces directory. Exit 77 = skip.
set -uo pipefail
mimic="$1"
traces="$2"
astra="$traces/../astra"
[ -f "$astra/cases.json" ] || { echo "skip: no ASTRA-sim cases at $astra"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export MIMIC_NO_PROGRESS=1
fail() { echo "FAIL: $*"; exit 1; }
json_get() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

# 1. A shared case, with mimic's option names and with ASTRA-sim's.
cd "$astra"
"$mimic" simulate workloads/microbench/all_reduce_4/all_reduce --network configs/network/Ring_4npus.yml \
    --system configs/system/Ring_4chunks.json --json "$work/a.json" > "$work/a.txt" 2>&1 || fail "simulate case"
[ "$(json_get "$work/a.json" "d['ranks'][3]['finish_ns']")" = 43000 ] || fail "Ring_4chunks all-reduce is not 43000 ns"
grep -q "0-3 *43000" "$work/a.txt" || fail "table groups equal ranks: $(cat "$work/a.txt")"
"$mimic" simulate --workload-configuration=workloads/microbench/all_reduce_4/all_reduce \
    --network-configuration=configs/network/Ring_4npus.yml --system-configuration=configs/system/Ring_4chunks.json \
    --remote-memory-configuration=configs/memory/no_memory_expansion.json --astra-lines > "$work/astra.txt" 2> /dev/null \
    || fail "ASTRA-sim option names"
grep -q "^sys\[2\] finished, 43000 cycles, exposed communication 43000 cycles.$" "$work/astra.txt" || fail "astra lines: $(cat "$work/astra.txt")"
cd - > /dev/null

# 2. A PyTorch ET: simulated directly and through mimic convert, the same times.
cat > "$work/net4.yml" <<'EOF2'
topology: [ Switch ]
npus_count: [ 4 ]
bandwidth: [ 100 ]
latency: [ 1000 ]
EOF2
sys="$astra/configs/system/ring_lifo_s1_c1.json"
"$mimic" simulate "$traces/pytorch/resnet_et.json.gz" --profile "$traces/pytorch/resnet_kineto.json.gz" --ranks 4 \
    --network "$work/net4.yml" --system "$sys" --json "$work/direct.json" > /dev/null 2>&1 || fail "simulate the ET"
"$mimic" convert "$traces/pytorch/resnet_et.json.gz" --profile "$traces/pytorch/resnet_kineto.json.gz" --to chakra \
    --out "$work/conv" > /dev/null 2>&1 || fail "convert"
"$mimic" simulate "$work/conv" --ranks 4 --network "$work/net4.yml" --system "$sys" --json "$work/conv.json" \
    --timeline "$work/tl.json" > /dev/null 2>&1 || fail "simulate the converted trace"
a=$(json_get "$work/direct.json" "d['iteration_ns']"); b=$(json_get "$work/conv.json" "d['iteration_ns']")
[ "$a" = "$b" ] && [ "$a" -gt 0 ] || fail "ET $a ns vs converted $b ns"
json_get "$work/tl.json" "len([e for e in d['traceEvents'] if e['ph']=='X'])" | grep -qv '^0$' || fail "empty timeline"

# 3. What-ifs: a straggler and a slower dimension both lengthen the iteration
# (the dimension a thousand times slower: 4 ms of all-reduce hide behind 3.4 s
# of compute until it is about as long as the compute).
"$mimic" simulate "$work/conv" --ranks 4 --network "$work/net4.yml" --system "$sys" --straggler 2=1.5 \
    --json "$work/s.json" > /dev/null 2>&1 || fail "--straggler"
c=$(json_get "$work/s.json" "d['iteration_ns']"); [ "$c" -gt "$b" ] || fail "straggler $c <= $b"
"$mimic" simulate "$work/conv" --ranks 4 --network "$work/net4.yml" --system "$sys" --link-degrade 0=1000 \
    --json "$work/l.json" > /dev/null 2>&1 || fail "--link-degrade"
c=$(json_get "$work/l.json" "d['iteration_ns']"); [ "$c" -gt "$b" ] || fail "link-degrade $c <= $b"

# 4. Bad input: one line naming the file, exit 1.
out=$("$mimic" simulate "$work/conv" --ranks 4 --network "$work/missing.yml" --system "$sys" 2>&1); rc=$?
[ $rc = 1 ] && [ "$(echo "$out" | grep -c error)" = 1 ] && echo "$out" | grep -q missing.yml || fail "missing network: $rc $out"
out=$("$mimic" simulate "$work/conv" --network "$work/net4.yml" --system "$sys" 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q "conv.1.et" || fail "missing rank file: $rc $out"
out=$("$mimic" simulate "$work/conv" --ranks 4 --network "$work/net4.yml" --system "$sys" --straggler 2 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q -- "--straggler" || fail "bad straggler: $rc $out"

# 5. A recorded 2-rank DDP step, converted: ASTRA-sim's inputs that run here (and in ASTRA-sim).
python="${MIMIC_PYTHON:-/usr/bin/python3}"
if "$python" -c "import torch" 2> /dev/null; then
    "$mimic" record --workload ddp_mlp --nproc 2 --out "$work/ddp" --warmup 1 --iters 2 > /dev/null 2>&1 || fail "record ddp_mlp"
    "$mimic" convert "$work/ddp" --to chakra --out "$work/ddp_chakra" > /dev/null 2>&1 || fail "convert ddp"
    sed 's/npus_count: \[ 4 \]/npus_count: [ 2 ]/' "$work/net4.yml" > "$work/net2.yml"
    "$mimic" simulate "$work/ddp_chakra" --network "$work/net2.yml" --system "$sys" --json "$work/ddp.json" > /dev/null 2>&1 \
        || fail "simulate the converted DDP recording"
    [ "$(json_get "$work/ddp.json" "d['all_ranks_finished']")" = True ] || fail "DDP ranks did not finish"
    [ "$(json_get "$work/ddp.json" "min(r['comm_ns'] for r in d['ranks'])")" -gt 0 ] || fail "DDP has no communication"
fi
echo "simulate_cli: ok"
