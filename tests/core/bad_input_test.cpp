// Bad input, end to end through the three readers (load_trace for ETs, the
// Kineto reader, the Chakra reader): each broken file gets one mimic::Error
// naming the file and the byte offset, node or field; nothing crashes, hangs
// or grows without bound. Also replays every input the fuzzers ever crashed
// on (fuzz/regressions/<reader>/) and checks that the fuzz seeds, cut from
// the real traces, still read.
#include <google/protobuf/stubs/logging.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <string>
#include <vector>

#include "et_def.pb.h"
#include "io/chakra/chakra_reader.h"
#include "io/pytorch_et/et_reader.h"
#include "io/kineto/kineto_reader.h"
#include "io/trace_loader.h"
#include "support/error.h"
#include "test_support.h"

#if defined(__SANITIZE_ADDRESS__)
#define MIMIC_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MIMIC_TEST_SANITIZED 1
#endif
#endif

namespace mimic {
namespace {

namespace fs = std::filesystem;

// ---------------------------------------------------------------- helpers

std::string scratch(const std::string& name) { return testing::scratch_dir("bad_input") + "/" + name; }

std::string write_file(const std::string& name, const std::string& bytes) {
    std::string path = scratch(name);
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return path;
}

// One gzip member holding `text`.
std::string gzip_member(const std::string& text) {
    z_stream zs{};
    EXPECT_EQ(deflateInit2(&zs, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
    std::string out(deflateBound(&zs, static_cast<uLong>(text.size())), '\0');
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    zs.avail_in = static_cast<uInt>(text.size());
    zs.next_out = reinterpret_cast<Bytef*>(out.data());
    zs.avail_out = static_cast<uInt>(out.size());
    EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
    out.resize(zs.total_out);
    deflateEnd(&zs);
    return out;
}

// A gzip file that unpacks to head + `repeats` x body + tail, made of
// concatenated members (legal gzip), so a 1 GB bomb costs a 1 MB file and
// no time to make.
std::string gzip_bomb(const std::string& head, const std::string& body, size_t repeats, const std::string& tail) {
    std::string member = gzip_member(body);
    std::string out = gzip_member(head);
    out.reserve(out.size() + member.size() * repeats + 64);
    for (size_t i = 0; i < repeats; ++i) out += member;
    if (!tail.empty()) out += gzip_member(tail);
    return out;
}

// Peak resident memory since the last reset, in MiB (-1 if the kernel will not say).
bool reset_peak_rss() {
    std::ofstream clear("/proc/self/clear_refs");
    clear << "5";
    return static_cast<bool>(clear.flush());
}
long peak_rss_mb() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6)) / 1024;
    return -1;
}
#ifdef MIMIC_TEST_SANITIZED
constexpr long kRssSlack = 3;  // shadow memory and the freed-memory quarantine
#else
constexpr long kRssSlack = 1;
#endif

void expect_peak_below(long limit_mb, const char* why = "") {
    long peak = peak_rss_mb();
    if (peak < 0) return;  // no VmHWM on this kernel
    std::printf("peak resident memory: %ld MiB (limit %ld)\n", peak, limit_mb);
    EXPECT_LT(peak, limit_mb) << "peak resident memory in MiB " << why;
}

// Runs `read`, which must throw mimic::Error holding every one of `parts`.
void expect_error(const std::function<void()>& read, std::initializer_list<std::string> parts) {
    try {
        read();
        ADD_FAILURE() << "expected an error holding \"" << *parts.begin() << "\", the read succeeded";
    } catch (const Error& e) {
        for (const std::string& p : parts) EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
    }
}

void load_et(const std::string& path) { (void)load_trace(path); }
void load_kineto(const std::string& path) {
    KinetoReadOptions quiet;
    quiet.progress = false;
    (void)read_kineto_trace(path, quiet);
}
void load_chakra(const std::string& path) {
    ChakraReadOptions quiet;
    quiet.progress = false;
    (void)read_chakra(path, quiet);
}

// ------------------------------------------------ fuzz regressions and seeds

const char* const kReaders[] = {"et", "kineto", "chakra"};

std::function<void(const std::string&)> reader_named(const std::string& name) {
    if (name == "et") return load_et;
    if (name == "kineto") return load_kineto;
    return load_chakra;
}

std::vector<fs::path> files_under(const fs::path& dir) {
    std::vector<fs::path> out;
    if (!fs::is_directory(dir)) return out;
    for (const auto& entry : fs::directory_iterator(dir))
        if (entry.is_regular_file()) out.push_back(entry.path());
    std::sort(out.begin(), out.end());
    return out;
}

// Every input that once crashed a reader now reads or fails with mimic::Error
// (any other exception fails the test; a crash kills it).
TEST(FuzzRegressions, EachOnceCrashingInputNowReadsOrFailsCleanly) {
    google::protobuf::SetLogHandler(nullptr);  // invalid UTF-8 in Chakra strings is logged by protobuf
    size_t replayed = 0;
    for (const char* reader : kReaders) {
        for (const fs::path& input : files_under(fs::path(MIMIC_SOURCE_DIR) / "fuzz/regressions" / reader)) {
            SCOPED_TRACE(input.string());
            try {
                reader_named(reader)(input.string());
            } catch (const Error& e) {
                EXPECT_GT(std::string(e.what()).size(), input.string().size()) << "an error must say what is wrong";
            }
            ++replayed;
        }
    }
    RecordProperty("replayed", static_cast<int>(replayed));
}

// The seeds are cut from the real traces: each must read without error.
TEST(FuzzSeeds, EverySeedReads) {
    size_t seeds = 0;
    for (const char* reader : kReaders) {
        for (const fs::path& input : files_under(fs::path(MIMIC_SOURCE_DIR) / "fuzz/corpus" / reader)) {
            SCOPED_TRACE(input.string());
            EXPECT_NO_THROW(reader_named(reader)(input.string()));
            ++seeds;
        }
    }
    if (seeds == 0) GTEST_SKIP() << "no fuzz seeds under " << MIMIC_SOURCE_DIR << "/fuzz/corpus";
}

// ------------------------------------------------------------- PyTorch ET

std::string et_with(const std::string& nodes) {
    return R"J({"schema": "1.1.1-chakra.0.0.4", "pid": 1, "time": "x", "start_ts": 1, "nodes": [)J" + nodes +
           R"J(], "finish_ts": 2})J";
}

std::string nested_node(int id, const std::string& inputs, const std::string& attrs = "") {
    return R"J({"id": )J" + std::to_string(id) + R"J(, "name": "aten::x", "ctrl_deps": 1, "inputs": )J" + inputs +
           R"J(, "outputs": {"values": [], "shapes": [], "types": []}, "attrs": [)J" +
           R"J({"name": "op_schema", "type": "string", "value": "aten::x(Tensor a) -> ()"})J" + attrs + "]}";
}

// The root every parent chain ends in (id 1, its own parent), for inputs that must read.
const std::string kNestedRoot =
    R"J({"id": 1, "name": "[pytorch|profiler|execution_trace|process]", "ctrl_deps": 1,)J"
    R"J( "inputs": {"values": [], "shapes": [], "types": []}, "outputs": {"values": [], "shapes": [], "types": []},)J"
    R"J( "attrs": []})J";

// A label node `id` under `parent`.
std::string label_node(uint64_t id, uint64_t parent) {
    return R"J({"id": )J" + std::to_string(id) + R"J(, "name": "label", "ctrl_deps": )J" + std::to_string(parent) +
           R"J(, "inputs": {"values": [], "shapes": [], "types": []},)J"
           R"J( "outputs": {"values": [], "shapes": [], "types": []}, "attrs": []})J";
}

TEST(EtBadInput, NulBytesAreNotAnEmptyFile) {
    std::string path = write_file("nul.json", std::string(100, '\0'));
    // Zero bytes frame empty protobuf messages, so detection may take them
    // for Chakra; either way they are an error, not a trace of empty nodes.
    expect_error([&] { load_et(path); }, {"nul.json", "byte "});
    // Through the ET reader itself the NUL is named as what it is.
    expect_error([&] { (void)read_pytorch_et(path); }, {"nul.json", "byte 0", "expected a JSON object"});
}

TEST(EtBadInput, GarbageAfterANulByteIsTrailingData) {
    std::string text = et_with(nested_node(5, R"J({"values": [], "shapes": [], "types": []})J"));
    std::string path = write_file("trailing_nul.json", text + std::string("\0garbage", 8));
    expect_error([&] { load_et(path); }, {"trailing_nul.json", "trailing data"});
}

TEST(EtBadInput, WrongTopLevelTypes) {
    expect_error([&] { load_et(write_file("nodes_obj.json", R"J({"schema": "1.0.1", "nodes": {"id": 1}})J")); },
                 {"nodes_obj.json", "field 'nodes'", "list of nodes"});
    expect_error([&] { load_et(write_file("schema_int.json", R"J({"schema": 101, "nodes": []})J")); },
                 {"schema_int.json", "field 'schema'"});
    expect_error([&] { load_et(write_file("node_int.json", et_with("7"))); }, {"node_int.json", "byte ", "object"});
}

TEST(EtBadInput, OutOfRangeNumbersNameTheNode) {
    expect_error([&] { load_et(write_file("id_big.json", et_with(R"J({"id": 18446744073709551616, "name": "a"})J"))); },
                 {"id_big.json", "byte "});
    expect_error([&] { load_et(write_file("id_inf.json", et_with(R"J({"id": 1e400, "name": "a"})J"))); },
                 {"id_inf.json", "byte "});
    expect_error([&] { load_et(write_file("id_neg.json", et_with(R"J({"id": -3, "name": "a"})J"))); },
                 {"id_neg.json", "field 'id'"});
}

// A parent that is not in the file or a parent chain that loops back means a
// broken ET: one error naming the first such node and the field.
TEST(EtBadInput, ParentNotInTheTraceIsAnError) {
    const std::string nodes = kNestedRoot + "," + label_node(5, 1) + "," + label_node(6, 99) + "," + label_node(7, 98);
    expect_error([&] { load_et(write_file("dangling.json", et_with(nodes))); },
                 {"dangling.json", "node 6", "field 'ctrl_deps'", "parent 99 is not in the trace"});
}

TEST(EtBadInput, TwoNodeParentCycleIsAnError) {
    const std::string nodes = kNestedRoot + "," + label_node(5, 6) + "," + label_node(6, 5);
    expect_error([&] { load_et(write_file("cycle2.json", et_with(nodes))); },
                 {"cycle2.json", "node 5", "field 'ctrl_deps'", "cycle: 5 -> 6 -> 5"});
}

TEST(EtBadInput, NodeOtherThanTheRootAsItsOwnParentIsAnError) {
    const std::string nodes = kNestedRoot + "," + label_node(5, 5);
    expect_error([&] { load_et(write_file("self_parent.json", et_with(nodes))); },
                 {"self_parent.json", "node 5", "field 'ctrl_deps'", "own parent"});
}

// 100,000 nodes in one ring, entered from a chain hanging off it: found in one
// pass (no recursion, no quadratic walk), named by its first node in the file.
TEST(EtBadInput, LongParentCycleIsAnError) {
    constexpr uint64_t kFirst = 100, kRing = 100000;
    std::string nodes = kNestedRoot + "," + label_node(50, kFirst + kRing / 2);  // leads into the ring
    for (uint64_t i = 0; i < kRing; ++i) nodes += "," + label_node(kFirst + i, kFirst + (i + 1) % kRing);
    const std::string path = write_file("long_cycle.json", et_with(nodes));
    const auto start = std::chrono::steady_clock::now();
    expect_error([&] { load_et(path); }, {"long_cycle.json", "node 100", "field 'ctrl_deps'",
                                          "cycle: 100 -> 101 -> ", "-> ... -> 100 (100000 nodes)"});
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LT(seconds, 10.0);
}

// The same depth as a chain ending in the root is an ordinary trace.
TEST(EtBadInput, LongParentChainReads) {
    constexpr uint64_t kFirst = 100, kDepth = 100000;
    std::string nodes = kNestedRoot;
    for (uint64_t i = 0; i < kDepth; ++i) nodes += "," + label_node(kFirst + i, i + 1 < kDepth ? kFirst + i + 1 : 1);
    Trace t = load_trace(write_file("long_chain.json", et_with(nodes)));
    EXPECT_EQ(t.nodes.size(), kDepth + 1);
    EXPECT_TRUE(t.warnings.empty()) << t.warnings.front().message;
    EXPECT_EQ(t.parent_of(t.find(NodeId(kFirst))), t.find(NodeId(kFirst + 1)));
}

TEST(EtBadInput, DeepNestingIsRefusedNotRecursedInto) {
    std::string deep(100000, '[');
    deep += std::string(100000, ']');
    std::string inputs = R"J({"values": [)J" + deep + R"J(], "shapes": [[]], "types": ["GenericList[Int]"]})J";
    expect_error([&] { load_et(write_file("deep.json", et_with(nested_node(5, inputs)))); }, {"deep.json"});
}

TEST(EtBadInput, TensorOfTenToTheTwelveElementsIsJustMetadata) {
    std::string inputs =
        R"J({"values": [[10,11,0,1000000000000,4,"cpu"]], "shapes": [[1000000,1000000]], "types": ["Tensor(float)"]})J";
    std::string path = write_file("huge_tensor.json", et_with(kNestedRoot + "," + nested_node(5, inputs)));
    reset_peak_rss();
    Trace t = load_trace(path);
    ASSERT_EQ(t.tensors.size(), 1u);
    EXPECT_EQ(t.tensors[0].numel, 1000000000000ull);
    ASSERT_EQ(t.tensors[0].rank, 2);
    EXPECT_EQ(t.shape(t.tensors[0])[0] * t.shape(t.tensors[0])[1], 1000000000000ll);
    expect_peak_below(200 * kRssSlack, "reading metadata must not allocate the tensor");
}

TEST(EtBadInput, TenMillionElementAttrListReadsInBoundedMemory) {
    std::string list = "[0";
    list.reserve(20000010);
    for (int i = 1; i < 10000000; ++i) list += ",0";
    list += "]";
    std::string attr = R"J(, {"name": "big", "type": "int64_list", "value": )J" + list + "}";
    std::string path =
        write_file("huge_attr.json", et_with(kNestedRoot + "," +
                                             nested_node(5, R"J({"values": [], "shapes": [], "types": []})J", attr)));
    list.clear();
    list.shrink_to_fit();
    reset_peak_rss();
    try {
        Trace t = load_trace(path);
        EXPECT_EQ(t.nodes.size(), 2u);
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("node 5"), std::string::npos) << e.what();
    }
        // 20 MB of JSON: the parser's tape is ~8 bytes per element.
    expect_peak_below(600 * kRssSlack);
}

// 1 GB of zeros, gzip: fails at the first byte without unpacking the rest.
TEST(EtBadInput, GzipBombOfZerosFailsAtOnce) {
    std::string path = write_file("zeros.json.gz", gzip_bomb("", std::string(1 << 20, '\0'), 1024, ""));
    auto start = std::chrono::steady_clock::now();
    reset_peak_rss();
    expect_error([&] { (void)read_pytorch_et(path); }, {"zeros.json.gz", "byte 0"});
    expect_error([&] { load_et(path); }, {"zeros.json.gz", "byte "});
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
    expect_peak_below(200 * kRssSlack);
}

// One endless string inside a node, 1 GB unpacked: the reader stops at its
// per-value limit instead of holding it (and parsing it) whole.
TEST(EtBadInput, GzipBombOfOneEndlessValueStopsAtTheLimit) {
    std::string path = write_file("endless.json.gz", gzip_bomb(R"J({"schema": "1.0.1", "nodes": [{"name": ")J",
                                                               std::string(1 << 20, 'a'), 1024, R"J("}]})J"));
    reset_peak_rss();
    expect_error([&] { load_et(path); }, {"endless.json.gz", "byte ", "larger than"});
    expect_peak_below(1024 * kRssSlack, "1 GB unpacked must not be held");
}

// ------------------------------------------------------------------ Kineto

std::string kineto_with(const std::string& events) { return R"J({"schemaVersion": 1, "traceEvents": [)J" + events + "]}"; }
const char* kCpuOp =
    R"J({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 2, "ts": 100, "dur": 5, "args": {"External id": 3}})J";

TEST(KinetoBadInput, EmptyFile) {
    std::string path = write_file("empty_kineto.json", "");
    expect_error([&] { load_kineto(path); }, {"empty_kineto.json", "empty file"});
}

TEST(KinetoBadInput, TruncatedAndCorruptGzip) {
    std::string gz = gzip_member(kineto_with(kCpuOp));
    std::string truncated = write_file("trunc_kineto.json.gz", gz.substr(0, gz.size() / 2));
    expect_error([&] { load_kineto(truncated); }, {"trunc_kineto.json.gz", "truncated gzip"});
    for (size_t i = 20; i + 8 < gz.size(); ++i) gz[i] = static_cast<char>(gz[i] ^ 0x33);
    std::string corrupt = write_file("corrupt_kineto.json.gz", gz);
    expect_error([&] { load_kineto(corrupt); }, {"corrupt_kineto.json.gz", "gzip"});
}

TEST(KinetoBadInput, MalformedEventNamesItsOffset) {
    std::string text = kineto_with(std::string(kCpuOp) + R"J(, {"ph": "X",, "cat": "cpu_op"})J");
    std::string path = write_file("malformed_kineto.json", text);
    expect_error([&] { load_kineto(path); }, {"malformed_kineto.json", "byte " + std::to_string(text.find(R"J({"ph": "X",,)J"))});
}

TEST(KinetoBadInput, TruncatedJson) {
    std::string text = kineto_with(kCpuOp);
    std::string path = write_file("trunc_kineto.json", text.substr(0, text.size() - 10));
    expect_error([&] { load_kineto(path); }, {"trunc_kineto.json", "truncated"});
}

TEST(KinetoBadInput, NonUtf8) {
    std::string event = kCpuOp;
    event.replace(event.find("aten::mm"), 4, "\xc3\x28\xa0\xa1");
    std::string path = write_file("utf8_kineto.json", kineto_with(event));
    expect_error([&] { load_kineto(path); }, {"utf8_kineto.json", "UTF"});
}

TEST(KinetoBadInput, WrongFieldTypesNameFieldAndOffset) {
    std::string event = kCpuOp;
    event.replace(event.find(R"J("ts": 100)J"), 9, R"J("ts": {"a": 1})J");
    std::string text = kineto_with(event);
    std::string path = write_file("ts_kineto.json", text);
    expect_error([&] { load_kineto(path); }, {"ts_kineto.json", "byte " + std::to_string(text.find("{\"ph\"")), "field 'ts'"});
    event = kCpuOp;
    event.replace(event.find(R"J("External id": 3)J"), 16, R"J("External id": "three")J");
    path = write_file("extid_kineto.json", kineto_with(event));
    expect_error([&] { load_kineto(path); }, {"extid_kineto.json", "External id"});
    path = write_file("events_obj_kineto.json", R"J({"traceEvents": {"ph": "X"}})J");
    expect_error([&] { load_kineto(path); }, {"events_obj_kineto.json", "traceEvents"});
}

TEST(KinetoBadInput, AnExecutionTraceIsNotAProfile) {
    std::string path = write_file("et_as_kineto.json", et_with(""));
    expect_error([&] { load_kineto(path); }, {"et_as_kineto.json", "execution trace"});
}

TEST(KinetoBadInput, NegativeDurationIsSkippedAndNamed) {
    std::string event = kCpuOp;
    event.replace(event.find(R"J("dur": 5)J"), 8, R"J("dur": -5)J");
    KinetoReadOptions quiet;
    quiet.progress = false;
    ProfileTrace t = read_kineto_trace(write_file("negdur_kineto.json", kineto_with(event + "," + kCpuOp)), quiet);
    EXPECT_EQ(t.host.size(), 1u);
    ASSERT_FALSE(t.warnings.empty());
    EXPECT_NE(t.warnings[0].find("field 'dur'"), std::string::npos) << t.warnings[0];
}

TEST(KinetoBadInput, TenMillionElementArgListReadsInBoundedMemory) {
    std::string list = "[0";
    list.reserve(20000010);
    for (int i = 1; i < 10000000; ++i) list += ",0";
    list += "]";
    std::string event = kCpuOp;
    event.replace(event.find(R"J("External id": 3)J"), 16, R"J("External id": 3, "Input Dims": [)J" + list + "]");
    std::string path = write_file("huge_args_kineto.json", kineto_with(event));
    list.clear();
    list.shrink_to_fit();
    reset_peak_rss();
    KinetoReadOptions quiet;
    quiet.progress = false;
    ProfileTrace t = read_kineto_trace(path, quiet);
    EXPECT_EQ(t.host.size(), 1u);
    expect_peak_below(600 * kRssSlack);
}

// 256 MB of events behind a 1 MB gzip: read as a stream, never held whole.
TEST(KinetoBadInput, GzipBombOfEventsStreamsInBoundedMemory) {
    std::string event = R"J({"ph": "C", "name": "mem", "pid": 1, "tid": 1, "ts": 1, "args": {"bytes": 4096}},)J";
    std::string block;
    while (block.size() + event.size() <= (1 << 20)) block += event;
    const size_t repeats = 256;
    std::string path = write_file("bomb_kineto.json.gz",
                                  gzip_bomb(R"J({"traceEvents": [)J", block, repeats, event.substr(0, event.size() - 1) + "]}"));
    reset_peak_rss();
    KinetoReadOptions quiet;
    quiet.progress = false;
    ProfileTrace t = read_kineto_trace(path, quiet);
    EXPECT_EQ(t.stats.counter_events, repeats * (block.size() / event.size()) + 1);
    EXPECT_GT(t.stats.input_bytes, uint64_t(255) << 20);
    expect_peak_below(200 * kRssSlack, "the events list must be streamed");
}

// ------------------------------------------------------------------ Chakra

std::string varint(uint64_t v) {
    std::string out;
    while (v >= 0x80) {
        out += static_cast<char>((v & 0x7f) | 0x80);
        v >>= 7;
    }
    out += static_cast<char>(v);
    return out;
}

std::string framed(const google::protobuf::MessageLite& m) {
    std::string body = m.SerializeAsString();
    return varint(body.size()) + body;
}

std::string chakra_metadata() {
    ChakraProtoMsg::GlobalMetadata meta;
    meta.set_version("0.0.4");
    return framed(meta);
}

ChakraProtoMsg::Node chakra_node(uint64_t id) {
    ChakraProtoMsg::Node n;
    n.set_id(id);
    n.set_name("node" + std::to_string(id));
    n.set_type(ChakraProtoMsg::COMP_NODE);
    n.set_duration_micros(3);
    return n;
}

TEST(ChakraBadInput, EmptyFile) {
    std::string path = write_file("empty.0.et", "");
    expect_error([&] { load_chakra(path); }, {"empty.0.et", "empty file"});
}

TEST(ChakraBadInput, BadVarintNamesItsOffset) {
    std::string path = write_file("varint.0.et", std::string(6, '\xff'));
    expect_error([&] { load_chakra(path); }, {"varint.0.et", "byte 0", "field 'length'", "varint"});
    // After a good metadata message and one node, through load_trace (which must
    // recognise the file as Chakra and name the offset of the bad prefix).
    std::string good = chakra_metadata() + framed(chakra_node(1));
    path = write_file("varint_mid.0.et", good + std::string(6, '\xff'));
    expect_error([&] { load_et(path); }, {"varint_mid.0.et", "byte " + std::to_string(good.size()), "varint"});
}

TEST(ChakraBadInput, TruncatedLengthPrefix) {
    std::string path = write_file("trunc_prefix.0.et", chakra_metadata() + "\x85");
    expect_error([&] { load_chakra(path); }, {"trunc_prefix.0.et", "field 'length'", "truncated"});
}

TEST(ChakraBadInput, FourGigabyteLengthPrefixIsRefusedWithoutAllocating) {
    std::string path = write_file("len4g.0.et", chakra_metadata() + varint(0xffffffffull) + "tiny");
    reset_peak_rss();
    expect_error([&] { load_chakra(path); }, {"len4g.0.et", "byte " + std::to_string(chakra_metadata().size()), "4294967295"});
    expect_peak_below(200 * kRssSlack);
}

TEST(ChakraBadInput, LengthPastTheEndPlainAndGzip) {
    std::string body = chakra_metadata() + varint((1u << 30) - 1) + "only a few bytes";
    std::string plain = write_file("past_end.0.et", body);
    expect_error([&] { load_chakra(plain); }, {"past_end.0.et", "runs past the end"});
    // gzip: the unpacked size is unknown up front, so the reader must find the
    // end by reading what is there, not by allocating what the prefix claims.
    std::string gz = write_file("past_end.0.et.gz", gzip_member(body));
    reset_peak_rss();
    expect_error([&] { load_chakra(gz); }, {"past_end.0.et.gz", "runs past the end"});
    expect_peak_below(200 * kRssSlack);
}

TEST(ChakraBadInput, MessageThatDoesNotParse) {
    google::protobuf::SetLogHandler(nullptr);
    std::string garbage = "\x0a\xff\xff\xff\x0f";  // field 1 claims 4 GB inside a 5-byte message
    std::string path = write_file("garbage.0.et", chakra_metadata() + varint(garbage.size()) + garbage);
    expect_error([&] { load_chakra(path); }, {"garbage.0.et", "byte " + std::to_string(chakra_metadata().size()), "Node"});
}

// What protobuf's parser refuses, the reader's own decoder refuses too (else
// mimic would read, and write back, traces Chakra's tools cannot): field
// number 0 anywhere, and tags longer than 5 bytes or past 32 bits.
TEST(ChakraBadInput, TagsProtobufRefusesAreRefused) {
    google::protobuf::SetLogHandler(nullptr);
    const std::string nodes[] = {
        std::string("\x08\x01\x00\x01", 4),              // a node's field 0
        std::string("\x52\x02\x00\x01", 4),              // an attr's
        std::string("\x42\x02\x00\x01", 4),              // an IOInfo's
        std::string("\x52\x04\x52\x02\x00\x01", 6),      // an int64_list's
        std::string("\x52\x06\x52\x02\x00\x01\x48\x05", 8),  // ... replaced by an int64_val
        std::string("\x88\x80\x80\x80\x80\x00\x05", 7),  // the id's tag in 6 bytes
        std::string("\x80\x80\x80\x80\x10\x05", 6),      // a tag of 2^32
    };
    for (size_t i = 0; i < std::size(nodes); ++i) {
        SCOPED_TRACE(i);
        EXPECT_FALSE(ChakraProtoMsg::Node().ParseFromString(nodes[i])) << "the test's premise";
        const std::string name = "tag" + std::to_string(i) + ".0.et";
        const std::string path = write_file(name, chakra_metadata() + varint(nodes[i].size()) + nodes[i]);
        expect_error([&] { load_chakra(path); }, {name, "ChakraProtoMsg.Node"});
    }
}

TEST(ChakraBadInput, TruncatedGzip) {
    std::string body = chakra_metadata();
    for (uint64_t i = 1; i <= 50; ++i) body += framed(chakra_node(i));
    std::string gz = gzip_member(body);
    std::string path = write_file("trunc.0.et.gz", gz.substr(0, gz.size() * 2 / 3));
    expect_error([&] { load_chakra(path); }, {"trunc.0.et.gz", "truncated gzip"});
}

TEST(ChakraBadInput, UnknownDependenciesAreWarnedNotFollowed) {
    ChakraProtoMsg::Node a = chakra_node(1);
    a.add_ctrl_deps(99);
    a.add_data_deps(1);  // on itself
    ChakraReadOptions quiet;
    quiet.progress = false;
    Trace t = read_chakra(write_file("deps.0.et", chakra_metadata() + framed(a)), quiet);
    ASSERT_EQ(t.nodes.size(), 1u);
    std::string all;
    for (const auto& w : t.warnings) all += w.message + "\n";
    EXPECT_NE(all.find("99"), std::string::npos) << all;
    EXPECT_NE(all.find("itself"), std::string::npos) << all;
}

TEST(ChakraBadInput, TensorOfTenToTheTwelveElementsIsJustMetadata) {
    ChakraProtoMsg::Node n = chakra_node(1);
    n.mutable_inputs()->set_values("[[10, 11, 0, 1000000000000, 4, 'cpu']]");
    n.mutable_inputs()->set_shapes("[[1000000, 1000000]]");
    n.mutable_inputs()->set_types("['Tensor(float)']");
    ChakraReadOptions quiet;
    quiet.progress = false;
    reset_peak_rss();
    Trace t = read_chakra(write_file("huge_tensor.0.et", chakra_metadata() + framed(n)), quiet);
    ASSERT_EQ(t.tensors.size(), 1u);
    EXPECT_EQ(t.tensors[0].numel, 1000000000000ull);
    expect_peak_below(200 * kRssSlack);
}

TEST(ChakraBadInput, TenMillionElementAttrListReadsInBoundedMemory) {
    ChakraProtoMsg::Node n = chakra_node(1);
    auto* attr = n.add_attr();
    attr->set_name("big");
    auto* list = attr->mutable_int64_list();
    list->mutable_values()->Reserve(10000000);
    for (int i = 0; i < 10000000; ++i) list->add_values(i & 0x7f);
    std::string path = write_file("huge_attr.0.et", chakra_metadata() + framed(n));
    n.Clear();
    reset_peak_rss();
    ChakraReadOptions quiet;
    quiet.progress = false;
    try {
        Trace t = read_chakra(path, quiet);
        EXPECT_EQ(t.nodes.size(), 1u);
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("huge_attr.0.et"), std::string::npos) << e.what();
    }
        // 10 MB of packed varints: the message, the parsed list and 16-byte values.
    expect_peak_below(600 * kRssSlack);
}

}  // namespace
}  // namespace mimic
