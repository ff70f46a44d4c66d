#include "support/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace mimic {

namespace {
constexpr auto kFirstDrawAfter = std::chrono::milliseconds(1500);
constexpr auto kRedrawEvery = std::chrono::milliseconds(200);
constexpr auto kLineEvery = std::chrono::seconds(10);  // off a terminal

std::string human(double v, const std::string& unit) {
    const char* prefixes[] = {"", "k", "M", "G", "T"};
    int p = 0;
    while (v >= 1000 && p < 4) {
        v /= 1000;
        ++p;
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f %s%s", v, prefixes[p], unit.c_str());
    return buf;
}
}  // namespace

Progress::Progress(std::string label, uint64_t total, std::string unit)
    : label_(std::move(label)), total_(total), unit_(std::move(unit)) {
    terminal_ = isatty(STDERR_FILENO);
    enabled_ = !std::getenv("MIMIC_NO_PROGRESS");
    start_ = last_draw_ = std::chrono::steady_clock::now();
}

Progress::~Progress() { finish(); }

void Progress::update(uint64_t done) {
    if (!enabled_) return;
    last_done_ = done;
    auto now = std::chrono::steady_clock::now();
    if (!terminal_) {
        if (now - last_draw_ < kLineEvery) return;
        last_draw_ = now;
        printed_line_ = true;
        draw(done, true);
        return;
    }
    // Only show a bar for work that is already taking a while.
    if (now - start_ < kFirstDrawAfter || now - last_draw_ < kRedrawEvery) return;
    last_draw_ = now;
    draw(done, false);
}

void Progress::finish() {
    if (finished_) return;
    finished_ = true;
    if (!enabled_) return;
    if (!terminal_) {
        if (printed_line_) draw(total_ > 0 ? total_ : last_done_, true);  // the end of what the log showed going
        return;
    }
    if (std::chrono::steady_clock::now() - start_ >= kFirstDrawAfter) std::fputs("\n", stderr);
}

void Progress::draw(uint64_t done, bool final_line) {
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::string rate = human(secs > 0 ? done / secs : 0, unit_ + "/s");
    if (!terminal_) {  // a log line: no carriage returns
        if (total_ > 0)
            std::fprintf(stderr, "%s: %.1f%% (%s of %s) after %.0f s, %s\n", label_.c_str(),
                         std::min(100.0, 100.0 * static_cast<double>(done) / static_cast<double>(total_)),
                         human(static_cast<double>(done), unit_).c_str(), human(static_cast<double>(total_), unit_).c_str(),
                         secs, rate.c_str());
        else
            std::fprintf(stderr, "%s: %s after %.0f s, %s\n", label_.c_str(), human(static_cast<double>(done), unit_).c_str(),
                         secs, rate.c_str());
        std::fflush(stderr);
        return;
    }
    if (total_ > 0) {
        int width = 30;
        double frac = std::min(1.0, static_cast<double>(done) / static_cast<double>(total_));
        int filled = static_cast<int>(frac * width);
        std::fprintf(stderr, "\r%s [%.*s%*s] %5.1f%% %s", label_.c_str(), filled,
                     "##############################", width - filled, "", frac * 100, rate.c_str());
    } else {
        std::fprintf(stderr, "\r%s %s %s", label_.c_str(), human(static_cast<double>(done), unit_).c_str(),
                     rate.c_str());
    }
    if (final_line) std::fputs("\n", stderr);
    std::fflush(stderr);
}

}  // namespace mimic
