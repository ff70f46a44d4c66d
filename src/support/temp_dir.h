// A directory of its own under $TMPDIR (else /tmp), removed with everything in
// it when the object goes: the FIFOs and reports ranks exchange.
#pragma once

#include <string>

namespace mimic {

class TempDir {
public:
    // `prefix`: the directory's name before its random part ("mimic-replay").
    // Throws mimic::Error naming the path when it cannot be created.
    explicit TempDir(const std::string& prefix);
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

}  // namespace mimic
