"""Timed iterations of the original workload when a benchmark driver says so.

The other half of src/support/paced_runs.h: bench/replay_paired.py alternates blocks of the
original's untraced iterations with blocks of the replay's, so that both are timed in the same
seconds on a machine whose speed moves for seconds at a time. One line each way per block over
two FIFOs the driver created: PREFIX.go.rankN carries "run W T" (W untimed iterations, which
warm the caches the other program used, then T timed ones), "ops" (one untraced call with each
top-level op timed by the probe, as op_gaps.json's durations are) or "stop"; PREFIX.done.rankN
gets the T times in ms, or for "ops" "ET_NODE_ID:US" per paired op. Iterations are timed as the
recorder times its untraced ones (recorder._timed: ranks line up at a barrier first).
"""

import gzip
import json
import os
import resource
import sys

from . import fault_probe
from .recorder import ET_FILE, _timed

MAX_ITERATIONS = 100000  # per block: a garbled line must not start a day-long block


class _OpTimer:
    """Answers "ops": the probe's timing mode around one call, its top-level ops paired with the
    recording's ET, each duration less the probe's cost per nested event (as the replay takes
    op_gaps.json's durations). None without the probe or the recording's files."""

    def __init__(self, out_dir):
        self.probe = fault_probe.FaultProbe.from_env(lambda *a: None)
        self.scratch = os.path.join(out_dir, ".paced_ops.tsv.partial")
        with gzip.open(os.path.join(out_dir, ET_FILE), "rt", encoding="utf-8") as f:
            self.et = json.load(f)
        with open(os.path.join(out_dir, fault_probe.OP_GAPS_FILE), encoding="utf-8") as f:
            self.cost_us = json.load(f).get("probe_cost_per_event_us") or 0.0
        children = {}
        for n in self.et.get("nodes", []):
            if n.get("parent") != n["id"]:
                children.setdefault(n.get("parent"), []).append(n["id"])
        self.below = {}  # ops nested in each top-level op, the only ones "ops" times
        for n in fault_probe.et_top_level_ops(self.et):
            stack, count = list(children.get(n["id"], [])), 0
            while stack and count <= len(self.et["nodes"]):  # a parent cycle must not hang
                count += 1
                stack.extend(children.get(stack.pop(), []))
            self.below[n["id"]] = count

    @classmethod
    def create(cls, out_dir):
        try:
            timer = cls(out_dir)
        except (OSError, ValueError):
            return None
        return timer if timer.probe else None

    def reply(self, step_fn):
        with fault_probe.timing(self.probe, self.scratch) as records:
            step_fn()
        et_ops, probe, pairs = fault_probe._paired(self.et, records)
        times = []
        for i, j in pairs:
            node = et_ops[i]["id"]
            us = max(0.0, (probe[j][5] - probe[j][4]) / 1e3 - self.cost_us * self.below.get(node, 0))
            times.append(f"{node}:{us:.3f}")
        return " ".join(times)


def _parse_run(line, go_path):
    words = line.split()
    try:
        if len(words) == 3 and words[0] == "run":
            untimed, timed = int(words[1]), int(words[2])
            if 0 <= untimed <= MAX_ITERATIONS and 1 <= timed <= MAX_ITERATIONS:
                return untimed, timed
    except ValueError:
        pass
    raise ValueError(f"{go_path}: expected 'run UNTIMED TIMED', 'ops' or 'stop', got {line.strip()!r}")


def serve_paced(step_fn, prefix, rank, warmup, out_dir=None):
    """Runs `warmup` untimed iterations, then blocks on command until "stop" or the driver's EOF.
    `out_dir`: the recording, whose ET pairs the ops "ops" times."""
    op_timer = _OpTimer.create(out_dir) if out_dir else None
    for _ in range(warmup):
        step_fn()
    go_path, done_path = f"{prefix}.go.rank{rank}", f"{prefix}.done.rank{rank}"
    # The driver opens go for writing, then done for reading: the same order here.
    timed_iterations = faults = 0
    with open(go_path, encoding="utf-8") as go, open(done_path, "w", encoding="utf-8") as done:
        while True:
            line = go.readline()
            if not line or line.strip() == "stop":
                break
            if line.strip() == "ops" and op_timer:
                done.write(op_timer.reply(step_fn) + "\n")
                done.flush()
                continue
            untimed, timed = _parse_run(line, go_path)
            for _ in range(untimed):
                _timed(step_fn)
            before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
            times = [_timed(step_fn) for _ in range(timed)]
            faults += resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
            timed_iterations += timed
            done.write(" ".join(f"{t:.4f}" for t in times) + "\n")
            done.flush()
    # Page faults cost time on CPU and depend on the process's allocator state: a replay
    # reproduces its recording's, which this process need not share (the driver prints both).
    if timed_iterations:
        print(f"mimic_record: rank {rank}: paced: {timed_iterations} timed iterations, "
              f"{faults / timed_iterations:.1f} page faults per iteration", file=sys.stderr)
