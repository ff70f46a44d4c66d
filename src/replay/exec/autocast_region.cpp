#include "replay/exec/autocast_region.h"

#include <ATen/autocast_mode.h>

#include <string_view>
#include <unordered_set>

#include "replay/exec/dtypes.h"

namespace mimic::replay {
namespace {

bool is_cast(std::string_view name) { return name == "aten::to" || name == "aten::_to_copy"; }

// The dtype of a cast's first output, if it is a tensor of a known dtype.
c10::ScalarType cast_target(const Trace& trace, const Node& cast) {
    if (cast.outputs.count == 0) return c10::ScalarType::Undefined;
    const Value& out = *trace.value_ptr(cast.outputs, 0);
    if (out.kind != ValueKind::Tensor) return c10::ScalarType::Undefined;
    return parse_dtype(trace.str(trace.tensor(out).dtype)).value_or(c10::ScalarType::Undefined);
}

}  // namespace

c10::ScalarType autocast_dtype(const Trace& trace, NodeIndex node) {
    const Node& n = trace.nodes[node.value];
    const std::string_view name = trace.name(n);
    // Asked of every planned step: most have no children to look at.
    if (trace.child_count(node) == 0 || is_cast(name)) return c10::ScalarType::Undefined;
    std::unordered_set<uint64_t> inputs;  // tensor ids the node was given
    for_each_tensor_index(trace, n.inputs, [&](uint32_t t) { inputs.insert(trace.tensors[t].tensor_id); });
    bool cast_an_input = false, called_again = false;
    c10::ScalarType reduced = c10::ScalarType::Undefined;
    for (const NodeIndex* c = trace.children_begin(node); c != trace.children_end(node); ++c) {
        const Node& child = trace.nodes[c->value];
        const std::string_view child_name = trace.name(child);
        if (child_name == name) {
            called_again = cast_an_input;  // the second call comes after the casts
            continue;
        }
        if (!is_cast(child_name) || child.inputs.count == 0) continue;
        const Value& source = *trace.value_ptr(child.inputs, 0);
        if (source.kind != ValueKind::Tensor || !inputs.count(trace.tensor(source).tensor_id)) continue;
        cast_an_input = true;
        const c10::ScalarType target = cast_target(trace, child);
        if (target == c10::kBFloat16 || target == c10::kHalf) reduced = target;
    }
    if (!called_again) return c10::ScalarType::Undefined;
    return reduced == c10::ScalarType::Undefined ? c10::kBFloat16 : reduced;
}

AutocastScope::AutocastScope(c10::ScalarType dtype)
    : was_enabled_(at::autocast::is_cpu_enabled()), previous_dtype_(at::autocast::get_autocast_cpu_dtype()) {
    // The dtype first: torch 1.13 refuses any but bfloat16 on the CPU (a GPU
    // trace's float16 region), and then nothing has changed yet.
    at::autocast::set_autocast_cpu_dtype(dtype);
    at::autocast::set_cpu_enabled(true);
}

AutocastScope::~AutocastScope() {
    at::autocast::set_cpu_enabled(was_enabled_);
    at::autocast::set_autocast_cpu_dtype(previous_dtype_);
    if (!was_enabled_) at::autocast::clear_cache();
}

}  // namespace mimic::replay
