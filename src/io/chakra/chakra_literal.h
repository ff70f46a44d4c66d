// A cursor over the literal texts in Chakra IOInfo fields. Chakra's own
// converter writes them with Python's str() (single-quoted strings,
// True/False/None, tuples in parentheses); other producers, mimic included,
// write JSON. Both are read. The cursor builds no tree: the caller walks the
// text once and turns it straight into trace values, which is what keeps
// reading at millions of nodes per second.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "support/column_allocator.h"

namespace mimic {

enum class LiteralKind : uint8_t { Null, Bool, Int, Double, String };

struct Scalar {
    LiteralKind kind = LiteralKind::Null;
    bool b = false;
    int64_t i = 0;  // an integer above INT64_MAX keeps its uint64 bits
    double d = 0;
    std::string_view s;  // into the text, or into the cursor's storage when it had escapes
};

class LiteralCursor {
public:
    void reset(std::string_view text);

    // Next non-space character, '\0' at the end of the text.
    char peek() {
        while (pos_ < text_.size()) {
            const char c = text_[pos_];
            if (c != ' ' && c != '\n' && c != '\t' && c != '\r') return c;
            ++pos_;
        }
        return '\0';
    }
    bool at_list_open() {
        const char c = peek();
        return c == '[' || c == '(';
    }
    // Consumes '[' or '('; false (nothing consumed) when there is none.
    bool open_list() {
        const char c = peek();
        if (c != '[' && c != '(') return false;
        if (lists_.size() >= kMaxDepth) return fail();
        ++pos_;
        lists_.push_back({c == '[' ? ']' : ')', false});
        return true;
    }
    // Call before each element of the innermost open list: true when an
    // element follows (its comma consumed), false when the list ends (its
    // closer consumed) or the text is malformed (then ok() is false).
    bool next_element() {
        if (!ok_ || lists_.empty()) return fail();
        Open& top = lists_.back();
        char c = peek();
        if (c == top.closer) {
            ++pos_;
            lists_.pop_back();
            return false;
        }
        if (top.needs_comma) {
            if (c != ',') return fail();
            ++pos_;
            c = peek();
            // Python allows a trailing comma: "(1,)".
            if (c == top.closer) {
                ++pos_;
                lists_.pop_back();
                return false;
            }
        }
        if (c == '\0') return fail();
        top.needs_comma = true;
        return true;
    }
    // Reads a number, string, True/False/None (or JSON's spellings).
    bool read_scalar(Scalar& out);
    // Reads an integer; on anything else returns false and consumes nothing.
    bool read_int(int64_t& out) {
        peek();
        const char* p = text_.data() + pos_;
        const char* end = text_.data() + text_.size();
        if (p >= end) return false;
        const bool negative = *p == '-';
        if (negative || *p == '+') ++p;
        const char* digits = p;
        uint64_t v = 0;
        while (p < end && static_cast<unsigned>(*p - '0') < 10) v = v * 10 + static_cast<unsigned>(*p++ - '0');
        const size_t n = static_cast<size_t>(p - digits);
        // Up to 18 digits cannot overflow; longer integers go through read_number.
        if (n == 0 || n > 18 || (p < end && (*p == '.' || *p == 'e' || *p == 'E'))) return false;
        out = negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
        pos_ = static_cast<size_t>(p - text_.data());
        return true;
    }
    // Fast paths for the two shapes that make up most of a trace's text.
    // Each reads the whole list or, on anything unexpected, consumes nothing
    // and returns false (the caller then takes the general path).
    // A tensor tuple: [int, int, int, int, int] or [int x5, 'device'].
    bool read_tensor_tuple(int64_t (&fields)[5], std::string_view& device);
    // A list of at most `max` integers (a shape), appended to `out`.
    bool read_int_list(Column<int64_t>& out, size_t max);
    // Skips one value, list or scalar.
    bool skip_value();
    // True when only whitespace is left and every list was closed.
    bool finished();

    bool ok() const { return ok_; }
    // A position to come back to (text offset and list depth).
    struct Mark {
        size_t pos;
        size_t depth;
    };
    Mark mark() const { return {pos_, lists_.size()}; }
    void restore(Mark m) {
        pos_ = m.pos;
        lists_.resize(m.depth);
        ok_ = true;
    }

    static constexpr size_t kMaxDepth = 64;

private:
    bool fail() {
        ok_ = false;
        return false;
    }
    bool read_number(Scalar& out);
    bool read_string(char quote, Scalar& out);
    bool read_word(Scalar& out);

    struct Open {
        char closer;
        bool needs_comma;
    };
    std::string_view text_;
    size_t pos_ = 0;
    bool ok_ = true;
    std::vector<Open> lists_;
    std::deque<std::string> unescaped_;  // strings that had escapes; cleared by reset()
};

// Appends `s` to `out` as a JSON string literal (quotes and escapes).
void append_json_string(std::string& out, std::string_view s);

}  // namespace mimic
