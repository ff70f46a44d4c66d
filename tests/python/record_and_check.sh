#!/bin/bash
# Records a built-in workload quickly through the mimic binary and checks the result.
#   record_and_check.sh MIMIC WORKLOAD [NPROC]
# Exit 77 (skip) when the recorder's Python has no torch.
set -euo pipefail
mimic="$1"; workload="$2"; nproc="${3:-0}"
here="$(cd "$(dirname "$0")" && pwd)"
python="${MIMIC_PYTHON:-/usr/bin/python3}"
if ! "$python" -c "import torch" 2>/dev/null; then
    echo "skip: $python cannot import torch"; exit 77
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
args=(record --workload "$workload" --out "$tmp/out" --warmup 1 --iters 2)
[ "$nproc" -gt 0 ] && args+=(--nproc "$nproc")
start=$(date +%s%N)
"$mimic" "${args[@]}"
echo "recorded in $(( ($(date +%s%N) - start) / 1000000 )) ms"
check=("$python" "$here/check_recording.py" "$tmp/out" --workload "$workload")
[ "$nproc" -gt 0 ] && check+=(--nproc "$nproc")
# A build with libtorch has the page-fault probe next to the binary: its counts must be there.
[ -f "$(dirname "$(readlink -f "$mimic")")/libmimic_fault_probe.so" ] && check+=(--expect-op-faults)
"${check[@]}"
