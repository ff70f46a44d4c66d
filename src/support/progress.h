// Progress on stderr for work that can take more than a few seconds: a bar
// redrawn a few times a second on a terminal; elsewhere (a log, a CI job, a
// Slurm output file) one line every 10 s once the work has taken that long,
// so a long run is never silent and a short one stays clean. Silent with
// MIMIC_NO_PROGRESS set.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace mimic {

class Progress {
public:
    // `total` in the caller's unit (bytes, nodes...); 0 when unknown.
    Progress(std::string label, uint64_t total, std::string unit = "B");
    ~Progress();
    void update(uint64_t done);
    void finish();

private:
    void draw(uint64_t done, bool final_line);
    std::string label_;
    uint64_t total_;
    std::string unit_;
    bool enabled_;
    bool terminal_;
    bool printed_line_ = false;  // off a terminal: a line was written
    uint64_t last_done_ = 0;
    bool finished_ = false;
    std::chrono::steady_clock::time_point start_;
    std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace mimic
