#include "replay/replay_timeline.h"

#include "support/chrome_trace.h"

namespace mimic::replay {

std::string replay_timeline_json(const ReplayReport& report) {
    ChromeTrace t;
    const int64_t pid = report.rank >= 0 ? report.rank : 0;
    constexpr int64_t kTid = 1;
    t.process(pid, "replay, rank " + std::to_string(pid));
    t.thread(pid, kTid, "replay thread (ops end to end)");
    double now_us = 0;
    for (const OpTime& op : report.op_times) {
        if (op.host_gap_us && *op.host_gap_us > 0) {
            t.complete(pid, kTid, "host gap", now_us, *op.host_gap_us);
            now_us += *op.host_gap_us;
        }
        std::vector<std::pair<std::string, double>> args = {{"node", static_cast<double>(op.node_id)},
                                                            {"replay_us", op.replay_us}};
        if (op.profile_us) args.emplace_back("original_us", *op.profile_us);
        if (op.untraced_us) args.emplace_back("original_untraced_us", *op.untraced_us);
        t.complete(pid, kTid, op.name, now_us, op.replay_us, args);
        now_us += op.replay_us;
    }
    return t.finish();
}

}  // namespace mimic::replay
