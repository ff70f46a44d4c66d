// The file a Chakra writer fills: bytes go to PATH.partial in large
// writes, and close() renames it to PATH, so a failed or abandoned write
// leaves no truncated trace behind under the real name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace mimic {

class ChakraOutputFile {
public:
    // Throws mimic::Error when the file cannot be created.
    explicit ChakraOutputFile(const std::string& path);
    // Not closed: the partial file is removed.
    ~ChakraOutputFile();
    ChakraOutputFile(const ChakraOutputFile&) = delete;
    ChakraOutputFile& operator=(const ChakraOutputFile&) = delete;

    // Writes all `size` bytes; throws mimic::Error (and removes the partial
    // file) on a write error such as a full disk.
    void write(const char* data, size_t size);
    // Closes and moves the file into place; throws mimic::Error on failure.
    void close();
    uint64_t bytes_written() const { return written_; }
    const std::string& path() const { return path_; }

private:
    [[noreturn]] void fail_and_remove(const std::string& what, int err);

    std::string path_;
    std::string temp_path_;
    int fd_ = -1;
    uint64_t written_ = 0;
};

}  // namespace mimic
