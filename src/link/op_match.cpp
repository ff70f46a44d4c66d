#include "link/op_match.h"

namespace mimic {

bool is_linkable(const Node& node) { return node.kind != NodeKind::Root && node.kind != NodeKind::Thread; }

NameMap::NameMap(const Trace& trace, const ProfileTrace& profile) : ids_(trace.strings.size(), UINT32_MAX) {
    for (size_t i = 1; i < ids_.size(); ++i) {
        StrId id = profile.strings.find(trace.strings.view(StrId{static_cast<uint32_t>(i)}));
        if (id.value != 0) ids_[i] = id.value;
    }
}

}  // namespace mimic
