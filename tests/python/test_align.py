"""align.py on synthetic id sequences shaped like the ones torch 1.13 produces (no torch needed)."""

import unittest

from mimic_record.align import align_sequences, link_rf_ids


def et(tid, first_rf, names, shapes=None):
    return [(tid, first_rf + i, n, shapes) for i, n in enumerate(names)]


def prof(tid, first_corr, names, shapes=None, start_us=0):
    return [(tid, first_corr + i, n, shapes, start_us + i) for i, n in enumerate(names)]


NAMES = ["ProfilerStep#3", "aten::linear", "aten::t", "aten::addmm", "aten::relu", "aten::sum",
         "autograd::engine::evaluate_function: SumBackward0", "SumBackward0", "aten::expand"]


class AlignSequences(unittest.TestCase):
    def test_identical(self):
        self.assertEqual(align_sequences(list("abcd"), list("abcd")), [(0, 0), (1, 1), (2, 2), (3, 3)])

    def test_extra_ops_on_one_side_are_skipped(self):
        a = ["x", "y", "a", "b", "c", "d", "e"]
        b = ["a", "b", "c", "d", "e"]
        self.assertEqual(align_sequences(a, b), [(2, 0), (3, 1), (4, 2), (5, 3), (6, 4)])
        self.assertEqual(align_sequences(b, a), [(0, 2), (1, 3), (2, 4), (3, 5), (4, 6)])

    def test_never_pairs_different_names(self):
        a, b = list("abcdefgh"), list("abcXefgh")
        pairs = align_sequences(a, b)
        self.assertTrue(all(a[i] == b[j] for i, j in pairs))
        self.assertNotIn((3, 3), pairs)
        self.assertEqual(len(pairs), 7)

    def test_unrelated_sequences_pair_nothing_wrong(self):
        pairs = align_sequences(list("abcdef"), list("uvwxyz"))
        self.assertEqual(pairs, [])


class LinkRfIds(unittest.TestCase):
    def test_first_session_ids_equal(self):
        mapping, report = link_rf_ids(et(1, 1, NAMES), prof(1, 1, NAMES))
        self.assertEqual(mapping, {(1, i + 1): i + 1 for i in range(len(NAMES))})
        self.assertEqual(report["threads"]["1"]["offsets"], [[0, len(NAMES)]])

    def test_later_session_offset(self):
        # second profiler session: correlation ids start on a fresh block of 512
        mapping, report = link_rf_ids(et(1, 124, NAMES), prof(1, 513, NAMES))
        self.assertEqual(len(mapping), len(NAMES))
        self.assertEqual(mapping[(1, 513)], 124)
        self.assertEqual(report["threads"]["1"]["offsets"], [[389, len(NAMES)]])

    def test_profiler_sees_ops_before_observer_started(self):
        mapping, report = link_rf_ids(et(1, 5, NAMES), prof(1, 1, ["aten::zeros", "aten::empty"] + NAMES))
        self.assertEqual(report["linked"], len(NAMES))
        self.assertNotIn((1, 1), mapping)
        self.assertEqual(mapping[(1, 3)], 5)

    def test_label_on_another_thread_links_by_name_and_shape(self):
        # Gloo: the ET writes gloo:all_reduce on the caller's thread, the profiler on Gloo's
        ops_et = et(1, 10, ["c10d::allreduce_", "gloo:all_reduce", "aten::add_"])
        ops_et[1] = (1, 11, "gloo:all_reduce", [[1000]])
        ops_prof = prof(1, 10, ["c10d::allreduce_", "aten::add_"]) + \
            [(2, 513, "gloo:all_reduce", [[1000]], 5)]
        mapping, report = link_rf_ids(ops_et, ops_prof)
        self.assertEqual(mapping[(2, 513)], 11)
        self.assertEqual(mapping[(1, 11)], 12)  # aten::add_ after the label
        self.assertEqual(report["linked_across_threads"], 1)

    def test_cross_thread_needs_equal_shapes(self):
        ops_et = [(1, 11, "gloo:all_reduce", [[1000]])]
        ops_prof = [(2, 513, "gloo:all_reduce", [[999]], 5)]
        mapping, report = link_rf_ids(ops_et, ops_prof)
        self.assertEqual(mapping, {})
        self.assertEqual(report["unlinked_et_ops"], 1)


if __name__ == "__main__":
    unittest.main()
