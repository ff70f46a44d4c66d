#!/bin/bash
# Replay benchmark: coverage and end-to-end error on fresh recordings of the
# built-in workloads, coverage on the shared real traces replayed on this CPU.
#   bench/replay_workloads.sh MIMIC TRACES_DIR OUT_DIR [ITERS]
# Writes OUT_DIR/<name>.<mode>.json per replay and OUT_DIR/summary.json, and
# prints a table. End-to-end error is against meta.json's untraced median.
set -eu
MIMIC=$1
TRACES=$2
OUT=$3
ITERS=${4:-10}
mkdir -p "$OUT"

for w in mlp transformer dlrm cnn; do
    "$MIMIC" record --workload "$w" --out "$OUT/rec_$w" --force > "$OUT/rec_$w.log" 2>&1
    for mode in recorded none; do
        "$MIMIC" replay "$OUT/rec_$w" --host-gaps "$mode" --warmup 2 --iters "$ITERS" --json "$OUT/$w.$mode.json" \
            > "$OUT/$w.$mode.txt"
    done
done

# Shared traces: every iteration of each (coverage of the whole trace), one timed pass.
replay_shared() {  # name, file, extra args...
    local name=$1 file=$2
    shift 2
    [ -f "$file" ] || { echo "missing $file, skipped"; return; }
    "$MIMIC" replay "$file" --iteration all --lazy --warmup 0 --iters 1 --json "$OUT/$name.all.json" "$@" > "$OUT/$name.all.txt"
}
replay_shared linear "$TRACES/pytorch/linear_et.json.gz" --profile "$TRACES/pytorch/linear_kineto.json.gz"
replay_shared resnet "$TRACES/pytorch/resnet_et.json.gz" --profile "$TRACES/pytorch/resnet_kineto.json.gz"
replay_shared resnet_1.0.3 "$TRACES/pytorch/resnet_1gpu_et_1.0.3.json.gz"
replay_shared resnet_1.1.1 "$TRACES/pytorch/resnet_1gpu_et_1.1.1.json.gz"
replay_shared chakra_sample "$TRACES/pytorch/chakra_sample_1.0.2.json.gz"

python3 - "$OUT" "$(cd "$(dirname "$0")" && pwd)" <<'PY'
import json, os, sys
out = sys.argv[1]
sys.path.insert(0, sys.argv[2])
from benchlib.stats import geomean_abs  # noqa: E402 (bench/ is on the path only now)
rows, errs = [], {"recorded": [], "none": []}
for f in sorted(os.listdir(out)):
    parts = f[:-5].rsplit(".", 1) if f.endswith(".json") else []
    if len(parts) != 2 or parts[1] not in ("recorded", "none", "all"):  # <name>.<mode>.json only
        continue
    d = json.load(open(os.path.join(out, f)))
    name, mode = parts
    row = {"name": name, "mode": mode, "ops_total": d["ops_total"], "ops_replayed": d["ops_replayed"],
           "coverage_pct": round(d["coverage_pct"], 2), "median_ms": round(d["median_ms"], 3),
           "original_ms": d["original_ms"], "error_pct": d["error_pct"],
           "per_op_error_geomean_pct": d.get("per_op_error_geomean_pct"),
           "per_op_error_geomean_raw_pct": d.get("per_op_error_geomean_raw_pct"),
           "per_op_error_weighted_pct": d.get("per_op_error_weighted_pct"),
           "skipped": [(s["name"], s["reason"], s["count"]) for s in d["ops_skipped"]]}
    rows.append(row)
    if mode in errs and d["error_pct"] is not None and d["original_source"] == "meta.json untraced median":
        errs[mode].append(abs(d["error_pct"]))
geo = {m: (geomean_abs(v, floor=1e-3) if v else None) for m, v in errs.items()}
json.dump({"rows": rows, "geomean_abs_error_pct": geo}, open(os.path.join(out, "summary.json"), "w"), indent=1)
print(f"{'trace':<16}{'gaps':<10}{'replayed':>14}{'cover%':>8}{'replay ms':>11}{'orig ms':>10}{'err%':>8}{'op err%':>9}{'op werr%':>9}")
for r in rows:
    fmt = lambda v, p=1: "-" if v is None else f"{v:.{p}f}"
    print(f"{r['name']:<16}{r['mode']:<10}{str(r['ops_replayed'])+'/'+str(r['ops_total']):>14}{r['coverage_pct']:>8}"
          f"{r['median_ms']:>11.2f}{fmt(r['original_ms'], 2):>10}{fmt(r['error_pct']):>8}{fmt(r['per_op_error_geomean_pct']):>9}{fmt(r['per_op_error_weighted_pct']):>9}")
    for s in r["skipped"][:5]:
        print(f"    skipped {s[2]} x {s[0]}: {s[1]}")
print("geometric mean |error| over the built-in workloads:", {k: (None if v is None else round(v, 2)) for k, v in geo.items()})
PY
