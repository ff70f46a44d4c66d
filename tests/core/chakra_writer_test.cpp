// The Chakra writer's hand-written wire encoding checked against protobuf.
// Every message it writes for the real traces parses with protobuf's
// generated classes, has no unknown fields and serialises back to the very
// same bytes (so it is what protobuf itself would have written for that
// content), and holds what the Trace says, field by field. A hand-made
// trace with every attribute type, 10-byte varints and messages from a few
// bytes to 3 MB (9 MB in all, past the writer's flush size) writes back byte
// for byte.
#include <gtest/gtest.h>

#include <google/protobuf/io/coded_stream.h>

#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "et_def.pb.h"
#include "io/chakra/chakra_convert.h"
#include "io/chakra/chakra_reader.h"
#include "io/chakra/chakra_stream.h"
#include "io/chakra/chakra_values.h"
#include "io/chakra/chakra_wire_encoder.h"
#include "io/chakra/chakra_writer.h"
#include "io/kineto/kineto_reader.h"
#include "io/trace_loader.h"
#include "link/link_profile.h"
#include "support/byte_source.h"
#include "support/error.h"
#include "test_support.h"
#include "core/chakra_test_values.h"

namespace mimic {
namespace {

using ChakraProtoMsg::AttributeProto;
using PbNode = ChakraProtoMsg::Node;

std::string scratch(const std::string& name) { return testing::scratch_dir("chakra_writer") + "/" + name; }

struct Parsed {
    std::string metadata_bytes;
    ChakraProtoMsg::GlobalMetadata metadata;
    std::vector<std::string> node_bytes;
    std::vector<PbNode> nodes;
};

// Parses a written file with protobuf, checking each message as it goes:
// parsed whole, no unknown fields, and protobuf's own serialisation of it
// equal to the bytes written.
Parsed parse_checked(const std::string& path) {
    Parsed out;
    ChakraFrameReader frames(path);
    std::string_view bytes;
    uint64_t offset = 0;
    bool first = true;
    while (frames.next(bytes, offset)) {
        google::protobuf::Message* msg = nullptr;
        if (first) {
            out.metadata_bytes = std::string(bytes);
            msg = &out.metadata;
        } else {
            out.node_bytes.emplace_back(bytes);
            msg = &out.nodes.emplace_back();
        }
        const std::string where = path + " at byte " + std::to_string(offset);
        EXPECT_TRUE(msg->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) << where;
        EXPECT_TRUE(msg->GetReflection()->GetUnknownFields(*msg).empty()) << where;
        EXPECT_TRUE(msg->SerializeAsString() == bytes) << where << ": not what protobuf writes";
        first = false;
    }
    return out;
}

ChakraWriteStats write(const Trace& t, const std::string& name) {
    ChakraWriteOptions options;
    options.progress = false;
    return write_chakra(t, scratch(name), options);
}

Trace read(const std::string& path) {
    ChakraReadOptions options;
    options.progress = false;
    return read_chakra(path, options);
}

std::map<std::string, const AttributeProto*> attrs_by_name(const PbNode& n) {
    std::map<std::string, const AttributeProto*> out;
    for (const AttributeProto& a : n.attr()) out[a.name()] = &a;
    return out;
}

std::vector<uint64_t> ids(const google::protobuf::RepeatedField<uint64_t>& deps) { return {deps.begin(), deps.end()}; }

std::vector<uint64_t> plan_ids(const ChakraPlan& plan, uint32_t begin, uint32_t count) {
    return {plan.edges.begin() + begin, plan.edges.begin() + begin + count};
}

// The IOInfo texts decode to the source node's values.
void expect_io(const Trace& source, ValueRange side, const ChakraProtoMsg::IOInfo& io, const std::string& where) {
    Trace back;
    ValueRange values;
    ASSERT_TRUE(ChakraIoDecoder(back).decode(io.values(), io.shapes(), io.types(), values))
        << where << ": " << io.values();
    ASSERT_EQ(values.count, side.count) << where;
    for (uint32_t k = 0; k < side.count; ++k)
        testing::expect_same_value(source, source.values[side.begin + k], back, back.values[values.begin + k],
                                   where + " value " + std::to_string(k));
}

// An ET converted: each written node against the plan the writer follows
// and the ET node it comes from.
void check_converted(const Trace& et, const std::string& name) {
    const ChakraWriteStats stats = write(et, name);
    const Parsed out = parse_checked(stats.path);
    EXPECT_EQ(out.metadata.version(), kChakraSchemaVersion);
    ASSERT_GE(out.metadata.attr_size(), 5);
    EXPECT_EQ(out.metadata.attr(0).string_val(), et.schema_version);
    EXPECT_EQ(out.metadata.attr(1).uint64_val(), static_cast<uint64_t>(et.pid));

    const ChakraPlan plan = plan_chakra_nodes(et);
    ASSERT_EQ(out.nodes.size(), plan.nodes.size());
    ASSERT_EQ(stats.nodes, plan.nodes.size());
    uint64_t ctrl = 0, data = 0;
    for (size_t i = 0; i < plan.nodes.size(); ++i) {
        const ChakraPlanNode& p = plan.nodes[i];
        const PbNode& n = out.nodes[i];
        const std::string where = name + " node " + std::to_string(p.id);
        EXPECT_EQ(n.id(), p.id) << where;
        EXPECT_EQ(static_cast<int>(n.type()), static_cast<int>(p.type)) << where;
        EXPECT_EQ(n.start_time_micros(), p.start_us) << where;
        EXPECT_EQ(n.duration_micros(), p.duration_us) << where;
        EXPECT_EQ(ids(n.ctrl_deps()), plan_ids(plan, p.ctrl_begin, p.ctrl_count)) << where;
        EXPECT_EQ(ids(n.data_deps()), plan_ids(plan, p.data_begin, p.data_count)) << where;
        ctrl += p.ctrl_count;
        data += p.data_count;
        const auto attrs = attrs_by_name(n);
        ASSERT_TRUE(attrs.count("is_cpu_op")) << where;
        EXPECT_EQ(attrs.at("is_cpu_op")->bool_val(), p.is_cpu_op) << where;
        if (p.num_ops >= 0) {
            ASSERT_TRUE(attrs.count("num_ops")) << where;
            EXPECT_EQ(attrs.at("num_ops")->int64_val(), p.num_ops) << where;
        }
        if (p.device_event != UINT32_MAX) {
            EXPECT_EQ(n.name(), et.str(et.device_events[p.device_event].name)) << where;
            EXPECT_FALSE(n.has_inputs()) << where;
            continue;
        }
        const Node& src = et.nodes[p.source];
        EXPECT_EQ(n.name(), et.str(src.name)) << where;
        EXPECT_EQ(attrs.at("tensor_size")->uint64_val(), p.tensor_size) << where;
        EXPECT_EQ(attrs.at("rf_id")->int64_val(), static_cast<int64_t>(src.rf_id)) << where;
        EXPECT_EQ(attrs.at("seq_id")->int64_val(), src.seq_id) << where;
        EXPECT_EQ(attrs.at("scope")->int64_val(), src.scope) << where;
        EXPECT_EQ(attrs.at("tid")->int64_val(), static_cast<int64_t>(src.tid)) << where;
        EXPECT_EQ(attrs.at("op_schema")->string_val(), et.str(src.op_schema)) << where;
        EXPECT_EQ(n.has_inputs(), src.inputs.count > 0) << where;
        EXPECT_EQ(n.has_outputs(), src.outputs.count > 0) << where;
        if (n.has_inputs()) expect_io(et, src.inputs, n.inputs(), where + " inputs");
        if (n.has_outputs()) expect_io(et, src.outputs, n.outputs(), where + " outputs");
    }
    EXPECT_EQ(stats.ctrl_deps, ctrl);
    EXPECT_EQ(stats.data_deps, data);
}

TEST(ChakraWriter, ConvertedResnetEtIsWhatProtobufWrites) {
    MIMIC_REQUIRE_TRACE("pytorch/resnet_et.json.gz");
    check_converted(load_trace(testing::trace_path("pytorch/resnet_et.json.gz")), "resnet");
}

TEST(ChakraWriter, ConvertedResnetWithProfileIsWhatProtobufWrites) {
    MIMIC_REQUIRE_TRACE("pytorch/resnet_et.json.gz");
    MIMIC_REQUIRE_TRACE("pytorch/resnet_kineto.json.gz");
    Trace et = load_trace(testing::trace_path("pytorch/resnet_et.json.gz"));
    KinetoReadOptions options;
    options.progress = false;
    link_profile(et, read_kineto_trace(testing::trace_path("pytorch/resnet_kineto.json.gz"), options));
    check_converted(et, "resnet_linked");
}

TEST(ChakraWriter, ConvertedChakraSampleIsWhatProtobufWrites) {
    MIMIC_REQUIRE_TRACE("pytorch/chakra_sample_1.0.2.json.gz");
    check_converted(load_trace(testing::trace_path("pytorch/chakra_sample_1.0.2.json.gz")), "chakra_sample");
}

// One IOInfo of a node written back: texts the reader could not parse go
// back as they came; others are respelled from the values, and a side with
// no values (such as "[]") is left out, as Chakra's converter writes it.
void expect_side_written_back(const Trace& t, ValueRange side, const Attr* raw, bool had,
                              const ChakraProtoMsg::IOInfo& before, bool has, const ChakraProtoMsg::IOInfo& after,
                              const std::string& where) {
    if (raw) {
        EXPECT_EQ(after.SerializeAsString(), before.SerializeAsString()) << where;
        return;
    }
    EXPECT_EQ(has, side.count > 0) << where;
    if (has) expect_io(t, side, after, where);
    if (had && !has) {
        Trace scratch_trace;
        ValueRange none;
        EXPECT_TRUE(ChakraIoDecoder(scratch_trace).decode(before.values(), before.shapes(), before.types(), none));
        EXPECT_EQ(none.count, 0u) << where << ": values dropped: " << before.values();
    }
}

// A Chakra trace written back: each node against the file it was read from.
// Ids, names, types, deps and times are equal; every attribute is the same
// AttributeProto byte for byte (the order changes: the PyTorch fields go
// last, all of them where the node had one); the IOInfo texts are respelled
// as JSON, so they are compared by value.
const std::set<std::string> kPytorchFields = {"rf_id", "fw_parent", "seq_id", "scope", "tid", "fw_tid", "op_schema"};

void check_written_back(const std::string& rel) {
    const std::string original_path = testing::trace_path(rel);
    const Trace t = read(original_path);
    const ChakraWriteStats stats = write(t, "back_" + std::to_string(std::hash<std::string>()(rel)));
    const Parsed original = parse_checked(original_path);
    const Parsed out = parse_checked(stats.path);
    EXPECT_EQ(out.metadata_bytes, original.metadata_bytes) << rel;
    ASSERT_EQ(out.nodes.size(), original.nodes.size()) << rel;
    for (size_t i = 0; i < out.nodes.size(); ++i) {
        const PbNode& a = original.nodes[i];
        const PbNode& b = out.nodes[i];
        const std::string where = rel + " node " + std::to_string(a.id());
        EXPECT_EQ(b.id(), a.id()) << where;
        EXPECT_EQ(b.name(), a.name()) << where;
        EXPECT_EQ(b.type(), a.type()) << where;
        EXPECT_EQ(b.start_time_micros(), a.start_time_micros()) << where;
        EXPECT_EQ(b.duration_micros(), a.duration_micros()) << where;
        EXPECT_EQ(ids(b.ctrl_deps()), ids(a.ctrl_deps())) << where;
        EXPECT_EQ(ids(b.data_deps()), ids(a.data_deps())) << where;
        const auto before = attrs_by_name(a);
        const auto after = attrs_by_name(b);
        for (const auto& [name, attr] : before) {
            ASSERT_TRUE(after.count(name)) << where << " lost attr " << name;
            EXPECT_EQ(after.at(name)->SerializeAsString(), attr->SerializeAsString()) << where << " attr " << name;
        }
        // A node with any of the PyTorch fields gets all of them back.
        for (const auto& [name, attr] : after) {
            if (!before.count(name)) {
                EXPECT_TRUE(kPytorchFields.count(name)) << where << " gained attr " << name;
            }
        }
        const Node& n = t.nodes[i];
        expect_side_written_back(t, n.inputs, t.find_attr(n, kChakraRawInputs), a.has_inputs(), a.inputs(),
                                 b.has_inputs(), b.inputs(), where + " inputs");
        expect_side_written_back(t, n.outputs, t.find_attr(n, kChakraRawOutputs), a.has_outputs(), a.outputs(),
                                 b.has_outputs(), b.outputs(), where + " outputs");
    }
}

TEST(ChakraWriter, FeederSampleWrittenBackIsWhatProtobufWrites) {
    MIMIC_REQUIRE_TRACE("chakra/feeder_sample.0.et");
    check_written_back("chakra/feeder_sample.0.et");
}

TEST(ChakraWriter, MicrobenchmarksWrittenBackAreWhatProtobufWrites) {
    for (const char* coll : {"all_gather", "all_reduce", "all_to_all", "reduce_scatter"}) {
        const std::string rel = std::string("chakra/microbench/") + coll + "/" + coll + ".0.et";
        MIMIC_REQUIRE_TRACE(rel);
        check_written_back(rel);
    }
}

// One attribute of each oneof field, with values at the edges of their types.
void add_every_attr_type(google::protobuf::RepeatedPtrField<AttributeProto>& attrs) {
    auto add = [&](const std::string& name) {
        AttributeProto* a = attrs.Add();
        a->set_name(name);
        return a;
    };
    add("double")->set_double_val(-0.1);
    add("double_nan")->set_double_val(std::numeric_limits<double>::quiet_NaN());
    add("float")->set_float_val(3.5f);
    add("int32_negative")->set_int32_val(-7);  // ten bytes on the wire
    add("int64_min")->set_int64_val(std::numeric_limits<int64_t>::min());
    add("uint32_max")->set_uint32_val(std::numeric_limits<uint32_t>::max());
    add("uint64_max")->set_uint64_val(std::numeric_limits<uint64_t>::max());
    add("sint32")->set_sint32_val(-123456);
    add("sint64")->set_sint64_val(std::numeric_limits<int64_t>::min());
    add("fixed32")->set_fixed32_val(0xdeadbeef);
    add("fixed64")->set_fixed64_val(0x0123456789abcdefULL);
    add("sfixed32")->set_sfixed32_val(-2);
    add("sfixed64")->set_sfixed64_val(-3);
    add("bool_false")->set_bool_val(false);
    add("int64_zero")->set_int64_val(0);  // a oneof member is written even when zero
    add("string_empty")->set_string_val("");
    add("string_long")->set_string_val(std::string(300, 's'));  // an attribute over 127 bytes
    add("bytes")->set_bytes_val(std::string("\x00\xff\x80 bin", 7));
    AttributeProto* lists = add("double_list");
    for (double d : {1.5, -2.0, 0.0}) lists->mutable_double_list()->add_values(d);
    add("float_list")->mutable_float_list()->add_values(-1.25f);
    add("int32_list")->mutable_int32_list()->add_values(-1);
    AttributeProto* int64s = add("int64_list");
    for (int k = 0; k < 200; ++k) int64s->mutable_int64_list()->add_values(int64_t(1) << (k % 63));
    add("uint32_list")->mutable_uint32_list()->add_values(300);
    add("uint64_list")->mutable_uint64_list()->add_values(std::numeric_limits<uint64_t>::max());
    add("sint32_list")->mutable_sint32_list()->add_values(-1);
    add("sint64_list")->mutable_sint64_list()->add_values(-64);
    add("fixed32_list")->mutable_fixed32_list()->add_values(7);
    add("fixed64_list")->mutable_fixed64_list()->add_values(8);
    add("sfixed32_list")->mutable_sfixed32_list()->add_values(-9);
    add("sfixed64_list")->mutable_sfixed64_list()->add_values(-10);
    AttributeProto* bools = add("bool_list");
    for (bool b : {true, false, true}) bools->mutable_bool_list()->add_values(b);
    AttributeProto* strings = add("string_list");
    for (const char* s : {"a", "", "ccc"}) strings->mutable_string_list()->add_values(s);
    add("bytes_list")->mutable_bytes_list()->add_values(std::string("\x01\x00", 2));
    add("int64_list_empty")->mutable_int64_list();
    add("string_list_empty")->mutable_string_list();
    add("no_value");
}

TEST(ChakraWriter, HandMadeTraceWritesBackByteForByte) {
    // Written by protobuf, read, written by mimic: every message the same.
    const std::string path = scratch("hand_made.0.et");
    std::vector<std::string> messages;
    {
        ChakraFrameWriter out(path);
        ChakraProtoMsg::GlobalMetadata meta;
        meta.set_version("0.0.4");
        add_every_attr_type(*meta.mutable_attr());
        out.write(meta);
        messages.push_back(meta.SerializeAsString());
        // Names from 0 bytes to 3 MB: message lengths of 1 to 4 varint bytes,
        // growing and shrinking from node to node, 9 MB in all.
        const size_t name_sizes[] = {0, 1, 100, 125, 126, 127, 200, 16370, 16400, 3000000, 5, 2200000, 3000000, 10};
        uint64_t id = 1;
        for (size_t size : name_sizes) {
            PbNode node;
            node.set_id(id);
            node.set_name(std::string(size, 'n'));
            node.set_type(static_cast<ChakraProtoMsg::NodeType>(id % 8));
            for (uint64_t d = 1; d < id; ++d) node.add_ctrl_deps(d);
            if (id > 2) node.add_data_deps(id - 1);
            node.set_start_time_micros(id * 1000003);
            node.set_duration_micros(id == 4 ? std::numeric_limits<uint64_t>::max() : id);
            if (id == 3) add_every_attr_type(*node.mutable_attr());
            out.write(node);
            messages.push_back(node.SerializeAsString());
            ++id;
        }
        out.close();
    }
    const Trace t = read(path);
    ASSERT_EQ(t.nodes.size() + 1, messages.size());
    const ChakraWriteStats stats = write(t, "hand_made_again");
    const Parsed back = parse_checked(stats.path);
    EXPECT_EQ(back.metadata_bytes, messages[0]);
    ASSERT_EQ(back.node_bytes.size() + 1, messages.size());
    for (size_t i = 0; i < back.node_bytes.size(); ++i)
        EXPECT_TRUE(back.node_bytes[i] == messages[i + 1]) << "node " << i + 1 << " differs";
    EXPECT_EQ(stats.bytes, std::filesystem::file_size(path));
    EXPECT_TRUE(read_whole_file(stats.path) == read_whole_file(path));  // framing included
    EXPECT_EQ(stats.nodes, t.nodes.size());
}

TEST(ChakraWriter, VarintSizeMatchesProtobuf) {
    for (int bit = 0; bit < 64; ++bit) {
        for (uint64_t v : {uint64_t(1) << bit, (uint64_t(1) << bit) - 1, (uint64_t(1) << bit) + 1}) {
            EXPECT_EQ(varint_size(v), google::protobuf::io::CodedOutputStream::VarintSize64(v)) << v;
        }
    }
    EXPECT_EQ(varint_size(std::numeric_limits<uint64_t>::max()), 10u);
}

TEST(ChakraWriter, NoFileUnderTheFinalNameWhenTheWriteFails) {
    // A directory where the .partial file should go: creating it fails, and
    // nothing is left behind.
    const std::string prefix = scratch("blocked");
    std::filesystem::create_directories(prefix + ".0.et.partial");
    Trace t;
    t.format = TraceFormat::Chakra;
    t.finalize();
    ChakraWriteOptions options;
    options.progress = false;
    EXPECT_THROW(write_chakra(t, prefix, options), Error);
    EXPECT_FALSE(std::filesystem::exists(prefix + ".0.et"));
    std::filesystem::remove_all(prefix + ".0.et.partial");
}

}  // namespace
}  // namespace mimic
