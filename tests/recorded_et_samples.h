// Execution traces recorded here whose shape a test needs verbatim, trimmed to
// the nodes that matter, shared by the tests that read them.
#pragma once

#include <string>

namespace mimic::testing {

// PyTorch 1.13 + Gloo, rank 2 of `mimic record --workload ddp_mlp --nproc 4`:
// the observer left the first bucket's c10d::allreduce_ (node 589) "open"
// and filed the rest of backward under it: an AccumulateGrad wrapper with an
// aten::add_ (640) and the next bucket's c10d::allreduce_ (648).
inline constexpr const char* kEtOpsFiledUnderAC10dOp = R"ET({"schema": "1.0.1", "pid": 1, "time": "2026-11-22 01:14:00", "nodes": [
{"name": "[pytorch|profiler|execution_graph|process]", "id": 1, "rf_id": 1, "parent": 1, "fw_parent": 0, "seq_id": -1, "scope": 0, "tid": 1, "fw_tid": 0, "op_schema": "", "inputs": [], "input_shapes": [], "input_types": [], "outputs": [], "output_shapes": [], "output_types": []},
{"name": "[pytorch|profiler|execution_graph|thread]", "id": 2, "rf_id": 2, "parent": 1, "fw_parent": 0, "seq_id": -1, "scope": 0, "tid": 1, "fw_tid": 0, "op_schema": "", "inputs": [], "input_shapes": [], "input_types": [], "outputs": [], "output_shapes": [], "output_types": []},
{"name": "ProfilerStep#13", "id": 8, "rf_id": 8, "parent": 2, "fw_parent": 0, "seq_id": -1, "scope": 0, "tid": 1, "fw_tid": 0, "op_schema": "", "inputs": [], "input_shapes": [], "input_types": [], "outputs": [], "output_shapes": [], "output_types": []},
{"name": "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", "id": 578, "rf_id": 578, "parent": 8, "fw_parent": 0, "seq_id": -1, "scope": 0, "tid": 1, "fw_tid": 0, "op_schema": "", "inputs": [], "input_shapes": [], "input_types": [], "outputs": [], "output_shapes": [], "output_types": []},
{"name": "c10d::allreduce_", "id": 589, "rf_id": 589, "parent": 578, "fw_parent": 0, "seq_id": -1, "scope": 0, "tid": 1, "fw_tid": 0, "op_schema": "c10d::allreduce_(Tensor[] _0, __torch__.torch.classes.c10d.ProcessGroup _1, __torch__.torch.classes.c10d.ReduceOp _2, int _3) -> (Tensor[] _0, __torch__.torch.classes.c10d.Work _1)", "inputs": [[[588, 300, 0, 265738, 4, "cpu"]], "<Object>", "<Object>", -1], "input_shapes": [[[265738]], [], [], []], "input_types": ["GenericList[Tensor(float)]", "Object", "Object", "Int"], "outputs": [[[588, 300, 0, 265738, 4, "cpu"]], "<Object>"], "output_shapes": [[[265738]], []], "output_types": ["GenericList[Tensor(float)]", "Object"]},
{"name": "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", "id": 636, "rf_id": 636, "parent": 589, "fw_parent": 0, "seq_id": -1, "scope": 0, "tid": 1, "fw_tid": 0, "op_schema": "", "inputs": [], "input_shapes": [], "input_types": [], "outputs": [], "output_shapes": [], "output_types": []},
{"name": "aten::add_", "id": 640, "rf_id": 640, "parent": 636, "fw_parent": 0, "seq_id": -1, "scope": 0, "tid": 1, "fw_tid": 0, "op_schema": "aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)", "inputs": [[700, 701, 0, 16, 4, "cpu"], [702, 703, 0, 16, 4, "cpu"], 1], "input_shapes": [[16], [16], []], "input_types": ["Tensor(float)", "Tensor(float)", "Int"], "outputs": [[700, 701, 0, 16, 4, "cpu"]], "output_shapes": [[16]], "output_types": ["Tensor(float)"]},
{"name": "c10d::allreduce_", "id": 648, "rf_id": 648, "parent": 636, "fw_parent": 0, "seq_id": -1, "scope": 0, "tid": 1, "fw_tid": 0, "op_schema": "c10d::allreduce_(Tensor[] _0, __torch__.torch.classes.c10d.ProcessGroup _1, __torch__.torch.classes.c10d.ReduceOp _2, int _3) -> (Tensor[] _0, __torch__.torch.classes.c10d.Work _1)", "inputs": [[[647, 301, 0, 65792, 4, "cpu"]], "<Object>", "<Object>", -1], "input_shapes": [[[65792]], [], [], []], "input_types": ["GenericList[Tensor(float)]", "Object", "Object", "Int"], "outputs": [[[647, 301, 0, 65792, 4, "cpu"]], "<Object>"], "output_shapes": [[[65792]], []], "output_types": ["GenericList[Tensor(float)]", "Object"]}
]})ET";

// The same rank as it also comes out under load: the second c10d::allreduce_
// filed straight below an aten::as_strided (645) that has long ended, with no
// label between.
inline std::string et_with_a_c10d_op_filed_under_an_aten_op() {
    std::string et = kEtOpsFiledUnderAC10dOp;
    const std::string c10d648 = R"ET({"name": "c10d::allreduce_", "id": 648, "rf_id": 648, "parent": 636,)ET";
    const size_t at = et.find(c10d648);
    if (at == std::string::npos) return {};  // the sample changed: callers see no trace
    et.replace(at, c10d648.size(), R"ET({"name": "c10d::allreduce_", "id": 648, "rf_id": 648, "parent": 645,)ET");
    et.insert(at, R"ET({"name": "aten::as_strided", "id": 645, "rf_id": 645, "parent": 636, "fw_parent": 0, "seq_id": -1, "scope": 0, "tid": 1, "fw_tid": 0, "op_schema": "aten::as_strided(Tensor(a) self, int[] size, int[] stride, int? storage_offset=None) -> Tensor(a)", "inputs": [[700, 701, 0, 16, 4, "cpu"], [16], [1], 0], "input_shapes": [[16], [], [], []], "input_types": ["Tensor(float)", "GenericList[Int]", "GenericList[Int]", "Int"], "outputs": [[705, 701, 0, 16, 4, "cpu"]], "output_shapes": [[16]], "output_types": ["Tensor(float)"]},
)ET");
    return et;
}

// PyTorch 1.13, tests/python/batch_models.py:cnn at batch 16, the loss and its
// backward: _log_softmax_backward_data (212) reads log_softmax's saved output
// as a new handle (tensor 198, a freed tensor's id) on its storage 191. Under
// load the autograd engine then reuses both addresses for a bias gradient, as
// here in AccumulateGrad (242; recorded as [240, 237]), so the handle's key is
// also a gradient's.
inline constexpr const char* kEtSavedOutputHandleSharesAGradientsKey = R"ET({"schema": "1.0.1", "pid": 1, "time": "2026-11-26 08:10:00", "nodes": [
{"name": "[pytorch|profiler|execution_graph|process]", "id": 1, "rf_id": 0, "parent": 1, "fw_parent": 0, "seq_id": -1, "scope": 7, "tid": 0, "fw_tid": 0, "op_schema": "", "inputs": [], "input_shapes": [], "input_types": [], "outputs": [], "output_shapes": [], "output_types": []},
{"name": "[pytorch|profiler|execution_graph|thread]", "id": 2, "rf_id": 0, "parent": 1, "fw_parent": 0, "seq_id": -1, "scope": 7, "tid": 1, "fw_tid": 0, "op_schema": "", "inputs": [], "input_shapes": [], "input_types": [], "outputs": [], "output_shapes": [], "output_types": []},
{"name": "ProfilerStep#4", "id": 8, "rf_id": 4, "parent": 2, "fw_parent": 0, "seq_id": -1, "scope": 7, "tid": 1, "fw_tid": 0, "op_schema": "", "inputs": [], "input_shapes": [], "input_types": [], "outputs": [], "output_shapes": [], "output_types": []},
{"name": "aten::_log_softmax", "id": 189, "rf_id": 84, "parent": 8, "fw_parent": 0, "seq_id": 375, "scope": 0, "tid": 1, "fw_tid": 0, "op_schema": "aten::_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor", "inputs": [[179, 180, 0, 160, 4, "cpu"], 1, false], "input_shapes": [[16, 10], [], []], "input_types": ["Tensor(float)", "Int", "Bool"], "outputs": [[190, 191, 0, 160, 4, "cpu"]], "output_shapes": [[16, 10]], "output_types": ["Tensor(float)"]},
{"name": "aten::nll_loss_forward", "id": 195, "rf_id": 87, "parent": 8, "fw_parent": 0, "seq_id": 376, "scope": 0, "tid": 1, "fw_tid": 0, "op_schema": "aten::nll_loss_forward(Tensor self, Tensor target, Tensor? weight, int reduction, int ignore_index) -> (Tensor output, Tensor total_weight)", "inputs": [[190, 191, 0, 160, 4, "cpu"], [184, 185, 0, 16, 8, "cpu"], [194, 0, 0, 0, 0, ""], 1, -100], "input_shapes": [[16, 10], [16], [], [], []], "input_types": ["Tensor(float)", "Tensor(long int)", "Tensor(nullptr (uninitialized))", "Int", "Int"], "outputs": [[196, 197, 0, 1, 4, "cpu"], [198, 199, 0, 1, 4, "cpu"]], "output_shapes": [[], []], "output_types": ["Tensor(float)", "Tensor(float)"]},
{"name": "aten::nll_loss_backward", "id": 207, "rf_id": 94, "parent": 8, "fw_parent": 0, "seq_id": -1, "scope": 0, "tid": 1, "fw_tid": 0, "op_schema": "aten::nll_loss_backward(Tensor grad_output, Tensor self, Tensor target, Tensor? weight, int reduction, int ignore_index, Tensor total_weight) -> Tensor", "inputs": [[179, 203, 0, 1, 4, "cpu"], [190, 191, 0, 160, 4, "cpu"], [184, 185, 0, 16, 8, "cpu"], [194, 0, 0, 0, 0, ""], 1, -100, [198, 199, 0, 1, 4, "cpu"]], "input_shapes": [[], [16, 10], [16], [], [], [], []], "input_types": ["Tensor(float)", "Tensor(float)", "Tensor(long int)", "Tensor(nullptr (uninitialized))", "Int", "Int", "Tensor(float)"], "outputs": [[92, 208, 0, 160, 4, "cpu"]], "output_shapes": [[16, 10]], "output_types": ["Tensor(float)"]},
{"name": "aten::_log_softmax_backward_data", "id": 212, "rf_id": 98, "parent": 8, "fw_parent": 0, "seq_id": -1, "scope": 0, "tid": 1, "fw_tid": 0, "op_schema": "aten::_log_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor", "inputs": [[92, 208, 0, 160, 4, "cpu"], [198, 191, 0, 160, 4, "cpu"], 1, 6], "input_shapes": [[16, 10], [16, 10], [], []], "input_types": ["Tensor(float)", "Tensor(float)", "Int", "Int"], "outputs": [[213, 214, 0, 160, 4, "cpu"]], "output_shapes": [[16, 10]], "output_types": ["Tensor(float)"]},
{"name": "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", "id": 241, "rf_id": 120, "parent": 8, "fw_parent": 0, "seq_id": -1, "scope": 0, "tid": 1, "fw_tid": 0, "op_schema": "", "inputs": [], "input_shapes": [], "input_types": [], "outputs": [], "output_shapes": [], "output_types": []},
{"name": "torch::autograd::AccumulateGrad", "id": 242, "rf_id": 121, "parent": 241, "fw_parent": 241, "seq_id": -1, "scope": 1, "tid": 1, "fw_tid": 1, "op_schema": "", "inputs": [[198, 191, 0, 10, 4, "cpu"]], "input_shapes": [[10]], "input_types": ["Tensor(float)"], "outputs": [], "output_shapes": [], "output_types": []}

]})ET";

}  // namespace mimic::testing
