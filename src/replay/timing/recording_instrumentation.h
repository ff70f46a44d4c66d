// The instrumentation a trace was recorded under, switched on around replayed
// calls: PyTorch's execution-graph observer writing an ET, and torch's
// profiler (torch.profiler runs the collection-based one whether or not torch
// has Kineto; without it only the export differs, the legacy Chrome list).
//
// Why: recording inflates a step, 2-7x under 1.13's observer and profiler on
// this project's models (the observer formats and writes a JSON record per
// event). Replaying the same events under the same instrumentation measures
// that cost on the replay machine, so a foreign trace's profile can be
// corrected without an untraced run of the original (recording_overhead.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "replay/timing/torch_profiler_pass.h"

namespace mimic::replay {

// How the profiler was set up; the observer has no settings.
struct InstrumentationSetup {
    bool record_shapes = false;
    bool profile_memory = false;
    // The profile's Python function events: Python's stack was captured at
    // each op (with_stack, the Python tracer), a cost a replay without
    // Python cannot pay, so it is not in what is measured here.
    uint64_t python_stack_events = 0;
    std::string describe() const;  // "execution-graph observer + profiler (record_shapes)"
};

// On from construction to finish() (or destruction). The observer's ET goes
// to a scratch file, removed at the end. Throws std::runtime_error when a
// profiler or an observer is already on.
class RecordingInstrumentation {
public:
    explicit RecordingInstrumentation(const InstrumentationSetup& setup);
    ~RecordingInstrumentation();
    RecordingInstrumentation(const RecordingInstrumentation&) = delete;
    RecordingInstrumentation& operator=(const RecordingInstrumentation&) = delete;

    // Switches everything off; the profiler's op events of the calling
    // thread, nested ones too, in start order, on profiler_clock_ns()'s clock.
    std::vector<ProfiledOpEvent> finish();

private:
    void stop_observer();
    std::string et_path_;
    bool observer_on_ = false;
    std::unique_ptr<TorchProfilerSession> profiler_;
};

}  // namespace mimic::replay
