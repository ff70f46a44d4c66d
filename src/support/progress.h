// A progress bar on stderr for work that can take more than a few seconds.
// Silent when stderr is not a terminal or MIMIC_NO_PROGRESS is set, so logs
// and tests stay clean; redraws at most a few times a second.
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
    bool finished_ = false;
    std::chrono::steady_clock::time_point start_;
    std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace mimic
