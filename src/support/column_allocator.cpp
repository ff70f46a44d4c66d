#include "support/column_allocator.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <mutex>
#include <vector>

namespace mimic::column_memory {

namespace {

size_t round_up(size_t bytes) { return (bytes + kHugePage - 1) & ~(kHugePage - 1); }

// A block of round_up(bytes) starting on a huge-page boundary, or nullptr.
void* map_aligned(size_t bytes) {
    const size_t size = round_up(bytes);
    void* raw = ::mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return nullptr;
    const uintptr_t begin = reinterpret_cast<uintptr_t>(raw);
    const uintptr_t aligned = (begin + kHugePage - 1) & ~(kHugePage - 1);
    // Give back the slack on either side of the aligned block.
    if (aligned > begin) ::munmap(raw, aligned - begin);
    const uintptr_t end = aligned + size;
    if (begin + size + kHugePage > end) ::munmap(reinterpret_cast<void*>(end), begin + size + kHugePage - end);
#ifdef MADV_HUGEPAGE
    ::madvise(reinterpret_cast<void*>(aligned), size, MADV_HUGEPAGE);  // advice: failure is harmless
#endif
    return reinterpret_cast<void*>(aligned);
}

// Small enough that blocks outgrown while one big trace reads (kept, never
// reused by it) add little to its peak memory.
constexpr size_t kKeptBytes = size_t(64) << 20;

struct Block {
    void* p;
    size_t size;  // mapped bytes, a multiple of kHugePage
};

// Blocks handed out (so a smaller request that got a bigger kept block is
// given back whole) and blocks kept for reuse.
struct Pool {
    std::mutex mutex;
    std::vector<Block> live;
    std::vector<Block> kept;
    size_t kept_bytes = 0;
};

Pool& pool() {
    static Pool* p = new Pool;  // never destroyed: columns of static traces are freed after main returns
    return *p;
}

}  // namespace

void* take(size_t bytes) {
    const size_t size = round_up(bytes);
    Pool& pl = pool();
    std::lock_guard<std::mutex> lock(pl.mutex);
    // The smallest kept block that fits and wastes at most half of itself;
    // of equal ones the last given back, whose pages are the warmest.
    auto best = pl.kept.rend();
    for (auto it = pl.kept.rbegin(); it != pl.kept.rend(); ++it)
        if (it->size >= size && it->size <= 2 * size && (best == pl.kept.rend() || it->size < best->size)) best = it;
    Block block;
    if (best != pl.kept.rend()) {
        block = *best;
        pl.kept_bytes -= block.size;
        pl.kept.erase(std::next(best).base());
    } else {
        block = {map_aligned(bytes), size};
        if (!block.p) return nullptr;
    }
    pl.live.push_back(block);
    return block.p;
}

void give_back(void* p, size_t bytes) noexcept {
    Pool& pl = pool();
    std::lock_guard<std::mutex> lock(pl.mutex);
    auto it = std::find_if(pl.live.begin(), pl.live.end(), [&](const Block& b) { return b.p == p; });
    Block block = it != pl.live.end() ? *it : Block{p, round_up(bytes)};
    if (it != pl.live.end()) pl.live.erase(it);
    // Keep it unless that would pass the limit; then drop the oldest kept first.
    if (block.size > kKeptBytes / 4) {
        ::munmap(block.p, block.size);
        return;
    }
    while (pl.kept_bytes + block.size > kKeptBytes && !pl.kept.empty()) {
        ::munmap(pl.kept.front().p, pl.kept.front().size);
        pl.kept_bytes -= pl.kept.front().size;
        pl.kept.erase(pl.kept.begin());
    }
    try {
        pl.kept.push_back(block);
        pl.kept_bytes += block.size;
    } catch (...) {
        ::munmap(block.p, block.size);
    }
}

}  // namespace mimic::column_memory
