// The fresh-page allocator and the replayer's use of it: an op given a budget
// of fresh pages gets them, and takes that many page faults; an op without a
// budget gets none. Counts, not times: a new page's first touch is a fault.
#include "replay/timing/fresh_page_allocator.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/csrc/autograd/profiler_kineto.h>

#include <sys/mman.h>

#include <cstdint>
#include <set>

#include "replay/replay_report.h"
#include "replay/replayer.h"
#include "replay_test_trace.h"

namespace mimic::replay {
namespace {

// 64 KiB tensors: below glibc's mmap threshold (128 KiB), so without a budget
// they come from the heap, on the pages the last one freed.
constexpr int64_t kPages = 16;

int64_t faults_of_a_filled_tensor(FreshPageAllocator& a, int64_t budget) {
    a.set_budget_pages(budget);
    const int64_t before = int64_t(minor_page_faults());
    at::Tensor t = at::empty({kPages * 1024}, at::kFloat);
    t.fill_(1.0f);
    const int64_t faults = int64_t(minor_page_faults()) - before;
    a.set_budget_pages(0);
    return faults;
}

TEST(FreshPages, ABudgetServesTheAllocationOnPagesTheProcessNeverTouched) {
    FreshPageAllocator& a = FreshPageAllocator::install();
    // Without a budget the allocation is libtorch's (whether glibc's heap
    // faults on it is glibc's business); with one, every page is new.
    uint64_t fresh_before = a.fresh_pages();
    faults_of_a_filled_tensor(a, 0);
    EXPECT_EQ(a.fresh_pages(), fresh_before);
    EXPECT_GE(faults_of_a_filled_tensor(a, kPages), kPages - 2);
    EXPECT_EQ(a.fresh_pages(), fresh_before + kPages);
    // Less than half the pages in the budget: not worth a fresh mapping.
    fresh_before = a.fresh_pages();
    faults_of_a_filled_tensor(a, kPages / 2 - 1);
    EXPECT_EQ(a.fresh_pages(), fresh_before);
}

TEST(FreshPages, RawAllocationsOfBothKindsFreeThroughTheRawDeleter) {
    FreshPageAllocator& a = FreshPageAllocator::install();
    for (int64_t budget : {int64_t(0), int64_t(64)}) {
        a.set_budget_pages(budget);
        void* p = a.raw_allocate(64 * 4096);
        a.set_budget_pages(0);
        ASSERT_NE(p, nullptr);
        static_cast<char*>(p)[0] = 1;
        static_cast<char*>(p)[64 * 4096 - 1] = 2;
        a.raw_deallocate(p);
    }
}

bool is_mapped(void* p) {
    unsigned char resident = 0;
    const uintptr_t page = uintptr_t(p) & ~uintptr_t(4095);
    return ::mincore(reinterpret_cast<void*>(page), 1, &resident) == 0;
}

// A freed fresh mapping stays mapped until unmap_freed(): unmapping flushes
// the TLB, which the replayer keeps out of its iterations. A mapping too big
// to park goes at once.
TEST(FreshPages, FreedMappingsAreGivenBackOnlyWhenAsked) {
    FreshPageAllocator& a = FreshPageAllocator::install();
    FreshPageAllocator::unmap_freed();
    void* data = nullptr;
    {
        a.set_budget_pages(kPages);
        at::Tensor t = at::empty({kPages * 1024}, at::kFloat);
        a.set_budget_pages(0);
        t.fill_(1.0f);
        data = t.data_ptr();
    }
    EXPECT_TRUE(is_mapped(data));
    FreshPageAllocator::unmap_freed();
    EXPECT_FALSE(is_mapped(data));

    constexpr int64_t kHugeBytes = (int64_t(1) << 30) + 4096;  // past the parking limit, never touched
    {
        a.set_budget_pages(kHugeBytes / 4096);
        at::Tensor t = at::empty({kHugeBytes}, at::kByte);
        a.set_budget_pages(0);
        data = t.data_ptr();
        ASSERT_TRUE(is_mapped(data));
    }
    EXPECT_FALSE(is_mapped(data));
}

// A fresh mapping is reported to the profiler as libtorch's CPU allocator
// reports its blocks: a profiled replay (`--record-replay`, or a user's own
// profiler around mimic) shows the allocation and the free as memory events.
TEST(FreshPages, AllocationsAndFreesShowAsTheProfilersMemoryEvents) {
    namespace prof = torch::profiler::impl;
    FreshPageAllocator& a = FreshPageAllocator::install();
    const prof::ProfilerConfig config(prof::ProfilerState::KINETO, false, /*profile_memory=*/true);
    const std::set<prof::ActivityType> cpu{prof::ActivityType::CPU};
    torch::autograd::profiler::prepareProfiler(config, cpu);
    torch::autograd::profiler::enableProfiler(config, cpu);
    constexpr int64_t kBytes = 64 * 4096;
    a.set_budget_pages(64);
    const uint64_t fresh_before = a.fresh_pages();
    {
        at::Tensor t = at::empty({kBytes}, at::kByte);
        EXPECT_EQ(a.fresh_pages(), fresh_before + 64) << "the test's premise: a fresh mapping";
    }
    a.set_budget_pages(0);
    const auto result = torch::autograd::profiler::disableProfiler();
    int allocations = 0, frees = 0;
    for (const auto& e : result->events()) {
        if (e.name() != "[memory]") continue;
        allocations += e.nBytes() == kBytes;
        frees += e.nBytes() == -kBytes;
    }
    EXPECT_EQ(allocations, 1);
    EXPECT_EQ(frees, 1);
}

// A replayed op whose recorded faults exceed its own gets them as fresh pages.
TEST(FreshPages, TheReplayerGivesEachStepItsBudget) {
    testing::TestTrace b;
    const Value x = b.tensor({kPages * 1024}, "float", 1);
    const Value y = b.tensor({kPages * 1024}, "float", 2);
    b.op("aten::neg", "aten::neg(Tensor self) -> Tensor", {x}, {y});
    const Value z = b.tensor({kPages * 1024}, "float", 3);
    b.op("aten::neg", "aten::neg(Tensor self) -> Tensor", {b.same(x)}, {z});
    Trace trace = b.finish();
    ReplayOptions options;
    options.device = c10::Device(c10::kCPU);
    Replayer r(trace, options);
    r.plan();
    r.check();
    ASSERT_EQ(r.replayed_count(), 2u);
    for (int i = 0; i < 3; ++i) r.run_iteration();
    ASSERT_EQ(r.step_page_faults().size(), 2u);
    r.set_fresh_pages({kPages, 0});
    EXPECT_TRUE(r.fresh_pages_on());
    FreshPageAllocator& a = FreshPageAllocator::install();
    const uint64_t fresh_before = a.fresh_pages();
    const std::vector<int64_t> faults = r.step_page_faults();
    EXPECT_EQ(a.fresh_pages(), fresh_before + kPages);  // the first step's output, and nothing of the second's
    EXPECT_GE(faults[0], kPages - 2);
    r.set_fresh_pages({0, 0});
    EXPECT_FALSE(r.fresh_pages_on());
}

}  // namespace
}  // namespace mimic::replay
