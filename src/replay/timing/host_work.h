// Host time spent as work with a cache footprint, not in a tight loop.
//
// The original's thread ran Python's interpreter and autograd between two
// operators, over their own code and data, and the next operator found the
// first-level caches holding those, not the dispatcher's code or its
// tensors' metadata. A replay that spends the gap reading a clock keeps all
// of that hot: measured on 12 recordings (eleventh session), ops under a
// microsecond (empty, view, item, t) ran 25-45% faster than the same ops in
// the original's untraced calls. HostWork spends a gap stepping through a
// ring of code and a ring of data, one 256-byte code chunk and one cache
// line per step: a long gap (Python's optimizer loop) leaves the L1 caches
// as cold as the interpreter did, a short one (autograd's engine between two
// backward ops) barely touches them.
#pragma once

#include <cstddef>
#include <vector>

namespace mimic::replay {

class HostWork {
public:
    static constexpr size_t kCodeBytes = 64 * 1024;   // twice a usual 32 KiB L1i
    static constexpr size_t kDataBytes = 256 * 1024;  // several L1ds, a part of L2
    static constexpr size_t kChunkBytes = 256;

    // Maps the code ring (written, then made executable). Where the system
    // refuses executable mappings, the work touches data only.
    HostWork();
    ~HostWork();
    HostWork(const HostWork&) = delete;
    HostWork& operator=(const HostWork&) = delete;

    // Works until clock() >= until (both in the clock's unit).
    template <typename Clock>
    void until(Clock clock, double until) {
        while (clock() < until)
            for (int k = 0; k < 4; ++k) step();
    }
    void step();
    bool runs_code() const { return code_ != nullptr; }
    // Steps taken so far (tests).
    size_t steps() const { return steps_; }

private:
    using Chunk = void (*)();
    std::vector<unsigned char> data_;
    unsigned char* code_ = nullptr;
    size_t data_at_ = 0, chunk_at_ = 0, steps_ = 0;
};

}  // namespace mimic::replay
