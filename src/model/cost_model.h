// An operator's time on the calibrated machine: its signature's measured
// time when the cost database has it, else its family's model fitted on the
// database (GEMM-like ops: the FLOP rate achieved at that many FLOPs,
// interpolated in log space; everything else: a fixed cost plus bytes at the
// bandwidth that family achieved), else a fallback that says so.
#pragma once

#include <array>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "model/cost_db.h"
#include "model/op_signature.h"

namespace mimic::model {

enum class CostSource : uint8_t { Measured, FamilyModel, Fallback };
const char* cost_source_name(CostSource s);

struct CostEstimate {
    double time_us = 0;
    CostSource source = CostSource::Fallback;
};

class CostModel {
public:
    // Costs at `threads` intra-op threads: the database's measurements at
    // that count, and family models fitted on them alone.
    CostModel(const CostDb& db, int threads);
    // The same, as if these signatures had never been measured: their own
    // measurements are neither used nor fitted on (how the family models do
    // on ops they have not seen).
    CostModel(const CostDb& db, int threads, const std::set<std::string>& unseen);
    CostEstimate estimate(const OpFacts& op) const;
    // The model's view of a family, for reports: points it was fitted on.
    size_t points(OpFamily family) const { return families_[static_cast<size_t>(family)].points; }

private:
    struct RatePoint {
        double log_flops, flops_per_us;
    };
    struct FamilyFit {
        size_t points = 0;
        std::vector<RatePoint> rate;  // GEMM-like: by log2 FLOPs, ascending
        double fixed_us = 0;          // bandwidth-like: time = fixed + bytes / bytes_per_us
        double bytes_per_us = 0;
        bool fitted = false;
    };
    static FamilyFit fit_rate(std::vector<std::pair<double, double>> flops_time);
    static FamilyFit fit_bandwidth(std::vector<std::pair<double, double>> bytes_time);

    void fit(const std::set<std::string>* unseen);

    const CostDb& db_;
    int threads_;
    std::set<std::string> unseen_;
    // An op's own name is a closer model than its family where the database
    // has it at two sizes or more (add_ and addcdiv_ are both optimizer updates).
    CostEstimate from_fit(const FamilyFit& fit, bool rate, const OpFacts& op) const;
    std::array<FamilyFit, static_cast<size_t>(OpFamily::kCount)> families_;
    std::map<std::string, FamilyFit> names_;
    double fallback_us_ = 1.0;       // no model: the median measured op
    double view_fallback_us_ = 1.0;  // a view with no model: the cheapest op measured
};

}  // namespace mimic::model
