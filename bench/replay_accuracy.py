#!/usr/bin/env python3
"""Replay accuracy, end to end and per operator, on fresh recordings replayed right after they are made.

A replay is judged against its recording: the untraced iteration time in meta.json, the profiled
iteration (profile.json) and the untraced calls timed per op (op_gaps.json). A process's allocator
state (its page faults, which cost time on CPU) differs from another's, so each round here
records every built-in workload afresh (`mimic record`) and replays it at once (`mimic replay
--json -`), for each --host-gaps:--page-faults mode in MODES (environment; default
"measured:recorded"). For end-to-end figures prefer replay_paired.py: this machine's speed moves
between two levels for seconds at a time, and it times the original and the replay in the same
seconds; the e2e column here compares with the recording's untraced median, timed earlier.

Printed per workload and mode, over the rounds:
- e2e: the replay's median iteration against the recording's untraced median, median over rounds;
- per_op_geo: the replay report's geometric-mean per-op error (over op names, each name's total
  time), median over rounds; against the profile and against the untraced op times;
- systematic: for each op name, the median over rounds of its signed log error, then the
  geometric mean of those over names: what stays when the profiled iterations' noise
  is taken out;
- weighted: the time-weighted per-op error, median over rounds;
- the original against itself: its profile's corrected durations against its untraced op times
  (the two references), geometric mean over op names: the floor for figures against the profile;
- the original against another recording of itself: each round's profile against each other
  round's (needs ROUNDS >= 2): how far apart two recordings of the same step are per op, corrected
  and as recorded.
References: the profile's corrected durations (the per-op pass), the untraced op times (the pass
given their calls' faults) and the profile as recorded (the pass under torch's own profiler).

  bench/replay_accuracy.py MIMIC [ROUNDS=3] [ITERS=15] [OUT_DIR=/tmp/mimic-accuracy]
The recordings and each replay's report stay in OUT_DIR/round<N>/; VERBOSE=1 lists each
workload's op names with the largest systematic errors; RECORD_ARGS adds arguments to each
`mimic record` (e.g. "--profiled-iters 15").
"""
import collections
import json
import math
import os
import statistics
import sys

from benchlib.models import BUILTIN, record
from benchlib.per_op import name_errors
from benchlib.replays import replay_report
from benchlib.stats import geomean_abs, geomean_pct, median_or_nan

WORKLOADS = os.environ.get("WORKLOADS", " ".join(BUILTIN)).split()
MODES = os.environ.get("MODES", "measured:recorded").split()
# (reference, its key in a per_op row, the replay's key it is compared with, report keys): the
# untraced op times are compared with the pass given the untraced calls' page faults where the
# replay ran one (as the report's own figures are), the profile with the profiled calls' pass.
REFERENCES = [("profile", "profile_us", "replay_us", "per_op_error_geomean_pct", "per_op_error_weighted_pct"),
              ("untraced", "untraced_us", "replay_untraced_pass_us", "per_op_error_geomean_untraced_pct",
               "per_op_error_weighted_untraced_pct"),
              # The pass under torch's profiler against the profile as recorded (no correction on either side).
              ("recorded", "profile_raw_us", "replay_profiled_us", "per_op_error_geomean_profiled_pct",
               "per_op_error_weighted_profiled_pct")]


def main():
    mimic = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    iters = int(sys.argv[3]) if len(sys.argv) > 3 else 15
    out_dir = sys.argv[4] if len(sys.argv) > 4 else "/tmp/mimic-accuracy"
    reports = collections.defaultdict(list)  # (workload, mode) -> [report per round]
    for r in range(rounds):
        for w in WORKLOADS:
            rec = os.path.join(out_dir, f"round{r}", "rec_" + w)
            record(mimic, w, rec, ["--force"] + os.environ.get("RECORD_ARGS", "").split())
            for m in MODES:
                rep = replay_report(mimic, rec, m, iters)
                with open(os.path.join(out_dir, f"round{r}", f"replay_{w}_{m.replace(':', '_')}.json"), "w") as f:
                    json.dump(rep, f)
                reports[(w, m)].append(rep)
            with open(os.path.join(rec, "meta.json")) as f:
                meta = json.load(f)
            # A recording whose profiled calls were far apart was disturbed (the recorder
            # profiles it again, up to three sessions); say how steady the kept one was.
            print(f"round {r + 1}/{rounds}: {w} recorded and replayed (profiled calls "
                  f"{min(meta['profiled_iterations_ms']):.1f}-{max(meta['profiled_iterations_ms']):.1f} ms, "
                  f"session {meta.get('profiled_attempt_kept', 1)} of {meta.get('profiled_attempts', 1)}; "
                  f"untraced median {meta['untraced_median_ms']:.1f} ms)", file=sys.stderr)

    print(f"{'workload':12} {'mode':18} {'reference':9} {'per_op_geo_pct':>14} {'systematic_pct':>14} "
          f"{'weighted_pct':>12} {'e2e_pct':>8}")
    e2e_by_mode = collections.defaultdict(list)
    summary = collections.defaultdict(list)
    for (w, m), rs in reports.items():
        for ref, key, replay_key, geo_key, weighted_key in REFERENCES:
            # Reports without an untraced pass compare replay_us; without a profiled pass, nothing.
            by_name = {name: v for (_, name), v in name_errors({w: rs}, key, replay_key).items()}
            systematic = geomean_pct([statistics.median(v) for v in by_name.values()])
            if os.environ.get("VERBOSE"):
                worst = sorted(by_name.items(), key=lambda kv: -abs(statistics.median(kv[1])))[:8]
                print("   ", ", ".join(f"{n} {(math.exp(statistics.median(v)) - 1) * 100:+.0f}%" for n, v in worst))
            geo = median_or_nan(rep.get(geo_key) for rep in rs)
            weighted = median_or_nan(rep.get(weighted_key) for rep in rs)
            e2e = median_or_nan(rep.get("error_pct") for rep in rs)
            print(f"{w:12} {m:18} {ref:9} {geo:14.1f} {systematic:14.1f} {weighted:12.1f} {e2e:+8.1f}")
            summary[(m, ref)].append((geo, systematic))
        e2e_by_mode[m].append(e2e)
    def original_against(what, reading, figure):
        """Per workload, figure(its rounds' reports), then their geometric mean."""
        values = []
        for w in WORKLOADS:
            rs = next((rs for (w2, _), rs in reports.items() if w2 == w), [])
            values.append(figure(rs))
            print(f"{w:12} the original's profile against {what}: {values[-1]:.1f}% ({reading})")
        valid = [v for v in values if v == v and v > 0]
        if valid:
            print(f"geometric mean over workloads, the original's profile against {what}: "
                  f"{geomean_abs(valid, floor=0):.1f}%")  # valid ones are > 0: no floor

    # The two references against each other, per op name: the profiled iterations' corrected
    # durations against the untraced calls' op times, both of the original. Where they disagree
    # by X%, no replay can be within less than about X/2 of both; it bounds what the per-op
    # figures against the profile can show.
    original_against("its untraced op times", "geometric mean over op names, median over rounds",
                     lambda rs: median_or_nan([geomean_pct([math.log(row["profile_us"] / row["untraced_us"])
                                                            for row in rep["per_op"] if row.get("profile_us", 0) > 0
                                                            and row.get("untraced_us", 0) > 0]) for rep in rs]))

    # The original against another recording of itself: each round's profile against each other
    # round's, per op name. A replay is another process; it cannot be expected nearer to one
    # recording's profile than a second recording of the original is.
    def between_recordings(rs, key="profile_us"):
        profiles = [{row["name"]: row[key] for row in rep["per_op"] if row.get(key, 0) > 0} for rep in rs]
        return median_or_nan([geomean_pct([math.log(a[k] / b[k]) for k in a if k in b])
                              for i, a in enumerate(profiles) for b in profiles[i + 1:]])
    original_against("another recording's", "geometric mean over op names, median over pairs of rounds",
                     between_recordings)
    # The same as recorded: the reference of the pass under the profiler. The correction takes most
    # of a small op's profiled time away, and what is left is noisier than the whole.
    original_against("another recording's as recorded", "geometric mean over op names, median over pairs of rounds",
                     lambda rs: between_recordings(rs, "profile_raw_us"))
    for (m, ref), values in summary.items():
        geo = geomean_abs(g for g, _ in values)
        sys_ = geomean_abs(s for _, s in values)
        print(f"geometric mean over workloads, {m:18} vs {ref:9}: per-op {geo:.1f}%, systematic {sys_:.1f}%")
    for m, errors in e2e_by_mode.items():
        g = geomean_abs(errors)
        # The geometric mean of |error| is the measure; an error near 0 pulls it down
        # (each is taken as at least 0.01%), so the plain mean and the worst are printed too.
        print(f"over workloads, {m:18}: end-to-end |error| geometric mean {g:.1f}%, mean "
              f"{statistics.mean(abs(e) for e in errors):.1f}%, worst {max(abs(e) for e in errors):.1f}% "
              f"({', '.join(f'{e:+.1f}' for e in errors)})")


if __name__ == "__main__":
    main()
