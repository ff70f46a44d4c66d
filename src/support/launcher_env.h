// Which rank this process is, when a cluster launcher started it: torchrun
// and other PyTorch launchers (RANK, WORLD_SIZE, LOCAL_RANK), Open MPI's
// mpirun (OMPI_COMM_WORLD_*), Slurm's srun (SLURM_PROCID, SLURM_NTASKS) or
// another PMI launcher (PMI_RANK, PMI_SIZE). Where the rendezvous is comes
// from MASTER_ADDR / MASTER_PORT, as with torch.distributed's env:// init.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace mimic {

struct LauncherEnv {
    int rank = 0;
    int world_size = 1;
    int local_rank = 0;
    std::string master_addr = "127.0.0.1";
    int master_port = 29500;
    std::string launcher;  // "torchrun/env", "Open MPI", "Slurm", "PMI"
    bool master_addr_given = false;
};

using GetEnv = std::function<const char*(const char*)>;

// nullopt when no launcher variables are set. Throws mimic::Error naming the
// variable when one is set but malformed (not an integer, rank outside the
// world, a port outside 1-65535).
std::optional<LauncherEnv> read_launcher_env(const GetEnv& get);
std::optional<LauncherEnv> read_launcher_env();  // this process's environment

}  // namespace mimic
