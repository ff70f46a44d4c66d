#include "support/json_stream.h"

#include <gtest/gtest.h>

#include <fstream>

#include "support/error.h"
#include "test_support.h"

namespace mimic {
namespace {

std::string write_temp(const std::string& name, const std::string& text) {
    std::string path = testing::scratch_dir("json_stream") + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

struct Collected {
    std::vector<std::pair<std::string, std::string>> fields;
    std::vector<std::string> elements;
    size_t batches = 0;
};

Collected stream(const std::string& path, size_t batch_bytes = 16) {
    Collected out;
    ByteSource src(path);
    JsonStreamer streamer(src, batch_bytes);
    JsonStreamCallbacks cb;
    cb.stream_key = [](std::string_view k) { return k == "nodes" || k.empty(); };
    cb.on_field = [&](std::string_view k, std::string_view v, uint64_t) { out.fields.emplace_back(k, v); };
    cb.on_batch = [&](std::string_view, std::string_view batch, const std::vector<uint32_t>& starts,
                      const std::vector<uint64_t>& offsets) {
        ++out.batches;
        EXPECT_EQ(batch.front(), '[');
        EXPECT_EQ(batch.back(), ']');
        EXPECT_EQ(starts.size(), offsets.size());
        for (size_t i = 0; i < starts.size(); ++i) {
            size_t end = i + 1 < starts.size() ? starts[i + 1] - 1 : batch.size() - 1;
            out.elements.emplace_back(batch.substr(starts[i], end - starts[i]));
        }
    };
    streamer.run(cb);
    return out;
}

TEST(JsonStream, SplitsArrayIntoBatchesOfWholeElements) {
    auto path = write_temp("a.json",
                           R"({"schema": "1.0.1", "nodes": [{"a": "x,]}"}, {"b": [1, 2, {"c": "\"}"}]}, 3, "s"],)"
                           R"( "finish_ts": 12})");
    auto got = stream(path);
    ASSERT_EQ(got.fields.size(), 2u);
    EXPECT_EQ(got.fields[0].first, "schema");
    EXPECT_EQ(got.fields[0].second, "\"1.0.1\"");
    EXPECT_EQ(got.fields[1].second, "12");
    ASSERT_EQ(got.elements.size(), 4u);
    EXPECT_EQ(got.elements[0], R"({"a": "x,]}"})");
    EXPECT_EQ(got.elements[1], R"({"b": [1, 2, {"c": "\"}"}]})");
    EXPECT_EQ(got.elements[2], "3");
    EXPECT_EQ(got.elements[3], "\"s\"");
    EXPECT_GE(got.batches, 2u);
}

TEST(JsonStream, TopLevelArray) {
    auto got = stream(write_temp("b.json", "[1,{\"x\":2}]"));
    ASSERT_EQ(got.elements.size(), 2u);
}

TEST(JsonStream, TruncatedInputNamesTheOffset) {
    auto path = write_temp("c.json", R"({"nodes": [{"a": 1}, {"b": )");
    try {
        stream(path);
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("c.json"), std::string::npos) << e.what();
    }
}

TEST(JsonStream, EmptyAndGarbageInputsAreErrors) {
    EXPECT_THROW(stream(write_temp("d.json", "")), Error);
    EXPECT_THROW(stream(write_temp("e.json", "   \n")), Error);
    EXPECT_THROW(stream(write_temp("f.json", "{\"a\": 1} x")), Error);
    EXPECT_THROW(stream(write_temp("g.json", "hello")), Error);
    EXPECT_THROW(stream(write_temp("h.json", "{\"a\" 1}")), Error);
}

}  // namespace
}  // namespace mimic
