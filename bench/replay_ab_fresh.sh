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
# times. A build copied elsewhere needs its mimic-torch and libmimic_fault_probe.so beside it.
set -euo pipefail
OLD=$1 NEW=$2 ROUNDS=${3:-3} OUT=${4:-/tmp/mimic-ab-fresh}
HERE=$(cd "$(dirname "$0")" && pwd)
for r in $(seq 1 "$ROUNDS"); do
  dir=$OUT/round$r
  recs=()
  for w in mlp transformer dlrm cnn; do
    "$OLD" record --workload "$w" --out "$dir/rec_$w" --force > /dev/null
    recs+=("$dir/rec_$w")
  done
  (IFS=,; python3 "$HERE/replay_ab.py" "$OLD" "$NEW" "${recs[*]}" 2 "$dir/ab.json") > "$dir/ab.log"
  echo "round $r/$ROUNDS: $(grep -c '^/' "$dir/ab.log") replays" >&2
done
python3 - "$OUT" "$ROUNDS" <<'PY'
import json, math, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
for build in ("old", "new"):
    profile, untraced = [], []
    for r in range(1, rounds + 1):
        with open(f"{out}/round{r}/ab.json") as f:
            for reports in json.load(f)[build].values():
                for rep in reports:
                    profile.append(rep["per_op_error_geomean_pct"])
                    if rep.get("per_op_error_geomean_untraced_pct") is not None:
                        untraced.append(rep["per_op_error_geomean_untraced_pct"])
    print(f"{build}: per-op vs profile mean {statistics.mean(profile):.1f}% median {statistics.median(profile):.1f}%; "
          f"vs untraced mean {statistics.mean(untraced):.1f}% median {statistics.median(untraced):.1f}% "
          f"({len(profile)} replays)")
PY
