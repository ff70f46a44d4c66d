// This replay's machine, described as the recorder describes the original's
// (support/machine_info.h): the parts needing libtorch are added here (its
// version, intra- and inter-op threads, a GEMM run first so that the BLAS
// it calls is mapped, and its build's BLAS_INFO when no BLAS file is).
#pragma once

#include "support/machine_info.h"

namespace mimic::replay {

// Call it after the replay's threads are set.
MachineInfo describe_replay_machine();

}  // namespace mimic::replay
