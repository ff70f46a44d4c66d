// Progress of one long job made of phases over the same steps (a replay:
// checking the ops, warmup, timed iterations, per-op passes), drawn by a
// thread of its own. The work pays one relaxed store per step, and a line
// still appears while a single op, allocation or collective takes minutes
// (a GPT-2-large replay's first check pass: 72 s with no pass finished).
// On a terminal a bar redrawn a few times a second after 1.5 s; elsewhere
// one line every 10 s once the job has taken that long (phase, pass, steps
// done of total, elapsed). Silent with MIMIC_NO_PROGRESS set.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace mimic {

class PhaseProgress {
public:
    // `label` starts each line ("mimic replay"); `unit` names a step ("ops").
    // `line_every`: the interval off a terminal (shorter in tests).
    PhaseProgress(std::string label, std::string unit,
                  std::chrono::milliseconds line_every = std::chrono::seconds(10));
    ~PhaseProgress();
    PhaseProgress(const PhaseProgress&) = delete;
    PhaseProgress& operator=(const PhaseProgress&) = delete;

    // A new phase of `passes` passes (0: not known ahead) of `steps` steps
    // each (0: none counted, as while planning); its pass 1 begins.
    void phase(const std::string& name, int passes, uint64_t steps);
    // Called from the work: the current pass has done `done` steps (and
    // whatever aside() said is over).
    void steps_done(uint64_t done) {
        done_.store(done, std::memory_order_relaxed);
        aside_.store(nullptr, std::memory_order_relaxed);
    }
    // Work between passes that takes long on a big trace (restoring 10 GB of
    // inputs: 20 s), shown until the next step starts; a string literal.
    void aside(const char* what) { aside_.store(what, std::memory_order_relaxed); }
    // The current pass ended; the next one of the phase begins.
    void pass_done();
    // A result worth seeing before the job ends (an iteration's time),
    // printed when the job has gone on long enough for progress to show.
    void note(const std::string& line);
    // Stops the thread and ends the bar's line; idempotent.
    void finish();

    // The line the thread would print now (tests, and the thread itself).
    std::string describe() const;

private:
    void run();
    bool showing(std::chrono::steady_clock::time_point now) const;

    const std::string label_;
    const std::string unit_;
    const std::chrono::milliseconds line_every_;
    const bool enabled_;
    const bool terminal_;
    const std::chrono::steady_clock::time_point start_;

    mutable std::mutex mutex_;  // phase_, passes_, pass_, steps_, bar_drawn_, stop_
    std::condition_variable wake_;
    std::string phase_;
    int passes_ = 0;
    int pass_ = 0;
    uint64_t steps_ = 0;
    bool bar_drawn_ = false;
    bool stop_ = false;
    std::atomic<uint64_t> done_{0};
    std::atomic<const char*> aside_{nullptr};
    std::thread thread_;
};

}  // namespace mimic
