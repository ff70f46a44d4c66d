#include "model/op_signature.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <vector>

#include "analysis/comm_values.h"
#include "io/chakra/chakra_flops.h"
#include "io/chakra/chakra_values.h"
#include "model/op_family.h"
#include "trace/split_pieces.h"

namespace mimic::model {
namespace {

void append_value(const Trace& trace, const Value& v, std::string& out, int depth) {
    switch (v.kind) {
        case ValueKind::Tensor: {
            const TensorMeta& t = trace.tensor(v);
            if (t.undefined) {
                out += "undef";
                return;
            }
            out += trace.str(t.dtype);
            out += '[';
            const int64_t* dims = trace.shape(t);
            for (uint16_t d = 0; d < t.rank; ++d) {
                if (d) out += ',';
                out += std::to_string(dims[d]);
            }
            out += ']';
            if (t.has_strides) {
                // A non-contiguous layout costs differently: note the strides then.
                const int64_t* strides = trace.strides(t);
                int64_t expect = 1;
                bool contiguous = true;
                for (int d = t.rank - 1; d >= 0; --d) {
                    if (dims[d] != 1 && strides[d] != expect) contiguous = false;
                    expect *= dims[d];
                }
                if (!contiguous) {
                    out += 's';
                    for (uint16_t d = 0; d < t.rank; ++d) out += (d ? "," : "") + std::to_string(strides[d]);
                }
            }
            return;
        }
        case ValueKind::Int: out += std::to_string(v.payload.i); return;
        case ValueKind::Double: out += std::to_string(v.payload.d); return;
        case ValueKind::Bool: out += v.payload.b ? "True" : "False"; return;
        case ValueKind::String: out += '"' + std::string(trace.str(v.payload.str)) + '"'; return;
        case ValueKind::None: out += "None"; return;
        case ValueKind::List: {
            out += '[';
            if (depth > 8) {
                out += "...";
            } else {
                for (uint32_t i = 0; i < v.payload.range.count; ++i) {
                    if (i) out += ',';
                    append_value(trace, trace.values[v.payload.range.begin + i], out, depth + 1);
                }
            }
            out += ']';
            return;
        }
        default: out += trace.str(v.type); return;
    }
}

// The bytes an embedding lookup moves: its indices, offsets and per-sample
// weights, the rows its indices name and its output, not its whole table.
// fbgemm's table-batched lookups take every table (and the optimizer state)
// as flat tensors of hundreds of millions of elements, of which a step
// touches a few thousand rows. Known by argument name, so nullopt when the
// schema does not name every argument or the op is not a forward lookup.
std::optional<uint64_t> embedding_lookup_bytes(const Trace& trace, const Node& node) {
    const std::string_view name = split_piece_base(trace.name(node));
    if (family_of(name) != OpFamily::Embedding || name.find("backward") != std::string_view::npos) return std::nullopt;
    const std::vector<std::string_view> args = analysis::schema_argument_names(trace.str(node.op_schema));
    if (args.empty() || args.size() != node.inputs.count) return std::nullopt;
    uint64_t read = 0, indices = 0, bags = 0;
    bool has_indices = false;
    for (uint32_t i = 0; i < node.inputs.count; ++i) {
        const std::string_view arg = args[i];
        if (!analysis::embedding_batch_argument(arg)) continue;
        const ValueRange one{node.inputs.begin + i, 1};
        read += tensor_bytes(trace, one);
        for_each_tensor(trace, one, [&](const TensorMeta& t) {
            if (t.undefined) return;
            if (arg == "indices") indices += t.numel, has_indices = true;
            if (arg == "offsets") bags += t.numel > 1 ? t.numel - 1 : 1;  // B*T bags: an offset each and a last
        });
    }
    if (!has_indices) return std::nullopt;
    uint64_t written = 0, first_output = 0;
    bool first = true;
    for_each_tensor(trace, node.outputs, [&](const TensorMeta& t) {
        const uint64_t b = t.undefined ? 0 : t.numel * t.itemsize;
        written += b;
        if (first) first_output = b, first = false;
    });
    // Pooled (offsets given): each bag's output row sums the rows of its
    // indices, so the rows read are the output's bytes per bag times the
    // indices. Unpooled: the output is the rows.
    const uint64_t rows = bags > 0 ? static_cast<uint64_t>(static_cast<double>(first_output) / static_cast<double>(bags) *
                                                           static_cast<double>(indices))
                                   : first_output;
    return read + rows + written;
}

}  // namespace

std::string op_signature(const Trace& trace, const Node& node) {
    std::string out(split_piece_base(trace.name(node)));
    out += '(';
    for (uint32_t i = 0; i < node.inputs.count; ++i) {
        if (i) out += ',';
        append_value(trace, trace.values[node.inputs.begin + i], out, 0);
    }
    out += ')';
    return out;
}

OpFacts op_facts(const Trace& trace, const Node& node) {
    OpFacts f;
    f.name = std::string(split_piece_base(trace.name(node)));
    f.signature = op_signature(trace, node);
    f.flops = op_flops(trace, node);
    // An output on an input's storage is that input, not new memory: an
    // in-place op writes it (its bytes count once more), a view or a
    // conversion that had nothing to do (contiguous of a contiguous tensor,
    // to() of the dtype it has) moves nothing at all. Traces without storage
    // ids (0) count every output as new.
    std::vector<uint64_t> input_storages;
    for_each_tensor(trace, node.inputs, [&](const TensorMeta& t) {
        if (t.storage_id) input_storages.push_back(t.storage_id);
    });
    const bool in_place = !f.name.empty() && f.name.back() == '_';
    uint64_t written_in_place = 0;
    bool every_output_aliases = true;
    bool any_output = false;
    for_each_tensor(trace, node.outputs, [&](const TensorMeta& t) {
        any_output = true;
        const uint64_t b = t.numel * t.itemsize;
        if (t.storage_id && std::find(input_storages.begin(), input_storages.end(), t.storage_id) != input_storages.end()) {
            if (in_place) written_in_place += b;
            return;
        }
        every_output_aliases = false;
        f.output_bytes += b;
    });
    f.moves_nothing = !in_place && any_output && every_output_aliases;
    if (std::optional<uint64_t> lookup = embedding_lookup_bytes(trace, node))
        f.bytes = *lookup;
    else
        f.bytes = f.moves_nothing ? 0 : tensor_bytes(trace, node.inputs) + f.output_bytes + written_in_place;
    return f;
}

}  // namespace mimic::model
