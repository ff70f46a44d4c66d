"""Timed iterations of the original workload when a benchmark driver says so.

The other half of src/support/paced_runs.h: bench/replay_paired.py alternates blocks of the
original's untraced iterations with blocks of the replay's, so that both are timed in the same
seconds on a machine whose speed moves for seconds at a time. One line each way per block over
two FIFOs the driver created: PREFIX.go.rankN carries "run W T" (W untimed iterations, which
warm the caches the other program used, then T timed ones) or "stop"; PREFIX.done.rankN gets
the T times in ms. Iterations are timed as the recorder times its untraced ones (recorder._timed:
ranks line up at a barrier first).
"""

import resource
import sys

from .recorder import _timed

MAX_ITERATIONS = 100000  # per block: a garbled line must not start a day-long block


def _parse_run(line, go_path):
    words = line.split()
    try:
        if len(words) == 3 and words[0] == "run":
            untimed, timed = int(words[1]), int(words[2])
            if 0 <= untimed <= MAX_ITERATIONS and 1 <= timed <= MAX_ITERATIONS:
                return untimed, timed
    except ValueError:
        pass
    raise ValueError(f"{go_path}: expected 'run UNTIMED TIMED' or 'stop', got {line.strip()!r}")


def serve_paced(step_fn, prefix, rank, warmup):
    """Runs `warmup` untimed iterations, then blocks on command until "stop" or the driver's EOF."""
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
