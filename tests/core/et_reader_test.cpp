#include "io/pytorch_et/et_reader.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cmath>
#include <fstream>

#include "io/trace_loader.h"
#include "support/error.h"
#include "test_support.h"

namespace mimic {
namespace {

struct Expected {
    const char* file;
    const char* schema;
    size_t nodes;
    size_t operators;  // nodes with a non-empty op_schema
    size_t tensors;    // tensor values, including those inside lists
    size_t process_groups;
};

// Counts derived independently with a short Python script over the JSON
// (json.load, counting nodes, non-empty op_schema, and tensor tuples).
const Expected kTraces[] = {
    {"pytorch/linear_et.json.gz", "1.0.1", 931, 710, 1747, 0},
    {"pytorch/resnet_et.json.gz", "1.1.0-chakra.0.0.4", 14392, 10818, 33678, 1},
    {"pytorch/resnet_1gpu_et_1.0.3.json.gz", "1.0.3-chakra.0.0.4", 14391, 10818, 33678, 0},
    {"pytorch/resnet_1gpu_et_1.1.1.json.gz", "1.1.1-chakra.0.0.4", 14392, 10818, 33678, 1},
    // 500 = 440 direct + 60 inside the 30 GenericList[GenericList[Tensor,Tensor]] values.
    {"pytorch/chakra_sample_1.0.2.json.gz", "1.0.2-chakra.0.0.4", 263, 220, 500, 1},
    {"pytorch/pt2/pt2_et.json", "1.1.1-chakra.0.0.4", 20, 2, 22, 0},
};

class RealTraces : public ::testing::TestWithParam<Expected> {};

TEST_P(RealTraces, ReadsEveryNodeValueAndTensor) {
    const Expected& e = GetParam();
    MIMIC_REQUIRE_TRACE(e.file);
    // A small batch size forces many batches, so batch boundaries are exercised too.
    EtReadOptions small;
    small.batch_bytes = 64 << 10;
    for (const EtReadOptions& options : {EtReadOptions{}, small}) {
        Trace t = read_pytorch_et(testing::trace_path(e.file), options);
        EXPECT_EQ(t.schema_version, e.schema);
        EXPECT_EQ(t.nodes.size(), e.nodes);
        size_t ops = 0;
        for (const Node& n : t.nodes) ops += !t.str(n.op_schema).empty();
        EXPECT_EQ(ops, e.operators);
        EXPECT_EQ(t.tensors.size(), e.tensors);
        EXPECT_EQ(t.process_groups.size(), e.process_groups);
        EXPECT_TRUE(t.warnings.empty()) << t.warnings.front().message;
        // Every node but the root hangs under a parent that is in the trace.
        size_t roots = 0;
        for (uint32_t i = 0; i < t.nodes.size(); ++i)
            if (t.parent_of(NodeIndex(i)) == kNoNode) ++roots;
        EXPECT_LE(roots, 2u);
    }
}

INSTANTIATE_TEST_SUITE_P(Shared, RealTraces, ::testing::ValuesIn(kTraces),
                         [](const auto& param_info) {
                             std::string name = param_info.param.file;
                             for (char& c : name)
                                 if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                             return name;
                         });

TEST(EtReader, FlatNodeFieldsAndTensorTuple) {
    MIMIC_REQUIRE_TRACE("pytorch/linear_et.json.gz");
    Trace t = read_pytorch_et(testing::trace_path("pytorch/linear_et.json.gz"));
    // {"name": "aten::as_strided", "id": 12, "rf_id": 4, "parent": 11, ...
    //  "inputs": [[5,6,0,1048576,4,"cuda:0"],[1024,1024],[1,1024],"<None>"]}
    NodeIndex i = t.find(NodeId(12));
    ASSERT_NE(i, kNoNode);
    const Node& n = t.nodes[i.value];
    EXPECT_EQ(t.name(n), "aten::as_strided");
    EXPECT_EQ(n.rf_id, 4u);
    EXPECT_EQ(n.parent, NodeId(11));
    EXPECT_EQ(n.kind, NodeKind::Operator);
    ASSERT_EQ(n.inputs.count, 4u);
    const Value& self = *t.value_ptr(n.inputs, 0);
    ASSERT_EQ(self.kind, ValueKind::Tensor);
    const TensorMeta& tm = t.tensor(self);
    EXPECT_EQ(tm.tensor_id, 5u);
    EXPECT_EQ(tm.storage_id, 6u);
    EXPECT_EQ(tm.numel, 1048576u);
    EXPECT_EQ(tm.itemsize, 4u);
    EXPECT_EQ(t.str(tm.device), "cuda:0");
    EXPECT_EQ(t.str(tm.dtype), "float");
    ASSERT_EQ(tm.rank, 2);
    EXPECT_EQ(t.shape(tm)[0], 1024);
    const Value& size = *t.value_ptr(n.inputs, 1);
    ASSERT_EQ(size.kind, ValueKind::List);
    ASSERT_EQ(size.payload.range.count, 2u);
    EXPECT_EQ(t.values[size.payload.range.begin].payload.i, 1024);
    EXPECT_EQ(t.value_ptr(n.inputs, 3)->kind, ValueKind::None);
    EXPECT_EQ(t.parent_of(i), t.find(NodeId(11)));
}

TEST(EtReader, NestedStridesAndAttrs) {
    MIMIC_REQUIRE_TRACE("pytorch/resnet_1gpu_et_1.1.1.json.gz");
    Trace t = read_pytorch_et(testing::trace_path("pytorch/resnet_1gpu_et_1.1.1.json.gz"));
    size_t with_strides = 0;
    for (const TensorMeta& tm : t.tensors) with_strides += tm.has_strides;
    EXPECT_GT(with_strides, t.tensors.size() / 2);
    ASSERT_EQ(t.process_groups.size(), 1u);
    EXPECT_EQ(t.process_groups[0].backend, "cuda:nccl");
    EXPECT_EQ(t.process_groups[0].desc, "default_pg");
    // kernel_backend is kept as a generic attr.
    const Node& thread = t.nodes[t.find(NodeId(2)).value];
    EXPECT_EQ(thread.kind, NodeKind::Thread);
    EXPECT_NE(t.find_attr(thread, "kernel_backend"), nullptr);
}

std::string write_file(const std::string& name, const std::string& bytes) {
    std::string path = testing::scratch_dir("et_reader") + "/" + name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
}

std::string gzip_bytes(const std::string& text) {
    std::string out(compressBound(text.size()) + 64, '\0');
    z_stream zs{};
    deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    zs.avail_in = static_cast<uInt>(text.size());
    zs.next_out = reinterpret_cast<Bytef*>(out.data());
    zs.avail_out = static_cast<uInt>(out.size());
    deflate(&zs, Z_FINISH);
    out.resize(zs.total_out);
    deflateEnd(&zs);
    return out;
}

// Expects load_trace to fail with a message holding every one of `parts`.
void expect_error(const std::string& path, std::initializer_list<const char*> parts) {
    try {
        Trace t = load_trace(path);
        ADD_FAILURE() << path << ": expected an error, read " << t.nodes.size() << " nodes";
    } catch (const Error& e) {
        for (const char* p : parts) EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
    }
}

const char* kGoodNode =
    R"J({"name": "aten::relu", "id": 5, "rf_id": 1, "parent": 1, "fw_parent": 0, "seq_id": -1, "scope": 0, "tid": 1,)J"
    R"J( "fw_tid": 0, "op_schema": "aten::relu(Tensor self) -> Tensor", "inputs": [[6,7,0,4,4,"cpu"]],)J"
    R"J( "input_shapes": [[2,2]], "input_types": ["Tensor(float)"], "outputs": [[8,9,0,4,4,"cpu"]],)J"
    R"J( "output_shapes": [[2,2]], "output_types": ["Tensor(float)"]})J";

// The root of a 1.0.1 trace (its own parent), for inputs that must read.
const char* kFlatRoot =
    R"J({"name": "[pytorch|profiler|execution_graph|process]", "id": 1, "parent": 1, "inputs": [], "outputs": []})J";

std::string et_with(const std::string& nodes, const std::string& schema = "1.0.1") {
    return R"J({"schema": ")J" + schema + R"J(", "pid": 1, "time": "x", "start_ts": 1, "nodes": [)J" + nodes +
           R"J(], "finish_ts": 2})J";
}

TEST(EtReaderBadInput, TruncatedGzip) {
    std::string gz = gzip_bytes(et_with(kGoodNode));
    expect_error(write_file("trunc.json.gz", gz.substr(0, gz.size() / 2)), {"trunc.json.gz", "truncated gzip"});
}

TEST(EtReaderBadInput, CorruptGzip) {
    std::string gz = gzip_bytes(et_with(kGoodNode));
    for (size_t i = 20; i < gz.size() - 8; ++i) gz[i] = static_cast<char>(gz[i] ^ 0x5a);
    expect_error(write_file("corrupt.json.gz", gz), {"corrupt.json.gz", "gzip"});
}

TEST(EtReaderBadInput, TruncatedJson) {
    std::string text = et_with(kGoodNode);
    expect_error(write_file("trunc.json", text.substr(0, text.size() - 40)), {"trunc.json", "truncated"});
}

TEST(EtReaderBadInput, EmptyFile) { expect_error(write_file("empty.json", ""), {"empty.json", "empty file"}); }

TEST(EtReaderBadInput, MalformedNodeNamesItsOffset) {
    expect_error(write_file("malformed.json", et_with(std::string(kGoodNode) + R"J(, {"name": "x", "id": 7,, "parent": 1})J")),
                 {"malformed.json", "byte "});
}

TEST(EtReaderBadInput, NonUtf8) {
    std::string node = kGoodNode;
    node.replace(node.find("aten::relu"), 4, "\xff\xfe\xfd\xfc");
    expect_error(write_file("utf8.json", et_with(node)), {"utf8.json", "UTF"});
}

// PyTorch 1.13's observer wrote a causal mask's fill value, float("-inf"),
// as the string "-inf" with the type "Double" (a GPT-style model recorded
// here): it is read as the double it was, and other strings stay strings.
TEST(EtReader, NonFiniteDoubleWrittenAsString) {
    const std::string node =
        R"J({"name": "aten::masked_fill", "id": 5, "rf_id": 1, "parent": 1, "fw_parent": 0, "seq_id": -1, "scope": 0,)J"
        R"J( "tid": 1, "fw_tid": 0, "op_schema": "aten::masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor",)J"
        R"J( "inputs": [[6,7,0,4,4,"cpu"],[8,9,0,4,1,"cpu"],"-inf","nan","inf","-Infinity","tanh","1e5x"],)J"
        R"J( "input_shapes": [[2,2],[2,2],[],[],[],[],[],[]],)J"
        R"J( "input_types": ["Tensor(float)","Tensor(bool)","Double","Double","Double","Double","Double","Double"],)J"
        R"J( "outputs": [], "output_shapes": [], "output_types": []})J";
    Trace t = load_trace(write_file("nonfinite.json", et_with(std::string(kFlatRoot) + "," + node)));
    const Node& n = t.nodes[t.find(NodeId(5)).value];
    ASSERT_EQ(n.inputs.count, 8u);
    const Value& minus_inf = *t.value_ptr(n.inputs, 2);
    ASSERT_EQ(minus_inf.kind, ValueKind::Double);
    EXPECT_TRUE(std::isinf(minus_inf.payload.d) && minus_inf.payload.d < 0);
    ASSERT_EQ(t.value_ptr(n.inputs, 3)->kind, ValueKind::Double);
    EXPECT_TRUE(std::isnan(t.value_ptr(n.inputs, 3)->payload.d));
    ASSERT_EQ(t.value_ptr(n.inputs, 4)->kind, ValueKind::Double);
    EXPECT_GT(t.value_ptr(n.inputs, 4)->payload.d, 0);
    EXPECT_TRUE(std::isinf(t.value_ptr(n.inputs, 4)->payload.d));
    ASSERT_EQ(t.value_ptr(n.inputs, 5)->kind, ValueKind::Double);
    EXPECT_LT(t.value_ptr(n.inputs, 5)->payload.d, 0);
    // Not a non-finite number: kept as the string the trace holds.
    EXPECT_EQ(t.value_ptr(n.inputs, 6)->kind, ValueKind::String);
    EXPECT_EQ(t.value_ptr(n.inputs, 7)->kind, ValueKind::String);
}

TEST(EtReaderBadInput, WrongFieldTypeNamesNodeAndField) {
    std::string node = kGoodNode;
    node.replace(node.find(R"J("parent": 1)J"), 11, R"J("parent": "one")J");
    expect_error(write_file("type.json", et_with(node)), {"type.json", "node 5", "field 'parent'"});
}

TEST(EtReaderBadInput, NegativeSize) {
    std::string node = kGoodNode;
    node.replace(node.find("[2,2]"), 5, "[2,-2]");
    expect_error(write_file("neg.json", et_with(node)), {"neg.json", "node 5", "negative"});
    node = kGoodNode;
    node.replace(node.find("[6,7,0,4,4"), 10, "[6,7,0,-4,4");
    expect_error(write_file("neg2.json", et_with(node)), {"neg2.json", "node 5", "numel"});
}

TEST(EtReaderBadInput, HugeListIsRefused) {
    std::string list = "[0";
    list.reserve(21000000);
    for (int i = 1; i < 10000000; ++i) list += ",0";
    list += "]";
    std::string node = R"J({"name": "aten::x", "id": 5, "parent": 1, "op_schema": "aten::x(int[] a) -> ()", "inputs": [)J" +
                       list + R"J(], "input_shapes": [[]], "input_types": ["GenericList[Int]"], "outputs": [],)J"
                       R"J( "output_shapes": [], "output_types": []})J";
    expect_error(write_file("huge.json", et_with(node)), {"huge.json", "node 5", "limit"});
}

// Flat (1.0.1) nodes name their parent in "parent", and the error says so.
TEST(EtReaderBadInput, ParentCycleIsAnError) {
    std::string a = R"J({"name": "a", "id": 5, "parent": 6, "inputs": [], "outputs": []})J";
    std::string b = R"J({"name": "b", "id": 6, "parent": 5, "inputs": [], "outputs": []})J";
    expect_error(write_file("cycle.json", et_with(std::string(kFlatRoot) + "," + a + "," + b)),
                 {"cycle.json", "node 5", "field 'parent'", "cycle: 5 -> 6 -> 5"});
}

TEST(EtReaderBadInput, DanglingParentIsAnError) {
    std::string a = R"J({"name": "a", "id": 5, "parent": 99, "inputs": [], "outputs": []})J";
    expect_error(write_file("dangling.json", et_with(std::string(kFlatRoot) + "," + a)),
                 {"dangling.json", "node 5", "field 'parent'", "parent 99 is not in the trace"});
}

// Traces built in code (not read from a file) keep the lenient default: bad
// links are cut with a warning, and every walk up the tree ends.
TEST(TraceFinalize, CutsBadParentLinksWithAWarningByDefault) {
    Trace t;
    for (uint64_t id : {5, 6, 7}) {
        Node n;
        n.id = NodeId(id);
        n.parent = NodeId(id == 5 ? 6 : id == 6 ? 5 : 99);
        t.nodes.push_back(n);
    }
    t.finalize();
    std::string all;
    for (const auto& w : t.warnings) all += w.message + "\n";
    EXPECT_NE(all.find("cycle"), std::string::npos) << all;
    EXPECT_NE(all.find("parent 99"), std::string::npos) << all;
    for (uint32_t i = 0; i < 3; ++i) {
        NodeIndex n(i);
        int steps = 0;
        while (n != kNoNode && steps < 10) n = t.parent_of(n), ++steps;
        EXPECT_LT(steps, 10);
    }
}

TEST(EtReaderBadInput, UnknownVersion) {
    Trace t = load_trace(write_file("future.json", et_with(std::string(kFlatRoot) + "," + kGoodNode, "9.9.9")));
    ASSERT_FALSE(t.warnings.empty());
    EXPECT_NE(t.warnings[0].message.find("9.9.9"), std::string::npos);
    expect_error(write_file("future_empty.json", et_with("", "9.9.9")), {"future_empty.json", "unknown schema"});
}

TEST(EtReaderBadInput, NotATrace) {
    expect_error(write_file("obj.json", R"J({"hello": 1})J"), {"obj.json", "not a PyTorch execution trace"});
    expect_error(write_file("bin.dat", std::string("\x00\x01\x02\x03garbage", 11)), {"bin.dat", "unrecognised"});
    expect_error(write_file("missing_id.json", et_with(R"J({"name": "a", "parent": 1})J")), {"missing_id.json", "field 'id'"});
}

}  // namespace
}  // namespace mimic

namespace mimic {
namespace {

TEST(RankFromPath, NamesInFilesAndDirectories) {
    EXPECT_EQ(rank_from_path("/x/rank3/et.json.gz"), 3);
    EXPECT_EQ(rank_from_path("/x/run/RANK-12.json"), 12);
    EXPECT_EQ(rank_from_path("/x/run/trace_rank_5_et.json.gz"), 5);
    EXPECT_EQ(rank_from_path("/x/run/trace.7.json.gz"), 7);
    EXPECT_EQ(rank_from_path("/x/run/workload.0.et"), 0);
    EXPECT_EQ(rank_from_path("/x/run/et.json.gz"), -1);
    EXPECT_EQ(rank_from_path("/x/run/resnet_1gpu_et_1.1.1.json.gz"), -1);  // a schema version, not a rank
    EXPECT_EQ(rank_from_path("/x/run/model.v2.3.json"), -1);
}

}  // namespace
}  // namespace mimic
