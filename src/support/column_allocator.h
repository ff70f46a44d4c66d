// The allocator of a trace's big columns (nodes, values, tensors, dims,
// attrs, edges): blocks of 1 MiB and more are mapped on a 2 MiB boundary and
// offered to transparent huge pages; smaller ones come from the heap.
//
// Why: on this machine (a VM) a 4 KiB page costs 1.7 us to fault in and give
// back, a 2 MiB huge page 90 us for 512 times as much. The columns of a 3 MB
// Chakra trace touch 4.3 MB, and faulting them in took 40% of reading it
// (1.8 ms of 4.6). A heap block starts wherever malloc puts it, so the part
// of it before the first 2 MiB boundary could never be a huge page.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

namespace mimic {

namespace column_memory {

constexpr size_t kHugePage = size_t(2) << 20;
constexpr size_t kMappedFrom = size_t(1) << 20;  // below: a huge page would be mostly unused

inline size_t round_up(size_t bytes) { return (bytes + kHugePage - 1) & ~(kHugePage - 1); }

// A block of round_up(bytes) starting on a huge-page boundary, or nullptr.
inline void* map_aligned(size_t bytes) {
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

// Blocks given back are kept for the next trace, up to 64 MiB: a tool
// that reads trace after trace (a fleet's analysis) then reuses memory that
// is already faulted in instead of mapping and zeroing it again.
void* take(size_t bytes);
void give_back(void* p, size_t bytes) noexcept;

}  // namespace column_memory

template <typename T>
struct ColumnAllocator {
    using value_type = T;

    ColumnAllocator() = default;
    template <typename U>
    ColumnAllocator(const ColumnAllocator<U>&) noexcept {}

    T* allocate(size_t n) {
        if (n > SIZE_MAX / sizeof(T)) throw std::bad_array_new_length();
        const size_t bytes = n * sizeof(T);
        if (bytes < column_memory::kMappedFrom) return static_cast<T*>(::operator new(bytes));
        void* p = column_memory::take(bytes);
        if (!p) throw std::bad_alloc();
        return static_cast<T*>(p);
    }

    void deallocate(T* p, size_t n) noexcept {
        const size_t bytes = n * sizeof(T);
        if (bytes < column_memory::kMappedFrom) ::operator delete(p);
        else column_memory::give_back(p, bytes);
    }

    template <typename U>
    bool operator==(const ColumnAllocator<U>&) const noexcept { return true; }
    template <typename U>
    bool operator!=(const ColumnAllocator<U>&) const noexcept { return false; }
};

// A column of a trace: a vector whose big blocks sit on huge pages.
template <typename T>
using Column = std::vector<T, ColumnAllocator<T>>;

}  // namespace mimic
