#!/usr/bin/env bash
# Multi-rank replay when things go wrong: ranks given traces of different runs,
# a rank whose trace is damaged, a rank killed or stopped mid-run, a taken
# rendezvous port. Each must end every rank within a bounded time, with one
# clear error naming the rank, a nonzero exit and no process left behind.
# Also: ranks started by hand with a launcher's variables (as torchrun does).
# $1 = mimic binary, $2 = shared traces directory (unused). Exit 77 = skip.
set -uo pipefail
mimic="$1"
python=/usr/bin/python3
src_python="$(cd "$(dirname "$0")/../../python" && pwd)"
"$mimic" replay --help > /dev/null 2>&1 || { echo "skip: mimic built without libtorch"; exit 77; }
"$python" -c "import torch" 2>/dev/null || { echo "skip: Debian's python3-torch is not installed"; exit 77; }
work=$(mktemp -d)
trap 'pkill -KILL -f "$work" 2>/dev/null; rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
record() { PYTHONPATH="$src_python" "$python" -m mimic_record "$@" > "$work/record.log" 2>&1 || { cat "$work/record.log"; exit 1; }; }
# The pid of the launcher's child that runs rank $2 (from its environment), if any.
rank_process() { for p in $(pgrep -P "$1"); do grep -qx "RANK=$2" < <(tr '\0' '\n' < /proc/$p/environ 2>/dev/null) && echo $p; done; }
# The same, waited for up to 10 s: if the rendezvous port was taken, the
# launcher restarts the ranks on another one.
wait_rank_process() {
    local pid=""
    for _ in $(seq 100); do
        pid=$(rank_process "$1" "$2")
        [ -n "$pid" ] && break
        sleep 0.1
    done
    echo "$pid"
}
no_orphans() { ! pgrep -f "$work/$1" > /dev/null || { pgrep -af "$work/$1"; fail "$2: processes left behind"; }; }

record --workload ddp_mlp --nproc 2 --out "$work/ddp" --warmup 1 --iters 2
record --workload dlrm_dist --nproc 2 --out "$work/dlrm" --warmup 1 --iters 2

# 1. Traces of two different runs: the calls differ, found before the first one.
mkdir -p "$work/mixed"
cp -r "$work/ddp/rank0" "$work/mixed/rank0"
cp -r "$work/dlrm/rank1" "$work/mixed/rank1"
start=$SECONDS
timeout 60 "$mimic" replay "$work/mixed" --iters 1 --timeout-s 30 > "$work/mixed.out" 2> "$work/mixed.err"
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "mismatched traces: exit $rc"
grep -q "do not match" "$work/mixed.err" || { cat "$work/mixed.err"; fail "mismatched traces: no 'do not match' error"; }
grep -q "rank 0" "$work/mixed.err" && grep -q "rank 1" "$work/mixed.err" || fail "mismatch error should name both ranks"
[ $((SECONDS - start)) -lt 30 ] || fail "mismatch took past the collective timeout to detect"
no_orphans mixed "mismatch"

# 2. A damaged trace on rank 1: rank 1 names its file, the launcher names rank 1.
cp -r "$work/ddp" "$work/broken"
head -c 3000 "$work/ddp/rank1/et.json.gz" > "$work/broken/rank1/et.json.gz"
timeout 60 "$mimic" replay "$work/broken" --iters 1 --timeout-s 20 > /dev/null 2> "$work/broken.err"
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "damaged rank: exit $rc"
grep -q "broken/rank1/et.json.gz" "$work/broken.err" || { cat "$work/broken.err"; fail "damaged rank: file not named"; }
grep -q "rank 1 exited with code 1" "$work/broken.err" || { cat "$work/broken.err"; fail "damaged rank: rank not named"; }
no_orphans broken "damaged rank"

# 3. A rank killed mid-run: the launcher stops the others and names it.
"$mimic" replay "$work/ddp" --warmup 0 --iters 100000 --timeout-s 20 > /dev/null 2> "$work/killed.err" &
launcher=$!
for _ in $(seq 100); do
    [ "$(pgrep -P $launcher | wc -l)" -ge 2 ] && break
    sleep 0.1
done
sleep 3  # past the rendezvous, into the timed iterations
victim=$(wait_rank_process $launcher 1)
[ -n "$victim" ] || { cat "$work/killed.err"; fail "killed rank: could not find rank 1's process"; }
start=$SECONDS
kill -KILL "$victim"
wait $launcher
rc=$?
[ $rc -ne 0 ] || fail "killed rank: launcher exit 0"
grep -q "rank 1 was killed by signal 9" "$work/killed.err" || { cat "$work/killed.err"; fail "killed rank not named"; }
[ $((SECONDS - start)) -lt 15 ] || fail "killed rank: the others took $((SECONDS - start)) s to stop"
no_orphans ddp "killed rank"

# 4. A rank that hangs (stopped): its peer's collective times out, all stop.
# On a loaded machine rank 1 may still be starting when it is stopped: then
# rank 0 times out waiting to hear from it, which must be as clear.
"$mimic" replay "$work/ddp" --warmup 0 --iters 100000 --timeout-s 4 > /dev/null 2> "$work/hung.err" &
launcher=$!
sleep 4
victim=$(wait_rank_process $launcher 1)
[ -n "$victim" ] || { cat "$work/hung.err"; fail "hung rank: could not find rank 1's process"; }
kill -STOP "$victim"
start=$SECONDS
wait $launcher
rc=$?
[ $rc -ne 0 ] || fail "hung rank: launcher exit 0"
grep -q "rank 0" "$work/hung.err" && grep -q "timeout" "$work/hung.err" || { cat "$work/hung.err"; fail "hung rank: no timeout error from rank 0"; }
[ $((SECONDS - start)) -lt 20 ] || fail "hung rank: took $((SECONDS - start)) s to stop"
no_orphans ddp "hung rank"

# 5. Ranks started by hand, as torchrun or a batch system starts them.
port=$("$python" -c "import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
for r in 0 1; do
    RANK=$r WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port timeout 120 \
        "$mimic" replay "$work/ddp" --iters 1 --json "$work/env$r.json" > "$work/env$r.txt" 2>&1 &
done
wait %1 || fail "launcher-env rank 0 failed: $(cat "$work/env0.txt")"
wait %2 || fail "launcher-env rank 1 failed: $(cat "$work/env1.txt")"
# Rank 0 prints and writes the merged report of both ranks; rank 1 says so.
"$python" -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert d['world_size'] == 2 and [r['rank'] for r in d['ranks']] == [0, 1], d['world_size']
assert all(r['world_size'] == 2 and r['collectives_replayed'] == r['collectives_total'] > 0 for r in d['ranks'])
assert d['summary']['collective_coverage_pct'] == 100.0
" "$work/env0.json" || fail "launcher-env merged report"
grep -q "replay of 2 ranks" "$work/env0.txt" || fail "launcher-env rank 0 printed no merged report"
grep -q "rank 1 of 2" "$work/env1.txt" || fail "launcher-env rank 1 output"

# 6. --nproc that does not match the rank directories: refused before any rank starts.
"$mimic" replay "$work/ddp" --nproc 3 > /dev/null 2> "$work/nproc.err" && fail "--nproc 3 on 2 ranks accepted"
grep -q "holds 2 rank traces; --nproc 3" "$work/nproc.err" || { cat "$work/nproc.err"; fail "--nproc mismatch: unclear error"; }

# 7. The rendezvous port is taken: a clear error, not a hang.
# The holder picks a free port itself and says which: reusing the port of the
# test above can fail to bind while that port sits in TIME_WAIT.
rm -f "$work/held_port"
"$python" -c "
import socket, sys, time
s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen()
open(sys.argv[1] + '.tmp', 'w').write(str(s.getsockname()[1]))
import os; os.rename(sys.argv[1] + '.tmp', sys.argv[1])
time.sleep(30)" "$work/held_port" &
holder=$!
for _ in $(seq 100); do [ -s "$work/held_port" ] && break; sleep 0.1; done
[ -s "$work/held_port" ] || fail "busy port: the port holder did not start"
port=$(cat "$work/held_port")
# A launcher world that contradicts the recording is refused before the store is touched.
RANK=0 WORLD_SIZE=1 MASTER_PORT=$port timeout 60 "$mimic" replay "$work/ddp/rank0" --iters 1 > /dev/null 2> "$work/world.err" \
    && fail "a world of 1 accepted for a 2-rank recording"
grep -q "default group has 2 ranks; the replay has 1" "$work/world.err" || { cat "$work/world.err"; fail "world mismatch: unclear error"; }
RANK=0 WORLD_SIZE=2 MASTER_PORT=$port timeout 60 "$mimic" replay "$work/ddp/rank0" --iters 1 --timeout-s 20 > /dev/null 2> "$work/busy.err"
rc=$?
kill $holder 2>/dev/null
[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "busy port: exit $rc"
grep -q "could not serve the rendezvous store at 127.0.0.1:$port" "$work/busy.err" || { cat "$work/busy.err"; fail "busy port: unclear error"; }
echo "ok"
