#include "io/kineto/kineto_trace.h"

#include <algorithm>

namespace mimic {

uint32_t ProfileTrace::thread_index(int64_t pid, int64_t tid) {
    auto [it, fresh] = thread_of_key_.try_emplace({pid, tid}, static_cast<uint32_t>(threads.size()));
    if (fresh) threads.push_back({pid, tid, StrId{}, StrId{}});
    return it->second;
}

uint32_t ProfileTrace::labelled_thread_index(std::string_view label) {
    StrId id = strings.intern(label);
    auto [it, fresh] = thread_of_label_.try_emplace(id.value, static_cast<uint32_t>(threads.size()));
    if (fresh) threads.push_back({-1, -1, id, StrId{}});
    return it->second;
}

const std::vector<uint32_t>& ProfileTrace::host_order(uint32_t thread) const {
    static const std::vector<uint32_t> kNone;
    return thread < host_order_.size() ? host_order_[thread] : kNone;
}

void ProfileTrace::finalize() {
    host_order_.assign(threads.size(), {});
    host_threads_.clear();
    for (uint32_t i = 0; i < host.size(); ++i) {
        auto& order = host_order_[host[i].thread];
        if (order.empty()) host_threads_.push_back(host[i].thread);
        order.push_back(i);
    }
    std::vector<uint32_t> open;  // enclosing events, outermost first
    for (auto& order : host_order_) {
        // Start order. Stamps are whole microseconds, so ties are common: the
        // profiler's own ids (External id) are handed out as ops start and
        // decide them; without ids, an op that starts with its parent is the
        // shorter one, so outer comes first; the file order breaks the rest.
        std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
            const HostEvent& x = host[a];
            const HostEvent& y = host[b];
            if (x.ts_us != y.ts_us) return x.ts_us < y.ts_us;
            if (x.external_id != kNoArg && y.external_id != kNoArg && x.external_id != y.external_id)
                return x.external_id < y.external_id;
            if (x.dur_us != y.dur_us) return x.dur_us > y.dur_us;
            return a < b;
        });
        // An event that starts before the innermost open one ends is its child,
        // even when rounding to whole microseconds lets it end a little later.
        open.clear();
        for (uint32_t e : order) {
            while (!open.empty() && host[e].ts_us >= host[open.back()].end_us()) open.pop_back();
            host[e].parent = open.empty() ? kNoEvent : open.back();
            open.push_back(e);
        }
    }
}

const char* to_string(HostCategory c) {
    switch (c) {
        case HostCategory::CpuOp: return "cpu_op";
        case HostCategory::UserAnnotation: return "user_annotation";
        case HostCategory::PythonFunction: return "python_function";
    }
    return "?";
}

const char* to_string(DeviceKind k) {
    switch (k) {
        case DeviceKind::Kernel: return "kernel";
        case DeviceKind::Memcpy: return "gpu_memcpy";
        case DeviceKind::Memset: return "gpu_memset";
    }
    return "?";
}

}  // namespace mimic
