// Reads a file as a stream of uncompressed bytes, gzip or plain, detected from
// the content (magic 1f 8b), never from the name. Big traces are read in
// chunks so that neither the compressed nor the unpacked text must fit in
// memory at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace mimic {

class ByteSource {
public:
    // Throws mimic::Error when the file cannot be opened.
    explicit ByteSource(const std::string& path);
    ~ByteSource();
    ByteSource(const ByteSource&) = delete;
    ByteSource& operator=(const ByteSource&) = delete;

    // Appends up to `max_bytes` uncompressed bytes to `out`; returns how many
    // were appended, 0 at the end. Throws on a truncated or corrupt gzip.
    size_t read(std::vector<char>& out, size_t max_bytes);
    // Writes up to `max_bytes` into `dst`; returns how many, 0 at the end.
    size_t read_into(char* dst, size_t max_bytes);

    const std::string& path() const { return path_; }
    bool is_gzip() const { return gzip_; }
    // Uncompressed bytes handed out so far.
    uint64_t position() const { return produced_; }
    // Compressed bytes consumed so far (file offset); for progress bars.
    uint64_t file_position() const { return consumed_; }
    uint64_t file_size() const { return file_size_; }

private:
    size_t read_plain(char* dst, size_t n);
    size_t read_gzip(char* dst, size_t n);

    std::string path_;
    std::FILE* file_ = nullptr;
    bool gzip_ = false;
    bool gzip_done_ = false;
    uint64_t produced_ = 0;
    uint64_t consumed_ = 0;
    uint64_t file_size_ = 0;
    struct Inflater;
    std::unique_ptr<Inflater> inflater_;
};

// Reads a whole file (gzip or plain) into memory; for small inputs only.
std::string read_whole_file(const std::string& path);

// The first `max_bytes` uncompressed bytes of a file (all of it when shorter):
// what sniffing a file's kind, or a field near its top, needs.
std::string read_file_head(const std::string& path, size_t max_bytes);

// True when the first bytes of the file are the gzip magic.
bool file_is_gzip(const std::string& path);

}  // namespace mimic
