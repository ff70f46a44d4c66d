#include "model/cost_model.h"

#include <algorithm>
#include <cmath>

namespace mimic::model {
namespace {

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

bool rate_family(OpFamily f) { return f == OpFamily::Gemm || f == OpFamily::Conv || f == OpFamily::Attention; }

}  // namespace

const char* cost_source_name(CostSource s) {
    switch (s) {
        case CostSource::Measured: return "measured";
        case CostSource::FamilyModel: return "family_model";
        case CostSource::Fallback: return "fallback";
    }
    return "?";
}

CostModel::FamilyFit CostModel::fit_rate(std::vector<std::pair<double, double>> flops_time) {
    FamilyFit fit;
    fit.points = flops_time.size();
    if (flops_time.empty()) return fit;
    // Median rate per unit of log2 FLOPs: one curve from small to large GEMMs.
    std::sort(flops_time.begin(), flops_time.end());
    size_t i = 0;
    while (i < flops_time.size()) {
        const double bin = std::floor(std::log2(flops_time[i].first));
        std::vector<double> rates, logs;
        while (i < flops_time.size() && std::floor(std::log2(flops_time[i].first)) == bin) {
            rates.push_back(flops_time[i].first / std::max(flops_time[i].second, 1e-3));
            logs.push_back(std::log2(flops_time[i].first));
            ++i;
        }
        fit.rate.push_back({median(logs), median(rates)});
    }
    fit.fitted = true;
    return fit;
}

CostModel::FamilyFit CostModel::fit_bandwidth(std::vector<std::pair<double, double>> bytes_time) {
    FamilyFit fit;
    fit.points = bytes_time.size();
    if (bytes_time.empty()) return fit;
    std::sort(bytes_time.begin(), bytes_time.end());
    // Fixed cost: the small calls' median time; bandwidth: what the larger
    // ones achieve beyond it.
    const size_t small = std::max<size_t>(1, bytes_time.size() / 4);
    std::vector<double> t_small;
    for (size_t i = 0; i < small; ++i) t_small.push_back(bytes_time[i].second);
    fit.fixed_us = median(t_small);
    std::vector<double> rates;
    for (size_t i = small; i < bytes_time.size(); ++i) {
        const double extra = bytes_time[i].second - fit.fixed_us;
        if (extra > 0 && bytes_time[i].first > 0) rates.push_back(bytes_time[i].first / extra);
    }
    fit.bytes_per_us = rates.empty() ? 0 : median(rates);
    fit.fitted = true;
    return fit;
}

CostModel::CostModel(const CostDb& db, int threads) : db_(db), threads_(threads) { fit(nullptr); }

CostModel::CostModel(const CostDb& db, int threads, const std::set<std::string>& unseen)
    : db_(db), threads_(threads), unseen_(unseen) {
    fit(&unseen_);
}

void CostModel::fit(const std::set<std::string>* unseen) {
    const CostDb& db = db_;
    const int threads = threads_;
    // Points measured in traces' steps, and in calibrate's shape sweep. A
    // sweep's inputs come cold from memory where a step's come warm from the
    // op before: its points fill in names and families the traces leave
    // without points, and stay out where the traces have their own.
    using Points = std::vector<std::pair<double, double>>;
    constexpr size_t kFamilies = static_cast<size_t>(OpFamily::kCount);
    std::array<std::array<Points, 2>, kFamilies> rate, bw;  // [family][from_sweep]
    std::map<std::string, std::array<Points, 2>> by_name;
    std::vector<double> all;
    for (const auto& [key, c] : db.ops) {
        if (c.threads != threads || (unseen && unseen->count(c.signature))) continue;
        all.push_back(c.time_us);
        if (!c.bytes_current) continue;
        const size_t f = static_cast<size_t>(c.family);
        const size_t s = c.from_sweep ? 1 : 0;
        if (rate_family(c.family) && c.flops > 0) {
            rate[f][s].push_back({static_cast<double>(c.flops), c.time_us});
            by_name[c.name][s].push_back({static_cast<double>(c.flops), c.time_us});
        } else {
            bw[f][s].push_back({static_cast<double>(c.bytes), c.time_us});
            if (!rate_family(c.family)) by_name[c.name][s].push_back({static_cast<double>(c.bytes), c.time_us});
        }
    }
    // The step's own points where there are at least `enough`, else the sweep's too.
    auto pick = [](const std::array<Points, 2>& p, size_t enough) {
        if (p[0].size() >= enough) return p[0];
        Points both = p[0];
        both.insert(both.end(), p[1].begin(), p[1].end());
        return both;
    };
    for (size_t f = 0; f < families_.size(); ++f)
        families_[f] = rate_family(static_cast<OpFamily>(f)) ? fit_rate(pick(rate[f], 2)) : fit_bandwidth(pick(bw[f], 2));
    if (!all.empty()) fallback_us_ = median(all);
    // A view with no points of its family moves no data: it costs a call, as the cheapest call
    // measured does, not the median op (a GEMM-heavy median put 218 us on each aten::t).
    if (!all.empty()) view_fallback_us_ = *std::min_element(all.begin(), all.end());
    for (auto& [name, points] : by_name) {
        const Points chosen = pick(points, 2);
        if (chosen.size() < 2) continue;
        names_[name] = rate_family(family_of(name)) ? fit_rate(chosen) : fit_bandwidth(chosen);
    }
}

CostEstimate CostModel::from_fit(const FamilyFit& fit, bool rate, const OpFacts& op) const {
    if (rate) {
        const double x = std::log2(static_cast<double>(op.flops));
        double r = fit.rate.front().flops_per_us;
        if (x >= fit.rate.back().log_flops) {
            r = fit.rate.back().flops_per_us;
        } else if (x > fit.rate.front().log_flops) {
            for (size_t i = 1; i < fit.rate.size(); ++i) {
                if (x > fit.rate[i].log_flops) continue;
                const RatePoint& a = fit.rate[i - 1];
                const RatePoint& b = fit.rate[i];
                const double t = (x - a.log_flops) / std::max(b.log_flops - a.log_flops, 1e-9);
                // Interpolate the rate's logarithm: rates span orders of magnitude.
                r = std::exp2(std::log2(a.flops_per_us) + t * (std::log2(b.flops_per_us) - std::log2(a.flops_per_us)));
                break;
            }
        }
        return {static_cast<double>(op.flops) / r, CostSource::FamilyModel};
    }
    double t = fit.fixed_us;
    if (fit.bytes_per_us > 0) t += static_cast<double>(op.bytes) / fit.bytes_per_us;
    return {t, CostSource::FamilyModel};
}

CostEstimate CostModel::estimate(const OpFacts& op) const {
    if (!unseen_.count(op.signature))
        if (const OpCost* c = db_.find(op.signature, threads_)) return {c->time_us, CostSource::Measured};
    // A copy or conversion that moved nothing (to() of the dtype it has,
    // contiguous() of a contiguous tensor) costs its call, as a view does,
    // whatever its name's model says of the calls that did copy.
    const OpFamily named = family_of(op.name);
    const bool did_nothing = op.moves_nothing && named != OpFamily::View;
    const OpFamily family = did_nothing ? OpFamily::View : named;
    const bool rate = rate_family(family) && op.flops > 0;
    if (auto n = names_.find(op.name); !did_nothing && n != names_.end() && n->second.fitted && (!rate || !n->second.rate.empty()) &&
                                       (rate || !rate_family(family)))
        return from_fit(n->second, rate, op);
    const FamilyFit& fit = families_[static_cast<size_t>(family)];
    if (rate && fit.fitted && !fit.rate.empty()) return from_fit(fit, true, op);
    if (!rate_family(family) && fit.fitted) return from_fit(fit, false, op);
    return {family == OpFamily::View ? view_fallback_us_ : fallback_us_, CostSource::Fallback};
}

}  // namespace mimic::model
