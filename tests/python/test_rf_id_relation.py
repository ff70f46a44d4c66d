"""What links the ET's rf_id to the profiler's correlation id in this torch (needs torch).

Runs a fresh interpreter (so its first profiler session really is the first) that records the
same step twice with record_step, then checks what align.py's comment states:
- session 1, main thread: correlation_id == rf_id for every op (offset 0);
- session 2: a nonzero offset (correlation ids start on a new block of 512), yet every op is
  still linked by name, and every "Record function id" in profile.json names an ET node with
  the event's own name.
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.join(HERE, "..", "..", "python")

SCRIPT = """
import sys
sys.path.insert(0, {here!r})
from mimic_record import record_step
import user_step
step = user_step.make_step()
record_step(step, {first!r}, warmup=1, iters=2, workload="relation-1", log=lambda *a: None)
record_step(step, {second!r}, warmup=1, iters=2, workload="relation-2", log=lambda *a: None)
"""


def _torch_available():
    return subprocess.run([sys.executable, "-c", "import torch"], capture_output=True).returncode == 0


@unittest.skipUnless(_torch_available(), "torch is not importable by this interpreter")
class RfIdRelation(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.first = os.path.join(cls.tmp.name, "first")
        cls.second = os.path.join(cls.tmp.name, "second")
        code = SCRIPT.format(here=HERE, first=cls.first, second=cls.second)
        env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        if done.returncode != 0:
            raise AssertionError(f"recording failed:\n{done.stdout}\n{done.stderr}")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def meta(self, d):
        with open(os.path.join(d, "meta.json")) as f:
            return json.load(f)

    def test_first_session_ids_are_equal(self):
        meta = self.meta(self.first)
        link = meta["rf_id_link"]
        main = link["threads"]["1"]
        self.assertGreater(main["et_ops"], 20)
        # The recorder profiles a disturbed session again; only the process's first session
        # has equal ids.
        if meta["profiled_attempt_kept"] == 1:
            self.assertEqual(main["offsets"], [[0, main["et_ops"]]])
        else:
            self.assertEqual(len(main["offsets"]), 1, main["offsets"])
        self.assertEqual(link["linked"], link["et_ops"])

    def test_second_session_is_offset_but_linked(self):
        link = self.meta(self.second)["rf_id_link"]
        offsets = link["threads"]["1"]["offsets"]
        self.assertEqual(len(offsets), 1, offsets)
        self.assertNotEqual(offsets[0][0], 0)
        self.assertEqual(link["linked"], link["et_ops"])

    def test_profile_ids_name_the_same_et_nodes(self):
        sys.path.insert(0, HERE)
        import check_recording
        for d, name in ((self.first, "relation-1"), (self.second, "relation-2")):
            check_recording.check_one(d, name, 0, 1)


if __name__ == "__main__":
    unittest.main()
