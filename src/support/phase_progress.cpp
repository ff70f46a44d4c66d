#include "support/phase_progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace mimic {

namespace {
constexpr auto kFirstBarAfter = std::chrono::milliseconds(1500);
constexpr auto kRedrawEvery = std::chrono::milliseconds(200);
}  // namespace

PhaseProgress::PhaseProgress(std::string label, std::string unit, std::chrono::milliseconds line_every)
    : label_(std::move(label)),
      unit_(std::move(unit)),
      line_every_(line_every),
      enabled_(!std::getenv("MIMIC_NO_PROGRESS")),
      terminal_(isatty(STDERR_FILENO) != 0),
      start_(std::chrono::steady_clock::now()) {
    if (enabled_) thread_ = std::thread([this] { run(); });
}

PhaseProgress::~PhaseProgress() { finish(); }

void PhaseProgress::phase(const std::string& name, int passes, uint64_t steps) {
    std::lock_guard<std::mutex> lock(mutex_);
    phase_ = name;
    passes_ = passes;
    steps_ = steps;
    pass_ = 1;
    done_.store(0, std::memory_order_relaxed);
}

void PhaseProgress::pass_done() {
    std::lock_guard<std::mutex> lock(mutex_);
    ++pass_;
    done_.store(0, std::memory_order_relaxed);
}

bool PhaseProgress::showing(std::chrono::steady_clock::time_point now) const {
    const std::chrono::milliseconds after = terminal_ ? kFirstBarAfter : line_every_;
    return now - start_ >= after;
}

void PhaseProgress::note(const std::string& line) {
    if (!enabled_) return;
    std::lock_guard<std::mutex> lock(mutex_);
    if (!showing(std::chrono::steady_clock::now())) return;
    // On a terminal the bar's line is cleared first; the next tick redraws it below.
    std::fprintf(stderr, "%s%s: %s\n", terminal_ && bar_drawn_ ? "\r\033[K" : "", label_.c_str(), line.c_str());
    std::fflush(stderr);
}

std::string PhaseProgress::describe() const {
    std::string phase;
    int passes = 0, pass = 0;
    uint64_t steps = 0;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        phase = phase_.empty() ? "starting" : phase_;
        passes = passes_;
        pass = pass_;
        steps = steps_;
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::string line = label_ + ": " + phase;
    if (passes > 1) line += " " + std::to_string(pass) + " of " + std::to_string(passes);
    else if (passes == 0) line += ", pass " + std::to_string(pass);
    char buf[160];
    if (const char* aside = aside_.load(std::memory_order_relaxed))
        std::snprintf(buf, sizeof buf, ": %s, %.0f s elapsed", aside, secs);
    else if (steps > 0)
        std::snprintf(buf, sizeof buf, ": %llu of %llu %s, %.0f s elapsed",
                      static_cast<unsigned long long>(std::min(done_.load(std::memory_order_relaxed), steps)),
                      static_cast<unsigned long long>(steps), unit_.c_str(), secs);
    else
        std::snprintf(buf, sizeof buf, ", %.0f s elapsed", secs);
    return line + buf;
}

void PhaseProgress::run() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stop_) {
        const std::chrono::milliseconds every = terminal_ ? kRedrawEvery : line_every_;
        if (wake_.wait_for(lock, every, [this] { return stop_; })) break;
        if (!showing(std::chrono::steady_clock::now())) continue;
        lock.unlock();
        const std::string line = describe();
        lock.lock();
        if (stop_) break;
        if (terminal_) {
            constexpr int kWidth = 20;
            const uint64_t done = std::min(done_.load(std::memory_order_relaxed), steps_);
            const int filled = steps_ ? static_cast<int>(kWidth * done / steps_) : 0;
            std::fprintf(stderr, "\r\033[K[%.*s%*s] %s", filled, "####################", kWidth - filled, "", line.c_str());
            bar_drawn_ = true;
        } else {
            std::fprintf(stderr, "%s\n", line.c_str());
        }
        std::fflush(stderr);
    }
}

void PhaseProgress::finish() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (stop_) return;
        stop_ = true;
        if (terminal_ && bar_drawn_) {
            std::fputs("\n", stderr);
            std::fflush(stderr);
        }
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

}  // namespace mimic
