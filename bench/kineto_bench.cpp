// Reading profiler traces and linking them to execution traces, on the real
// traces in ../shared/traces (skipped when absent) and on a generated 530 MB
// profile. Reports bytes/s of uncompressed JSON and peak resident memory for
// the reader, ET nodes/s for the linker.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "io/pytorch_et/et_reader.h"
#include "io/kineto/kineto_reader.h"
#include "link/link_profile.h"
#include "support/byte_source.h"

namespace {

std::string trace_path(const std::string& relative) {
    const char* env = std::getenv("MIMIC_TRACES_DIR");
    return std::string(env && *env ? env : MIMIC_TRACES_DIR_DEFAULT) + "/" + relative;
}

double peak_rss_bytes() {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return static_cast<double>(ru.ru_maxrss) * 1024.0;
}

// Where the generated and unpacked inputs go (kept between runs).
std::string scratch(const std::string& name) {
    auto dir = std::filesystem::temp_directory_path() / "mimic_kineto_bench";
    std::filesystem::create_directories(dir);
    return (dir / name).string();
}

// A Kineto-like profile of `iterations` steps: nested cpu ops on two threads,
// launches, kernels, memsets and flow arrows, with the fields real ones carry.
std::string generated_profile(int iterations) {
    std::string path = scratch("generated_" + std::to_string(iterations) + ".json");
    if (std::filesystem::exists(path)) return path;
    std::ofstream out(path + ".tmp", std::ios::binary);
    out << "{\"schemaVersion\": 1, \"traceEvents\": [\n";
    long long ts = 1689179597340000LL, ext = 1, corr = 1;
    bool first = true;
    auto event = [&](const std::string& text) {
        if (!first) out << ",\n";
        out << text;
        first = false;
    };
    char buf[1024];
    for (int it = 0; it < iterations; ++it) {
        for (int op = 0; op < 200; ++op, ts += 40) {
            int tid = op < 120 ? 23442 : 23656;
            std::snprintf(buf, sizeof buf,
                          "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::conv2d\", \"pid\": 23442, \"tid\": %d,"
                          " \"ts\": %lld, \"dur\": 30, \"args\": {\"External id\": %lld, \"Ev Idx\": %lld,"
                          " \"Sequence number\": %d, \"Fwd thread id\": 1}}",
                          tid, ts, ext, ext, op);
            event(buf);
            std::snprintf(buf, sizeof buf,
                          "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::cudnn_convolution\", \"pid\": 23442,"
                          " \"tid\": %d, \"ts\": %lld, \"dur\": 20, \"args\": {\"External id\": %lld, \"Ev Idx\": %lld}}",
                          tid, ts + 2, ext + 1, ext + 1);
            event(buf);
            ext += 2;
            std::snprintf(buf, sizeof buf,
                          "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 23442,"
                          " \"tid\": %d, \"ts\": %lld, \"dur\": 6, \"args\": {\"External id\": %lld, \"cbid\": 211,"
                          " \"correlation\": %lld}}",
                          tid, ts + 5, corr, corr);
            event(buf);
            std::snprintf(buf, sizeof buf,
                          "  {\"ph\": \"s\", \"id\": %lld, \"pid\": 23442, \"tid\": %d, \"ts\": %lld, \"cat\": \"ac2g\","
                          " \"name\": \"ac2g\"}",
                          corr, tid, ts + 5);
            event(buf);
            std::snprintf(buf, sizeof buf,
                          "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void cudnn::cnn::conv2d_grouped_direct_kernel"
                          "<float, float, float, float, true, false, 0, 0, 0>(cudnn::cnn::GroupedDirectFpropParams)\","
                          " \"pid\": 0, \"tid\": 7, \"ts\": %lld, \"dur\": 25, \"args\": {\"External id\": %lld,"
                          " \"queued\": 0, \"device\": 0, \"context\": 1, \"stream\": 7, \"correlation\": %lld,"
                          " \"registers per thread\": 40, \"shared memory\": 0, \"blocks per SM\": 7.5,"
                          " \"warps per SM\": 15.1, \"grid\": [64, 8, 1], \"block\": [128, 1, 1],"
                          " \"est. achieved occupancy %%\": 23}}",
                          ts + 12, corr, corr);
            event(buf);
            std::snprintf(buf, sizeof buf,
                          "  {\"ph\": \"f\", \"id\": %lld, \"pid\": 0, \"tid\": 7, \"ts\": %lld, \"cat\": \"ac2g\","
                          " \"name\": \"ac2g\", \"bp\": \"e\"}",
                          corr, ts + 12);
            event(buf);
            ++corr;
        }
    }
    out << "\n]}\n";
    out.close();
    std::filesystem::rename(path + ".tmp", path);
    return path;
}

// The real gzip trace unpacked once, to time the parser without zlib.
std::string unpacked(const std::string& relative) {
    std::string path = scratch(std::filesystem::path(relative).stem().string());
    if (!std::filesystem::exists(path)) {
        std::ofstream(path, std::ios::binary) << mimic::read_whole_file(trace_path(relative));
    }
    return path;
}

void read_file(benchmark::State& state, const std::string& path) {
    mimic::KinetoReadOptions options;
    options.progress = false;
    uint64_t bytes = 0;
    double rss_before = peak_rss_bytes();
    for (auto _ : state) {
        mimic::ProfileTrace profile = mimic::read_kineto_trace(path, options);
        bytes += profile.stats.input_bytes;
        benchmark::DoNotOptimize(profile.host.data());
    }
    state.SetBytesProcessed(static_cast<int64_t>(bytes));
    state.counters["json_MB"] = static_cast<double>(bytes) / static_cast<double>(state.iterations()) / 1e6;
    state.counters["peak_rss_MB"] = std::max(peak_rss_bytes(), rss_before) / 1e6;
}

void read_profile_plain(benchmark::State& state, const std::string& relative) {
    if (!std::filesystem::exists(trace_path(relative))) {
        state.SkipWithError("missing shared trace");
        return;
    }
    read_file(state, unpacked(relative));
}

void read_profile_generated(benchmark::State& state) { read_file(state, generated_profile(2000)); }

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
BENCHMARK_CAPTURE(read_profile_plain, resnet_kineto_json, std::string("pytorch/resnet_kineto.json.gz"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK(read_profile_generated)->Unit(benchmark::kMillisecond)->Iterations(2)->UseRealTime();
BENCHMARK_CAPTURE(link, resnet, std::string("pytorch/resnet_et.json.gz"), std::string("pytorch/resnet_kineto.json.gz"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(link, linear, std::string("pytorch/linear_et.json.gz"), std::string("pytorch/linear_kineto.json.gz"))
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
