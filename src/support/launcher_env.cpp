#include "support/launcher_env.h"

#include <cerrno>
#include <cstdlib>

#include "support/error.h"

namespace mimic {
namespace {

std::optional<long> int_var(const GetEnv& get, const char* name, long lo, long hi) {
    const char* v = get(name);
    if (v == nullptr || *v == '\0') return std::nullopt;
    errno = 0;
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (errno != 0 || end == v || *end != '\0' || n < lo || n > hi)
        fail({"", -1, -1, name}, std::string("environment variable ") + name + "='" + v + "' is not an integer in [" +
                                     std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return n;
}

}  // namespace

std::optional<LauncherEnv> read_launcher_env(const GetEnv& get) {
    // The launchers in order of precedence: an explicit RANK wins (torchrun
    // under Slurm sets both), then MPI, then Slurm, then PMI.
    struct Names {
        const char* rank;
        const char* size;
        const char* local;
        const char* launcher;
    };
    static constexpr Names kLaunchers[] = {
        {"RANK", "WORLD_SIZE", "LOCAL_RANK", "torchrun/env"},
        {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "Open MPI"},
        {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "Slurm"},
        {"PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "PMI"},
    };
    constexpr long kMaxRanks = 1L << 20;
    for (const Names& n : kLaunchers) {
        const auto rank = int_var(get, n.rank, 0, kMaxRanks - 1);
        if (!rank) continue;
        const auto size = int_var(get, n.size, 1, kMaxRanks);
        if (!size) fail({"", -1, -1, n.size}, std::string(n.rank) + " is set but " + n.size + " is not");
        if (*rank >= *size)
            fail({"", -1, -1, n.rank}, std::string(n.rank) + "=" + std::to_string(*rank) + " is not below " + n.size + "=" +
                                           std::to_string(*size));
        LauncherEnv env;
        env.rank = int(*rank);
        env.world_size = int(*size);
        env.local_rank = int(int_var(get, n.local, 0, kMaxRanks - 1).value_or(*rank));
        env.launcher = n.launcher;
        if (const char* addr = get("MASTER_ADDR"); addr != nullptr && *addr != '\0') {
            env.master_addr = addr;
            env.master_addr_given = true;
        } else if (const char* slurm = get("SLURM_LAUNCH_NODE_IPADDR"); slurm != nullptr && *slurm != '\0') {
            env.master_addr = slurm;  // srun's launching host
            env.master_addr_given = true;
        }
        env.master_port = int(int_var(get, "MASTER_PORT", 1, 65535).value_or(env.master_port));
        return env;
    }
    return std::nullopt;
}

std::optional<LauncherEnv> read_launcher_env() {
    return read_launcher_env([](const char* name) { return std::getenv(name); });
}

}  // namespace mimic
