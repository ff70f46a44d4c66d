#!/usr/bin/env bash
# mimic fleet end to end on the shared traces: a fleet of copies of three
# kinds of work, a recording directory (ET + profile) and bad files clusters
# into the three kinds with representatives and weights; bad files are listed
# and skipped; three shards merged give the same fleet.json as one run; a
# fleet with nothing readable, a bad --shard and an incomplete merge exit 1
# with one line.
# $1 = mimic binary, $2 = shared traces directory. Exit 77 = skip.
set -uo pipefail
mimic="$1"
traces="$2"
[ -f "$traces/pytorch/linear_et.json.gz" ] || { echo "skip: no shared traces at $traces"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export MIMIC_NO_PROGRESS=1
fail() { echo "FAIL: $*"; exit 1; }

"$mimic" fleet --help | grep -q "Example: mimic fleet" || fail "--help has no example"

# The fleet: 4 resnets (3 files, 1 recording directory with its profile),
# 3 linear models, the 16 collective microbenchmarks; 2 files that are no trace.
fleet="$work/fleet"
mkdir -p "$fleet/resnet" "$fleet/linear" "$fleet/rec"
for i in 0 1 2; do cp "$traces/pytorch/resnet_1gpu_et_1.1.1.json.gz" "$fleet/resnet/job$i.json.gz"; done
cp "$traces/pytorch/resnet_et.json.gz" "$fleet/rec/et.json.gz"
cp "$traces/pytorch/resnet_kineto.json.gz" "$fleet/rec/profile.json"
for i in 0 1 2; do cp "$traces/pytorch/linear_et.json.gz" "$fleet/linear/job$i.json.gz"; done
cp -r "$traces/chakra/microbench" "$fleet/microbench"
printf 'not a trace' > "$fleet/garbage.et"
head -c 3000 "$traces/pytorch/pt2/pt2_et.json" > "$fleet/truncated.json"

"$mimic" fleet "$fleet" -o "$work/out" --json "$work/out.json" > "$work/table.txt" 2> "$work/err.txt" || fail "fleet: $(cat "$work/err.txt")"
grep -q "breakdown error" "$work/table.txt" || fail "no breakdown error in the table: $(cat "$work/table.txt")"
grep -q "garbage.et" "$work/table.txt" || fail "garbage.et not listed: $(cat "$work/table.txt")"
grep -q "truncated.json" "$work/table.txt" || fail "truncated.json not listed"
cmp -s "$work/out.json" "$work/out/fleet.json" || fail "--json differs from OUT/fleet.json"
python3 - "$work/out" <<'PY' || fail "fleet.json: $(head -c 3000 "$work/out/fleet.json")"
import json, os, sys
out = sys.argv[1]
f = json.load(open(os.path.join(out, "fleet.json")))
assert f["members"] == 25 and f["readable"] == 23, (f["members"], f["readable"])
assert len(f["unreadable"]) == 2 and all(u["reason"] for u in f["unreadable"])
assert f["clustering"]["k"] == 3, f["clustering"]
clusters = f["clusters"]
assert abs(sum(c["weight"] for c in clusters) - 1) < 1e-9
kinds = [{m.split("/fleet/")[1].split("/")[0] for m in c["members"]} for c in clusters]
assert kinds == [{"microbench"}, {"resnet", "rec"}, {"linear"}], kinds
assert [len(c["members"]) for c in clusters] == [16, 4, 3]
for c in clusters:
    assert os.path.exists(os.path.join(out, c["copy"])), c["copy"]
    assert c["representative"] in c["members"]
# the recording directory was read with its profile
rec = [t for t in f["traces"] if t["path"].endswith("/rec")][0]
assert rec["signature"]["time_source"].startswith("profile"), rec["signature"]["time_source"]
e = f["breakdown_error_pct"]
assert e["max"] >= 0 and e["l1"] >= e["max"] and e["max"] < 10, e
assert len(f["traces"]) == 23
PY

# Three shards (a Slurm array of 3) merged: the same fleet.json.
for i in 0 1 2; do
    "$mimic" fleet "$fleet" --shard "$i/3" -o "$work/part$i.json" 2> "$work/shard.err" || fail "shard $i: $(cat "$work/shard.err")"
done
"$mimic" fleet merge "$work/part2.json" "$work/part0.json" "$work/part1.json" -o "$work/merged" > /dev/null 2>&1 || fail "merge"
cmp -s "$work/out/fleet.json" "$work/merged/fleet.json" || fail "merged shards differ from one run: $(diff "$work/out/fleet.json" "$work/merged/fleet.json" | head)"
ls "$work/merged/representatives" | grep -q "^c0-" || fail "merge wrote no representatives"

# --json -: the JSON alone on stdout.
"$mimic" fleet "$fleet/linear" -o "$work/lin" --json - 2> /dev/null | python3 -c "import json,sys; assert json.load(sys.stdin)['clustering']['k'] == 1" \
    || fail "--json -"

# An output inside the fleet is not read back as members on the next run.
for run in 1 2; do
    "$mimic" fleet "$fleet/linear" -o "$fleet/linear/out/" --json "$work/lin$run.json" > /dev/null 2>&1 || fail "fleet -o inside the fleet, run $run"
done
python3 -c "import json,sys; f=json.load(open(sys.argv[1])); assert f['members'] == 3, f['members']" "$work/lin2.json" || fail "the output was read as members"
rm -rf "$fleet/linear/out"

# Bad input: one line, exit 1.
mkdir "$work/bad" && printf 'x' > "$work/bad/a.et"
"$mimic" fleet "$work/bad" -o "$work/o" > /dev/null 2> "$work/e1" && fail "a fleet with nothing readable succeeded"
grep -q "none of the 1 files is a readable trace" "$work/e1" || fail "nothing readable: $(cat "$work/e1")"
grep -q "a.et" "$work/e1" || fail "the unreadable file is not named: $(cat "$work/e1")"
"$mimic" fleet "$fleet" --shard 3/3 -o "$work/p.json" > /dev/null 2> "$work/e2" && fail "--shard 3/3 accepted"
[ "$(wc -l < "$work/e2")" -eq 1 ] || fail "--shard 3/3: $(cat "$work/e2")"
"$mimic" fleet merge "$work/part0.json" "$work/part1.json" -o "$work/m2" > /dev/null 2> "$work/e3" && fail "an incomplete merge succeeded"
grep -q "missing shards: 2/3" "$work/e3" || fail "incomplete merge: $(cat "$work/e3")"
echo "ok"
