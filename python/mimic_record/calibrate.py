"""What the profiler costs per event on this machine, measured rather than guessed.

A replay compares its op times with the profiled durations and reproduces the gaps between
ops; both carry the profiler's own cost (its start and end callbacks, shapes, memory events)
once per event nested inside or between. We time a loop of one cheap ATen op with and without
the profiler, with the settings the recorder profiles with, and take the difference per call:
the cost of one event. Medians over several rounds keep a preempted round from counting.
"""

import contextlib
import os
import statistics
import tempfile
import time

import torch
from torch.profiler import ProfilerActivity, profile

from .profile_writer import event_tree_of, walk_event_tree

_CALLS = 2000
_ROUNDS = 7


def _loop(x):
    start = time.perf_counter_ns()
    for _ in range(_CALLS):
        torch.neg(x)  # one profiler event, one small allocation: a typical small op
    return (time.perf_counter_ns() - start) / 1e3 / _CALLS


def _profiled_mean_us(x, probe):
    """Mean profiled duration of the loop's op, with the fault probe counting or not."""
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True, profile_memory=True) as prof:
        if probe:
            probe.start()
        try:
            _loop(x)
        finally:
            if probe:
                probe.stop(probe_tsv_scratch())
    d = _durations_us(prof, "aten::neg")
    return statistics.mean(d) if d else 0.0


def _durations_us(prof, name):
    """The profiled durations of the `name` events, to the nanosecond from the profiler's event
    tree: the events' own durations are whole microseconds, truncated, and a 0.4 us op reads 0.
    Whole microseconds where this torch has no tree."""
    roots = event_tree_of(prof)
    if roots is None:
        return [e.time_range.elapsed_us() for e in prof.events() if e.name == name]
    return [e.duration_time_ns / 1e3 for e in walk_event_tree(roots) if e.name == name]


def probe_tsv_scratch():
    return os.path.join(tempfile.gettempdir(), f".mimic_probe_calibration.{os.getpid()}.tsv")


def probe_cost_per_op_us(probe):
    """Microseconds the page-fault probe (fault_probe.py) adds inside a top-level op's profiled
    interval: its callbacks and one getrusage call run between the profiler's own. >= 0."""
    x = torch.zeros(4)
    _loop(x)
    bare, probed = [], []
    for _ in range(_ROUNDS // 2 + 1):
        bare.append(_profiled_mean_us(x, None))
        probed.append(_profiled_mean_us(x, probe))
    return max(0.0, statistics.median(probed) - statistics.median(bare))


def _added_us_per_call(instrumented):
    """Median loop time per call inside the context manager `instrumented()` less the median
    without it, over _ROUNDS alternated rounds; >= 0."""
    x = torch.zeros(4)
    _loop(x)  # warm caches and the allocator
    bare, timed = [], []
    for _ in range(_ROUNDS):
        bare.append(_loop(x))
        with instrumented():
            timed.append(_loop(x))
    return max(0.0, statistics.median(timed) - statistics.median(bare))


def probe_timing_cost_per_event_us(probe):
    """Microseconds the probe's timing mode (op_gaps.json) adds per nested operator event: an op's
    untraced duration carries it once for each operator nested in it. The loop's ops are made
    nested (FaultProbe.nest), as a top-level op also reads the clocks. >= 0."""
    @contextlib.contextmanager
    def timing_nested():
        probe.start_timing()
        probe.nest(True)
        try:
            yield
        finally:
            probe.nest(False)
            probe.stop(probe_tsv_scratch())
    return _added_us_per_call(timing_nested)


def profiler_event_cost_us():
    """Microseconds the profiler (record_shapes, profile_memory) adds to one op event; >= 0."""
    return _added_us_per_call(
        lambda: profile(activities=[ProfilerActivity.CPU], record_shapes=True, profile_memory=True))
