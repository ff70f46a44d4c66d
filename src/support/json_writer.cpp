#include "support/json_writer.h"

#include <charconv>
#include <cmath>

#include "support/error.h"
#include "support/utf8.h"

namespace mimic {
namespace {

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
