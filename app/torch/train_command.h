#pragma once

// The options of `train`, one definition for both executables: portolan-cli parses them (so
// that --help and usage errors come without loading LibTorch) and hands the arguments to
// portolan-torch, which parses them again and trains.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

namespace portolan::cli {

struct TrainCliOptions
{
    std::string project;
    std::string params;
    std::string mode = "train";
    std::string events;
    std::string checkpointDir;
    std::string resume;
    int64_t steps = 0;
    int64_t seed = -1;
    int64_t evalEvery = -1;
    int64_t logSteps = 0;
    int64_t checkpointSteps = -1;
    int threads = 0;
    // Data parallel: `portolan-cli train --ranks N` starts N portolan-torch processes; each reads
    // its rank from the environment (RANK/WORLD_SIZE or Slurm's SLURM_PROCID/SLURM_NTASKS).
    int ranks = 1;
    double distTimeout = 60;
    double bucketMb = 1.0;
};

CLI::App* addTrainCommand(CLI::App& root, TrainCliOptions& o);

} // namespace portolan::cli
