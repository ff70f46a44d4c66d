// A Chrome/Perfetto trace built event by event: processes (a rank, or what a
// timeline shows: original, replay, prediction), their threads, and complete
// events in microseconds. The timelines of replay and predict use it, so they
// open beside `mimic timeline`'s and `mimic simulate --timeline`'s.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "support/json_writer.h"

namespace mimic {

class ChromeTrace {
public:
    ChromeTrace();
    void process(int64_t pid, const std::string& name);
    void thread(int64_t pid, int64_t tid, const std::string& name);
    // args: (key, value) printed as strings or numbers by the caller's choice.
    void complete(int64_t pid, int64_t tid, const std::string& name, double ts_us, double dur_us,
                  const std::vector<std::pair<std::string, double>>& args = {});
    size_t events() const { return events_; }
    std::string finish();

private:
    JsonWriter w_;
    size_t events_ = 0;
};

// Writes to `out` one trace of the events of several files (ranks' parts,
// written apart), in order, and removes the parts. Throws mimic::Error naming
// a part that is not a Chrome trace.
void merge_chrome_trace_parts(const std::vector<std::string>& parts, const std::string& out);

}  // namespace mimic
