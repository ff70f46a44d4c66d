#include "replay/timing/fresh_page_allocator.h"

#include <c10/core/CPUAllocator.h>
#include <c10/core/impl/alloc_cpu.h>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <limits>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

namespace mimic::replay {

namespace {

size_t page_bytes() {
    static const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    return page;
}

// The fresh mappings live, by address, so that one deleter frees both kinds:
// raw_allocate()'s callers free through raw_deleter() without the context.
struct Mappings {
    std::mutex mutex;
    std::unordered_map<void*, size_t> bytes;
    std::atomic<size_t> count{0};
    std::atomic<int64_t> mapped_bytes{0};
    c10::DeleterFnPtr previous_raw_deleter = nullptr;
    // Freed mappings not yet given back (see unmap_freed()), and their bytes.
    std::vector<std::pair<void*, size_t>> freed;
    size_t freed_bytes = 0;
};

// Beyond this, a freed mapping is unmapped at once: parking is for the
// original's faults of one iteration, not for a trace that would run the
// machine out of memory.
constexpr size_t kMaxParkedBytes = size_t(1) << 30;

Mappings& mappings() {
    static Mappings* m = new Mappings;  // never destroyed: tensors may be freed after main returns
    return *m;
}

void release(void* p) {
    Mappings& m = mappings();
    if (m.count.load(std::memory_order_acquire) > 0) {
        std::lock_guard<std::mutex> lock(m.mutex);
        auto it = m.bytes.find(p);
        if (it != m.bytes.end()) {
            // Reported to the profiler as libtorch's CPU allocator reports a free.
            const int64_t size = static_cast<int64_t>(it->second);
            const int64_t total = m.mapped_bytes.fetch_sub(size, std::memory_order_relaxed) - size;
            c10::reportMemoryUsageToProfiler(p, -size, total, 0, c10::Device(c10::DeviceType::CPU));
            if (m.freed_bytes + it->second <= kMaxParkedBytes) {
                m.freed.emplace_back(p, it->second);
                m.freed_bytes += it->second;
            } else {
                ::munmap(p, it->second);
            }
            m.bytes.erase(it);
            m.count.fetch_sub(1, std::memory_order_release);
            return;
        }
    }
    if (m.previous_raw_deleter) m.previous_raw_deleter(p);
    else c10::free_cpu(p);
}

}  // namespace

FreshPageAllocator::FreshPageAllocator() : previous_(c10::GetCPUAllocator()) {
    mappings().previous_raw_deleter = previous_->raw_deleter();
}

void keep_heap_pages() {
    constexpr int kMaxMmapThreshold = 32 << 20;  // glibc's DEFAULT_MMAP_THRESHOLD_MAX on 64-bit
    mallopt(M_MMAP_THRESHOLD, kMaxMmapThreshold);
    mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
}

FreshPageAllocator& FreshPageAllocator::install() {
    static FreshPageAllocator* instance = [] {
        auto* a = new FreshPageAllocator;  // never destroyed, as libtorch's own
        c10::SetCPUAllocator(a, /*priority=*/1);
        return a;
    }();
    return *instance;
}

c10::DataPtr FreshPageAllocator::allocate(size_t bytes) const {
    const size_t page = page_bytes();
    const int64_t pages = static_cast<int64_t>((bytes + page - 1) / page);
    int64_t budget = budget_pages_.load(std::memory_order_relaxed);
    // Not fresh: the previous allocator's, with its own deleter (which
    // release() also falls back to for raw_allocate()'s callers).
    if (pages == 0 || budget <= 0 || 2 * budget < pages) return previous_->allocate(bytes);
    const size_t mapped = static_cast<size_t>(pages) * page;
    void* p = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return previous_->allocate(bytes);
    budget_pages_.fetch_sub(pages, std::memory_order_relaxed);
    fresh_pages_.fetch_add(static_cast<uint64_t>(pages), std::memory_order_relaxed);
    Mappings& m = mappings();
    {
        std::lock_guard<std::mutex> lock(m.mutex);
        m.bytes.emplace(p, mapped);
        m.count.fetch_add(1, std::memory_order_release);
    }
    // As libtorch's CPU allocator does, so that a profiled replay records a
    // memory event for it, as the original's profile did for its allocations.
    const int64_t total = m.mapped_bytes.fetch_add(static_cast<int64_t>(mapped), std::memory_order_relaxed) +
                          static_cast<int64_t>(mapped);
    c10::reportMemoryUsageToProfiler(p, static_cast<int64_t>(mapped), total, 0, c10::Device(c10::DeviceType::CPU));
    return {p, p, &release, c10::Device(c10::DeviceType::CPU)};
}

void FreshPageAllocator::unmap_freed() {
    Mappings& m = mappings();
    std::lock_guard<std::mutex> lock(m.mutex);
    for (const auto& [p, bytes] : m.freed) ::munmap(p, bytes);
    m.freed.clear();
    m.freed_bytes = 0;
}

c10::DeleterFnPtr FreshPageAllocator::raw_deleter() const { return &release; }

}  // namespace mimic::replay
