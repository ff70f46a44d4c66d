#!/usr/bin/env bash
# mimic report, and the --timeline of replay, predict and timeline, end to end:
# on the real GPU and Chakra traces, on a recording made now with its replay,
# prediction and a simulation; bad input (no timings, a replay of another
# trace, a file that is no result) still writes the page and says why. The
# page is then opened in headless Chromium, which must render every section
# and chart without fetching anything.
# $1 = mimic binary, $2 = shared traces directory. Exit 77 = skip.
set -uo pipefail
mimic="$1"
traces="$2"
here=$(cd "$(dirname "$0")" && pwd)
[ -d "$traces/pytorch" ] || { echo "skip: no shared traces at $traces"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
die() { echo "FAIL: $*"; exit 1; }
pt="$traces/pytorch"
export MIMIC_NO_PROGRESS=1

sections="summary breakdown top-ops replay memory collectives unsupported prediction simulation"
has_sections() {  # every section id is on the page
    for s in $sections; do grep -q "<section id=\"$s\"" "$1" || die "$1 lacks section $s"; done
}
# Rendered by a real browser: every section with content, the named charts painted, nothing
# fetched but the page itself. Without chromium this is skipped, and the test says so at its end.
have_chromium=false
command -v chromium > /dev/null && have_chromium=true
render_check() {  # PAGE CHART...
    $have_chromium || return 0
    local page=$1; shift
    timeout 180 python3 "$here/../../scripts/render_page.py" "$page" --screenshot "$page.png" > "$page.render.json" \
        || die "chromium could not render $page"
    python3 - "$page.render.json" "$page.png" "$page" "$@" <<'PY' || die "rendered page $page"
import json, os, sys
r = json.load(open(sys.argv[1]))
sections = {s["id"]: s for s in r["sections"]}
want = "summary breakdown top-ops replay memory collectives unsupported prediction simulation".split()
assert list(sections) == want, list(sections)
for s in sections.values():
    assert s["height"] > 40 and s["width"] > 300, s
charts = {c["name"]: c for c in r["charts"]}
for name in sys.argv[4:]:
    c = charts.get(name)
    assert c, (name, sorted(charts))
    assert c["width"] > 200 and c["height"] > 40 and c["marks"] > 0 and c["painted"] > 0, c
# Only the page itself was loaded: it needs no network and no other file.
assert r["requests"] == ["file://" + os.path.abspath(sys.argv[3])], r["requests"]
assert not r["external"], r["external"]
png = open(sys.argv[2], "rb").read()
assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20000, len(png)
PY
}

# A real GPU trace with its profile: times, memory, no replay given.
"$mimic" report "$pt/resnet_et.json.gz" --profile "$pt/resnet_kineto.json.gz" -o "$work/resnet.html" > "$work/out.txt" \
    || die "report resnet"
grep -q "^report: $work/resnet.html" "$work/out.txt" || die "report output: $(cat "$work/out.txt")"
has_sections "$work/resnet.html"
for c in breakdown-kind breakdown-family top-ops memory; do
    grep -q "data-chart=\"$c\"" "$work/resnet.html" || die "resnet report lacks chart $c"
done
grep -q "No replay result given" "$work/resnet.html" || die "resnet report does not say why replay is empty"
grep -q "cuda:0" "$work/resnet.html" || die "resnet memory curve names no cuda device"

# A directory holding an ET and its profile under any names: paired, linked, timed.
mkdir -p "$work/foreign" && cp "$pt/resnet_et.json.gz" "$work/foreign/job_trace.json.gz" \
    && cp "$pt/resnet_kineto.json.gz" "$work/foreign/job_profile.json.gz"
"$mimic" report "$work/foreign" -o "$work/foreign.html" > /dev/null || die "report of a foreign directory"
grep -q "<td>times from</td><td>profile</td>" "$work/foreign.html" || die "foreign directory: profile not linked"

# Four ranks of Chakra all-reduce: the collectives heatmap, one row per rank.
"$mimic" report "$traces/chakra/microbench/all_reduce" -o "$work/ar.html" > /dev/null || die "report all_reduce ranks"
grep -q 'data-chart="collectives-heatmap"' "$work/ar.html" || die "no collectives heatmap"
for r in 0 1 2 3; do grep -q "rank $r" "$work/ar.html" || die "heatmap lacks rank $r"; done

# A trace with no timings: the page says so and still has every section.
"$mimic" report "$pt/resnet_1gpu_et_1.1.1.json.gz" -o "$work/untimed.html" > /dev/null || die "report untimed"
has_sections "$work/untimed.html"
grep -q "carries no times" "$work/untimed.html" || die "untimed report does not say it has no times"

# Chakra ranks without node times have no timeline: the error names the file.
"$mimic" timeline "$traces/chakra/microbench/all_reduce" --out "$work/ar_tl.json" > /dev/null 2> "$work/ar_tl.err" \
    && die "an untimed Chakra timeline was written"
grep -q "all_reduce.0.et: the trace carries no node timing" "$work/ar_tl.err" || die "untimed timeline error: $(cat "$work/ar_tl.err")"

render_check "$work/resnet.html" breakdown-kind breakdown-family top-ops memory
render_check "$work/ar.html" collectives-heatmap

# A recording made now: replay, calibrate, predict, each with its timeline (needs libtorch).
if [ ! -x "$(dirname "$mimic")/mimic-torch" ]; then
    echo "ok: report pages written$($have_chromium && echo " and rendered"); the recorded part needs a build with libtorch"
    $have_chromium || { echo "skip: chromium is not installed (scripts/install-deps.sh installs it)"; exit 77; }
    exit 0
fi
"$mimic" record --workload mlp --out "$work/mlp" --warmup 1 --iters 3 > "$work/record.log" 2>&1 \
    || die "record: $(tail -3 "$work/record.log")"
"$mimic" replay "$work/mlp" --host-gaps measured --iters 2 --json "$work/replay.json" --timeline "$work/replay_tl.json" \
    > /dev/null 2> "$work/replay.err" || die "replay: $(tail -3 "$work/replay.err")"
"$mimic" calibrate "$work/mlp" --out "$work/costs.db" --quick > /dev/null 2> "$work/cal.err" || die "calibrate: $(tail -3 "$work/cal.err")"
"$mimic" predict "$work/mlp" --costs "$work/costs.db" --json "$work/predict.json" --timeline "$work/predict_tl.json" \
    > /dev/null || die "predict"
astra="$traces/../astra"
"$mimic" simulate "$astra/workloads/microbench/all_reduce_4/all_reduce" --network "$astra/configs/network/Ring_4npus.yml" \
    --system "$astra/configs/system/Ring_4chunks.json" --json "$work/sim.json" > /dev/null 2>&1 || die "simulate"
# Two DDP ranks recorded now: one timeline with a process per rank, and a report with both.
"$mimic" record --workload ddp_mlp --nproc 2 --out "$work/ddp" > "$work/ddp.log" 2>&1 || die "record ddp: $(tail -3 "$work/ddp.log")"
"$mimic" timeline "$work/ddp" --out "$work/ddp_tl.json" > /dev/null 2>&1 || die "timeline of ranks"
python3 - "$work/ddp_tl.json" <<'PY' || die "ranks timeline"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
names = {e["args"]["name"] for e in ev if e.get("name") == "process_name"}
assert any(n.startswith("rank 0 host") for n in names) and any(n.startswith("rank 1 host") for n in names), names
pids = {e["pid"] for e in ev if e["ph"] == "X"}
assert len(pids) == 2, pids
PY
# analyze --timeline writes the same picture as timeline.
"$mimic" analyze "$work/ddp" --timeline "$work/ddp_tl2.json" > /dev/null 2>&1 || die "analyze --timeline"
python3 -c "import json,sys; n=[len(json.load(open(f))['traceEvents']) for f in sys.argv[1:]]; assert n[0] == n[1] > 0, n" \
    "$work/ddp_tl.json" "$work/ddp_tl2.json" || die "analyze --timeline differs from timeline"
"$mimic" report "$work/ddp" -o "$work/ddp.html" > /dev/null || die "report of ranks"
grep -q 'data-chart="collectives-heatmap"' "$work/ddp.html" || die "ranks report has no collectives heatmap"
grep -q "rank 1" "$work/ddp.html" || die "ranks report lacks rank 1"
# Half of the ranks: the page says which are missing and still shows the one given.
mkdir -p "$work/partial" && cp -r "$work/ddp/rank1" "$work/partial/"
"$mimic" report "$work/partial" -o "$work/partial.html" > /dev/null || die "report of a partial rank directory"
grep -q "Not every rank is here: 1 of 2 ranks, missing 0" "$work/partial.html" || die "partial ranks not reported"
has_sections "$work/partial.html"

python3 - "$work/replay_tl.json" "$work/predict_tl.json" "$work/replay.json" <<'PY' || die "replay/predict timelines"
import json, sys
replay = json.load(open(sys.argv[3]))
for path in sys.argv[1:3]:
    ev = [e for e in json.load(open(path))["traceEvents"] if e["ph"] == "X"]
    ops = [e for e in ev if e["name"].startswith("aten::")]
    assert len(ops) == replay["ops_replayed"], (path, len(ops), replay["ops_replayed"])
    # end to end on one thread: no overlap, in order
    ends = 0.0
    for e in sorted(ev, key=lambda e: e["ts"]):
        assert e["ts"] + 1e-6 >= ends, (path, e)
        ends = e["ts"] + e["dur"]
    assert all("node" in e["args"] for e in ops), path
PY

"$mimic" report "$work/mlp" --replay "$work/replay.json" --predict "$work/predict.json" --simulate "$work/sim.json" \
    -o "$work/full.html" > /dev/null 2> "$work/full.err" || die "full report: $(cat "$work/full.err")"
[ -s "$work/full.err" ] && die "full report warned: $(cat "$work/full.err")"
has_sections "$work/full.html"
grep -q 'class="missing">No replay' "$work/full.html" && die "full report lost its replay"

# A replay of another trace, and a file that is no result: warned, named, the rest written.
"$mimic" report "$pt/resnet_et.json.gz" --profile "$pt/resnet_kineto.json.gz" --replay "$work/replay.json" \
    --predict "$work/mlp/meta.json" -o "$work/mixed.html" > /dev/null 2> "$work/mixed.err" || die "mixed report failed"
grep -q "is the replay of .*not of this input" "$work/mixed.err" || die "foreign replay not reported: $(cat "$work/mixed.err")"
grep -q "not a \`mimic predict --json\` report" "$work/mixed.err" || die "bad prediction not reported: $(cat "$work/mixed.err")"
grep -q "Replay not shown" "$work/mixed.html" || die "page does not say why the replay is not shown"
has_sections "$work/mixed.html"
"$mimic" report "$work/nonexistent" -o "$work/x.html" > /dev/null 2> "$work/none.err" && die "missing input accepted"
grep -q "nonexistent" "$work/none.err" || die "missing input error: $(cat "$work/none.err")"

render_check "$work/full.html" breakdown-kind breakdown-family top-ops replay-iterations replay-error-distribution \
    memory prediction-breakdown prediction-families simulation-ranks
$have_chromium || { echo "skip: chromium is not installed (scripts/install-deps.sh installs it)"; exit 77; }
echo "ok: report pages written and rendered"
