#!/bin/bash
# Two replayer builds on fresh recordings, alternating: replay_ab.py on recordings made in the
# same minutes, so that the machine's phase (here memory-bound work ran 10-30% faster or slower for
# minutes at a time) is the same for the recording and both builds' replays.
#
#   bench/replay_ab_fresh.sh OLD_MIMIC NEW_MIMIC [ROUNDS=3] [OUT_DIR=/tmp/mimic-ab-fresh]
#
# Each round records every built-in workload with OLD_MIMIC (`mimic record`), then runs
# bench/replay_ab.py OLD NEW on those recordings, two replays each; the summary is each build's
# mean and median per-op error over all rounds' replays, against the profile and the untraced op
# times, then each build's systematic error per (workload, op name) and the op names it moved most.
# A build copied elsewhere needs its mimic-torch and libmimic_fault_probe.so beside it.
# WORKLOADS (default "mlp transformer dlrm cnn") and HELDOUT (bench/heldout_models.py's models,
# e.g. "resnet18 mobilenet"; default none) choose what is recorded.
set -euo pipefail
OLD=$1 NEW=$2 ROUNDS=${3:-3} OUT=${4:-/tmp/mimic-ab-fresh}
HERE=$(cd "$(dirname "$0")" && pwd)
for r in $(seq 1 "$ROUNDS"); do
  dir=$OUT/round$r
  recs=()
  for w in ${WORKLOADS-mlp transformer dlrm cnn}; do
    "$OLD" record --workload "$w" --out "$dir/rec_$w" --force > /dev/null
    recs+=("$dir/rec_$w")
  done
  for m in ${HELDOUT-}; do
    "$OLD" record --script "$HERE/heldout_models.py:$m" --out "$dir/rec_$m" --force > /dev/null
    recs+=("$dir/rec_$m")
  done
  (IFS=,; python3 "$HERE/replay_ab.py" "$OLD" "$NEW" "${recs[*]}" 2 "$dir/ab.json") > "$dir/ab.log"
  echo "round $r/$ROUNDS: $(grep -c '^/' "$dir/ab.log") replays" >&2
done
python3 - "$OUT" "$ROUNDS" "$HERE" <<'PY'
import json, math, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
sys.path.insert(0, sys.argv[3])
from benchlib.per_op import name_errors, per_op_summary  # noqa: E402 (bench/ is on the path only now)
runs = []
for r in range(1, rounds + 1):
    with open(f"{out}/round{r}/ab.json") as f:
        runs.append(json.load(f))
for build in ("old", "new"):
    reports = [rep for run in runs for reps in run[build].values() for rep in reps]
    print(f"{build}: {per_op_summary(reports)} ({len(reports)} replays)")

# Systematic per op name: for each (workload, op name) the median over a build's replays of
# log(replay / reference), the untraced times against the pass given their faults. The aggregate
# of a 6-round A/B moves about a point between two runs of one build; a change aimed at named ops
# shows here, far above that.
def systematic(build, reference, replay_key):
    logs = {}
    for run in runs:
        for k, v in name_errors(run[build], reference, replay_key).items():
            logs.setdefault(k, []).extend(v)
    return {k: statistics.median(v) for k, v in logs.items()}

pct = lambda x: (math.exp(x) - 1) * 100
for reference, replay_key in (("profile_us", "replay_us"), ("untraced_us", "replay_untraced_pass_us"),
                              ("profile_raw_us", "replay_profiled_us")):
    old, new = systematic("old", reference, replay_key), systematic("new", reference, replay_key)
    both = [k for k in old if k in new]
    if not both:
        continue
    mean_abs = lambda d: pct(statistics.mean(abs(d[k]) for k in both))
    print(f"systematic per op name against {reference}: old {mean_abs(old):.1f}% new {mean_abs(new):.1f}%")
    moved = sorted(both, key=lambda k: abs(new[k]) - abs(old[k]))
    for k in moved[:6] + moved[-6:]:
        print(f"  {k[0]:12} {k[1]:40} old {pct(old[k]):+5.0f}% new {pct(new[k]):+5.0f}%")
PY
