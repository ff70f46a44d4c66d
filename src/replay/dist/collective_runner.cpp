#include "replay/dist/collective_runner.h"

#include <ATen/ops/empty.h>

#include <numeric>

namespace mimic::replay {
namespace {

using analysis::ScheduledCollective;

// Gloo reduces these dtypes; others travel as their bytes.
bool gloo_dtype(c10::ScalarType t) {
    switch (t) {
        case c10::kFloat:
        case c10::kDouble:
        case c10::kHalf:
        case c10::kChar:
        case c10::kByte:
        case c10::kInt:
        case c10::kLong: return true;
        default: return false;
    }
}

c10d::ReduceOp reduce_op(const std::string& name) {
    if (name == "MAX") return c10d::ReduceOp(c10d::ReduceOp::MAX);
    if (name == "MIN") return c10d::ReduceOp(c10d::ReduceOp::MIN);
    if (name == "PRODUCT") return c10d::ReduceOp(c10d::ReduceOp::PRODUCT);
    return c10d::ReduceOp(c10d::ReduceOp::SUM);  // AVG and PREMUL_SUM are a SUM on the wire
}

int64_t numel_of(const std::vector<at::Tensor>& ts) {
    int64_t n = 0;
    for (const at::Tensor& t : ts) n += t.numel();
    return n;
}

// One contiguous tensor Gloo accepts carrying the same bytes as `ts`: the
// tensor itself when it qualifies, else a fresh buffer (flattened lists,
// strided views, dtypes Gloo does not reduce).
at::Tensor wire_buffer(const std::vector<at::Tensor>& ts, std::string& note) {
    if (ts.size() == 1 && ts[0].is_contiguous() && gloo_dtype(ts[0].scalar_type())) return ts[0];
    c10::ScalarType dtype = ts.empty() ? c10::kFloat : ts[0].scalar_type();
    int64_t elems = numel_of(ts);
    if (ts.size() > 1 && note.empty()) note = "a list of " + std::to_string(ts.size()) + " tensors sent as one buffer";
    if (!gloo_dtype(dtype)) {
        if (note.empty()) note = std::string(c10::toString(dtype)) + " sent as bytes (Gloo does not reduce it)";
        elems *= int64_t(c10::elementSize(dtype));
        dtype = c10::kByte;
    }
    return at::empty({elems}, at::TensorOptions().dtype(dtype));
}

}  // namespace

std::string CollectiveRunner::prepare(ReplayCollective& c) {
    const ScheduledCollective& r = c.recorded;
    c.group = &groups_.group(r.pg_name);
    if (!c.group->pg) return "this rank is not in group '" + c.group->name + "'";
    if (r.kind == CommKind::Wait) return {};
    if (r.kind == CommKind::Collective && r.type == CollectiveType::Unknown) return "unknown collective " + r.op_name;
    for (uint32_t t : r.inputs) c.inputs.push_back(pool_.view(trace_.tensors[t]));
    for (uint32_t t : r.outputs) c.outputs.push_back(pool_.view(trace_.tensors[t]));
    if (r.type == CollectiveType::Barrier) return {};
    if (c.inputs.empty()) return "no tensor recorded for " + r.op_name;
    const int64_t n = int64_t(c.group->ranks.size());
    std::string note;
    at::Tensor in = wire_buffer(c.inputs, note);
    switch (r.kind == CommKind::Collective ? r.type : CollectiveType::Unknown) {
        case CollectiveType::AllGather:
        case CollectiveType::Gather: {
            // Gloo wants one output per rank, each the input's size (an
            // all_gather into one tensor lands in those pieces).
            if (c.outputs.size() != size_t(n) || c.outputs[0].numel() != in.numel() || !c.outputs[0].is_contiguous() ||
                c.outputs[0].scalar_type() != in.scalar_type()) {
                c.outputs.clear();
                for (int64_t k = 0; k < n; ++k) c.outputs.push_back(at::empty_like(in));
            }
            break;
        }
        case CollectiveType::Scatter: {
            at::Tensor out = wire_buffer(c.outputs.empty() ? c.inputs : c.outputs, note);
            c.inputs.clear();
            for (int64_t k = 0; k < n; ++k) c.inputs.push_back(at::empty_like(out));
            c.outputs = {out};
            c.emulation = note;
            return {};
        }
        case CollectiveType::AllToAll:
        case CollectiveType::ReduceScatter:
        case CollectiveType::ReduceScatterBlock: {
            // Rows per rank must add up to the buffer; otherwise equal pieces of a flat buffer.
            const int64_t rows = in.dim() > 0 ? in.size(0) : 1;
            auto sum = [](const std::vector<int64_t>& v) { return std::accumulate(v.begin(), v.end(), int64_t{0}); };
            auto& splits_in = c.recorded.input_splits;
            auto& splits_out = c.recorded.output_splits;
            const bool splits_fit = splits_in.size() == size_t(n) && splits_out.size() == size_t(n) && sum(splits_in) == rows;
            if (!splits_fit) {
                splits_in.clear();
                splits_out.clear();
                if (rows % n != 0) {
                    const int64_t padded = (in.numel() + n - 1) / n * n;
                    at::Tensor flat = at::empty({padded}, in.options());
                    in = flat;
                    if (note.empty()) note = "padded to a multiple of the group size";
                }
            }
            at::Tensor out;
            if (r.type == CollectiveType::AllToAll && c.outputs.size() == 1 && c.outputs[0].is_contiguous() &&
                c.outputs[0].scalar_type() == in.scalar_type() &&
                (splits_fit ? c.outputs[0].size(0) == sum(splits_out) : c.outputs[0].numel() == in.numel())) {
                out = c.outputs[0];
            } else if (splits_fit) {
                std::vector<int64_t> shape = in.sizes().vec();
                shape[0] = sum(splits_out);
                out = at::empty(shape, in.options());
            } else {
                out = at::empty_like(in);
            }
            if (r.type != CollectiveType::AllToAll)
                note = "reduce_scatter as an all_to_all of the input's pieces (the same bytes on the wire; Gloo "
                       "1.13 has no reduce_scatter)";
            c.inputs = {in};
            c.outputs = {out};
            c.emulation = note;
            return {};
        }
        default:
            break;
    }
    c.inputs = {in};
    c.emulation = note;
    return {};
}

void CollectiveRunner::issue(ReplayCollective& c) {
    const ScheduledCollective& r = c.recorded;
    c10d::ProcessGroup& pg = *c.group->pg;
    const std::chrono::milliseconds timeout = groups_.options().timeout;
    if (r.kind == CommKind::Send) {
        c.work = pg.send(c.inputs, int(r.root), int(r.tag));
        return;
    }
    if (r.kind == CommKind::Recv) {
        c.work = pg.recv(c.inputs, int(r.root), int(r.tag));
        return;
    }
    switch (r.type) {
        case CollectiveType::AllReduce: {
            c10d::AllreduceOptions o;
            o.reduceOp = reduce_op(r.reduce_op);
            o.timeout = timeout;
            c.work = pg.allreduce(c.inputs, o);
            return;
        }
        case CollectiveType::Broadcast: {
            c10d::BroadcastOptions o;
            o.rootRank = r.root;
            o.timeout = timeout;
            c.work = pg.broadcast(c.inputs, o);
            return;
        }
        case CollectiveType::Reduce: {
            c10d::ReduceOptions o;
            o.reduceOp = reduce_op(r.reduce_op);
            o.rootRank = r.root;
            o.timeout = timeout;
            c.work = pg.reduce(c.inputs, o);
            return;
        }
        case CollectiveType::AllGather: {
            c10d::AllgatherOptions o;
            o.timeout = timeout;
            std::vector<std::vector<at::Tensor>> outs{c.outputs};
            c.work = pg.allgather(outs, c.inputs, o);
            return;
        }
        case CollectiveType::Gather: {
            c10d::GatherOptions o;
            o.rootRank = r.root;
            o.timeout = timeout;
            std::vector<std::vector<at::Tensor>> outs;
            if (c.group->group_rank == r.root) outs.push_back(c.outputs);
            c.work = pg.gather(outs, c.inputs, o);
            return;
        }
        case CollectiveType::Scatter: {
            c10d::ScatterOptions o;
            o.rootRank = r.root;
            o.timeout = timeout;
            std::vector<std::vector<at::Tensor>> ins;
            if (c.group->group_rank == r.root) ins.push_back(c.inputs);
            c.work = pg.scatter(c.outputs, ins, o);
            return;
        }
        case CollectiveType::AllToAll:
        case CollectiveType::ReduceScatter:
        case CollectiveType::ReduceScatterBlock: {
            c10d::AllToAllOptions o;
            o.timeout = timeout;
            std::vector<int64_t> out_splits = r.output_splits, in_splits = r.input_splits;
            c.work = pg.alltoall_base(c.outputs[0], c.inputs[0], out_splits, in_splits, o);
            return;
        }
        case CollectiveType::Barrier: {
            c10d::BarrierOptions o;
            o.timeout = timeout;
            c.work = pg.barrier(o);
            return;
        }
        case CollectiveType::Unknown:
            break;
    }
    TORCH_CHECK(false, "cannot replay ", r.op_name);
}

void CollectiveRunner::wait(ReplayCollective& c) {
    if (!c.work) return;
    auto work = std::move(c.work);
    c.work.reset();
    work->wait(groups_.options().timeout);
}

}  // namespace mimic::replay
