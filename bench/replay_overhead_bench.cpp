// Replayer overhead per op over a bare dispatcher call. The same cheap op
// (aten::add.Tensor on 1-element tensors, ~1-2 us in libtorch) is called
// (a) bare: copy a prebuilt boxed stack, callBoxed; and (b) by the replayer
// over a chain of N recorded adds, each reading the previous one's output
// (a data-flow patch per op, an output binding per op). The difference per
// op is what the replayer adds. Best of several trials, single thread.
//
//   replay_overhead_bench [N=2000] [trials=15]
#include <ATen/Parallel.h>
#include <ATen/ops/ones.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "../tests/torch/replay_test_trace.h"
#include "replay/exec/op_resolver.h"
#include "replay/replayer.h"

using namespace mimic;
using Clock = std::chrono::steady_clock;

namespace {

const char* kAdd = "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor";

double bare_us_per_call(int n, int trials) {
    auto op = *replay::OpResolver::find("aten::add", "Tensor");
    std::vector<c10::IValue> args = {at::ones({1}), at::ones({1}), c10::IValue(int64_t(1))};
    std::vector<c10::IValue> stack;
    double best = 1e30;
    for (int t = 0; t < trials; ++t) {
        const auto t0 = Clock::now();
        for (int i = 0; i < n; ++i) {
            stack.assign(args.begin(), args.end());
            op.callBoxed(&stack);
        }
        best = std::min(best, std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / n);
    }
    return best;
}

double replay_us_per_op(int n, int trials, bool lazy) {
    testing::TestTrace b;
    Value x = b.tensor({1}, "float", 1);
    const Value y = b.tensor({1}, "float", 2);
    for (int i = 0; i < n; ++i) {
        Value out = b.tensor({1}, "float", uint64_t(10 + i));
        b.op("aten::add", kAdd, {x, y, testing::TestTrace::integer(1)}, {out});
        x = out;
    }
    Trace trace = b.finish();
    replay::ReplayOptions options;
    options.selection.iteration = "all";
    options.lazy = lazy;
    replay::Replayer r(trace, options);
    r.plan();
    r.check();
    if (r.replayed_count() != size_t(n)) {
        std::fprintf(stderr, "replay_overhead_bench: only %zu of %d ops planned\n", r.replayed_count(), n);
        std::exit(1);
    }
    double best = 1e30;
    for (int t = 0; t < trials; ++t) best = std::min(best, r.run_iteration() * 1000.0 / n);
    return best;
}

}  // namespace

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 2000;
    const int trials = argc > 2 ? std::atoi(argv[2]) : 15;
    at::set_num_threads(1);
    bare_us_per_call(n, 2);  // warm caches and the allocator
    const double bare = bare_us_per_call(n, trials);
    const double replay = replay_us_per_op(n, trials, false);
    const double lazy = replay_us_per_op(n, trials, true);
    std::printf("{\"ops\": %d, \"trials\": %d, \"bare_call_us\": %.3f, \"replay_op_us\": %.3f, \"replay_lazy_op_us\": %.3f, "
                "\"overhead_us\": %.3f, \"overhead_lazy_us\": %.3f}\n",
                n, trials, bare, replay, lazy, replay - bare, lazy - bare);
    return 0;
}
