// A mutable JSON document, for the commands that rewrite an execution trace
// (cut, scale, obfuscate). The readers in io/ build the columnar Trace and
// drop what mimic does not use; a rewrite must instead give back every field
// it did not change, in its order, so that other tools still read the result.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mimic::compose {

class JsonValue {
public:
    enum class Kind : uint8_t { Null, Bool, Int, UInt, Double, String, Array, Object };

    JsonValue() = default;
    static JsonValue of_int(int64_t v);
    static JsonValue of_uint(uint64_t v);
    static JsonValue of_double(double v);
    static JsonValue of_bool(bool v);
    static JsonValue of_string(std::string v);
    static JsonValue array();
    static JsonValue object();

    Kind kind() const { return kind_; }
    bool is_null() const { return kind_ == Kind::Null; }
    bool is_string() const { return kind_ == Kind::String; }
    bool is_array() const { return kind_ == Kind::Array; }
    bool is_object() const { return kind_ == Kind::Object; }
    bool is_integer() const { return kind_ == Kind::Int || kind_ == Kind::UInt; }
    bool is_number() const { return is_integer() || kind_ == Kind::Double; }

    // Scalars; the caller checks the kind first.
    bool as_bool() const { return bool_; }
    int64_t as_int() const;  // Int or UInt (wrapping above INT64_MAX) or Double (truncated)
    double as_double() const;
    const std::string& as_string() const { return string_; }
    std::string& mutable_string() { return string_; }

    // Arrays.
    std::vector<JsonValue>& items() { return items_; }
    const std::vector<JsonValue>& items() const { return items_; }

    // Objects keep their members in document order.
    using Member = std::pair<std::string, JsonValue>;
    std::vector<Member>& members() { return members_; }
    const std::vector<Member>& members() const { return members_; }
    const JsonValue* find(std::string_view key) const;
    JsonValue* find(std::string_view key);
    // The member `key`, added at the end (as null) when missing.
    JsonValue& operator[](std::string_view key);

private:
    Kind kind_ = Kind::Null;
    bool bool_ = false;
    int64_t int_ = 0;
    uint64_t uint_ = 0;
    double double_ = 0;
    std::string string_;
    std::vector<JsonValue> items_;
    std::vector<Member> members_;
};

// Calls fn(JsonValue&) on every string value under `v` (object keys aside).
template <typename Fn>
void visit_strings(JsonValue& v, Fn&& fn) {
    if (v.is_string()) fn(v);
    for (JsonValue& item : v.items()) visit_strings(item, fn);
    for (JsonValue::Member& m : v.members()) visit_strings(m.second, fn);
}

// Reads a JSON file, gzip or plain; throws mimic::Error naming the file.
JsonValue read_json_file(const std::string& path);
JsonValue parse_json_text(std::string_view text, const std::string& what);

// Compact JSON text. With `one_per_line`, the elements of every top-level
// array member each start a line (an ET's nodes stay readable and diffable).
std::string to_json_text(const JsonValue& value, bool one_per_line = false);

// Writes `value` to `path` (gzip when the name ends in .gz); throws
// mimic::Error naming the file when it cannot be written.
void write_json_file(const std::string& path, const JsonValue& value, bool one_per_line = true);

}  // namespace mimic::compose
