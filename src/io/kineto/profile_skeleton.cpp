#include "io/kineto/profile_skeleton.h"

#include <string>
#include <vector>

namespace mimic {

Trace trace_skeleton_of_profile(const ProfileTrace& profile) {
    Trace trace;
    trace.source_path = profile.source_path;
    trace.format = TraceFormat::KinetoProfile;
    trace.rank = profile.distributed.rank;
    trace.world_size = profile.distributed.world_size;
    if (trace.rank >= 0) trace.rank_source = "distributedInfo";

    uint64_t next_id = 1;
    const auto add = [&](std::string_view name, uint64_t parent, NodeKind kind, uint64_t tid) {
        Node n;
        n.id = NodeId(next_id++);
        n.parent = NodeId(parent == 0 ? n.id.value : parent);
        n.name = trace.strings.intern(name);
        n.kind = kind;
        n.tid = tid;
        n.inputs = n.outputs = n.attrs = n.deps = n.data_deps = ValueRange{0, 0};
        trace.nodes.push_back(n);
        return n.id.value;
    };
    const uint64_t root = add("[pytorch|profiler|execution_trace|process]", 0, NodeKind::Root, 0);
    // A thread's events are in start order, outer first (ProfileTrace::finalize);
    // threads follow one another, so ids rise from parent to child.
    std::vector<uint64_t> id_of(profile.host.size(), 0);
    for (uint32_t thread : profile.host_threads()) {
        const ProfileThread& th = profile.threads[thread];
        const uint64_t tid = static_cast<uint64_t>(th.tid);
        uint64_t thread_node = 0;
        for (uint32_t e : profile.host_order(thread)) {
            const HostEvent& ev = profile.host[e];
            if (ev.category == HostCategory::PythonFunction) continue;
            if (thread_node == 0) thread_node = add("[pytorch|profiler|execution_trace|thread]", root, NodeKind::Thread, tid);
            // The innermost enclosing event kept (a Python function's children
            // belong to the op or label around it).
            uint32_t up = ev.parent;
            while (up != kNoEvent && profile.host[up].category == HostCategory::PythonFunction) up = profile.host[up].parent;
            const std::string_view name = profile.str(ev.name);
            NodeKind kind = classify_node(name, "", -1);
            if (ev.category == HostCategory::CpuOp && kind == NodeKind::Label && name.find("::") != std::string_view::npos)
                kind = NodeKind::Operator;  // a dispatcher op; the profile does not give its schema
            id_of[e] = add(name, up == kNoEvent ? thread_node : id_of[up], kind, tid);
        }
    }
    trace.finalize();
    return trace;
}

}  // namespace mimic
