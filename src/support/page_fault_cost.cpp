#include "support/page_fault_cost.h"

#include <sys/mman.h>

#include <chrono>
#include <cstddef>
#include <vector>

#include "support/median.h"

namespace mimic {

double measure_page_fault_us() {
    constexpr size_t kBytes = 64u << 20, kPage = 4096;
    std::vector<double> per_page;
    for (int round = 0; round < 3; ++round) {
        void* p = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return 0;
        madvise(p, kBytes, MADV_NOHUGEPAGE);
        volatile char* bytes = static_cast<volatile char*>(p);
        const auto t0 = std::chrono::steady_clock::now();
        for (size_t off = 0; off < kBytes; off += kPage) bytes[off] = 1;
        const auto t1 = std::chrono::steady_clock::now();
        munmap(p, kBytes);
        per_page.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / (kBytes / kPage));
    }
    return median(per_page);
}

}  // namespace mimic
