// The cost database `mimic calibrate` writes and `mimic predict` reads: the
// machine it was measured on, the host overheads fitted on it, and each
// operator signature's measured time. A JSON file, versioned:
//
//   {"format": "mimic-costs", "version": 1,
//    "machine": {...meta.json's machine fields...},
//    "host": {"python_op_us": 6.1, "autograd_op_us": 3.2, "fitted_on": [...]},
//    "ops": [{"signature": "aten::mm(float[128,256],float[256,256])",
//             "name": "aten::mm", "family": "gemm", "flops": 16777216,
//             "bytes": 524288, "time_us": 41.5, "samples": 5, "threads": 2}, ...]}
//
// A second calibrate on the same machine adds to it; a signature measured
// again keeps the newer time.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/op_family.h"
#include "support/machine_info.h"

namespace mimic::model {

// Version 2 counts an embedding lookup's bytes as the rows it reads, not its
// whole table (op_facts); a version-1 database's lookups keep their times for
// their own signatures but stay out of the bandwidth fits.
inline constexpr int kCostDbVersion = 2;

struct OpCost {
    std::string signature;
    std::string name;
    OpFamily family = OpFamily::Other;
    int64_t flops = -1;
    uint64_t bytes = 0;
    double time_us = 0;
    int samples = 0;
    int threads = 0;  // intra-op threads it was measured with
    // Measured in calibrate's shape sweep rather than in a trace's step: its
    // inputs came cold from memory, not from the op before it.
    bool from_sweep = false;
    // False when `bytes` was counted another way than op_facts counts it now
    // (an embedding lookup in a version-1 database): not a point of any fit.
    bool bytes_current = true;
};

// Host time the original spends per top-level op beyond the op itself, in
// its untraced runs (Python and the dispatcher before each op called from
// Python; the autograd engine before each backward op).
struct HostCosts {
    double python_op_us = 0;
    double autograd_op_us = 0;
    // Per op name (the gap before an op depends on the Python or engine code
    // that calls it): "aten::mm" for calls from Python, "aten::mm backward"
    // for the autograd engine's. Outliers trimmed (IQR), then the mean.
    std::map<std::string, double> per_op_us;
    // Page faults: an op whose new output is large enough for glibc to map
    // it afresh (kFreshOutputBytes and up) faults on a share of its pages in
    // the original's steady state; each fault costs fault_us on this machine.
    static constexpr uint64_t kFreshOutputBytes = 512 * 1024;
    double fresh_page_share = 0;  // fitted on recordings' counted faults (op_gaps.json)
    double fault_us = 0;          // measured here: first touch of a fresh 4 KiB page
    std::vector<std::string> fitted_on;  // recordings whose untraced time fitted them
    bool fitted() const { return !fitted_on.empty(); }
    static std::string key(const std::string& name, bool backward) { return backward ? name + " backward" : name; }
    // The host time before one op: its name's, else its kind's.
    double before(const std::string& name, bool backward) const {
        auto it = per_op_us.find(key(name, backward));
        if (it != per_op_us.end()) return it->second;
        return backward ? autograd_op_us : python_op_us;
    }
};

struct CostDb {
    MachineInfo machine;
    bool has_machine = false;
    HostCosts host;
    std::map<std::string, OpCost> ops;  // by key_of(signature, threads)
    std::string source;                 // the file it was read from

    // A signature is measured once per intra-op thread count.
    static std::string key_of(const std::string& signature, int threads) { return signature + "@" + std::to_string(threads); }
    void add(const OpCost& cost) { ops[key_of(cost.signature, cost.threads)] = cost; }
    const OpCost* find(const std::string& signature, int threads) const {
        auto it = ops.find(key_of(signature, threads));
        return it == ops.end() ? nullptr : &it->second;
    }
    // Thread counts the database has measurements for.
    std::vector<int> thread_counts() const;
};

// Throws mimic::Error naming the file and field for a file that is not a
// cost database of a version this mimic reads.
CostDb read_cost_db(const std::string& path);
void write_cost_db(const CostDb& db, const std::string& path);

}  // namespace mimic::model
