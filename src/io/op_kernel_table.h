// Which operators this machine's libtorch can run on the CPU, as a table that
// `mimic-torch list-ops` writes at build time. Commands that only need to know
// (analyze's replayable share) read the table instead of loading libtorch,
// whose start-up alone costs about a second here.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>

namespace mimic {

enum class OpKernel : unsigned char {
    NotRegistered,  // the dispatcher does not know the name and overload
    NoCpuKernel,    // registered, but with no CPU or composite kernel (e.g. cuDNN ops)
    CpuKernel,
};

// "ns::name.overload(args) -> ret" -> "ns::name.overload" ("ns::name" when there is
// no overload); what the dispatcher keys operators by.
std::string_view operator_key_of_schema(std::string_view op_schema);

class OpKernelTable {
public:
    // Reads a table; throws mimic::Error naming the file and line on bad input.
    static OpKernelTable load(const std::string& path);
    // The table beside this executable (mimic-cpu-ops.tsv), or $MIMIC_OP_TABLE;
    // an empty table when there is none.
    static OpKernelTable load_default();

    bool empty() const { return ops_.empty(); }
    size_t size() const { return ops_.size(); }
    const std::string& libtorch_version() const { return libtorch_version_; }
    const std::string& source() const { return source_; }
    OpKernel lookup(std::string_view op_schema) const;

    // Writing side (mimic-torch list-ops).
    void add(std::string key, OpKernel kernel) { ops_[std::move(key)] = kernel; }
    void set_libtorch_version(std::string v) { libtorch_version_ = std::move(v); }
    std::string to_text() const;

private:
    std::unordered_map<std::string, OpKernel> ops_;
    std::string libtorch_version_;
    std::string source_;
};

}  // namespace mimic
