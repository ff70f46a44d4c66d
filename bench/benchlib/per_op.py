"""Per op name errors out of `mimic replay --json` reports, for benches that compare replays of
many recordings (replay_ab.py, replay_accuracy.py, replay_ab_fresh.sh)."""
import collections
import math
import statistics


def workload_of(rec):
    """The workload a recording directory was made of: replay_accuracy.py and replay_ab_fresh.sh
    name them .../rec_<workload>."""
    return rec.rstrip("/").rsplit("rec_", 1)[-1]


def name_errors(reports, reference="profile_us", replayed="replay_us"):
    """{(workload, op name): [signed log error per replay]} of a per_op row's `replayed` time
    against its `reference` (the profile by default; "untraced_us" with "replay_untraced_pass_us",
    the pass given the untraced calls' faults, which reports without one lack: replay_us then;
    "profile_raw_us" with "replay_profiled_us", the pass under torch's profiler, where it ran).
    `reports`: {recording directory: [its replays' reports]}."""
    by = collections.defaultdict(list)
    for rec, reps in reports.items():
        for r in reps:
            for o in r["per_op"]:
                got = o.get(replayed) or (o["replay_us"] if replayed == "replay_untraced_pass_us" else 0)
                ref = o.get(reference) or 0
                if ref > 0 and got > 0:
                    by[(workload_of(rec), o["name"])].append(math.log(got / ref))
    return by


def per_op_summary(reports):
    """One line of a build's per-op errors over its replays' reports: mean and median against the
    profile, against the untraced op times and, where the build ran it, the pass under torch's
    profiler against the profile as recorded (the issue's per-op figure)."""
    def figures(key):
        return [r[key] for r in reports if r.get(key) is not None]

    def mean_median(values):
        return f"mean {statistics.mean(values):.1f}% median {statistics.median(values):.1f}%"
    profiled = figures("per_op_error_geomean_profiled_pct")
    under = f"; under the profiler vs as recorded {mean_median(profiled)}" if profiled else ""
    return (f"per-op vs profile {mean_median(figures('per_op_error_geomean_pct'))}; "
            f"vs untraced {mean_median(figures('per_op_error_geomean_untraced_pct'))}{under}")
