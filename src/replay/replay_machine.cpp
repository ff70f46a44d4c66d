#include "replay/replay_machine.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <torch/csrc/api/include/torch/version.h>

namespace mimic::replay {

MachineInfo describe_replay_machine() {
    {
        // A BLAS that loads on its first call is mapped after this one.
        const at::Tensor a = at::ones({64, 64});
        (void)at::mm(a, a);
    }
    MachineInfo m = describe_this_process();
    m.torch_version = TORCH_VERSION;
    m.intra_op_threads = at::get_num_threads();
    m.inter_op_threads = at::get_num_interop_threads();
    // Linked into libtorch itself (a pip wheel's MKL): only the build can say.
    if (m.blas.library.empty()) m.blas.library = blas_from_torch_config(at::show_config());
    return m;
}

}  // namespace mimic::replay
