#include "replay/timing/recording_instrumentation.h"

#include <torch/csrc/profiler/execution_graph_observer.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>

namespace mimic::replay {
namespace {

std::string scratch_et_path() {
    const char* dir = std::getenv("TMPDIR");
    std::string path = std::string(dir && *dir ? dir : "/tmp") + "/mimic-overhead-XXXXXX";
    const int fd = mkstemp(path.data());
    if (fd < 0) throw std::runtime_error("cannot make a scratch file for the execution-graph observer in " + path);
    close(fd);
    return path;
}

}  // namespace

std::string InstrumentationSetup::describe() const {
    std::string out = "execution-graph observer + profiler";
    if (record_shapes || profile_memory)
        out += std::string(" (") + (record_shapes ? "record_shapes" : "") + (record_shapes && profile_memory ? ", " : "") +
               (profile_memory ? "profile_memory" : "") + ")";
    return out;
}

RecordingInstrumentation::RecordingInstrumentation(const InstrumentationSetup& setup) {
    // The profiler first, then the observer: a user starts the observer
    // inside the profiler's block, so its callbacks were added second.
    profiler_ = std::make_unique<TorchProfilerSession>(setup.record_shapes, setup.profile_memory);
    et_path_ = scratch_et_path();
    if (!torch::profiler::impl::addExecutionGraphObserver(et_path_)) {
        std::remove(et_path_.c_str());
        finish();
        throw std::runtime_error("the execution-graph observer is already on in this process");
    }
    torch::profiler::impl::enableExecutionGraphObserver();
    observer_on_ = true;
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
    if (!profiler_) return {};
    std::vector<ProfiledOpEvent> events = profiler_->finish(/*nested=*/true);  // in start order
    profiler_.reset();
    return events;
}

RecordingInstrumentation::~RecordingInstrumentation() {
    try {
        finish();
    } catch (...) {  // a destructor must not throw; the events are dropped anyway
    }
}

}  // namespace mimic::replay
