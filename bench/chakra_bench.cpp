// Chakra read and write speed, in nodes per second (items_per_second, per
// CPU second).
//   read:  the real feeder_sample (3,664 heavy nodes: ~810 bytes and ~50
//          dependencies each, IOInfo in Python syntax); a generated trace of
//          copies of its nodes (ids and deps shifted; 100 copies by default,
//          $MIMIC_BENCH_CHAKRA_COPIES to change); and the ResNet ET as mimic
//          converts it (JSON IOInfo, ~600 bytes a node), without and with its
//          profile linked (kernel nodes);
//   write: the ResNet ET converted (counter in_nodes_per_second: ET nodes
//          consumed), with its profile linked, and the feeder and generated
//          Chakra traces written back node for node.
// Output goes to $TMPDIR. usage: chakra_bench [--benchmark_filter=...];
// traces from $MIMIC_TRACES_DIR.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "et_def.pb.h"
#include "io/chakra/chakra_reader.h"
#include "io/chakra/chakra_stream.h"
#include "io/chakra/chakra_writer.h"
#include "io/kineto/kineto_reader.h"
#include "io/trace_loader.h"
#include "link/link_profile.h"

namespace {

std::string traces_dir() {
    if (const char* env = std::getenv("MIMIC_TRACES_DIR"); env && *env) return env;
    return MIMIC_TRACES_DIR_DEFAULT;
}

std::string scratch(const std::string& name) {
    auto dir = std::filesystem::temp_directory_path() / ("mimic_chakra_bench." + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    return (dir / name).string();
}

std::string feeder_path() { return traces_dir() + "/chakra/feeder_sample.0.et"; }

// Copies of the feeder's nodes, ids and dependencies shifted per copy so the
// result is one valid trace of copies * 3,664 nodes.
const std::string& generated_path() {
    static const std::string path = [] {
        int copies = 100;
        if (const char* env = std::getenv("MIMIC_BENCH_CHAKRA_COPIES"); env && *env) copies = std::atoi(env);
        const std::string out_path = scratch("generated.0.et");
        mimic::ChakraFrameWriter out(out_path);
        constexpr uint64_t kShift = 1 << 20;
        for (int c = 0; c < copies; ++c) {
            mimic::ChakraFrameReader in(feeder_path());
            std::string_view bytes;
            uint64_t offset = 0;
            in.next(bytes, offset);
            if (c == 0) out.write_bytes(bytes);  // metadata once
            ChakraProtoMsg::Node node;
            while (in.next(bytes, offset)) {
                node.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
                const uint64_t shift = kShift * static_cast<uint64_t>(c);
                node.set_id(node.id() + shift);
                for (auto& d : *node.mutable_ctrl_deps()) d += shift;
                for (auto& d : *node.mutable_data_deps()) d += shift;
                out.write(node);
            }
        }
        out.close();
        // Written back, and read once, before any read is timed: the first
        // read of a process maps ~500 MB of columns fresh (on this VM, 3x
        // the time of later reads, which reuse them), and reading what the
        // kernel is still writing back is slower again.
        ::sync();
        mimic::ChakraReadOptions quiet;
        quiet.progress = false;
        mimic::read_chakra(out_path, quiet);
        return out_path;
    }();
    return path;
}

void read_file(benchmark::State& state, const std::string& path) {
    mimic::ChakraReadOptions options;
    options.progress = false;
    size_t nodes = 0;
    for (auto _ : state) {
        mimic::Trace t = mimic::read_chakra(path, options);
        nodes += t.nodes.size();
        benchmark::DoNotOptimize(t.nodes.data());
    }
    state.SetItemsProcessed(static_cast<int64_t>(nodes));
    state.SetBytesProcessed(static_cast<int64_t>(std::filesystem::file_size(path)) *
                            static_cast<int64_t>(state.iterations()));
}

void BM_ChakraRead_Feeder(benchmark::State& state) { read_file(state, feeder_path()); }
void BM_ChakraRead_Generated(benchmark::State& state) { read_file(state, generated_path()); }

const mimic::Trace& resnet_et() {
    static const mimic::Trace trace = mimic::load_trace(traces_dir() + "/pytorch/resnet_et.json.gz");
    return trace;
}

const mimic::Trace& resnet_et_linked() {
    static const mimic::Trace trace = [] {
        mimic::Trace t = mimic::load_trace(traces_dir() + "/pytorch/resnet_et.json.gz");
        mimic::KinetoReadOptions options;
        options.progress = false;
        mimic::link_profile(t, mimic::read_kineto_trace(traces_dir() + "/pytorch/resnet_kineto.json.gz", options));
        return t;
    }();
    return trace;
}

const std::string& converted(const mimic::Trace& trace, const std::string& name) {
    static std::map<std::string, std::string> paths;
    auto it = paths.find(name);
    if (it != paths.end()) return it->second;
    mimic::ChakraWriteOptions options;
    options.progress = false;
    return paths[name] = mimic::write_chakra(trace, scratch(name), options).path;
}

void BM_ChakraRead_ConvertedResnet(benchmark::State& state) { read_file(state, converted(resnet_et(), "resnet")); }
void BM_ChakraRead_ConvertedResnetLinked(benchmark::State& state) {
    read_file(state, converted(resnet_et_linked(), "resnet_linked"));
}

void write_trace(benchmark::State& state, const mimic::Trace& trace) {
    mimic::ChakraWriteOptions options;
    options.progress = false;
    const std::string prefix = scratch("written");
    size_t nodes = 0;
    for (auto _ : state) {
        mimic::ChakraWriteStats s = mimic::write_chakra(trace, prefix, options);
        nodes += s.nodes;
        // Each write goes to a new file, as a conversion usually does: renaming
        // over the previous output made ext4 start its writeback (auto_da_alloc)
        // inside the timed write, doubling the CPU time of a 300 MB write at random.
        state.PauseTiming();
        std::filesystem::remove(s.path);
        state.ResumeTiming();
    }
    state.SetItemsProcessed(static_cast<int64_t>(nodes));
    // Nodes of the input trace consumed per CPU second (for an ET: all ET
    // nodes, most of which fold into their top-level operator).
    state.counters["in_nodes_per_second"] =
        benchmark::Counter(static_cast<double>(trace.nodes.size() * state.iterations()), benchmark::Counter::kIsRate);
}

void BM_ChakraWrite_ConvertResnetEt(benchmark::State& state) { write_trace(state, resnet_et()); }
void BM_ChakraWrite_ConvertResnetEtLinked(benchmark::State& state) { write_trace(state, resnet_et_linked()); }

void BM_ChakraWrite_Feeder(benchmark::State& state) {
    static const mimic::Trace trace = [] {
        mimic::ChakraReadOptions options;
        options.progress = false;
        return mimic::read_chakra(feeder_path(), options);
    }();
    write_trace(state, trace);
}

void BM_ChakraWrite_Generated(benchmark::State& state) {
    static const mimic::Trace trace = [] {
        mimic::ChakraReadOptions options;
        options.progress = false;
        return mimic::read_chakra(generated_path(), options);
    }();
    write_trace(state, trace);
}

}  // namespace

BENCHMARK(BM_ChakraRead_Feeder)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ChakraRead_Generated)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ChakraRead_ConvertedResnet)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ChakraRead_ConvertedResnetLinked)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ChakraWrite_ConvertResnetEt)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ChakraWrite_ConvertResnetEtLinked)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ChakraWrite_Feeder)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ChakraWrite_Generated)->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    if (!std::filesystem::exists(feeder_path())) {
        std::fprintf(stderr, "chakra_bench: %s not found (set MIMIC_TRACES_DIR)\n", feeder_path().c_str());
        return 77;
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    std::error_code ec;
    std::filesystem::remove_all(std::filesystem::path(scratch("x")).parent_path(), ec);
    return 0;
}
