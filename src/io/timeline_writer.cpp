#include "io/timeline_writer.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <memory>
#include <set>
#include <utility>

#include "support/error.h"
#include "support/json_writer.h"

namespace mimic {

namespace {

// Device tracks get their own pids, far from any real process id.
constexpr int64_t kDevicePidBase = 1000000000;

struct HostSlice {
    NodeIndex node;
    double start_us;
    double duration_us;
    double self_us;
    uint64_t thread;
};

// The shapes of a node's inputs as the ET writes them: a tensor as its dims,
// a list as the list of its elements' shapes, anything else as [].
void append_shape(const Trace& trace, const Value& v, std::string& out, int depth) {
    if (v.kind == ValueKind::Tensor) {
        const TensorMeta& t = trace.tensor(v);
        out += '[';
        for (uint16_t d = 0; d < t.rank; ++d) {
            if (d) out += ',';
            out += std::to_string(trace.shape(t)[d]);
        }
        out += ']';
        return;
    }
    out += '[';
    if (v.kind == ValueKind::List && depth < 8) {
        for (uint32_t i = 0; i < v.payload.range.count; ++i) {
            if (i) out += ',';
            append_shape(trace, *trace.value_ptr(v.payload.range, i), out, depth + 1);
        }
    }
    out += ']';
}

std::string input_shapes(const Trace& trace, const Node& node) {
    std::string out = "[";
    for (uint32_t i = 0; i < node.inputs.count; ++i) {
        if (i) out += ',';
        append_shape(trace, *trace.value_ptr(node.inputs, i), out, 0);
    }
    out += ']';
    return out;
}

const char* kind_name(NodeKind k) {
    switch (k) {
        case NodeKind::Root: return "root";
        case NodeKind::Thread: return "thread";
        case NodeKind::Operator: return "operator";
        case NodeKind::Label: return "label";
        case NodeKind::Autograd: return "autograd";
        case NodeKind::ProcessGroupInit: return "process_group_init";
        case NodeKind::Unknown: return "unknown";
    }
    return "unknown";
}

class EventFile {
public:
    explicit EventFile(const std::string& path) : path_(path), file_(std::fopen(path.c_str(), "wb"), &std::fclose) {
        if (!file_) fail({path, -1, -1, ""}, "cannot create the timeline file");
        put("{\"traceEvents\":[\n");
    }
    void event(const JsonWriter& w) {
        if (count_++) put(",\n");
        put(w.str());
    }
    void finish(const std::string& tail) {
        put("\n]," + tail + "}\n");
        std::FILE* f = file_.release();
        if (std::fclose(f) != 0) fail({path_, -1, -1, ""}, "cannot write the timeline file");
    }

private:
    void put(const std::string& s) {
        if (std::fwrite(s.data(), 1, s.size(), file_.get()) != s.size())
            fail({path_, -1, -1, ""}, "cannot write the timeline file (disk full?)");
    }
    std::string path_;
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file_;
    size_t count_ = 0;
};

void metadata(EventFile& file, const char* what, int64_t pid, int64_t tid, const std::string& name) {
    JsonWriter w(0);
    w.begin_object().field("name", what).field("ph", "M").field("pid", pid).field("tid", tid);
    w.key("args").begin_object().field("name", name).end_object();
    w.end_object();
    file.event(w);
}

}  // namespace

TimelineStats write_timeline(const Trace& trace, const std::string& path, TimelineSource source) {
    std::vector<HostSlice> host;
    for (NodeIndex n : trace.execution_order()) {
        const Node& node = trace.nodes[n.value];
        if (source == TimelineSource::Linked) {
            if (n.value >= trace.timing.size() || !trace.timing[n.value].linked()) continue;
            const NodeTiming& t = trace.timing[n.value];
            host.push_back({n, t.start_us, t.duration_us, t.self_us, t.thread});
        } else {
            if (node.kind == NodeKind::Root || node.kind == NodeKind::Thread) continue;
            if (node.chakra_start_us == 0 && node.chakra_duration_us == 0) continue;
            host.push_back({n, double(node.chakra_start_us), double(node.chakra_duration_us),
                            double(node.chakra_duration_us), node.tid});
        }
    }
    const bool with_device = source == TimelineSource::Linked;
    if (host.empty() && (!with_device || trace.device_events.empty()))
        fail({trace.source_path, -1, -1, ""},
             trace.format == TraceFormat::KinetoProfile ? "the profile has no host operator or label (only runtime calls and kernels "
                                                          "with no op to launch them), nothing to lay out"
             : source == TimelineSource::Linked         ? "no node has linked timing: link a profile that matches this trace"
                                                        : "the trace carries no node timing");

    double base = std::numeric_limits<double>::infinity(), end = -base;
    for (const HostSlice& h : host) {
        base = std::min(base, h.start_us);
        end = std::max(end, h.start_us + h.duration_us);
    }
    if (with_device)
        for (const DeviceEvent& d : trace.device_events) {
            base = std::min(base, d.start_us);
            end = std::max(end, d.start_us + d.duration_us);
        }

    TimelineStats stats;
    stats.span_us = end - base;
    EventFile file(path);
    const int64_t host_pid = trace.pid > 0 ? trace.pid : 1;
    // With a rank, names and device pids carry it, so ranks' files merge into one picture.
    const std::string rank_prefix = trace.rank >= 0 ? "rank " + std::to_string(trace.rank) + " " : "";
    const int64_t device_pid_base = kDevicePidBase + (trace.rank > 0 ? trace.rank * 1000 : 0);
    metadata(file, "process_name", host_pid, 0, rank_prefix + "host (ET pid " + std::to_string(trace.pid) + ")");
    std::set<uint64_t> threads;
    for (const HostSlice& h : host) threads.insert(h.thread);
    for (uint64_t t : threads) metadata(file, "thread_name", host_pid, int64_t(t), "thread " + std::to_string(t));

    for (const HostSlice& h : host) {
        const Node& node = trace.nodes[h.node.value];
        JsonWriter w(0);
        w.begin_object().field("ph", "X").field("cat", kind_name(node.kind)).field("name", trace.name(node));
        w.field("pid", host_pid).field("tid", h.thread).field("ts", h.start_us - base).field("dur", h.duration_us);
        w.key("args").begin_object();
        w.field("et_id", node.id.value);
        if (node.rf_id) w.field("rf_id", node.rf_id);
        w.field("self_us", h.self_us);
        if (node.op_schema.value) w.field("op_schema", trace.str(node.op_schema));
        if (node.inputs.count) w.field("input_shapes", input_shapes(trace, node));
        w.end_object().end_object();
        file.event(w);
        ++stats.host_events;
    }

    if (with_device) {
        std::set<std::pair<int64_t, int64_t>> tracks;
        for (const DeviceEvent& d : trace.device_events) tracks.insert({d.device, d.stream});
        std::set<int64_t> devices;
        for (auto [device, stream] : tracks) {
            if (devices.insert(device).second)
                metadata(file, "process_name", device_pid_base + device, 0, rank_prefix + "device " + std::to_string(device));
            metadata(file, "thread_name", device_pid_base + device, stream, "stream " + std::to_string(stream));
        }
        for (const DeviceEvent& d : trace.device_events) {
            JsonWriter w(0);
            w.begin_object().field("ph", "X").field("cat", trace.str(d.category)).field("name", trace.str(d.name));
            w.field("pid", device_pid_base + d.device).field("tid", d.stream);
            w.field("ts", d.start_us - base).field("dur", d.duration_us);
            w.key("args").begin_object();
            w.field("correlation", d.correlation);
            if (d.launcher != kNoNode) w.field("launcher_et_id", trace.nodes[d.launcher.value].id.value);
            if (d.process_group.value) w.field("process_group", trace.str(d.process_group));
            w.end_object().end_object();
            file.event(w);
            ++stats.device_events;
            // An arrow from the launching node's slice to the work.
            if (d.launcher == kNoNode || d.launcher.value >= trace.timing.size()) continue;
            const NodeTiming& t = trace.timing[d.launcher.value];
            if (!t.linked()) continue;
            for (int end_of_flow = 0; end_of_flow < 2; ++end_of_flow) {
                JsonWriter f(0);
                f.begin_object().field("ph", end_of_flow ? "f" : "s").field("cat", "launch").field("name", "launch");
                f.field("id", stats.flows);
                if (end_of_flow) {
                    f.field("bp", "e").field("pid", device_pid_base + d.device).field("tid", d.stream);
                    f.field("ts", d.start_us - base);
                } else {
                    f.field("pid", host_pid).field("tid", t.thread).field("ts", t.start_us - base);
                }
                f.end_object();
                file.event(f);
            }
            ++stats.flows;
        }
    }
    JsonWriter other(0);
    other.begin_object().field("source", trace.source_path).field("base_us", base).end_object();
    file.finish("\"displayTimeUnit\":\"ms\",\"otherData\":" + other.str());
    return stats;
}

}  // namespace mimic
