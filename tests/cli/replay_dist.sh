#!/usr/bin/env bash
# Multi-rank replay end to end, on fresh recordings of the built-in distributed
# workloads (PyTorch 1.13, Gloo on loopback) at 2 and 4 ranks: every recorded
# collective is replayed, with the sizes, groups and order the ranks' own ETs
# and meta.json give (derived here in Python, independently of mimic).
# $1 = mimic binary, $2 = shared traces directory (unused). Exit 77 = skip.
set -euo pipefail
mimic="$1"
python=/usr/bin/python3
src_python="$(cd "$(dirname "$0")/../../python" && pwd)"
"$mimic" replay --help > /dev/null 2>&1 || { echo "skip: mimic built without libtorch"; exit 77; }
"$python" -c "import torch" 2>/dev/null || { echo "skip: Debian's python3-torch is not installed"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
record() { PYTHONPATH="$src_python" "$python" -m mimic_record "$@" > "$work/record.log" 2>&1 || { cat "$work/record.log"; exit 1; }; }

for nproc in 2 4; do
    for workload in ddp_mlp dlrm_dist; do
        dir="$work/$workload$nproc"
        record --workload "$workload" --nproc "$nproc" --out "$dir" --warmup 1 --iters 2
        "$mimic" replay "$dir" --warmup 1 --iters 2 --json "$dir.json" > "$dir.txt"
        "$python" - "$dir.json" "$dir" "$nproc" <<'PY'
import gzip, json, sys
report, recording, nproc = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3])
assert report["world_size"] == nproc and len(report["ranks"]) == nproc
s = report["summary"]
assert s["collective_coverage_pct"] == 100.0, s
assert s["skipped_collectives"] == [], s["skipped_collectives"]
for r, rank in enumerate(report["ranks"]):
    assert rank["rank"] == r and rank["world_size"] == nproc
    assert rank["ops_replayed"] == rank["ops_total"], (rank["ops_replayed"], rank["ops_total"])
    et = json.load(gzip.open(f"{recording}/rank{r}/et.json.gz", "rt"))
    meta = json.load(open(f"{recording}/rank{r}/meta.json"))
    # What the rank did, in order: its c10d::allreduce_ ops (tensor list first),
    # and the all_to_all_single calls that 1.13 shows only as gloo:all_to_all.
    want = []
    for n in et["nodes"]:
        if n["name"] == "c10d::allreduce_":
            want.append(("all_reduce", sum(t[3] * t[4] for t in n["inputs"][0])))
        elif n["name"] == "gloo:all_to_all":
            t = n["inputs"][0]
            want.append(("all_to_all", t[3] * t[4]))
    got = [(c["collective"], c["input_bytes"]) for c in rank["collectives"]]
    assert got == want, (r, got, want)
    # Groups and splits come from meta.json's Python calls: DLRM's dense
    # all-reduce runs on its own group "1", its all_to_alls on "0".
    py = [c for c in meta["python_collectives"]]
    if py:
        replayed = [c for c in rank["collectives"] if c["waits_at_once"]]
        assert [c["pg_name"] for c in replayed] == [c["pg_name"] for c in py], (replayed, py)
    assert all(c["latency_us"] > 0 for c in rank["collectives"])
    assert rank["median_ms"] > 0 and rank["original_ms"] > 0
rows = {(c["pg_name"], c["collective"]): c for c in s["collectives"]}
for c in rows.values():
    assert len(c["calls_per_rank"]) == nproc and len(set(c["calls_per_rank"])) == 1, c
    assert c["busbw_GBps"] > 0 and c["bytes_imbalance_max_over_mean"] >= 1.0, c
PY
        grep -q "collective coverage 100.0%" "$dir.txt"
    done
done

# Ranks whose recordings differ in page faults must still run the same iterations (fitting the
# fresh pages runs iterations, and so collectives): rank 0's original faulted in its first
# top-level op, rank 1's never; then rank 1 has no op_faults.json at all. Either hung before.
dir="$work/ddp_mlp2"
"$python" - "$dir" <<'PY'
import gzip, json, sys
d = sys.argv[1]
et = json.load(gzip.open(f"{d}/rank0/et.json.gz", "rt"))
first = next(n["id"] for n in et["nodes"] if n.get("op_schema") and n["name"].startswith("aten::"))
json.dump({"faults": [[first, 40]]}, open(f"{d}/rank0/op_faults.json", "w"))
json.dump({"faults": []}, open(f"{d}/rank1/op_faults.json", "w"))
PY
timeout 300 "$mimic" replay "$dir" --warmup 1 --iters 2 --timeout-s 60 --json "$work/faults_differ.json" > /dev/null
"$python" -c "import json,sys; d=json.load(open(sys.argv[1])); assert [r['page_faults_mode'] for r in d['ranks']] == ['recorded'] * 2, d['ranks']" \
    "$work/faults_differ.json"
rm "$dir/rank1/op_faults.json"
timeout 300 "$mimic" replay "$dir" --warmup 1 --iters 2 --timeout-s 60 --json "$work/faults_missing.json" 2> "$work/faults_missing.err" > /dev/null
grep -q "another rank's recording has no op_faults.json" "$work/faults_missing.err"
"$python" -c "import json,sys; d=json.load(open(sys.argv[1])); assert [r['page_faults_mode'] for r in d['ranks']] == ['none'] * 2, d['ranks']" \
    "$work/faults_missing.json"

# Paced (bench/replay_paired.py): both ranks of the replay, and of the original workload, run
# their timed iterations in the blocks a driver asks for, over one FIFO pair per rank.
drive_paced() {  # prefix: two blocks on every rank, then stop
    timeout 300 "$python" - "$1" <<'PY'
import sys
prefix = sys.argv[1]
go = [open(f"{prefix}.go.rank{r}", "w") for r in range(2)]  # each rank opens go, then done
done = [open(f"{prefix}.done.rank{r}") for r in range(2)]
for block in ("run 1 2", "run 0 1"):
    for g in go:
        g.write(block + "\n"); g.flush()
    for r, d in enumerate(done):
        times = [float(x) for x in d.readline().split()]
        assert len(times) == int(block.split()[2]) and all(t > 0 for t in times), (r, block, times)
for g in go:
    g.write("stop\n"); g.close()
PY
}
for side in replay original; do
    for r in 0 1; do mkfifo "$work/$side.go.rank$r" "$work/$side.done.rank$r"; done
done
timeout 300 "$mimic" replay "$dir" --warmup 1 --pace "$work/replay" --json "$work/paced.json" > /dev/null &
replay_pid=$!
drive_paced "$work/replay"
wait $replay_pid
"$python" -c "import json,sys; d=json.load(open(sys.argv[1])); assert [len(r['iteration_ms']) for r in d['ranks']] == [3, 3], d['ranks']" \
    "$work/paced.json"
PYTHONPATH="$src_python" timeout 300 "$python" -m mimic_record --workload ddp_mlp --nproc 2 --warmup 1 \
    --out "$work/paced-original" --pace "$work/original" > "$work/paced-original.log" 2>&1 &
original_pid=$!
drive_paced "$work/original"
wait $original_pid
[ "$(grep -c "paced: 3 timed iterations" "$work/paced-original.log")" = 2 ]

# GPU traces (PyTorch 2.x with NCCL, and schema 1.0.2) replayed on CPU over Gloo, two ranks each
# replaying the one recorded rank. resnet_et's first iteration: 2 broadcasts (53120 floats, 53
# longs) then DDP's 5 bucket all-reduces; only the collectives are replayed (--include) to keep
# it short. chakra_sample: 10 all_gathers of one float into two.
traces="$2"
if [ -f "$traces/pytorch/resnet_et.json.gz" ]; then
    "$mimic" replay "$traces/pytorch/resnet_et.json.gz" --nproc 2 --include '^c10d::' --warmup 0 --iters 1 \
        --json "$work/resnet.json" > /dev/null
    "$python" - "$work/resnet.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
want = [("broadcast", 53120 * 4), ("broadcast", 53 * 8)] + [("all_reduce", n * 4) for n in (2049000, 7875584, 6563840, 6637568, 2431040)]
for rank in d["ranks"]:
    got = [(c["collective"], c["input_bytes"]) for c in rank["collectives"]]
    assert got == want, got
    assert all(c["pg_name"] == "0" and c["emulation"] == "" for c in rank["collectives"])
assert d["summary"]["collective_coverage_pct"] == 100.0
PY
fi
if [ -f "$traces/pytorch/chakra_sample_1.0.2.json.gz" ]; then
    "$mimic" replay "$traces/pytorch/chakra_sample_1.0.2.json.gz" --nproc 2 --warmup 0 --iters 1 --json "$work/cs.json" > /dev/null
    "$python" - "$work/cs.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for rank in d["ranks"]:
    assert [(c["collective"], c["input_bytes"], c["output_bytes"]) for c in rank["collectives"]] == [("all_gather", 4, 8)] * 10
    assert rank["ops_replayed"] == rank["ops_total"]
PY
fi
echo "ok"
