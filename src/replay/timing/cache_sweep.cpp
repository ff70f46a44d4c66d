#include "replay/timing/cache_sweep.h"

#include <unistd.h>

#include <algorithm>

namespace mimic::replay {
namespace {

constexpr size_t kFallbackL2Bytes = size_t(2) << 20;
// An L2 reported larger than this is a misreport (or a last-level cache):
// sweeping it all would cost milliseconds per pass for nothing.
constexpr size_t kMaxL2Bytes = size_t(32) << 20;
constexpr size_t kLineBytes = 64;

}  // namespace

size_t cache_sweep_bytes(long l2_bytes) {
    const size_t l2 = l2_bytes > 0 ? std::min(size_t(l2_bytes), kMaxL2Bytes) : kFallbackL2Bytes;
    return 2 * l2;
}

CacheSweep::CacheSweep() : CacheSweep(cache_sweep_bytes(sysconf(_SC_LEVEL2_CACHE_SIZE))) {}

CacheSweep::CacheSweep(size_t bytes) : scratch_(bytes, 0) {}

size_t CacheSweep::sweep() {
    size_t lines = 0;
    for (size_t i = 0; i < scratch_.size(); i += kLineBytes, ++lines)
        scratch_[i] = static_cast<unsigned char>(scratch_[i] + 1);
    return lines;
}

}  // namespace mimic::replay
