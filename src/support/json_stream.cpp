#include "support/json_stream.h"

#include <simdjson.h>

#include <cstring>

#include "support/error.h"
#include "support/text.h"

namespace mimic {

static_assert(kJsonPadding >= simdjson::SIMDJSON_PADDING, "padding must cover simdjson's");

namespace {
constexpr size_t kReadChunk = 4 << 20;

// Classes of bytes the structural scan must stop at; everything else is
// skipped in a tight loop. Inside a container commas do not matter, so the
// nested table leaves them out (ET nodes are dense with commas).
struct ScanTable {
    unsigned char cls[256] = {};
    constexpr explicit ScanTable(bool stop_at_comma) {
        cls[static_cast<unsigned char>('"')] = 1;
        cls[static_cast<unsigned char>('{')] = 2;
        cls[static_cast<unsigned char>('[')] = 2;
        cls[static_cast<unsigned char>('}')] = 3;
        cls[static_cast<unsigned char>(']')] = 3;
        if (stop_at_comma) cls[static_cast<unsigned char>(',')] = 4;
    }
};
constexpr ScanTable kScanTop(true);
constexpr ScanTable kScanNested(false);
}  // namespace

JsonStreamer::JsonStreamer(ByteSource& source, size_t batch_bytes) : source_(source), batch_bytes_(batch_bytes) {}

void JsonStreamer::malformed(const std::string& what) const {
    fail({source_.path(), -1, static_cast<int64_t>(offset_of(pos_)), ""}, "malformed JSON: " + what);
}

// Makes at least `want_more` bytes past pos_ available if the input has them;
// drops consumed bytes first. Returns false if the input ended before that.
bool JsonStreamer::fill(size_t want_more) {
    while (buf_.size() - pos_ < want_more && !eof_) {
        if (pos_ > 0) {
            buf_.erase_front(pos_);
            base_offset_ += pos_;
            pos_ = 0;
        }
        size_t ask = std::max(kReadChunk, want_more - buf_.size());
        // A small plain file needs no 4 MiB window (fuzzers read millions of them).
        if (!source_.is_gzip() && source_.file_size() > 0) {
            uint64_t left = source_.file_size() - std::min(source_.file_size(), source_.file_position());
            ask = std::min(ask, std::max(want_more - buf_.size(), static_cast<size_t>(left) + 1));
        }
        size_t got = source_.read_into(buf_.prepare(ask), ask);
        buf_.commit(got);
        if (got == 0) eof_ = true;
    }
    return buf_.size() - pos_ >= want_more;
}

char JsonStreamer::peek_non_ws() {
    for (;;) {
        while (pos_ < buf_.size() && is_json_space(buf_[pos_])) ++pos_;
        if (pos_ < buf_.size()) return buf_[pos_];
        if (!fill(1)) return '\0';
    }
}

// Returns the index one past the end of the JSON value starting at `start`
// (relative to buf_), reading more input as needed. Strings, objects and
// arrays are matched; scalars end at the next ',', '}' or ']'. Positions are
// kept relative to pos_ because fill() may move the buffer.
size_t JsonStreamer::value_end(size_t start) {
    size_t rel = start - pos_;
    int depth = 0;
    bool in_string = false;
    for (;;) {
        size_t i = pos_ + rel;
        const size_t n = buf_.size();
        const char* b = buf_.data();
        while (i < n) {
            if (in_string) {
                const void* q = std::memchr(b + i, '"', n - i);
                if (!q) {
                    i = n;
                    break;
                }
                size_t qi = static_cast<size_t>(static_cast<const char*>(q) - b);
                // A quote preceded by an odd number of backslashes is escaped.
                size_t bs = 0;
                while (qi - bs > pos_ && b[qi - 1 - bs] == '\\') ++bs;
                i = qi + 1;
                if (bs % 2 == 0) {
                    in_string = false;
                    if (depth == 0) return i;
                }
                continue;
            }
            const unsigned char* table = depth > 0 ? kScanNested.cls : kScanTop.cls;
            while (i < n && table[static_cast<unsigned char>(b[i])] == 0) ++i;
            if (i == n) break;
            unsigned char cls = table[static_cast<unsigned char>(b[i])];
            if (cls == 1) {
                in_string = true;
                ++i;
                continue;
            }
            if (cls == 2) {
                ++depth;
                ++i;
                continue;
            }
            if (cls == 3) {
                if (depth == 0) return i;  // end of a scalar inside a container
                --depth;
                ++i;
                if (depth == 0) return i;
                continue;
            }
            // ','
            if (depth == 0) return i;
            ++i;
        }
        rel = i - pos_;
        if (rel > kMaxElementBytes)
            malformed("a single value is larger than " + std::to_string(kMaxElementBytes >> 20) + " MiB");
        if (!fill(rel + 1)) {
            if (!in_string && depth == 0 && rel > 0) return pos_ + rel;  // scalar at end of input
            malformed("input ends inside a value (truncated file?)");
        }
    }
}

std::string JsonStreamer::read_key() {
    if (peek_non_ws() != '"') malformed("expected an object key");
    size_t end = value_end(pos_);
    std::string key(buf_.data() + pos_ + 1, buf_.data() + end - 1);
    pos_ = end;
    if (peek_non_ws() != ':') malformed("expected ':' after key \"" + key + "\"");
    ++pos_;
    return key;
}

void JsonStreamer::emit_field(std::string_view key, const JsonStreamCallbacks& callbacks) {
    peek_non_ws();
    size_t end = value_end(pos_);
    if (end == pos_) malformed("missing value for key \"" + std::string(key) + "\"");
    uint64_t offset = offset_of(pos_);
    batch_.clear();
    batch_.append(buf_.data() + pos_, end - pos_);
    size_t len = batch_.size();
    std::memset(batch_.prepare(kJsonPadding), 0, kJsonPadding);
    pos_ = end;
    if (callbacks.on_field) callbacks.on_field(key, std::string_view(batch_.data(), len), offset);
}

void JsonStreamer::stream_array(std::string_view key, const JsonStreamCallbacks& callbacks) {
    ++pos_;  // '['
    batch_.clear();
    batch_.push_back('[');
    size_t count = 0;
    starts_.clear();
    start_offsets_.clear();
    auto flush = [&] {
        if (count == 0) return;
        batch_.push_back(']');
        size_t len = batch_.size();
        std::memset(batch_.prepare(kJsonPadding), 0, kJsonPadding);
        callbacks.on_batch(key, std::string_view(batch_.data(), len), starts_, start_offsets_);
        batch_.clear();
        batch_.push_back('[');
        starts_.clear();
        start_offsets_.clear();
        count = 0;
    };
    if (peek_non_ws() == ']') {
        ++pos_;
        return;
    }
    for (;;) {
        char c = peek_non_ws();
        if (c == '\0') malformed("input ends inside array \"" + std::string(key) + "\" (truncated file?)");
        size_t end = value_end(pos_);
        if (end == pos_) malformed("empty element in array \"" + std::string(key) + "\"");
        if (batch_.size() > UINT32_MAX - (end - pos_) - 2) flush();
        if (count > 0) batch_.push_back(',');
        starts_.push_back(static_cast<uint32_t>(batch_.size()));
        start_offsets_.push_back(offset_of(pos_));
        batch_.append(buf_.data() + pos_, end - pos_);
        ++count;
        pos_ = end;
        c = peek_non_ws();
        if (c == ',') {
            ++pos_;
            if (batch_.size() >= batch_bytes_) flush();
            continue;
        }
        if (c == ']') {
            ++pos_;
            flush();
            return;
        }
        malformed(c == '\0' ? "input ends inside array \"" + std::string(key) + "\" (truncated file?)"
                            : "expected ',' or ']' in array \"" + std::string(key) + "\"");
    }
}

void JsonStreamer::run(const JsonStreamCallbacks& callbacks) {
    char c = peek_non_ws();
    // peek_non_ws() gives '\0' both at the end and for a NUL byte: only the end is an empty file.
    if (pos_ >= buf_.size()) fail({source_.path(), -1, 0, ""}, "empty file");
    if (c == '[') {
        if (!callbacks.stream_key || !callbacks.stream_key("")) malformed("expected a JSON object at the top level");
        stream_array("", callbacks);
    } else if (c == '{') {
        ++pos_;
        if (peek_non_ws() == '}') {
            ++pos_;
        } else {
            for (;;) {
                std::string key = read_key();
                c = peek_non_ws();
                if (c == '[' && callbacks.stream_key && callbacks.stream_key(key)) {
                    stream_array(key, callbacks);
                } else {
                    emit_field(key, callbacks);
                }
                c = peek_non_ws();
                if (c == ',') {
                    ++pos_;
                    continue;
                }
                if (c == '}') {
                    ++pos_;
                    break;
                }
                malformed(c == '\0' ? "input ends inside the top-level object (truncated file?)"
                                    : "expected ',' or '}' after the value of \"" + key + "\"");
            }
        }
    } else {
        malformed("expected a JSON object or array at the top level");
    }
    peek_non_ws();
    if (pos_ < buf_.size()) malformed("trailing data after the top-level value");
}

}  // namespace mimic
