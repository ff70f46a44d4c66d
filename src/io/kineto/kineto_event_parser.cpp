#include "io/kineto/kineto_event_parser.h"

#include <charconv>
#include <cmath>

#include "support/error.h"

namespace mimic {

using simdjson::dom::element;
using simdjson::dom::element_type;

EventClass classify_category(std::string_view cat) {
    switch (cat.size()) {
        case 6:
            if (cat == "cpu_op") return EventClass::HostOp;
            if (cat == "kernel" || cat == "Kernel") return EventClass::Kernel;
            if (cat == "Memcpy") return EventClass::Memcpy;
            if (cat == "Memset") return EventClass::Memset;
            break;
        case 7:
            if (cat == "Runtime") return EventClass::Runtime;
            break;
        case 8:
            if (cat == "Operator") return EventClass::HostOp;  // Kineto before PyTorch 1.10
            break;
        case 10:
            if (cat == "gpu_memcpy") return EventClass::Memcpy;
            if (cat == "gpu_memset") return EventClass::Memset;
            break;
        case 15:
            if (cat == "user_annotation") return EventClass::Annotation;
            if (cat == "python_function") return EventClass::PythonFunction;
            break;
        default: break;
    }
    // cuda_runtime, cuda_driver and the same for other backends (xpu_runtime, ...).
    auto ends_with = [&](std::string_view suffix) {
        return cat.size() > suffix.size() && cat.substr(cat.size() - suffix.size()) == suffix;
    };
    if (ends_with("_runtime") || ends_with("_driver")) return EventClass::Runtime;
    return EventClass::Other;
}

// torch.autograd.profiler's own Chrome export (what torch.profiler writes
// where torch was built without Kineto, as Debian's 1.13 is): a bare list of
// complete events with no "cat", the process naming the side, "CPU functions"
// for every RecordFunction (ops, labels, autograd nodes) and "CUDA functions"
// for kernels.
EventClass classify_legacy_process(element pid) {
    if (pid.type() != element_type::STRING) return EventClass::Other;
    const std::string_view process = std::string_view(pid);
    if (process == "CPU functions") return EventClass::HostOp;
    if (process == "CUDA functions") return EventClass::Kernel;
    return EventClass::Other;
}

struct KinetoEventParser::Args {
    int64_t external_id = kNoArg;
    int64_t record_function_id = kNoArg;
    int64_t sequence_nr = kNoArg;
    int64_t fwd_thread_id = kNoArg;
    int64_t correlation = kNoArg;
    int64_t device = kNoArg;
    int64_t stream = kNoArg;
    std::string_view process_group;
    uint32_t input_dims_hash = 0;
};

namespace {

// A fingerprint of "Input Dims" (lists of lists of sizes): equal shapes give
// equal values; which value does not matter. Depth is bounded by the JSON
// parser's own limit.
void mix(uint64_t& h, uint64_t v) { h = (h ^ v) * 0x100000001b3ULL; }

void hash_dims(simdjson::dom::element e, uint64_t& h) {
    switch (e.type()) {
        case simdjson::dom::element_type::ARRAY:
            mix(h, 0x5b);
            for (simdjson::dom::element x : simdjson::dom::array(e)) hash_dims(x, h);
            mix(h, 0x5d);
            return;
        case simdjson::dom::element_type::INT64: mix(h, uint64_t(int64_t(e))); return;
        case simdjson::dom::element_type::UINT64: mix(h, uint64_t(e)); return;
        default: mix(h, 0x3f + uint64_t(e.type())); return;
    }
}

}  // namespace

void KinetoEventParser::bad(std::string_view field, const std::string& message) const {
    fail({path_, -1, static_cast<int64_t>(offset_), std::string(field)}, message);
}

double KinetoEventParser::number(element e, std::string_view field) const {
    switch (e.type()) {
        case element_type::INT64: return static_cast<double>(int64_t(e));
        case element_type::UINT64: return static_cast<double>(uint64_t(e));
        case element_type::DOUBLE: return double(e);
        case element_type::STRING: {
            // Some writers quote timestamps to keep their nanosecond digits.
            std::string_view s = std::string_view(e);
            double v = 0;
            auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
            if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v))
                bad(field, "expected a number, got the string \"" + std::string(s.substr(0, 40)) + "\"");
            return v;
        }
        default: bad(field, "expected a number");
    }
}

int64_t KinetoEventParser::integer(element e, std::string_view field) const {
    switch (e.type()) {
        case element_type::INT64: return int64_t(e);
        case element_type::UINT64: return static_cast<int64_t>(uint64_t(e));  // an id: keep its bits
        case element_type::DOUBLE: {
            double d = double(e);
            if (d != std::floor(d) || std::fabs(d) > 9.0e18) bad(field, "expected an integer");
            return static_cast<int64_t>(d);
        }
        case element_type::STRING: {
            // ROCm's runtime events write their stream as a handle: "0x0".
            std::string_view s = std::string_view(e);
            const bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
            if (hex) s.remove_prefix(2);
            uint64_t u = 0;
            int64_t v = 0;
            auto [end, ec] = hex ? std::from_chars(s.data(), s.data() + s.size(), u, 16)
                                 : std::from_chars(s.data(), s.data() + s.size(), v);
            if (ec != std::errc() || end != s.data() + s.size())
                bad(field, "expected an integer, got the string \"" + std::string(std::string_view(e).substr(0, 40)) + "\"");
            return hex ? static_cast<int64_t>(u) : v;  // a handle: keep its bits
        }
        case element_type::NULL_VALUE: return kNoArg;
        default: bad(field, "expected an integer");
    }
}

std::string_view KinetoEventParser::string(element e, std::string_view field) const {
    if (e.type() != element_type::STRING) bad(field, "expected a string");
    return std::string_view(e);
}

void KinetoEventParser::read_args(element args, Args& into) {
    if (args.type() != element_type::OBJECT) bad("args", "expected an object");
    for (auto field : simdjson::dom::object(args)) {
        std::string_view k = field.key;
        element v = field.value;
        switch (k.size()) {
            case 6:
                if (k == "device") into.device = integer(v, "args.device");
                else if (k == "stream") into.stream = integer(v, "args.stream");
                break;
            case 10:
                if (k == "Input Dims") {
                    uint64_t h = 0xcbf29ce484222325ULL;
                    hash_dims(v, h);
                    into.input_dims_hash = uint32_t(h ^ (h >> 32)) | 1;  // never 0, which means "not given"
                }
                break;
            case 11:
                if (k == "External id") into.external_id = integer(v, "args.External id");
                else if (k == "correlation") into.correlation = integer(v, "args.correlation");
                break;
            case 13:
                if (k == "Fwd thread id") into.fwd_thread_id = integer(v, "args.Fwd thread id");
                break;
            case 15:
                if (k == "Sequence number") into.sequence_nr = integer(v, "args.Sequence number");
                break;
            case 18:
                if (k == "Record function id") into.record_function_id = integer(v, "args.Record function id");
                else if (k == "Process Group Name") into.process_group = string(v, "args.Process Group Name");
                break;
            default: break;
        }
    }
}

uint32_t KinetoEventParser::track(element pid, element tid, bool has_pid, bool has_tid) {
    auto numeric = [&](element e, bool present, int64_t& value) {
        if (!present) {
            value = 0;
            return true;
        }
        switch (e.type()) {
            case element_type::INT64:
            case element_type::UINT64:
            case element_type::DOUBLE: value = integer(e, "pid/tid"); return true;
            case element_type::STRING: {
                std::string_view s = std::string_view(e);
                auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
                return ec == std::errc() && end == s.data() + s.size();
            }
            default: bad("pid/tid", "expected a number or a string");
        }
    };
    int64_t p = 0, t = 0;
    if (numeric(pid, has_pid, p) && numeric(tid, has_tid, t)) {
        if (p != last_pid_ || t != last_tid_) {
            last_pid_ = p;
            last_tid_ = t;
            last_track_ = out_.thread_index(p, t);
        }
        return last_track_;
    }
    // A named track such as "Spans"/"PyTorch Profiler".
    auto text = [&](element e, bool present) {
        if (!present) return std::string("0");
        if (e.type() == element_type::STRING) return std::string(std::string_view(e));
        return std::to_string(integer(e, "pid/tid"));
    };
    return out_.labelled_thread_index(text(pid, has_pid) + "/" + text(tid, has_tid));
}

void KinetoEventParser::on_metadata(std::string_view name, uint32_t thread, element args, bool has_args) {
    ++out_.stats.metadata_events;
    if (name != "thread_name" || !has_args || args.type() != element_type::OBJECT) return;
    element label;
    if (simdjson::dom::object(args)["name"].get(label) == simdjson::SUCCESS && label.type() == element_type::STRING)
        out_.threads[thread].name = out_.strings.intern(std::string_view(label));
}

void KinetoEventParser::parse(element event, uint64_t offset) {
    offset_ = offset;
    ++out_.stats.events;
    if (event.type() != element_type::OBJECT) bad("", "a trace event must be a JSON object");
    std::string_view ph, cat, name;
    element ts, dur, pid, tid, args, id;
    bool has_ts = false, has_dur = false, has_pid = false, has_tid = false, has_args = false, has_id = false;
    bool has_ph = false;
    for (auto field : simdjson::dom::object(event)) {
        std::string_view k = field.key;
        if (k.size() == 2) {
            if (k == "ph") {
                ph = string(field.value, "ph");
                has_ph = true;
            } else if (k == "ts") {
                ts = field.value;
                has_ts = true;
            } else if (k == "id") {
                id = field.value;
                has_id = true;
            }
        } else if (k.size() == 3) {
            if (k == "cat") {
                if (field.value.type() == element_type::STRING) cat = std::string_view(field.value);
                else if (field.value.type() != element_type::NULL_VALUE) bad("cat", "expected a string");
            } else if (k == "dur") {
                dur = field.value;
                has_dur = true;
            } else if (k == "pid") {
                pid = field.value;
                has_pid = true;
            } else if (k == "tid") {
                tid = field.value;
                has_tid = true;
            }
        } else if (k == "name") {
            name = string(field.value, "name");
        } else if (k == "args") {
            args = field.value;
            has_args = true;
        }
    }
    if (!has_ph) bad("ph", "a trace event has no \"ph\" (phase)");
    if (ph.size() != 1) bad("ph", "unknown phase \"" + std::string(ph.substr(0, 16)) + "\"");

    switch (ph[0]) {
        case 'X': break;
        case 'M': on_metadata(name, track(pid, tid, has_pid, has_tid), args, has_args); return;
        case 'i':
        case 'I':
            ++out_.stats.instant_events;
            if (name == "[memory]") ++out_.stats.memory_events;
            return;
        case 'C': ++out_.stats.counter_events; return;
        case 's':
        case 'f':
        case 't': {
            if (!has_id || !has_ts) {
                ++out_.stats.other_events;
                return;
            }
            FlowEvent f;
            f.id = integer(id, "id");
            f.category = out_.strings.intern(cat);
            f.thread = track(pid, tid, has_pid, has_tid);
            f.ts_us = number(ts, "ts");
            f.is_start = ph[0] == 's';
            out_.flows.push_back(f);
            return;
        }
        default: ++out_.stats.other_events; return;
    }

    EventClass cls = classify_category(cat);
    const bool legacy = cls == EventClass::Other && cat.empty() && has_pid;
    if (legacy) cls = classify_legacy_process(pid);
    if (cls == EventClass::Other) {
        ++out_.stats.other_events;
        return;
    }
    if (!has_ts) bad("ts", "a complete (\"X\") event has no \"ts\"");
    double ts_us = number(ts, "ts");
    double dur_us = has_dur ? number(dur, "dur") : 0.0;
    if (legacy && ts.type() != element_type::DOUBLE && (!has_dur || dur.type() != element_type::DOUBLE)) {
        // The legacy export writes the start and the duration each cut down to
        // a whole microsecond on its own (torch 1.13's profiler.py: start_us()
        // and duration_us() of the nanosecond event). Each is then half a
        // microsecond short on average, so every gap between two events reads
        // half a microsecond long: 0.5 ms over the thousand gaps of a small
        // model's step. Half a microsecond back on each is the unbiased value.
        ts_us += 0.5;
        dur_us += 0.5;
        ++out_.stats.whole_microsecond_events;
    }
    if (dur_us < 0) {
        // One broken event must not sink a multi-GB trace: skip it, counted and named.
        if (out_.stats.negative_durations++ < 5)
            out_.warn(format_error({path_, -1, static_cast<int64_t>(offset_), "dur"},
                                   "negative duration; event \"" + std::string(name.substr(0, 80)) + "\" skipped"));
        return;
    }
    uint32_t thread = track(pid, tid, has_pid, has_tid);
    Args a;
    if (has_args) read_args(args, a);
    StrId name_id = out_.strings.intern(name);

    switch (cls) {
        case EventClass::HostOp:
        case EventClass::Annotation:
        case EventClass::PythonFunction: {
            HostEvent h;
            h.name = name_id;
            h.category = cls == EventClass::HostOp       ? HostCategory::CpuOp
                         : cls == EventClass::Annotation ? HostCategory::UserAnnotation
                                                         : HostCategory::PythonFunction;
            h.thread = thread;
            h.ts_us = ts_us;
            h.dur_us = dur_us;
            h.external_id = a.external_id;
            h.record_function_id = a.record_function_id;
            h.sequence_nr = a.sequence_nr;
            h.fwd_thread_id = a.fwd_thread_id;
            h.input_dims_hash = a.input_dims_hash;
            if (a.input_dims_hash != 0) ++out_.stats.events_with_shapes;
            out_.host.push_back(h);
            return;
        }
        case EventClass::Runtime:
            out_.runtime.push_back({name_id, thread, ts_us, dur_us, a.correlation, a.external_id});
            return;
        case EventClass::Kernel:
        case EventClass::Memcpy:
        case EventClass::Memset: {
            DeviceWork d;
            d.name = name_id;
            d.kind = cls == EventClass::Kernel ? DeviceKind::Kernel
                     : cls == EventClass::Memcpy ? DeviceKind::Memcpy
                                                 : DeviceKind::Memset;
            d.thread = thread;
            d.ts_us = ts_us;
            d.dur_us = dur_us;
            d.correlation = a.correlation;
            d.external_id = a.external_id;
            d.device = a.device;
            d.stream = a.stream;
            if (!a.process_group.empty()) d.process_group = out_.strings.intern(a.process_group);
            out_.device.push_back(d);
            return;
        }
        case EventClass::Other: return;
    }
}

}  // namespace mimic
