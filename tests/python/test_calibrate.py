"""The recorder's calibration reads profiled durations to the nanosecond (needs torch)."""

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
class DurationsTest(unittest.TestCase):
    def test_sub_microsecond_durations_are_not_truncated(self):
        # The events' own durations are whole microseconds, truncated: a 0.4 us neg read 0, and
        # the probe's cost per op came out 0.003-0.09 us where it is ~0.4.
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
