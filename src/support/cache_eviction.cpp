#include "support/cache_eviction.h"

#include <unistd.h>

#include <algorithm>
#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <emmintrin.h>
#define MIMIC_HAVE_CLFLUSH 1
#endif

namespace mimic {

namespace {
// x86's cache line; clflush works on the line holding each address, so a
// smaller step would only repeat lines and a range not on a line boundary
// is still covered from its first line to its last.
constexpr uintptr_t kLineBytes = 64;
}  // namespace

size_t largest_cpu_cache_bytes() {
    // Asked once: the replay's restore calls this before every iteration.
    static const size_t largest = [] {
        size_t bytes = size_t(32) << 20;
#if defined(_SC_LEVEL3_CACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE)
        for (int name : {_SC_LEVEL2_CACHE_SIZE, _SC_LEVEL3_CACHE_SIZE, _SC_LEVEL4_CACHE_SIZE}) {
            const long reported = ::sysconf(name);
            if (reported > 0) bytes = std::max(bytes, size_t(reported));
        }
#endif
        return bytes;
    }();
    return largest;
}

bool can_evict_from_cpu_caches() {
#ifdef MIMIC_HAVE_CLFLUSH
    return true;
#else
    return false;
#endif
}

void evict_from_cpu_caches(const void* data, size_t bytes) {
#ifdef MIMIC_HAVE_CLFLUSH
    if (!data || bytes == 0) return;
    const uintptr_t begin = reinterpret_cast<uintptr_t>(data) & ~(kLineBytes - 1);
    const uintptr_t end = reinterpret_cast<uintptr_t>(data) + bytes;
    for (uintptr_t p = begin; p < end; p += kLineBytes) _mm_clflush(reinterpret_cast<const void*>(p));
    _mm_mfence();  // the flushes are done before whatever is timed next
#else
    (void)data;
    (void)bytes;
#endif
}

}  // namespace mimic
