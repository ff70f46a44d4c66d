#!/usr/bin/env bash
# mimic analyze over several ranks: a directory of rank trace files, a
# directory of `mimic record` rank directories (meta.json gives the rank), and
# several traces on one command line, merged into one report.
# $1 = mimic binary, $2 = shared traces directory. Exit 77 = skip.
set -euo pipefail
mimic="$1"
traces="$2"
[ -d "$traces/chakra/microbench" ] || { echo "skip: no shared traces at $traces"; exit 77; }
command -v python3 >/dev/null || { echo "skip: python3 not found"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# PREFIX.<rank>.et files: one all_reduce of 1 MiB per rank, ranks from the names.
"$mimic" analyze "$traces/chakra/microbench/all_reduce" --json - > "$work/micro.json"
python3 - "$work/micro.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["inputs"]) == 4, d["inputs"]
assert [i["rank"] for i in d["inputs"]] == [0, 1, 2, 3]
c = d["collectives"]
assert [x["rank"] for x in c] == [0, 1, 2, 3], c
assert all(x["collective"] == "all_reduce" and x["count"] == 1 and x["total_bytes"] == 1048576 for x in c)
PY

# Two whole collectives on one command line.
"$mimic" analyze "$traces/chakra/microbench/all_reduce" "$traces/chakra/microbench/all_gather" --json - > "$work/two.json"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert len(d['collectives']) == 8 and d['nodes'] == 8" "$work/two.json"

# A directory of recordings, rank0/ and rank1/, as `mimic record --nproc 2`
# lays them out; meta.json carries the rank and the process groups.
for rank in 0 1; do
    mkdir -p "$work/job/rank$rank"
    cp "$traces/pytorch/resnet_et.json.gz" "$work/job/rank$rank/et.json.gz"
    cat > "$work/job/rank$rank/meta.json" <<JSON
{"meta_schema_version": 1, "rank": $rank, "world_size": 2, "backend": "gloo",
 "process_groups": [{"pg_name": "0", "ranks": [0, 1], "group_size": 2, "backend": "gloo", "member": true,
                     "group_rank": $rank, "created_by": "init_process_group"}]}
JSON
done
echo '{"meta_schema_version": 1, "world_size": 2}' > "$work/job/job.json"
"$mimic" analyze "$work/job" --json "$work/job.json.out" > "$work/job.txt"
grep -q "2 traces" "$work/job.txt"
python3 - "$work/job.json.out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert [i["rank"] for i in d["inputs"]] == [0, 1] and all(i["world_size"] == 2 for i in d["inputs"])
assert d["nodes"] == 2 * 14392
ar = [c for c in d["collectives"] if c["collective"] == "all_reduce"]
assert [c["rank"] for c in ar] == [0, 1] and all(c["total_bytes"] == 306684384 for c in ar)
assert [i["rank"] for i in d["iterations"]] == [0, 0, 0, 1, 1, 1]
PY

# A single recording directory with a profile beside it: linked and timed.
mkdir -p "$work/rec"
cp "$traces/pytorch/linear_et.json.gz" "$work/rec/et.json.gz"
cp "$traces/pytorch/linear_kineto.json.gz" "$work/rec/profile.json"
echo '{"rank": 3, "world_size": 4, "process_groups": []}' > "$work/rec/meta.json"
"$mimic" analyze "$work/rec" --json - > "$work/rec.json"
python3 - "$work/rec.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["inputs"][0]["rank"] == 3 and d["inputs"][0]["world_size"] == 4
assert d["timed"] is True and d["link"]["linked_nodes"] > 0
PY
echo "ok"
