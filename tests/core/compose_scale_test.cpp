// mimic scale on a recorded trace where tensor ids alone mislead: a saved
// output that backward reads through a new handle must scale with its producer.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "compose/et_document.h"
#include "compose/json_tree.h"
#include "compose/scale_batch.h"
#include "support/error.h"
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

// One field of a node as JSON text ("output_shapes": "[[12,12]]").
std::string field_text(const JsonValue& node, const char* field) { return compose::to_json_text(*EtDocument::field(node, field)); }

// The nodes named `a` or `b`, in file order.
std::vector<const JsonValue*> nodes_named(const EtDocument& doc, std::string_view a, std::string_view b) {
    std::vector<const JsonValue*> out;
    for (const JsonValue& n : doc.nodes())
        if (EtDocument::name(n) == a || EtDocument::name(n) == b) out.push_back(&n);
    return out;
}

std::string inputs_of(const EtDocument& doc, int64_t id) {
    for (const JsonValue& n : doc.nodes())
        if (EtDocument::id(n) == id) return compose::to_json_text(*EtDocument::field(n, "inputs"));
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

// The input shapes of the first node named `op`.
std::string first_shapes(const EtDocument& doc, std::string_view op) {
    for (const JsonValue& n : doc.nodes())
        if (EtDocument::name(n) == op) return compose::to_json_text(*EtDocument::field(n, "input_shapes"));
    return "no " + std::string(op);
}

std::string first_linear_shapes(const EtDocument& doc) { return first_shapes(doc, "aten::linear"); }

EtDocument recorded(const std::string& name) {
    return EtDocument::read(std::string(MIMIC_SOURCE_DIR) + "/tests/data/scale_1.13/" + name + ".et.json.gz");
}

// Where the step scaled by 2 differs from the same step recorded at twice
// its batch: each node's name, shapes, and each tensor's storage offset and
// element count, in id order. CPU bmm runs one select per matrix below it,
// as many as the batch, so what bmm calls is left out; so is resize_, which
// 1.13 records with the shape its tensor had before.
std::vector<std::string> differences_from_recording(EtDocument& scaled, EtDocument& recorded_at_2b) {
    const auto comparable = [](EtDocument& doc) {
        std::vector<JsonValue*> nodes, out;
        for (JsonValue& n : doc.nodes()) nodes.push_back(&n);
        // By id, so that a parent comes before what it calls.
        std::sort(nodes.begin(), nodes.end(), [](JsonValue* a, JsonValue* b) { return EtDocument::id(*a) < EtDocument::id(*b); });
        std::vector<int64_t> bmm_ids;
        for (JsonValue* n : nodes) {
            const bool under = std::find(bmm_ids.begin(), bmm_ids.end(), doc.parent(*n)) != bmm_ids.end();
            if (under || EtDocument::name(*n) == "aten::bmm") bmm_ids.push_back(EtDocument::id(*n));
            if (!under && EtDocument::name(*n) != "aten::resize_") out.push_back(n);
        }
        return out;
    };
    const auto tensors = [&](EtDocument& doc, JsonValue& n) {
        std::string out;
        for (const compose::EtValues& side : {doc.inputs(n), doc.outputs(n)})
            compose::visit_tensors(side, [&](const compose::EtTensor& t) {
                out += std::to_string(t.value.items()[2].as_int()) + "+" + std::to_string(t.value.items()[3].as_int()) + " ";
            });
        return out;
    };
    std::vector<std::string> out;
    const std::vector<JsonValue*> a = comparable(scaled), b = comparable(recorded_at_2b);
    if (a.size() != b.size()) out.push_back("node counts " + std::to_string(a.size()) + " and " + std::to_string(b.size()));
    for (size_t k = 0; k < std::min(a.size(), b.size()); ++k) {
        const std::string where = "node " + std::to_string(EtDocument::id(*a[k])) + " " + std::string(EtDocument::name(*a[k]));
        if (EtDocument::name(*a[k]) != EtDocument::name(*b[k])) {
            out.push_back(where + ": recorded " + std::string(EtDocument::name(*b[k])));
            break;
        }
        for (const char* field : {"input_shapes", "output_shapes"})
            if (field_text(*a[k], field) != field_text(*b[k], field))
                out.push_back(where + " " + field + ": " + field_text(*a[k], field) + " recorded " + field_text(*b[k], field));
        if (tensors(scaled, *a[k]) != tensors(recorded_at_2b, *b[k]))
            out.push_back(where + " offsets+numels: " + tensors(scaled, *a[k]) + "recorded " + tensors(recorded_at_2b, *b[k]));
    }
    return out;
}

// A recorded fixture scaled by 2 against its recording at 2B (NAME and
// NAME_2x_recorded): scale infers batch B and every node compared matches.
void expect_equal_to_recording_at_twice(const std::string& name, int64_t batch) {
    EtDocument doc = recorded(name);
    EtDocument real = recorded(name + "_2x_recorded");
    EXPECT_EQ(doubled(doc).batch_before, batch);
    const std::vector<std::string> differences = differences_from_recording(doc, real);
    EXPECT_TRUE(differences.empty()) << differences.size() << " differences, first: " << differences.front();
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

// An inference step (torch.inference_mode: no optimizer, no gradient) whose
// convolution has 16 filters and a batch of 16: the layer's schema names its
// weight, bias and running statistics, so only the images grow.
TEST(ComposeScale, AnInferenceStepsLayersKeepTheirShapesWhenTheyMatchTheBatch) {
    EtDocument doc = recorded("inference_mode_eval");
    const compose::ScaleStats stats = doubled(doc);
    EXPECT_EQ(stats.batch_before, 16);
    EXPECT_EQ(stats.data_tensors, 1u);
    EXPECT_EQ(first_shapes(doc, "aten::conv2d").rfind("[[32,3,32,32],[16,3,3,3],[16],", 0), 0u) << first_shapes(doc, "aten::conv2d");
    EXPECT_EQ(first_shapes(doc, "aten::batch_norm").rfind("[[32,16,32,32],[16],[16],[16],[16],", 0), 0u);
    EXPECT_EQ(first_linear_shapes(doc), "[[32,256],[10,256],[10]]");
}

// Labels [32] beside a convolution's bias [32]: of a parameter's shape, but
// read only and leading with the batch, so they are data and grow.
TEST(ComposeScale, LabelsOfABiasShapeAreData) {
    EtDocument doc = recorded("adversarial_fgsm");
    const compose::ScaleStats stats = doubled(doc);
    EXPECT_EQ(stats.batch_before, 32);
    EXPECT_EQ(stats.data_tensors, 2u);
    EXPECT_EQ(first_shapes(doc, "aten::cross_entropy_loss").rfind("[[64,10],[64],", 0), 0u);
}

// Pruning multiplies each weight by a mask buffer of its shape, read first by
// `to`: not data, as it does not lead with the batch.
TEST(ComposeScale, APruningMaskIsNotData) {
    EtDocument doc = recorded("pruned_mlp");
    const compose::ScaleStats stats = doubled(doc);
    EXPECT_EQ(stats.batch_before, 128);
    EXPECT_EQ(stats.data_tensors, 2u);  // the input and the labels
    EXPECT_EQ(first_shapes(doc, "aten::mul"), "[[512,256],[512,256]]");
    EXPECT_EQ(first_linear_shapes(doc), "[[256,256],[512,256],[512]]");
}

// Spectral norm's power-iteration vectors [64] match the batch of 64 but the
// step writes them in place: buffers, not data.
TEST(ComposeScale, BuffersTheStepUpdatesInPlaceAreNotData) {
    EtDocument doc = recorded("spectral_norm_gan");
    const EtDocument before = recorded("spectral_norm_gan");
    const compose::ScaleStats stats = doubled(doc);
    EXPECT_EQ(stats.batch_before, 64);
    EXPECT_EQ(stats.data_tensors, 1u);
    size_t mvs = 0;
    for (size_t i = 0; i < doc.nodes().size(); ++i) {
        if (EtDocument::name(doc.nodes()[i]) != "aten::mv") continue;
        ++mvs;
        EXPECT_EQ(compose::to_json_text(*EtDocument::field(doc.nodes()[i], "input_shapes")),
                  compose::to_json_text(*EtDocument::field(before.nodes()[i], "input_shapes")));
    }
    EXPECT_GT(mvs, 0u);
}

// bucketize's boundaries [17] are the only data of their kind besides the
// embedding's indices [256, 20]: a lookup table, not the batch.
TEST(ComposeScale, BucketBoundariesAreNotTheBatch) {
    EtDocument doc = recorded("sort_search_ops");
    const compose::ScaleStats stats = doubled(doc);
    EXPECT_EQ(stats.batch_before, 256);
    EXPECT_EQ(first_shapes(doc, "aten::bucketize").rfind("[[512,20],[17],", 0), 0u) << first_shapes(doc, "aten::bucketize");
}

// Group norm takes the batch as a number, N, beside C and HxW: N grows with
// the input; the backward's weight and bias gradients [C] stay, though C (8)
// is the batch too.
TEST(ComposeScale, GroupNormsBatchNumberGrowsAndItsChannelGradientsStay) {
    EtDocument doc = recorded("group_norm");
    const compose::ScaleStats stats = doubled(doc);
    EXPECT_EQ(stats.batch_before, 8);
    const auto norms = nodes_named(doc, "aten::native_group_norm", "aten::native_group_norm_backward");
    for (const JsonValue* n : norms) {
        const std::string_view name = EtDocument::name(*n);
        const std::string inputs = compose::to_json_text(*EtDocument::field(*n, "inputs"));
        const std::string outputs = compose::to_json_text(*EtDocument::field(*n, "output_shapes"));
        EXPECT_NE(inputs.find("16,8,16"), std::string::npos) << name << " " << inputs;  // N, C, HxW
        const std::string want = name == "aten::native_group_norm" ? "[[16,8,16],[16,2],[16,2]]" : "[[16,8,16],[8],[8]]";
        EXPECT_EQ(outputs, want) << name;
    }
    EXPECT_EQ(norms.size(), 2u);
}

// CTC's lengths, one per sample, given as integer lists (the observer records
// their values), and the GRU's initial hidden state [1, B, hidden], which
// nn.GRU makes with zeros inside the step (the batch second, from nothing).
TEST(ComposeScale, PerSampleLengthListsAndRnnHiddenStatesFollowTheBatch) {
    EtDocument doc = recorded("ctc_gru");
    const compose::ScaleStats stats = doubled(doc);
    EXPECT_EQ(stats.batch_before, 5);
    const auto ctc = nodes_named(doc, "aten::_ctc_loss", "aten::_ctc_loss_backward");
    for (const JsonValue* n : ctc) {
        const std::string inputs = compose::to_json_text(*EtDocument::field(*n, "inputs"));
        EXPECT_NE(inputs.find("[12,12,12,12,12,12,12,12,12,12]"), std::string::npos) << inputs;
        EXPECT_NE(inputs.find("[4,3,4,2,3,4,3,4,2,3]"), std::string::npos) << inputs;
    }
    EXPECT_EQ(ctc.size(), 2u);
    EXPECT_EQ(first_shapes(doc, "aten::gru").rfind("[[12,10,6],[1,10,10],", 0), 0u) << first_shapes(doc, "aten::gru");
}

// A 3-D pool's backward reshapes and expands to 5-D sizes: integer lists of
// five, which have the form of a tensor value ([id, storage, offset, numel,
// itemsize]); the types say they are lists, and they are rewritten.
TEST(ComposeScale, FiveDimensionalSizeListsAreRewritten) {
    EtDocument doc = recorded("conv3d_pool");
    const compose::ScaleStats stats = doubled(doc);
    EXPECT_EQ(stats.batch_before, 3);
    EXPECT_NE(inputs_of(doc, 147).find("[6,4,1,1,1]"), std::string::npos) << inputs_of(doc, 147);  // reshape
    EXPECT_NE(inputs_of(doc, 151).find("[6,4,4,6,6]"), std::string::npos) << inputs_of(doc, 151);  // expand
}

// Two views of a batch put end to end (torch.cat, as contrastive steps do),
// encoded together, then split back with chunk: the concatenation holds two
// batches, and chunk's narrow and slice bounds move with them.
TEST(ComposeScale, BatchesPutEndToEndAndSplitAgainFollowTheBatch) {
    EtDocument doc = recorded("two_views_cat");
    const compose::ScaleStats stats = doubled(doc);
    EXPECT_EQ(stats.batch_before, 6);
    EXPECT_EQ(first_linear_shapes(doc), "[[24,8],[16,8],[16]]");
    EXPECT_NE(inputs_of(doc, 102).find(",0,12,12]"), std::string::npos) << inputs_of(doc, 102);    // narrow(dim 0, 12, 12)
    EXPECT_NE(inputs_of(doc, 103).find(",0,12,24,1]"), std::string::npos) << inputs_of(doc, 103);  // slice(dim 0, 12, 24)
    EXPECT_EQ(shapes_of(doc, 106).rfind("[[12,4],[12,4],", 0), 0u) << shapes_of(doc, 106);          // cosine_similarity
}

// NAdam's 0-d step scalars come back under the ids and addresses of freed
// activations (1.13 reuses them): a 0-d tensor carries no batch, and the
// update of a [60, 30] weight by one is no batch-carrying op (scale refused it).
TEST(ComposeScale, AZeroDimensionalTensorCarriesNoBatch) {
    EtDocument doc = recorded("nadam_order_stats");
    const compose::ScaleStats stats = doubled(doc);
    EXPECT_EQ(stats.batch_before, 50);
    EXPECT_EQ(shapes_of(doc, 548), "[[60,30],[]]");  // NAdam's mul_ of a weight
    EXPECT_EQ(first_linear_shapes(doc), "[[100,30],[60,30],[60]]");
}

// A spatial transformer: affine_grid_generator takes the images' size
// [N, C, H, W] as a list beside theta [N, 2, 3]; its N is the batch.
TEST(ComposeScale, AffineGridsSizeListLeadsWithTheBatch) {
    EtDocument doc = recorded("spatial_transformer");
    const compose::ScaleStats stats = doubled(doc);
    EXPECT_EQ(stats.batch_before, 16);
    for (const JsonValue* n : nodes_named(doc, "aten::affine_grid_generator", "aten::affine_grid_generator_backward")) {
        const std::string inputs = compose::to_json_text(*EtDocument::field(*n, "inputs"));
        EXPECT_NE(inputs.find("[32,1,28,28]"), std::string::npos) << EtDocument::name(*n) << " " << inputs;
    }
    EXPECT_EQ(nodes_named(doc, "aten::affine_grid_generator", "aten::affine_grid_generator_backward").size(), 2u);
}

// Sequences of different lengths given as a list (pack_sequence pads them
// in the step): the batch is the list's length, no dimension of a tensor.
// Scale says so, naming the node, instead of taking another size for it.
// The error scale refuses a recorded fixture with ("" when it scaled it).
std::string refusal_of(const std::string& name) {
    EtDocument doc = recorded(name);
    try {
        doubled(doc);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

TEST(ComposeScale, AListOfSequencesIsRefusedByName) {
    const std::string what = refusal_of("packed_list");
    EXPECT_NE(what.find("node 40"), std::string::npos) << what;
    EXPECT_NE(what.find("pads a list of 3 sequences (aten::pad_sequence)"), std::string::npos) << what;
}

// Sequences of lengths 5, 2, 4 and 3 packed for an LSTM: its backward runs
// each time step on the sequences still running (4, 4, 3, 2, 1 rows), counts
// the lengths' values make. Scaled as shapes, 30% of the ops of such a step
// did not replay; scale refuses it by name.
TEST(ComposeScale, PackedSequencesAreRefusedByName) {
    const std::string what = refusal_of("packed_lengths");
    EXPECT_NE(what.find("node 77"), std::string::npos) << what;
    EXPECT_NE(what.find("packs sequences of different lengths (aten::_pack_padded_sequence)"), std::string::npos) << what;
}

// A Fourier layer keeping 4 modes of a batch of 4: einsum reshapes the
// spectrum [x*y, B, C] to [x, y, B, C] and permutes it back, so the batch must
// stay where as many elements lie below it, not at the first dimension of its
// size; and the slow convolution's weight and bias gradients [3, 1, 1, 1] and
// [3] (one short of the batch) are no batch.
TEST(ComposeScale, ARegroupedBatchStaysWhereItsElementsLie) {
    EtDocument doc = recorded("spectral_modes");
    const compose::ScaleStats stats = doubled(doc);
    EXPECT_EQ(stats.batch_before, 4);
    const auto slices = nodes_named(doc, "aten::slice_backward", "aten::slice_backward");
    ASSERT_FALSE(slices.empty());
    for (const JsonValue* n : slices) {
        const std::string shapes = field_text(*n, "input_shapes");
        EXPECT_EQ(shapes.rfind("[[8,3,", 0), 0u) << shapes;
    }
    const auto convs = nodes_named(doc, "aten::_slow_conv2d_backward", "aten::_slow_conv2d_backward");
    ASSERT_EQ(convs.size(), 1u);
    EXPECT_EQ(field_text(*convs[0], "output_shapes"), "[[],[3,1,1,1],[3]]");
}

// Rows a mask over the batch selects (emb(ids)[keep]: 19 of 30) are as many
// as the data made: twice the batch selects twice as many; unique's distinct
// ids among them (13) grow as draws from a set of values do, not in
// proportion; and the mean's backward expands its gradient to those counts.
TEST(ComposeScale, RowsAMaskSelectsAndTheirDistinctValuesGrowWithTheBatch) {
    EtDocument doc = recorded("masked_rows");
    const compose::ScaleStats stats = doubled(doc);
    EXPECT_EQ(stats.batch_before, 6);
    const auto selections = nodes_named(doc, "aten::index", "aten::index");
    ASSERT_EQ(selections.size(), 3u);
    EXPECT_EQ(field_text(*selections[0], "output_shapes"), "[[38,8]]");
    for (size_t k = 1; k < selections.size(); ++k)
        EXPECT_EQ(field_text(*selections[k], "output_shapes"), "[[38]]");
    const auto unique = nodes_named(doc, "aten::_unique2", "aten::_unique2");
    ASSERT_EQ(unique.size(), 1u);
    EXPECT_EQ(field_text(*unique[0], "output_shapes"), "[[18],[0],[0]]");
    EXPECT_EQ(first_shapes(doc, "aten::linear"), "[[38,8],[40,8],[40]]");
    const auto expands = nodes_named(doc, "aten::expand", "aten::expand");
    ASSERT_FALSE(expands.empty());
    EXPECT_EQ(compose::to_json_text(*EtDocument::field(*expands.back(), "output_shapes")), "[[18,8]]");  // mean's backward
}

// e @ e.t(): a [6, 6] matrix between every two samples (a triplet loss mining
// its hardest positive). Both of its sides are the batch and grow; a top-k
// along one side leaves the other.
TEST(ComposeScale, AMatrixBetweenEveryTwoSamplesGrowsOnBothSides) {
    EtDocument doc = recorded("pairwise_similarity");
    const compose::ScaleStats stats = doubled(doc);
    EXPECT_EQ(stats.batch_before, 6);
    const auto products = nodes_named(doc, "aten::matmul", "aten::topk");
    ASSERT_EQ(products.size(), 2u);
    EXPECT_EQ(field_text(*products[0], "output_shapes"), "[[12,12]]");
    EXPECT_EQ(field_text(*products[1], "input_shapes").rfind("[[12,12],", 0), 0u);
    EXPECT_EQ(field_text(*products[1], "output_shapes"), "[[12,2],[12,2]]");
}

// adj @ lin(x): a graph's adjacency over its 6 nodes comes in with the step,
// the nodes being the batch. Nothing says its second side is the batch too
// (it could be [B, features]), so scale refuses, naming the product.
TEST(ComposeScale, AMatrixOverTheSamplesGivenAsDataIsRefusedByName) {
    const std::string what = refusal_of("graph_adjacency");
    EXPECT_NE(what.find("node 38"), std::string::npos) << what;
    EXPECT_NE(what.find("'aten::matmul' multiplies the batch by a 6 x 6 matrix"), std::string::npos) << what;
}

// nn.MultiheadAttention's default layout: the input [T=3, B=4, 16] beside
// labels [4]. The batch is the size every input holds (not the one the
// activations lead with), and the heads' reshape of [3, 4, 16] to
// [3, 16, 4] (batch x heads, a head's width equal to the batch) is no
// permutation: the batch is the 16. The input projection's bias broadcast
// to its [T x B, 48] rows and layer norm's flat [T x B] statistics hold the
// batch as the results they are made for.
TEST(ComposeScale, ASequenceFirstAttentionStepEqualsItsRecordingAtTwiceTheBatch) {
    expect_equal_to_recording_at_twice("seqfirst_attention", 4);
}

// Two views stacked on the batch ([2B, 6]) and cut apart again: z[:B] and
// z[B:] (the second at an offset of B rows), chunk(4) (quarters of 2B) and
// split(B // 2), then their backward (slice_backward's zeros of the whole,
// chunk's zeros for the quarters the loss did not read).
TEST(ComposeScale, PiecesOfTheBatchEqualTheirRecordingAtTwiceTheBatch) { expect_equal_to_recording_at_twice("batch_pieces", 8); }

// nn.GRU over [T=4, B=8, 5]: the input's projection [32, 21] with its bias
// broadcast to it, each step a view of [8, 21] at an offset of whole rows,
// and out[:, :B // 2], half the batch at any batch.
TEST(ComposeScale, ARecurrentStepsRowViewsEqualTheirRecordingAtTwiceTheBatch) {
    expect_equal_to_recording_at_twice("gru_rows", 8);
}

// PyTorch's word-language-model example: tokens [T=3, B=4] into an
// embedding and a sequence-first LSTM, targets data[1:] flattened to [12],
// the shape of the LSTM's biases. The LSTM's batch_first flag says which
// dimension is the batch, the loss's target is data though it has a bias's
// shape, and the targets' offset in the token table (one row of B) grows.
TEST(ComposeScale, ASequenceFirstLanguageModelEqualsItsRecordingAtTwiceTheBatch) {
    expect_equal_to_recording_at_twice("word_lm", 4);
}

// nn.Transformer in its sequence-first layout: source tokens [5, B] and
// target tokens [6, B] are both embedding indices, and the one other input
// (the targets before they are shifted) leads with 6. The batch is the size
// every input holds, embedding indices included.
TEST(ComposeScale, ASequenceFirstTranslationStepEqualsItsRecordingAtTwiceTheBatch) {
    expect_equal_to_recording_at_twice("translation", 4);
}

}  // namespace
}  // namespace mimic
