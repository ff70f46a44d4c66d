#include "support/json_sequence.h"

#include <string>

#include "support/error.h"
#include "support/grow_buffer.h"
#include "support/text.h"

namespace mimic {

namespace {
constexpr size_t kReadChunk = 1 << 20;
}  // namespace

void for_each_json_object(ByteSource& source,
                          const std::function<void(std::string_view, uint64_t, uint64_t)>& on_object,
                          size_t max_object_bytes) {
    GrowBuffer buf;
    uint64_t base = 0;  // input offset of buf[0]
    size_t pos = 0;     // scan position in buf
    size_t start = 0;   // first byte of the object being scanned
    int depth = 0;      // braces and brackets open; 0 between objects
    bool in_string = false;
    bool escaped = false;
    uint64_t index = 0;
    auto where = [&](size_t at) { return ErrorLocation{source.path(), -1, static_cast<int64_t>(base + at), ""}; };
    for (;;) {
        if (pos == buf.size()) {
            // Keep only the object in progress; between objects nothing.
            const size_t keep_from = depth > 0 ? start : pos;
            buf.erase_front(keep_from);
            base += keep_from;
            pos -= keep_from;
            start -= depth > 0 ? keep_from : start;
            if (pos > max_object_bytes)
                fail(where(0), "JSON object " + std::to_string(index) + " is longer than " +
                                   std::to_string(max_object_bytes >> 20) + " MiB");
            const size_t got = source.read_into(buf.prepare(kReadChunk), kReadChunk);
            buf.commit(got);
            if (got == 0) break;
        }
        const char c = buf[pos];
        if (depth == 0) {
            if (is_json_space(c)) {
                ++pos;
                continue;
            }
            if (c != '{')
                fail(where(pos), std::string("expected '{' to start JSON object ") + std::to_string(index) + ", found '" +
                                     c + "'");
            start = pos;
            depth = 1;
            ++pos;
            continue;
        }
        ++pos;
        if (in_string) {
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') in_string = false;
            continue;
        }
        if (c == '"') in_string = true;
        else if (c == '{' || c == '[') ++depth;
        else if (c == '}' || c == ']') {
            if (--depth == 0) {
                on_object(std::string_view(buf.data() + start, pos - start), base + start, index++);
            }
        }
    }
    if (depth > 0) fail(where(start), "JSON object " + std::to_string(index) + " is cut short by the end of the file");
}

}  // namespace mimic
