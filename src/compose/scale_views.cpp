#include "compose/scale_views.h"

#include <algorithm>

namespace mimic::compose {

int64_t moved_offset(const StorageLayout& layout, int64_t offset) {
    int64_t out = 0, below_old = 1, below_new = 1;
    for (size_t k = layout.old_shape.size(); k-- > 0;) {
        const int64_t old_size = std::max<int64_t>(layout.old_shape[k], 1), new_size = std::max<int64_t>(layout.new_shape[k], 1);
        int64_t coordinate = k == 0 ? offset / below_old : (offset / below_old) % old_size;
        if (static_cast<int>(k) == layout.batch_dim || static_cast<int>(k) == layout.batch_dim2)
            coordinate = coordinate * new_size / old_size;
        out += coordinate * below_new;
        below_old *= old_size;
        below_new *= new_size;
    }
    return out;
}

std::vector<int64_t> moved_strides(const StorageLayout& layout, const std::vector<int64_t>& strides) {
    std::vector<int64_t> out;
    for (int64_t stride : strides) {
        int64_t moved = 0, below_old = 1, below_new = 1;
        for (size_t k = layout.old_shape.size(); k-- > 0;) {
            const int64_t old_size = std::max<int64_t>(layout.old_shape[k], 1), new_size = std::max<int64_t>(layout.new_shape[k], 1);
            moved += ((stride / below_old) % old_size) * below_new;
            below_old *= old_size;
            below_new *= new_size;
        }
        out.push_back(stride >= below_old ? stride : moved);
    }
    return out;
}

}  // namespace mimic::compose
