// The category rules, one by one, with names and schemas as real traces write them.
#include "analysis/categories.h"

#include <gtest/gtest.h>

namespace mimic::analysis {
namespace {

OpCategory cat(std::string_view name, std::string_view schema = "", std::string_view backend = "",
               NodeKind kind = NodeKind::Label, ChakraNodeType type = ChakraNodeType::Invalid, bool cpu = true) {
    if (kind == NodeKind::Label && !schema.empty()) kind = NodeKind::Operator;
    return categorize(kind, type, name, schema, backend, cpu);
}

TEST(Categories, AtenOpsNeedASchema) {
    EXPECT_EQ(cat("aten::addmm", "aten::addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor"),
              OpCategory::Aten);
    EXPECT_EQ(cat("aten::mm", "aten::mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)"), OpCategory::Aten);
    // A Chakra split piece keeps its schema.
    EXPECT_EQ(cat("aten::copy_(0)", "aten::copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)"),
              OpCategory::Aten);
    EXPECT_EQ(cat("aten::something"), OpCategory::Label);
}

TEST(Categories, FusedCode) {
    EXPECT_EQ(cat("triton_poi_fused_add_cos_neg_sin_0", "", "triton"), OpCategory::Fused);
    EXPECT_EQ(cat("my_kernel", "", "triton"), OpCategory::Fused);  // kernel_backend alone decides
    EXPECT_EQ(cat("CompiledFunction"), OpCategory::Fused);
    EXPECT_EQ(cat("CompiledFunctionBackward"), OpCategory::Fused);
    EXPECT_EQ(cat("Torch-Compiled Region: 0/0"), OpCategory::Fused);
    EXPECT_EQ(cat("aten::_fused_adam_", "aten::_fused_adam_(Tensor(a!)[] self, ...) -> ()"), OpCategory::Fused);
    EXPECT_EQ(cat("FusedAdam.step"), OpCategory::Fused);
    // cuDNN's non-fused kernels are not fused code.
    EXPECT_EQ(cat("void cudnn::winograd_nonfused::winogradForwardData4x4<float, float>(...)", "", "", NodeKind::Unknown,
                  ChakraNodeType::Comp, false),
              OpCategory::Device);
    EXPECT_EQ(cat("TorchDynamo Cache Lookup"), OpCategory::Label);
}

TEST(Categories, CustomOpsAreSchemasOutsideAtenAndC10d) {
    EXPECT_EQ(cat("fbgemm::jagged_to_padded_dense", "fbgemm::jagged_to_padded_dense(Tensor values, Tensor[] offsets) -> Tensor"),
              OpCategory::Custom);
    EXPECT_EQ(cat("torchrec::x", "torchrec::x(Tensor a) -> Tensor"), OpCategory::Custom);
    EXPECT_EQ(cat("prims::add", "prims::add(Tensor self, Tensor other) -> Tensor"), OpCategory::Custom);
}

TEST(Categories, Communication) {
    EXPECT_EQ(cat("c10d::allreduce_", "c10d::allreduce_(Tensor[] tensors, __torch__.torch.classes.c10d.ProcessGroup "
                                      "process_group, __torch__.torch.classes.c10d.ReduceOp reduce_op, int timeout) -> "
                                      "(Tensor[], __torch__.torch.classes.c10d.Work)"),
              OpCategory::Communication);
    EXPECT_EQ(cat("record_param_comms"), OpCategory::Communication);
    EXPECT_EQ(cat("nccl:all_reduce"), OpCategory::Communication);
    EXPECT_EQ(cat("gloo:all_reduce"), OpCategory::Communication);
    EXPECT_EQ(cat("_c10d_functional::all_reduce", "_c10d_functional::all_reduce(Tensor input, str reduce_op, str group_name) -> Tensor"),
              OpCategory::Communication);
    // A Chakra COMM_COLL node is communication whatever runs it: an NCCL kernel too.
    EXPECT_EQ(cat("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)", "", "", NodeKind::Label,
                  ChakraNodeType::CommColl, false),
              OpCategory::Communication);
    EXPECT_EQ(cat("all_reduce_4npus_1MB", "", "", NodeKind::Unknown, ChakraNodeType::CommColl, false),
              OpCategory::Communication);
}

TEST(Categories, LabelsAndStructure) {
    EXPECT_EQ(cat("ProfilerStep#6"), OpCategory::Label);
    EXPECT_EQ(cat("autograd::engine::evaluate_function: AddmmBackward0", "", "", NodeKind::Autograd), OpCategory::Label);
    EXPECT_EQ(cat("[pytorch|profiler|execution_trace|thread]", "", "", NodeKind::Thread), OpCategory::Label);
    EXPECT_EQ(cat("[pytorch|profiler|execution_trace|process]", "", "", NodeKind::Root), OpCategory::Label);
    EXPECT_EQ(cat("## process_group:init ##", "", "", NodeKind::ProcessGroupInit), OpCategory::Label);
    EXPECT_EQ(cat("Memcpy DtoD (Device -> Device)", "", "", NodeKind::Unknown, ChakraNodeType::Comp, false),
              OpCategory::Device);
}

TEST(Categories, HostOperators) {
    EXPECT_TRUE((NodeClass{OpCategory::Aten, false}).is_host_operator());
    EXPECT_TRUE((NodeClass{OpCategory::Communication, false}).is_host_operator());
    EXPECT_FALSE((NodeClass{OpCategory::Communication, true}).is_host_operator());
    EXPECT_FALSE((NodeClass{OpCategory::Label, false}).is_host_operator());
    EXPECT_FALSE((NodeClass{OpCategory::Device, true}).is_host_operator());
    for (OpCategory c : kAllCategories) EXPECT_FALSE(category_key(c).empty());
}

}  // namespace
}  // namespace mimic::analysis
