// The median of a sample, as the reports and the linker take it.
#pragma once

#include <algorithm>
#include <vector>

namespace mimic {

// The middle value of `values`, the mean of the two middle ones for an even
// count; 0 for none.
inline double median(std::vector<double> values) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    const size_t m = values.size() / 2;
    return values.size() % 2 ? values[m] : (values[m - 1] + values[m]) / 2;
}

}  // namespace mimic
