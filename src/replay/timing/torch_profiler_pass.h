// Timing replayed ops with torch's own profiler, set up as the recorder sets
// it up (CPU, record_shapes, profile_memory).
//
// Why: comparing a replay's op times with a profile's durations otherwise
// takes the profiler's cost out of those durations (profiler_cost_fit.h),
// and what is left of a small op is a remainder whose noise grows as its
// share shrinks. Measured (four workloads, two
// recordings of one step in each of three processes): the recordings'
// durations as recorded were 8.7-9.3% apart per op name, corrected
// 11.4-15.1%; a replay cannot be judged nearer than its reference agrees
// with itself. Under the same profiler the replay pays the same costs inside
// each op (its callbacks, the input shapes, the memory records) and is
// compared with the durations as recorded: like with like, as the Mystique
// method compares a replay's profile with the original's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mimic::replay {

// A top-level op event of the profiled thread, on the profiler's clock
// (nanoseconds since the epoch).
struct ProfiledOpEvent {
    std::string name;
    int64_t start_ns = 0;
    int64_t end_ns = 0;
};

// One op call of the replay, bracketed on the same clock.
struct OpBracket {
    const std::string* name = nullptr;  // the step's op name (outlives the matching)
    int64_t before_ns = 0;
    int64_t after_ns = 0;
};

// The clock the profiler stamps its events with (CLOCK_REALTIME).
int64_t profiler_clock_ns();

// Enables torch's profiler on this thread's process for its lifetime, or
// until finish(). Throws std::runtime_error if a profiler is already on.
class TorchProfilerSession {
public:
    // The recorder's set-up by default; a foreign profile's otherwise.
    explicit TorchProfilerSession(bool record_shapes = true, bool profile_memory = true);
    ~TorchProfilerSession();
    TorchProfilerSession(const TorchProfilerSession&) = delete;
    TorchProfilerSession& operator=(const TorchProfilerSession&) = delete;

    // Disables the profiler; the top-level op events of the calling thread,
    // in start order; with `nested`, the events below them too.
    std::vector<ProfiledOpEvent> finish(bool nested = false);

private:
    bool active_ = false;
};

// The profiler's converted timestamps may lie this far outside a bracket
// taken on the same clock (it stamps with the TSC where it can and converts
// afterwards).
inline constexpr int64_t kBracketSlackNs = 2000;

// Each bracket's op duration in microseconds: the event with its name that
// starts inside it (widened by kBracketSlackNs), each event taken once, both
// lists in time order; -1 for a bracket no event matches (an op the
// profiler did not see as a top-level call).
std::vector<double> match_brackets(const std::vector<OpBracket>& brackets, const std::vector<ProfiledOpEvent>& events);
// The same matching, as each bracket's index into `events` (-1: none).
std::vector<int64_t> match_bracket_events(const std::vector<OpBracket>& brackets, const std::vector<ProfiledOpEvent>& events);

}  // namespace mimic::replay
