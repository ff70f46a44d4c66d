#include "compose/generate_grad_sync.h"

#include <cmath>

namespace mimic::compose {
namespace {

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

size_t slot(GenGroup g) { return g == GenGroup::ExpertData ? 1 : 0; }

}  // namespace

uint64_t ParamUnit::elems(GenGroup g) const {
    uint64_t n = 0;
    for (const ParamTensor& t : tensors)
        if (t.group == g) n += t.elems;
    return n;
}

GradSync::GradSync(const GenerateOptions& o, const RankLayout& layout)
    : o_(o), layout_(layout), cap_(static_cast<uint64_t>(std::llround(o.bucket_mib * 1024 * 1024))),
      grad_bytes_(static_cast<uint64_t>(o.dtype_bytes())) {
    if (cap_ == 0) cap_ = 1;
}

int64_t GradSync::group_size(GenGroup g) const { return layout_.group_size(g); }

bool GradSync::per_layer(const ParamUnit& u) const { return o_.sharding == GenSharding::Fsdp && u.layer; }

void GradSync::gather_layer(ProgramChain& chain, const ParamUnit& unit, const std::string& when) {
    if (!per_layer(unit)) return;
    for (GenGroup g : {GenGroup::Data, GenGroup::ExpertData}) {
        const uint64_t bytes = unit.elems(g) * grad_bytes_;
        if (bytes == 0 || !syncs(g)) continue;
        chain.blocking(unit.name + ".params." + gen_group_name(g) + ".ag " + when, GenCollective::AllGather, g,
                       ceil_div(bytes, static_cast<uint64_t>(group_size(g))));
    }
}

void GradSync::emit(ProgramChain& chain, GenGroup g, uint64_t bytes) {
    const std::string name = "grad.bucket" + std::to_string(next_bucket_++) + "." + gen_group_name(g);
    if (o_.sharding == GenSharding::None) {
        chain.overlapped(name + ".ar", GenCollective::AllReduce, g, bytes);
    } else {
        chain.overlapped(name + ".rs", GenCollective::ReduceScatter, g, bytes);
        zero_buckets_.emplace_back(g, bytes);
    }
}

void GradSync::gradients_ready(ProgramChain& chain, const ParamUnit& unit) {
    if (per_layer(unit)) {
        for (GenGroup g : {GenGroup::Data, GenGroup::ExpertData}) {
            const uint64_t bytes = unit.elems(g) * grad_bytes_;
            if (bytes && syncs(g)) chain.overlapped(unit.name + ".grad." + gen_group_name(g) + ".rs", GenCollective::ReduceScatter, g, bytes);
        }
        return;
    }
    // Backward produces a unit's gradients last-registered first.
    for (auto it = unit.tensors.rbegin(); it != unit.tensors.rend(); ++it) {
        if (!syncs(it->group)) continue;
        Open& open = open_[slot(it->group)];
        open.bytes += it->elems * grad_bytes_;
        if (open.bytes >= cap_) {
            emit(chain, it->group, open.bytes);
            open = Open{};
        }
    }
}

void GradSync::flush(ProgramChain& chain) {
    for (GenGroup g : {GenGroup::Data, GenGroup::ExpertData}) {
        Open& open = open_[slot(g)];
        if (open.bytes) emit(chain, g, open.bytes);
        open = Open{};
    }
}

void GradSync::optimizer(ProgramChain& chain, const std::vector<ParamUnit>& units) {
    // Adam: about 12 FLOPs per parameter; it reads the gradient, reads and
    // writes the parameter and its two fp32 moments.
    uint64_t elems = 0;
    for (const ParamUnit& u : units)
        for (const ParamTensor& t : u.tensors)
            elems += o_.sharding != GenSharding::None && syncs(t.group) ? ceil_div(t.elems, static_cast<uint64_t>(group_size(t.group)))
                                                                         : t.elems;
    chain.compute_after_all("optimizer", 12 * elems, elems * (3 * grad_bytes_ + 16), 4);
    int k = 0;
    for (const auto& [g, bytes] : zero_buckets_)
        chain.blocking("params.bucket" + std::to_string(k++) + "." + gen_group_name(g) + ".ag", GenCollective::AllGather, g,
                       ceil_div(bytes, static_cast<uint64_t>(group_size(g))));
    zero_buckets_.clear();
}

}  // namespace mimic::compose
