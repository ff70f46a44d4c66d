// op_faults.json, which `mimic record` writes next to meta.json: the minor
// page faults each top-level operator of the original took in the profiled
// call of the step, by ET node id (python/mimic_record/fault_probe.py). A
// replay gives each operator that many fresh pages (replay/timing/fresh_page_allocator.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

namespace mimic {

struct OpFaults {
    std::unordered_map<uint64_t, int64_t> by_node;  // ET node id -> faults
    int64_t total = 0;                              // over the paired operators
};

// Reads the file; throws mimic::Error naming the file and field when it is
// not JSON, or a pair is not [node id, faults >= 0].
OpFaults read_op_faults(const std::string& path);

// The op_faults.json in the directory of `meta_path`, if there is one.
std::optional<OpFaults> read_op_faults_beside(const std::string& meta_path);

}  // namespace mimic
