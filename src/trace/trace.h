// The in-memory trace every reader fills and every tool reads: flat arrays
// indexed by position, strings interned. No I/O and no torch here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "support/column_allocator.h"
#include "support/interner.h"
#include "trace/ids.h"
#include "trace/node.h"
#include "trace/value.h"

namespace mimic {

// KinetoProfile: built from a profiler trace alone (io/kineto/profile_skeleton.h).
enum class TraceFormat : uint8_t { PyTorchEt, Chakra, KinetoProfile, Unknown };

struct ProcessGroup {
    std::string name;     // pg_name
    std::string desc;     // pg_desc
    std::string backend;  // backend_config, e.g. "cuda:nccl", "gloo"
    std::vector<int64_t> ranks;  // empty means all ranks
    int64_t size = 0;
};

// A torch.distributed call the recorder saw Python make in the traced
// iteration (meta.json "python_collectives", in call order). Torch 1.13's ET
// shows such a call as an opaque c10d op, or only as a gloo:* label
// (all_to_all_single), so the group, splits and async flag live here.
struct PythonCollective {
    std::string op;       // as torch.distributed names it: "all_reduce", "all_to_all_single"...
    std::string pg_name;  // "" when not recorded
    bool async_op = false;
    std::vector<int64_t> input_split_sizes;   // empty: equal splits
    std::vector<int64_t> output_split_sizes;
    std::string reduce_op;  // "SUM", "MAX"... ("" when not a reduction)
};

// Host timing of a node, from a linked profiler trace (or a Chakra trace).
struct NodeTiming {
    double start_us = -1;      // profiler clock; < 0 when the node was not linked
    double duration_us = 0;    // inclusive
    double self_us = 0;        // exclusive of linked children
    uint64_t thread = 0;       // profiler thread id
    // The median inclusive duration over the profiled iterations that
    // repeat the linked one (link/iteration_repeats.h), and how many there
    // were, the linked one included: 1 when the profile has no repeat.
    double median_duration_us = 0;
    uint32_t iterations = 0;
    bool linked() const { return start_us >= 0; }
    // What the op takes, as a reference: the median where repeats were found.
    double typical_duration_us() const { return iterations > 1 ? median_duration_us : duration_us; }
};

// Device work (a kernel, memcpy or memset) tied to the host op that launched it.
struct DeviceEvent {
    StrId name;
    StrId category;  // "kernel", "gpu_memcpy", "gpu_memset"
    NodeIndex launcher = kNoNode;
    double start_us = 0;
    double duration_us = 0;
    int64_t device = -1;
    int64_t stream = -1;
    int64_t correlation = -1;
    StrId process_group;  // "Process Group Name" of a collective kernel, else empty
};

struct TraceWarning {
    std::string message;
};

class Trace {
public:
    // Header
    std::string source_path;
    TraceFormat format = TraceFormat::Unknown;
    std::string schema_version;
    int64_t pid = 0;
    std::string time;
    int64_t start_ts = 0;
    int64_t finish_ts = 0;
    int64_t rank = -1;        // -1 when unknown
    int64_t world_size = -1;  // -1 when unknown
    // Where the rank came from, most trusted first: "trace" (the file says),
    // "meta.json" (a recording's), "distributedInfo" (its Kineto profile's),
    // "file name" (rank3, rank-3, .3.); "" when unknown.
    std::string rank_source;
    std::vector<ProcessGroup> process_groups;
    std::vector<PythonCollective> python_collectives;  // from a recording's meta.json, else empty
    std::vector<Attr> metadata_attrs;  // Chakra GlobalMetadata attrs beyond the version
    // A `mimic cut` of a bigger trace: the tensors (tensor id, storage id) its
    // region made that the full trace read after the region ("mimic_cut":
    // {"live_out": [[id, storage], ...]}). A replay keeps them to the end of
    // the iteration, as the full trace's later readers (backward) kept them,
    // so the region allocates on the memory it had inside the full replay.
    std::vector<std::pair<uint64_t, uint64_t>> live_out_tensors;
    // Top-level ops of the trace that the linked profile shows inside an op
    // the trace does not hold (one the observer failed to write:
    // io/pytorch_et/failed_records.h): node id -> a key of that op. They
    // were called from C++, one after another inside it, so the time between
    // two of them is not the host time a gap between top-level ops is, and
    // the time after the last held the op's exit (and the observer's failure).
    std::unordered_map<uint64_t, uint64_t> unrecorded_callers;

    // Columns
    StringInterner strings;
    Column<Node> nodes;
    Column<Value> values;
    Column<TensorMeta> tensors;
    Column<int64_t> dims;
    Column<Attr> attrs;
    Column<NodeId> edges;
    std::vector<NodeTiming> timing;  // empty, or one per node once a profile is linked
    std::vector<DeviceEvent> device_events;
    std::vector<TraceWarning> warnings;

    // Derived indexes; valid after finalize(). A parent link that names no node of
    // the trace, or a chain of parents that loops (the root's link to itself
    // aside), is dropped with a warning, or with ParentLinks::Fail throws
    // mimic::Error naming the first such node and `parent_field`.
    enum class ParentLinks : uint8_t { CutWithWarning, Fail };
    void finalize(ParentLinks bad_links = ParentLinks::CutWithWarning, const char* parent_field = "parent");
    NodeIndex find(NodeId id) const;
    // Children of a node in execution order (by id), as positions.
    const NodeIndex* children_begin(NodeIndex n) const { return child_list_.data() + child_offsets_[n.value]; }
    const NodeIndex* children_end(NodeIndex n) const { return child_list_.data() + child_offsets_[n.value + 1]; }
    size_t child_count(NodeIndex n) const { return child_offsets_[n.value + 1] - child_offsets_[n.value]; }
    // All nodes in execution order: sorted by id, which the observer assigns at op start.
    const std::vector<NodeIndex>& execution_order() const { return order_; }
    NodeIndex parent_of(NodeIndex n) const { return parent_index_[n.value]; }

    // Accessors
    std::string_view str(StrId id) const { return strings.view(id); }
    std::string_view name(const Node& n) const { return strings.view(n.name); }
    const Value* value_ptr(ValueRange r, uint32_t i) const { return &values[r.begin + i]; }
    const TensorMeta& tensor(const Value& v) const { return tensors[v.payload.index]; }
    const int64_t* shape(const TensorMeta& t) const { return dims.data() + t.dims_begin; }
    const int64_t* strides(const TensorMeta& t) const { return dims.data() + t.dims_begin + t.rank; }
    const Attr* find_attr(const Node& n, std::string_view name) const;

    void warn(std::string message) { warnings.push_back({std::move(message)}); }

private:
    std::unordered_map<uint64_t, uint32_t> index_of_id_;
    std::vector<uint32_t> child_offsets_;
    std::vector<NodeIndex> child_list_;
    std::vector<NodeIndex> order_;
    std::vector<NodeIndex> parent_index_;
};

// Calls fn(index into Trace::tensors) for every tensor value of a range, in
// order, lists flattened, undefined tensors included.
template <typename Fn>
void for_each_tensor_index(const Trace& trace, ValueRange range, Fn&& fn, int depth = 0) {
    if (depth > 64) return;
    for (uint32_t i = 0; i < range.count; ++i) {
        const Value& v = trace.values[range.begin + i];
        if (v.kind == ValueKind::Tensor) fn(v.payload.index);
        else if (v.kind == ValueKind::List) for_each_tensor_index(trace, v.payload.range, fn, depth + 1);
    }
}

// Gives `t` (a tensor of `trace` without strides) the `t.rank` strides given:
// its shape and the strides, one after the other in Trace::dims, as a trace
// with strides keeps them.
void set_strides(Trace& trace, TensorMeta& t, const int64_t* strides);

// Nodes of the subtree rooted at each node (the node included), by index:
// a node's subtree is the run of that many positions from its own in
// execution order (children start after their parent, before its next sibling).
std::vector<uint32_t> subtree_sizes(const Trace& trace);

// Classifies a node by its name and schema (shared by every reader).
NodeKind classify_node(std::string_view name, std::string_view op_schema, int32_t scope);

}  // namespace mimic
