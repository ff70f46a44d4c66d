// The Chakra reader's dependency check counts the same dependencies on
// absent nodes whatever the spread of the node ids: dense (one bitmap),
// runs far apart (per-block bitmaps) or scattered (the id index).
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "et_def.pb.h"
#include "io/chakra/chakra_reader.h"
#include "test_support.h"

namespace mimic {
namespace {

std::string framed(const google::protobuf::MessageLite& m) {
    const std::string body = m.SerializeAsString();
    std::string out;
    uint64_t n = body.size();
    for (; n >= 0x80; n >>= 7) out += static_cast<char>((n & 0x7f) | 0x80);
    out += static_cast<char>(n);
    return out + body;
}

// A trace of nodes with `ids`, each depending on the one before it, the
// first also on each of `extra`; returns its warnings, one per line.
std::string warnings_of(const std::string& name, const std::vector<uint64_t>& ids, const std::vector<uint64_t>& extra) {
    ChakraProtoMsg::GlobalMetadata meta;
    meta.set_version("0.0.4");
    std::string bytes = framed(meta);
    for (size_t i = 0; i < ids.size(); ++i) {
        ChakraProtoMsg::Node n;
        n.set_id(ids[i]);
        n.set_name("n");
        n.set_type(ChakraProtoMsg::COMP_NODE);
        if (i > 0) n.add_data_deps(ids[i - 1]);
        if (i == 0)
            for (uint64_t e : extra) n.add_ctrl_deps(e);
        bytes += framed(n);
    }
    const std::string path = testing::scratch_dir("chakra_reader_deps") + "/" + name;
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    ChakraReadOptions quiet;
    quiet.progress = false;
    std::string all;
    for (const TraceWarning& w : read_chakra(path, quiet).warnings) all += w.message + "\n";
    return all;
}

TEST(ChakraReaderDeps, DenseIds) {
    std::vector<uint64_t> ids;
    for (uint64_t i = 1; i <= 300; ++i) ids.push_back(i);
    EXPECT_EQ(warnings_of("dense.0.et", ids, {}), "");
    EXPECT_EQ(warnings_of("dense_missing.0.et", ids, {301, 5000}),
              "2 dependencies name nodes that are not in the trace (first: node 1 depends on 301)\n");
}

// Two runs a billion apart, as when traces are merged: too sparse for one
// bitmap; an absent id inside a run's block and one in no block at all.
TEST(ChakraReaderDeps, RunsFarApart) {
    std::vector<uint64_t> ids;
    for (uint64_t i = 1; i <= 300; ++i) ids.push_back(i);
    for (uint64_t i = 1; i <= 300; ++i) ids.push_back(1000000000 + i);
    EXPECT_EQ(warnings_of("runs.0.et", ids, {1000000300}), "");
    EXPECT_EQ(warnings_of("runs_missing.0.et", ids, {1000000301, 5000000000, 300}),
              "2 dependencies name nodes that are not in the trace (first: node 1 depends on 1000000301)\n");
}

// Every id in a block of its own: the per-block bitmaps would cost more than
// the index, which answers instead.
TEST(ChakraReaderDeps, ScatteredIds) {
    std::vector<uint64_t> ids;
    for (uint64_t i = 1; i <= 300; ++i) ids.push_back(i * 1000003);
    EXPECT_EQ(warnings_of("scattered.0.et", ids, {1000003 * 7}), "");
    EXPECT_EQ(warnings_of("scattered_missing.0.et", ids, {7, 1000003 * 301}),
              "2 dependencies name nodes that are not in the trace (first: node 1000003 depends on 7)\n");
}

}  // namespace
}  // namespace mimic
