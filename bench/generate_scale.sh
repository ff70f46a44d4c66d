#!/usr/bin/env bash
# mimic generate at scale: 16,384 ranks of GPT-3 175B (96 layers, hidden
# 12288, 96 heads, seq 2048) as tp 8 x pp 16 x dp 128 with 32 micro-batches
# per iteration (every rank's file differs: its groups and pipeline peers),
# then the same model pure data-parallel-sized for DLRM (every rank alike,
# encoded once). Prints wall time and peak RSS (/usr/bin/time -v) of each.
#   bench/generate_scale.sh BUILD_DIR [OUT=/tmp/mimic-generate-scale] [RANKS=16384]
set -euo pipefail
BUILD=${1:-build}
OUT=${2:-/tmp/mimic-generate-scale}
RANKS=${3:-16384}
mimic=$BUILD/mimic
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (GNU time) for peak RSS"; exit 1; }
rm -rf "$OUT"
mkdir -p "$OUT"

measure() {  # name, generate args...
    local name=$1
    shift
    mkdir -p "$OUT/$name"
    /usr/bin/time -v "$mimic" generate "$@" -o "$OUT/$name/w" --json "$OUT/$name.json" > "$OUT/$name.txt" 2> "$OUT/$name.time"
    python3 - "$OUT" "$name" <<'PY'
import json, re, sys
out, name = sys.argv[1], sys.argv[2]
t = open(f"{out}/{name}.time").read()
wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", t)
secs = (int(wall.group(1) or 0) * 3600) + int(wall.group(2)) * 60 + float(wall.group(3))
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1))
user = float(re.search(r"User time \(seconds\): ([\d.]+)", t).group(1))
sys_ = float(re.search(r"System time \(seconds\): ([\d.]+)", t).group(1))
d = json.load(open(f"{out}/{name}.json"))
nodes = sum(k["nodes"] * k["rank_count"] for k in d["rank_kinds"])
print(f"{name}: {d['ranks']} ranks, {d['files']} files, {d['distinct_encodings']} distinct, "
      f"{d['total_bytes'] / 1e9:.2f} GB, {nodes / 1e6:.1f} M nodes: {secs:.1f} s wall "
      f"({user:.1f} s user, {sys_:.1f} s system), peak RSS {rss / 1024:.0f} MiB")
PY
    rm -rf "${OUT:?}/$name"
}

measure gpt175b gpt --ranks "$RANKS" --tp 8 --pp 16 --layers 96 --hidden 12288 --heads 96 --seq 2048 --micro-batches 32
measure dlrm dlrm --ranks "$RANKS" --tables "$RANKS" --micro-batch 1024
