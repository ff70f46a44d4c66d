// UTF-8 validity as RFC 3629 defines it, which is what protobuf demands of a
// string field and JSON of its text: no overlong forms, no surrogates, nothing
// past U+10FFFF, no sequence cut short.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

// True when every byte of [p, p + n) is ASCII. Branch-free over the bulk:
// 64 bytes a step with SSE2 (every x86-64 has it), else 8; the tail by an
// overlapping load. The Chakra reader checks every IOInfo text with it, some
// 4 KB long, so it runs at cache bandwidth rather than a byte at a time.
inline bool is_ascii(const char* p, size_t n) {
#if defined(__SSE2__)
    if (n >= 16) {
        const auto load = [p](size_t i) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i)); };
        __m128i a = _mm_setzero_si128(), b = a, c = a, d = a;
        size_t i = 0;
        for (; i + 64 <= n; i += 64) {
            a = _mm_or_si128(a, load(i));
            b = _mm_or_si128(b, load(i + 16));
            c = _mm_or_si128(c, load(i + 32));
            d = _mm_or_si128(d, load(i + 48));
        }
        for (; i + 16 <= n; i += 16) a = _mm_or_si128(a, load(i));
        a = _mm_or_si128(_mm_or_si128(a, load(n - 16)), _mm_or_si128(b, _mm_or_si128(c, d)));
        return _mm_movemask_epi8(a) == 0;  // the high bit of each byte
    }
#endif
    constexpr uint64_t kHighBits = 0x8080808080808080ull;
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
    return !(any & kHighBits);
}

// Position of the first byte of `s` that does not start a valid sequence, or
// npos when all of `s` is valid. Trace text is nearly all ASCII, so first the
// whole string is checked for ASCII; only a string with other bytes is decoded.
inline size_t find_invalid_utf8(std::string_view s) {
    const char* p = s.data();
    const size_t n = s.size();
    if (is_ascii(p, n)) return std::string_view::npos;
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
