// The readers take paths, so each fuzz input is handed over as a file: an
// in-memory file (memfd) named by /proc/self/fd/N, rewritten per input, so
// the fuzzer never touches the disk. Falls back to a temporary file where
// memfd is unavailable.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace mimic::fuzz {

class InputFile {
public:
    InputFile() {
        fd_ = ::memfd_create("mimic-fuzz-input", 0);
        if (fd_ >= 0) {
            path_ = "/proc/self/fd/" + std::to_string(fd_);
            return;
        }
        const char* tmp = std::getenv("TMPDIR");
        path_ = std::string(tmp && *tmp ? tmp : "/tmp") + "/mimic-fuzz-XXXXXX";
        fd_ = ::mkstemp(path_.data());
        if (fd_ < 0) {
            std::perror("mimic fuzz: cannot create an input file");
            std::abort();  // a harness failure, not a finding
        }
        unlink_ = true;
    }
    ~InputFile() {
        if (fd_ >= 0) ::close(fd_);
        if (unlink_) ::unlink(path_.c_str());
    }
    InputFile(const InputFile&) = delete;
    InputFile& operator=(const InputFile&) = delete;

    // Replaces the file's content with `data`; returns its path.
    const std::string& write(const uint8_t* data, size_t size) {
        if (::ftruncate(fd_, 0) != 0) std::abort();
        size_t done = 0;
        while (done < size) {
            ssize_t n = ::pwrite(fd_, data + done, size - done, static_cast<off_t>(done));
            if (n <= 0) std::abort();
            done += static_cast<size_t>(n);
        }
        return path_;
    }

private:
    int fd_ = -1;
    std::string path_;
    bool unlink_ = false;
};

}  // namespace mimic::fuzz
