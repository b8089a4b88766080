#pragma once
// Checkpoints of a run: model parameters and buffers, optimizer state, the global RNG state
// (dropout), the data position and the step, so that a resumed run continues bit for bit like
// an uninterrupted one. Written atomically (temporary file, then rename).
#include "core/common/diagnostic.h"
#include "core/runtime/datasets.h"

#include <filesystem>
#include <string>
#include <torch/nn/modules/container/sequential.h>
#include <torch/optim/optimizer.h>

namespace portolan::runtime {

struct CheckpointState
{
    int64_t step = 0;
    LoaderPosition data;
    int64_t seed = 0;
    std::string modelName;
};

Result<std::filesystem::path> saveCheckpoint(const std::filesystem::path& file,
                                             torch::nn::Sequential& net,
                                             torch::optim::Optimizer* optimizer,
                                             const CheckpointState& state);

// Restores into an already built model and optimizer (same configuration); checks the model
// name so that a checkpoint of another model is refused with a message.
Result<CheckpointState> loadCheckpoint(const std::filesystem::path& file,
                                       torch::nn::Sequential& net,
                                       torch::optim::Optimizer* optimizer,
                                       const std::string& expectedModel);

// The newest checkpoint in a folder (highest step), if any.
std::filesystem::path latestCheckpoint(const std::filesystem::path& dir);

} // namespace portolan::runtime
