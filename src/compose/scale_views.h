#pragma once
// Where a view of a storage lies once the tensor filling that storage has
// grown with the batch: its offset and strides, moved through the filling
// tensor's old and new shapes. Pure arithmetic for scale_batch.
#include <cstdint>
#include <vector>

namespace mimic::compose {

// The tensor laid over a whole storage (dense, row-major) that views are cut from.
struct StorageLayout {
    std::vector<int64_t> old_shape, new_shape;
    int batch_dim = -1, batch_dim2 = -1;  // where it holds the batch (a [B, B] matrix: both)
    bool data = false;                    // data the step reads: its storage lives through the step, never reused
};

// A view's storage offset: its coordinates in the old layout, the batch's
// moved to the same share of the new batch (the second half of two stacked
// views starts at the new B), put back together in the new layout. The
// outermost coordinate is open-ended (a view past the tensor seen, data[1:]).
int64_t moved_offset(const StorageLayout& layout, int64_t offset);

// A view's strides: each a step of whole rows of the layout's dimensions
// below some point, the same rows in the new layout. A stride past the
// layout is not one of its rows and stays.
std::vector<int64_t> moved_strides(const StorageLayout& layout, const std::vector<int64_t>& strides);

}  // namespace mimic::compose
