#include "io/chakra/chakra_seen_sides.h"

#include <algorithm>
#include <cstring>

namespace mimic {

namespace {

// 64x64 -> 128-bit multiply, folded: every bit of either input reaches
// every bit of the result, in one multiply. The words of a text go in pairs
// through independent multiplies (summed), so the hash of a text is not one
// long chain of dependent steps.
__extension__ typedef unsigned __int128 Uint128;  // GCC and clang on 64-bit targets

inline uint64_t fold_multiply(uint64_t a, uint64_t b) {
    const Uint128 r = static_cast<Uint128>(a) * b;
    return static_cast<uint64_t>(r) ^ static_cast<uint64_t>(r >> 64);
}

// Odd constants with bytes outside ASCII, so that no word of text cancels one.
constexpr uint64_t kKey[8] = {0xa0761d6478bd642full, 0xe7037ed1a0b428dbull, 0x8ebc6af09c88c6e3ull,
                              0x589965cc75374cc3ull, 0x1d8e4e27c47d124full, 0xc2b2ae3d27d4eb4full,
                              0x9e3779b97f4a7c15ull, 0xbf58476d1ce4e5b9ull};

inline uint64_t load8(const char* p) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    return w;
}

inline uint64_t load4(const char* p) {
    uint32_t w;
    std::memcpy(&w, p, 4);
    return w;
}

inline uint64_t pair(const char* p, size_t a, size_t b, int k) {
    return fold_multiply(load8(p + a) ^ kKey[k], load8(p + b) ^ kKey[k + 1]);
}

// One text's hash: words that cover all of a short text (loads overlap
// rather than branch on the exact length), or 32 bytes at the start,
// middle and end of a long one; and its length.
uint64_t text_hash(std::string_view s) {
    const char* p = s.data();
    const size_t n = s.size();
    uint64_t h;
    if (n >= 32) {
        h = 0;
        for (size_t at : {size_t(0), n / 2 - 16, n - 32}) h += pair(p, at, at + 8, 0) + pair(p, at + 16, at + 24, 2);
        h += pair(p, n / 3, 2 * n / 3, 4);  // the samples keep their places apart
    } else if (n >= 16) {
        h = pair(p, 0, 8, 0) + pair(p, n - 16, n - 8, 2);
    } else if (n >= 8) {
        h = pair(p, 0, n - 8, 0);
    } else if (n >= 4) {
        h = fold_multiply((load4(p) | load4(p + n - 4) << 32) ^ kKey[0], kKey[1]);
    } else if (n > 0) {
        const auto byte = [p](size_t i) { return uint64_t(static_cast<unsigned char>(p[i])); };
        h = fold_multiply((byte(0) | byte(n / 2) << 8 | byte(n - 1) << 16) ^ kKey[0], kKey[1]);
    } else {
        h = 0;
    }
    return fold_multiply(h ^ kKey[6], n ^ kKey[7]);
}

// memcmp(a, b, n) == 0, inline: most texts compared are short, where the
// call costs more than the comparison. (Also safe for n == 0 with b null,
// which memcmp must not be given.)
inline bool same_bytes(const char* a, const char* b, size_t n) {
    if (n >= 8) {
        for (size_t i = 0; i + 8 < n; i += 8)
            if (load8(a + i) != load8(b + i)) return false;
        return load8(a + n - 8) == load8(b + n - 8);
    }
    if (n >= 4) return load4(a) == load4(b) && load4(a + n - 4) == load4(b + n - 4);
    for (size_t i = 0; i < n; ++i)
        if (a[i] != b[i]) return false;
    return true;
}

}  // namespace

uint64_t ChakraSeenSides::hash(std::string_view values, std::string_view shapes, std::string_view types) {
    // Combined so that the texts' places count: (a, b, c) and (b, a, c) differ.
    return fold_multiply(text_hash(values) ^ kKey[2], text_hash(shapes) ^ kKey[3]) + text_hash(types) * kKey[6];
}

bool ChakraSeenSides::same_texts(const Side& s, std::string_view values, std::string_view shapes,
                                 std::string_view types) const {
    const auto same = [](const char* kept, std::string_view text) { return same_bytes(kept, text.data(), text.size()); };
    return s.values_size == values.size() && s.shapes_size == shapes.size() && s.types_size == types.size() &&
           same(s.text, values) && same(s.text + values.size(), shapes) &&
           same(s.text + values.size() + shapes.size(), types);
}

const ChakraSeenSides::Where* ChakraSeenSides::find(uint64_t hash, std::string_view values, std::string_view shapes,
                                                    std::string_view types) {
    crowded_ = false;
    const bool short_side = values.size() < kLongBytes;
    if (short_side && ++short_lookups_ == kTrialLookups) short_worth_ = 2 * short_hits_ >= short_lookups_;
    if (slots_.empty()) return nullptr;
    const size_t mask = slots_.size() - 1;
    int same_hash = 0;
    for (size_t i = (hash >> 7) & mask;; i = (i + 1) & mask) {
        const int32_t at = slots_[i];
        if (at < 0) return nullptr;
        const Side& s = sides_[static_cast<size_t>(at)];
        if (s.hash != hash) continue;
        if (same_texts(s, values, shapes, types)) {
            short_hits_ += short_side;
            return &s.where;
        }
        if (++same_hash >= kMaxSameHash) {
            crowded_ = true;
            return nullptr;
        }
    }
}

const char* ChakraSeenSides::keep(std::string_view values, std::string_view shapes, std::string_view types) {
    const size_t n = values.size() + shapes.size() + types.size();
    if (chunk_used_ + n > chunk_size_) {
        chunk_size_ = std::max(n, size_t(1) << 20);
        chunks_.emplace_back(new char[chunk_size_]);  // not zeroed: every byte used is written first
        chunk_used_ = 0;
    }
    char* text = chunks_.back().get() + chunk_used_;
    // Empty views may have no data: copy only what there is.
    if (!values.empty()) std::memcpy(text, values.data(), values.size());
    if (!shapes.empty()) std::memcpy(text + values.size(), shapes.data(), shapes.size());
    if (!types.empty()) std::memcpy(text + values.size() + shapes.size(), types.data(), types.size());
    chunk_used_ += n;
    bytes_ += n;
    return text;
}

void ChakraSeenSides::place(std::vector<int32_t>& slots, uint64_t hash, size_t side) {
    const size_t mask = slots.size() - 1;
    size_t i = (hash >> 7) & mask;
    while (slots[i] >= 0) i = (i + 1) & mask;
    slots[i] = static_cast<int32_t>(side);
}

void ChakraSeenSides::grow_slots() {
    std::vector<int32_t> slots(std::max<size_t>(1024, slots_.size() * 2), -1);
    for (size_t k = 0; k < sides_.size(); ++k) place(slots, sides_[k].hash, k);
    slots_ = std::move(slots);
}

void ChakraSeenSides::remember(uint64_t hash, std::string_view values, std::string_view shapes,
                               std::string_view types, const Where& where) {
    const size_t n = values.size() + shapes.size() + types.size();
    if (crowded_ || bytes_ + n > kMaxBytes || sides_.size() >= INT32_MAX / 2 || shapes.size() > UINT32_MAX ||
        types.size() > UINT32_MAX || values.size() > UINT32_MAX)
        return;
    if ((sides_.size() + 1) * 2 > slots_.size()) grow_slots();
    Side s;
    s.hash = hash;
    s.text = keep(values, shapes, types);
    s.values_size = static_cast<uint32_t>(values.size());
    s.shapes_size = static_cast<uint32_t>(shapes.size());
    s.types_size = static_cast<uint32_t>(types.size());
    s.where = where;
    place(slots_, hash, sides_.size());
    sides_.push_back(s);
}

}  // namespace mimic
