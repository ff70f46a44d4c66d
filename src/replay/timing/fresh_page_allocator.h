// A CPU allocator that can hand an operator's allocations out on fresh pages.
//
// Why: an operator of the original process often wrote its outputs to pages
// the process did not have yet, each first touch a minor page fault (~1.7 us
// on the VMs measured; a 512 KB output: ~200 us, where the computation takes
// 30). glibc's heap history decides which allocations those are, and a replay
// has another history: measured, the replay took 12 faults an iteration where
// the original took 191. The recorder counts the faults of each top-level
// operator (op_faults.json); the replayer gives each step a budget of that
// many fresh pages, less those it takes by itself, and this allocator serves
// the step's allocations from new anonymous mappings while the budget lasts.
// Everything else goes to the allocator that was installed before (libtorch's).
#pragma once

#include <c10/core/Allocator.h>

#include <atomic>
#include <cstdint>

namespace mimic::replay {

// Makes glibc keep the heap's pages: allocations up to 32 MiB (its limit)
// come from the heap instead of a mapping of their own, and freed memory is
// not given back. The replay's own page faults then stop after its first
// iterations, and the fresh pages it is given are the faults it takes. With
// glibc's sliding mmap threshold they were not stable: a cnn replay took 900
// faults per iteration in one run and 3,440 in another minutes later, and
// its time moved by 20% with them. Called once the original's faults are to
// be reproduced (--page-faults recorded).
void keep_heap_pages();

class FreshPageAllocator final : public c10::Allocator {
public:
    // Installs the one instance as libtorch's CPU allocator (once) and returns it.
    static FreshPageAllocator& install();

    // Pages the next allocations may take fresh; 0 stops it. An allocation
    // is served fresh when the budget covers at least half of its pages.
    void set_budget_pages(int64_t pages) { budget_pages_.store(pages, std::memory_order_relaxed); }
    // Fresh pages handed out since installation.
    uint64_t fresh_pages() const { return fresh_pages_.load(std::memory_order_relaxed); }

    // Gives back the mappings freed since the last call. A freed mapping is
    // kept until then because unmapping it flushes the whole TLB (Linux
    // flushes it all beyond 33 pages), and the replay freed them mid-
    // iteration: measured on mlp, the ops after each such free ran 4-6x
    // slower than the same ops in the original's profile (a `t` 6.5 us
    // instead of 1.1) and than without the free. The replayer calls this
    // between iterations and passes, untimed.
    static void unmap_freed();

    c10::DataPtr allocate(size_t bytes) const override;
    c10::DeleterFnPtr raw_deleter() const override;

private:
    FreshPageAllocator();
    c10::Allocator* previous_;
    mutable std::atomic<int64_t> budget_pages_{0};
    mutable std::atomic<uint64_t> fresh_pages_{0};
};

}  // namespace mimic::replay
