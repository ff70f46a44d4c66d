#include "support/machine_info.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/error.h"
#include "support/json_writer.h"
#include "test_support.h"

namespace mimic {
namespace {

// /proc/self/maps as a process with libtorch shows it, plus the given files.
std::string maps_with(const std::vector<std::string>& paths) {
    std::string text =
        "55d0c0a00000-55d0c0a21000 rw-p 00000000 00:00 0                          [heap]\n"
        "7f3a10000000-7f3a10021000 rw-p 00000000 00:00 0 \n"
        "7f3a20000000-7f3a2a000000 r-xp 00000000 08:01 4242                       "
        "/usr/lib/x86_64-linux-gnu/libtorch_cpu.so.1.13\n"
        "7f3a2b000000-7f3a2b100000 r-xp 00000000 08:01 4243                       "
        "/usr/lib/x86_64-linux-gnu/openblas-pthread/liblapack.so.3\n";
    int inode = 9000;
    for (const std::string& p : paths)
        text += "7f3a30000000-7f3a30100000 r-xp 00000000 08:01 " + std::to_string(inode++) + "    " + p + "\n";
    return text;
}

TEST(BlasFromMaps, OpenBlasByTheAlternativesLinkLibtorchLinks) {
    const BlasInfo b = blas_from_maps(maps_with({"/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3",
                                                 "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblasp-r0.3.21.so"}));
    EXPECT_EQ(b.library, "openblas");
    EXPECT_EQ(b.path, "/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3");
}

TEST(BlasFromMaps, ReferenceBlasByItsDirectory) {
    const BlasInfo b = blas_from_maps(maps_with({"/usr/lib/x86_64-linux-gnu/blas/libblas.so.3"}));
    EXPECT_EQ(b.library, "reference");
    EXPECT_EQ(b.path, "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3");
}

TEST(BlasFromMaps, ReferenceBlasBesideOpenBlasForLapack) {
    // update-alternatives --set for libblas.so.3 alone: liblapack.so.3 still maps OpenBLAS in,
    // and the GEMM runs on the reference BLAS (5.9 against 160 GFLOP/s here).
    const BlasInfo b = blas_from_maps(maps_with({"/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblasp-r0.3.21.so",
                                                 "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3"}));
    EXPECT_EQ(b.library, "reference");
}

TEST(BlasFromMaps, AWheelsOwnOpenBlas) {
    EXPECT_EQ(
        blas_from_maps(maps_with({"/venv/lib/python3.11/site-packages/torch.libs/libopenblasp-r0-2ecf47d5.3.21.so"}))
            .library,
        "openblas");
}

TEST(BlasFromMaps, Blis) {
    EXPECT_EQ(blas_from_maps(maps_with({"/usr/lib/x86_64-linux-gnu/blis-pthread/libblas.so.3",
                                        "/usr/lib/x86_64-linux-gnu/blis-pthread/libblis.so.4"}))
                  .library,
              "blis");
    // The alternatives' link alone (its library not yet mapped): named by its directory.
    EXPECT_EQ(blas_from_maps(maps_with({"/usr/lib/x86_64-linux-gnu/blis-openmp/libblas.so.3"})).library, "blis");
}

TEST(BlasFromMaps, MklOfSeveralFilesIsNamedOnce) {
    const BlasInfo b = blas_from_maps(maps_with({"/opt/intel/oneapi/mkl/lib/intel64/libmkl_intel_lp64.so.2",
                                                 "/opt/intel/oneapi/mkl/lib/intel64/libmkl_core.so.2",
                                                 "/opt/intel/oneapi/mkl/lib/intel64/libmkl_gnu_thread.so.2"}));
    EXPECT_EQ(b.library, "mkl");
    EXPECT_EQ(b.path, "/opt/intel/oneapi/mkl/lib/intel64/libmkl_core.so.2");  // the first by name
}

TEST(BlasFromMaps, NumpysBundledOpenBlasIsNotTorchs) {
    const BlasInfo b = blas_from_maps(maps_with(
        {"/home/u/.local/lib/python3.11/site-packages/numpy.libs/libopenblas64_p-r0-15028c96.3.21.so",
         "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3"}));
    EXPECT_EQ(b.library, "reference");
}

TEST(BlasFromMaps, UnknownProviderAndDeletedFiles) {
    EXPECT_EQ(blas_from_maps(maps_with({"/usr/lib64/libblas.so.3 (deleted)"})).library, "libblas");
    EXPECT_EQ(blas_from_maps(maps_with({"/usr/lib64/libblas.so.3 (deleted)"})).path, "/usr/lib64/libblas.so.3");
    EXPECT_EQ(blas_from_maps(maps_with({})).library, "");  // nothing of a BLAS mapped
    EXPECT_EQ(blas_from_maps(maps_with({})).path, "");
}

TEST(BlasFromTorchConfig, ReadsBlasInfo) {
    EXPECT_EQ(blas_from_torch_config("  - Build settings: BLAS_INFO=mkl, BUILD_TYPE=Release,\n"), "mkl");
    EXPECT_EQ(blas_from_torch_config("BLAS_INFO=generic"), "generic");
    EXPECT_EQ(blas_from_torch_config("nothing"), "");
}

TEST(Cpuinfo, ModelAndPhysicalCores) {
    const std::string text =
        "processor\t: 0\nmodel name\t: AMD EPYC 7B13\nphysical id\t: 0\ncore id\t\t: 0\n\n"
        "processor\t: 1\nmodel name\t: AMD EPYC 7B13\nphysical id\t: 0\ncore id\t\t: 0\n\n"
        "processor\t: 2\nmodel name\t: AMD EPYC 7B13\nphysical id\t: 1\ncore id\t\t: 0\n";
    EXPECT_EQ(cpu_model_from_cpuinfo(text), "AMD EPYC 7B13");
    EXPECT_EQ(physical_cores_from_cpuinfo(text), 2);  // two hyperthreads of one core, one core of another package
    EXPECT_EQ(physical_cores_from_cpuinfo("processor\t: 0\nModel\t: Raspberry Pi 4\n"), std::nullopt);
    EXPECT_EQ(cpu_model_from_cpuinfo("processor\t: 0\nModel\t: Raspberry Pi 4\n"), "Raspberry Pi 4");
}

MachineInfo openblas_machine() {
    MachineInfo m;
    m.hostname = "a";
    m.cpu_model = "AMD EPYC";
    m.logical_cores = 2;
    m.physical_cores = 2;
    m.usable_cores = 2;
    m.blas = {"openblas", "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblasp-r0.3.21.so",
              "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Zen MAX_THREADS=64", 2};
    m.torch_version = "1.13.0a0";
    m.intra_op_threads = 1;
    m.inter_op_threads = 1;
    m.env_known = true;
    for (const char* var : kMachineEnvVars) m.env[var] = std::nullopt;
    return m;
}

std::vector<std::string> fields(const std::vector<MachineDifference>& ds) {
    std::vector<std::string> out;
    for (const MachineDifference& d : ds) out.push_back(d.field);
    return out;
}

TEST(CompareMachines, IdenticalMachinesGiveNoWarning) {
    MachineInfo b = openblas_machine();
    b.hostname = "b";             // not compared
    b.torch_version = "1.13.0";   // the same release as 1.13.0a0
    EXPECT_TRUE(compare_machines(openblas_machine(), b).empty());
    EXPECT_EQ(machines_text({openblas_machine(), b, "original", "replay"}).find("warning"), std::string::npos);
}

TEST(CompareMachines, EachDifferingFieldIsNamed) {
    const MachineInfo a = openblas_machine();
    MachineInfo b = openblas_machine();
    b.blas = {"reference", "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3", "", std::nullopt};
    b.intra_op_threads = 2;
    b.logical_cores = 4;
    b.torch_version = "2.1.0";
    b.env["OPENBLAS_NUM_THREADS"] = "1";
    b.env["OMP_WAIT_POLICY"] = "PASSIVE";  // how idle OpenMP threads wait moves a step's time too
    const std::vector<MachineDifference> ds = compare_machines(a, b);
    EXPECT_EQ(fields(ds), (std::vector<std::string>{"logical_cores", "blas", "torch_version", "intra_op_threads",
                                                     "OPENBLAS_NUM_THREADS", "OMP_WAIT_POLICY"}));
    EXPECT_EQ(machine_warning(ds[1], "original", "replay"),
              "warning: machines differ: blas openblas (original) vs reference (replay)");
    EXPECT_EQ(machine_warning(ds[4], "original", "replay"),
              "warning: machines differ: OPENBLAS_NUM_THREADS unset (original) vs 1 (replay)");
    const std::string text = machines_text({a, b, "original", "replay"});
    EXPECT_NE(text.find("  machine (original): host a, AMD EPYC, 2 logical / 2 physical / 2 usable cores, BLAS openblas 2 threads"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("  machine (replay): "), std::string::npos);
    EXPECT_NE(text.find("  warning: machines differ: intra_op_threads 1 (original) vs 2 (replay)\n"), std::string::npos);
}

TEST(CompareMachines, SameLibraryOtherBuildOrThreads) {
    MachineInfo b = openblas_machine();
    b.blas.path = "/usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblaso-r0.3.21.so";
    b.blas.config = "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64";
    b.blas.threads = 1;
    EXPECT_EQ(fields(compare_machines(openblas_machine(), b)),
              (std::vector<std::string>{"blas_path", "blas_config", "blas_threads"}));
}

TEST(CompareMachines, UnknownFieldsAreNotCompared) {
    MachineInfo old;  // what a schema-1 meta.json gives: no BLAS, no environment
    old.cpu_model = "AMD EPYC";
    old.intra_op_threads = 1;
    EXPECT_TRUE(compare_machines(old, openblas_machine()).empty());
    EXPECT_EQ(machines_text({std::nullopt, openblas_machine(), "A", "B"}).find("warning"), std::string::npos);
}

TEST(MachineFromMeta, ReadsTheMachineObjectAndRoundTrips) {
    JsonWriter w;
    w.begin_object().field("workload", "mlp").key("machine");
    write_machine_json(w, openblas_machine());
    w.end_object();
    const std::string path = testing::scratch_file("machine_info", "meta.json", w.str());
    const std::optional<MachineInfo> m = read_machine_from_meta(path);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->blas.library, "openblas");
    EXPECT_EQ(m->blas.threads, 2);
    EXPECT_EQ(m->physical_cores, 2);
    EXPECT_TRUE(m->env_known);
    EXPECT_TRUE(compare_machines(*m, openblas_machine()).empty());
    EXPECT_EQ(machine_summary(*m), machine_summary(openblas_machine()));
}

TEST(MachineFromMeta, SchemaOneTopLevelKeys) {
    const std::string path = testing::scratch_file(
        "machine_info_v1", "meta.json",
        R"({"meta_schema_version": 1, "cpu_model": "AMD EPYC", "cpu_count": 2, "cpu_affinity_count": 2,
            "torch_version": "1.13.0a0", "intra_op_threads": 1, "inter_op_threads": 1, "hostname": "h"})");
    const std::optional<MachineInfo> m = read_machine_from_meta(path);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->cpu_model, "AMD EPYC");
    EXPECT_EQ(m->logical_cores, 2);
    EXPECT_EQ(m->intra_op_threads, 1);
    EXPECT_TRUE(m->blas.library.empty());
    EXPECT_FALSE(m->env_known);
    EXPECT_NE(machine_summary(*m).find("BLAS unknown"), std::string::npos);
}

TEST(MachineFromMeta, NoneAndBadTypes) {
    EXPECT_FALSE(read_machine_from_meta(testing::scratch_file("machine_info_none", "meta.json", R"({"workload": "x"})")));
    EXPECT_FALSE(read_machine_from_meta(""));
    const std::string bad =
        testing::scratch_file("machine_info_bad", "meta.json", R"({"machine": {"blas": {"library": 3}}})");
    try {
        read_machine_from_meta(bad);
        FAIL() << "a number as the BLAS library was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("machine.blas.library"), std::string::npos) << e.what();
    }
}

TEST(DescribeThisProcess, ReadsProcAndTheEnvironment) {
    const MachineInfo m = describe_this_process();
    EXPECT_FALSE(m.cpu_model.empty());
    EXPECT_GE(m.logical_cores.value_or(0), 1);
    EXPECT_GE(m.usable_cores.value_or(0), 1);
    EXPECT_TRUE(m.env_known);
    EXPECT_EQ(m.env.size(), std::size(kMachineEnvVars));
}

}  // namespace
}  // namespace mimic
