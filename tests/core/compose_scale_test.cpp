// mimic scale on a recorded trace where tensor ids alone mislead: a saved
// output that backward reads through a new handle must scale with its producer.
#include <gtest/gtest.h>

#include <string>

#include "compose/et_document.h"
#include "compose/json_tree.h"
#include "compose/scale_batch.h"
#include "recorded_et_samples.h"
#include "test_support.h"

namespace mimic {
namespace {

using compose::EtDocument;
using compose::JsonValue;

std::string shapes_of(const EtDocument& doc, int64_t id) {
    for (const JsonValue& n : doc.nodes())
        if (EtDocument::id(n) == id) return compose::to_json_text(*EtDocument::field(n, "input_shapes"));
    return "no node " + std::to_string(id);
}

TEST(ComposeScale, ASavedOutputReadThroughANewHandleScalesWithItsProducer) {
    const std::string path =
        testing::scratch_file("compose_scale", "saved_output.json", testing::kEtSavedOutputHandleSharesAGradientsKey);
    EtDocument doc = EtDocument::read(path);
    compose::ScaleOptions options;
    options.factor = 2;
    const compose::ScaleStats stats = compose::scale_batch(doc, options);
    EXPECT_EQ(stats.batch_before, 16);
    EXPECT_EQ(stats.batch_after, 32);
    EXPECT_EQ(shapes_of(doc, 189), "[[32,10],[],[]]");
    // Both the gradient and log_softmax's output, though the output's handle
    // (198, 191) is also the key of a bias gradient the engine accumulates later.
    EXPECT_EQ(shapes_of(doc, 212), "[[32,10],[32,10],[],[]]");
    EXPECT_EQ(shapes_of(doc, 242), "[[10]]");
}

}  // namespace
}  // namespace mimic
