// Chakra traces through JSON and back (byte for byte), through the Trace and
// back (value for value), and the zero-copy node decoder against protobuf's
// own parser.
#include <gtest/gtest.h>

#include <array>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "et_def.pb.h"
#include "io/chakra/chakra_json.h"
#include "io/chakra/chakra_reader.h"
#include "io/chakra/chakra_stream.h"
#include "io/chakra/chakra_wire.h"
#include "io/chakra/chakra_writer.h"
#include "io/trace_loader.h"
#include "support/byte_source.h"
#include "support/error.h"
#include "test_support.h"
#include "core/chakra_test_values.h"

namespace mimic {
namespace {

using testing::expect_same_value;

std::vector<std::string> shared_chakra_files() {
    std::vector<std::string> out = {"chakra/feeder_sample.0.et"};
    for (const char* coll : {"all_gather", "all_reduce", "all_to_all", "reduce_scatter"})
        for (int rank = 0; rank < 4; ++rank)
            out.push_back(std::string("chakra/microbench/") + coll + "/" + coll + "." + std::to_string(rank) + ".et");
    return out;
}

std::string scratch_file(const std::string& name) { return testing::scratch_dir("chakra_roundtrip") + "/" + name; }

std::string flat_name(std::string rel) {
    for (char& c : rel)
        if (c == '/') c = '_';
    return rel;
}

std::vector<std::string> messages_of(const std::string& path) {
    std::vector<std::string> out;
    ChakraFrameReader frames(path);
    std::string_view bytes;
    uint64_t offset;
    while (frames.next(bytes, offset)) out.emplace_back(bytes);
    return out;
}

Trace read(const std::string& path) {
    ChakraReadOptions options;
    options.progress = false;
    return read_chakra(path, options);
}

class SharedChakra : public ::testing::TestWithParam<std::string> {};

TEST_P(SharedChakra, DumpThenEncodeGivesTheSameBytes) {
    const std::string rel = GetParam();
    MIMIC_REQUIRE_TRACE(rel);
    const std::string json = scratch_file(flat_name(rel) + ".json");
    const std::string et = scratch_file(flat_name(rel) + ".et");
    {
        std::ofstream out(json, std::ios::binary);
        const ChakraJsonStats dumped = dump_chakra_json(testing::trace_path(rel), out);
        EXPECT_EQ(dumped.nodes + 1, messages_of(testing::trace_path(rel)).size());
    }
    const ChakraJsonStats encoded = encode_chakra_json(json, et);
    const std::vector<std::string> original = messages_of(testing::trace_path(rel));
    const std::vector<std::string> again = messages_of(et);
    ASSERT_EQ(again.size(), original.size());
    for (size_t i = 0; i < original.size(); ++i) ASSERT_EQ(again[i], original[i]) << "message " << i;
    EXPECT_EQ(encoded.nodes + 1, original.size());
    EXPECT_EQ(read_whole_file(et), read_whole_file(testing::trace_path(rel)));  // and so the whole file
}

// Dependencies are decoded eight bytes at a time when those hold eight
// one-byte or four two-byte varints, else one by one: runs of every width,
// mixed so that runs start at every offset, must decode as protobuf does.
TEST(ChakraWire, PackedDependenciesOfEveryWidthAgreeWithProtobuf) {
    const uint64_t widths[] = {5, 127, 128, 300, 16383, 16384, 2097151, 1ull << 35, UINT64_MAX};
    for (int seed = 0; seed < 200; ++seed) {
        ChakraProtoMsg::Node pb;
        pb.set_id(1);
        uint64_t state = 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(seed + 1);
        for (int k = 0; k < 60; ++k) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            // Mostly runs of one width (as real ids are), with switches.
            const size_t width = (state >> 60) < 12 ? static_cast<size_t>(seed % 4) : static_cast<size_t>((state >> 33) % 9);
            const uint64_t v = widths[width] - ((state >> 20) & 3) * (widths[width] > 3);
            pb.add_ctrl_deps(v);
            if (k % 3 == 0) pb.add_data_deps(v);
        }
        const std::string bytes = pb.SerializeAsString();
        ChakraNodeView view;
        ChakraWireError error;
        ASSERT_TRUE(decode_chakra_node(bytes, view, error)) << error.what;
        ASSERT_EQ(view.ctrl_deps, std::vector<uint64_t>(pb.ctrl_deps().begin(), pb.ctrl_deps().end())) << seed;
        ASSERT_EQ(view.data_deps, std::vector<uint64_t>(pb.data_deps().begin(), pb.data_deps().end())) << seed;
        // Cut inside the packed run: refused, as protobuf refuses it.
        const std::string cut = bytes.substr(0, bytes.size() - 1);
        ChakraProtoMsg::Node refused;
        EXPECT_EQ(decode_chakra_node(cut, view, error), refused.ParseFromString(cut)) << seed;
    }
}

TEST_P(SharedChakra, ZeroCopyDecoderAgreesWithProtobuf) {
    const std::string rel = GetParam();
    MIMIC_REQUIRE_TRACE(rel);
    const std::vector<std::string> messages = messages_of(testing::trace_path(rel));
    ChakraNodeView view;
    ChakraWireError error;
    for (size_t i = 1; i < messages.size(); ++i) {
        ChakraProtoMsg::Node pb;
        ASSERT_TRUE(pb.ParseFromString(messages[i]));
        ASSERT_TRUE(decode_chakra_node(messages[i], view, error)) << error.what;
        EXPECT_EQ(view.id, pb.id());
        EXPECT_EQ(view.name, pb.name());
        EXPECT_EQ(view.type, static_cast<int32_t>(pb.type()));
        EXPECT_EQ(view.ctrl_deps, std::vector<uint64_t>(pb.ctrl_deps().begin(), pb.ctrl_deps().end()));
        EXPECT_EQ(view.data_deps, std::vector<uint64_t>(pb.data_deps().begin(), pb.data_deps().end()));
        EXPECT_EQ(view.duration_micros, pb.duration_micros());
        EXPECT_EQ(view.start_time_micros, pb.start_time_micros());
        EXPECT_EQ(view.inputs.present, pb.has_inputs());
        EXPECT_EQ(view.inputs.values, pb.inputs().values());
        EXPECT_EQ(view.inputs.shapes, pb.inputs().shapes());
        EXPECT_EQ(view.outputs.types, pb.outputs().types());
        ASSERT_EQ(view.attrs.size(), static_cast<size_t>(pb.attr_size()));
        for (int a = 0; a < pb.attr_size(); ++a) {
            EXPECT_EQ(view.attrs[static_cast<size_t>(a)].name, pb.attr(a).name());
            EXPECT_EQ(view.attrs[static_cast<size_t>(a)].field, static_cast<int>(pb.attr(a).value_case()));
        }
    }
}

TEST_P(SharedChakra, ReadWriteReadKeepsEveryNode) {
    const std::string rel = GetParam();
    MIMIC_REQUIRE_TRACE(rel);
    const Trace first = read(testing::trace_path(rel));
    ChakraWriteOptions options;
    options.progress = false;
    const ChakraWriteStats stats = write_chakra(first, scratch_file("rewritten_" + flat_name(rel)), options);
    EXPECT_EQ(stats.nodes, first.nodes.size());
    const Trace second = read(stats.path);
    EXPECT_EQ(second.schema_version, first.schema_version);
    ASSERT_EQ(second.metadata_attrs.size(), first.metadata_attrs.size());
    ASSERT_EQ(second.nodes.size(), first.nodes.size());
    for (size_t i = 0; i < first.nodes.size(); ++i) {
        const Node& a = first.nodes[i];
        const Node& b = second.nodes[i];
        const std::string where = "node " + std::to_string(a.id.value);
        ASSERT_EQ(a.id, b.id) << where;
        EXPECT_EQ(first.name(a), second.name(b)) << where;
        EXPECT_EQ(a.chakra_type, b.chakra_type) << where;
        EXPECT_EQ(a.kind, b.kind) << where;
        EXPECT_EQ(a.chakra_duration_us, b.chakra_duration_us) << where;
        EXPECT_EQ(a.rf_id, b.rf_id) << where;
        EXPECT_EQ(first.str(a.op_schema), second.str(b.op_schema)) << where;
        ASSERT_EQ(a.deps.count, b.deps.count) << where;
        ASSERT_EQ(a.data_deps.count, b.data_deps.count) << where;
        for (uint32_t k = 0; k < a.data_deps.count; ++k)
            EXPECT_EQ(first.edges[a.data_deps.begin + k], second.edges[b.data_deps.begin + k]) << where;
        ASSERT_EQ(a.attrs.count, b.attrs.count) << where;
        for (uint32_t k = 0; k < a.attrs.count; ++k) {
            const Attr& x = first.attrs[a.attrs.begin + k];
            const Attr& y = second.attrs[b.attrs.begin + k];
            EXPECT_EQ(first.str(x.name), second.str(y.name)) << where;
            expect_same_value(first, x.value, second, y.value, where + " attr " + std::string(first.str(x.name)));
        }
        for (auto side : {&Node::inputs, &Node::outputs}) {
            ASSERT_EQ((a.*side).count, (b.*side).count) << where;
            for (uint32_t k = 0; k < (a.*side).count; ++k)
                expect_same_value(first, first.values[(a.*side).begin + k], second,
                                  second.values[(b.*side).begin + k], where + " value " + std::to_string(k));
        }
    }
}

std::string test_name(const ::testing::TestParamInfo<std::string>& p) {
    std::string name = p.param.substr(p.param.rfind('/') + 1);
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return name;
}

INSTANTIATE_TEST_SUITE_P(Shared, SharedChakra, ::testing::ValuesIn(shared_chakra_files()), test_name);

// A node whose IOInfo texts are hand-made: Python and JSON spellings of the
// same values read the same; a text that is neither is kept raw and written
// back unchanged.
std::string trace_with_io(const std::string& name, const std::vector<std::array<std::string, 3>>& sides) {
    const std::string path = scratch_file(name);
    ChakraFrameWriter out(path);
    ChakraProtoMsg::GlobalMetadata meta;
    meta.set_version("0.0.4");
    out.write(meta);
    uint64_t id = 1;
    for (const auto& io : sides) {
        ChakraProtoMsg::Node node;
        node.set_id(id++);
        node.set_name("op");
        node.set_type(ChakraProtoMsg::COMP_NODE);
        node.mutable_inputs()->set_values(io[0]);
        node.mutable_inputs()->set_shapes(io[1]);
        node.mutable_inputs()->set_types(io[2]);
        out.write(node);
    }
    out.close();
    return path;
}

TEST(ChakraValues, PythonAndJsonSpellingsAgree) {
    const std::string path = trace_with_io(
        "spellings.0.et",
        {{"[[1, 2, 0, 6, 4, 'cpu'], ('a', \"b\\\"c\"), True, None, -1.5e-3, 'x\\'y', (3,), inf]",
          "[[2, 3], [[], []], [], [], [], [], [[]], []]",
          "['Tensor(float)', 'Tuple[String,String]', 'Bool', 'None', 'Double', 'String', 'GenericList[Int]', 'Double']"},
         {"[[1,2,0,6,4,\"cpu\"],[\"a\",\"b\\\"c\"],true,null,-0.0015,\"x'y\",[3],Infinity]",
          "[[2,3],[[],[]],[],[],[],[],[[]],[]]",
          "[\"Tensor(float)\",\"Tuple[String,String]\",\"Bool\",\"None\",\"Double\",\"String\",\"GenericList[Int]\",\"Double\"]"}});
    const Trace t = read(path);
    ASSERT_EQ(t.nodes.size(), 2u);
    EXPECT_TRUE(t.warnings.empty());
    const Node& py = t.nodes[0];
    const Node& js = t.nodes[1];
    ASSERT_EQ(py.inputs.count, 8u);
    ASSERT_EQ(js.inputs.count, 8u);
    for (uint32_t k = 0; k < 8; ++k)
        expect_same_value(t, t.values[py.inputs.begin + k], t, t.values[js.inputs.begin + k], "input " + std::to_string(k));
    const TensorMeta& tensor = t.tensor(t.values[py.inputs.begin]);
    EXPECT_EQ(tensor.numel, 6u);
    ASSERT_EQ(tensor.rank, 2);
    EXPECT_EQ(t.shape(tensor)[1], 3);
    const Value& tuple = t.values[py.inputs.begin + 1];
    EXPECT_EQ(t.str(t.values[tuple.payload.range.begin + 1].payload.str), "b\"c");
    EXPECT_EQ(t.values[py.inputs.begin + 3].kind, ValueKind::None);
    EXPECT_DOUBLE_EQ(t.values[py.inputs.begin + 4].payload.d, -0.0015);
    EXPECT_EQ(t.str(t.values[py.inputs.begin + 5].payload.str), "x'y");
    EXPECT_TRUE(std::isinf(t.values[py.inputs.begin + 7].payload.d));
}

TEST(ChakraValues, UnreadableTextIsKeptRawAndWrittenBack) {
    const std::string path = trace_with_io("raw.0.et", {{"[1, 2", "[[], []]", "['Int', 'Int']"},
                                                        {"{not: a list}", "", ""},
                                                        {"[1, 2] trailing", "", ""}});
    const Trace t = read(path);
    ASSERT_EQ(t.nodes.size(), 3u);
    ASSERT_EQ(t.warnings.size(), 1u);
    EXPECT_NE(t.warnings[0].message.find("3 inputs/outputs texts"), std::string::npos) << t.warnings[0].message;
    for (const Node& n : t.nodes) {
        EXPECT_EQ(n.inputs.count, 0u);
        EXPECT_NE(t.find_attr(n, kChakraRawInputs), nullptr);
    }
    ChakraWriteOptions options;
    options.progress = false;
    const ChakraWriteStats stats = write_chakra(t, scratch_file("raw_again"), options);
    const std::vector<std::string> before = messages_of(path);
    const std::vector<std::string> after = messages_of(stats.path);
    ASSERT_EQ(after.size(), before.size());
    for (size_t i = 1; i < before.size(); ++i) {
        ChakraProtoMsg::Node x, y;
        ASSERT_TRUE(x.ParseFromString(before[i]));
        ASSERT_TRUE(y.ParseFromString(after[i]));
        EXPECT_EQ(x.inputs().values(), y.inputs().values());
        EXPECT_EQ(x.inputs().shapes(), y.inputs().shapes());
        EXPECT_EQ(x.inputs().types(), y.inputs().types());
        EXPECT_EQ(y.attr_size(), 0);  // the raw texts go back into IOInfo, not into attrs
    }
}

TEST(ChakraValues, ShapesThatDoNotMatchAreIgnoredNotFatal) {
    // Shapes list shorter than values, and a tensor whose shape is not a list of ints.
    const std::string path = trace_with_io(
        "shapes.0.et", {{"[[1, 2, 0, 6, 4, 'cpu'], [3, 4, 0, 2, 4, 'cpu'], 7]", "[['a'], [2]]",
                         "['Tensor(float)', 'Tensor(float)', 'Int']"}});
    const Trace t = read(path);
    ASSERT_EQ(t.nodes.size(), 1u);
    const Node& n = t.nodes[0];
    ASSERT_EQ(n.inputs.count, 3u);
    EXPECT_EQ(t.tensor(t.values[n.inputs.begin]).rank, 0);
    const TensorMeta& second = t.tensor(t.values[n.inputs.begin + 1]);
    ASSERT_EQ(second.rank, 1);
    EXPECT_EQ(t.shape(second)[0], 2);
    EXPECT_EQ(t.values[n.inputs.begin + 2].payload.i, 7);
}

std::string head_of(const std::string& path, size_t bytes = 4096) {
    ByteSource src(path);
    std::vector<char> buf;
    while (buf.size() < bytes && src.read(buf, bytes - buf.size()) > 0) {
    }
    return std::string(buf.begin(), buf.end());
}

TEST(ChakraDetect, ChakraFilesAreRecognised) {
    for (const std::string& rel : shared_chakra_files()) {
        if (!std::filesystem::exists(testing::trace_path(rel))) continue;
        EXPECT_TRUE(looks_like_chakra(head_of(testing::trace_path(rel)))) << rel;
    }
}

TEST(ChakraDetect, JsonIsNotChakra) {
    for (const char* rel : {"pytorch/linear_et.json.gz", "pytorch/resnet_et.json.gz", "pytorch/chakra_sample_1.0.2.json.gz",
                            "pytorch/pt2/pt2_et.json", "pytorch/linear_kineto.json.gz", "pytorch/resnet_kineto.json.gz"}) {
        if (!std::filesystem::exists(testing::trace_path(rel))) continue;
        EXPECT_FALSE(looks_like_chakra(head_of(testing::trace_path(rel)))) << rel;
    }
    EXPECT_FALSE(looks_like_chakra("{\n  \"schema\": \"1.0.1\", \"pid\": 1, \"nodes\": []}"));
    EXPECT_FALSE(looks_like_chakra(""));
}

TEST(ChakraDetect, MetadataWhoseLengthByteLooksLikeJson) {
    // Metadata of 123, 91 and 32 bytes: the files start with '{', '[' and ' '.
    for (size_t size : {123u, 91u, 32u}) {
        ChakraProtoMsg::GlobalMetadata meta;
        meta.set_version(std::string(size - 2, 'v'));  // tag + length byte + text
        ASSERT_EQ(meta.ByteSizeLong(), size);
        const std::string path = scratch_file("len" + std::to_string(size) + ".0.et");
        ChakraFrameWriter out(path);
        out.write(meta);
        ChakraProtoMsg::Node node;
        node.set_id(1);
        node.set_name("x");
        out.write(node);
        out.close();
        const std::string head = head_of(path);
        EXPECT_EQ(static_cast<unsigned char>(head[0]), size);
        EXPECT_TRUE(looks_like_chakra(head)) << size;
        EXPECT_EQ(detect_file_kind(path), FileKind::Chakra) << size;
        EXPECT_EQ(read(path).nodes.size(), 1u);
    }
}

TEST(ChakraJson, EncodeRejectsJsonOutsideTheSchema) {
    const std::string json = scratch_file("bad.json");
    std::ofstream(json) << "{\"metadata\": {\"version\": \"0.0.4\"},\n\"nodes\": [\n{\"id\": \"1\", \"nmae\": \"x\"}\n]}\n";
    try {
        encode_chakra_json(json, scratch_file("bad.et"));
        FAIL() << "expected an error";
    } catch (const Error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("field 'nodes[0]'"), std::string::npos) << m;
        EXPECT_NE(m.find("nmae"), std::string::npos) << m;
    }
    std::ofstream(json) << "{\"nodes\": []}";
    EXPECT_THROW(encode_chakra_json(json, scratch_file("bad.et")), Error);
}

TEST(ChakraJson, NodesBeforeMetadataAreKeptInOrder) {
    const std::string json = scratch_file("order.json");
    std::ofstream(json) << "{\"nodes\": [{\"id\": \"5\", \"name\": \"a\"}, {\"id\": \"6\", \"name\": \"b\"}],"
                           " \"metadata\": {\"version\": \"0.0.4\"}}";
    const std::string et = scratch_file("order.0.et");
    EXPECT_EQ(encode_chakra_json(json, et).nodes, 2u);
    const Trace t = read(et);
    ASSERT_EQ(t.nodes.size(), 2u);
    EXPECT_EQ(t.nodes[0].id.value, 5u);
    EXPECT_EQ(t.name(t.nodes[1]), "b");
    EXPECT_EQ(t.schema_version, "0.0.4");
}

}  // namespace
}  // namespace mimic
