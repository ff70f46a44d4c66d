"""outdir.py: --force removes a previous recording's files, the probe's included, and keeps others."""

import io
import os
import tempfile
import unittest
from contextlib import redirect_stdout

from mimic_record import outdir


class Prepare(unittest.TestCase):
    def test_force_removes_every_file_a_recording_writes(self):
        with tempfile.TemporaryDirectory() as d:
            written = ["et.json.gz", "profile.json", "meta.json", "op_faults.json", "op_gaps.json",
                       "op_layouts.json", ".op_gaps.0.tsv.partial", ".paced_ops.tsv.partial"]
            for name in written + ["notes.txt"]:
                open(os.path.join(d, name), "w").close()
            os.mkdir(os.path.join(d, "rank0"))
            open(os.path.join(d, "rank0", "op_faults.json"), "w").close()
            out = io.StringIO()
            with redirect_stdout(out):
                outdir.prepare(d, force=True)
            self.assertEqual(sorted(os.listdir(d)), ["notes.txt"])
            self.assertIn("keeping files not written by mimic_record: notes.txt", out.getvalue())

    def test_no_warning_when_only_a_recording_was_there(self):
        with tempfile.TemporaryDirectory() as d:
            for name in ("et.json.gz", "op_gaps.json"):
                open(os.path.join(d, name), "w").close()
            out = io.StringIO()
            with redirect_stdout(out):
                outdir.prepare(d, force=True)
            self.assertEqual(os.listdir(d), [])
            self.assertEqual(out.getvalue(), "")

    def test_refuses_a_non_empty_directory_without_force(self):
        with tempfile.TemporaryDirectory() as d:
            open(os.path.join(d, "meta.json"), "w").close()
            with self.assertRaises(outdir.OutDirError):
                outdir.prepare(d, force=False)


if __name__ == "__main__":
    unittest.main()
