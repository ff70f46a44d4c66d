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

#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

namespace mimic {

namespace column_memory {

constexpr size_t kHugePage = size_t(2) << 20;
constexpr size_t kMappedFrom = size_t(1) << 20;  // below: a huge page would be mostly unused

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
