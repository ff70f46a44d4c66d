// Streams one big JSON document without holding all of it: the top-level
// object's small fields are handed over whole, and the arrays named by the
// caller are cut into batches of complete elements, each batch a valid JSON
// array text followed by simdjson padding. This is how a trace larger than
// simdjson's 4 GiB document limit, or larger than memory, is read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "support/byte_source.h"
#include "support/grow_buffer.h"

namespace mimic {

// Bytes that must be readable after every text handed to a callback
// (simdjson's SIMDJSON_PADDING; checked by a static_assert in the .cpp).
constexpr size_t kJsonPadding = 64;

struct JsonStreamCallbacks {
    // Decides which top-level keys hold arrays to stream; "" names a document
    // that is itself an array.
    std::function<bool(std::string_view key)> stream_key;
    // A top-level field that is not streamed: its raw JSON text (padded).
    std::function<void(std::string_view key, std::string_view raw_value, uint64_t offset)> on_field;
    // A batch of `count` complete elements of the streamed array `key`, as
    // "[e1,e2,...]" (padded); element i starts at batch[starts[i]] and at
    // byte offsets[i] of the (uncompressed) input.
    std::function<void(std::string_view key, std::string_view batch, const std::vector<uint32_t>& starts,
                       const std::vector<uint64_t>& offsets)>
        on_batch;
};

class JsonStreamer {
public:
    // `batch_bytes`: how much array text to gather before handing a batch over.
    explicit JsonStreamer(ByteSource& source, size_t batch_bytes = 8 << 20);
    // Walks the whole document; throws mimic::Error naming the byte offset
    // on malformed structure, truncation or trailing garbage.
    void run(const JsonStreamCallbacks& callbacks);

    // Largest single element or field accepted (bounded memory on bad input:
    // a gzip bomb of one endless value fails here instead of growing the
    // window, the batch and simdjson's tape to several times its size). Real
    // nodes and events are kilobytes; the largest header fields, megabytes.
    static constexpr size_t kMaxElementBytes = size_t(256) << 20;

private:
    bool fill(size_t want_more);
    char peek_non_ws();
    size_t value_end(size_t start);
    std::string read_key();
    void stream_array(std::string_view key, const JsonStreamCallbacks& callbacks);
    void emit_field(std::string_view key, const JsonStreamCallbacks& callbacks);
    [[noreturn]] void malformed(const std::string& what) const;
    uint64_t offset_of(size_t pos) const { return base_offset_ + pos; }

    ByteSource& source_;
    size_t batch_bytes_;
    GrowBuffer buf_;
    size_t pos_ = 0;
    uint64_t base_offset_ = 0;  // stream offset of buf_[0]
    bool eof_ = false;
    GrowBuffer batch_;
    std::vector<uint32_t> starts_;
    std::vector<uint64_t> start_offsets_;
};

}  // namespace mimic
