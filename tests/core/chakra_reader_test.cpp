#include "io/chakra/chakra_reader.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <fstream>
#include <string>
#include <vector>

#include "support/byte_source.h"
#include "support/error.h"
#include "test_support.h"

namespace mimic {
namespace {

const char* kFeeder = "chakra/feeder_sample.0.et";

std::string scratch_file(const std::string& name) { return testing::scratch_dir("chakra_reader") + "/" + name; }

std::string write_bytes(const std::string& name, const std::string& bytes) {
    const std::string path = scratch_file(name);
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
}

std::string gzip_copy(const std::string& from, const std::string& name) {
    const std::string data = read_whole_file(from);
    const std::string path = scratch_file(name);
    gzFile gz = gzopen(path.c_str(), "wb");
    gzwrite(gz, data.data(), static_cast<unsigned>(data.size()));
    gzclose(gz);
    return path;
}

Trace read(const std::string& path) {
    ChakraReadOptions options;
    options.progress = false;
    return read_chakra(path, options);
}

const Attr* attr(const Trace& t, const Node& n, std::string_view name) { return t.find_attr(n, name); }

std::string error_of(const std::string& path) {
    try {
        read(path);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

const Trace& feeder() {
    static const Trace t = read(testing::trace_path(kFeeder));
    return t;
}

// Expected figures derived independently: protobuf's own JSON dump of the
// file and Python's ast.literal_eval over the IOInfo texts.
TEST(ChakraReader, FeederSampleCountsMatch) {
    MIMIC_REQUIRE_TRACE(kFeeder);
    const Trace& t = feeder();
    EXPECT_EQ(t.format, TraceFormat::Chakra);
    EXPECT_EQ(t.nodes.size(), 3664u);
    size_t comp = 0, coll = 0, cpu = 0, ctrl = 0, data = 0;
    for (const Node& n : t.nodes) {
        comp += n.chakra_type == ChakraNodeType::Comp;
        coll += n.chakra_type == ChakraNodeType::CommColl;
        const Attr* a = attr(t, n, "is_cpu_op");
        ASSERT_NE(a, nullptr) << "node " << n.id.value;
        cpu += a->value.kind == ValueKind::Bool && a->value.payload.b;
        ctrl += n.deps.count;
        data += n.data_deps.count;
    }
    EXPECT_EQ(comp, 3643u);
    EXPECT_EQ(coll, 21u);
    EXPECT_EQ(cpu, 2448u);
    EXPECT_EQ(ctrl, 3664u);
    EXPECT_EQ(data, 181878u);
    EXPECT_EQ(t.tensors.size(), 21154u);
    EXPECT_EQ(t.rank, 0);  // from the file name
    // 1277 dependencies on absent nodes (the converter's thread node 3) and
    // 383 self-dependencies, both reported.
    ASSERT_EQ(t.warnings.size(), 2u);
    EXPECT_NE(t.warnings[0].message.find("1277 dependencies"), std::string::npos) << t.warnings[0].message;
    EXPECT_NE(t.warnings[1].message.find("383 dependencies of a node on itself"), std::string::npos);
}

TEST(ChakraReader, FeederMetadataAndFirstNode) {
    MIMIC_REQUIRE_TRACE(kFeeder);
    const Trace& t = feeder();
    EXPECT_EQ(t.schema_version, "");  // this converter left the version empty
    EXPECT_EQ(t.pid, 114598);
    EXPECT_EQ(t.time, "2023-12-14 11:55:01");
    EXPECT_EQ(t.start_ts, 216405745);
    EXPECT_EQ(t.finish_ts, 216433101);
    ASSERT_EQ(t.metadata_attrs.size(), 5u);
    EXPECT_EQ(t.str(t.metadata_attrs[0].name), "schema");
    EXPECT_EQ(t.str(t.metadata_attrs[0].value.payload.str), "1.0.1");
    EXPECT_EQ(t.str(t.metadata_attrs[1].value.type), "uint64");

    const NodeIndex i = t.find(NodeId(216));
    ASSERT_NE(i, kNoNode);
    const Node& n = t.nodes[i.value];
    EXPECT_EQ(t.name(n), "aten::flatten_dense_tensors(0)");
    EXPECT_EQ(n.chakra_type, ChakraNodeType::Comp);
    EXPECT_EQ(n.kind, NodeKind::Operator);
    EXPECT_EQ(n.parent.value, 0u);  // ctrl_deps are dependencies, not a parent
    ASSERT_EQ(n.deps.count, 1u);
    EXPECT_EQ(t.edges[n.deps.begin].value, 3u);
    EXPECT_EQ(n.data_deps.count, 0u);
    EXPECT_EQ(n.chakra_duration_us, 318u);
    EXPECT_EQ(n.rf_id, 2u);
    EXPECT_EQ(n.tid, 1u);
    EXPECT_EQ(n.seq_id, -1);
    EXPECT_EQ(t.str(n.op_schema), "aten::flatten_dense_tensors(Tensor[] tensors) -> Tensor");
    // The lifted attrs are gone from the list; is_cpu_op stays.
    EXPECT_EQ(n.attrs.count, 1u);
    EXPECT_EQ(attr(t, n, "rf_id"), nullptr);

    // inputs: one GenericList of 106 float tensors, shapes kept.
    ASSERT_EQ(n.inputs.count, 1u);
    const Value& list = t.values[n.inputs.begin];
    ASSERT_EQ(list.kind, ValueKind::List);
    EXPECT_EQ(list.payload.range.count, 106u);
    const Value& first = t.values[list.payload.range.begin];
    ASSERT_EQ(first.kind, ValueKind::Tensor);
    const TensorMeta& t0 = t.tensor(first);
    EXPECT_EQ(t0.tensor_id, 4u);
    EXPECT_EQ(t0.storage_id, 5u);
    EXPECT_EQ(t0.numel, 64u);
    EXPECT_EQ(t0.itemsize, 4u);
    EXPECT_EQ(t.str(t0.device), "cuda:0");
    EXPECT_EQ(t.str(t0.dtype), "float");
    ASSERT_EQ(t0.rank, 1);
    EXPECT_EQ(t.shape(t0)[0], 64);

    // outputs: [[430, 431, 0, 53120, 4, 'cuda:0']] of shape [53120]
    ASSERT_EQ(n.outputs.count, 1u);
    const TensorMeta& out = t.tensor(t.values[n.outputs.begin]);
    EXPECT_EQ(out.tensor_id, 430u);
    EXPECT_EQ(out.numel, 53120u);
    EXPECT_EQ(t.shape(out)[0], 53120);
}

TEST(ChakraReader, FeederScalarsAndPythonLiterals) {
    MIMIC_REQUIRE_TRACE(kFeeder);
    const Trace& t = feeder();
    // c10d::broadcast_(0): [[[296, 618, 0, 53, 8, 'cuda:0']], '<Object>', 0, 0, -1]
    const Node& bc = t.nodes[t.find(NodeId(619)).value];
    EXPECT_EQ(bc.chakra_type, ChakraNodeType::CommColl);
    ASSERT_EQ(bc.inputs.count, 5u);
    EXPECT_EQ(t.values[bc.inputs.begin + 1].kind, ValueKind::Object);
    EXPECT_EQ(t.values[bc.inputs.begin + 4].kind, ValueKind::Int);
    EXPECT_EQ(t.values[bc.inputs.begin + 4].payload.i, -1);
    EXPECT_EQ(t.str(t.values[bc.inputs.begin + 4].type), "Int");
    // aten::copy_(1): [..., ..., True] with type Bool
    const Node& copy = t.nodes[t.find(NodeId(1135)).value];
    ASSERT_EQ(copy.inputs.count, 3u);
    EXPECT_EQ(t.values[copy.inputs.begin + 2].kind, ValueKind::Bool);
    EXPECT_TRUE(t.values[copy.inputs.begin + 2].payload.b);
    // aten::conv2d(0): '<None>' bias and GenericList[Int,Int] strides
    const Node& conv = t.nodes[t.find(NodeId(2532)).value];
    ASSERT_EQ(conv.inputs.count, 7u);
    EXPECT_EQ(t.values[conv.inputs.begin + 2].kind, ValueKind::None);
    const Value& stride = t.values[conv.inputs.begin + 3];
    ASSERT_EQ(stride.kind, ValueKind::List);
    ASSERT_EQ(stride.payload.range.count, 2u);
    EXPECT_EQ(t.values[stride.payload.range.begin].payload.i, 1);
    const TensorMeta& weight = t.tensor(t.values[conv.inputs.begin + 1]);
    ASSERT_EQ(weight.rank, 4);
    EXPECT_EQ(t.shape(weight)[0], 256);
    EXPECT_EQ(t.shape(weight)[1], 1024);
}

struct Microbench {
    const char* file;
    int64_t comm_type;
    int64_t rank;
};

class ChakraMicrobench : public ::testing::TestWithParam<Microbench> {};

TEST_P(ChakraMicrobench, ReadsOneCollective) {
    const Microbench& m = GetParam();
    MIMIC_REQUIRE_TRACE(m.file);
    const Trace t = read(testing::trace_path(m.file));
    EXPECT_EQ(t.schema_version, "0.0.4");
    EXPECT_EQ(t.rank, m.rank);
    ASSERT_EQ(t.nodes.size(), 1u);
    const Node& n = t.nodes[0];
    EXPECT_EQ(n.id.value, static_cast<uint64_t>(m.rank));  // rank 0's node has id 0
    EXPECT_EQ(n.chakra_type, ChakraNodeType::CommColl);
    EXPECT_EQ(n.kind, NodeKind::Unknown);
    const Attr* type = attr(t, n, "comm_type");
    ASSERT_NE(type, nullptr);
    EXPECT_EQ(type->value.payload.i, m.comm_type);
    EXPECT_EQ(t.str(type->value.type), "int64");
    const Attr* size = attr(t, n, "comm_size");
    ASSERT_NE(size, nullptr);
    EXPECT_EQ(size->value.payload.i, 1048576);
    const Attr* cpu = attr(t, n, "is_cpu_op");
    ASSERT_NE(cpu, nullptr);
    EXPECT_EQ(cpu->value.kind, ValueKind::Bool);
    EXPECT_FALSE(cpu->value.payload.b);
    EXPECT_TRUE(t.warnings.empty());
}

std::vector<Microbench> all_microbench() {
    std::vector<Microbench> out;
    static std::vector<std::string> names;  // keeps the c_str()s alive
    const std::pair<const char*, int64_t> colls[] = {
        {"all_gather", 2}, {"all_reduce", 0}, {"all_to_all", 6}, {"reduce_scatter", 7}};
    for (auto [coll, type] : colls)
        for (int rank = 0; rank < 4; ++rank)
            names.push_back(std::string("chakra/microbench/") + coll + "/" + coll + "." + std::to_string(rank) + ".et");
    size_t k = 0;
    for (auto [coll, type] : colls)
        for (int rank = 0; rank < 4; ++rank) out.push_back({names[k++].c_str(), type, rank});
    return out;
}

INSTANTIATE_TEST_SUITE_P(Shared, ChakraMicrobench, ::testing::ValuesIn(all_microbench()));

TEST(ChakraReader, GzipReadsLikePlain) {
    MIMIC_REQUIRE_TRACE(kFeeder);
    const std::string gz = gzip_copy(testing::trace_path(kFeeder), "feeder.0.et.gz");
    ASSERT_TRUE(file_is_gzip(gz));
    const Trace t = read(gz);
    const Trace& plain = feeder();
    ASSERT_EQ(t.nodes.size(), plain.nodes.size());
    EXPECT_EQ(t.values.size(), plain.values.size());
    EXPECT_EQ(t.tensors.size(), plain.tensors.size());
    EXPECT_EQ(t.edges.size(), plain.edges.size());
    EXPECT_EQ(t.rank, 0);  // "feeder.0.et.gz"
    for (size_t i = 0; i < t.nodes.size(); i += 97) {
        EXPECT_EQ(t.nodes[i].id, plain.nodes[i].id);
        EXPECT_EQ(t.name(t.nodes[i]), plain.name(plain.nodes[i]));
    }
}

// A GlobalMetadata of one attr, framed: the smallest valid start of a file.
std::string metadata_frame() {
    const std::string meta = std::string("\x0a\x05", 2) + "0.0.4";  // version = "0.0.4"
    return std::string(1, static_cast<char>(meta.size())) + meta;
}

TEST(ChakraReaderBadInput, EmptyFile) {
    const std::string e = error_of(write_bytes("empty.et", ""));
    EXPECT_NE(e.find("empty file"), std::string::npos) << e;
}

TEST(ChakraReaderBadInput, TruncatedMessage) {
    MIMIC_REQUIRE_TRACE(kFeeder);
    std::string bytes = read_whole_file(testing::trace_path(kFeeder));
    bytes.resize(bytes.size() - 100);
    const std::string e = error_of(write_bytes("truncated.et", bytes));
    EXPECT_NE(e.find("truncated.et: byte "), std::string::npos) << e;
    EXPECT_NE(e.find("runs past the end of the file"), std::string::npos) << e;
}

TEST(ChakraReaderBadInput, TruncatedInsideLengthPrefix) {
    const std::string e = error_of(write_bytes("prefix.et", metadata_frame() + "\x85"));
    EXPECT_NE(e.find("byte 8: field 'length'"), std::string::npos) << e;
    EXPECT_NE(e.find("inside a message's length prefix"), std::string::npos) << e;
}

TEST(ChakraReaderBadInput, BadVarint) {
    const std::string e = error_of(write_bytes("varint.et", metadata_frame() + std::string(6, '\xff') + "abc"));
    EXPECT_NE(e.find("byte 8"), std::string::npos) << e;
    EXPECT_NE(e.find("bad varint"), std::string::npos) << e;
}

TEST(ChakraReaderBadInput, HugeLengthDoesNotAllocate) {
    // A prefix claiming 4 GiB - 1 bytes; plain and gzip. Either must fail at
    // once with the offset, not try to hold 4 GiB.
    const std::string bytes = metadata_frame() + "\xff\xff\xff\xff\x0f" + "tiny";
    const std::string plain = write_bytes("huge.et", bytes);
    std::string e = error_of(plain);
    EXPECT_NE(e.find("byte 8"), std::string::npos) << e;
    EXPECT_NE(e.find("exceeds the 1 GiB limit"), std::string::npos) << e;
    // Under the limit but past the end of the file, in a gzip stream whose size is unknown up front.
    const std::string big = metadata_frame() + "\xff\xff\xff\x7f" + "tiny";  // 268435455 bytes claimed
    const std::string gz = gzip_copy(write_bytes("big.et", big), "big.et.gz");
    e = error_of(gz);
    EXPECT_NE(e.find("byte 8"), std::string::npos) << e;
    EXPECT_NE(e.find("runs past the end of the file (4 bytes left)"), std::string::npos) << e;
}

TEST(ChakraReaderBadInput, UnparseableNode) {
    // A Node whose field 2 (name) claims 100 bytes inside a 4-byte message.
    const std::string node("\x12\x64\x61\x62", 4);
    const std::string e = error_of(write_bytes("garbage.et", metadata_frame() + "\x04" + node));
    EXPECT_NE(e.find("byte 8: field 'Node': message 1 (4 bytes) does not parse"), std::string::npos) << e;
}

TEST(ChakraReaderBadInput, UnparseableMetadata) {
    const std::string e = error_of(write_bytes("badmeta.et", std::string("\x02\x0a\x09", 3)));
    EXPECT_NE(e.find("GlobalMetadata"), std::string::npos) << e;
}

TEST(ChakraReaderBadInput, TruncatedGzip) {
    MIMIC_REQUIRE_TRACE(kFeeder);
    const std::string gz = gzip_copy(testing::trace_path(kFeeder), "whole.et.gz");
    std::ifstream in(gz, std::ios::binary);
    std::string compressed((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    compressed.resize(compressed.size() / 2);
    const std::string e = error_of(write_bytes("cut.et.gz", compressed));
    EXPECT_NE(e.find("truncated gzip"), std::string::npos) << e;
}

}  // namespace
}  // namespace mimic
