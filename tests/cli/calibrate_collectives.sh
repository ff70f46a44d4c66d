#!/usr/bin/env bash
# mimic calibrate --collectives --quick end to end: Gloo's collectives timed
# on 2 and 4 ranks over loopback, a network YAML and system JSON per rank
# count and collectives.json written, progress on stderr, and `mimic
# simulate` running a collective with each pair in the time the fit says.
# $1 = mimic binary. Exit 77 = skip.
set -uo pipefail
mimic="$1"
[ -x "$(dirname "$mimic")/mimic-torch" ] || { echo "skip: no mimic-torch beside $mimic (a build without libtorch)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
json_get() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

"$mimic" calibrate --collectives --quick --out "$work/net" > "$work/out.txt" 2> "$work/err.txt"; rc=$?
if [ $rc != 0 ] && grep -q "not built into this mimic yet" "$work/err.txt"; then
    echo "skip: this mimic's calibrate does not run --collectives yet"; exit 77
fi
[ $rc = 0 ] || fail "calibrate --collectives: $(tail -5 "$work/err.txt")"
for n in 2 4; do
    [ -s "$work/net/network_${n}ranks.yml" ] && [ -s "$work/net/system_${n}ranks.json" ] || fail "no files for $n ranks"
    grep -q "npus_count: \[ $n \]" "$work/net/network_${n}ranks.yml" || fail "network for $n ranks: $(cat "$work/net/network_${n}ranks.yml")"
done
c="$work/net/collectives.json"
# 4 collectives x 5 sizes (1 KiB to 64 MiB, 16x apart) x 2 rank counts, each with its fit error.
[ "$(json_get "$c" "len(d['measurements'])")" = 40 ] || fail "measurements: $(json_get "$c" "len(d['measurements'])")"
[ "$(json_get "$c" "sum(len(f['points']) for f in d['fits'])")" = 40 ] || fail "fitted points"
json_get "$c" "all(m['median_us'] > 0 for m in d['measurements'])" | grep -q True || fail "a time is not positive"
json_get "$c" "[m for m in d['measurements'] if m['collective']=='reduce_scatter'][0]['emulation']" | grep -q all_to_all \
    || fail "reduce_scatter does not say it is emulated"
grep -Eq "^mimic calibrate: 4 ranks, round [0-9]+ of [0-9]+: all_gather" "$work/err.txt" || fail "no progress lines: $(head "$work/err.txt")"
grep -q "^all_reduce *2 *16 KiB" "$work/out.txt" || fail "no table: $(cat "$work/out.txt")"

# One 16 KiB all-reduce per rank through simulate, with each rank count's files.
cat > "$work/w.json" <<'EOF2'
{"metadata": {"version":"0.0.4","attr":[]}, "nodes": [{"id":"0","name":"ar","type":"COMM_COLL_NODE","ctrl_deps":[],
 "data_deps":[],"attr":[{"name":"is_cpu_op","bool_val":false},{"name":"comm_type","int64_val":"0"},
 {"name":"comm_size","int64_val":"16384"}]}]}
EOF2
for n in 2 4; do
    for ((r = 0; r < n; r++)); do
        "$mimic" encode "$work/w.json" --out "$work/w$n.$r.et" > /dev/null 2>&1 || fail "encode"
    done
    "$mimic" simulate "$work/w$n" --network "$work/net/network_${n}ranks.yml" --system "$work/net/system_${n}ranks.json" \
        --json "$work/sim$n.json" > "$work/sim$n.txt" 2>&1 || fail "simulate with the $n-rank files: $(cat "$work/sim$n.txt")"
    grep -qi warning "$work/sim$n.txt" && fail "simulate warns about the files: $(cat "$work/sim$n.txt")"
    got=$(json_get "$work/sim$n.json" "d['ranks'][0]['finish_ns']")
    want=$(json_get "$c" "[p for f in (d['fits'] if d['written'] == 'fits' else [d['joint_fit']]) for p in f['points'] if p['collective'] == 'all_reduce' and p['ranks'] == $n and p['bytes'] == 16384][0]['simulated_us']")
    python3 -c "import sys; sys.exit(0 if abs($got / 1e3 - $want) < 0.01 else 1)" || fail "$n ranks: simulate $got ns, fit $want us"
done
# Given a job's traces: only the collectives, sizes and ranks it runs are timed and fitted.
data="$(cd "$(dirname "$0")/../data" && pwd)"
"$mimic" calibrate --collectives "$data/ddp_gloo_misfiled" --quick --out "$work/focus" > "$work/focus.txt" 2> "$work/focus.err" \
    || fail "calibrate --collectives TRACES: $(tail -5 "$work/focus.err")"
f="$work/focus/collectives.json"
[ -s "$work/focus/network_2ranks.yml" ] && [ ! -e "$work/focus/network_4ranks.yml" ] || fail "not fitted to the traces' 2 ranks: $(ls "$work/focus")"
json_get "$f" "sorted(set(m['collective'] for m in d['measurements']))" | grep -qx "\['all_reduce'\]" || fail "timed more than the job's all_reduce"
json_get "$f" "d['fitted_to']['collectives'] == ['all_reduce'] and len(d['fitted_to']['traces']) == 1" | grep -q True || fail "fitted_to"
# Sizes from a quarter of the smallest bucket (257 KiB) to 4x the largest (1 MiB and a bias), on the 4^k KiB grid.
lo=$(json_get "$f" "min(m['bytes'] for m in d['measurements'])"); hi=$(json_get "$f" "max(m['bytes'] for m in d['measurements'])")
[ "$lo" = 65536 ] && [ "$hi" = 16777216 ] || fail "sizes $lo..$hi"
grep -q "timing the collectives the traces run" "$work/focus.err" || fail "no line saying what was chosen: $(head -3 "$work/focus.err")"
grep -q "fitted to the collectives the traces run: all_reduce" "$work/focus/network_2ranks.yml" || fail "network comment"
# A trace with no collective: one error naming it.
"$mimic" calibrate --collectives "$data/redispatch_1.13/et.json.gz" --out "$work/none" > /dev/null 2> "$work/none.err" && fail "no collectives accepted"
grep -q "redispatch_1.13/et.json.gz.*no collective calibrate can time" "$work/none.err" || fail "no-collective error: $(cat "$work/none.err")"

echo "ok: calibrate --collectives (quick) in $(json_get "$c" "round(d['total_seconds'])") s"
