#!/usr/bin/env bash
# mimic analyze on fresh recordings of built-in workloads (PyTorch 1.13, Gloo):
# mlp on one process, ddp_mlp on two ranks. Collective sizes are checked
# against the c10d::allreduce_ tensors read straight from each rank's ET.
# $1 = mimic binary, $2 = shared traces directory (unused). Exit 77 = skip.
set -euo pipefail
mimic="$1"
python=/usr/bin/python3
src_python="$(cd "$(dirname "$0")/../../python" && pwd)"
"$python" -c "import torch" 2>/dev/null || { echo "skip: Debian's python3-torch is not installed"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
record() { PYTHONPATH="$src_python" "$python" -m mimic_record "$@" > "$work/record.log" 2>&1 || { cat "$work/record.log"; exit 1; }; }

record --workload mlp --out "$work/mlp" --warmup 1 --iters 2
"$mimic" analyze "$work/mlp" --json "$work/mlp.json" > "$work/mlp.txt"
"$python" - "$work/mlp.json" "$work/mlp/et.json.gz" <<'PY'
import gzip, json, sys
d = json.load(open(sys.argv[1]))
et = json.load(gzip.open(sys.argv[2], "rt"))
assert d["schema_version"] == et["schema"] == "1.0.1"
assert d["nodes"] == len(et["nodes"])
assert d["operators_with_schema"] == sum(1 for n in et["nodes"] if n["op_schema"])
assert d["timed"] and d["link"]["linked_nodes"] > 0
assert len(d["iterations"]) == 1 and d["iterations"][0]["timed"]
assert d["collectives"] == []
assert d["replayable"]["kernels_checked"] in (True, False)
PY

record --workload ddp_mlp --nproc 2 --out "$work/ddp" --warmup 1 --iters 2
"$mimic" analyze "$work/ddp" --json "$work/ddp.json" > "$work/ddp.txt"
"$python" - "$work/ddp.json" "$work/ddp" <<'PY'
import gzip, json, sys
d = json.load(open(sys.argv[1]))
assert [i["rank"] for i in d["inputs"]] == [0, 1], d["inputs"]
for rank in (0, 1):
    et = json.load(gzip.open(f"{sys.argv[2]}/rank{rank}/et.json.gz", "rt"))
    # PyTorch 1.13: c10d::allreduce_(Tensor[] tensors, ...) with [id, storage, offset, numel, itemsize, device]
    sizes = [sum(t[3] * t[4] for t in n["inputs"][0]) for n in et["nodes"] if n["name"] == "c10d::allreduce_"]
    got = [c for c in d["collectives"] if c["rank"] == rank]
    assert len(got) == 1, got
    c = got[0]
    assert c["collective"] == "all_reduce" and c["pg_name"] == "0", c
    assert c["count"] == len(sizes) > 0 and c["total_bytes"] == sum(sizes) and c["max_bytes"] == max(sizes), (c, sizes)
PY
grep -q "all_reduce" "$work/ddp.txt"

# DLRM sharded over 2 ranks: all_to_all_single leaves only gloo:all_to_all labels in a 1.13
# ET, and the dense all_reduce runs on a group of its own; meta.json's Python calls say which.
record --workload dlrm_dist --nproc 2 --out "$work/dlrm" --warmup 1 --iters 2
"$mimic" analyze "$work/dlrm" --json "$work/dlrm.json" > /dev/null
"$python" - "$work/dlrm.json" "$work/dlrm" <<'PY'
import json, sys
from collections import defaultdict
d = json.load(open(sys.argv[1]))
for rank in (0, 1):
    meta = json.load(open(f"{sys.argv[2]}/rank{rank}/meta.json"))
    want = defaultdict(lambda: [0, 0])
    for c in meta["python_collectives"]:
        op = "all_to_all" if c["op"].startswith("all_to_all") else c["op"]
        want[(c["pg_name"], op)][0] += 1
        want[(c["pg_name"], op)][1] += sum(c["in_nelems"]) * 4  # float32
    got = {(c["pg_name"], c["collective"]): [c["count"], c["total_bytes"]] for c in d["collectives"] if c["rank"] == rank}
    assert got == dict(want), (rank, got, dict(want))
PY
echo "ok"
