// OpRegistry against this machine's libtorch, with schemas taken from the
// real traces.
#include "replay/exec/op_registry.h"

#include <gtest/gtest.h>

#include <set>

#include "io/trace_loader.h"
#include "test_support.h"

namespace mimic::replay {
namespace {

std::set<std::string> schemas_of(const std::string& file) {
    const Trace t = load_trace(testing::trace_path(file));
    std::set<std::string> out;
    for (const Node& n : t.nodes)
        if (!t.str(n.op_schema).empty()) out.emplace(t.str(n.op_schema));
    return out;
}

TEST(OpRegistry, AddmmFromTheLinearTraceHasACpuKernel) {
    MIMIC_REQUIRE_TRACE("pytorch/linear_et.json.gz");
    std::string addmm;
    for (const std::string& s : schemas_of("pytorch/linear_et.json.gz"))
        if (s.rfind("aten::addmm(", 0) == 0) addmm = s;
    ASSERT_FALSE(addmm.empty()) << "linear_et.json.gz has aten::addmm";
    OpRegistry registry;
    const OpLookup& found = registry.lookup(addmm);
    EXPECT_TRUE(found.parsed) << found.problem;
    EXPECT_TRUE(found.registered);
    EXPECT_TRUE(found.cpu_kernel);
    EXPECT_EQ(found.kernel_key, "CPU");
    // aten::linear is composite: no CPU kernel of its own, yet it runs on CPU.
    const OpLookup& linear = registry.lookup("aten::linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor");
    EXPECT_TRUE(linear.cpu_kernel) << linear.problem;
    EXPECT_EQ(linear.kernel_key, "CompositeImplicitAutograd");
}

TEST(OpRegistry, EverySchemaOfTheLinearTraceRuns) {
    // The linear model's trace (PyTorch 1.13-era ATen ops) uses 30-odd
    // schemas, all plain ATen ops with CPU or composite kernels.
    MIMIC_REQUIRE_TRACE("pytorch/linear_et.json.gz");
    OpRegistry registry;
    const auto schemas = schemas_of("pytorch/linear_et.json.gz");
    EXPECT_GT(schemas.size(), 20u);
    for (const std::string& s : schemas) EXPECT_TRUE(registry.has_cpu_kernel(s)) << s << ": " << registry.lookup(s).problem;
}

TEST(OpRegistry, CudaOnlyOpsAndCollectivesFromResnet) {
    MIMIC_REQUIRE_TRACE("pytorch/resnet_et.json.gz");
    OpRegistry registry;
    std::string cudnn, allreduce;
    for (const std::string& s : schemas_of("pytorch/resnet_et.json.gz")) {
        if (s.rfind("aten::cudnn_batch_norm_backward(", 0) == 0) cudnn = s;
        if (s.rfind("c10d::allreduce_(", 0) == 0) allreduce = s;
    }
    ASSERT_FALSE(cudnn.empty());
    ASSERT_FALSE(allreduce.empty());
    // cuDNN's batch norm backward is registered (the schema is ATen's) but has
    // only a CUDA kernel.
    const OpLookup& bn = registry.lookup(cudnn);
    EXPECT_TRUE(bn.parsed);
    EXPECT_TRUE(bn.registered);
    EXPECT_FALSE(bn.cpu_kernel);
    EXPECT_FALSE(bn.problem.empty());
    // The collective from PyTorch 2.x parses (its ProcessGroup and ReduceOp
    // are custom classes this libtorch knows) and c10d registers it for CPU.
    const OpLookup& ar = registry.lookup(allreduce);
    EXPECT_TRUE(ar.registered) << ar.problem;
    EXPECT_TRUE(ar.cpu_kernel) << ar.problem;
}

TEST(OpRegistry, MadeUpAndMalformedSchemasAreAnswersNotErrors) {
    OpRegistry registry;
    const OpLookup& fake = registry.lookup("mimic_test::no_such_op(Tensor self) -> Tensor");
    EXPECT_TRUE(fake.parsed);
    EXPECT_FALSE(fake.registered);
    EXPECT_FALSE(fake.cpu_kernel);
    const OpLookup& overload = registry.lookup("aten::addmm.no_such_overload(Tensor self) -> Tensor");
    EXPECT_FALSE(overload.registered);
    const OpLookup& garbage = registry.lookup("this is (not a schema");
    EXPECT_FALSE(garbage.parsed);
    EXPECT_FALSE(garbage.cpu_kernel);
    EXPECT_FALSE(garbage.problem.empty());
    EXPECT_FALSE(registry.has_cpu_kernel(""));
    // An unknown type stops the parser; the name is still looked up.
    const OpLookup& odd = registry.lookup("aten::relu(MysteryType self) -> Tensor");
    EXPECT_FALSE(odd.parsed);
    EXPECT_TRUE(odd.cpu_kernel) << odd.problem;
}

TEST(OpRegistry, AnswersAreCached) {
    OpRegistry registry;
    const std::string s = "aten::relu(Tensor self) -> Tensor";
    const OpLookup* first = &registry.lookup(s);
    EXPECT_EQ(first, &registry.lookup(s));
}

}  // namespace
}  // namespace mimic::replay
