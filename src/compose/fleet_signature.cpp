#include "compose/fleet_signature.h"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "analysis/categories.h"
#include "analysis/collectives.h"
#include "analysis/node_times.h"
#include "analysis/op_nesting.h"
#include "io/chakra/chakra_flops.h"
#include "io/chakra/chakra_values.h"
#include "model/op_signature.h"

namespace mimic::fleet {
namespace {

using analysis::OpCategory;

// Untimed traces without a cost database are timed at nominal rates of a
// present-day server CPU. Only shares enter a signature, and every trace of
// the fleet is timed alike, so the rates decide which family weighs more
// (a GEMM of F FLOPs against a copy of B bytes), not any absolute time.
constexpr double kNominalFlopsPerUs = 1e5;      // 100 GFLOP/s
constexpr double kNominalBytesPerUs = 1e4;      // 10 GB/s of memory traffic
constexpr double kNominalOpOverheadUs = 2.0;    // dispatch of one operator
constexpr double kNominalCommBytesPerUs = 5e3;  // 5 GB/s network
constexpr double kNominalCommLatencyUs = 10.0;

// Chakra's converter numbers the pieces of one op: "aten::copy_(0)", "(1)";
// op_family.h knows the op by its own name.
std::string_view base_name(std::string_view name) {
    if (name.empty() || name.back() != ')') return name;
    const size_t open = name.rfind('(');
    if (open == std::string_view::npos || open + 2 > name.size() - 1) return name;
    for (size_t i = open + 1; i + 1 < name.size(); ++i)
        if (name[i] < '0' || name[i] > '9') return name;
    return name.substr(0, open);
}

class SignatureBuilder {
public:
    SignatureBuilder(const Trace& trace, const SignatureOptions& options)
        : trace_(trace),
          options_(options),
          classes_(analysis::classify_nodes(trace)),
          nesting_(analysis::compute_op_nesting(trace, classes_)),
          times_(trace, analysis::time_source_of(trace)) {}

    Signature build() {
        Signature s;
        s.format = trace_.format == TraceFormat::Chakra ? "chakra" : "pytorch_et";
        s.schema = trace_.schema_version;
        const bool device = device_timed();
        s.time_source = time_source_name(device);
        for (NodeIndex n : nesting_.order) {
            if (!analysis::is_top_level_operator(nesting_, n) || !classes_[n.value].is_host_operator()) continue;
            add_op(n, !device, s);
        }
        // A Chakra trace made for a simulator (mimic generate, Chakra's own
        // generators) has no host operators: its device nodes are the work.
        if (s.ops == 0 && trace_.format == TraceFormat::Chakra)
            for (uint32_t i = 0; i < trace_.nodes.size(); ++i)
                if (classes_[i].on_device && classes_[i].category != OpCategory::Communication) add_op(NodeIndex(i), !device, s);
        if (device) add_device_time(s);
        add_collectives(s);
        return s;
    }

private:
    bool device_timed() const {
        if (times_.source() == analysis::TimeSource::Chakra) {
            for (size_t i = 0; i < trace_.nodes.size(); ++i)
                if (classes_[i].on_device && trace_.nodes[i].chakra_duration_us > 0) return true;
        }
        if (times_.source() == analysis::TimeSource::Profile)
            for (const DeviceEvent& e : trace_.device_events)
                if (e.duration_us > 0) return true;
        return false;
    }

    std::string time_source_name(bool device) const {
        switch (times_.source()) {
            case analysis::TimeSource::Profile: return device ? "profile_device" : "profile";
            case analysis::TimeSource::Chakra: return device ? "chakra_device" : "chakra";
            case analysis::TimeSource::None: break;
        }
        return options_.costs ? "estimated_costs" : "estimated";
    }

    size_t bucket_of(NodeIndex n) const {
        if (classes_[n.value].category == OpCategory::Communication) return kCommBucket;
        return static_cast<size_t>(model::family_of(base_name(trace_.name(trace_.nodes[n.value]))));
    }

    // A Chakra node's integer attribute, -1 when it has none.
    int64_t chakra_int(const Node& node, const char* name) const {
        if (trace_.format != TraceFormat::Chakra) return -1;
        const Attr* a = trace_.find_attr(node, name);
        return a && a->value.kind == ValueKind::Int && a->value.payload.i >= 0 ? a->value.payload.i : -1;
    }

    // FLOPs of a top-level op: a Chakra node's num_ops where written, else the
    // outermost op below it with a FLOP formula (linear, not also its addmm),
    // as `mimic convert` counts them.
    int64_t op_flops_below(NodeIndex top) {
        if (const int64_t n = chakra_int(trace_.nodes[top.value], "num_ops"); n >= 0) return n;
        int64_t flops = 0;
        bool any = false;
        stack_.assign(1, top);
        while (!stack_.empty()) {
            const NodeIndex n = stack_.back();
            stack_.pop_back();
            const int64_t f = op_flops(trace_, trace_.nodes[n.value]);
            if (f >= 0) {
                flops += f;
                any = true;
                continue;
            }
            for (const NodeIndex* c = trace_.children_begin(n); c != trace_.children_end(n); ++c) stack_.push_back(*c);
        }
        return any ? flops : -1;
    }

    // Bytes an op reads and writes: its tensors, else a Chakra node's tensor_size.
    uint64_t op_bytes(const Node& node) const {
        const uint64_t b = tensor_bytes(trace_, node.inputs) + tensor_bytes(trace_, node.outputs);
        if (b > 0) return b;
        const int64_t size = chakra_int(node, "tensor_size");
        return size > 0 ? static_cast<uint64_t>(size) : 0;
    }

    // One operator: its FLOPs, bytes and (unless the trace's device work is
    // charged instead) its time.
    void add_op(NodeIndex n, bool charge_time, Signature& s) {
        ++s.ops;
        const size_t bucket = bucket_of(n);
        // Communication's bytes and estimated time come from its collectives.
        if (bucket == kCommBucket) {
            if (charge_time && times_.timed()) s.time_us[bucket] += times_.duration_us(n);
            return;
        }
        const Node& node = trace_.nodes[n.value];
        const int64_t flops = op_flops_below(n);
        // Views only relabel memory: no bytes move.
        const bool view = bucket == static_cast<size_t>(model::OpFamily::View);
        const uint64_t bytes = view ? 0 : op_bytes(node);
        if (flops > 0) {
            s.flops[bucket] += static_cast<double>(flops);
            ++s.gemm_flops_hist[hist_bucket(static_cast<double>(flops), kGemmFlopsLog2Lo)];
        }
        s.bytes[bucket] += static_cast<double>(bytes);
        if (bytes > 0) ++s.tensor_bytes_hist[hist_bucket(static_cast<double>(bytes), kTensorBytesLog2Lo)];
        if (!charge_time) return;
        if (times_.timed()) {
            s.time_us[bucket] += times_.duration_us(n);
        } else if (options_.costs) {
            s.time_us[bucket] += options_.costs->estimate(model::op_facts(trace_, node)).time_us;
        } else {
            double t = kNominalOpOverheadUs;
            if (!view) t += std::max(flops > 0 ? static_cast<double>(flops) / kNominalFlopsPerUs : 0.0,
                                     static_cast<double>(bytes) / kNominalBytesPerUs);
            s.time_us[bucket] += t;
        }
    }

    // The host operator a Chakra device node belongs to: up its parents, else
    // the first host operator it depends on by data.
    NodeIndex chakra_launcher(NodeIndex n) const {
        NodeIndex up = trace_.parent_of(n);
        for (int depth = 0; depth < 64 && up != kNoNode && up != n; ++depth, up = trace_.parent_of(up))
            if (classes_[up.value].is_host_operator()) return up;
        const Node& node = trace_.nodes[n.value];
        for (uint32_t i = 0; i < node.data_deps.count; ++i) {
            const NodeIndex d = trace_.find(trace_.edges[node.data_deps.begin + i]);
            if (d != kNoNode && classes_[d.value].is_host_operator()) return d;
        }
        return kNoNode;
    }

    size_t bucket_of_launcher(NodeIndex launcher) const {
        if (launcher == kNoNode) return static_cast<size_t>(model::OpFamily::Other);
        const NodeIndex owner = nesting_.top_level_owner[launcher.value];
        return bucket_of(owner == kNoNode ? launcher : owner);
    }

    // Where the trace has device work, it is the work: host operators only
    // launch it, so time goes to the family of the op that launched each kernel.
    void add_device_time(Signature& s) const {
        if (times_.source() == analysis::TimeSource::Chakra) {
            for (uint32_t i = 0; i < trace_.nodes.size(); ++i) {
                if (!classes_[i].on_device) continue;
                const NodeIndex n(i);
                const NodeIndex launcher = chakra_launcher(n);
                const size_t bucket = classes_[i].category == OpCategory::Communication ? kCommBucket
                                      : launcher == kNoNode                              ? bucket_of(n)
                                                                                         : bucket_of_launcher(launcher);
                s.time_us[bucket] += static_cast<double>(trace_.nodes[i].chakra_duration_us);
            }
            return;
        }
        for (const DeviceEvent& e : trace_.device_events) {
            const bool nccl = trace_.str(e.name).rfind("nccl", 0) == 0;
            s.time_us[nccl ? kCommBucket : bucket_of_launcher(e.launcher)] += e.duration_us;
        }
    }

    // Collectives' messages, and in an untimed trace their time at nominal
    // rates. A trace that times its compute but not its collectives (Chakra
    // COMM nodes leave their duration, 0, to the simulator) gets no made-up
    // time for them: nominal network rates beside measured or device-spec
    // compute would decide the time shares by our guess. Their messages
    // still weigh in the byte share.
    void add_collectives(Signature& s) const {
        const std::vector<analysis::CollectiveCall> calls = analysis::find_collectives(trace_, classes_, nesting_, times_);
        bool untimed_comm = false;
        for (const analysis::CollectiveCall& c : calls) {
            ++s.collectives;
            s.bytes[kCommBucket] += static_cast<double>(c.bytes);
            if (!times_.timed())
                s.time_us[kCommBucket] += kNominalCommLatencyUs + static_cast<double>(c.bytes) / kNominalCommBytesPerUs;
            else if (times_.source() == analysis::TimeSource::Chakra && times_.duration_us(c.node) <= 0)
                untimed_comm = true;
        }
        if (untimed_comm) s.time_source += "+untimed_comm";
    }

    const Trace& trace_;
    const SignatureOptions& options_;
    std::vector<analysis::NodeClass> classes_;
    analysis::OpNesting nesting_;
    analysis::NodeTimes times_;
    std::vector<NodeIndex> stack_;
};

double sum(const std::array<double, kBuckets>& a) {
    double t = 0;
    for (double v : a) t += v;
    return t;
}

// The blocks of the feature vector and their weights. Every block is a
// distribution, so a distance of sqrt(2) * weight separates two traces that
// share nothing in it. Time and bytes weigh most: they are the breakdown a
// representative must reproduce. FLOPs only ever fall on GEMM-like families
// and the histograms refine rather than define a workload, so they weigh half.
constexpr double kTimeWeight = 1.0;
constexpr double kBytesWeight = 1.0;
constexpr double kFlopsWeight = 0.5;
constexpr double kHistWeight = 0.5;

template <size_t N, typename T>
void append_distribution(const std::array<T, N>& amounts, double weight, std::vector<double>& out) {
    double total = 0;
    for (T v : amounts) total += static_cast<double>(v);
    for (T v : amounts) out.push_back(total > 0 ? weight * static_cast<double>(v) / total : 0.0);
}

}  // namespace

const char* bucket_name(size_t bucket) {
    if (bucket == kCommBucket) return "communication";
    return model::family_name(static_cast<model::OpFamily>(bucket));
}

size_t hist_bucket(double value, int log2_lo) {
    if (!(value > 0)) return 0;
    const double b = std::floor((std::log2(value) - log2_lo) / 2);
    if (b <= 0) return 0;
    return std::min(kHistBuckets - 1, static_cast<size_t>(b));
}

std::string hist_bucket_label(size_t bucket, int log2_lo) {
    const int lo = log2_lo + 2 * static_cast<int>(bucket);
    return "2^" + std::to_string(lo) + ".." + (bucket + 1 == kHistBuckets ? std::string() : "2^" + std::to_string(lo + 2));
}

double Signature::total_time_us() const { return sum(time_us); }
double Signature::total_flops() const { return sum(flops); }
double Signature::total_bytes() const { return sum(bytes); }

Signature compute_signature(const Trace& trace, const SignatureOptions& options) {
    return SignatureBuilder(trace, options).build();
}

std::array<double, kBuckets> shares(const std::array<double, kBuckets>& amounts) {
    std::array<double, kBuckets> out{};
    const double total = sum(amounts);
    if (total > 0)
        for (size_t i = 0; i < kBuckets; ++i) out[i] = amounts[i] / total;
    return out;
}

std::vector<double> feature_vector(const Signature& s) {
    std::vector<double> v;
    v.reserve(3 * kBuckets + 2 * kHistBuckets);
    append_distribution(s.time_us, kTimeWeight, v);
    append_distribution(s.bytes, kBytesWeight, v);
    append_distribution(s.flops, kFlopsWeight, v);
    append_distribution(s.gemm_flops_hist, kHistWeight, v);
    append_distribution(s.tensor_bytes_hist, kHistWeight, v);
    return v;
}

}  // namespace mimic::fleet
