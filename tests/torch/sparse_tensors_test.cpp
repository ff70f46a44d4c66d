// Tensors the observer wrote without storage (storage id, numel and itemsize
// 0): sparse COO gradients of embeddings with sparse=True. The pool makes
// them sparse, with the entries the trace reports, so the optimizer's update
// of a table is the sparse kernel the original ran, not a dense pass; ops
// with only sparse kernels (aten::_values) replay; restore() gives the
// gradient back its entries after zero_grad cleared them.
#include <gtest/gtest.h>

#include "replay/exec/tensor_layout.h"
#include "replay/exec/tensor_pool.h"
#include "replay/replayer.h"
#include "replay_once.h"
#include "replay_test_trace.h"

namespace mimic::replay {
namespace {

using testing::TestTrace;

const int64_t kRows = 1000, kColumns = 8, kEntries = 24;

// A tensor the way the observer writes a sparse one.
Value sparse_tensor(TestTrace& b) {
    Value v = b.tensor({kRows, kColumns}, "float", 0);
    b.t.tensors.back().numel = 0;
    return v;
}

struct SparseTrace {
    Trace trace;
    Value grad;
};

// The trace asks for the gradient's entries (_nnz), updates a table with it
// (SGD: add_), then reads its values (a sparse-only op).
SparseTrace sgd_on_a_sparse_gradient() {
    TestTrace b;
    Value grad = sparse_tensor(b);
    b.op("aten::_nnz", "aten::_nnz(Tensor self) -> int", {grad}, {TestTrace::integer(kEntries)});
    Value table = b.tensor({kRows, kColumns}, "float", 50);
    b.op("aten::add_", "aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
         {table, b.same(grad), TestTrace::real(-0.01)}, {b.same(table)});
    b.op("aten::_values", "aten::_values(Tensor(a) self) -> Tensor(a)", {b.same(grad)},
         {b.tensor({kEntries, kColumns}, "float", 51)});
    return {b.finish(), grad};
}

TEST(SparseTensors, TheObserversMarkIsSeen) {
    SparseTrace s = sgd_on_a_sparse_gradient();
    EXPECT_TRUE(is_sparse_use(s.trace, s.trace.tensor(s.grad)));
    TestTrace b;
    Value dense = b.tensor({kRows, kColumns}, "float", 7);
    Value empty = b.tensor({0, kColumns}, "float", 0);
    b.t.tensors.back().numel = 0;
    Trace t = b.finish();
    EXPECT_FALSE(is_sparse_use(t, t.tensor(dense)));
    EXPECT_FALSE(is_sparse_use(t, t.tensor(empty)));  // no elements: nothing to store
}

TEST(SparseTensors, PoolMakesThemSparseWithTheRecordedEntries) {
    SparseTrace s = sgd_on_a_sparse_gradient();
    TensorPool pool(s.trace, c10::Device(c10::kCPU));
    const TensorMeta& meta = s.trace.tensor(s.grad);
    ASSERT_EQ(pool.reserve(meta), "");
    at::Tensor g = pool.view(meta);
    ASSERT_TRUE(g.is_sparse());
    EXPECT_EQ(g.sizes(), (c10::IntArrayRef{kRows, kColumns}));
    EXPECT_EQ(g.sparse_dim(), 1);
    EXPECT_EQ(g._nnz(), kEntries);
    EXPECT_LT(g._indices().max().item<int64_t>(), kRows);
    EXPECT_TRUE(pool.view(meta).is_same(g));  // one tensor for every use

    pool.snapshot();
    g.zero_();  // zero_grad on a sparse gradient: every dimension sparse, no entries
    ASSERT_EQ(g._nnz(), 0);
    pool.restore();
    EXPECT_EQ(g._nnz(), kEntries);
    EXPECT_EQ(g.sparse_dim(), 1);
}

TEST(SparseTensors, CoalescedWhereTheTraceSaysSo) {
    // A graph's adjacency, coalesce()d by the model: the trace asks is_coalesced and gets true.
    TestTrace b;
    Value adjacency = sparse_tensor(b);
    b.op("aten::is_coalesced", "aten::is_coalesced(Tensor self) -> bool", {adjacency}, {TestTrace::boolean(true)});
    b.op("aten::sparse_dim", "aten::sparse_dim(Tensor self) -> int", {b.same(adjacency)}, {TestTrace::integer(2)});
    b.op("aten::_nnz", "aten::_nnz(Tensor self) -> int", {b.same(adjacency)}, {TestTrace::integer(500)});
    Trace trace = b.finish();
    TensorPool pool(trace, c10::Device(c10::kCPU));
    const TensorMeta& meta = trace.tensor(adjacency);
    ASSERT_EQ(pool.reserve(meta), "");
    at::Tensor a = pool.view(meta);
    ASSERT_TRUE(a.is_sparse());
    EXPECT_EQ(a.sparse_dim(), 2);
    EXPECT_EQ(a._nnz(), 500);
    EXPECT_TRUE(a.is_coalesced());
    EXPECT_EQ(a.coalesce()._nnz(), 500);  // distinct entries, so the mark is true
}

TEST(SparseTensors, TheUpdateAndTheSparseOnlyOpReplay) {
    SparseTrace s = sgd_on_a_sparse_gradient();
    auto r = testing::replay_once(s.trace);
    EXPECT_EQ(r->replayed_count(), 3u) << testing::skipped_ops(*r);
    bool update_read_sparse = false;
    for (const Step& step : r->steps())
        if (step.name == "aten::add_") update_read_sparse = step.args[1].toTensor().is_sparse();
    EXPECT_TRUE(update_read_sparse);
}

}  // namespace
}  // namespace mimic::replay
