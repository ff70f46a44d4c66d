// Plans a test trace, checks every op once and runs one iteration of all of
// it: what a test needs to see which ops replayed and with what arguments.
#pragma once

#include <memory>
#include <string>

#include "replay/replayer.h"
#include "trace/trace.h"

namespace mimic::testing {

inline std::unique_ptr<replay::Replayer> replay_once(const Trace& trace) {
    replay::ReplayOptions options;
    options.selection.iteration = "all";
    auto r = std::make_unique<replay::Replayer>(trace, options);
    r->plan();
    r->check();
    r->run_iteration();
    return r;
}

// "name: reason; " for each skipped op, for a failed expectation's message.
inline std::string skipped_ops(const replay::Replayer& r) {
    std::string s;
    for (const replay::SkippedOp& op : r.skipped()) s += op.name + ": " + op.reason + "; ";
    return s;
}

}  // namespace mimic::testing
