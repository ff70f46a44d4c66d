#include "compose/json_tree.h"

#include <simdjson.h>
#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <memory>

#include "support/byte_source.h"
#include "support/error.h"
#include "support/json_writer.h"
#include "support/text.h"

namespace mimic::compose {

JsonValue JsonValue::of_int(int64_t v) {
    JsonValue j;
    j.kind_ = Kind::Int;
    j.int_ = v;
    return j;
}
JsonValue JsonValue::of_uint(uint64_t v) {
    JsonValue j;
    j.kind_ = Kind::UInt;
    j.uint_ = v;
    return j;
}
JsonValue JsonValue::of_double(double v) {
    JsonValue j;
    j.kind_ = Kind::Double;
    j.double_ = v;
    return j;
}
JsonValue JsonValue::of_bool(bool v) {
    JsonValue j;
    j.kind_ = Kind::Bool;
    j.bool_ = v;
    return j;
}
JsonValue JsonValue::of_string(std::string v) {
    JsonValue j;
    j.kind_ = Kind::String;
    j.string_ = std::move(v);
    return j;
}
JsonValue JsonValue::array() {
    JsonValue j;
    j.kind_ = Kind::Array;
    return j;
}
JsonValue JsonValue::object() {
    JsonValue j;
    j.kind_ = Kind::Object;
    return j;
}

int64_t JsonValue::as_int() const {
    switch (kind_) {
        case Kind::Int: return int_;
        case Kind::UInt: return static_cast<int64_t>(uint_);
        case Kind::Double: return static_cast<int64_t>(double_);
        case Kind::Bool: return bool_ ? 1 : 0;
        default: return 0;
    }
}

double JsonValue::as_double() const {
    switch (kind_) {
        case Kind::Int: return static_cast<double>(int_);
        case Kind::UInt: return static_cast<double>(uint_);
        case Kind::Double: return double_;
        case Kind::Bool: return bool_ ? 1 : 0;
        default: return 0;
    }
}

const JsonValue* JsonValue::find(std::string_view key) const {
    for (const Member& m : members_)
        if (m.first == key) return &m.second;
    return nullptr;
}

JsonValue* JsonValue::find(std::string_view key) {
    for (Member& m : members_)
        if (m.first == key) return &m.second;
    return nullptr;
}

JsonValue& JsonValue::operator[](std::string_view key) {
    if (JsonValue* v = find(key)) return *v;
    kind_ = Kind::Object;
    members_.emplace_back(std::string(key), JsonValue());
    return members_.back().second;
}

namespace {

JsonValue from_dom(const simdjson::dom::element& e, int depth, const std::string& what) {
    if (depth > 256) fail({what, -1, -1, ""}, "JSON nested more than 256 levels deep");
    switch (e.type()) {
        case simdjson::dom::element_type::ARRAY: {
            JsonValue out = JsonValue::array();
            // value_unsafe() of a temporary result is an rvalue into it: copy it out first.
            simdjson::dom::array items = e.get_array().value_unsafe();
            for (simdjson::dom::element item : items) out.items().push_back(from_dom(item, depth + 1, what));
            return out;
        }
        case simdjson::dom::element_type::OBJECT: {
            JsonValue out = JsonValue::object();
            simdjson::dom::object members = e.get_object().value_unsafe();
            for (simdjson::dom::key_value_pair kv : members)
                out.members().emplace_back(std::string(kv.key), from_dom(kv.value, depth + 1, what));
            return out;
        }
        case simdjson::dom::element_type::INT64: return JsonValue::of_int(e.get_int64().value_unsafe());
        case simdjson::dom::element_type::UINT64: return JsonValue::of_uint(e.get_uint64().value_unsafe());
        case simdjson::dom::element_type::DOUBLE: return JsonValue::of_double(e.get_double().value_unsafe());
        case simdjson::dom::element_type::STRING: return JsonValue::of_string(std::string(e.get_string().value_unsafe()));
        case simdjson::dom::element_type::BOOL: return JsonValue::of_bool(e.get_bool().value_unsafe());
        case simdjson::dom::element_type::NULL_VALUE: return JsonValue();
    }
    return JsonValue();
}

void append_number(std::string& out, double d) {
    JsonWriter w(0);
    w.value(d);
    out += w.str();
}

void append(std::string& out, const JsonValue& v, bool one_per_line, int depth) {
    switch (v.kind()) {
        case JsonValue::Kind::Null: out += "null"; return;
        case JsonValue::Kind::Bool: out += v.as_bool() ? "true" : "false"; return;
        case JsonValue::Kind::Int: {
            char buf[24];
            out.append(buf, std::to_chars(buf, buf + sizeof buf, v.as_int()).ptr);
            return;
        }
        case JsonValue::Kind::UInt: {
            char buf[24];
            out.append(buf, std::to_chars(buf, buf + sizeof buf, static_cast<uint64_t>(v.as_int())).ptr);
            return;
        }
        case JsonValue::Kind::Double: append_number(out, v.as_double()); return;
        case JsonValue::Kind::String: out += json_quote(v.as_string()); return;
        case JsonValue::Kind::Array: {
            // Elements of a top-level member's array (depth 1) each on a line.
            bool lines = one_per_line && depth == 1;
            out += '[';
            bool first = true;
            for (const JsonValue& item : v.items()) {
                if (!first) out += ',';
                if (lines) out += "\n  ";
                first = false;
                append(out, item, one_per_line, depth + 1);
            }
            if (lines && !v.items().empty()) out += '\n';
            out += ']';
            return;
        }
        case JsonValue::Kind::Object: {
            bool lines = one_per_line && depth == 0;
            out += '{';
            bool first = true;
            for (const JsonValue::Member& m : v.members()) {
                if (!first) out += ',';
                if (lines) out += "\n";
                first = false;
                out += json_quote(m.first);
                out += lines ? ": " : ":";
                append(out, m.second, one_per_line, depth + 1);
            }
            if (lines) out += '\n';
            out += '}';
            return;
        }
    }
}

}  // namespace

JsonValue parse_json_text(std::string_view text, const std::string& what) {
    simdjson::dom::parser parser;
    simdjson::padded_string padded(text);
    simdjson::dom::element root;
    if (auto error = parser.parse(padded).get(root); error != simdjson::SUCCESS)
        fail({what, -1, -1, ""}, std::string("not valid JSON: ") + simdjson::error_message(error));
    return from_dom(root, 0, what);
}

JsonValue read_json_file(const std::string& path) { return parse_json_text(read_whole_file(path), path); }

std::string to_json_text(const JsonValue& value, bool one_per_line) {
    std::string out;
    append(out, value, one_per_line, 0);
    if (one_per_line) out += '\n';
    return out;
}

void write_json_file(const std::string& path, const JsonValue& value, bool one_per_line) {
    std::string text = to_json_text(value, one_per_line);
    if (ends_with(path, ".gz")) {
        gzFile f = gzopen(path.c_str(), "wb6");
        if (!f) fail({path, -1, -1, ""}, "cannot write this file");
        size_t done = 0;
        bool ok = true;
        while (ok && done < text.size()) {
            unsigned chunk = static_cast<unsigned>(std::min<size_t>(text.size() - done, 1u << 30));
            ok = gzwrite(f, text.data() + done, chunk) == static_cast<int>(chunk);
            done += chunk;
        }
        if (gzclose(f) != Z_OK || !ok) fail({path, -1, -1, ""}, "writing failed (disk full?)");
        return;
    }
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "wb"), &std::fclose);
    if (!f) fail({path, -1, -1, ""}, "cannot write this file");
    if (std::fwrite(text.data(), 1, text.size(), f.get()) != text.size() || std::fflush(f.get()) != 0)
        fail({path, -1, -1, ""}, "writing failed (disk full?)");
}

}  // namespace mimic::compose
