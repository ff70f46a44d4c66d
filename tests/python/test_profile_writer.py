"""profile.json's times come from the profiler's event tree, to the nanosecond (needs torch)."""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

try:
    import torch
    from torch.profiler import ProfilerActivity, profile
except ImportError:  # the interpreter running the tests has no torch
    torch = None


@unittest.skipIf(torch is None, "no torch in this Python")
class PreciseTimesTest(unittest.TestCase):
    def setUp(self):
        from mimic_record.profile_writer import PreciseTimes, build_trace
        x = torch.randn(64, 64, requires_grad=True)
        with profile(activities=[ProfilerActivity.CPU], record_shapes=True, profile_memory=True) as prof:
            for _ in range(20):
                (x.t() * 2).sum().backward()
        self.events = list(prof.profiler.kineto_results.events())
        self.times = PreciseTimes.of(prof)
        self.tree = prof.profiler.kineto_results.experimental_event_tree()
        self.trace, _ = build_trace([self.events], {}, 1, "test", self.times)
        self.coarse, _ = build_trace([self.events], {}, 1, "test")

    def test_every_op_and_memory_event_is_found_in_the_tree(self):
        self.assertIsNotNone(self.times)
        ops = [e for e in self.events if e.name() != "[memory]" and e.correlation_id() > 0]
        memory = [e for e in self.events if e.name() == "[memory]"]
        self.assertTrue(ops and memory)
        for e in ops:
            ts, dur = self.times.op(e)
            # The whole microseconds are the nanoseconds truncated (the start within a rounding step).
            self.assertLessEqual(abs(ts - e.start_us()), 1.0, e.name())
            self.assertTrue(0 <= dur - e.duration_us() < 1.0, (e.name(), dur, e.duration_us()))

    def test_durations_are_no_longer_whole_microseconds(self):
        def durations(trace):
            return [e["dur"] for e in trace["traceEvents"] if e.get("ph") == "X"]
        precise, coarse = durations(self.trace), durations(self.coarse)
        self.assertEqual(len(precise), len(coarse))
        self.assertTrue(all(d == int(d) for d in coarse))
        self.assertGreater(sum(d != int(d) for d in precise), len(precise) // 2)
        # Truncation lost about half a microsecond per event on average.
        self.assertGreater(sum(precise) - sum(coarse), 0.2 * len(precise))

    def test_memory_events_get_the_nanoseconds_of_their_own_allocation(self):
        memory = [e for e in self.events if e.name() == "[memory]"]
        from mimic_record.profile_writer import PreciseTimes
        # A fresh table: memory_ts() consumes its entries.
        table = PreciseTimes(self.tree)
        found = [table.memory_ts(e) for e in memory]
        # An absolute time in microseconds is a double with 0.25 us steps at this magnitude.
        self.assertTrue(all(e.start_us() - 0.25 <= ts <= e.start_us() + 1.25 for e, ts in zip(memory, found)))
        self.assertGreater(sum(ts != int(ts) for ts in found), len(found) // 2)


@unittest.skipIf(torch is None, "no torch in this Python")
class CalibrationDurationsTest(unittest.TestCase):
    def test_sub_microsecond_durations_are_not_truncated(self):
        # The recorder's calibration reads durations from the same event tree: the events' own
        # are whole microseconds, truncated, and a 0.4 us neg read 0 (the probe's cost per op came
        # out 0.003-0.09 us where it is ~0.4).
        from mimic_record.calibrate import _durations_us
        x = torch.zeros(4)
        with profile(activities=[ProfilerActivity.CPU], record_shapes=True, profile_memory=True) as prof:
            for _ in range(50):
                torch.neg(x)
        d = _durations_us(prof, "aten::neg")
        self.assertEqual(len(d), 50)
        self.assertTrue(all(v > 0 for v in d), d)
        self.assertTrue(any(v != int(v) for v in d), "durations are whole microseconds")


if __name__ == "__main__":
    unittest.main()
