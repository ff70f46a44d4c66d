// Valid values for data-dependent inputs: indices inside the indexed range,
// monotone bag offsets, loss targets below the class count, max-pool indices
// from the forward op. Each op is planned and run; the values it got are read
// back from the plan.
#include <gtest/gtest.h>

#include <algorithm>

#include <ATen/core/Tensor.h>
#include <ATen/ops/_unique.h>
#include <ATen/ops/unique_consecutive.h>
#include <ATen/ops/arange.h>

#include "replay/replayer.h"
#include "replay/exec/valid_values.h"
#include "replay_once.h"
#include "replay_test_trace.h"

namespace mimic::replay {
namespace {

using testing::TestTrace;

const char* kEmbeddingBag =
    "aten::embedding_bag.padding_idx(Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq, int mode, "
    "bool sparse, Tensor? per_sample_weights, bool include_last_offset, int? padding_idx) -> (Tensor, Tensor, Tensor, Tensor)";

std::unique_ptr<Replayer> replay(const Trace& trace) { return testing::replay_once(trace); }
std::string skips(const Replayer& r) { return testing::skipped_ops(r); }

TEST(ReplayValidValues, BagOffsetsAreMonotoneFromZero) {
    EXPECT_EQ(bag_offsets(4, 10, false), (std::vector<int64_t>{0, 2, 5, 7}));
    EXPECT_EQ(bag_offsets(4, 10, true), (std::vector<int64_t>{0, 2, 5, 7, 10}));
    EXPECT_EQ(bag_offsets(3, 0, false), (std::vector<int64_t>{0, 0, 0}));
    EXPECT_TRUE(bag_offsets(0, 5, false).empty());
}

void check_embedding_bag(bool include_last) {
    TestTrace b;
    const int64_t rows = 7, n = 50, bags = include_last ? 9 : 8;
    b.op("aten::embedding_bag", kEmbeddingBag,
         {b.tensor({rows, 4}, "float", 10), b.tensor({n}, "long int", 11), b.tensor({bags}, "long int", 12),
          TestTrace::boolean(false), TestTrace::integer(0), TestTrace::boolean(false), TestTrace::none(),
          TestTrace::boolean(include_last), TestTrace::integer(-1)},
         {b.tensor({include_last ? bags - 1 : bags, 4}, "float", 13)});
    Trace trace = b.finish();
    auto r = replay(trace);
    ASSERT_EQ(r->replayed_count(), 1u) << skips(*r);
    const Step& s = r->steps()[0];
    at::Tensor idx = s.args[1].toTensor(), offs = s.args[2].toTensor();
    EXPECT_GE(idx.min().item<int64_t>(), 0);
    EXPECT_LT(idx.max().item<int64_t>(), rows);
    ASSERT_EQ(offs.numel(), bags);
    EXPECT_EQ(offs[0].item<int64_t>(), 0);
    for (int64_t i = 1; i < bags; ++i) EXPECT_GE(offs[i].item<int64_t>(), offs[i - 1].item<int64_t>());
    EXPECT_LE(offs[bags - 1].item<int64_t>(), n);
    if (include_last) EXPECT_EQ(offs[bags - 1].item<int64_t>(), n);
}

TEST(ReplayValidValues, EmbeddingBag) { check_embedding_bag(false); }

// CTC's backward indexes log_alpha by each sample's target length and takes
// as many lengths as it is given: lists that do not fit the batch (a trace
// scaled without them) would read past its tensors. The lists get one entry
// per sample, the targets labels other than the blank.
TEST(ReplayValidValues, CtcLossBackwardLengthsFitTheBatch) {
    TestTrace b;
    const int64_t steps = 6, batch = 4, classes = 5, labels = 3;
    b.op("aten::_ctc_loss_backward",
         "aten::_ctc_loss_backward(Tensor grad, Tensor log_probs, Tensor targets, int[] input_lengths, int[] target_lengths, "
         "Tensor neg_log_likelihood, Tensor log_alpha, int blank, bool zero_infinity=False) -> Tensor",
         {b.tensor({batch}, "float", 30), b.tensor({steps, batch, classes}, "float", 31), b.tensor({batch, labels}, "long int", 32),
          b.ints({steps, steps}), b.ints({3, 2}), b.tensor({batch}, "float", 33), b.tensor({batch, steps, 2 * labels + 1}, "float", 34),
          TestTrace::integer(0), TestTrace::boolean(false)},
         {b.tensor({steps, batch, classes}, "float", 35)});
    Trace trace = b.finish();
    auto r = replay(trace);
    ASSERT_EQ(r->replayed_count(), 1u) << skips(*r);
    const Step& s = r->steps()[0];
    EXPECT_EQ(s.args[3].toIntVector(), std::vector<int64_t>(batch, steps));
    const std::vector<int64_t> target_lengths = s.args[4].toIntVector();
    ASSERT_EQ(target_lengths.size(), size_t(batch));
    EXPECT_EQ(*std::max_element(target_lengths.begin(), target_lengths.end()), labels);  // log_alpha's width
    at::Tensor targets = s.args[2].toTensor();
    EXPECT_GE(targets.min().item<int64_t>(), 1);  // never the blank
    EXPECT_LT(targets.max().item<int64_t>(), classes);
}

// Lists that fit are the original's values and stay.
TEST(ReplayValidValues, CtcLossKeepsRecordedLengthsThatFit) {
    TestTrace b;
    b.op("aten::_ctc_loss",
         "aten::_ctc_loss(Tensor log_probs, Tensor targets, int[] input_lengths, int[] target_lengths, int blank=0, "
         "bool zero_infinity=False) -> (Tensor, Tensor)",
         {b.tensor({8, 3, 6}, "float", 40), b.tensor({3, 4}, "long int", 41), b.ints({8, 7, 8}), b.ints({4, 2, 3}),
          TestTrace::integer(0), TestTrace::boolean(false)},
         {b.tensor({3}, "float", 42), b.tensor({3, 8, 9}, "float", 43)});
    Trace trace = b.finish();
    auto r = replay(trace);
    ASSERT_EQ(r->replayed_count(), 1u) << skips(*r);
    EXPECT_EQ(r->steps()[0].args[2].toIntVector(), (std::vector<int64_t>{8, 7, 8}));
    EXPECT_EQ(r->steps()[0].args[3].toIntVector(), (std::vector<int64_t>{4, 2, 3}));
}

TEST(ReplayValidValues, EmbeddingBagIncludeLastOffset) { check_embedding_bag(true); }

TEST(ReplayValidValues, EmbeddingBagBackwardAgreesWithForward) {
    TestTrace b;
    const int64_t rows = 9, n = 30, bags = 6, dim = 4;
    b.op("aten::_embedding_bag_backward",
         "aten::_embedding_bag_backward(Tensor grad, Tensor indices, Tensor offsets, Tensor offset2bag, Tensor bag_size, "
         "Tensor maximum_indices, SymInt num_weights, bool scale_grad_by_freq, int mode, bool sparse, "
         "Tensor? per_sample_weights, int padding_idx=-1) -> Tensor",
         {b.tensor({bags, dim}, "float", 20), b.tensor({n}, "long int", 21), b.tensor({bags}, "long int", 22),
          b.tensor({n}, "long int", 23), b.tensor({bags}, "long int", 24), b.tensor({bags}, "long int", 25),
          TestTrace::integer(rows), TestTrace::boolean(false), TestTrace::integer(0), TestTrace::boolean(false),
          TestTrace::none(), TestTrace::integer(-1)},
         {b.tensor({rows, dim}, "float", 26)});
    Trace trace = b.finish();
    auto r = replay(trace);
    ASSERT_EQ(r->replayed_count(), 1u) << skips(*r);
    const Step& s = r->steps()[0];
    EXPECT_LT(s.args[1].toTensor().max().item<int64_t>(), rows);
    // offset2bag is what the forward returns on this device: empty on the CPU's
    // sum fast path, else one existing bag per index.
    at::Tensor offset2bag = s.args[3].toTensor();
    if (offset2bag.numel() > 0) EXPECT_LT(offset2bag.max().item<int64_t>(), bags);
    EXPECT_EQ(s.args[4].toTensor().numel(), bags);  // bag_size
}

TEST(ReplayValidValues, NllLossTargetsBelowClassCount) {
    TestTrace b;
    const int64_t batch = 16, classes = 5;
    Value input = b.tensor({batch, classes}, "float", 30);
    b.op("aten::nll_loss_nd",
         "aten::nll_loss_nd(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean, SymInt ignore_index=-100) -> Tensor",
         {input, b.tensor({batch}, "long int", 31), TestTrace::none(), TestTrace::integer(1), TestTrace::integer(-100)},
         {b.tensor({}, "float", 32)});
    b.op("aten::nll_loss_backward",
         "aten::nll_loss_backward(Tensor grad_output, Tensor self, Tensor target, Tensor? weight, int reduction, "
         "SymInt ignore_index, Tensor total_weight) -> Tensor",
         {b.tensor({}, "float", 33), b.same(input), b.tensor({batch}, "long int", 34), TestTrace::none(),
          TestTrace::integer(1), TestTrace::integer(-100), b.tensor({}, "float", 35)},
         {b.tensor({batch, classes}, "float", 36)});
    Trace trace = b.finish();
    auto r = replay(trace);
    ASSERT_EQ(r->replayed_count(), 2u) << skips(*r);
    EXPECT_LT(r->steps()[0].args[1].toTensor().max().item<int64_t>(), classes);
    EXPECT_GE(r->steps()[0].args[1].toTensor().min().item<int64_t>(), 0);
    EXPECT_LT(r->steps()[1].args[2].toTensor().max().item<int64_t>(), classes);
}

TEST(ReplayValidValues, MaxPoolBackwardIndicesComeFromTheForward) {
    TestTrace b;
    b.op("aten::max_pool2d_with_indices_backward",
         "aten::max_pool2d_with_indices_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride, "
         "int[2] padding, int[2] dilation, bool ceil_mode, Tensor indices) -> Tensor",
         {b.tensor({2, 3, 4, 4}, "float", 40), b.tensor({2, 3, 8, 8}, "float", 41), b.ints({2, 2}), b.ints({2, 2}),
          b.ints({0, 0}), b.ints({1, 1}), TestTrace::boolean(false), b.tensor({2, 3, 4, 4}, "long int", 42)},
         {b.tensor({2, 3, 8, 8}, "float", 43)});
    Trace trace = b.finish();
    auto r = replay(trace);
    ASSERT_EQ(r->replayed_count(), 1u) << skips(*r);
    at::Tensor idx = r->steps()[0].args[7].toTensor();
    EXPECT_GE(idx.min().item<int64_t>(), 0);
    EXPECT_LT(idx.max().item<int64_t>(), 64);  // inside each 8x8 plane
    // Index (i, j) of a 2x2/2 pool lies in window (i, j): row in [2i, 2i+1], column in [2j, 2j+1].
    at::Tensor rows = idx.div(8, "floor"), cols = idx.remainder(8);
    at::Tensor i = at::arange(4).view({1, 1, 4, 1}), j = at::arange(4).view({1, 1, 1, 4});
    EXPECT_TRUE(rows.div(2, "floor").eq(i).all().item<bool>());
    EXPECT_TRUE(cols.div(2, "floor").eq(j).all().item<bool>());
}

TEST(ReplayValidValues, IndexSelectAndGatherStayInsideTheDimension) {
    TestTrace b;
    b.op("aten::index_select", "aten::index_select(Tensor self, int dim, Tensor index) -> Tensor",
         {b.tensor({4, 6}, "float", 50), TestTrace::integer(1), b.tensor({20}, "long int", 51)},
         {b.tensor({4, 20}, "float", 52)});
    b.op("aten::gather", "aten::gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor",
         {b.tensor({5, 3}, "float", 53), TestTrace::integer(0), b.tensor({5, 3}, "long int", 54), TestTrace::boolean(false)},
         {b.tensor({5, 3}, "float", 55)});
    Trace trace = b.finish();
    auto r = replay(trace);
    ASSERT_EQ(r->replayed_count(), 2u) << skips(*r);
    EXPECT_LT(r->steps()[0].args[2].toTensor().max().item<int64_t>(), 6);
    EXPECT_LT(r->steps()[1].args[2].toTensor().max().item<int64_t>(), 5);
}

TEST(ReplayValidValues, SequenceLengthsKeepThePackedShapes) {
    // 4 sequences, 25 steps in all, the longest 9: sorted longest first, none empty.
    const std::vector<int64_t> lengths = sequence_lengths(4, 25, 9);
    EXPECT_EQ(lengths, (std::vector<int64_t>{9, 6, 5, 5}));
    EXPECT_EQ(batch_sizes_of(lengths), (std::vector<int64_t>{4, 4, 4, 4, 4, 2, 1, 1, 1}));
    EXPECT_EQ(sequence_lengths(1, 7, 7), (std::vector<int64_t>{7}));
    EXPECT_EQ(sequence_lengths(3, 30, 10), (std::vector<int64_t>{10, 10, 10}));
    EXPECT_TRUE(sequence_lengths(3, 31, 10).empty());  // more steps than 3 x 10
    EXPECT_TRUE(sequence_lengths(3, 10, 9).empty());   // two sequences left with one step between them
    EXPECT_TRUE(sequence_lengths(0, 5, 5).empty());
}

TEST(ReplayValidValues, PackedSequenceLengthsAndBatchSizes) {
    // pack_padded_sequence with lengths the pool would fill with arbitrary
    // values (the kernel refuses lengths that are not positive and sorted),
    // then pad_packed_sequence given batch sizes from another storage (a cut
    // trace's input), which it indexes by.
    TestTrace b;
    const int64_t sequences = 4, padded = 10, features = 3, total = 25, longest = 9;
    b.op("aten::_pack_padded_sequence",
         "aten::_pack_padded_sequence(Tensor input, Tensor lengths, bool batch_first) -> (Tensor, Tensor)",
         {b.tensor({sequences, padded, features}, "float", 30), b.tensor({sequences}, "long int", 31),
          TestTrace::boolean(true)},
         {b.tensor({total, features}, "float", 32), b.tensor({longest}, "long int", 33)});
    b.op("aten::_pad_packed_sequence",
         "aten::_pad_packed_sequence(Tensor data, Tensor batch_sizes, bool batch_first, Scalar padding_value, "
         "int total_length) -> (Tensor, Tensor)",
         {b.tensor({total, features}, "float", 34), b.tensor({longest}, "long int", 35), TestTrace::boolean(true),
          TestTrace::real(0.0), TestTrace::integer(padded)},
         {b.tensor({sequences, padded, features}, "float", 36), b.tensor({sequences}, "long int", 37)});
    Trace trace = b.finish();
    auto r = replay(trace);
    ASSERT_EQ(r->replayed_count(), 2u) << skips(*r);
    at::Tensor lengths = r->steps()[0].args[1].toTensor();
    EXPECT_EQ(lengths.sum().item<int64_t>(), total);
    EXPECT_EQ(lengths[0].item<int64_t>(), longest);
    at::Tensor sizes = r->steps()[1].args[1].toTensor();
    ASSERT_EQ(sizes.numel(), longest);
    EXPECT_EQ(sizes.sum().item<int64_t>(), total);
    EXPECT_EQ(sizes[0].item<int64_t>(), sequences);
}

TEST(ReplayValidValues, MasksSelectAsManyAsTheRecordedResultHolds) {
    // x[mask] with 37 of 64 rows selected, then the backward's index_put_ of 37
    // rows of gradient, masked_select of 100 of 256, nonzero of 5 of 64, an
    // expert's tokens by where(routing == e), 263 of 1,024: the
    // pool's random masks would select about half, and the index_put_ would
    // refuse values of the recorded shape.
    TestTrace b;
    const char* kIndex = "aten::index.Tensor(Tensor self, Tensor?[] indices) -> Tensor";
    b.op("aten::index", kIndex, {b.tensor({64, 8}, "float", 80), b.list({b.tensor({64}, "bool", 81)})},
         {b.tensor({37, 8}, "float", 82)});
    b.op("aten::_index_put_impl_",
         "aten::_index_put_impl_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False, "
         "bool unsafe=False) -> Tensor(a!)",
         {b.tensor({64, 8}, "float", 83), b.list({b.tensor({64}, "bool", 84)}), b.tensor({37, 8}, "float", 85),
          TestTrace::boolean(true), TestTrace::boolean(true)},
         {b.tensor({64, 8}, "float", 83)});
    b.op("aten::masked_select", "aten::masked_select(Tensor self, Tensor mask) -> Tensor",
         {b.tensor({16, 16}, "float", 86), b.tensor({16, 16}, "bool", 87)}, {b.tensor({100}, "float", 88)});
    b.op("aten::nonzero", "aten::nonzero(Tensor self) -> Tensor", {b.tensor({8, 8}, "bool", 89)},
         {b.tensor({5, 2}, "long int", 90)});
    b.op("aten::embedding_renorm_",
         "aten::embedding_renorm_(Tensor(a!) self, Tensor indices, float max_norm, float norm_type) -> Tensor(a!)",
         {b.tensor({50, 4}, "float", 91), b.tensor({30}, "long int", 92), TestTrace::real(1.0), TestTrace::real(2.0)},
         {b.tensor({50, 4}, "float", 91)});
    b.op("aten::where", "aten::where(Tensor condition) -> Tensor[]", {b.tensor({512, 2}, "bool", 93)},
         {b.list({b.tensor({263}, "long int", 94), b.tensor({263}, "long int", 95)})});
    Trace trace = b.finish();
    auto r = replay(trace);
    ASSERT_EQ(r->replayed_count(), 6u) << skips(*r);
    EXPECT_EQ(r->steps()[5].args[0].toTensor().sum().item<int64_t>(), 263);
    const auto& steps = r->steps();
    EXPECT_EQ(steps[0].args[1].toList().get(0).toTensor().sum().item<int64_t>(), 37);
    EXPECT_EQ(steps[1].args[1].toList().get(0).toTensor().sum().item<int64_t>(), 37);
    EXPECT_EQ(steps[2].args[1].toTensor().sum().item<int64_t>(), 100);
    EXPECT_EQ(steps[3].args[0].toTensor().sum().item<int64_t>(), 5);
    // The rows renormed are spread over the table, as the lookups were, not all row 0.
    at::Tensor rows = steps[4].args[1].toTensor();
    EXPECT_LT(rows.max().item<int64_t>(), 50);
    EXPECT_GT(std::get<0>(at::_unique(rows)).numel(), 5);
}

TEST(ReplayValidValues, SamplingOpsGetProbabilities) {
    // torch.multinomial over a frequency table and bernoulli(p) refuse the
    // pool's normal values (negative entries); binary_cross_entropy wants its
    // input and target inside [0, 1].
    TestTrace b;
    b.op("aten::multinomial",
         "aten::multinomial(Tensor self, int num_samples, bool replacement=False, *, Generator? generator=None) -> Tensor",
         {b.tensor({1000}, "float", 100), TestTrace::integer(64), TestTrace::boolean(true)}, {b.tensor({64}, "long int", 101)});
    b.op("aten::bernoulli", "aten::bernoulli(Tensor self, *, Generator? generator=None) -> Tensor",
         {b.tensor({32, 8}, "float", 102)}, {b.tensor({32, 8}, "float", 103)});
    b.op("aten::binary_cross_entropy",
         "aten::binary_cross_entropy(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean) -> Tensor",
         {b.tensor({32}, "float", 104), b.tensor({32}, "float", 105), TestTrace::none(), TestTrace::integer(1)},
         {b.tensor({}, "float", 106)});
    Trace trace = b.finish();
    auto r = replay(trace);
    ASSERT_EQ(r->replayed_count(), 3u) << skips(*r);
    for (auto [step, arg] : {std::pair{0, 0}, {1, 0}, {2, 0}, {2, 1}}) {
        at::Tensor p = r->steps()[size_t(step)].args[size_t(arg)].toTensor();
        EXPECT_GT(p.min().item<float>(), 0.0f) << "step " << step << " argument " << arg;
        EXPECT_LE(p.max().item<float>(), 1.0f) << "step " << step << " argument " << arg;
    }
}

TEST(ReplayValidValues, ScalarListsOfForeachOps) {
    // Adam and AdamW with foreach=True divide by one bias correction per
    // parameter: Scalar[] arguments of _foreach_div_ and _foreach_addcdiv_.
    TestTrace b;
    Value p1 = b.tensor({16, 8}, "float", 110), p2 = b.tensor({8}, "float", 111);
    b.op("aten::_foreach_div_", "aten::_foreach_div_.ScalarList(Tensor(a!)[] self, Scalar[] scalars) -> ()",
         {b.list({p1, p2}), b.list({TestTrace::real(0.5), TestTrace::real(0.25)})}, {});
    b.op("aten::_foreach_addcdiv_",
         "aten::_foreach_addcdiv_.ScalarList(Tensor(a!)[] self, Tensor[] tensor1, Tensor[] tensor2, Scalar[] scalars) -> ()",
         {b.list({b.same(p1), b.same(p2)}), b.list({b.tensor({16, 8}, "float", 112), b.tensor({8}, "float", 113)}),
          b.list({b.tensor({16, 8}, "float", 114), b.tensor({8}, "float", 115)}),
          b.list({TestTrace::real(-1e-3), TestTrace::integer(2)})},
         {});
    Trace trace = b.finish();
    auto r = replay(trace);
    ASSERT_EQ(r->replayed_count(), 2u) << skips(*r);
    const c10::IValue& scalars = r->steps()[0].args[1];
    ASSERT_TRUE(scalars.isList());
    EXPECT_DOUBLE_EQ(scalars.toListRef()[1].toScalar().toDouble(), 0.25);
    EXPECT_EQ(r->steps()[1].args[3].toListRef()[1].toScalar().toLong(), 2);
}

TEST(ReplayValidValues, LinearAlgebraInputsTheKernelsAccept) {
    // linalg.solve's backward calls linalg_lu_solve with LU pivots (1-based
    // row numbers, refused below 1); a Cholesky factorization refuses a
    // matrix that is not positive definite, as the pool's random ones are not.
    TestTrace b;
    b.op("aten::linalg_lu_solve",
         "aten::linalg_lu_solve(Tensor LU, Tensor pivots, Tensor B, *, bool left=True, bool adjoint=False) -> Tensor",
         {b.tensor({3, 16, 16}, "float", 120), b.tensor({3, 16}, "int", 121), b.tensor({3, 16, 4}, "float", 122),
          TestTrace::boolean(true), TestTrace::boolean(false)},
         {b.tensor({3, 16, 4}, "float", 123)});
    b.op("aten::linalg_cholesky", "aten::linalg_cholesky(Tensor self, *, bool upper=False) -> Tensor",
         {b.tensor({32, 32}, "float", 124), TestTrace::boolean(false)}, {b.tensor({32, 32}, "float", 125)});
    Trace trace = b.finish();
    auto r = replay(trace);
    ASSERT_EQ(r->replayed_count(), 2u) << skips(*r);
    at::Tensor pivots = r->steps()[0].args[1].toTensor();
    EXPECT_EQ(pivots.min().item<int64_t>(), 1);
    EXPECT_EQ(pivots.max().item<int64_t>(), 16);
    EXPECT_EQ(pivots.sizes(), (std::vector<int64_t>{3, 16}));
}

TEST(ReplayValidValues, OutputsSizedByValuesGetTheRecordedSize) {
    // Ops whose output length is a function of their input's values: the
    // replay's values make the recorded length, so the ops after them get
    // tensors of the recorded shapes.
    TestTrace b;
    const char* kRepeat = "aten::repeat_interleave.self_Tensor(Tensor self, Tensor repeats, int? dim=None, *, "
                          "SymInt? output_size=None) -> Tensor";
    b.op("aten::repeat_interleave", kRepeat,
         {b.tensor({64, 32}, "float", 130), b.tensor({64}, "long int", 131), TestTrace::integer(0), TestTrace::none()},
         {b.tensor({125, 32}, "float", 132)});
    b.op("aten::repeat_interleave", kRepeat,  // one repeat for every row: 3 x 10 rows
         {b.tensor({10, 4}, "float", 145), b.tensor({1}, "long int", 146), TestTrace::integer(0), TestTrace::none()},
         {b.tensor({30, 4}, "float", 147)});
    b.op("aten::_unique2",
         "aten::_unique2(Tensor self, bool sorted=True, bool return_inverse=False, bool return_counts=False) -> "
         "(Tensor, Tensor, Tensor)",
         {b.tensor({512}, "long int", 133), TestTrace::boolean(true), TestTrace::boolean(true), TestTrace::boolean(false)},
         {b.tensor({492}, "long int", 134), b.tensor({512}, "long int", 135), b.tensor({0}, "long int", 136)});
    b.op("aten::bincount", "aten::bincount(Tensor self, Tensor? weights=None, int minlength=0) -> Tensor",
         {b.tensor({100}, "long int", 137), TestTrace::none(), TestTrace::integer(0)}, {b.tensor({13}, "long int", 138)});
    b.op("aten::one_hot", "aten::one_hot(Tensor self, int num_classes=-1) -> Tensor",
         {b.tensor({40}, "long int", 139), TestTrace::integer(-1)}, {b.tensor({40, 7}, "long int", 140)});
    b.op("aten::unique_consecutive",
         "aten::unique_consecutive(Tensor self, bool return_inverse=False, bool return_counts=False, int? dim=None) -> "
         "(Tensor, Tensor, Tensor)",
         {b.tensor({50}, "float", 141), TestTrace::boolean(false), TestTrace::boolean(true), TestTrace::none()},
         {b.tensor({9}, "float", 142), b.tensor({0}, "long int", 143), b.tensor({9}, "long int", 144)});
    Trace trace = b.finish();
    auto r = replay(trace);
    ASSERT_EQ(r->replayed_count(), 6u) << skips(*r);
    const auto& steps = r->steps();
    EXPECT_EQ(steps[0].args[1].toTensor().sum().item<int64_t>(), 125);
    EXPECT_EQ(steps[1].args[1].toTensor().item<int64_t>(), 3);
    EXPECT_EQ(std::get<0>(at::_unique(steps[2].args[0].toTensor())).numel(), 492);
    EXPECT_EQ(steps[3].args[0].toTensor().max().item<int64_t>(), 12);
    EXPECT_EQ(steps[4].args[0].toTensor().max().item<int64_t>(), 6);
    EXPECT_EQ(std::get<0>(at::unique_consecutive(steps[5].args[0].toTensor())).numel(), 9);
}

TEST(ReplayValidValues, ToSparseKeepsAsManyEntriesAsTheOriginal) {
    // adj.to_sparse() of a 1%-dense [50, 40] matrix: the nonzero it called
    // inside returned 21 rows. The pool's values are all nonzero.
    TestTrace b;
    Value dense = b.tensor({50, 40}, "float", 150);
    const uint64_t call = b.op("aten::to_sparse", "aten::to_sparse(Tensor self) -> Tensor", {dense},
                               {b.tensor({50, 40}, "float", 0)});
    b.op("aten::nonzero", "aten::nonzero(Tensor self) -> Tensor", {b.tensor({50, 40}, "bool", 151)},
         {b.tensor({21, 2}, "long int", 152)}, call);
    b.op("aten::gather_backward",
         "aten::gather_backward(Tensor grad, Tensor self, int dim, Tensor index, bool sparse_grad) -> Tensor",
         {b.tensor({8, 3}, "float", 153), b.tensor({8, 102}, "float", 154), TestTrace::integer(1),
          b.tensor({8, 3}, "long int", 155), TestTrace::boolean(false)},
         {b.tensor({8, 102}, "float", 156)});
    Trace trace = b.finish();
    auto r = replay(trace);
    ASSERT_EQ(r->replayed_count(), 2u) << skips(*r);
    EXPECT_EQ(r->steps()[0].args[0].toTensor().ne(0).sum().item<int64_t>(), 21);
    EXPECT_LT(r->steps()[1].args[3].toTensor().max().item<int64_t>(), 102);
}

}  // namespace
}  // namespace mimic::replay
