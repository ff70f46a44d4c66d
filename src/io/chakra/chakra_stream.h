// The framing of a Chakra .et file: a stream of messages, each preceded by
// its byte length as a varint32. This layer only finds message boundaries
// (gzip undone by ByteSource); what a message means is the reader's job.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "support/byte_source.h"

namespace google::protobuf {
class MessageLite;
namespace io {
class FileOutputStream;
class CodedOutputStream;
}  // namespace io
}  // namespace google::protobuf

namespace mimic {

// Hands out the messages of a Chakra stream one at a time. Memory stays
// bounded by the data actually present: a length prefix is never trusted to
// size a buffer, bytes are read as they arrive and a prefix claiming more
// than the file holds fails once the file ends (or at once for a plain file
// whose size is known).
class ChakraFrameReader {
public:
    // Throws mimic::Error when the file cannot be opened.
    explicit ChakraFrameReader(const std::string& path);

    // Sets `message` to the next message's bytes (valid until the next call)
    // and `offset` to the byte offset of its length prefix in the
    // uncompressed stream. Returns false at a clean end of the stream.
    // Throws mimic::Error naming the file and byte offset on a bad varint, a
    // length past the end of the file, or a message over kMaxMessageBytes.
    bool next(std::string_view& message, uint64_t& offset);

    const std::string& path() const { return source_.path(); }
    bool is_gzip() const { return source_.is_gzip(); }
    // Uncompressed bytes consumed so far (for progress and speed figures).
    uint64_t position() const { return base_offset_ + pos_; }
    uint64_t file_position() const { return map_ ? pos_ : source_.file_position(); }
    uint64_t file_size() const { return source_.file_size(); }

    // protobuf parses at most INT_MAX bytes; 1 GiB is far above any real node.
    static constexpr uint64_t kMaxMessageBytes = uint64_t(1) << 30;

private:
    // Makes at least `want` bytes available from pos_; false if the stream
    // ends first (then fewer are available).
    bool ensure(size_t want);
    size_t available() const { return (map_ ? map_size_ : buf_.size()) - pos_; }
    const char* data() const { return map_ ? map_ : buf_.data(); }

    ByteSource source_;
    // A plain file is mapped: messages are views into the page cache, with
    // no copy and no resident memory of our own. Gzip goes through buf_.
    const char* map_ = nullptr;
    size_t map_size_ = 0;
    size_t released_ = 0;  // pages of the map before this offset were given back
    void release_consumed();
    std::vector<char> buf_;
    size_t pos_ = 0;
    uint64_t base_offset_ = 0;  // stream offset of data()[0]
    bool eof_ = false;

public:
    ~ChakraFrameReader();
    ChakraFrameReader(const ChakraFrameReader&) = delete;
    ChakraFrameReader& operator=(const ChakraFrameReader&) = delete;
};

// Writes varint32-framed messages to a file, through one buffered coded
// stream so that millions of small messages cost no per-message syscalls.
// The bytes go to PATH.partial, renamed to PATH by close(): a failed or
// abandoned write leaves no truncated trace behind.
class ChakraFrameWriter {
public:
    // Throws mimic::Error when the file cannot be created.
    explicit ChakraFrameWriter(const std::string& path);
    ~ChakraFrameWriter();
    ChakraFrameWriter(const ChakraFrameWriter&) = delete;
    ChakraFrameWriter& operator=(const ChakraFrameWriter&) = delete;

    void write(const google::protobuf::MessageLite& message);
    // Writes already-serialized message bytes with their length prefix.
    void write_bytes(std::string_view message);
    // Flushes, closes and moves the file into place; throws mimic::Error on
    // a write error. Without close() the destructor removes the partial file.
    void close();
    uint64_t bytes_written() const;

private:
    std::string path_;
    std::string temp_path_;  // written first, renamed to path_ by close()
    int fd_ = -1;
    uint64_t written_ = 0;
    std::unique_ptr<google::protobuf::io::FileOutputStream> file_;
    std::unique_ptr<google::protobuf::io::CodedOutputStream> coded_;
};

}  // namespace mimic
