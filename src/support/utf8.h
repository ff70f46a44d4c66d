// UTF-8 validity as RFC 3629 defines it, which is what protobuf demands of a
// string field and JSON of its text: no overlong forms, no surrogates, nothing
// past U+10FFFF, no sequence cut short.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace mimic {

// Length of the valid UTF-8 sequence starting at s[i], or 0 if it is not one.
inline size_t utf8_sequence_length(std::string_view s, size_t i) {
    const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = byte(i);
    if (c < 0x80) return 1;
    size_t len = 0;
    uint32_t cp = 0;
    if ((c & 0xE0) == 0xC0) {
        len = 2;
        cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
        len = 3;
        cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (i + len > s.size()) return 0;
    for (size_t k = 1; k < len; ++k) {
        if ((byte(i + k) & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (byte(i + k) & 0x3F);
    }
    static constexpr uint32_t kMinForLength[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMinForLength[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return len;
}

// Position of the first byte of `s` that does not start a valid sequence, or
// npos when all of `s` is valid. Trace text is nearly all ASCII, so runs of
// it are checked 16 bytes at a time and only other bytes are decoded.
inline size_t find_invalid_utf8(std::string_view s) {
    constexpr uint64_t kHighBits = 0x8080808080808080ull;
    const size_t n = s.size();
    size_t i = 0;
    while (i < n) {
        while (i + 16 <= n) {
            uint64_t a, b;
            std::memcpy(&a, s.data() + i, 8);
            std::memcpy(&b, s.data() + i + 8, 8);
            if ((a | b) & kHighBits) break;
            i += 16;
        }
        const size_t stop = i + 16 <= n ? i + 16 : n;  // past the non-ASCII byte the loop stopped at
        while (i < stop) {
            if (static_cast<unsigned char>(s[i]) < 0x80) {
                ++i;
                continue;
            }
            const size_t len = utf8_sequence_length(s, i);
            if (len == 0) return i;
            i += len;
        }
    }
    return std::string_view::npos;
}

}  // namespace mimic
