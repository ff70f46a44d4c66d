// Rank and world size from the variables each launcher sets.
#include "support/launcher_env.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "support/error.h"

namespace mimic {
namespace {

std::optional<LauncherEnv> read(const std::map<std::string, std::string>& vars) {
    return read_launcher_env([&](const char* name) -> const char* {
        auto it = vars.find(name);
        return it == vars.end() ? nullptr : it->second.c_str();
    });
}

TEST(LauncherEnv, NoneWithoutLauncherVariables) {
    EXPECT_FALSE(read({}).has_value());
    EXPECT_FALSE(read({{"MASTER_PORT", "1234"}}).has_value());
}

TEST(LauncherEnv, TorchrunStyle) {
    auto env = read({{"RANK", "3"}, {"WORLD_SIZE", "8"}, {"LOCAL_RANK", "1"}, {"MASTER_ADDR", "node7"}, {"MASTER_PORT", "29400"}});
    ASSERT_TRUE(env);
    EXPECT_EQ(env->rank, 3);
    EXPECT_EQ(env->world_size, 8);
    EXPECT_EQ(env->local_rank, 1);
    EXPECT_EQ(env->master_addr, "node7");
    EXPECT_EQ(env->master_port, 29400);
    EXPECT_EQ(env->launcher, "torchrun/env");
}

TEST(LauncherEnv, OpenMpiSlurmAndPmi) {
    auto mpi = read({{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "4"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}});
    ASSERT_TRUE(mpi);
    EXPECT_EQ(mpi->launcher, "Open MPI");
    EXPECT_EQ(mpi->rank, 1);
    EXPECT_EQ(mpi->world_size, 4);
    EXPECT_EQ(mpi->master_addr, "127.0.0.1");  // no MASTER_ADDR: this host
    EXPECT_EQ(mpi->master_port, 29500);

    auto slurm = read({{"SLURM_PROCID", "5"}, {"SLURM_NTASKS", "6"}, {"SLURM_LOCALID", "2"},
                       {"SLURM_LAUNCH_NODE_IPADDR", "10.0.0.4"}});
    ASSERT_TRUE(slurm);
    EXPECT_EQ(slurm->launcher, "Slurm");
    EXPECT_EQ(slurm->rank, 5);
    EXPECT_EQ(slurm->local_rank, 2);
    EXPECT_EQ(slurm->master_addr, "10.0.0.4");

    auto pmi = read({{"PMI_RANK", "0"}, {"PMI_SIZE", "2"}});
    ASSERT_TRUE(pmi);
    EXPECT_EQ(pmi->launcher, "PMI");
}

TEST(LauncherEnv, TorchrunUnderSlurmTakesRank) {
    // torchrun inside an srun step: RANK is the process's rank, SLURM_PROCID the node's.
    auto env = read({{"RANK", "6"}, {"WORLD_SIZE", "16"}, {"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "2"}});
    ASSERT_TRUE(env);
    EXPECT_EQ(env->rank, 6);
    EXPECT_EQ(env->world_size, 16);
}

TEST(LauncherEnv, MalformedValuesNameTheVariable) {
    auto message = [](const std::map<std::string, std::string>& vars) {
        try {
            read(vars);
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(message({{"RANK", "one"}, {"WORLD_SIZE", "2"}}).find("RANK='one'"), std::string::npos);
    EXPECT_NE(message({{"RANK", "0"}}).find("WORLD_SIZE is not"), std::string::npos);
    EXPECT_NE(message({{"RANK", "2"}, {"WORLD_SIZE", "2"}}).find("is not below WORLD_SIZE=2"), std::string::npos);
    EXPECT_NE(message({{"RANK", "0"}, {"WORLD_SIZE", "0"}}).find("WORLD_SIZE='0'"), std::string::npos);
    EXPECT_NE(message({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_PORT", "70000"}}).find("MASTER_PORT"),
              std::string::npos);
    EXPECT_NE(message({{"RANK", "-1"}, {"WORLD_SIZE", "2"}}).find("RANK='-1'"), std::string::npos);
    EXPECT_NE(message({{"RANK", "99999999999999999999"}, {"WORLD_SIZE", "2"}}).find("RANK="), std::string::npos);
}

}  // namespace
}  // namespace mimic
