#include "replay/timing/host_work.h"

#include <sys/mman.h>

#include <cstring>

namespace mimic::replay {
namespace {

constexpr size_t kChunks = HostWork::kCodeBytes / HostWork::kChunkBytes;

#if defined(__x86_64__)
// Each chunk: 8-byte NOPs (0f 1f 84 00 00 00 00 00), one-byte NOPs to fill, and a ret.
void fill_chunk(unsigned char* c) {
    static const unsigned char nop8[8] = {0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00};
    size_t i = 0;
    for (; i + 8 < HostWork::kChunkBytes; i += 8) std::memcpy(c + i, nop8, 8);
    for (; i + 1 < HostWork::kChunkBytes; ++i) c[i] = 0x90;
    c[HostWork::kChunkBytes - 1] = 0xc3;
}
constexpr bool kCanWriteCode = true;
#else
void fill_chunk(unsigned char*) {}
constexpr bool kCanWriteCode = false;  // data only on other architectures
#endif

}  // namespace

HostWork::HostWork() : data_(kDataBytes, 1) {
    if (!kCanWriteCode) return;
    void* m = mmap(nullptr, kCodeBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return;
    auto* c = static_cast<unsigned char*>(m);
    for (size_t k = 0; k < kChunks; ++k) fill_chunk(c + k * kChunkBytes);
    if (mprotect(m, kCodeBytes, PROT_READ | PROT_EXEC) != 0) {
        munmap(m, kCodeBytes);
        return;
    }
    code_ = c;
}

HostWork::~HostWork() {
    if (code_) munmap(code_, kCodeBytes);
}

void HostWork::step() {
    data_[data_at_] = static_cast<unsigned char>(data_[data_at_] + 1);
    data_at_ += 64;
    if (data_at_ >= data_.size()) data_at_ = 0;
    if (code_) {
        // An object pointer made a function pointer through memcpy: the
        // direct cast is only conditionally supported in ISO C++.
        void* at = code_ + chunk_at_ * kChunkBytes;
        Chunk chunk;
        std::memcpy(&chunk, &at, sizeof chunk);
        chunk();
        if (++chunk_at_ == kChunks) chunk_at_ = 0;
    }
    ++steps_;
}

}  // namespace mimic::replay
