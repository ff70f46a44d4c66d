#!/usr/bin/env bash
# mimic analyze on every shared trace: table and JSON, with the figures the
# JSON must hold (derived independently, see tests/core/analysis_report_test.cpp).
# $1 = mimic binary, $2 = shared traces directory. Exit 77 = skip.
set -euo pipefail
mimic="$1"
traces="$2"
[ -d "$traces/pytorch" ] || { echo "skip: no shared traces at $traces"; exit 77; }
command -v python3 >/dev/null || { echo "skip: python3 not found"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Every ET and the Chakra feeder sample: exit 0, a table, and JSON with the required keys.
for t in pytorch/linear_et.json.gz pytorch/resnet_et.json.gz pytorch/resnet_1gpu_et_1.0.3.json.gz \
         pytorch/resnet_1gpu_et_1.1.1.json.gz pytorch/chakra_sample_1.0.2.json.gz pytorch/pt2/pt2_et.json \
         chakra/feeder_sample.0.et; do
    "$mimic" analyze "$traces/$t" > "$work/table.txt"
    grep -q "^Categories" "$work/table.txt" || { echo "no category table for $t"; cat "$work/table.txt"; exit 1; }
    "$mimic" analyze "$traces/$t" --json - > "$work/out.json"
    python3 - "$work/out.json" "$t" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for key in ("schema_version", "nodes", "operators", "categories", "iterations", "collectives",
            "top_operators", "replayable", "link"):
    assert key in d, (sys.argv[2], key)
cats = d["categories"]
assert sum(c["count"] for c in cats.values()) == d["nodes"], sys.argv[2]
assert abs(sum(c["self_us"] for c in cats.values()) - d["total_self_us"]) < 1e-6 * max(1, d["total_self_us"])
r = d["replayable"]
assert 0 <= r["ops"] <= r["total"] and abs(r["share"] - (r["ops"] / r["total"] if r["total"] else 0)) < 1e-12
PY
done

# Figures on resnet (Python over the gzip JSON: 14,392 nodes, 3 ProfilerSteps,
# 15 all-reduces of 306,684,384 B on group "0").
"$mimic" analyze "$traces/pytorch/resnet_et.json.gz" --json "$work/resnet.json" --top 3 > /dev/null
python3 - "$work/resnet.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema_version"] == "1.1.0-chakra.0.0.4"
assert d["nodes"] == 14392 and d["operators"] == 10866 and d["top_level_operators"] == 3711
assert d["categories"]["aten"]["count"] == 10797 and d["categories"]["communication"]["count"] == 69
assert [i["name"] for i in d["iterations"]] == ["ProfilerStep#6", "ProfilerStep#7", "ProfilerStep#8"]
ar = [c for c in d["collectives"] if c["collective"] == "all_reduce"]
assert len(ar) == 1 and ar[0]["count"] == 15 and ar[0]["total_bytes"] == 306684384 and ar[0]["pg_name"] == "0"
assert len(d["top_operators"]) == 3 and d["timed"] is False
PY

# With its real Kineto trace: timed, linked, time in the categories.
"$mimic" analyze "$traces/pytorch/linear_et.json.gz" --profile "$traces/pytorch/linear_kineto.json.gz" \
    --json "$work/linear.json" > "$work/linear.txt"
grep -q "^Profile link" "$work/linear.txt"
python3 - "$work/linear.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["timed"] is True and d["time_source"] == "profile"
assert d["link"] is not None and d["link"]["linked_nodes"] > 0
assert d["categories"]["aten"]["self_us"] > 0
assert d["top_operators"][0]["self_us"] >= d["top_operators"][-1]["self_us"]
PY
echo "ok"
