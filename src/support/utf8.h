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
// npos when all of `s` is valid. Trace text is nearly all ASCII, so first the
// whole string is checked for ASCII 8 bytes at a time (branch-free, the tail
// by an overlapping word); only a string with other bytes is decoded.
inline size_t find_invalid_utf8(std::string_view s) {
    constexpr uint64_t kHighBits = 0x8080808080808080ull;
    const char* p = s.data();
    const size_t n = s.size();
    uint64_t any = 0;
    if (n >= 8) {
        uint64_t w;
        for (size_t i = 0; i + 8 <= n; i += 8) {
            std::memcpy(&w, p + i, 8);
            any |= w;
        }
        std::memcpy(&w, p + n - 8, 8);
        any |= w;
    } else {
        for (size_t i = 0; i < n; ++i) any |= static_cast<unsigned char>(p[i]);
        any *= 0x0101010101010101ull;  // the byte's high bit into every lane tested below
    }
    if (!(any & kHighBits)) return std::string_view::npos;
    for (size_t i = 0; i < n;) {
        if (static_cast<unsigned char>(p[i]) < 0x80) {
            ++i;
            continue;
        }
        const size_t len = utf8_sequence_length(s, i);
        if (len == 0) return i;
        i += len;
    }
    return std::string_view::npos;
}

}  // namespace mimic
