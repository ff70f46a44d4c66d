// A small streaming JSON writer for reports: objects and arrays nest by
// begin/end calls, keys and commas are placed for the caller, strings are
// escaped (and invalid UTF-8 replaced, since trace names are arbitrary bytes),
// numbers are written exactly (doubles in shortest round-trip form; NaN and
// infinities, which JSON cannot hold, become null).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mimic {

class JsonWriter {
public:
    // `indent` spaces per level; 0 writes everything on one line.
    explicit JsonWriter(int indent = 2) : indent_(indent) {}

    JsonWriter& begin_object();
    JsonWriter& end_object();
    JsonWriter& begin_array();
    JsonWriter& end_array();
    // Names the next value; only inside an object.
    JsonWriter& key(std::string_view name);

    JsonWriter& value(std::string_view s);
    JsonWriter& value(const char* s) { return value(std::string_view(s)); }
    JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
    JsonWriter& value(bool b);
    JsonWriter& value(int v) { return write_signed(v); }
    JsonWriter& value(long v) { return write_signed(v); }
    JsonWriter& value(long long v) { return write_signed(v); }
    JsonWriter& value(unsigned v) { return write_unsigned(v); }
    JsonWriter& value(unsigned long v) { return write_unsigned(v); }
    JsonWriter& value(unsigned long long v) { return write_unsigned(v); }
    JsonWriter& value(double d);
    JsonWriter& null();
    // A value that is already JSON text (another report embedded whole); the
    // caller vouches that it is one valid value. Trailing whitespace is dropped.
    JsonWriter& raw(std::string_view json);

    // key(name).value(v) in one call.
    template <typename T>
    JsonWriter& field(std::string_view name, const T& v) {
        key(name);
        return value(v);
    }

    // The text so far; complete once every begin has its end.
    const std::string& str() const { return out_; }
    bool complete() const { return stack_.empty() && wrote_root_; }

private:
    enum class Frame : uint8_t { Object, Array };
    JsonWriter& write_signed(long long v);
    JsonWriter& write_unsigned(unsigned long long v);
    void before_value();
    void newline();
    void write_escaped(std::string_view s);

    int indent_;
    std::string out_;
    std::vector<Frame> stack_;
    std::vector<bool> first_;  // per open frame: nothing written into it yet
    bool key_pending_ = false;
    bool wrote_root_ = false;
};

// Escapes `s` as a JSON string literal, quotes included.
std::string json_quote(std::string_view s);

}  // namespace mimic
