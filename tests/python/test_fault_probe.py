"""fault_probe.py's pairing of the probe's operators with the ET's top-level operators (no torch)."""

import os
import tempfile
import unittest

import sys

from mimic_record import fault_probe
from mimic_record.fault_probe import (et_top_level_ops, pair_gaps_with_et, pair_layouts_with_et, pair_with_et,
                                     parse_layouts, read_probe_tsv)


def node(id, name, parent, schema=True, rf=None, tid=1):
    n = {"id": id, "name": name, "parent": parent, "rf_id": rf if rf is not None else id, "tid": tid}
    if schema:
        n["op_schema"] = f"{name}(Tensor self) -> Tensor"
    return n


# A step: a label, linear (with children t and addmm), an autograd label holding mm, and a
# backward thread's op that the pairing leaves out (fewer ops than the main thread).
ET = {"nodes": [
    node(1, "[pytorch|profiler|execution_graph|thread]", 1, schema=False),
    node(2, "ProfilerStep#3", 1, schema=False),
    node(3, "aten::linear", 2),
    node(4, "aten::t", 3),
    node(5, "aten::addmm", 3),
    node(6, "autograd::engine::evaluate_function: AddmmBackward0", 2, schema=False),
    node(7, "aten::mm", 6),
    node(8, "aten::sum", 2),
    node(9, "aten::add_", 2, tid=2),
]}


def timed(thread, name, start_ns, end_ns, cpu=(0, 0), read=0, faults=0):
    """A timing-mode probe record: thread, faults, name, layouts, start, end, CPU clock at start
    and end, wall time of the CPU-clock reads."""
    return (thread, faults, name, "", start_ns, end_ns, cpu[0], cpu[1], read)


class FaultProbePairing(unittest.TestCase):
    def test_top_level_ops_skip_children_of_operators_not_of_labels(self):
        self.assertEqual([n["id"] for n in et_top_level_ops(ET)], [3, 7, 8, 9])

    def test_pairs_by_name_in_order_on_the_main_thread(self):
        probe = [(77, 5, "aten::linear", ""), (77, 130, "aten::mm", ""), (77, 0, "aten::sum", ""),
                 (88, 9, "aten::add_", "")]
        doc = pair_with_et(ET, [probe])
        self.assertEqual(doc["faults"], [[3, 5], [7, 130], [8, 0]])
        self.assertEqual((doc["et_top_level_ops"], doc["probe_ops"], doc["paired_ops"]), (3, 3, 3))
        self.assertEqual(doc["probe_faults_total"], 144)
        self.assertEqual(doc["paired_faults_total"], 135)

    def test_an_extra_probe_op_is_stepped_over_never_mispaired(self):
        probe = [(77, 1, "aten::empty", ""), (77, 5, "aten::linear", ""), (77, 130, "aten::mm", "2,3|1,2|0;3|1|4"),
                 (77, 2, "aten::sum", "-")]
        doc = pair_with_et(ET, [probe])
        self.assertEqual(doc["faults"], [[3, 5], [7, 130], [8, 2]])
        layouts = pair_layouts_with_et(ET, probe)
        self.assertEqual(layouts["layouts"], [[3, []], [7, [[[2, 3], [1, 2], 0], [[3], [1], 4]]], [8, [None]]])

    def test_faults_are_each_ops_median_over_the_profiled_calls(self):
        def call(linear, mm, total_extra=0):
            return [(77, linear, "aten::linear", ""), (77, mm, "aten::mm", ""), (77, 0, "aten::sum", ""),
                    (88, total_extra, "aten::add_", "")]
        # The first call faults on mm (a fresh heap), the later ones do not; one call lacks sum.
        calls = [call(5, 130), call(4, 0), call(6, 0)[:2] + call(6, 0)[3:], call(5, 2)]
        doc = pair_with_et(ET, calls)
        self.assertEqual(doc["calls"], 4)
        self.assertEqual(doc["faults"], [[3, 5], [7, 0], [8, 0]])
        self.assertEqual(doc["paired_ops"], 3)

    def test_layouts_of_every_rank_and_undefined_tensors(self):
        self.assertEqual(parse_layouts(""), [])
        self.assertEqual(parse_layouts("||0;-;4,1,2|2,8,1|12"), [[[], [], 0], None, [[4, 1, 2], [2, 8, 1], 12]])

    def test_gaps_are_medians_over_the_calls_from_the_previous_ops_end(self):
        def call(t0, shift):
            # linear [10, 40), mm [50 + shift, 60 + shift), sum [61 + shift, 70 + shift) us; the call ends at 100.
            recs = [timed(77, "aten::linear", 10_000, 40_000),
                    timed(77, "aten::mm", (50 + shift) * 1000, (60 + shift) * 1000),
                    timed(77, "aten::sum", (61 + shift) * 1000, (70 + shift) * 1000),
                    timed(88, "aten::add_", 0, 5_000)]
            return (t0, 100_000, recs, [])
        doc = pair_gaps_with_et(ET, [call(0, 0), call(0, 10), call(0, 2)])
        self.assertEqual(doc["calls"], 3)
        self.assertEqual(doc["gaps"], [[3, 10.0, 30.0], [7, 12.0, 10.0], [8, 1.0, 9.0]])
        self.assertEqual(doc["tail_us"], 28.0)
        self.assertNotIn("tail_cpu_us", doc)  # calls without the CPU clock: no CPU times

    def test_time_blocked_on_collectives_comes_off_the_gaps_it_falls_in(self):
        recs = [timed(77, "aten::linear", 10_000, 40_000), timed(77, "aten::mm", 50_000, 60_000),
                timed(77, "aten::sum", 61_000, 70_000)]
        # Waits: 6 us inside the gap before mm, one straddling sum's start (half in the gap), one after.
        waits = [(42_000, 48_000), (60_500, 61_500), (80_000, 90_000)]
        doc = pair_gaps_with_et(ET, [(0, 100_000, recs, waits)])
        self.assertEqual(doc["gaps"], [[3, 10.0, 30.0], [7, 4.0, 10.0], [8, 0.5, 9.0]])
        self.assertEqual(doc["tail_us"], 20.0)
        self.assertEqual(doc["collective_wait_ms"], [0.017])

    def test_a_gaps_cpu_time_is_the_host_work_in_it_without_the_clock_reads(self):
        # The thread ran 8 of the 10 us before mm (it waited 2 us for something Python cannot see),
        # all of the 1 us before sum; each op's two CPU-clock reads took 0.4 us of wall time.
        recs = [timed(77, "aten::linear", 10_000, 40_000, cpu=(5_000, 35_000), read=400, faults=3),
                timed(77, "aten::mm", 50_000, 60_000, cpu=(43_100, 53_100), read=400),
                timed(77, "aten::sum", 61_000, 70_000, cpu=(54_200, 63_200), read=400, faults=1)]
        doc = pair_gaps_with_et(ET, [(0, 100_000, recs, [], 0, 80_000)])
        # Wall gaps lose half of each neighbouring op's reads (0.2 + 0.2 us), CPU gaps half of that;
        # each row ends with the op's page faults.
        self.assertEqual(doc["gaps"], [[3, 9.8, 30.0, 4.9, 3], [7, 9.6, 10.0, 7.9, 0], [8, 0.6, 9.0, 0.6, 1]])
        self.assertEqual(doc["tail_us"], 29.8)
        self.assertEqual(doc["tail_cpu_us"], 16.7)

    def test_a_parent_cycle_does_not_hang(self):
        et = {"nodes": [node(1, "aten::a", 2, schema=False), node(2, "aten::b", 1)]}
        self.assertEqual([n["id"] for n in et_top_level_ops(et)], [])  # b is its own ancestor

    def test_reads_the_probe_file(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "p.tsv")
            with open(path, "w") as f:
                f.write("12\t3\t0\t0\t0\t0\t0\t2,3|3,1|0\taten::mm\n"
                        "12\t0\t500\t900\t450\t850\t70\t\taten::name\twith tab\n")
            self.assertEqual(read_probe_tsv(path),
                             [(12, 3, "aten::mm", "2,3|3,1|0", 0, 0, 0, 0, 0),
                              (12, 0, "aten::name\twith tab", "", 500, 900, 450, 850, 70)])


class ProbeLoading(unittest.TestCase):
    def test_a_mapped_file_is_seen_and_an_absent_one_is_not(self):
        self.assertTrue(fault_probe._library_loaded(sys.executable))  # this interpreter is mapped
        self.assertFalse(fault_probe._library_loaded("/nonexistent/libtorch_cpu.so.9"))

    def test_not_loaded_into_a_python_with_another_libtorch(self):
        notes = []
        old = dict(os.environ)
        try:
            os.environ[fault_probe.PROBE_ENV] = "/nonexistent/libmimic_fault_probe.so"
            os.environ[fault_probe.PROBE_TORCH_ENV] = "/nonexistent/libtorch_cpu.so.9"
            self.assertIsNone(fault_probe.FaultProbe.from_env(log=notes.append))
        finally:
            os.environ.clear()
            os.environ.update(old)
        self.assertTrue(notes and "not the libtorch mimic was built with" in notes[0])


if __name__ == "__main__":
    unittest.main()
