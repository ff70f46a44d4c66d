#include "io/chakra/chakra_writer_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "support/error.h"

namespace mimic {

ChakraOutputFile::ChakraOutputFile(const std::string& path) : path_(path), temp_path_(path + ".partial") {
    fd_ = ::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) fail({path_, -1, -1, ""}, std::string("cannot create: ") + std::strerror(errno));
}

ChakraOutputFile::~ChakraOutputFile() {
    if (fd_ < 0) return;
    ::close(fd_);
    ::unlink(temp_path_.c_str());
}

void ChakraOutputFile::fail_and_remove(const std::string& what, int err) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    ::unlink(temp_path_.c_str());
    fail({path_, -1, -1, ""}, what + ": " + std::strerror(err));
}

void ChakraOutputFile::write(const char* data, size_t size) {
    while (size > 0) {
        const ssize_t n = ::write(fd_, data, size);
        if (n < 0) {
            if (errno == EINTR) continue;
            fail_and_remove("write failed", errno);
        }
        data += n;
        size -= static_cast<size_t>(n);
        written_ += static_cast<uint64_t>(n);
    }
}

void ChakraOutputFile::close() {
    if (fd_ < 0) return;
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) fail_and_remove("write failed", errno);
    // Only a complete file appears under the final name.
    if (::rename(temp_path_.c_str(), path_.c_str()) != 0)
        fail_and_remove("cannot rename the finished file into place", errno);
}

}  // namespace mimic
