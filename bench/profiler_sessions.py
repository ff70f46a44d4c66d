#!/usr/bin/env python3
"""How far apart the per-op medians of profiler sessions of one step are, in one process.

A recording's profile is each top-level op's median over the profiled calls. This measures how
much that reference moves from one torch.profiler session to the next (the recorder's settings:
record_shapes, profile_memory), and how much pooling sessions takes out:

  /usr/bin/python3 bench/profiler_sessions.py WORKLOAD [SESSIONS=6] [CALLS=5] [CALLS_BETWEEN=2] [DUMP.json]

For a built-in workload, runs SESSIONS sessions of CALLS calls each, CALLS_BETWEEN untraced calls
before each, and prints the geometric mean over op names of |log ratio| between single sessions
(median over pairs) and between the medians of two disjoint groups of k sessions. DUMP.json gets
the first session's and the pooled medians, to compare two processes with --compare A.json B.json.
"""
import itertools
import json
import math
import os
import statistics
import sys

from benchlib.stats import geomean_pct

HERE = os.path.dirname(os.path.abspath(__file__))


def apart_pct(a, b):
    """Geometric mean over the op names both have of |log(a/b)|, as a percentage."""
    return geomean_pct([math.log(a[n] / b[n]) for n in a if n in b and a[n] > 0 and b[n] > 0])


def pooled(sessions):
    return {n: statistics.median(s[n] for s in sessions) for n in sessions[0] if all(n in s for s in sessions)}


def session_medians(prof, calls, event_tree_of):
    """{op name: median over the calls of the op's summed time per call (us)} of the top-level ops."""
    labels, tops = [], []

    def walk(e):
        if e.name.startswith("aten::"):
            tops.append(e)
            return
        for c in e.children:
            walk(c)

    for root in event_tree_of(prof):
        if root.name.startswith("ProfilerStep#"):
            labels.append(root.start_time_ns)
        walk(root)
    labels.sort()
    per_call = [{} for _ in labels]
    for e in tops:
        k = sum(1 for start in labels if start <= e.start_time_ns) - 1
        if k >= 0:
            per_call[k][e.name] = per_call[k].get(e.name, 0.0) + e.duration_time_ns / 1000
    names = set().union(*per_call)
    return {n: statistics.median(c.get(n, 0.0) for c in per_call) for n in names}


def main():
    if sys.argv[1:2] == ["--compare"]:
        a, b = (json.load(open(p)) for p in sys.argv[2:4])
        for key in a:
            print(f"{key}: {apart_pct(a[key], b[key]):.1f}% apart")
        return
    sys.path.insert(0, os.path.join(HERE, "..", "python"))
    from torch.profiler import ProfilerActivity, profile, record_function
    from mimic_record import workloads
    from mimic_record.profile_writer import event_tree_of

    name = sys.argv[1]
    n_sessions = int(sys.argv[2]) if len(sys.argv) > 2 else 6
    calls = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    between = int(sys.argv[4]) if len(sys.argv) > 4 else 2
    step = workloads.load(name).build(seed=0)
    for _ in range(5):
        step()
    sessions = []
    for _ in range(n_sessions):
        for _ in range(between):
            step()
        with profile(activities=[ProfilerActivity.CPU], record_shapes=True, profile_memory=True) as prof:
            for k in range(calls):
                with record_function(f"ProfilerStep#{k}"):
                    step()
        sessions.append(session_medians(prof, calls, event_tree_of))
    pairs = [apart_pct(a, b) for a, b in itertools.combinations(sessions, 2)]
    print(f"{name}: single sessions apart: median {statistics.median(pairs):.1f}% "
          f"(min {min(pairs):.1f}, max {max(pairs):.1f})")
    for k in range(2, n_sessions // 2 + 1):
        print(f"  medians of {k} sessions apart: {apart_pct(pooled(sessions[0:2 * k:2]), pooled(sessions[1:2 * k:2])):.1f}%")
    if len(sys.argv) > 5:
        with open(sys.argv[5], "w") as f:
            json.dump({"one session": sessions[0], "three sessions": pooled(sessions[:3]),
                       "all sessions": pooled(sessions)}, f)


if __name__ == "__main__":
    main()
