#include "compose/generate_layout.h"

#include "support/json_writer.h"

namespace mimic::compose {

const char* gen_group_name(GenGroup g) {
    switch (g) {
        case GenGroup::World: return "world";
        case GenGroup::Tensor: return "tp";
        case GenGroup::Data: return "dp";
        case GenGroup::Pipeline: return "pp";
        case GenGroup::Expert: return "ep";
        case GenGroup::ExpertData: return "edp";
        case GenGroup::Embedding: return "emb";
    }
    return "?";
}

namespace {

// A kind whose groups have the same members as another's shares its ids:
// with ep == 1 the expert-data-parallel group is the data-parallel group, and
// with ep == dp the expert group is; with two stages the embedding group is
// the pipeline group.
GenGroup canonical(GenGroup g, int64_t dp, int64_t ep, int64_t pp) {
    if (g == GenGroup::ExpertData && ep == 1) return GenGroup::Data;
    if (g == GenGroup::Expert && ep == dp) return GenGroup::Data;
    if (g == GenGroup::Embedding && pp == 2) return GenGroup::Pipeline;
    return g;
}

constexpr GenGroup kListedKinds[] = {GenGroup::Tensor, GenGroup::Data, GenGroup::Pipeline, GenGroup::Expert, GenGroup::ExpertData,
                                     GenGroup::Embedding};

}  // namespace

RankLayout::RankLayout(const GenerateOptions& o)
    : ranks_(o.ranks), tp_(o.tp), dp_(o.dp), pp_(o.pp), ep_(o.ep), tied_(o.model == GenModel::Gpt) {
    int64_t next = 1;
    for (GenGroup g : kListedKinds) {
        if (!listed(g) || canonical(g, dp_, ep_, pp_) != g) continue;
        first_id_[static_cast<size_t>(g)] = next;
        next += groups_of_kind(g);
    }
}

RankCoords RankLayout::coords(int64_t rank) const {
    RankCoords c;
    c.tp = rank % tp_;
    c.dp = (rank / tp_) % dp_;
    c.stage = rank / (tp_ * dp_);
    return c;
}

int64_t RankLayout::group_size(GenGroup g) const {
    switch (g) {
        case GenGroup::World: return ranks_;
        case GenGroup::Tensor: return tp_;
        case GenGroup::Data: return dp_;
        case GenGroup::Pipeline: return pp_;
        case GenGroup::Expert: return ep_;
        case GenGroup::ExpertData: return dp_ / ep_;
        case GenGroup::Embedding: return tied_ && pp_ > 1 ? 2 : 1;
    }
    return 1;
}

int64_t RankLayout::groups_of_kind(GenGroup g) const { return ranks_ / group_size(g); }

bool RankLayout::listed(GenGroup g) const { return group_size(g) > 1 && group_size(g) < ranks_; }

int64_t RankLayout::index_in_kind(GenGroup g, int64_t rank) const {
    const RankCoords c = coords(rank);
    switch (g) {
        case GenGroup::World: return 0;
        case GenGroup::Tensor: return rank / tp_;
        case GenGroup::Data: return c.tp + tp_ * c.stage;
        case GenGroup::Pipeline:
        case GenGroup::Embedding: return rank % (tp_ * dp_);
        case GenGroup::Expert: return c.tp + tp_ * (c.stage + pp_ * (c.dp / ep_));
        case GenGroup::ExpertData: return c.tp + tp_ * (c.stage + pp_ * (c.dp % ep_));
    }
    return 0;
}

int64_t RankLayout::group_id(GenGroup g, int64_t rank) const {
    g = canonical(g, dp_, ep_, pp_);
    if (!listed(g)) return 0;
    return first_id_[static_cast<size_t>(g)] + index_in_kind(g, rank);
}

std::vector<int64_t> RankLayout::group_members(GenGroup g, int64_t rank) const {
    const RankCoords c = coords(rank);
    std::vector<int64_t> members;
    members.reserve(static_cast<size_t>(group_size(g)));
    RankCoords m = c;
    switch (g) {
        case GenGroup::World:
            for (int64_t r = 0; r < ranks_; ++r) members.push_back(r);
            break;
        case GenGroup::Tensor:
            for (m.tp = 0; m.tp < tp_; ++m.tp) members.push_back(rank_of(m));
            break;
        case GenGroup::Data:
            for (m.dp = 0; m.dp < dp_; ++m.dp) members.push_back(rank_of(m));
            break;
        case GenGroup::Pipeline:
            for (m.stage = 0; m.stage < pp_; ++m.stage) members.push_back(rank_of(m));
            break;
        case GenGroup::Expert:
            for (m.dp = c.dp / ep_ * ep_; m.dp < (c.dp / ep_ + 1) * ep_; ++m.dp) members.push_back(rank_of(m));
            break;
        case GenGroup::ExpertData:
            for (m.dp = c.dp % ep_; m.dp < dp_; m.dp += ep_) members.push_back(rank_of(m));
            break;
        case GenGroup::Embedding:
            m.stage = 0;
            members.push_back(rank_of(m));
            if (group_size(g) > 1) m.stage = pp_ - 1, members.push_back(rank_of(m));
            break;
    }
    return members;
}

std::string RankLayout::comm_groups_json() const {
    JsonWriter w(0);
    w.begin_object();
    for (GenGroup g : kListedKinds) {
        if (!listed(g) || canonical(g, dp_, ep_, pp_) != g) continue;
        // One representative rank per group: the group's lowest member is
        // the first rank met whose index in the kind is new.
        std::vector<bool> seen(static_cast<size_t>(groups_of_kind(g)), false);
        for (int64_t r = 0; r < ranks_; ++r) {
            const int64_t k = index_in_kind(g, r);
            if (seen[static_cast<size_t>(k)]) continue;
            seen[static_cast<size_t>(k)] = true;
            w.key(std::to_string(first_id_[static_cast<size_t>(g)] + k)).begin_array();
            for (int64_t m : group_members(g, r)) w.value(static_cast<long long>(m));
            w.end_array();
        }
    }
    w.end_object();
    return w.str() + "\n";
}

}  // namespace mimic::compose
