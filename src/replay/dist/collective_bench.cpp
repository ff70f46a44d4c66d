#include "replay/dist/collective_bench.h"

#include <ATen/ops/zeros.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>

#include "replay/dist/local_launch.h"
#include "replay/dist/process_groups.h"
#include "replay/replayer.h"
#include "support/error.h"
#include "support/json_file.h"
#include "support/json_writer.h"
#include "support/launcher_env.h"
#include "support/median.h"
#include "support/output.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"
#include "support/text.h"

namespace mimic::replay {

const char* const kBenchCollectives[4] = {"all_reduce", "all_gather", "all_to_all", "reduce_scatter"};

bool is_bench_collective(std::string_view name) {
    return std::find(std::begin(kBenchCollectives), std::end(kBenchCollectives), name) != std::end(kBenchCollectives);
}

namespace {

namespace fs = std::filesystem;

constexpr const char* kReduceScatterEmulation =
    "reduce_scatter as an all_to_all of the input's pieces (the same bytes on the wire, no reduction; Gloo 1.13 "
    "has no reduce_scatter), as the replay runs it";



// The value at fraction q of the sorted sample, interpolated.
double quantile(std::vector<double> v, double q) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const double at = q * static_cast<double>(v.size() - 1);
    const size_t lo = static_cast<size_t>(std::floor(at));
    const size_t hi = std::min(v.size() - 1, lo + 1);
    return v[lo] + (v[hi] - v[lo]) * (at - static_cast<double>(lo));
}

int64_t now_ns() {
    // steady_clock is CLOCK_MONOTONIC: the same clock in every process of the machine.
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// One collective at one size on this rank: its buffers and how to issue it.
struct BenchCall {
    at::Tensor input, output;
    std::vector<at::Tensor> outputs;  // all_gather
    std::string emulation;
};

BenchCall prepare(const std::string& collective, uint64_t bytes, int world) {
    BenchCall c;
    const int64_t numel = static_cast<int64_t>(bytes / sizeof(float));
    // Zeros: sums of zeros stay zero (no infinities or subnormals as calls repeat).
    c.input = at::zeros({numel}, at::kFloat);
    if (collective == "all_gather") {
        for (int r = 0; r < world; ++r) c.outputs.push_back(at::zeros({numel}, at::kFloat));
    } else if (collective == "all_to_all" || collective == "reduce_scatter") {
        c.output = at::zeros({numel}, at::kFloat);
        if (collective == "reduce_scatter") c.emulation = kReduceScatterEmulation;
    }
    return c;
}

c10::intrusive_ptr<c10d::Work> issue(c10d::ProcessGroup& pg, const std::string& collective, BenchCall& c,
                                     std::chrono::milliseconds timeout) {
    if (collective == "all_reduce") {
        c10d::AllreduceOptions o;
        o.timeout = timeout;
        std::vector<at::Tensor> t{c.input};
        return pg.allreduce(t, o);
    }
    if (collective == "all_gather") {
        c10d::AllgatherOptions o;
        o.timeout = timeout;
        std::vector<std::vector<at::Tensor>> outs{c.outputs};
        std::vector<at::Tensor> in{c.input};
        return pg.allgather(outs, in, o);
    }
    // all_to_all, and reduce_scatter as the replay emulates it: equal pieces.
    c10d::AllToAllOptions o;
    o.timeout = timeout;
    std::vector<int64_t> no_splits;
    return pg.alltoall_base(c.output, c.input, no_splits, no_splits, o);
}

struct RankPoint {
    std::string collective;
    uint64_t bytes = 0;
    std::string emulation;
    std::vector<int64_t> start_ns, end_ns;
};

std::vector<RankPoint> read_rank_points(const std::string& path, int rank) {
    simdjson::dom::parser parser;
    simdjson::padded_string text;
    simdjson::dom::object root = parse_json_object_file(path, parser, text);
    std::vector<RankPoint> out;
    simdjson::dom::array points;
    if (root["points"].get(points) != simdjson::SUCCESS)
        fail({path, -1, -1, "points"}, "rank " + std::to_string(rank) + "'s timings have no points");
    for (simdjson::dom::element e : points) {
        RankPoint p;
        std::string_view s;
        uint64_t u = 0;
        if (e["collective"].get(s) != simdjson::SUCCESS || e["bytes"].get(u) != simdjson::SUCCESS)
            fail({path, -1, -1, "points"}, "a point without collective or bytes");
        p.collective = std::string(s);
        p.bytes = u;
        if (e["emulation"].get(s) == simdjson::SUCCESS) p.emulation = std::string(s);
        for (const char* key : {"start_ns", "end_ns"}) {
            simdjson::dom::array list;
            if (e[key].get(list) != simdjson::SUCCESS) fail({path, -1, -1, key}, "missing");
            auto& into = std::string(key) == "start_ns" ? p.start_ns : p.end_ns;
            for (simdjson::dom::element v : list) {
                int64_t i = 0;
                if (v.get(i) != simdjson::SUCCESS) fail({path, -1, -1, key}, "not an integer");
                into.push_back(i);
            }
        }
        if (p.start_ns.size() != p.end_ns.size()) fail({path, -1, -1, "end_ns"}, "as many ends as starts expected");
        out.push_back(std::move(p));
    }
    return out;
}

// The ranks' timestamps of each point, as one timing per point.
std::vector<CollectiveBenchTiming> combine(const std::vector<std::vector<RankPoint>>& ranks) {
    std::vector<CollectiveBenchTiming> out;
    const size_t n = ranks.front().size();
    for (const auto& r : ranks)
        if (r.size() != n) fail({}, "the ranks timed different numbers of points");
    for (size_t i = 0; i < n; ++i) {
        const RankPoint& p0 = ranks.front()[i];
        std::vector<double> calls, own;
        for (size_t k = 0; k < p0.start_ns.size(); ++k) {
            int64_t start = 0, end = 0;
            for (const auto& r : ranks) {
                if (r[i].collective != p0.collective || r[i].bytes != p0.bytes || r[i].start_ns.size() != p0.start_ns.size())
                    fail({}, "the ranks timed different points");
                start = std::max(start, r[i].start_ns[k]);
                end = std::max(end, r[i].end_ns[k]);
            }
            calls.push_back(static_cast<double>(end - start) / 1e3);
            own.push_back(static_cast<double>(p0.end_ns[k] - p0.start_ns[k]) / 1e3);
        }
        CollectiveBenchTiming t;
        t.collective = p0.collective;
        t.ranks = static_cast<int>(ranks.size());
        t.bytes = p0.bytes;
        t.calls = static_cast<int>(calls.size());
        t.median_us = median(calls);
        for (double c : calls) t.mean_us += c / static_cast<double>(calls.size());
        t.p10_us = quantile(calls, 0.1);
        t.p90_us = quantile(calls, 0.9);
        t.rank0_median_us = median(own);
        t.emulation = p0.emulation;
        out.push_back(std::move(t));
    }
    return out;
}

}  // namespace

std::string size_text(uint64_t bytes) {
    char buf[32];
    if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) std::snprintf(buf, sizeof(buf), "%llu MiB", (unsigned long long)(bytes >> 20));
    else if (bytes >= 1024 && bytes % 1024 == 0) std::snprintf(buf, sizeof(buf), "%llu KiB", (unsigned long long)(bytes >> 10));
    else std::snprintf(buf, sizeof(buf), "%llu B", (unsigned long long)bytes);
    return buf;
}

std::vector<uint64_t> bench_sizes(const CollectiveBenchOptions& o) {
    if (o.min_bytes < 16 || o.max_bytes < o.min_bytes)
        fail({"", -1, -1, "--max-bytes"}, "sizes from " + std::to_string(o.min_bytes) + " to " + std::to_string(o.max_bytes) +
                                              " B: the largest must be at least the smallest, and that 16 B or more");
    std::vector<uint64_t> out;
    const uint64_t step = o.quick ? 16 : 4;
    for (uint64_t b = o.min_bytes; b <= o.max_bytes; b *= step) {
        out.push_back(b);
        if (b > o.max_bytes / step) break;
    }
    if (out.back() != o.max_bytes) out.push_back(o.max_bytes);
    // Whole floats, divisible into 4 ranks' pieces.
    for (uint64_t& b : out) b = std::max<uint64_t>(16, b / 16 * 16);
    return out;
}

int bench_rounds(bool quick) { return quick ? 1 : 3; }

CallCounts bench_calls(uint64_t bytes, bool quick) {
    if (quick) return bytes >= (4u << 20) ? CallCounts{1, 3} : CallCounts{2, 10};
    if (bytes >= (64u << 20)) return {1, 3};
    if (bytes >= (16u << 20)) return {1, 5};
    if (bytes >= (4u << 20)) return {1, 9};
    if (bytes >= (1u << 20)) return {2, 13};
    return {3, 27};
}

std::vector<std::string> collective_bench_rank_args(const CollectiveBenchOptions& o, const std::string& json_path) {
    std::vector<std::string> sizes;
    for (uint64_t b : bench_sizes(o)) sizes.push_back(std::to_string(b));
    std::vector<std::string> args = {"--sizes", join(sizes, ","), "--collectives", join(o.collectives, ","), "--timeout-s",
                                     std::to_string(o.timeout_s), "--json", json_path};
    if (o.quick) args.push_back("--quick");
    return args;
}

std::vector<CollectiveBenchTiming> measure_collectives(const CollectiveBenchOptions& o) {
    if (o.rank_command.empty()) fail({}, "no command to run the ranks with");
    for (const std::string& c : o.collectives)
        if (!is_bench_collective(c))
            fail({"", -1, -1, "collectives"}, "cannot time '" + c + "' (all_reduce, all_gather, all_to_all, reduce_scatter)");
    const std::vector<uint64_t> sizes = bench_sizes(o);
    std::vector<CollectiveBenchTiming> out;
    for (int world : o.ranks) {
        if (world < 2) fail({"", -1, -1, "--ranks"}, "a collective needs 2 ranks or more, not " + std::to_string(world));
        TempDir dir("mimic-collectives");
        for (int attempt = 1;; ++attempt) {
            const int port = free_local_port();
            std::vector<ProcessSpec> specs;
            std::vector<std::string> paths;
            for (int r = 0; r < world; ++r) {
                ProcessSpec spec;
                const std::string json = dir.path() + "/rank" + std::to_string(r) + ".json";
                spec.argv = o.rank_command;
                for (std::string& a : collective_bench_rank_args(o, json)) spec.argv.push_back(std::move(a));
                spec.env_overrides = {{"RANK", std::to_string(r)},
                                      {"WORLD_SIZE", std::to_string(world)},
                                      {"LOCAL_RANK", std::to_string(r)},
                                      {"MASTER_ADDR", "127.0.0.1"},
                                      {"MASTER_PORT", std::to_string(port)},
                                      {"GLOG_minloglevel", "3"}};
                specs.push_back(std::move(spec));
                paths.push_back(json);
            }
            std::fprintf(stderr, "mimic calibrate: timing Gloo collectives on %d ranks over loopback (%zu collectives x %zu sizes, %s to %s)\n",
                         world, o.collectives.size(), sizes.size(), size_text(sizes.front()).c_str(),
                         size_text(sizes.back()).c_str());
            const ProcessGroupResult run = run_process_group(specs, 5.0);
            if (run.first_failure < 0) {
                std::vector<std::vector<RankPoint>> ranks;
                for (int r = 0; r < world; ++r) ranks.push_back(read_rank_points(paths[size_t(r)], r));
                for (CollectiveBenchTiming& t : combine(ranks)) out.push_back(std::move(t));
                break;
            }
            const SubprocessResult& failed = run.results[size_t(run.first_failure)];
            if (run.first_failure == 0 && failed.exit_code == kExitPortBusy && attempt < 3) {
                std::fprintf(stderr, "mimic calibrate: port %d was taken; trying another\n", port);
                continue;
            }
            fail({}, "timing collectives on " + std::to_string(world) + " ranks: rank " + std::to_string(run.first_failure) +
                         (failed.term_signal ? " was killed by signal " + std::to_string(failed.term_signal)
                                             : " exited with code " + std::to_string(failed.exit_code)));
        }
    }
    return out;
}

int run_collective_bench_rank(const CollectiveBenchRankArgs& args) {
    const std::optional<LauncherEnv> env = read_launcher_env();
    if (!env) fail({"", -1, -1, "RANK"}, "a collective bench rank runs under `mimic calibrate --collectives`, which sets RANK and WORLD_SIZE");
    if (args.sizes.empty() || args.collectives.empty()) fail({"", -1, -1, "--sizes"}, "nothing to time");
    DistOptions d;
    d.rank = env->rank;
    d.world_size = env->world_size;
    d.master_addr = env->master_addr;
    d.master_port = env->master_port;
    d.timeout = std::chrono::seconds(args.timeout_s);
    std::unique_ptr<ProcessGroups> groups;
    try {
        groups = std::make_unique<ProcessGroups>(d, std::vector<ProcessGroup>{});
    } catch (const Error& e) {
        if (d.rank == 0 && std::string(e.what()).find("could not serve") != std::string::npos) {
            std::fprintf(stderr, "mimic: %s\n", e.what());
            return kExitPortBusy;
        }
        throw;
    }
    c10d::ProcessGroup& pg = *groups->default_group().pg;
    const bool lead = d.rank == 0;
    if (lead) std::fprintf(stderr, "mimic calibrate: %d ranks connected over Gloo on loopback\n", d.world_size);
    int64_t last_line_ns = now_ns();  // rank 0 writes a line at least every ~8 s

    auto barrier = [&] {
        try {
            c10d::BarrierOptions o;
            o.timeout = d.timeout;
            pg.barrier(o)->wait(d.timeout);
        } catch (const std::exception& e) {
            fail({}, "rank " + std::to_string(d.rank) + ": the ranks did not meet before a timed call (a peer crashed, or "
                     "hung past the " + std::to_string(args.timeout_s) + " s timeout): " + short_reason(e));
        }
    };

    // Rounds over every collective and size, so that the machine's slower
    // and faster spells (seconds long on this VM) fall on every point alike.
    struct Point {
        std::string collective;
        uint64_t bytes;
        std::string emulation;
        std::vector<int64_t> starts, ends;
    };
    std::vector<Point> points;
    for (const std::string& collective : args.collectives)
        for (uint64_t bytes : args.sizes) points.push_back({collective, bytes, "", {}, {}});
    const int rounds = bench_rounds(args.quick);
    for (int round = 1; round <= rounds; ++round) {
        for (size_t first = 0; first < points.size();) {
            const std::string& collective = points[first].collective;
            double fastest_us = 1e300, slowest_us = 0;
            size_t p = first;
            for (; p < points.size() && points[p].collective == collective; ++p) {
                Point& point = points[p];
                BenchCall call = prepare(collective, point.bytes, d.world_size);
                point.emulation = call.emulation;
                const CallCounts counts = bench_calls(point.bytes, args.quick);
                std::vector<double> own;
                for (int i = 0; i < counts.warmup + counts.timed; ++i) {
                    if (lead && now_ns() - last_line_ns > 8'000'000'000) {
                        std::fprintf(stderr, "mimic calibrate: %d ranks, round %d of %d: %s of %s, call %d of %d\n",
                                     d.world_size, round, rounds, collective.c_str(), size_text(point.bytes).c_str(), i + 1,
                                     counts.warmup + counts.timed);
                        last_line_ns = now_ns();
                    }
                    barrier();
                    const int64_t t0 = now_ns();
                    try {
                        issue(pg, collective, call, d.timeout)->wait(d.timeout);
                    } catch (const std::exception& e) {
                        fail({}, "rank " + std::to_string(d.rank) + ": " + collective + " of " + size_text(point.bytes) +
                                     " failed (a peer crashed, or hung past the timeout): " + short_reason(e));
                    }
                    const int64_t t1 = now_ns();
                    if (i < counts.warmup) continue;
                    point.starts.push_back(t0);
                    point.ends.push_back(t1);
                    own.push_back(static_cast<double>(t1 - t0) / 1e3);
                }
                fastest_us = std::min(fastest_us, median(own));
                slowest_us = std::max(slowest_us, median(own));
            }
            if (lead) {
                std::fprintf(stderr, "mimic calibrate: %d ranks, round %d of %d: %-14s %s to %s: %.1f to %.1f us (rank 0's medians)\n",
                             d.world_size, round, rounds, collective.c_str(), size_text(points[first].bytes).c_str(),
                             size_text(points[p - 1].bytes).c_str(), fastest_us, slowest_us);
                last_line_ns = now_ns();
            }
            first = p;
        }
    }

    JsonWriter w(0);
    w.begin_object();
    w.field("rank", d.rank);
    w.field("world_size", d.world_size);
    w.key("points").begin_array();
    for (const Point& point : points) {
        w.begin_object();
        w.field("collective", point.collective);
        w.field("bytes", point.bytes);
        if (!point.emulation.empty()) w.field("emulation", point.emulation);
        w.key("start_ns").begin_array();
        for (int64_t t : point.starts) w.value(static_cast<long long>(t));
        w.end_array();
        w.key("end_ns").begin_array();
        for (int64_t t : point.ends) w.value(static_cast<long long>(t));
        w.end_array();
        w.end_object();
    }
    w.end_array();
    w.end_object();
    barrier();  // nobody leaves while a peer still needs it
    write_output(args.json_path, w.str() + "\n");
    return 0;
}

std::string collective_timings_json(const std::vector<CollectiveBenchTiming>& timings, int indent) {
    JsonWriter w(indent);
    w.begin_array();
    for (const CollectiveBenchTiming& t : timings) {
        w.begin_object();
        w.field("collective", t.collective);
        w.field("ranks", t.ranks);
        w.field("bytes", t.bytes);
        w.field("calls", t.calls);
        w.field("median_us", t.median_us);
        w.field("mean_us", t.mean_us);
        w.field("p10_us", t.p10_us);
        w.field("p90_us", t.p90_us);
        w.field("rank0_median_us", t.rank0_median_us);
        if (!t.emulation.empty()) w.field("emulation", t.emulation);
        w.end_object();
    }
    w.end_array();
    return w.str();
}

}  // namespace mimic::replay
