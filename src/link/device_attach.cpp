#include "link/device_attach.h"

#include <algorithm>
#include <unordered_map>

namespace mimic {

namespace {

// The innermost host event of `order` (one thread, start order) that is open
// at `ts_us`: the last one to start at or before it, or the nearest of its
// enclosing ops that has not ended yet.
uint32_t enclosing(const ProfileTrace& profile, const std::vector<uint32_t>& order, double ts_us) {
    auto it = std::upper_bound(order.begin(), order.end(), ts_us,
                               [&](double t, uint32_t e) { return t < profile.host[e].ts_us; });
    if (it == order.begin()) return kNoEvent;
    uint32_t e = *(it - 1);
    while (e != kNoEvent && profile.host[e].end_us() < ts_us) e = profile.host[e].parent;
    return e;
}

}  // namespace

std::vector<uint32_t> launching_ops(const ProfileTrace& profile) {
    std::unordered_map<int64_t, uint32_t> op_of_external_id;
    for (uint32_t e = 0; e < profile.host.size(); ++e)
        if (profile.host[e].external_id >= 0) op_of_external_id.emplace(profile.host[e].external_id, e);
    std::vector<uint32_t> out(profile.runtime.size(), kNoEvent);
    for (uint32_t r = 0; r < profile.runtime.size(); ++r) {
        const RuntimeEvent& launch = profile.runtime[r];
        if (launch.external_id >= 0) {
            auto it = op_of_external_id.find(launch.external_id);
            if (it != op_of_external_id.end()) {
                const HostEvent& op = profile.host[it->second];
                if (op.thread == launch.thread && op.ts_us <= launch.ts_us && launch.ts_us <= op.end_us()) {
                    out[r] = it->second;
                    continue;
                }
            }
        }
        out[r] = enclosing(profile, profile.host_order(launch.thread), launch.ts_us);
    }
    return out;
}

void attach_device_work(Trace& trace, const ProfileTrace& profile, const std::vector<NodeIndex>& node_of_event,
                        LinkStats& stats) {
    stats.profile_device_events = profile.device.size();
    if (profile.device.empty()) return;
    std::unordered_map<int64_t, uint32_t> launch_of_correlation;
    for (uint32_t r = 0; r < profile.runtime.size(); ++r)
        if (profile.runtime[r].correlation >= 0) launch_of_correlation.emplace(profile.runtime[r].correlation, r);
    const std::vector<uint32_t> launcher_op = launching_ops(profile);

    std::vector<StrId> names(profile.strings.size());  // profile name -> trace name, interned on first use
    std::vector<uint8_t> named(profile.strings.size(), 0);
    auto intern = [&](StrId id) {
        if (!named[id.value]) {
            names[id.value] = trace.strings.intern(profile.str(id));
            named[id.value] = 1;
        }
        return names[id.value];
    };
    StrId categories[3] = {trace.strings.intern(to_string(DeviceKind::Kernel)),
                           trace.strings.intern(to_string(DeviceKind::Memcpy)),
                           trace.strings.intern(to_string(DeviceKind::Memset))};

    for (const DeviceWork& work : profile.device) {
        auto it = work.correlation >= 0 ? launch_of_correlation.find(work.correlation) : launch_of_correlation.end();
        if (it == launch_of_correlation.end()) {
            ++stats.device_without_launch;
            continue;
        }
        // The op itself may be missing from the ET (or not linked): its
        // nearest linked enclosing op launched the work on the ET's behalf.
        uint32_t op = launcher_op[it->second];
        while (op != kNoEvent && node_of_event[op] == kNoNode) op = profile.host[op].parent;
        if (op == kNoEvent) {
            ++stats.device_outside_et;
            continue;
        }
        DeviceEvent d;
        d.name = intern(work.name);
        d.category = categories[static_cast<int>(work.kind)];
        d.launcher = node_of_event[op];
        d.start_us = work.ts_us;
        d.duration_us = work.dur_us;
        d.device = work.device;
        d.stream = work.stream;
        d.correlation = work.correlation;
        if (work.process_group.value != 0) d.process_group = intern(work.process_group);
        trace.device_events.push_back(d);
        switch (work.kind) {
            case DeviceKind::Kernel: ++stats.kernels_attached; break;
            case DeviceKind::Memcpy: ++stats.memcpys_attached; break;
            case DeviceKind::Memset: ++stats.memsets_attached; break;
        }
    }
    std::stable_sort(trace.device_events.begin(), trace.device_events.end(),
                     [](const DeviceEvent& a, const DeviceEvent& b) { return a.start_us < b.start_us; });
}

}  // namespace mimic
