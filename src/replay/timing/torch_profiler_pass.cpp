#include "replay/timing/torch_profiler_pass.h"

#include <torch/csrc/autograd/profiler_kineto.h>
#include <torch/csrc/profiler/collection.h>

#include <algorithm>
#include <ctime>
#include <set>
#include <stdexcept>
#include <thread>

namespace mimic::replay {
namespace {

namespace prof = torch::autograd::profiler;
using torch::profiler::impl::ActivityType;
using torch::profiler::impl::EventType;
using torch::profiler::impl::ProfilerConfig;
using torch::profiler::impl::ProfilerState;

// As torch.profiler.profile(activities=[CPU], record_shapes=True,
// profile_memory=True) sets it up in the recorder (recorder.py): the same
// state (the collection-based profiler; this torch has no Kineto, whose
// calls are then no-ops), input shapes and memory records.
ProfilerConfig recorder_config(bool record_shapes = true, bool profile_memory = true) {
    return ProfilerConfig(ProfilerState::KINETO, record_shapes, profile_memory);
}

}  // namespace

int64_t profiler_clock_ns() {
    timespec t{};
    clock_gettime(CLOCK_REALTIME, &t);
    return int64_t(t.tv_sec) * 1000000000 + int64_t(t.tv_nsec);
}

TorchProfilerSession::TorchProfilerSession(bool record_shapes, bool profile_memory) {
    if (torch::profiler::impl::profilerEnabled())
        throw std::runtime_error("torch's profiler is already on in this thread");
    const std::set<ActivityType> activities{ActivityType::CPU};
    prof::prepareProfiler(recorder_config(record_shapes, profile_memory), activities);
    prof::enableProfiler(recorder_config(record_shapes, profile_memory), activities);
    active_ = true;
}

TorchProfilerSession::~TorchProfilerSession() {
    if (!active_) return;
    try {
        prof::disableProfiler();
    } catch (...) {  // a destructor must not throw; the events are dropped anyway
    }
}

std::vector<ProfiledOpEvent> TorchProfilerSession::finish(bool nested) {
    if (!active_) return {};
    active_ = false;
    const std::unique_ptr<prof::ProfilerResult> result = prof::disableProfiler();
    std::vector<ProfiledOpEvent> ops;
    if (!result) return ops;
    // The roots of the event tree on this thread are the calls the replay
    // made itself; what an op called inside is among their children.
    const uint64_t me = uint64_t(at::RecordFunction::currentThreadId());
    std::vector<std::shared_ptr<torch::profiler::impl::Result>> todo(result->event_tree().rbegin(), result->event_tree().rend());
    while (!todo.empty()) {
        const std::shared_ptr<torch::profiler::impl::Result> e = todo.back();
        todo.pop_back();
        if (!e || e->tag() != EventType::TorchOp || e->start_tid_ != me) continue;
        ops.push_back({e->name(), e->start_time_ns_, e->endTimeNS()});
        if (nested) todo.insert(todo.end(), e->children_.rbegin(), e->children_.rend());
    }
    // Stable: a nested event starting with its parent stays after it, as the walk found them.
    std::stable_sort(ops.begin(), ops.end(), [](const ProfiledOpEvent& a, const ProfiledOpEvent& b) { return a.start_ns < b.start_ns; });
    return ops;
}

std::vector<int64_t> match_bracket_events(const std::vector<OpBracket>& brackets, const std::vector<ProfiledOpEvent>& events) {
    std::vector<int64_t> matched(brackets.size(), -1);
    size_t next = 0;  // the first event not yet taken or passed
    for (size_t b = 0; b < brackets.size(); ++b) {
        const OpBracket& br = brackets[b];
        // Events before this bracket belong to no replayed call (the pass's
        // restore, its warm-up): passed for good.
        while (next < events.size() && events[next].start_ns < br.before_ns - kBracketSlackNs) ++next;
        for (size_t e = next; e < events.size() && events[e].start_ns <= br.after_ns + kBracketSlackNs; ++e) {
            if (!br.name || events[e].name != *br.name) continue;
            matched[b] = int64_t(e);
            next = e + 1;
            break;
        }
    }
    return matched;
}

std::vector<double> match_brackets(const std::vector<OpBracket>& brackets, const std::vector<ProfiledOpEvent>& events) {
    const std::vector<int64_t> matched = match_bracket_events(brackets, events);
    std::vector<double> us(brackets.size(), -1.0);
    for (size_t b = 0; b < brackets.size(); ++b)
        if (matched[b] >= 0) {
            const ProfiledOpEvent& e = events[size_t(matched[b])];
            us[b] = double(std::max<int64_t>(0, e.end_ns - e.start_ns)) / 1000.0;
        }
    return us;
}

}  // namespace mimic::replay
