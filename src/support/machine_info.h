// The machine a trace was recorded or replayed on, as far as it shapes op
// times: CPU, cores, the BLAS library actually loaded (read from
// /proc/self/maps at run time, never assumed from the build), torch's
// threads, the thread variables of the environment and the torch version.
// meta.json's `machine` object holds the recorder's (python/mimic_record/
// machine.py writes the same fields); `mimic replay` describes its own
// process the same way (replay/replay_machine.h adds what needs libtorch) and
// `replay` and `diff` print both and one warning per field that differs.
// No libtorch here, so that `diff` can use it.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mimic {

class JsonWriter;

struct BlasInfo {
    // "openblas", "blis", "mkl", "atlas", "flexiblas", "reference" (netlib's
    // libblas), "libblas" (a libblas.so of unknown provider), or, when no BLAS
    // file is mapped, what torch's build says (BLAS_INFO: "mkl" linked
    // statically in a pip wheel). "" unknown.
    std::string library;
    std::string path;    // the mapped file, symlinks resolved; "" when none is mapped
    std::string config;  // openblas_get_config() or BLIS's version string; "" when it has none
    std::optional<int64_t> threads;  // the library's own thread count (OpenBLAS, BLIS, MKL)
};

// The thread variables recorded, in this order: how many threads, and how
// OpenMP's idle threads wait (libgomp's policy and spin count, Intel OpenMP's
// block time), which moved one 2-thread step from 6.4 to 8.7-11.1 ms here.
inline constexpr const char* kMachineEnvVars[] = {"OMP_NUM_THREADS",   "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                                                  "OPENBLAS_CORETYPE", "OMP_WAIT_POLICY",      "GOMP_SPINCOUNT",
                                                  "KMP_BLOCKTIME"};

struct MachineInfo {
    std::string hostname;   // shown, never compared: two hosts can be one kind of machine
    std::string cpu_model;  // "" unknown
    std::optional<int64_t> logical_cores, physical_cores;
    std::optional<int64_t> usable_cores;  // the process's CPU affinity
    BlasInfo blas;
    std::string torch_version;  // "" unknown
    std::optional<int64_t> intra_op_threads, inter_op_threads;
    // Each of kMachineEnvVars: its value, nullopt when unset. Empty map with
    // env_known false: not recorded (a meta.json written before machine).
    bool env_known = false;
    std::map<std::string, std::optional<std::string>> env;
};

// One field whose known values differ: `field` as in meta.json (blas,
// intra_op_threads, OMP_NUM_THREADS...), each side's value as printed.
struct MachineDifference {
    std::string field, a, b;
};

// Two machines to print side by side: the original and the replay, or a diff's A and B.
struct MachinePair {
    std::optional<MachineInfo> a, b;
    std::string label_a, label_b;  // "original" / "replay", "A" / "B": text and JSON keys
};

// /proc/cpuinfo's text: the first model name ("" when none), and the number
// of distinct (physical id, core id) pairs (nullopt when it gives none).
std::string cpu_model_from_cpuinfo(std::string_view cpuinfo);
std::optional<int64_t> physical_cores_from_cpuinfo(std::string_view cpuinfo);

// /proc/self/maps' text: the BLAS library mapped into the process and its
// file (library and path only). A mapped libblas.so.3, the file libtorch
// links (update-alternatives' choice on Debian), names the library by its
// directory: .../openblas-pthread/libblas.so.3 is OpenBLAS, .../blas/ the
// reference BLAS, even with OpenBLAS mapped too (liblapack.so.3's provider
// is chosen apart from libblas's). Without one, a library's own file
// (libopenblas*, libblis*, libmkl_*, libatlas*, as in pip wheels) names it.
// Files of numpy's or scipy's bundled libraries are left out (torch does not
// call them). Paths are not resolved here. Library "" when nothing of a BLAS
// is mapped.
BlasInfo blas_from_maps(std::string_view maps);
// torch's build configuration (at::show_config()): BLAS_INFO's value, "" when absent.
std::string blas_from_torch_config(std::string_view config);

// This process, without torch's own facts (torch_version and threads stay
// unknown): /proc/cpuinfo, std::thread::hardware_concurrency, the CPU
// affinity, the environment, and the BLAS mapped now with its thread count
// and configuration asked of the library itself. Call it after torch ran a
// GEMM, so that a BLAS loaded on first use is mapped.
MachineInfo describe_this_process();

// meta.json's `machine` object; for a meta.json written before it (schema 1),
// the top-level keys it had instead (cpu_model, cpu_count, cpu_affinity_count,
// torch_version, intra_op_threads, inter_op_threads, hostname). nullopt when
// it has neither. Throws mimic::Error naming `path` and the field on a value
// of the wrong type.
std::optional<MachineInfo> machine_from_meta(const simdjson::dom::object& meta, const std::string& path);
// The same from a meta.json file ("" path: nullopt).
std::optional<MachineInfo> read_machine_from_meta(const std::string& meta_path);
// A `machine` object as write_machine_json writes it (a replay report's).
std::optional<MachineInfo> machine_from_json(const simdjson::dom::element& machine, const std::string& path);

// Every field known on both sides whose values differ, in a fixed order:
// cpu_model, logical_cores, physical_cores, usable_cores, blas, blas_path and
// blas_config (for the same library), blas_threads, torch_version (its
// release number: 1.13.0a0 is 1.13.0), intra_op_threads, inter_op_threads,
// then the environment's thread variables (unset is a value). The hostname
// is not compared.
std::vector<MachineDifference> compare_machines(const MachineInfo& a, const MachineInfo& b);

// One line: "AMD EPYC, 2 logical / 2 physical cores (2 usable), BLAS openblas ...".
std::string machine_summary(const MachineInfo& m);
// "warning: machines differ: blas openblas (original) vs reference (replay)".
std::string machine_warning(const MachineDifference& d, const std::string& label_a, const std::string& label_b);
// One line per machine ("machine (original): ..." or "... unknown (no meta.json)"),
// then one warning line per difference; each line starts with `indent`.
std::string machines_text(const MachinePair& p, std::string_view indent = "  ");

// meta.json's `machine` object (null for unknown values).
void write_machine_json(JsonWriter& w, const MachineInfo& m);
// {"<label_a>": machine or null, "<label_b>": ..., "differences": [{"field", "<label_a>", "<label_b>"}...]}
void write_machines_json(JsonWriter& w, const MachinePair& p);

}  // namespace mimic
