// The JSON writer (escaping, nesting, numbers) and the analysis report as
// JSON, read back with simdjson.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <limits>

#include "analysis/report.h"
#include "analysis/report_json.h"
#include "analysis/report_table.h"
#include "io/trace_loader.h"
#include "support/error.h"
#include "support/json_writer.h"
#include "test_support.h"

namespace mimic {
namespace {

TEST(JsonWriter, NestsAndPlacesCommas) {
    JsonWriter w(0);
    w.begin_object().field("a", 1).key("b").begin_array().value(true).null().value("x").end_array();
    w.key("c").begin_object().end_object().key("d").begin_array().end_array().end_object();
    EXPECT_TRUE(w.complete());
    EXPECT_EQ(w.str(), R"({"a":1,"b":[true,null,"x"],"c":{},"d":[]})");
}

TEST(JsonWriter, IndentsWhenAsked) {
    JsonWriter w(2);
    w.begin_object().field("a", 1).key("b").begin_array().value(2).end_array().end_object();
    EXPECT_EQ(w.str(), "{\n  \"a\": 1,\n  \"b\": [\n    2\n  ]\n}");
}

TEST(JsonWriter, EscapesStringsAndReplacesInvalidUtf8) {
    EXPECT_EQ(json_quote("a\"b\\c"), R"("a\"b\\c")");
    EXPECT_EQ(json_quote("line\nnext\ttab"), R"("line\nnext\ttab")");
    EXPECT_EQ(json_quote(std::string("\x01\x1f", 2)), R"("\u0001\u001f")");
    EXPECT_EQ(json_quote("caf\xc3\xa9 \xe2\x82\xac"), "\"caf\xc3\xa9 \xe2\x82\xac\"");  // valid UTF-8 kept
    EXPECT_EQ(json_quote("bad \xff end"), R"("bad \ufffd end")");
    EXPECT_EQ(json_quote("\xc0\xaf"), R"("\ufffd\ufffd")");        // overlong '/'
    EXPECT_EQ(json_quote("\xed\xa0\x80"), R"("\ufffd\ufffd\ufffd")");  // a surrogate
    EXPECT_EQ(json_quote("cut \xe2\x82"), R"("cut \ufffd\ufffd")");   // truncated sequence
    EXPECT_EQ(json_quote(std::string("nul\0in", 6)), R"("nul\u0000in")");
}

TEST(JsonWriter, WritesNumbersExactly) {
    JsonWriter w(0);
    w.begin_array();
    w.value(int64_t{-9223372036854775807LL - 1}).value(uint64_t{18446744073709551615ULL});
    w.value(0.1).value(1e300).value(2.0).value(std::nan("")).value(std::numeric_limits<double>::infinity());
    w.end_array();
    EXPECT_EQ(w.str(), "[-9223372036854775808,18446744073709551615,0.1,1e+300,2,null,null]");
}

TEST(JsonWriter, RejectsMisuse) {
    JsonWriter a;
    a.begin_object();
    EXPECT_THROW(a.value(1), Error);  // a value with no key
    JsonWriter b;
    EXPECT_THROW(b.key("k"), Error);  // a key outside an object
    JsonWriter c;
    c.begin_array();
    EXPECT_THROW(c.end_object(), Error);
    JsonWriter d;
    d.value(1);
    EXPECT_THROW(d.value(2), Error);  // two top-level values
}

// The report as JSON: the keys scripts rely on, with the values analyze() gave.
TEST(ReportJson, CarriesTheReportOnResnet) {
    MIMIC_REQUIRE_TRACE("pytorch/resnet_et.json.gz");
    const analysis::Report r = analysis::analyze(load_trace(testing::trace_path("pytorch/resnet_et.json.gz")));
    const std::string text = analysis::report_to_json(r, 5);
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(text).get(doc), simdjson::SUCCESS) << text;
    EXPECT_EQ(std::string_view(doc["schema_version"].get_string().value()), "1.1.0-chakra.0.0.4");
    EXPECT_EQ(doc["nodes"].get_uint64().value(), 14392u);
    EXPECT_EQ(doc["operators"].get_uint64().value(), r.operators);
    EXPECT_FALSE(doc["timed"].get_bool().value());
    uint64_t count_sum = 0;
    for (auto [key, value] : doc["categories"].get_object()) {
        count_sum += value["count"].get_uint64().value();
        EXPECT_EQ(value["self_us"].get_double().value(), 0.0) << key;  // untimed
    }
    EXPECT_EQ(count_sum, 14392u);
    EXPECT_EQ(doc["iterations"].get_array().size(), 3u);
    EXPECT_EQ(doc["top_operators"].get_array().size(), 5u);
    EXPECT_EQ(std::string_view(doc["top_operators"].at(0)["name"].get_string().value()), "aten::empty");
    EXPECT_EQ(doc["top_operators"].at(0)["count"].get_uint64().value(), 1590u);
    EXPECT_EQ(doc["collectives"].get_array().size(), 2u);
    auto replay = doc["replayable"];
    // Every top-level op: the 6 record_param_comms with no schema are collectives a multi-rank replay runs.
    EXPECT_EQ(replay["ops"].get_uint64().value(), 3711u);
    EXPECT_EQ(replay["total"].get_uint64().value(), 3711u);
    EXPECT_EQ(replay["collectives"].get_uint64().value(), 27u);
    EXPECT_NEAR(replay["share"].get_double().value(), 1.0, 1e-12);
    EXPECT_TRUE(doc["link"].is_null());
}

TEST(ReportTable, NamesEverySection) {
    MIMIC_REQUIRE_TRACE("pytorch/resnet_et.json.gz");
    const analysis::Report r = analysis::analyze(load_trace(testing::trace_path("pytorch/resnet_et.json.gz")));
    const std::string table = analysis::report_to_table(r, 5);
    for (const char* part : {"nodes 14392", "Categories", "aten", "communication", "ProfilerStep#7", "Top 5 operators",
                             "aten::empty", "all_reduce", "292.5 MiB", "Replayable: 3711 of 3711"})
        EXPECT_NE(table.find(part), std::string::npos) << part << "\n" << table;
}

}  // namespace
}  // namespace mimic
