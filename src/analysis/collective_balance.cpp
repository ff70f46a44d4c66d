#include "analysis/collective_balance.h"

#include <map>
#include <tuple>

namespace mimic::analysis {
namespace {

double ratio(double hi, double lo) { return lo > 0 ? hi / lo : 0.0; }

}  // namespace

double CollectiveBalance::bytes_imbalance() const {
    return ratio(static_cast<double>(max_bytes), static_cast<double>(min_bytes));
}

double CollectiveBalance::time_imbalance() const { return ratio(max_us, min_us); }

std::vector<CollectiveBalance> collective_balance(const std::vector<CollectiveStats>& per_rank) {
    // (group, collective) -> rank -> (calls, bytes, us); a rank's stats may come in several rows.
    struct Sum {
        uint64_t calls = 0, bytes = 0;
        double us = 0;
    };
    std::map<std::tuple<std::string, std::string>, std::map<int64_t, Sum>> groups;
    std::map<std::tuple<std::string, std::string>, std::string> descs;
    for (const CollectiveStats& c : per_rank) {
        const auto key = std::make_tuple(c.pg_name, c.collective);
        Sum& s = groups[key][c.rank];
        s.calls += c.count;
        s.bytes += c.total_bytes;
        s.us += c.total_us;
        if (!c.pg_desc.empty()) descs[key] = c.pg_desc;
    }
    std::vector<CollectiveBalance> out;
    for (const auto& [key, ranks] : groups) {
        CollectiveBalance b;
        b.pg_name = std::get<0>(key);
        b.collective = std::get<1>(key);
        b.pg_desc = descs[key];
        b.ranks = ranks.size();
        bool first = true;
        for (const auto& [rank, s] : ranks) {
            b.calls += s.calls;
            b.timed = b.timed || s.us > 0;
            if (first || s.bytes < b.min_bytes) b.min_bytes = s.bytes, b.min_bytes_rank = rank;
            if (first || s.bytes > b.max_bytes) b.max_bytes = s.bytes, b.max_bytes_rank = rank;
            if (first || s.us < b.min_us) b.min_us = s.us, b.fastest_rank = rank;
            if (first || s.us > b.max_us) b.max_us = s.us, b.slowest_rank = rank;
            first = false;
        }
        out.push_back(std::move(b));
    }
    return out;
}

}  // namespace mimic::analysis
