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

// The step at twice its batch, inferred as scale infers it.
compose::ScaleStats doubled(EtDocument& doc) {
    compose::ScaleOptions options;
    options.factor = 2;
    return compose::scale_batch(doc, options);
}

TEST(ComposeScale, ASavedOutputReadThroughANewHandleScalesWithItsProducer) {
    const std::string path =
        testing::scratch_file("compose_scale", "saved_output.json", testing::kEtSavedOutputHandleSharesAGradientsKey);
    EtDocument doc = EtDocument::read(path);
    const compose::ScaleStats stats = doubled(doc);
    EXPECT_EQ(stats.batch_before, 16);
    EXPECT_EQ(stats.batch_after, 32);
    EXPECT_EQ(shapes_of(doc, 189), "[[32,10],[],[]]");
    // Both the gradient and log_softmax's output, though the output's handle
    // (198, 191) is also the key of a bias gradient the engine accumulates later.
    EXPECT_EQ(shapes_of(doc, 212), "[[32,10],[32,10],[],[]]");
    EXPECT_EQ(shapes_of(doc, 242), "[[10]]");
}

// param's 8-rank DLRM (facebookresearch/param et_replay/tests/inputs, ET
// 1.0.1 on GPUs): fbgemm's table-batched lookup reads its tables (one flat
// [640649648]), per-table offsets and placements besides the batch's
// indices and offsets. Only those two grow; an empty tensor aten::set_
// fills stays empty.
TEST(ComposeScale, FbgemmTableBatchedLookupScalesItsIndicesAndOffsetsNotItsTables) {
    EtDocument doc = EtDocument::read(std::string(MIMIC_SOURCE_DIR) + "/tests/data/param_dlrm/dlrm_eg_0.json.gz");
    const compose::ScaleStats stats = doubled(doc);
    EXPECT_EQ(stats.batch_before, 16);
    EXPECT_EQ(stats.batch_after, 32);
    EXPECT_EQ(stats.batch_values, "16");
    const std::string lookup = shapes_of(doc, 712);
    EXPECT_EQ(lookup.rfind("[[0],[640649648],[0],[0,0],[3],[3],[4],[],[],[4],[],[1536],[769],", 0), 0u) << lookup;
    EXPECT_EQ(shapes_of(doc, 492).rfind("[[0],", 0), 0u) << shapes_of(doc, 492);
}

// The first `aten::linear` node's input shapes.
std::string first_linear_shapes(const EtDocument& doc) {
    for (const JsonValue& n : doc.nodes())
        if (EtDocument::name(n) == "aten::linear") return compose::to_json_text(*EtDocument::field(n, "input_shapes"));
    return "no aten::linear";
}

// L-BFGS runs the forward and backward of its closure inside its own
// Optimizer.step label: what those ops read is data, not optimizer state.
TEST(ComposeScale, AClosureInsideTheOptimizerStepReadsData) {
    EtDocument doc = EtDocument::read(std::string(MIMIC_SOURCE_DIR) + "/tests/data/scale_1.13/lbfgs_closure.et.json.gz");
    const compose::ScaleStats stats = doubled(doc);
    EXPECT_EQ(stats.batch_before, 12);
    EXPECT_EQ(stats.data_tensors, 2u);  // the input and the target
    EXPECT_EQ(first_linear_shapes(doc), "[[24,6],[12,6],[12]]");  // the input grows, the weight of its shape stays
}

// Images [4, ...] and a noise schedule [50], one vote each: the batch is the
// size the step's tensors lead with.
TEST(ComposeScale, OfTwoDataSizesTheOneTheActivationsLeadWithIsTheBatch) {
    EtDocument doc = EtDocument::read(std::string(MIMIC_SOURCE_DIR) + "/tests/data/scale_1.13/noise_table.et.json.gz");
    const compose::ScaleStats stats = doubled(doc);
    EXPECT_EQ(stats.batch_before, 4);
    EXPECT_EQ(stats.batch_after, 8);
}

}  // namespace
}  // namespace mimic
