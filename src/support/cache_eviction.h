// Writes a memory range's cache lines back and drops them from every level
// of this CPU's caches, so that the next access finds it in memory.
//
// Why: the replay restores its input buffers (parameters, gradients,
// optimizer state) before each iteration, and copying them leaves exactly
// those buffers hot in the caches, as the original's were not when its
// iteration began: measured, the replay zeroed the gradients at the start
// of an iteration 2-3x faster than the original did (zero_: -35..-61% in
// every built-in workload), and as fast as the original once evicted.
#pragma once

#include <cstddef>

namespace mimic {

// The largest CPU cache's size as the C library reports it, at least 32 MiB
// (a VM may report none): what a sweep of memory can still leave cached.
size_t largest_cpu_cache_bytes();

// False where the CPU has no instruction for it (the call does nothing there).
bool can_evict_from_cpu_caches();
void evict_from_cpu_caches(const void* data, size_t bytes);

}  // namespace mimic
