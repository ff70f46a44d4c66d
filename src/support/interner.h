// Interned strings: op names, schemas and type strings repeat across millions
// of nodes, so each distinct string is stored once and named by a StrId.
#pragma once

#include <cstdint>
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

class StringInterner {
public:
    StringInterner() { intern(""); }
    StrId intern(std::string_view s) {
        auto it = index_.find(s);
        if (it != index_.end()) return it->second;
        storage_.emplace_back(s);
        StrId id{static_cast<uint32_t>(views_.size())};
        views_.push_back(storage_.back());
        index_.emplace(views_.back(), id);
        return id;
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
};

}  // namespace mimic

template <>
struct std::hash<mimic::StrId> {
    size_t operator()(mimic::StrId id) const noexcept { return id.value; }
};
