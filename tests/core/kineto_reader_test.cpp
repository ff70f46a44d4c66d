#include "io/kineto/kineto_reader.h"
#include "io/trace_loader.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <fstream>
#include <string>

#include "support/byte_source.h"
#include "support/error.h"
#include "test_support.h"

namespace mimic {
namespace {

std::string write_temp(const std::string& name, const std::string& text) {
    std::string path = testing::scratch_dir("kineto_reader") + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

// The error message a read throws, or "" when it reads.
std::string read_error(const std::string& path) {
    try {
        read_kineto_trace(path);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

TEST(KinetoReader, ReadsTheResnetGpuTrace) {
    MIMIC_REQUIRE_TRACE("pytorch/resnet_kineto.json.gz");
    ProfileTrace p = read_kineto_trace(testing::trace_path("pytorch/resnet_kineto.json.gz"));
    // Counts by category, as a Python json.load of the file finds them.
    EXPECT_EQ(p.stats.events, 111631u);
    EXPECT_EQ(p.host.size(), 39506u);  // 39416 cpu_op + 90 user_annotation
    EXPECT_EQ(p.runtime.size(), 25928u);
    EXPECT_EQ(p.device.size(), 10113u);  // 9628 kernels, 362 memsets, 123 memcpys
    EXPECT_EQ(p.flows.size(), 36041u);
    EXPECT_EQ(p.stats.metadata_events, 40u);
    EXPECT_EQ(p.stats.instant_events, 2u);
    EXPECT_EQ(p.stats.input_bytes, 25771112u);
    size_t kernels = 0, memsets = 0, memcpys = 0;
    for (const DeviceWork& d : p.device) {
        kernels += d.kind == DeviceKind::Kernel;
        memsets += d.kind == DeviceKind::Memset;
        memcpys += d.kind == DeviceKind::Memcpy;
        EXPECT_GE(d.correlation, 0);
        EXPECT_EQ(d.device, 0);
    }
    EXPECT_EQ(kernels, 9628u);
    EXPECT_EQ(memsets, 362u);
    EXPECT_EQ(memcpys, 123u);

    // The first event of the file: a backward op on the autograd thread.
    const HostEvent& first = p.host.front();
    EXPECT_EQ(p.str(first.name), "autograd::engine::evaluate_function: NllLossBackward0");
    EXPECT_EQ(p.threads[first.thread].pid, 23442);
    EXPECT_EQ(p.threads[first.thread].tid, 23656);
    EXPECT_EQ(first.ts_us, 1689179601896060.0);
    EXPECT_EQ(first.dur_us, 497.0);
    EXPECT_EQ(first.external_id, 513);
    EXPECT_EQ(first.sequence_nr, 71);
    EXPECT_EQ(first.fwd_thread_id, 1);
    EXPECT_EQ(first.record_function_id, kNoArg);  // this Kineto writes none
    EXPECT_EQ(p.str(p.threads[first.thread].name), "thread 23656 (python)");

    // Two host threads; every event nests inside its parent.
    ASSERT_EQ(p.host_threads().size(), 2u);
    size_t with_parent = 0;
    for (uint32_t t : p.host_threads()) {
        const auto& order = p.host_order(t);
        for (size_t i = 1; i < order.size(); ++i) EXPECT_LE(p.host[order[i - 1]].ts_us, p.host[order[i]].ts_us);
        for (uint32_t e : order) {
            const HostEvent& h = p.host[e];
            if (h.parent == kNoEvent) continue;
            ++with_parent;
            EXPECT_EQ(p.host[h.parent].thread, h.thread);
            EXPECT_LE(p.host[h.parent].ts_us, h.ts_us);
            EXPECT_LT(h.ts_us, p.host[h.parent].end_us());
        }
    }
    EXPECT_GT(with_parent, p.host.size() / 2);
}

TEST(KinetoReader, PlainGzipAndSmallBatchesReadTheSame) {
    MIMIC_REQUIRE_TRACE("pytorch/linear_kineto.json.gz");
    std::string gz = testing::trace_path("pytorch/linear_kineto.json.gz");
    std::string plain = write_temp("linear_kineto.json", read_whole_file(gz));
    ProfileTrace a = read_kineto_trace(gz);
    KinetoReadOptions small;
    small.batch_bytes = 4096;  // many batches, elements cut across reads
    ProfileTrace b = read_kineto_trace(plain, small);
    EXPECT_EQ(a.host.size(), 37078u);
    EXPECT_EQ(a.device.size(), 10356u);
    ASSERT_EQ(a.host.size(), b.host.size());
    ASSERT_EQ(a.runtime.size(), b.runtime.size());
    ASSERT_EQ(a.device.size(), b.device.size());
    EXPECT_EQ(a.flows.size(), b.flows.size());
    for (size_t i = 0; i < a.host.size(); i += 97) {
        EXPECT_EQ(a.str(a.host[i].name), b.str(b.host[i].name));
        EXPECT_EQ(a.host[i].ts_us, b.host[i].ts_us);
        EXPECT_EQ(a.host[i].external_id, b.host[i].external_id);
    }
}

TEST(KinetoReader, ToleratesWhatRealTracesContain) {
    // A bare list; ts as a string; missing args; metadata, instant, counter,
    // flow and unknown-category events; a named (non-numeric) track; a
    // stream as ROCm writes it on some events, a hexadecimal handle.
    std::string path = write_temp("tolerant.json", R"([
      {"ph": "M", "name": "thread_name", "pid": 7, "tid": 8, "args": {"name": "main"}},
      {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 7, "tid": 8, "ts": "100.5", "dur": 10,
       "args": {"External id": 3, "Record function id": 42, "Sequence number": 9, "Fwd thread id": 1}},
      {"ph": "X", "cat": "user_annotation", "name": "step", "pid": 7, "tid": 8, "ts": 90, "dur": 40},
      {"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 7, "tid": 8, "ts": 101, "dur": 1, "args": {}},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 8, "ts": 103, "dur": 2,
       "args": {"correlation": 77, "External id": 3}},
      {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 120, "dur": 5,
       "args": {"correlation": 77, "stream": 7, "device": 0, "Process Group Name": "0"}},
      {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "pid": 0, "tid": 7, "ts": 130, "dur": 1,
       "args": {"stream": "0x1f", "device": 0}},
      {"ph": "s", "cat": "ac2g", "id": 77, "pid": 7, "tid": 8, "ts": 103},
      {"ph": "f", "cat": "ac2g", "id": 77, "pid": 0, "tid": 7, "ts": 120, "bp": "e"},
      {"ph": "i", "name": "marker", "pid": 7, "tid": 8, "ts": 95, "s": "t"},
      {"ph": "C", "name": "mem", "pid": 7, "ts": 95, "args": {"bytes": 10}},
      {"ph": "X", "cat": "Trace", "name": "PyTorch Profiler", "pid": "Spans", "tid": "PyTorch Profiler", "ts": 1, "dur": 5},
      {"ph": "X", "cat": "python_function", "name": "forward", "pid": "Spans", "tid": "x", "ts": 1, "dur": 5}
    ])");
    ProfileTrace p = read_kineto_trace(path);
    ASSERT_EQ(p.host.size(), 4u);
    ASSERT_EQ(p.runtime.size(), 1u);
    ASSERT_EQ(p.device.size(), 2u);
    EXPECT_EQ(p.device[1].stream, 31);
    EXPECT_EQ(p.flows.size(), 2u);
    EXPECT_EQ(p.stats.metadata_events, 1u);
    EXPECT_EQ(p.stats.instant_events, 1u);
    EXPECT_EQ(p.stats.counter_events, 1u);
    EXPECT_EQ(p.stats.other_events, 1u);  // the "Trace" span
    const HostEvent& mm = p.host[0];
    EXPECT_EQ(mm.ts_us, 100.5);
    EXPECT_EQ(mm.record_function_id, 42);
    EXPECT_EQ(mm.external_id, 3);
    EXPECT_EQ(mm.sequence_nr, 9);
    EXPECT_EQ(p.str(p.threads[mm.thread].name), "main");
    // step (90..130) encloses mm (100.5..110.5), which encloses empty (101..102).
    EXPECT_EQ(p.host[0].parent, 1u);
    EXPECT_EQ(p.host[2].parent, 0u);
    EXPECT_EQ(p.host[1].parent, kNoEvent);
    EXPECT_EQ(p.host[2].external_id, kNoArg);
    EXPECT_EQ(p.host[3].category, HostCategory::PythonFunction);
    EXPECT_EQ(p.str(p.threads[p.host[3].thread].label), "Spans/x");
    EXPECT_EQ(p.str(p.device[0].process_group), "0");
    EXPECT_EQ(p.device[0].stream, 7);
    EXPECT_EQ(p.runtime[0].correlation, 77);
}

// torch.profiler's export where torch has no Kineto (Debian's 1.13): the
// legacy list, no "cat", the side named by the process. The first events of
// a recording of bench/foreign_record.py, a kernel line as the same export
// writes one for CUDA, and the flow event it pairs it with.
TEST(KinetoReader, ReadsTheLegacyProfilersExport) {
    ProfileTrace p = read_kineto_trace(write_temp("legacy.json", R"([
{"name": "aten::zeros", "ph": "X", "ts": 117, "dur": 84, "tid": 1, "pid": "CPU functions", "args": {}},
{"name": "aten::empty", "ph": "X", "ts": 137, "dur": 35, "tid": 1, "pid": "CPU functions", "args": {}},
{"name": "aten::zero_", "ph": "X", "ts": 186, "dur": 9, "tid": 1, "pid": "CPU functions", "args": {}},
{"name": "Optimizer.zero_grad#SGD.zero_grad", "ph": "X", "ts": 217, "dur": 261, "tid": 1, "pid": "CPU functions", "args": {}},
{"name": "aten::mm", "ph": "s", "ts": 300, "tid": 1, "pid": "CPU functions", "id": 1, "cat": "cpu_to_cuda", "args": {}},
{"name": "volta_sgemm_128x64_nn", "ph": "X", "ts": 310, "dur": 20, "tid": 0, "pid": "CUDA functions", "args": {}},
{"name": "aten::unknown_side", "ph": "X", "ts": 400, "dur": 1, "tid": 1, "pid": "Python", "args": {}}
])"));
    ASSERT_EQ(p.host.size(), 4u);
    EXPECT_EQ(p.str(p.host[3].name), "Optimizer.zero_grad#SGD.zero_grad");
    // Each written whole microsecond is the true time cut down: half a microsecond back.
    EXPECT_DOUBLE_EQ(p.host[3].ts_us, 217.5);
    EXPECT_DOUBLE_EQ(p.host[3].dur_us, 261.5);
    EXPECT_EQ(p.stats.whole_microsecond_events, 5u);
    ASSERT_EQ(p.device.size(), 1u);
    EXPECT_EQ(p.device[0].kind, DeviceKind::Kernel);
    EXPECT_EQ(p.flows.size(), 1u);
    EXPECT_EQ(p.stats.other_events, 1u);  // a process the export does not write
    EXPECT_EQ(p.stats.events_with_shapes, 0u);
}

TEST(KinetoReader, EmptyEventListReadsEmpty) {
    ProfileTrace p = read_kineto_trace(write_temp("empty_list.json", R"({"traceEvents": [], "schemaVersion": 1})"));
    EXPECT_TRUE(p.host.empty());
    EXPECT_FALSE(p.warnings.empty());
}

TEST(KinetoReader, BadInputGivesOneClearError) {
    // Malformed JSON inside an event: the byte offset of that event.
    std::string msg = read_error(write_temp("malformed.json", R"({"traceEvents": [{"ph": "X"}, {"ph": "X",}]})"));
    EXPECT_NE(msg.find("malformed.json"), std::string::npos) << msg;
    EXPECT_NE(msg.find("byte 30:"), std::string::npos) << msg;
    // No traceEvents at all.
    msg = read_error(write_temp("no_events.json", R"({"schemaVersion": 1, "foo": [1, 2]})"));
    EXPECT_NE(msg.find("traceEvents"), std::string::npos) << msg;
    // traceEvents of the wrong type.
    msg = read_error(write_temp("events_number.json", R"({"traceEvents": 5})"));
    EXPECT_NE(msg.find("traceEvents"), std::string::npos) << msg;
    // Wrong field types name the field.
    msg = read_error(write_temp("ts_object.json", R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "ts": {}, "dur": 1}]})"));
    EXPECT_NE(msg.find("'ts'"), std::string::npos) << msg;
    msg = read_error(write_temp("ts_text.json", R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "ts": "soon", "dur": 1}]})"));
    EXPECT_NE(msg.find("'ts'"), std::string::npos) << msg;
    msg = read_error(write_temp("name_number.json", R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": 5, "ts": 1}]})"));
    EXPECT_NE(msg.find("'name'"), std::string::npos) << msg;
    msg = read_error(write_temp("args_number.json", R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "ts": 1, "args": 3}]})"));
    EXPECT_NE(msg.find("'args'"), std::string::npos) << msg;
    msg = read_error(write_temp("ext_bool.json",
                                R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "ts": 1, "args": {"External id": true}}]})"));
    EXPECT_NE(msg.find("External id"), std::string::npos) << msg;
    msg = read_error(write_temp("event_number.json", R"({"traceEvents": [1, 2]})"));
    EXPECT_NE(msg.find("object"), std::string::npos) << msg;
    msg = read_error(write_temp("no_ph.json", R"([{"name": "a", "ts": 1}])"));
    EXPECT_NE(msg.find("ph"), std::string::npos) << msg;
    // Empty files, trailing garbage, an execution trace passed as a profile.
    EXPECT_NE(read_error(write_temp("empty.json", "")), "");
    EXPECT_NE(read_error(write_temp("trailing.json", R"({"traceEvents": []} x)")), "");
    msg = read_error(write_temp("et.json", R"({"schema": "1.0.1", "nodes": [{"id": 1}], "traceEvents": []})"));
    EXPECT_NE(msg.find("execution trace"), std::string::npos) << msg;
}

TEST(KinetoReader, NegativeDurationSkipsTheEventWithAWarning) {
    ProfileTrace p = read_kineto_trace(write_temp("negative.json", R"([
      {"ph": "X", "cat": "cpu_op", "name": "a", "ts": 1, "dur": -4},
      {"ph": "X", "cat": "cpu_op", "name": "b", "ts": 1, "dur": 4}])"));
    ASSERT_EQ(p.host.size(), 1u);
    EXPECT_EQ(p.stats.negative_durations, 1u);
    ASSERT_EQ(p.warnings.size(), 1u);
    EXPECT_NE(p.warnings[0].find("negative"), std::string::npos);
}

TEST(KinetoReader, TruncatedGzipIsAnError) {
    MIMIC_REQUIRE_TRACE("pytorch/linear_kineto.json.gz");
    std::string whole;
    {
        std::ifstream in(testing::trace_path("pytorch/linear_kineto.json.gz"), std::ios::binary);
        whole.assign(std::istreambuf_iterator<char>(in), {});
    }
    std::string path = write_temp("truncated.json.gz", whole.substr(0, whole.size() / 2));
    std::string msg = read_error(path);
    EXPECT_NE(msg.find("truncated.json.gz"), std::string::npos) << msg;
}

TEST(KinetoReader, GzipOfAPlainTraceIsDetectedByContent) {
    std::string text = R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::add", "ts": 5, "dur": 2}]})";
    std::string path = testing::scratch_dir("kineto_reader") + "/named_plain.json";  // gzip despite the name
    gzFile f = gzopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
    gzclose(f);
    ProfileTrace p = read_kineto_trace(path);
    ASSERT_EQ(p.host.size(), 1u);
    EXPECT_EQ(p.str(p.host[0].name), "aten::add");
}

// HolisticTraceAnalysis's cpu_only trace (rank 34 of 300) lists every
// process group's ranks in its distributedInfo, ahead of "traceEvents": the
// file is still told apart from an ET by its header alone.
TEST(KinetoReader, ALongHeaderIsStillToldApartFromAnEt) {
    std::string ranks;
    for (int r = 0; r < 2000; ++r) ranks += (r ? ", " : "") + std::to_string(r);
    const std::string path = testing::scratch_file("kineto_long_header", "rank-34.pt.trace.json",
                                                   "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [],\n  \"distributedInfo\": "
                                                   "{\"backend\": \"gloo\", \"rank\": 34, \"world_size\": 300, \"pg_config\": "
                                                   "[{\"ranks\": [" + ranks + "]}]},\n  \"traceEvents\": []\n}\n");
    EXPECT_EQ(detect_file_kind(path), FileKind::KinetoJson);
    const Trace alone = load_trace(path);  // a profile on its own (io/kineto/profile_skeleton.h)
    EXPECT_EQ(alone.format, TraceFormat::KinetoProfile);
    EXPECT_EQ(alone.rank, 34);
    EXPECT_EQ(alone.rank_source, "distributedInfo");
}

}  // namespace
}  // namespace mimic
