// Leaves the restored tensors in the last-level cache but not in L1/L2.
//
// Why: before each iteration and each per-op pass the tensor pool copies
// every input buffer back to its first values (parameters, gradients,
// optimizer state), and the copy leaves the last buffers it wrote in L1 and
// L2. The original began each step after the previous step's backward and
// optimizer had moved through far more than L2 holds. Measured on 36 fresh
// recordings (twelfth session; three runs, each replay twice, alternating
// with the unswept build): the first ops on those buffers ran faster than
// in the original's untraced calls (cnn's gradient `zero_`s -43% per op
// name, `empty` -24%; after a sweep of twice the L2, -5% and -9%). Over all
// op names the systematic error against the untraced op times went from
// 12.2% to 10.9% and from 12.5% to 10.3%; the mean per-op error from 15.7%
// to 14.0% against the untraced op times and from 22.6% to 21.1% against
// the profile; end to end unchanged. Evicting the restored buffers from every
// level instead (clflush, the eighth session) made those ops 1.5-2.8x slower
// than the original on a machine with a large L3: they do stay there.
#pragma once

#include <cstddef>
#include <vector>

namespace mimic::replay {

// Bytes to write so that an L2 of `l2_bytes` holds none of what it held
// before: twice its size (a set-associative cache with LRU-like replacement
// keeps almost nothing of the old lines after that). `l2_bytes` <= 0 (the
// system does not say) takes 2 MiB, a common L2 of recent server cores.
size_t cache_sweep_bytes(long l2_bytes);

class CacheSweep {
public:
    // The L2 of the CPU this runs on (sysconf), else the fallback above.
    CacheSweep();
    explicit CacheSweep(size_t bytes);
    // Writes one byte in each cache line of the scratch buffer: its lines
    // replace L1's and L2's, dirty, as the original's last writes left them.
    // Returns the lines written.
    size_t sweep();
    size_t bytes() const { return scratch_.size(); }

private:
    std::vector<unsigned char> scratch_;
};

}  // namespace mimic::replay
