// Reading profiler traces and linking them to execution traces, on the real
// traces in ../shared/traces (skipped when absent). Reports bytes/s of
// uncompressed JSON for the reader and ET nodes/s for the linker.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "io/et_reader.h"
#include "io/kineto_reader.h"
#include "link/link_profile.h"

namespace {

std::string trace_path(const std::string& relative) {
    const char* env = std::getenv("MIMIC_TRACES_DIR");
    return std::string(env && *env ? env : MIMIC_TRACES_DIR_DEFAULT) + "/" + relative;
}

void read_profile(benchmark::State& state, const std::string& relative) {
    std::string path = trace_path(relative);
    if (!std::filesystem::exists(path)) {
        state.SkipWithError(("missing " + path).c_str());
        return;
    }
    mimic::KinetoReadOptions options;
    options.progress = false;
    uint64_t bytes = 0;
    for (auto _ : state) {
        mimic::ProfileTrace profile = mimic::read_kineto_trace(path, options);
        bytes += profile.stats.input_bytes;
        benchmark::DoNotOptimize(profile.host.data());
    }
    state.SetBytesProcessed(static_cast<int64_t>(bytes));
}

void link(benchmark::State& state, const std::string& et_relative, const std::string& profile_relative) {
    std::string et_path = trace_path(et_relative), profile_path = trace_path(profile_relative);
    if (!std::filesystem::exists(et_path) || !std::filesystem::exists(profile_path)) {
        state.SkipWithError("missing shared traces");
        return;
    }
    mimic::EtReadOptions et_options;
    et_options.progress = false;
    mimic::KinetoReadOptions options;
    options.progress = false;
    mimic::Trace trace = mimic::read_pytorch_et(et_path, et_options);
    mimic::ProfileTrace profile = mimic::read_kineto_trace(profile_path, options);
    size_t linked = 0;
    for (auto _ : state) {
        mimic::LinkStats stats = mimic::link_profile(trace, profile);
        linked = stats.linked;
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * trace.nodes.size()));
    state.counters["linked"] = static_cast<double>(linked);
    state.counters["nodes"] = static_cast<double>(trace.nodes.size());
}

}  // namespace

BENCHMARK_CAPTURE(read_profile, resnet_kineto_gz, std::string("pytorch/resnet_kineto.json.gz"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(read_profile, linear_kineto_gz, std::string("pytorch/linear_kineto.json.gz"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(link, resnet, std::string("pytorch/resnet_et.json.gz"), std::string("pytorch/resnet_kineto.json.gz"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(link, linear, std::string("pytorch/linear_et.json.gz"), std::string("pytorch/linear_kineto.json.gz"))
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
