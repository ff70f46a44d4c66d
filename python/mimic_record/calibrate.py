"""What the profiler costs per event on this machine, measured rather than guessed.

A replay compares its op times with the profiled durations and reproduces the gaps between
ops; both carry the profiler's own cost (its start and end callbacks, shapes, memory events)
once per event nested inside or between. We time a loop of one cheap ATen op with and without
the profiler, with the settings the recorder profiles with, and take the difference per call:
the cost of one event. Medians over several rounds keep a preempted round from counting.
"""

import statistics
import time

import torch
from torch.profiler import ProfilerActivity, profile

_CALLS = 2000
_ROUNDS = 7


def _loop(x):
    start = time.perf_counter_ns()
    for _ in range(_CALLS):
        torch.neg(x)  # one profiler event, one small allocation: a typical small op
    return (time.perf_counter_ns() - start) / 1e3 / _CALLS


def profiler_event_cost_us():
    """Microseconds the profiler (record_shapes, profile_memory) adds to one op event; >= 0."""
    x = torch.zeros(4)
    _loop(x)  # warm caches and the allocator
    bare, profiled = [], []
    for _ in range(_ROUNDS):
        bare.append(_loop(x))
        with profile(activities=[ProfilerActivity.CPU], record_shapes=True, profile_memory=True):
            profiled.append(_loop(x))
    return max(0.0, statistics.median(profiled) - statistics.median(bare))
