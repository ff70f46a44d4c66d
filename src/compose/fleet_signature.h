// A trace's signature for `mimic fleet`: where its time, FLOPs and bytes go
// by operator family, how much of it is communication, and histograms of
// its GEMM sizes and tensor sizes. Traces that do the same kind of work have
// signatures that lie close together whatever their length, so a fleet can
// be clustered on them (fleet_cluster.h).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "model/cost_model.h"
#include "model/op_family.h"
#include "trace/trace.h"

namespace mimic::fleet {

// The op families of src/model/op_family.h, then communication, which the
// analysis finds by category (collectives), not by an operator's name.
constexpr size_t kBuckets = static_cast<size_t>(model::OpFamily::kCount) + 1;
constexpr size_t kCommBucket = kBuckets - 1;
const char* bucket_name(size_t bucket);  // "gemm" ... "other", "communication"

// log2 histograms: bucket b holds values in [2^(lo + 2b), 2^(lo + 2b + 2)),
// the first and last also everything below and above.
constexpr size_t kHistBuckets = 16;
constexpr int kGemmFlopsLog2Lo = 10;  // 1 kFLOP .. >= 1 TFLOP
constexpr int kTensorBytesLog2Lo = 6; // 64 B .. >= 64 GiB
size_t hist_bucket(double value, int log2_lo);
std::string hist_bucket_label(size_t bucket, int log2_lo);  // "2^10..2^12"

struct Signature {
    std::string format;       // "pytorch_et", "chakra"
    std::string schema;
    // Where the times come from: "profile" / "chakra" (host operators'
    // times), "profile_device" / "chakra_device" (the device work each
    // operator launched), "estimated" (nominal rates, see fleet_signature.cpp)
    // or "estimated_costs" (the cost model of a `mimic calibrate` database);
    // "+untimed_comm" when the trace times its compute but not its
    // collectives (Chakra COMM nodes leave that to the simulator): their
    // time share is then 0 and they count by bytes alone.
    std::string time_source;
    uint64_t ops = 0;  // top-level operators counted
    std::array<double, kBuckets> time_us{};
    std::array<double, kBuckets> flops{};
    std::array<double, kBuckets> bytes{};  // operators' tensor bytes; communication: collective messages
    uint64_t collectives = 0;
    std::array<uint64_t, kHistBuckets> gemm_flops_hist{};    // per call with a FLOP formula
    std::array<uint64_t, kHistBuckets> tensor_bytes_hist{};  // per call: its inputs' and outputs' bytes

    double total_time_us() const;
    double total_flops() const;
    double total_bytes() const;
};

struct SignatureOptions {
    // Untimed traces: times from this cost model when set (op by op, as
    // `mimic predict` costs them), else from nominal rates.
    const model::CostModel* costs = nullptr;
};

// `trace` must be finalized (load_trace does it), with its profile linked
// when it has one.
Signature compute_signature(const Trace& trace, const SignatureOptions& options = {});

// The vector clustering works on: each block a distribution that sums to 1
// (or all zeros when the trace has none of it), each scaled by its weight
// (kFeatureBlocks in fleet_signature.cpp says which and why).
std::vector<double> feature_vector(const Signature& s);

// A trace's share per bucket (time, FLOPs or bytes), summing to 1 or all 0.
std::array<double, kBuckets> shares(const std::array<double, kBuckets>& amounts);

}  // namespace mimic::fleet
