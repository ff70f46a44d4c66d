// Interned strings: op names, schemas and type strings repeat across millions
// of nodes, so each distinct string is stored once and named by a StrId.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace mimic {

struct StrId {
    uint32_t value = 0;  // 0 is always the empty string
    friend bool operator==(StrId a, StrId b) { return a.value == b.value; }
    friend bool operator!=(StrId a, StrId b) { return a.value != b.value; }
    friend bool operator<(StrId a, StrId b) { return a.value < b.value; }
};

// A cheap fingerprint of a string: its length and its first and last eight
// bytes. Strings of a trace that share all three are rare, and a match is
// always confirmed by comparing the whole string.
inline uint64_t quick_fingerprint(std::string_view s) {
    uint64_t head = 0, tail = 0;
    if (s.size() >= 8) {
        std::memcpy(&head, s.data(), 8);
        std::memcpy(&tail, s.data() + s.size() - 8, 8);
    } else if (!s.empty()) {  // an empty view's data() may be null, which memcpy must not get
        std::memcpy(&head, s.data(), s.size());
    }
    uint64_t h = (head ^ (tail * 0x9E3779B97F4A7C15ull) ^ s.size()) * 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 31);
}

class StringInterner {
public:
    StringInterner() {
        // Id 0, the empty string, before any lookup: every slot starts out naming it.
        storage_.emplace_back();
        views_.push_back(storage_.back());
        index_.emplace(views_.back(), StrId{});
        recent_.fill(StrId{});
    }
    // The views point into storage_: a copy would point into the original.
    StringInterner(const StringInterner&) = delete;
    StringInterner& operator=(const StringInterner&) = delete;
    StringInterner(StringInterner&&) = default;  // a deque's move keeps its elements in place
    StringInterner& operator=(StringInterner&&) = default;
    StrId intern(std::string_view s) {
        // The same names, schemas and types come node after node: a slot per
        // fingerprint remembers the last string seen there, which spares
        // hashing every byte of a long schema on a repeat.
        StrId& slot = recent_[quick_fingerprint(s) & (kRecentSlots - 1)];
        const std::string_view seen = views_[slot.value];
        if (seen.size() == s.size() && (s.empty() || std::memcmp(seen.data(), s.data(), s.size()) == 0)) return slot;
        auto it = index_.find(s);
        if (it != index_.end()) return slot = it->second;
        storage_.emplace_back(s);
        StrId id{static_cast<uint32_t>(views_.size())};
        views_.push_back(storage_.back());
        index_.emplace(views_.back(), id);
        return slot = id;
    }
    // Returns the id if the string is already interned, else the empty id.
    StrId find(std::string_view s) const {
        auto it = index_.find(s);
        return it == index_.end() ? StrId{} : it->second;
    }
    std::string_view view(StrId id) const { return views_[id.value]; }
    size_t size() const { return views_.size(); }

private:
    std::deque<std::string> storage_;  // deque: growth never moves the strings
    std::vector<std::string_view> views_;
    std::unordered_map<std::string_view, StrId> index_;
    static constexpr size_t kRecentSlots = 1024;
    std::array<StrId, kRecentSlots> recent_;
};

}  // namespace mimic

template <>
struct std::hash<mimic::StrId> {
    size_t operator()(mimic::StrId id) const noexcept { return id.value; }
};
