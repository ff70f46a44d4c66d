#include "io/chakra/chakra_literal.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

namespace mimic {

namespace {

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

void append_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xc0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xe0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
        out += static_cast<char>(0xf0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    }
}
}  // namespace

void LiteralCursor::reset(std::string_view text) {
    text_ = text;
    pos_ = 0;
    ok_ = true;
    lists_.clear();
    unescaped_.clear();
}

namespace {

// Pointer-walking helpers for the fast paths below; each returns nullptr
// when the text does not have the expected form.
const char* skip_spaces(const char* p, const char* end) {
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')) ++p;
    return p;
}

const char* scan_int(const char* p, const char* end, int64_t& out) {
    const bool negative = p < end && *p == '-';
    if (negative) ++p;
    const char* digits = p;
    uint64_t v = 0;
    while (p < end && static_cast<unsigned>(*p - '0') < 10) v = v * 10 + static_cast<unsigned>(*p++ - '0');
    const size_t n = static_cast<size_t>(p - digits);
    if (n == 0 || n > 18 || (p < end && (*p == '.' || *p == 'e' || *p == 'E'))) return nullptr;
    out = negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
    return p;
}

}  // namespace

bool LiteralCursor::read_tensor_tuple(int64_t (&fields)[5], std::string_view& device) {
    if (!ok_) return false;
    const char* end = text_.data() + text_.size();
    const char* p = skip_spaces(text_.data() + pos_, end);
    if (p >= end || *p != '[') return false;
    ++p;
    for (int k = 0; k < 5; ++k) {
        p = skip_spaces(p, end);
        p = scan_int(p, end, fields[k]);
        if (!p) return false;
        p = skip_spaces(p, end);
        if (p >= end) return false;
        if (k < 4) {
            if (*p != ',') return false;
            ++p;
        }
    }
    device = {};
    if (*p == ',') {
        p = skip_spaces(p + 1, end);
        if (p >= end || (*p != '\'' && *p != '"')) return false;
        const char quote = *p++;
        const char* start = p;
        while (p < end && *p != quote && *p != '\\') ++p;
        if (p >= end || *p != quote) return false;  // escapes: the general path
        device = std::string_view(start, static_cast<size_t>(p - start));
        p = skip_spaces(p + 1, end);
    }
    if (p >= end || *p != ']') return false;
    pos_ = static_cast<size_t>(p + 1 - text_.data());
    return true;
}

bool LiteralCursor::read_int_list(Column<int64_t>& out, size_t max) {
    if (!ok_) return false;
    const char* end = text_.data() + text_.size();
    const char* p = skip_spaces(text_.data() + pos_, end);
    if (p >= end || *p != '[') return false;
    const size_t before = out.size();
    p = skip_spaces(p + 1, end);
    if (p < end && *p == ']') {
        pos_ = static_cast<size_t>(p + 1 - text_.data());
        return true;
    }
    while (true) {
        int64_t v;
        p = scan_int(p, end, v);
        if (!p || out.size() - before >= max) {
            out.resize(before);
            return false;
        }
        out.push_back(v);
        p = skip_spaces(p, end);
        if (p < end && *p == ',') {
            p = skip_spaces(p + 1, end);
            continue;
        }
        if (p < end && *p == ']') break;
        out.resize(before);
        return false;
    }
    pos_ = static_cast<size_t>(p + 1 - text_.data());
    return true;
}

bool LiteralCursor::finished() { return ok_ && lists_.empty() && peek() == '\0'; }

bool LiteralCursor::skip_value() {
    if (!open_list()) {
        Scalar ignored;
        return ok_ && read_scalar(ignored);
    }
    while (next_element())
        if (!skip_value()) return false;
    return ok_;
}

bool LiteralCursor::read_scalar(Scalar& out) {
    const char c = peek();
    if (c == '\'' || c == '"') return read_string(c, out);
    if (c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9')) return read_number(out);
    return read_word(out);
}

bool LiteralCursor::read_string(char quote, Scalar& out) {
    const size_t start = ++pos_;
    // Fast path: no escapes, the string is a view into the text.
    size_t end = start;
    while (end < text_.size() && text_[end] != quote && text_[end] != '\\') ++end;
    if (end >= text_.size()) return fail();
    out.kind = LiteralKind::String;
    if (text_[end] == quote) {
        out.s = text_.substr(start, end - start);
        pos_ = end + 1;
        return true;
    }
    std::string& s = unescaped_.emplace_back(text_.substr(start, end - start));
    pos_ = end;
    while (pos_ < text_.size() && text_[pos_] != quote) {
        char ch = text_[pos_++];
        if (ch != '\\') {
            s += ch;
            continue;
        }
        if (pos_ >= text_.size()) break;
        char e = text_[pos_++];
        switch (e) {
            case 'n': s += '\n'; break;
            case 't': s += '\t'; break;
            case 'r': s += '\r'; break;
            case 'b': s += '\b'; break;
            case 'f': s += '\f'; break;
            case '0': s += '\0'; break;
            case 'x':
            case 'u': {
                const size_t digits = e == 'x' ? 2 : 4;
                if (pos_ + digits > text_.size()) return fail();
                uint32_t cp = 0;
                for (size_t k = 0; k < digits; ++k) {
                    int h = hex_value(text_[pos_ + k]);
                    if (h < 0) return fail();
                    cp = cp * 16 + static_cast<uint32_t>(h);
                }
                pos_ += digits;
                append_utf8(s, cp);
                break;
            }
            default: s += e; break;  // \\ \' \" \/ and anything else: the character itself
        }
    }
    if (pos_ >= text_.size()) return fail();
    ++pos_;  // closing quote
    out.s = s;
    return true;
}

bool LiteralCursor::read_number(Scalar& out) {
    if (read_int(out.i)) {
        out.kind = LiteralKind::Int;
        return true;
    }
    const size_t start = pos_;
    size_t end = pos_;
    bool is_float = false;
    while (end < text_.size()) {
        const char ch = text_[end];
        if ((ch >= '0' && ch <= '9') || ch == '-' || ch == '+') {
        } else if (ch == '.' || ch == 'e' || ch == 'E') {
            is_float = true;
        } else {
            break;
        }
        ++end;
    }
    std::string_view num = text_.substr(start, end - start);
    if (num == "-" || num == "+") {
        // "-inf", "-nan", "-Infinity"
        pos_ = end;
        if (!read_word(out) || out.kind != LiteralKind::Double) return fail();
        if (num == "-") out.d = -out.d;
        return true;
    }
    if (!num.empty() && num.front() == '+') num.remove_prefix(1);
    const char* first = num.data();
    const char* last = num.data() + num.size();
    if (!is_float) {
        int64_t v = 0;
        auto r = std::from_chars(first, last, v);
        if (r.ec == std::errc() && r.ptr == last) {
            out.kind = LiteralKind::Int;
            out.i = v;
            pos_ = end;
            return true;
        }
        uint64_t u = 0;
        r = std::from_chars(first, last, u);
        if (r.ec == std::errc() && r.ptr == last) {
            out.kind = LiteralKind::Int;
            out.i = static_cast<int64_t>(u);
            pos_ = end;
            return true;
        }
        // Too big for 64 bits: read it as a double below.
    }
    double d = 0;
    auto r = std::from_chars(first, last, d);
    if (r.ptr != last || (r.ec != std::errc() && r.ec != std::errc::result_out_of_range)) return fail();
    out.kind = LiteralKind::Double;
    out.d = d;
    pos_ = end;
    return true;
}

bool LiteralCursor::read_word(Scalar& out) {
    size_t end = pos_;
    while (end < text_.size() && ((text_[end] >= 'a' && text_[end] <= 'z') || (text_[end] >= 'A' && text_[end] <= 'Z')))
        ++end;
    const std::string_view w = text_.substr(pos_, end - pos_);
    if (w == "True" || w == "true") {
        out.kind = LiteralKind::Bool;
        out.b = true;
    } else if (w == "False" || w == "false") {
        out.kind = LiteralKind::Bool;
        out.b = false;
    } else if (w == "None" || w == "null") {
        out.kind = LiteralKind::Null;
    } else if (w == "inf" || w == "Infinity") {
        out.kind = LiteralKind::Double;
        out.d = std::numeric_limits<double>::infinity();
    } else if (w == "nan" || w == "NaN") {
        out.kind = LiteralKind::Double;
        out.d = std::numeric_limits<double>::quiet_NaN();
    } else {
        return fail();
    }
    pos_ = end;
    return true;
}

void append_json_string(std::string& out, std::string_view s) {
    out += '"';
    size_t run = 0;  // start of the pending run of plain characters
    for (size_t i = 0; i < s.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        out.append(s.data() + run, i - run);
        run = i + 1;
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            case '\r': out += "\\r"; break;
            default: {
                static const char* hex = "0123456789abcdef";
                out += "\\u00";
                out += hex[c >> 4];
                out += hex[c & 15];
            }
        }
    }
    out.append(s.data() + run, s.size() - run);
    out += '"';
}

}  // namespace mimic
