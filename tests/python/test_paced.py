"""The original's side of the paced-runs protocol (paced.py), driven as bench/replay_paired.py does."""

import os
import sys
import tempfile
import threading
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

try:
    import torch  # noqa: F401  (the recorder, which paced.py times with, imports it)
except ImportError:
    torch = None


@unittest.skipIf(torch is None, "no torch in this Python")
class ServePacedTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.prefix = os.path.join(self.dir.name, "original")
        for kind in ("go", "done"):
            os.mkfifo(f"{self.prefix}.{kind}.rank0")
        self.calls = 0

    def tearDown(self):
        self.dir.cleanup()

    def step(self):
        self.calls += 1

    def serve(self, warmup):
        from mimic_record.paced import serve_paced
        self.error = None
        def run():
            try:
                serve_paced(self.step, self.prefix, 0, warmup)
            except ValueError as e:
                self.error = e
        thread = threading.Thread(target=run)
        thread.start()
        return thread

    def test_blocks_reply_with_their_times(self):
        thread = self.serve(warmup=2)
        with open(f"{self.prefix}.go.rank0", "w") as go, open(f"{self.prefix}.done.rank0") as done:
            go.write("run 1 3\n")
            go.flush()
            times = [float(x) for x in done.readline().split()]
            go.write("stop\n")
        thread.join()
        self.assertIsNone(self.error)
        self.assertEqual(len(times), 3)
        self.assertTrue(all(t >= 0 for t in times))
        self.assertEqual(self.calls, 2 + 1 + 3)

    def test_ops_needs_the_probe_and_the_recording(self):
        thread = self.serve(warmup=0)  # no out_dir, no probe: "ops" is not a command here
        with open(f"{self.prefix}.go.rank0", "w") as go, open(f"{self.prefix}.done.rank0") as done:
            go.write("ops\n")
            go.flush()
            self.assertEqual(done.readline(), "")
        thread.join()
        self.assertIsInstance(self.error, ValueError)
        self.assertIn("'ops'", str(self.error))

    def test_malformed_command_names_the_fifo(self):
        thread = self.serve(warmup=0)
        with open(f"{self.prefix}.go.rank0", "w") as go, open(f"{self.prefix}.done.rank0") as done:
            go.write("run 1\n")
            go.flush()
            self.assertEqual(done.readline(), "")  # the server closed its end
        thread.join()
        self.assertIsInstance(self.error, ValueError)
        self.assertIn("original.go.rank0", str(self.error))
        self.assertIn("'run 1'", str(self.error))
        self.assertEqual(self.calls, 0)


if __name__ == "__main__":
    unittest.main()
