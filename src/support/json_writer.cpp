#include "support/json_writer.h"

#include <charconv>
#include <cmath>

#include "support/error.h"

namespace mimic {
namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 if it is not one
// (overlong forms, surrogates and code points past U+10FFFF are invalid).
size_t utf8_sequence_length(std::string_view s, size_t i) {
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

void append_escaped(std::string& out, std::string_view s) {
    static constexpr char kHex[] = "0123456789abcdef";
    out.push_back('"');
    for (size_t i = 0; i < s.size();) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        switch (c) {
            case '"': out += "\\\""; ++i; continue;
            case '\\': out += "\\\\"; ++i; continue;
            case '\n': out += "\\n"; ++i; continue;
            case '\r': out += "\\r"; ++i; continue;
            case '\t': out += "\\t"; ++i; continue;
            case '\b': out += "\\b"; ++i; continue;
            case '\f': out += "\\f"; ++i; continue;
            default: break;
        }
        if (c < 0x20) {
            out += "\\u00";
            out.push_back(kHex[c >> 4]);
            out.push_back(kHex[c & 0xF]);
            ++i;
            continue;
        }
        const size_t len = utf8_sequence_length(s, i);
        if (len == 0) {
            out += "\\ufffd";  // keep the output valid JSON whatever bytes the trace held
            ++i;
            continue;
        }
        out.append(s.data() + i, len);
        i += len;
    }
    out.push_back('"');
}

}  // namespace

std::string json_quote(std::string_view s) {
    std::string out;
    append_escaped(out, s);
    return out;
}

void JsonWriter::newline() {
    if (indent_ <= 0) return;
    out_.push_back('\n');
    out_.append(stack_.size() * static_cast<size_t>(indent_), ' ');
}

void JsonWriter::before_value() {
    if (stack_.empty()) {
        if (wrote_root_) throw Error("json writer: a second top-level value");
        wrote_root_ = true;
        return;
    }
    if (stack_.back() == Frame::Object) {
        if (!key_pending_) throw Error("json writer: value in an object without a key");
        key_pending_ = false;
        return;
    }
    if (!first_.back()) out_.push_back(',');
    first_.back() = false;
    newline();
}

JsonWriter& JsonWriter::key(std::string_view name) {
    if (stack_.empty() || stack_.back() != Frame::Object) throw Error("json writer: key outside an object");
    if (key_pending_) throw Error("json writer: two keys in a row");
    if (!first_.back()) out_.push_back(',');
    first_.back() = false;
    newline();
    append_escaped(out_, name);
    out_ += indent_ > 0 ? ": " : ":";
    key_pending_ = true;
    return *this;
}

JsonWriter& JsonWriter::begin_object() {
    before_value();
    out_.push_back('{');
    stack_.push_back(Frame::Object);
    first_.push_back(true);
    return *this;
}

JsonWriter& JsonWriter::begin_array() {
    before_value();
    out_.push_back('[');
    stack_.push_back(Frame::Array);
    first_.push_back(true);
    return *this;
}

JsonWriter& JsonWriter::end_object() {
    if (stack_.empty() || stack_.back() != Frame::Object || key_pending_)
        throw Error("json writer: end_object without a matching begin_object");
    const bool empty = first_.back();
    stack_.pop_back();
    first_.pop_back();
    if (!empty) newline();
    out_.push_back('}');
    return *this;
}

JsonWriter& JsonWriter::end_array() {
    if (stack_.empty() || stack_.back() != Frame::Array)
        throw Error("json writer: end_array without a matching begin_array");
    const bool empty = first_.back();
    stack_.pop_back();
    first_.pop_back();
    if (!empty) newline();
    out_.push_back(']');
    return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
    before_value();
    append_escaped(out_, s);
    return *this;
}

JsonWriter& JsonWriter::value(bool b) {
    before_value();
    out_ += b ? "true" : "false";
    return *this;
}

JsonWriter& JsonWriter::null() {
    before_value();
    out_ += "null";
    return *this;
}

JsonWriter& JsonWriter::raw(std::string_view json) {
    while (!json.empty() && (json.back() == '\n' || json.back() == ' ' || json.back() == '\r' || json.back() == '\t'))
        json.remove_suffix(1);
    before_value();
    out_ += json;
    return *this;
}

JsonWriter& JsonWriter::write_signed(long long v) {
    before_value();
    out_ += std::to_string(v);
    return *this;
}

JsonWriter& JsonWriter::write_unsigned(unsigned long long v) {
    before_value();
    out_ += std::to_string(v);
    return *this;
}

JsonWriter& JsonWriter::value(double d) {
    if (!std::isfinite(d)) return null();
    before_value();
    char buf[32];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);  // shortest form that reads back exactly
    if (ec != std::errc()) throw Error("json writer: cannot format a number");
    out_.append(buf, end);
    return *this;
}

}  // namespace mimic
