"""machine.py: the BLAS named from /proc/self/maps (as src/support/machine_info.cpp names it), the
cores from /proc/cpuinfo, and this process's description as meta.json's `machine` holds it."""

import unittest

from mimic_record import machine

_COMMON = """\
55d0c0a00000-55d0c0a21000 rw-p 00000000 00:00 0                          [heap]
7f3a10000000-7f3a10021000 rw-p 00000000 00:00 0
7f3a20000000-7f3a2a000000 r-xp 00000000 08:01 4242 /usr/lib/x86_64-linux-gnu/libtorch_cpu.so.1.13
7f3a2b000000-7f3a2b100000 r-xp 00000000 08:01 4243 /usr/lib/x86_64-linux-gnu/openblas-pthread/liblapack.so.3
"""


def maps(*paths):
    return _COMMON + "".join(f"7f3a3{i:07x}-7f3a3{i + 1:07x} r-xp 00000000 08:01 {9000 + i} {p}\n"
                             for i, p in enumerate(paths))


class BlasFromMaps(unittest.TestCase):
    def test_openblas_behind_the_alternatives_link(self):
        lib, path = machine.blas_from_maps(maps(
            "/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3",
            "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblasp-r0.3.21.so"))
        self.assertEqual((lib, path), ("openblas", "/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3"))

    def test_reference_blas(self):
        self.assertEqual(machine.blas_from_maps(maps("/usr/lib/x86_64-linux-gnu/blas/libblas.so.3")),
                         ("reference", "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3"))

    def test_reference_blas_beside_openblas_for_lapack(self):
        # update-alternatives --set for libblas.so.3 alone: liblapack.so.3 still maps OpenBLAS in.
        lib, _ = machine.blas_from_maps(maps(
            "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblasp-r0.3.21.so",
            "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3"))
        self.assertEqual(lib, "reference")

    def test_a_wheels_own_openblas(self):
        lib, _ = machine.blas_from_maps(maps("/venv/lib/python3.11/site-packages/torch.libs/libopenblasp-r0-2ecf47d5.3.21.so"))
        self.assertEqual(lib, "openblas")

    def test_blis(self):
        lib, _ = machine.blas_from_maps(maps("/usr/lib/x86_64-linux-gnu/blis-pthread/libblas.so.3",
                                             "/usr/lib/x86_64-linux-gnu/blis-pthread/libblis.so.4"))
        self.assertEqual(lib, "blis")

    def test_mkl(self):
        lib, path = machine.blas_from_maps(maps("/opt/intel/oneapi/mkl/lib/intel64/libmkl_intel_lp64.so.2",
                                                "/opt/intel/oneapi/mkl/lib/intel64/libmkl_core.so.2"))
        self.assertEqual((lib, path), ("mkl", "/opt/intel/oneapi/mkl/lib/intel64/libmkl_core.so.2"))

    def test_numpys_bundled_openblas_is_not_torchs(self):
        lib, _ = machine.blas_from_maps(maps(
            "/home/u/.local/lib/python3.11/site-packages/numpy.libs/libopenblas64_p-r0-15028c96.3.21.so",
            "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3"))
        self.assertEqual(lib, "reference")

    def test_nothing_mapped(self):
        self.assertEqual(machine.blas_from_maps(_COMMON), ("", None))

    def test_torch_config(self):
        self.assertEqual(machine.blas_from_torch_config("  - Build settings: BLAS_INFO=mkl, BUILD_TYPE=Release"), "mkl")
        self.assertEqual(machine.blas_from_torch_config("no such key"), "")


class Cpuinfo(unittest.TestCase):
    TEXT = ("processor\t: 0\nmodel name\t: AMD EPYC 7B13\nphysical id\t: 0\ncore id\t\t: 0\n\n"
            "processor\t: 1\nmodel name\t: AMD EPYC 7B13\nphysical id\t: 0\ncore id\t\t: 0\n\n"
            "processor\t: 2\nmodel name\t: AMD EPYC 7B13\nphysical id\t: 0\ncore id\t\t: 1\n\n")

    def test_model_and_physical_cores(self):
        self.assertEqual(machine.cpu_model_from_cpuinfo(self.TEXT), "AMD EPYC 7B13")
        self.assertEqual(machine.physical_cores_from_cpuinfo(self.TEXT), 2)
        self.assertIsNone(machine.physical_cores_from_cpuinfo("processor\t: 0\nModel\t: Raspberry Pi\n"))


class Describe(unittest.TestCase):
    def test_names_the_blas_loaded_now(self):
        m = machine.describe()
        for key in ("cpu_model", "logical_cores", "physical_cores", "usable_cores", "blas", "torch_version",
                    "intra_op_threads", "inter_op_threads", "env"):
            self.assertIn(key, m)
        self.assertTrue(m["blas"]["library"], m["blas"])
        self.assertEqual(sorted(m["env"]), sorted(machine.ENV_VARS))
        self.assertGreaterEqual(m["intra_op_threads"], 1)


if __name__ == "__main__":
    unittest.main()
