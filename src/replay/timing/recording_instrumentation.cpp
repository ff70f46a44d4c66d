#include "replay/timing/recording_instrumentation.h"

#include <ATen/record_function.h>
#include <torch/csrc/autograd/profiler_legacy.h>
#include <torch/csrc/profiler/execution_graph_observer.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>

namespace mimic::replay {
namespace {

namespace legacy = torch::autograd::profiler;
using torch::profiler::impl::ProfilerConfig;
using torch::profiler::impl::ProfilerState;

std::string scratch_et_path() {
    const char* dir = std::getenv("TMPDIR");
    std::string path = std::string(dir && *dir ? dir : "/tmp") + "/mimic-overhead-XXXXXX";
    const int fd = mkstemp(path.data());
    if (fd < 0) throw std::runtime_error("cannot make a scratch file for the execution-graph observer in " + path);
    close(fd);
    return path;
}

// Pushes and pops of the calling thread, paired into events.
std::vector<ProfiledOpEvent> legacy_events(const legacy::thread_event_lists& lists) {
    const uint64_t me = uint64_t(at::RecordFunction::currentThreadId());
    std::vector<ProfiledOpEvent> out;
    for (const std::vector<legacy::LegacyEvent>& list : lists) {
        std::vector<size_t> open;
        for (const legacy::LegacyEvent& e : list) {
            if (e.threadId() != me) continue;
            const int64_t ns = int64_t(e.cpuUs() * 1000.0);
            if (e.kind() == legacy::EventKind::PushRange) {
                open.push_back(out.size());
                out.push_back({e.name(), ns, ns});
            } else if (e.kind() == legacy::EventKind::PopRange && !open.empty()) {
                out[open.back()].end_ns = ns;
                open.pop_back();
            }
        }
    }
    std::stable_sort(out.begin(), out.end(), [](const ProfiledOpEvent& a, const ProfiledOpEvent& b) { return a.start_ns < b.start_ns; });
    return out;
}

}  // namespace

std::string InstrumentationSetup::describe() const {
    std::string out = et_observer ? "execution-graph observer" : "";
    const char* kind = profiler == Profiler::Legacy ? "legacy profiler" : profiler == Profiler::Collection ? "profiler" : nullptr;
    if (kind) out += std::string(out.empty() ? "" : " + ") + kind;
    if (kind && (record_shapes || profile_memory))
        out += std::string(" (") + (record_shapes ? "record_shapes" : "") + (record_shapes && profile_memory ? ", " : "") +
               (profile_memory ? "profile_memory" : "") + ")";
    return out.empty() ? "nothing" : out;
}

RecordingInstrumentation::RecordingInstrumentation(const InstrumentationSetup& setup) : setup_(setup) {
    // The profiler first, then the observer: a user starts the observer
    // inside the profiler's block, so its callbacks were added second.
    if (setup_.profiler == InstrumentationSetup::Profiler::Collection) {
        collection_ = std::make_unique<TorchProfilerSession>(setup_.record_shapes, setup_.profile_memory);
    } else if (setup_.profiler == InstrumentationSetup::Profiler::Legacy) {
        if (torch::profiler::impl::profilerEnabled()) throw std::runtime_error("torch's profiler is already on in this thread");
        legacy::enableProfilerLegacy(ProfilerConfig(ProfilerState::CPU, setup_.record_shapes, setup_.profile_memory));
        profiler_on_ = true;
    }
    if (setup_.et_observer) {
        et_path_ = scratch_et_path();
        if (!torch::profiler::impl::addExecutionGraphObserver(et_path_)) {
            std::remove(et_path_.c_str());
            finish();
            throw std::runtime_error("the execution-graph observer is already on in this process");
        }
        torch::profiler::impl::enableExecutionGraphObserver();
        observer_on_ = true;
    }
}

void RecordingInstrumentation::stop_observer() {
    if (!observer_on_) return;
    observer_on_ = false;
    torch::profiler::impl::disableExecutionGraphObserver();
    torch::profiler::impl::removeExecutionGraphObserver();
    std::remove(et_path_.c_str());
}

std::vector<ProfiledOpEvent> RecordingInstrumentation::finish() {
    stop_observer();
    if (collection_) {
        std::vector<ProfiledOpEvent> events = collection_->finish(/*nested=*/true);
        collection_.reset();
        std::stable_sort(events.begin(), events.end(),
                         [](const ProfiledOpEvent& a, const ProfiledOpEvent& b) { return a.start_ns < b.start_ns; });
        return events;
    }
    if (!profiler_on_) return {};
    profiler_on_ = false;
    return legacy_events(legacy::disableProfilerLegacy());
}

RecordingInstrumentation::~RecordingInstrumentation() {
    try {
        finish();
    } catch (...) {  // a destructor must not throw; the events are dropped anyway
    }
}

}  // namespace mimic::replay
