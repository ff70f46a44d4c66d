#!/usr/bin/env bash
# make demo: record one training step of a built-in model, replay it and show
# how closely the replay matches, then simulate a 2-rank DDP recording, predict the step
# from its trace alone, and write one HTML report of it all. Everything goes to BUILD/demo.
set -euo pipefail
build=${1:-build}
out=$build/demo
mimic=$build/mimic
ex=$(cd "$(dirname "$0")/../data/examples" && pwd)
export MIMIC_NO_PROGRESS=1
step() { printf '\n== %s\n' "$*"; }

step "1. record one training step of a 4-layer MLP (ET, profile, untraced timings)"
"$mimic" record --workload mlp --out "$out/recording" --force | tail -3

step "2. replay it operator by operator through libtorch and compare with the original"
"$mimic" replay "$out/recording" --host-gaps measured --json "$out/replay.json" --timeline "$out/replay_timeline.json" > "$out/replay.txt"
grep -E "^replay of|ops: |replay median|original |per-op time vs profile \(|per-op time under" "$out/replay.txt" | sed 's/^  //'
echo "full report: $out/replay.txt, as JSON: $out/replay.json"

step "3. the MLP trained with DDP on 2 ranks over Gloo, converted to Chakra and simulated on a modelled switch"
"$mimic" record --workload ddp_mlp --nproc 2 --out "$out/ddp" --force > /dev/null
"$mimic" convert "$out/ddp" --to chakra --out "$out/chakra/ddp" > /dev/null
"$mimic" simulate "$out/chakra/ddp" --network "$ex/switch2.yml" --system "$ex/system_ring.json" \
    --json "$out/simulate.json" --timeline "$out/simulate_timeline.json" 2> /dev/null | tail -4

step "4. predict the step from its trace alone (costs measured on this machine)"
"$mimic" calibrate "$out/recording" --out "$out/costs.db" --quick --no-sweeps 2> /dev/null | tail -1
"$mimic" predict "$out/recording" --costs "$out/costs.db" --json "$out/predict.json" --timeline "$out/predict_timeline.json" | head -3
echo "what if the batch were half, the same, twice as large:"
"$mimic" predict "$out/recording" --costs "$out/costs.db" --what-if batch-scale=0.5,1,2 2> /dev/null | sed -n 2,6p

step "5. HTML reports (self-contained, open offline in any browser)"
"$mimic" report "$out/recording" --replay "$out/replay.json" --predict "$out/predict.json" -o "$out/report.html"
"$mimic" report "$out/ddp" --simulate "$out/simulate.json" -o "$out/ddp_report.html"

cat <<EOT

Next:
  $mimic analyze $out/recording                 # what the step is made of
  $mimic replay $out/recording --op-times ops.json   # every op's time, replay against original
  $mimic timeline $out/recording --out original_timeline.json  # the original; open beside $out/replay_timeline.json in ui.perfetto.dev
  $mimic predict $out/recording --costs $out/costs.db --what-if batch-scale=0.5,1,2,4   # ranked what-ifs
  $mimic record --script my_step.py:step --out rec/  # record your own training step
  $mimic simulate PREFIX --network net.yml --system sys.json   # an ASTRA-sim workload, same numbers, far faster
EOT
