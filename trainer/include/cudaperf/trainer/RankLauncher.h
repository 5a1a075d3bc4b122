// `cudaperf-train grpo --nproc N`: N processes of the same command on this
// machine, ranks 0 .. N-1 of one data-parallel run (torchrun's variables:
// RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR=127.0.0.1 and a free MASTER_PORT).
// No LibTorch here.
#pragma once

#include <string>
#include <vector>

namespace cudaperf::trainer {

// Runs `program arguments...` N times and waits for all of them. The first
// rank that fails stops the others (SIGTERM): its exit status is returned,
// 0 when every rank succeeded.
int launchRanks(int processes, const std::string &program, const std::vector<std::string> &arguments);

// The arguments without one flag and its value ("--nproc N" or "--nproc=N").
std::vector<std::string> withoutFlag(const std::vector<std::string> &arguments, const std::string &flag);

} // namespace cudaperf::trainer
