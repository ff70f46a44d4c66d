// Strings in a Chakra trace that are not valid UTF-8: protobuf's parser
// refuses such a message, so the reader must too (else `mimic convert` or
// `encode` could write a .et that Chakra's tools cannot read), with an error
// naming the file, the byte and the field. Made from the real traces with one
// byte of one string turned into 0xFF.
#include <google/protobuf/stubs/logging.h>
#include <gtest/gtest.h>

#include <fstream>
#include <initializer_list>
#include <iterator>
#include <string>

#include "et_def.pb.h"
#include "io/chakra/chakra_reader.h"
#include "io/chakra/chakra_stream.h"
#include "io/trace_loader.h"
#include "support/error.h"
#include "support/utf8.h"
#include "test_support.h"

namespace mimic {
namespace {

std::string read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string write_file(const std::string& name, const std::string& bytes) {
    std::string path = testing::scratch_dir("chakra_utf8") + "/" + name;
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return path;
}

struct Flipped {
    std::string path;
    uint64_t offset = 0;  // of the 0xFF byte in the file
};

// The shared trace `rel` with byte `at` of the first `text` in it set to 0xFF, as `name`.
Flipped flip(const std::string& rel, const std::string& text, size_t at, const std::string& name) {
    std::string bytes = read_bytes(testing::trace_path(rel));
    const size_t found = bytes.find(text);
    EXPECT_NE(found, std::string::npos) << text << " not in " << rel;
    bytes[found + at] = '\xff';
    return {write_file(name, bytes), found + at};
}

// Whether protobuf's own parser accepts the message holding byte `offset` of the file.
bool protobuf_accepts_message_at(const std::string& path, uint64_t offset) {
    ChakraFrameReader frames(path);
    std::string_view message;
    uint64_t prefix = 0;
    for (size_t index = 0; frames.next(message, prefix); ++index) {
        if (offset >= frames.position()) continue;  // past this message
        const int size = static_cast<int>(message.size());
        if (index == 0) return ChakraProtoMsg::GlobalMetadata().ParseFromArray(message.data(), size);
        return ChakraProtoMsg::Node().ParseFromArray(message.data(), size);
    }
    ADD_FAILURE() << "no message holds byte " << offset;
    return true;
}

// Both through the Chakra reader and through load_trace (whose format
// detection looks at structure only, so the error is the same).
void expect_error(const Flipped& f, std::initializer_list<std::string> parts) {
    google::protobuf::SetLogHandler(nullptr);  // protobuf logs the strings it refuses
    EXPECT_FALSE(protobuf_accepts_message_at(f.path, f.offset)) << "the test's premise: protobuf refuses it";
    ChakraReadOptions quiet;
    quiet.progress = false;
    for (int via_loader = 0; via_loader < 2; ++via_loader) {
        try {
            Trace t = via_loader ? load_trace(f.path) : read_chakra(f.path, quiet);
            ADD_FAILURE() << f.path << ": read " << t.nodes.size() << " nodes, expected an error";
        } catch (const Error& e) {
            const std::string what = e.what();
            for (const std::string& p : parts) EXPECT_NE(what.find(p), std::string::npos) << what;
            EXPECT_NE(what.find("byte " + std::to_string(f.offset) + ":"), std::string::npos) << what;
            EXPECT_NE(what.find("UTF-8"), std::string::npos) << what;
        }
    }
}

TEST(ChakraUtf8, NodeNameOfAMicrobenchmark) {
    MIMIC_REQUIRE_TRACE("chakra/microbench/all_reduce/all_reduce.0.et");
    Flipped f = flip("chakra/microbench/all_reduce/all_reduce.0.et", "all_reduce_4npus_1MB", 4, "name.0.et");
    expect_error(f, {"name.0.et", "field 'name'", "byte 0xff"});
}

TEST(ChakraUtf8, EveryStringFieldOfTheFeederSample) {
    const std::string feeder = "chakra/feeder_sample.0.et";
    MIMIC_REQUIRE_TRACE(feeder);
    expect_error(flip(feeder, "aten::flatten_dense_tensors(1)", 0, "feeder_name.0.et"),
                 {"feeder_name.0.et", "node 217", "field 'name'"});
    // The file's first node, 216, aten::flatten_dense_tensors(0), holds the
    // first of the others; its attrs: is_cpu_op, fw_parent, fw_tid, op_schema, ...
    expect_error(flip(feeder, "'cuda:0'", 1, "feeder_values.0.et"), {"node 216", "field 'inputs.values'"});
    expect_error(flip(feeder, "op_schema", 2, "feeder_attr_name.0.et"), {"node 216", "field 'attr[3].name'"});
    expect_error(flip(feeder, "aten::flatten_dense_tensors(Tensor[]", 7, "feeder_string_val.0.et"),
                 {"node 216", "field 'attr[3].string_val'"});
    // GlobalMetadata attrs: schema, pid, time, ...
    expect_error(flip(feeder, "2023-12-14", 4, "feeder_metadata.0.et"), {"feeder_metadata.0.et", "field 'attr[2].string_val'"});
}

// A metadata message and one node message `body` (under 128 bytes), with the
// first `marker` in the file's bytes set to 0xFF.
Flipped write_frames(const std::string& name, const std::string& body, const std::string& marker) {
    ChakraProtoMsg::GlobalMetadata meta;
    meta.set_version("0.0.4");
    std::string bytes;
    for (const std::string& m : {meta.SerializeAsString(), body}) {
        bytes += static_cast<char>(m.size());
        bytes += m;
    }
    const size_t at = bytes.find(marker);
    EXPECT_NE(at, std::string::npos);
    bytes[at] = '\xff';
    return {write_file(name, bytes), at};
}

// The fields the real traces leave empty, on a node made with protobuf.
Flipped write_node(const std::string& name, const ChakraProtoMsg::Node& node, const std::string& marker) {
    return write_frames(name, node.SerializeAsString(), marker);
}

// The reader checks the IOInfo texts itself, and only those it has not met
// before (a side equal to an earlier one is copied): a side that differs
// from an earlier one by the bad byte alone must not pass for it.
TEST(ChakraUtf8, ASideThatRepeatsAnEarlierOneButForTheBadByte) {
    const std::string feeder = "chakra/feeder_sample.0.et";
    MIMIC_REQUIRE_TRACE(feeder);
    const std::string bytes = read_bytes(testing::trace_path(feeder));
    ChakraFrameReader frames(testing::trace_path(feeder));
    std::string_view message;
    uint64_t prefix = 0;
    frames.next(message, prefix);  // metadata
    frames.next(message, prefix);  // node 216
    ChakraProtoMsg::Node first;
    ASSERT_TRUE(first.ParseFromArray(message.data(), static_cast<int>(message.size())));
    const std::string& side = first.inputs().values();
    const size_t again = bytes.find(side, bytes.find(side) + 1);
    ASSERT_NE(again, std::string::npos) << "the test's premise: node 216's inputs occur again";
    std::string flipped = bytes;
    flipped[again + side.size() / 2] = '\xff';
    const Flipped f{write_file("feeder_repeated.0.et", flipped), again + side.size() / 2};
    expect_error(f, {"feeder_repeated.0.et", ".values'"});
}

// A node whose inputs occur twice: protobuf merges them, the second text
// wins, but the first is parsed (and checked) too.
TEST(ChakraUtf8, AnInputsTextThatALaterOccurrenceReplaces) {
    ChakraProtoMsg::Node bad, good;
    bad.set_id(7);
    bad.mutable_inputs()->set_values("[#1]");
    good.mutable_inputs()->set_values("[2]");
    const Flipped f = write_frames("replaced.0.et", bad.SerializeAsString() + good.SerializeAsString(), "#1");
    expect_error(f, {"node 7", "field 'inputs.values'"});
}

TEST(ChakraUtf8, DocStringAndStringListAreTextBytesAreNot) {
    ChakraProtoMsg::Node node;
    node.set_id(7);
    node.set_name("n");
    auto* doc = node.add_attr();
    doc->set_name("a");
    doc->set_doc_string("#doc");
    doc->set_int64_val(1);
    expect_error(write_node("doc.0.et", node, "#doc"), {"node 7", "field 'attr[0].doc_string'"});

    node.clear_attr();
    auto* list = node.add_attr();
    list->set_name("l");
    list->mutable_string_list()->add_values("fine");
    list->mutable_string_list()->add_values("#bad");
    expect_error(write_node("list.0.et", node, "#bad"), {"node 7", "field 'attr[0].string_list'"});

    // A bytes value may hold any byte: protobuf reads it, and so does the reader.
    node.clear_attr();
    auto* raw = node.add_attr();
    raw->set_name("b");
    raw->set_bytes_val("#raw");
    const Flipped f = write_node("bytes.0.et", node, "#raw");
    EXPECT_TRUE(protobuf_accepts_message_at(f.path, f.offset));
    ChakraReadOptions quiet;
    quiet.progress = false;
    EXPECT_EQ(read_chakra(f.path, quiet).nodes.size(), 1u);
}

// The validator itself, on the cases protobuf 3.21 was seen to decide (a probe
// of ParseFromArray on a Node name): RFC 3629, nothing looser.
TEST(Utf8, AcceptsWhatProtobufAcceptsAndNothingElse) {
    for (const char* good : {"", "plain ascii, longer than sixteen bytes", "\xc2\x80", "\xc3\xa9", "\xe0\xa0\x80",
                             "\xed\x9f\xbf", "\xee\x80\x80", "\xef\xbf\xbf", "\xf0\x90\x80\x80", "\xf4\x8f\xbf\xbf"})
        EXPECT_EQ(find_invalid_utf8(good), std::string_view::npos) << good;
    struct Bad {
        std::string text;
        size_t at;
    };
    const Bad bad[] = {
        {"\xc0\x80", 0},          {"\xc1\xbf", 0},         {"\xe0\x80\x80", 0},     {"\xe0\x9f\xbf", 0},
        {"\xed\xa0\x80", 0},      {"\xed\xbf\xbf", 0},     {"\xf0\x80\x80\x80", 0}, {"\xf0\x8f\xbf\xbf", 0},
        {"\xf4\x90\x80\x80", 0},  {"\xf5\x80\x80\x80", 0}, {"\xff", 0},             {"\xfe", 0},
        {"\x80", 0},              {"\xc3", 0},             {"\xe2\x82", 0},         {"\xf0\x9f\x98", 0},
        {"\xc3\x41", 0},          {"\xf8\x88\x80\x80\x80", 0},
        // Past a run of ASCII checked a word at a time, and right after a valid sequence.
        {std::string(37, 'a') + "\xff", 37}, {std::string(16, 'a') + "\xc3\xa9\xff" + std::string(20, 'b'), 18},
    };
    for (const Bad& b : bad) EXPECT_EQ(find_invalid_utf8(b.text), b.at) << b.text.size();
}

// The ASCII screen reads 64, 16 and 8 bytes at a time and the tail by an
// overlapping load: one high byte at any place in texts of every length up to
// past two 64-byte steps is seen, and its absence too.
TEST(Utf8, AsciiScreenSeesOneHighByteAnywhere) {
    for (size_t n = 0; n <= 150; ++n) {
        std::string text(n, 'x');
        ASSERT_TRUE(is_ascii(text.data(), n)) << n;
        for (size_t at = 0; at < n; ++at) {
            text[at] = '\x80';
            ASSERT_FALSE(is_ascii(text.data(), n)) << n << " " << at;
            ASSERT_EQ(find_invalid_utf8(text), at) << n << " " << at;
            text[at] = 'x';
        }
    }
}

}  // namespace
}  // namespace mimic
